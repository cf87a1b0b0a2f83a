#!/usr/bin/env bash
# refresh-expected.sh — re-record every recorded-request fixture with the real clients, and say
# which differ from the committed ones.
#
# Usage:
#   scripts/refresh-expected.sh [--write] [--today] [NAME...]
#
# A recorded-request fixture is NAME.jsonl (the session) beside NAME.sent.json (what the
# client sent after resuming it, normalised as below) and, for some, NAME.body.json (the whole
# request as `cctool rebuild-chain --api-view --body` prints it). The folders, and the shape
# their NAME.sent.json has, are listed in FOLDERS below. The optional NAME.view holds KEY=VALUE
# lines saying how the fixture was recorded (lines starting with # are comments):
#   VIEW_DATE      Claude Code, Copilot CLI: the UTC date or time the client runs at
#                  ("2026-11-29", "2026-11-30 07:59:30"); without it, the folder's date below
#   VIEW_ENV       Claude Code: more client environment (NAME=VALUE words)
#   VIEW_SETTINGS  Claude Code: a file beside the fixture whose JSON is the client's settings.json
#   CC_EXTRA_ARGS  Claude Code: more client arguments (e.g. --model claude-opus-4-6)
#   CODEX_MODEL    Codex: the configured model (default: the rollout's last turn_context model)
#   PROMPT         the prompt of the resumed turn (default "say ok")
# Other keys (CCTOOL_ARGS, RULES, PROVES, EXPECT, NOT_REPRODUCED) are for the tests.
#
# The clients run through the harness in ${CCTOOL_HARNESS:-scripts/realclient}
# (cc-resume-view.sh, codex-resume-view.sh, copilot-resume-view.sh, cc-mcp-view.sh; install
# the clients with its install.sh; Qwen Code's qwen/qwen-resume-view.sh, with qwen/install.sh). The recordings of Claude Code driving `cctool mcp` (fixtures/mcp) are described
# where they are recorded, at the end.
#
#   (no option)  record each fixture as its .view says and print, per fixture, "same",
#                "DIFFERS" (with the first difference) or "FAILED", then the counts; exit 1
#                if any differs or failed.
#   --write      also write NAME.sent.json (and NAME.body.json where the fixture has one)
#                where it differs; exit 1 only if a recording failed. A NAME given on the
#                command line without a NAME.sent.json is recorded too (a new fixture).
#   --today      record Claude Code and Copilot CLI fixtures at today's date instead of their recorded one
#                (the drift check: what today's client would send); never writes. Codex has
#                no date knob: its fixtures run as always.
#   NAME...      only fixtures whose file name (without .jsonl) is one of these.
#
# Normalisation (what the clients add by themselves, whatever the file holds):
#   Claude Code: scripts/claude-request.py (`sent`, and `body` for NAME.body.json).
#   Codex: scripts/codex-request.py (`sent`: history and prompt; `history`: without the
#   prompt). NAME.sent.json holding `null` means Codex refused to resume the file (it said
#   "thread/resume failed"; a run that sent nothing otherwise is FAILED).
#   Copilot CLI: scripts/copilot-request.py (`sent`: the messages after the client's system
#   prompt, the prompt without the date the client prefixes it with). `null` means the client
#   refused the file ("Session file is corrupted").
#   Qwen Code: scripts/qwen-request.py (`sent`: the messages after the client's system prompt,
#   without the <system-reminder> parts it puts before a prompt); qwen/qwen-resume-view.sh.
#   `null` means the client refused the file (TranscriptRecordPreparationError).
set -u

