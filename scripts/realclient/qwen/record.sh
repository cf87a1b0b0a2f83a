#!/usr/bin/env bash
# record.sh OUTDIR
#
# Makes Qwen Code sessions with the real client (0.24.4, installed by qwen/install.sh),
# offline against the harness's mock (lib/realclient.py, chat/completions; MOCK_SCRIPT replies
# with tool calls), then resumes each with qwen-resume-view.sh and records the request the
# client sent. Writes into OUTDIR, for each session NAME:
#   NAME.jsonl       the session file as the client wrote it
#   NAME.sent.json   the messages of the request it sent resuming it with "say ok", as
#                    scripts/qwen-request.py normalises them
# Sessions: `ran-plain` (one turn), `ran-tools` (two runs, the second with --continue, each
# with a shell or read_file call and its result), `ran-compress` (a turn with a call, `/compress`
# while the mock reports a large prompt, a turn after it), `ran-autocompress` (the client
# compresses by itself before a turn, its last prompt over the threshold), and the hand-made cases
# edge-cases.py derives from ran-tools (damaged, broken-parent, branch, dangling-call).
# Everything runs in a scratch HOME; the project folder is a fixed place
# (/tmp/cctool-qwen-record/proj), so that a re-recording is comparable with the committed files.
set -u
OUT=${1:?usage: record.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$(cd "$HERE/../lib" && pwd)
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
PKG=$ROOT/qwen/node_modules/@qwen-code/qwen-code
NODE=$ROOT/qwen/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/cli.js" ] || { echo "record.sh: Qwen Code is not installed (run $HERE/install.sh)" >&2; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RUN=$(mktemp -d "${TMPDIR:-/tmp}/qwen-record.XXXXXX")
WORK=/tmp/cctool-qwen-record/proj
trap 'rm -rf "$RUN" /tmp/cctool-qwen-record' EXIT
rm -rf /tmp/cctool-qwen-record
mkdir -p "$WORK" "$RUN/home/.qwen" "$RUN/tmp"
printf '# demo\nA small project.\n' > "$WORK/README.md"
printf 'fn main() {}\n' > "$WORK/main.rs"
cp "$HERE/settings.json" "$RUN/home/.qwen/settings.json"
NS=
if unshare -n true 2>/dev/null; then NS="unshare -n"
elif unshare -rn true 2>/dev/null; then NS="unshare -rn"
else echo "record.sh: warning: no network namespace; the client runs with the host's network" >&2
fi

# step NAME SCRIPT_JSON ARGS...: one run of the client in WORK beside a fresh mock.
n=0
step() {
  local name=$1 script=$2
  shift 2
  n=$((n + 1))
  local dir=$RUN/step$n
  mkdir -p "$dir/dump"
  printf '%s\n' "$script" > "$dir/script.json"
  {
    printf 'cd %q || exit 90\n' "$WORK"
    printf 'env -i OPENAI_BASE_URL=http://127.0.0.1:$MOCK_PORT/v1 '
    printf '%q ' PATH=/usr/bin:/bin HOME="$RUN/home" TERM=dumb LANG=C.UTF-8 TZ=UTC NO_COLOR=1 \
      TMPDIR="$RUN/tmp" OPENAI_API_KEY=dummy OPENAI_MODEL=mock-model QWEN_CODE_SUPPRESS_YOLO_WARNING=1
    printf 'timeout -k 5 120 %q %q --approval-mode yolo' "$NODE" "$PKG/cli.js"
    printf ' %q' "$@"
    printf ' > %q 2> %q < /dev/null\n' "$dir/out" "$dir/err"
  } > "$dir/go.sh"
  MOCK_SCRIPT=$dir/script.json VIEW_NEW_NETNS=${NS:+1} $NS bash "$LIB/beside-mock.sh" "$dir" "$dir/go.sh" \
    || echo "record.sh: $name: run $n ended with $? (see $dir/err)" >&2
}
# latest: the session file the last run wrote to.
latest() { ls -t "$RUN"/home/.qwen/projects/*/chats/*.jsonl | head -n 1; }
keep() {  # NAME: the latest session as OUTDIR/NAME.jsonl
  cp "$(latest)" "$OUT/$1.jsonl"
}

step ran-plain '[]' -p "hello there"
keep ran-plain
step ran-tools '[[{"type":"text","text":"Listing."},{"type":"tool_use","id":"call_ls_1","name":"run_shell_command","input":{"command":"ls","description":"list the files"}}],"There are two files."]' \
  -p "list the files here"
step ran-tools '[[{"type":"tool_use","id":"call_read_1","name":"read_file","input":{"file_path":"'"$WORK"'/README.md"}}],"It describes a small project."]' \
  --continue -p "what does the readme say"
keep ran-tools
# The client compresses only when the summary makes the history smaller than the prompt it was
# last told of: the turn before reports a large prompt, the summarizer's request a larger one.
MOCK_PROMPT_TOKENS=30000 step ran-compress '[[{"type":"tool_use","id":"call_ls_2","name":"run_shell_command","input":{"command":"ls -a","description":"list every file"}}],"Two files and no more."]' \
  -p "look around the project"
MOCK_PROMPT_TOKENS=120000 MOCK_REPLY='<state_snapshot>
<overall_goal>Look around the demo project.</overall_goal>
<key_knowledge>It holds README.md and main.rs.</key_knowledge>
</state_snapshot>' step ran-compress '[]' --continue -p "/compress"
step ran-compress '[[{"type":"tool_use","id":"call_cat_1","name":"run_shell_command","input":{"command":"cat main.rs","description":"show main.rs"}}],"It is an empty main."]' \
  --continue -p "and main.rs"
keep ran-compress
# A compression the client starts itself: the turn before reports a prompt over its threshold,
# so the next turn compresses before it is sent.
MOCK_PROMPT_TOKENS=200000 step ran-autocompress '[]' -p "what is this project"
MOCK_PROMPT_TOKENS=120000 MOCK_REPLY='<state_snapshot>
<overall_goal>Describe the demo project.</overall_goal>
</state_snapshot>' step ran-autocompress '[]' --continue -p "and what next"
keep ran-autocompress
# The hand-made cases, derived from ran-tools (edge-cases.py says what each is).
python3 "$HERE/edge-cases.py" "$OUT/ran-tools.jsonl" "$OUT" || exit 1

for f in "$OUT"/*.jsonl; do
  if ! VIEW_NORMALISE=1 "$HERE/qwen-resume-view.sh" "$f" "say ok" > "${f%.jsonl}.sent.json" 2> "$RUN/view.err"; then
    # A file the client refuses to load is recorded as `null`.
    if grep -q "TranscriptRecordPreparationError" "$RUN/view.err"; then
      echo null > "${f%.jsonl}.sent.json"
    else
      echo "record.sh: $(basename "$f"): no request recorded" >&2
    fi
  fi
done
