#!/usr/bin/env bash
# qwen-store-view.sh QWEN_DIR WORKDIR ID|--continue [PROMPT]
#
# Runs the real Qwen Code (0.24.4, installed by qwen/install.sh) offline against a store that is
# already laid out (QWEN_DIR, the client's ~/.qwen: projects/<folder>/chats/<id>.jsonl as a test
# or cctool left it), from WORKDIR: `--resume ID` or `--continue`. Prints the `messages` of the
# chat/completions request the client sends; the model API is the harness's mock on 127.0.0.1
# as an OpenAI-compatible provider (qwen-resume-view.sh's settings).
#
# Unlike qwen-resume-view.sh, the store is used in place and the client writes to it (the turn
# is appended): give it a scratch store.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see ../README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# VIEW_BODY=1, MOCK_REPLY, CCTOOL_REALCLIENTS.
set -u
NAME=qwen-store-view
. "$(cd "$(dirname "$0")/.." && pwd)/lib/common.sh"
setup_store "QWEN_DIR WORKDIR ID|--continue [PROMPT]" "$@"

QWEN_ROOT=$ROOT/qwen
PKG=$QWEN_ROOT/node_modules/@qwen-code/qwen-code
NODE=$QWEN_ROOT/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/cli.js" ] \
  || fail 2 "Qwen Code is not installed under $QWEN_ROOT (run scripts/realclient/qwen/install.sh)"

new_run qwen-store
mkdir -p "$RUN/home"
ln -s "$STORE" "$RUN/home/.qwen" || fail 2 "cannot link the store"
[ -f "$STORE/settings.json" ] || cp "$(dirname "$0")/settings.json" "$STORE/settings.json" || fail 2 "cannot write the settings"
case $WHICH in
  --continue) WHAT="--continue" ;;
  *) WHAT="--resume $(printf '%q' "$WHICH")" ;;
esac
ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TZ=UTC" "NO_COLOR=1" "TMPDIR=$RUN/tmp"
  "OPENAI_API_KEY=dummy" "OPENAI_MODEL=${QWEN_VIEW_MODEL:-mock-model}" "QWEN_CODE_SUPPRESS_YOLO_WARNING=1"
)
CMD="env -i OPENAI_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$NODE") $(printf '%q' "$PKG/cli.js") $WHAT --approval-mode yolo -p \"\$RESUME_PROMPT\""
write_launcher "$CMD"
run_in_work
export RESUME_PROMPT=$PROMPT
run_isolated
print_request qwen /chat/completions