# FOLDER AGENT SHAPE DATE — DATE is when fixtures without a VIEW_DATE were recorded ("-":
# today). SHAPE is what NAME.sent.json holds: `sent` the request's messages or input with
# the prompt, `history` (Codex) the input without the prompt, as `rebuild-chain` prints it.
FOLDERS=(
  "fixtures/claude/api    claude sent    -"
  "fixtures/claude/model  claude sent    -"
  "fixtures/claude/chain  claude sent    2026-12-01"
  "fixtures/claude        claude sent    2026-12-01"
  "fixtures/codex/api     codex  sent    -"
  "fixtures/codex/chain   codex  history -"
  "fixtures/codex         codex  history -"
  "fixtures/copilot/real  copilot sent   2026-12-03"
  "fixtures/copilot       copilot sent   2026-12-03"
  "fixtures/qwen          qwen   sent    -"
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
    -h|--help) sed -n '2,/^set -u$/{/^set -u$/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "refresh-expected: unknown option $a (see --help)" >&2; exit 2 ;;
    *) only+=("$a") ;;
  esac
done
if [ "$today" = 1 ] && [ "$write" = 1 ]; then
  echo "refresh-expected: --today reports drift only; expected files keep their recorded dates" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "refresh-expected: python3 is needed (the harness needs it too)" >&2; exit 2; }
for script in cc-resume-view.sh codex-resume-view.sh copilot-resume-view.sh cc-mcp-view.sh; do
  [ -f "$harness/$script" ] || { echo "refresh-expected: no harness script $harness/$script (set CCTOOL_HARNESS)" >&2; exit 2; }
done

