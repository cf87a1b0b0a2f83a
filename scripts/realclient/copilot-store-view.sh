#!/usr/bin/env bash
# copilot-store-view.sh COPILOT_HOME WORKDIR ID|--continue [PROMPT]
#
# Runs the real GitHub Copilot CLI (1.0.102, installed by install.sh; proprietary, installed for
# local checks only) offline against a store that is already laid out (COPILOT_HOME:
# session-state/<id>/events.jsonl and workspace.yaml, as a test or cctool left it), from WORKDIR:
# `--resume=ID` or `--continue`. Prints the `messages` of the request the client sends, as JSON;
# the model API is a mock of chat/completions on 127.0.0.1.
#
# Unlike copilot-resume-view.sh, the store is used in place and the client writes to it: give
# it a scratch store.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# MOCK_REPLY, CCTOOL_REALCLIENTS, COPILOT_BIN, COPILOT_VIEW_MODEL.
set -u
NAME=copilot-store-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"
setup_store "COPILOT_HOME WORKDIR ID|--continue [PROMPT]" "$@"

if [ -z "${COPILOT_BIN:-}" ]; then
  COPILOT_BIN=$(ls "$ROOT"/copilot/node_modules/@github/copilot-linux-*/copilot 2>/dev/null | head -n 1)
fi
[ -n "$COPILOT_BIN" ] && [ -x "$COPILOT_BIN" ] \
  || fail 2 "Copilot CLI is not installed under $ROOT/copilot (run install.sh, or set COPILOT_BIN)"

new_run copilot-store
case $WHICH in
  --continue) WHAT="--continue" ;;
  *) WHAT="--resume=$(printf '%q' "$WHICH")" ;;
esac
ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "NO_COLOR=1"
  "COPILOT_HOME=$STORE" "COPILOT_PROVIDER_TYPE=openai" "COPILOT_PROVIDER_API_KEY=dummy"
  "COPILOT_MODEL=${COPILOT_VIEW_MODEL:-mock-model}" "COPILOT_OFFLINE=true" "COPILOT_AUTO_UPDATE=false"
)
CMD="env -i COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$COPILOT_BIN") $WHAT --allow-all-tools -p \"\$RESUME_PROMPT\""
write_launcher "$CMD"
run_in_work
export RESUME_PROMPT=$PROMPT
run_isolated
print_request copilot /chat/completions
