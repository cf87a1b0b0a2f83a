#!/usr/bin/env bash
# refresh-expected.sh — re-record the expected requests of the api-view fixtures with the real
# clients, and say which differ from the committed ones.
#
# Usage:
#   scripts/refresh-expected.sh [--write] [--today] [NAME...]
#
# Every fixture of the recorded-request convention is re-recorded: in each folder listed in
# FOLDERS below, NAME.jsonl is the input, NAME.sent.json the expected request part (Claude
# Code: `messages`; Codex: `input`), normalised as below, and the optional NAME.view holds
# KEY=VALUE lines saying how it was recorded:
#   VIEW_DATE      the date the client runs at (UTC), e.g. 2026-11-29
#   VIEW_ENV       extra client environment (NAME=VALUE words)
#   VIEW_SETTINGS  a file beside the fixture whose JSON is the client's settings.json
#   PROMPT         the prompt of the resumed turn (default "say ok")
#   CCTOOL_ARGS    the cctool options that express the same assumptions (read by the tests)
# Other keys (RULES, PROVES) are for the tests and ignored here.
#
# The client runs through the harness in ${CCTOOL_HARNESS:-scripts/realclient}
# (cc-resume-view.sh, codex-resume-view.sh; install the clients with its install.sh).
#
#   (no option)  record each fixture as its .view says and print, per fixture, "same",
#                "DIFFERS" (with the first differing message) or "FAILED"; exit 1 if any
#                differs or failed.
#   --write      also write the new NAME.sent.json where it differs (or is missing).
#   --today      record at today's date instead of VIEW_DATE (the drift check: what today's
#                client would send); never writes.
#   NAME...      only fixtures whose file name (without .jsonl) is one of these.
#
# Normalisation (what the clients add by themselves and is no part of the file's history):
#   Claude Code: messages with role "system" are dropped, and so are the text blocks starting
#   with <system-reminder> of the last user message; cache_control members and
#   "is_error": false are removed.
#   Codex: developer messages and the user <environment_context> message are dropped, and so
#   are item ids and internal_chat_message_metadata_passthrough members.
set -u

# Folders of recorded-request fixtures. Each owner adds its own.
FOLDERS=(
  fixtures/claude/api
)

repo=$(cd "$(dirname "$0")/.." && pwd)
harness=${CCTOOL_HARNESS:-$repo/scripts/realclient}
write=0
today=0
only=()
for a in "$@"; do
  case "$a" in
    --write) write=1 ;;
    --today) today=1 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    -*) echo "refresh-expected: unknown option $a" >&2; exit 2 ;;
    *) only+=("$a") ;;
  esac
done
if [ "$today" = 1 ] && [ "$write" = 1 ]; then
  echo "refresh-expected: --today reports drift only; expected files keep their recorded dates" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "refresh-expected: python3 is needed (the harness needs it too)" >&2; exit 2; }

normalise() { # normalise AGENT < raw.json > normalised.json
  python3 -c '
import json, sys
agent = sys.argv[1]
data = json.load(sys.stdin)
def clean(v):
    if isinstance(v, dict):
        v.pop("cache_control", None)
        if v.get("is_error") is False:
            v.pop("is_error")
        if agent == "codex":
            v.pop("internal_chat_message_metadata_passthrough", None)
            v.pop("id", None)
        for x in v.values():
            clean(x)
    elif isinstance(v, list):
        for x in v:
            clean(x)
if agent == "claude":
    msgs = [m for m in data if m.get("role") != "system"]
    if msgs and isinstance(msgs[-1].get("content"), list):
        msgs[-1]["content"] = [b for b in msgs[-1]["content"]
                               if not (isinstance(b, dict) and isinstance(b.get("text"), str)
                                       and b["text"].startswith("<system-reminder>"))]
else:
    def env(item):
        c = item.get("content")
        return (item.get("role") == "user" and isinstance(c, list) and c
                and isinstance(c[0], dict) and str(c[0].get("text", "")).startswith("<environment_context>"))
    msgs = [m for m in data if m.get("role") != "developer" and not env(m)]
clean(msgs)
json.dump(msgs, sys.stdout, indent=2, ensure_ascii=False)
sys.stdout.write("\n")
' "$1"
}

first_difference() { # first_difference EXPECTED NEW
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
if len(a) != len(b):
    print("%d messages expected, %d sent" % (len(a), len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        s = json.dumps(y, ensure_ascii=False)
        print("message %d now: %s" % (i, s[:300] + ("…" if len(s) > 300 else "")))
        break
' "$1" "$2"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0; same=0; differ=0; failed=0
for folder in "${FOLDERS[@]}"; do
  [ -d "$repo/$folder" ] || continue
  case "$folder" in
    fixtures/codex/*) agent=codex; script=codex-resume-view.sh ;;
    *) agent=claude; script=cc-resume-view.sh ;;
  esac
  if [ ! -f "$harness/$script" ]; then
    echo "refresh-expected: no harness script $harness/$script (set CCTOOL_HARNESS)" >&2
    exit 2
  fi
  for input in "$repo/$folder"/*.jsonl; do
    [ -e "$input" ] || continue
    name=$(basename "$input" .jsonl)
    expected="$repo/$folder/$name.sent.json"
    if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
    [ -f "$expected" ] || [ "$write" = 1 ] || continue
    view="$repo/$folder/$name.view"
    VIEW_DATE=; VIEW_ENV=; VIEW_SETTINGS=; PROMPT="say ok"
    if [ -f "$view" ]; then
      while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in
          VIEW_DATE=*) VIEW_DATE=${line#VIEW_DATE=} ;;
          VIEW_ENV=*) VIEW_ENV=${line#VIEW_ENV=} ;;
          VIEW_SETTINGS=*) VIEW_SETTINGS=$(cat "$repo/$folder/${line#VIEW_SETTINGS=}") ;;
          PROMPT=*) PROMPT=${line#PROMPT=} ;;
        esac
      done < "$view"
    fi
    [ "$today" = 1 ] && VIEW_DATE=
    total=$((total + 1))
    label="$folder/$name${VIEW_DATE:+ @$VIEW_DATE}"
    [ "$today" = 1 ] && label="$folder/$name @today"
    if ! VIEW_DATE=$VIEW_DATE VIEW_ENV=$VIEW_ENV VIEW_SETTINGS=$VIEW_SETTINGS \
        bash "$harness/$script" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"; then
      failed=$((failed + 1))
      echo "FAILED  $label: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
      continue
    fi
    normalise "$agent" < "$tmp/raw.json" > "$tmp/new.json" || { failed=$((failed + 1)); echo "FAILED  $label: not JSON"; continue; }
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
      echo "        wrote $folder/$name.sent.json"
    fi
  done
done
echo "refresh-expected: $total fixtures, $same same, $differ differ, $failed failed"
[ "$failed" = 0 ] && { [ "$differ" = 0 ] || [ "$write" = 1 ]; }