named() { # named NAME: was NAME given on the command line (or none at all)?
  [ ${#only[@]} -eq 0 ] && return 0
  local n
  for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

# compare EXPECTED NEW: exit 0 when both hold the same JSON value, else print where they first
# differ and exit 1.
compare() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
if a == b:
    sys.exit(0)
def show(v):
    s = json.dumps(v, ensure_ascii=False)
    return s[:300] + ("…" if len(s) > 300 else "")
def first(a, b, where):
    if type(a) is not type(b) or not isinstance(a, (list, dict)):
        return "%s expected %s, now %s" % (where or "the request", show(a), show(b))
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return ("item %d now: %s" % (i, show(y))) if not where else first(x, y, "%s[%d]" % (where, i))
        return "%s: %d items expected, %d now" % (where or "the request", len(a), len(b))
    for k in sorted(set(a) | set(b)):
        if a.get(k, KeyError) != b.get(k, KeyError):
            if k not in a or k not in b:
                return "%s.%s %s" % (where, k, "is new" if k in b else "is gone")
            return first(a[k], b[k], "%s.%s" % (where, k))
    return where
print(first(a, b, ""))
sys.exit(1)
EOF
}

# settle FOLDER NAME LABEL WRITE PART...: compares each recorded $tmp/PART.json with the
# committed FOLDER/NAME.PART.json, says which are new or differ, counts the fixture as same or
# differing, and with WRITE=1 stores the ones that changed.
settle() {
  local folder=$1 name=$2 label=$3 may_write=$4 part dest why
  shift 4
  local changed=()
  for part in "$@"; do
    dest="$repo/$folder/$name.$part.json"
    if [ ! -f "$dest" ]; then
      changed+=("$part"); echo "NEW     $label ($name.$part.json)"
    elif ! why=$(compare "$dest" "$tmp/$part.json"); then
      changed+=("$part"); echo "DIFFERS $label ($name.$part.json): $why"
    fi
  done
  if [ ${#changed[@]} -eq 0 ]; then
    same=$((same + 1)); echo "same    $label"; return
  fi
  differ=$((differ + 1))
  if [ "$may_write" = 1 ]; then
    for part in "${changed[@]}"; do
      store "$tmp/$part.json" "$repo/$folder/$name.$part.json"
      echo "        wrote $folder/$name.$part.json"
    done
  fi
}

# store NEW EXPECTED: write NEW's value in EXPECTED's file, indented as EXPECTED already is
# (one space for new files), so that a re-recording changes only what the client changed.
store() {
  python3 - "$1" "$2" <<'EOF'
import json, os, sys
new, dest = sys.argv[1], sys.argv[2]
indent = 1
if os.path.exists(dest):
    lines = open(dest, encoding="utf-8").read().split("\n")
    if len(lines) > 1 and lines[1].strip():
        indent = len(lines[1]) - len(lines[1].lstrip(" ")) or 1
with open(dest + ".tmp", "w", encoding="utf-8") as f:
    json.dump(json.load(open(new, encoding="utf-8")), f, indent=indent, ensure_ascii=False)
    f.write("\n")
os.replace(dest + ".tmp", dest)
EOF
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0; same=0; differ=0; failed=0
for entry in "${FOLDERS[@]}"; do
  read -r folder agent shape folder_date <<< "$entry"
  [ -d "$repo/$folder" ] || continue
  [ "$folder_date" = - ] && folder_date=
  for input in "$repo/$folder"/*.jsonl; do
    [ -e "$input" ] || continue
    name=$(basename "$input" .jsonl)
    named "$name" || continue
    expected="$repo/$folder/$name.sent.json"
    body="$repo/$folder/$name.body.json"
    # Without NAME.sent.json a file is no recorded fixture (a rollout the tests expect the
    # client to refuse, say), unless it was named to be recorded.
    [ -f "$expected" ] || { [ "$write" = 1 ] && [ ${#only[@]} -gt 0 ]; } || continue
    view="$repo/$folder/$name.view"
    VIEW_DATE=$folder_date; VIEW_ENV=; VIEW_SETTINGS=; CC_EXTRA_ARGS=; CODEX_MODEL=; PROMPT="say ok"
    bad=
    if [ -f "$view" ]; then
      while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in
          VIEW_DATE=*) VIEW_DATE=${line#*=} ;;
          VIEW_ENV=*) VIEW_ENV=${line#*=} ;;
          VIEW_SETTINGS=*)
            VIEW_SETTINGS=$(cat "$repo/$folder/${line#*=}" 2>/dev/null) || bad="no settings file ${line#*=}" ;;
          CC_EXTRA_ARGS=*) CC_EXTRA_ARGS=${line#*=} ;;
          CODEX_MODEL=*) CODEX_MODEL=${line#*=} ;;
          PROMPT=*) PROMPT=${line#*=} ;;
        esac
      done < "$view"
    fi
    [ "$today" = 1 ] && VIEW_DATE=
    total=$((total + 1))
    label="$folder/$name"
    if [ "$agent" != codex ]; then
      if [ "$today" = 1 ]; then label="$label @today"; elif [ -n "$VIEW_DATE" ]; then label="$label @$VIEW_DATE"; fi
    fi
    if [ -n "$bad" ]; then
      failed=$((failed + 1)); echo "FAILED  $label: $bad"; continue
    fi
    rm -f "$tmp"/*
    if [ "$agent" = claude ]; then
      VIEW_BODY=1 VIEW_DATE=$VIEW_DATE VIEW_ENV=$VIEW_ENV VIEW_SETTINGS=$VIEW_SETTINGS CC_EXTRA_ARGS=$CC_EXTRA_ARGS \
        bash "$harness/cc-resume-view.sh" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"
    elif [ "$agent" = copilot ]; then
      VIEW_BODY=1 VIEW_DATE=$VIEW_DATE \
        bash "$harness/copilot-resume-view.sh" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"
    elif [ "$agent" = qwen ]; then
      VIEW_BODY=1 bash "$harness/qwen/qwen-resume-view.sh" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"
    else
      VIEW_BODY=1 CODEX_MODEL=$CODEX_MODEL \
        bash "$harness/codex-resume-view.sh" "$input" "$PROMPT" > "$tmp/raw.json" 2> "$tmp/err"
    fi
    rc=$?
    # A refusal is Codex saying it cannot read the thread; a run that sent nothing for any
    # other reason (a timeout on a loaded machine, say) is a failure, never a `null`.
    if [ "$rc" = 1 ] && [ "$agent" = codex ] && grep -q "sent no /v1/responses request" "$tmp/err" \
        && grep -q "thread/resume failed" "$tmp/err"; then
      echo null > "$tmp/sent.json"
    elif [ "$rc" = 1 ] && [ "$agent" = copilot ] && grep -q "Session file is corrupted" "$tmp/err"; then
      echo null > "$tmp/sent.json"
    elif [ "$rc" = 1 ] && [ "$agent" = qwen ] && grep -q "TranscriptRecordPreparationError" "$tmp/err"; then
      echo null > "$tmp/sent.json"
    elif [ "$rc" != 0 ]; then
      failed=$((failed + 1))
      echo "FAILED  $label: the harness exited with status $rc: $(grep -v '^[[:space:]]*$' "$tmp/err" | tail -n 3 | tr '\n' ' ')"
      continue
    elif ! python3 "$repo/scripts/$agent-request.py" "$shape" < "$tmp/raw.json" > "$tmp/sent.json" 2> "$tmp/err"; then
      failed=$((failed + 1)); echo "FAILED  $label: $(tail -n 1 "$tmp/err")"; continue
    fi
    parts=(sent)
    if [ -f "$body" ]; then
      parts+=(body)
      python3 "$repo/scripts/claude-request.py" body < "$tmp/raw.json" > "$tmp/body.json" 2> "$tmp/err" \
        || { failed=$((failed + 1)); echo "FAILED  $label: $(tail -n 1 "$tmp/err")"; continue; }
    fi
    settle "$folder" "$name" "$label" "$write" "${parts[@]}"
  done
done
# MCP recordings: fixtures/mcp/NAME.view names a store and a pattern (STORE=folder of the
# repository laid out as a home, PATTERN=, PROMPT=); the real Claude Code runs with `cctool mcp`
# over that store as its MCP server (cc-mcp-view.sh, with the cctool binary CCTOOL_BIN, else
# target/release/cctool), the mock model calling the server's search tool. NAME.sent.json holds
# the turn's last request (`claude-request.py turn`), NAME.tools.json the server's tools as the
# client offered them (`mcp-tools`). No date knob: they run as always.
cctool_bin=${CCTOOL_BIN:-$repo/target/release/cctool}
for view in "$repo"/fixtures/mcp/*.view; do
  [ -e "$view" ] || continue
  name=$(basename "$view" .view)
  named "$name" || continue
  [ -f "$repo/fixtures/mcp/$name.sent.json" ] || { [ "$write" = 1 ] && [ ${#only[@]} -gt 0 ]; } || continue
  total=$((total + 1))
  label="fixtures/mcp/$name"
  STORE=; PATTERN=; PROMPT="find it in my past sessions"
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      STORE=*) STORE=${line#*=} ;;
      PATTERN=*) PATTERN=${line#*=} ;;
      PROMPT=*) PROMPT=${line#*=} ;;
    esac
  done < "$view"
  if [ -z "$STORE" ] || [ -z "$PATTERN" ] || [ ! -x "$cctool_bin" ]; then
    failed=$((failed + 1))
    echo "FAILED  $label: needs STORE= and PATTERN= in $name.view and a cctool at $cctool_bin (CCTOOL_BIN)"
    continue
  fi
  rm -f "$tmp"/*
  if ! VIEW_BODY=1 bash "$harness/cc-mcp-view.sh" "$cctool_bin" "$repo/$STORE" "$PATTERN" "$PROMPT" \
      > "$tmp/all.json" 2> "$tmp/err"; then
    failed=$((failed + 1))
    echo "FAILED  $label: $(grep -v '^[[:space:]]*$' "$tmp/err" | tail -n 3 | tr '\n' ' ')"
    continue
  fi
  python3 -c 'import json, sys; json.dump(json.load(sys.stdin)[-1], sys.stdout)' < "$tmp/all.json" > "$tmp/raw.json"
  python3 "$repo/scripts/claude-request.py" turn < "$tmp/raw.json" > "$tmp/sent.json" &&
    python3 "$repo/scripts/claude-request.py" mcp-tools < "$tmp/raw.json" > "$tmp/tools.json" ||
    { failed=$((failed + 1)); echo "FAILED  $label: cannot normalise the request"; continue; }
  may_write=0
  [ "$write" = 1 ] && [ "$today" = 0 ] && may_write=1
  settle fixtures/mcp "$name" "$label" "$may_write" sent tools
done

echo "refresh-expected: $total fixtures, $same same, $differ differ, $failed failed"
[ "$failed" = 0 ] && { [ "$differ" = 0 ] || [ "$write" = 1 ]; }
