#!/usr/bin/env bash
# qwen-resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the Qwen Code session FILE with the real client (0.24.4, installed by
# qwen/install.sh), offline: the model API is the harness's mock on 127.0.0.1, reached as an
# OpenAI-compatible provider (OPENAI_BASE_URL, a dummy OPENAI_API_KEY, OPENAI_MODEL, settings
# `security.auth.selectedType: openai`). Prints the `messages` of the chat/completions request
# the client sends for the resumed turn (VIEW_BODY=1: the whole body; VIEW_NORMALISE=1: as
# `NAME.sent.json` holds it, scripts/qwen-request.py). FILE itself is never written.
#
# The client finds a session by its id under ~/.qwen/projects/<work folder, every character
# that is not a letter or digit as '->/chats/<id>.jsonl, and loads it only when its first
# record's `cwd` is the folder it runs in: the copy's `cwd` fields are made the run's work
# folder (VIEW_CWD, default /tmp/cctool-qwen-view). The id is the first record's `sessionId`.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see ../README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# VIEW_BODY=1, VIEW_NORMALISE=1, VIEW_CWD, VIEW_DATE, MOCK_REPLY, CCTOOL_REALCLIENTS.
set -u
NAME=qwen-resume-view
. "$(cd "$(dirname "$0")/.." && pwd)/lib/common.sh"
setup "$@"

QWEN_ROOT=$ROOT/qwen
PKG=$QWEN_ROOT/node_modules/@qwen-code/qwen-code
NODE=$QWEN_ROOT/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/cli.js" ] \
  || fail 2 "Qwen Code is not installed under $QWEN_ROOT (run scripts/realclient/qwen/install.sh)"
faketime_env "${VIEW_DATE:-}"

new_run qwen
CWD=${VIEW_CWD:-/tmp/cctool-qwen-view}
mkdir -p "$CWD" || fail 2 "cannot create $CWD"
QWEN=$RUN/home/.qwen
ID=$(python3 "$(dirname "$0")/session.py" install "$INPUT" "$QWEN" "$CWD") \
  || fail 2 "cannot install $INPUT as a Qwen Code session"
cp "$(dirname "$0")/settings.json" "$QWEN/settings.json" || fail 2 "cannot write the settings"

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TZ=UTC" "NO_COLOR=1" "TMPDIR=$RUN/tmp"
  "OPENAI_API_KEY=dummy" "OPENAI_MODEL=${QWEN_VIEW_MODEL:-mock-model}" "QWEN_CODE_SUPPRESS_YOLO_WARNING=1"
  ${PRELOAD[@]+"${PRELOAD[@]}"}
)
CMD="env -i OPENAI_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$NODE") $(printf '%q' "$PKG/cli.js") --resume $ID --approval-mode yolo -p \"\$RESUME_PROMPT\""
write_launcher "$CMD"
# The client runs in the session's folder, as a user resuming it there would.
sed -i "1s|.*|cd $(printf '%q' "$CWD") \|\| exit 90|" "$RUN/go.sh"
export RESUME_PROMPT=$PROMPT
run_isolated
print_request qwen /chat/completions
