#!/usr/bin/env bash
# copilot-resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the GitHub Copilot CLI session FILE (an events.jsonl) with the real Copilot CLI
# (1.0.102, installed by install.sh; proprietary, installed for local checks only), offline:
# the model API is a mock of chat/completions on 127.0.0.1. Prints the `messages` array of the
# request the client sends for the resumed turn, as JSON. FILE itself is never written.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_BODY=1, VIEW_NORMALISE=1,
# VIEW_KEEP=1, VIEW_NETNS=0, VIEW_WRAP, VIEW_DATE, MOCK_REPLY, CCTOOL_REALCLIENTS, COPILOT_BIN,
# COPILOT_EXTRA_ARGS, COPILOT_VIEW_MODEL.
set -u
NAME=copilot-resume-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"
setup "$@"

if [ -z "${COPILOT_BIN:-}" ]; then
  COPILOT_BIN=$(ls "$ROOT"/copilot/node_modules/@github/copilot-linux-*/copilot 2>/dev/null | head -n 1)
fi
[ -n "$COPILOT_BIN" ] && [ -x "$COPILOT_BIN" ] \
  || fail 2 "Copilot CLI is not installed under $ROOT/copilot (run install.sh, or set COPILOT_BIN)"

# A date other than today (the prompt is sent with the date and time of the run).
faketime_env "${VIEW_DATE:-}"

new_run copilot
SESSION=$(python3 "$PY" copilot-session "$INPUT") || fail 2 "cannot read $INPUT as a Copilot CLI session"
# The client finds a session by its folder under COPILOT_HOME (which it honours before
# ~/.copilot): session-state/<id>/events.jsonl.
COPILOT_HOME=$RUN/copilot-home
mkdir -p "$COPILOT_HOME/session-state/$SESSION"
cp "$INPUT" "$COPILOT_HOME/session-state/$SESSION/events.jsonl"

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "NO_COLOR=1"
  "COPILOT_HOME=$COPILOT_HOME" "COPILOT_PROVIDER_TYPE=openai" "COPILOT_PROVIDER_API_KEY=dummy"
  "COPILOT_MODEL=${COPILOT_VIEW_MODEL:-mock-model}" "COPILOT_OFFLINE=true" "COPILOT_AUTO_UPDATE=false"
  "${PRELOAD[@]}"
)
# The port is known only once the mock listens, inside the namespace: left for go.sh to expand.
CMD="env -i COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="${VIEW_WRAP:-} $(printf '%q' "$COPILOT_BIN") --resume=$(printf '%q' "$SESSION") --allow-all-tools"
CMD+=" ${COPILOT_EXTRA_ARGS:-} -p \"\$RESUME_PROMPT\""
write_launcher "$CMD"
export RESUME_PROMPT=$PROMPT
run_isolated
print_request copilot /chat/completions
