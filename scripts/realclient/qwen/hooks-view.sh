#!/usr/bin/env bash
# hooks-view.sh CCTOOL OUTDIR
#
# Installs CCTOOL's hooks (`hooks install qwen-code --to OUTDIR/archive`) in a scratch home and
# runs the real Qwen Code (0.24.4, installed by install.sh) there offline, four times on one
# session: as record.sh makes `ran-compress`, a turn with a tool call, `/compress` (PreCompact,
# PostCompact) and a turn after it, each with `-p`; then the session resumed interactively on a
# pseudo-terminal and left with `/quit` (SessionEnd). Copies the home as the client left it to
# OUTDIR/home and prints the path of the session file there. The hooks' log is
# OUTDIR/archive/hooks.log.
#
# Exit status: 0 done; 1 the client or the install failed; 2 bad arguments or the client is not
# installed. Knobs: CCTOOL_REALCLIENTS (../README.md).
set -u
[ $# -eq 2 ] && [ -x "$1" ] || { echo "hooks-view.sh: usage: hooks-view.sh CCTOOL OUTDIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$(cd "$HERE/../lib" && pwd)
CCTOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$(mkdir -p "$2" && cd "$2" && pwd) || { echo "hooks-view.sh: cannot create $2" >&2; exit 2; }
ARCHIVE=$OUT/archive
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
PKG=$ROOT/qwen/node_modules/@qwen-code/qwen-code
NODE=$ROOT/qwen/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/cli.js" ] || { echo "hooks-view.sh: Qwen Code is not installed (run $HERE/install.sh)" >&2; exit 2; }
RUN=$(mktemp -d "${TMPDIR:-/tmp}/qwen-hooks.XXXXXX")
WORK=$RUN/proj
trap 'rm -rf "$RUN"' EXIT
mkdir -p "$WORK" "$RUN/home/.qwen" "$RUN/tmp"
printf 'fn main() {}\n' > "$WORK/main.rs"
cp "$HERE/settings.json" "$RUN/home/.qwen/settings.json"
env -u QWEN_HOME -u QWEN_RUNTIME_DIR HOME="$RUN/home" "$CCTOOL" hooks install qwen-code --to "$ARCHIVE" >&2 \
  || { echo "hooks-view.sh: hooks install failed" >&2; exit 1; }
NS=
if unshare -n true 2>/dev/null; then NS="unshare -n"
elif unshare -rn true 2>/dev/null; then NS="unshare -rn"
else echo "hooks-view.sh: warning: no network namespace; the client runs with the host's network" >&2
fi

# step SCRIPT_JSON ARGS...: one run of the client in WORK beside a fresh mock, with cctool on
# the PATH the hooks run with; with STEP_TERMINAL=1, interactive on a pseudo-terminal, where
# lib/pty-screen.py types `/quit` once the client shows its input box.
n=0
failed=0
step() {
  local script=$1
  shift
  n=$((n + 1))
  local dir=$RUN/step$n
  mkdir -p "$dir/dump"
  printf '%s\n' "$script" > "$dir/script.json"
  local term=TERM=dumb run="timeout -k 5 120"
  if [ "${STEP_TERMINAL:-}" = 1 ]; then
    term=TERM=xterm-256color
    run="timeout -k 5 120 python3 $(printf '%q' "$LIB/pty-screen.py") --then-type /quit 100 'Type your message'"
  fi
  {
    printf 'cd %q || exit 90\n' "$WORK"
    printf 'env -i OPENAI_BASE_URL=http://127.0.0.1:$MOCK_PORT/v1 '
    printf '%q ' PATH="$(dirname "$CCTOOL"):/usr/bin:/bin" HOME="$RUN/home" "$term" LANG=C.UTF-8 TZ=UTC \
      NO_COLOR=1 TMPDIR="$RUN/tmp" OPENAI_API_KEY=dummy OPENAI_MODEL=mock-model QWEN_CODE_SUPPRESS_YOLO_WARNING=1
    printf '%s %q %q --approval-mode yolo' "$run" "$NODE" "$PKG/cli.js"
    printf ' %q' "$@"
    printf ' > %q 2> %q < /dev/null\n' "$dir/out" "$dir/err"
  } > "$dir/go.sh"
  if ! MOCK_SCRIPT=$dir/script.json VIEW_NEW_NETNS=${NS:+1} $NS bash "$LIB/beside-mock.sh" "$dir" "$dir/go.sh"; then
    echo "hooks-view.sh: run $n failed: $(tail -c 1500 "$dir/err")" >&2
    failed=1
  fi
}

# As record.sh's ran-compress: the client compresses only when the summary makes the history
# smaller than the prompt it was last told of.
MOCK_PROMPT_TOKENS=30000 step '[[{"type":"tool_use","id":"call_ls_1","name":"run_shell_command","input":{"command":"ls","description":"list the files"}}],"One file."]' \
  -p "look around the project"
MOCK_PROMPT_TOKENS=120000 MOCK_REPLY='<state_snapshot>
<overall_goal>Look around the project.</overall_goal>
<key_knowledge>It holds main.rs.</key_knowledge>
</state_snapshot>' step '[]' --continue -p "/compress"
step '[]' --continue -p "and main.rs"
# A run without a terminal ends without SessionEnd: the client fires it as an interactive
# session exits (`/quit`) or is cleared.
SESSION=$(ls -t "$RUN"/home/.qwen/projects/*/chats/*.jsonl 2>/dev/null | head -n 1)
[ -n "$SESSION" ] || { echo "hooks-view.sh: the client wrote no session" >&2; exit 1; }
STEP_TERMINAL=1 step '[]' --resume "$(basename "$SESSION" .jsonl)"
[ "$failed" = 0 ] || exit 1
rm -rf "$OUT/home"
cp -a "$RUN/home" "$OUT/home" || { echo "hooks-view.sh: cannot copy the home to $OUT" >&2; exit 1; }
find "$OUT/home/.qwen/projects" -path '*/chats/*.jsonl' | sort
