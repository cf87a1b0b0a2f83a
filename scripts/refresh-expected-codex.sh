#!/usr/bin/env bash
# refresh-expected-codex.sh — re-record the expected requests of the Codex api-view fixtures
# with the real Codex CLI, and say which differ from the committed ones.
#
# Usage:
#   scripts/refresh-expected-codex.sh [--write] [NAME...]
#
# In fixtures/codex/api/, NAME.jsonl is a rollout, NAME.sent.json the `input` Codex 0.171 sent
# after resuming it (normalised as below), or `null` when Codex refused to resume the file.
# The optional NAME.view holds KEY=VALUE lines saying how it was recorded:
#   PROMPT        the prompt of the resumed turn (default "say ok")
#   CODEX_MODEL   the model Codex runs with (default: the rollout's last turn_context model)
#   CCTOOL_ARGS   the cctool options that express the same assumptions (read by the tests)
# Other keys are for the tests and ignored here.
#
# The client runs through ${CCTOOL_HARNESS:-scripts/realclient}/codex-resume-view.sh (install
# the client with the install.sh beside it).
#
#   (no option)  record each fixture and print, per fixture, "same", "DIFFERS" (with the first
#                differing item) or "FAILED"; exit 1 if any differs or failed.
#   --write      also write the new NAME.sent.json where it differs (or is missing).
#   NAME...      only fixtures whose file name (without .jsonl) is one of these.
#
# Normalisation: Codex puts its tool list (an `additional_tools` item, for some models) and its
# base instructions (a developer message) first, and before the new prompt the context of the
# new turn (permissions, skills, environment, AGENTS.md, model hints), all items that carry the
# prompt's turn id. Those describe the machine and the configuration, not the session: they are
# dropped, and so is every item's internal_chat_message_metadata_passthrough and the prompt's
# id (a fresh one each run). Ids of history items, and the ids Codex derives for the outputs it
# adds to unanswered calls, are part of the request and kept.
set -u

FOLDER=fixtures/codex/api
repo=$(cd "$(dirname "$0")/.." && pwd)
harness=${CCTOOL_HARNESS:-$repo/scripts/realclient}
write=0
only=()
for a in "$@"; do
  case "$a" in
    --write) write=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "refresh-expected-codex: unknown option $a" >&2; exit 2 ;;
    *) only+=("$a") ;;
  esac
done
command -v python3 >/dev/null || { echo "refresh-expected-codex: python3 is needed (the harness needs it too)" >&2; exit 2; }
[ -f "$harness/codex-resume-view.sh" ] || { echo "refresh-expected-codex: no harness script $harness/codex-resume-view.sh (set CCTOOL_HARNESS)" >&2; exit 2; }

normalise() { # normalise < input.json > normalised.json
  python3 -c '
import json, sys
items = json.load(sys.stdin)
def meta(x):
    return x.get("internal_chat_message_metadata_passthrough") or {}
base = next((i for i, x in enumerate(items) if "model.base_instructions" in (meta(x).get("content_item_kinds") or [])), 0)
items = items[base + 1:]
prompt = items[-1]
turn = meta(prompt).get("turn_id")
out = [x for x in items[:-1] if not (turn and meta(x).get("turn_id") == turn)] + [prompt]
for x in out:
    x.pop("internal_chat_message_metadata_passthrough", None)
prompt.pop("id", None)
json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
sys.stdout.write("\n")
'
}

first_difference() { # first_difference EXPECTED NEW
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
if a is None or b is None:
    print("expected %s, got %s" % ("a refusal" if a is None else "a request", "a refusal" if b is None else "a request"))
    sys.exit()
if len(a) != len(b):
    print("%d items expected, %d sent" % (len(a), len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        s = json.dumps(y, ensure_ascii=False)
        print("item %d now: %s" % (i, s[:300] + ("…" if len(s) > 300 else "")))
        break
' "$1" "$2"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0; same=0; differ=0; failed=0
for input in "$repo/$FOLDER"/*.jsonl; do
  [ -e "$input" ] || continue
  name=$(basename "$input" .jsonl)
  expected="$repo/$FOLDER/$name.sent.json"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  [ -f "$expected" ] || [ "$write" = 1 ] || continue
  view="$repo/$FOLDER/$name.view"
  PROMPT="say ok"; MODEL=
  if [ -f "$view" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in
        PROMPT=*) PROMPT=${line#PROMPT=} ;;
        CODEX_MODEL=*) MODEL=${line#CODEX_MODEL=} ;;
      esac
    done < "$view"
  fi
  total=$((total + 1))
  label="$FOLDER/$name"
  CODEX_MODEL=$MODEL bash "$harness/codex-resume-view.sh" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"
  rc=$?
  if [ "$rc" = 1 ] && grep -q "sent no /v1/responses request" "$tmp/err"; then
    echo null > "$tmp/new.json"      # Codex refused to resume the file
  elif [ "$rc" != 0 ]; then
    failed=$((failed + 1))
    echo "FAILED  $label: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
    continue
  elif ! normalise < "$tmp/raw.json" > "$tmp/new.json"; then
    failed=$((failed + 1)); echo "FAILED  $label: not JSON"; continue
  fi
  if [ -f "$expected" ] && python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$expected" "$tmp/new.json"; then
    same=$((same + 1))
    echo "same    $label"
    continue
  fi
  differ=$((differ + 1))
  if [ -f "$expected" ]; then
    echo "DIFFERS $label: $(first_difference "$expected" "$tmp/new.json")"
  else
    echo "NEW     $label"
  fi
  if [ "$write" = 1 ]; then
    cp "$tmp/new.json" "$expected"
    echo "        wrote $FOLDER/$name.sent.json"
  fi
done
echo "refresh-expected-codex: $total fixtures, $same same, $differ differ, $failed failed"
[ "$failed" = 0 ] && { [ "$differ" = 0 ] || [ "$write" = 1 ]; }
