#!/usr/bin/env bash
# pi-store-view.sh AGENT_DIR WORKDIR --continue|FILE [PROMPT]
#
# Runs the real pi (1.6.0, installed by pi/install.sh) offline against a store that is already
# laid out (AGENT_DIR, given to the client as PI_CODING_AGENT_DIR: sessions/--<cwd>--/… as a
# test or cctool left it), from WORKDIR: `pi --continue -p` (the newest session pi lists for
# WORKDIR's folder) or `pi --session FILE -p`. Prints the `messages` of the /chat/completions
# request pi sends for the turn, as JSON; the model API is the harness's mock on 127.0.0.1,
# reached through a models.json provider (`mock`, model `mock-model`, `openai-completions`)
# written into AGENT_DIR.
#
# Unlike pi-resume-view.sh, the store is used in place and the client writes to it (the turn is
# appended): give it a scratch store.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see ../README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# MOCK_REPLY, CCTOOL_REALCLIENTS.
set -u
NAME=pi-store-view
. "$(cd "$(dirname "$0")/.." && pwd)/lib/common.sh"
setup_store "AGENT_DIR WORKDIR --continue|FILE [PROMPT]" "$@"
AGENT=$STORE

PI_ROOT=$ROOT/pi
PKG=$PI_ROOT/node_modules/@earendil-works/pi-coding-agent
NODE=$PI_ROOT/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/dist/cli.js" ] \
  || fail 2 "pi is not installed under $PI_ROOT (run scripts/realclient/pi/install.sh)"

new_run pi-store
python3 - "$AGENT/models.json" <<'PY'
import json, sys
json.dump({"providers": {"mock": {"baseUrl": "http://127.0.0.1:@PORT@/v1", "api": "openai-completions",
                                  "apiKey": "dummy", "models": [{"id": "mock-model"}]}}}, open(sys.argv[1], "w"), indent=1)
PY
case $WHICH in
  --continue) WHAT="--continue" ;;
  *) [ -f "$WHICH" ] || fail 2 "no session file $WHICH"; WHAT="--session $(printf '%q' "$WHICH")" ;;
esac
ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TZ=UTC" "NO_COLOR=1" "PI_OFFLINE=1"
  "PI_CODING_AGENT_DIR=$AGENT" "PI_SKIP_VERSION_CHECK=1" "PI_TELEMETRY=0"
)
CMD="env -i $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$NODE") $(printf '%q' "$PKG/dist/cli.js") --offline $WHAT --provider mock --model mock-model"
CMD+=" -p \"\$RESUME_PROMPT\""
write_launcher "$CMD" "sed -i \"s/@PORT@/\$MOCK_PORT/g\" $(printf '%q' "$AGENT/models.json")"
run_in_work
export RESUME_PROMPT=$PROMPT
run_isolated
request=$(VIEW_BODY=1 print_request pi /chat/completions) || exit $?
python3 -c 'import json, sys; print(json.dumps(json.loads(sys.stdin.read())["messages"], indent=1, ensure_ascii=False))' <<< "$request"
