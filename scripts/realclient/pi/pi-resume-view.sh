#!/usr/bin/env bash
# pi-resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the pi session FILE with the real pi (1.6.0, installed by pi/install.sh), offline: the
# model API is the harness's mock on 127.0.0.1, reached through a models.json provider of the
# session's own provider and model name with `api: openai-completions`. Prints the whole body of
# the /chat/completions request pi sends for the resumed turn, as JSON. FILE itself is never
# written: pi resumes a copy, whose header `cwd` is made VIEW_CWD (default /tmp, which exists
# wherever the tests run: pi refuses a session whose folder is gone), and the client runs in that
# folder.
#
# What depends on the run is fixed: the working folder (VIEW_CWD), the home and agent dir (an
# empty scratch home: no AGENTS.md, skills, extensions or settings of the user's), the package
# folder the system prompt names (the install's, written in the output as
# /usr/local/lib/node_modules/@earendil-works/pi-coding-agent, npm -g's default place, which
# cctool names when PI_PACKAGE_DIR does not say), the date (VIEW_DATE, through libfaketime, when
# given; pi 1.6.0's default prompt names no date).
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see ../README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# VIEW_CWD, VIEW_DATE, MOCK_REPLY, CCTOOL_REALCLIENTS.
set -u
NAME=pi-resume-view
. "$(cd "$(dirname "$0")/.." && pwd)/lib/common.sh"
setup "$@"

PI_ROOT=$ROOT/pi
PKG=$PI_ROOT/node_modules/@earendil-works/pi-coding-agent
NODE=$PI_ROOT/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PKG/dist/cli.js" ] \
  || fail 2 "pi is not installed under $PI_ROOT (run scripts/realclient/pi/install.sh)"
CWD=${VIEW_CWD:-/tmp}
DEFAULT_PKG=/usr/local/lib/node_modules/@earendil-works/pi-coding-agent
[ -d "$CWD" ] || fail 2 "VIEW_CWD $CWD is not a folder"

PRELOAD=()
if [ -n "${VIEW_DATE:-}" ]; then
  FAKELIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 2>/dev/null | head -n 1)
  [ -n "$FAKELIB" ] || fail 2 "VIEW_DATE needs libfaketime (apt-get install faketime)"
  case $VIEW_DATE in
    *:*) WHEN=$VIEW_DATE ;;
    *) WHEN="$VIEW_DATE 12:00:00" ;;
  esac
  PRELOAD=("LD_PRELOAD=$FAKELIB" "FAKETIME=@$WHEN" "FAKETIME_DISABLE_SHM=1")
fi

new_run pi
AGENT=$RUN/home/.pi/agent
mkdir -p "$AGENT/sessions"
# The copy, its header's cwd made CWD, and the provider and model a resume continues with
# (the last model_change or assistant message of the file: pi's getSessionContextSettings is
# run on the copy by context.mjs's sibling below).
SESSION=$AGENT/sessions/session.jsonl
INFO=$(python3 - "$INPUT" "$SESSION" "$CWD" <<'PY'
import json, sys
src, dst, cwd = sys.argv[1:4]
lines = open(src, encoding="utf-8", errors="surrogateescape").read().split("\n")
provider = model = None
for i, line in enumerate(lines):
    try:
        rec = json.loads(line)
    except ValueError:
        continue
    if not isinstance(rec, dict):
        continue
    if i == 0 and rec.get("type") == "session":
        rec["cwd"] = cwd
        lines[0] = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    elif rec.get("type") == "model_change":
        provider, model = rec.get("provider"), rec.get("modelId")
    elif rec.get("type") == "message" and isinstance(rec.get("message"), dict) \
            and rec["message"].get("role") == "assistant":
        m = rec["message"]
        provider, model = m.get("provider") or provider, m.get("model") or model
open(dst, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(lines))
print(json.dumps({"provider": provider or "mock", "model": model or "mock-model"}))
PY
) || fail 2 "cannot read $INPUT"
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$INFO" "$1"; }
PROVIDER=$(field provider)
MODEL=$(field model)
# @PORT@ becomes the mock's port in go.sh, once it is known.
python3 - "$AGENT/models.json" "$PROVIDER" "$MODEL" <<'PY'
import json, sys
path, provider, model = sys.argv[1:4]
json.dump({"providers": {provider: {"baseUrl": "http://127.0.0.1:@PORT@/v1", "api": "openai-completions",
                                    "apiKey": "dummy", "models": [{"id": model}]}}}, open(path, "w"), indent=1)
PY

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TZ=UTC" "NO_COLOR=1" "PI_OFFLINE=1"
  "PI_CODING_AGENT_DIR=$AGENT" "PI_SKIP_VERSION_CHECK=1" "PI_TELEMETRY=0" ${PRELOAD[@]+"${PRELOAD[@]}"}
)
CMD="env -i $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$NODE") $(printf '%q' "$PKG/dist/cli.js") --offline --session $(printf '%q' "$SESSION")"
CMD+=" -p \"\$RESUME_PROMPT\""
write_launcher "$CMD" "sed -i \"s/@PORT@/\$MOCK_PORT/g\" $(printf '%q' "$AGENT/models.json")"
# pi runs in the session's folder, as a user resuming it there would.
sed -i "1s|.*|cd $(printf '%q' "$CWD") \|\| exit 90|" "$RUN/go.sh"
export RESUME_PROMPT=$PROMPT
run_isolated
# The package folder the system prompt names is written as npm -g puts it with npm's default
# prefix, as `cctool rebuild-chain --api-view` names it when PI_PACKAGE_DIR does not say.
request=$(print_request pi /chat/completions) || exit $?
printf '%s\n' "${request//"$PKG"/$DEFAULT_PKG}"
