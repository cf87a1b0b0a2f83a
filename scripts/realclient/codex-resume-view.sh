#!/usr/bin/env bash
# codex-resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the Codex rollout FILE with the real Codex CLI (0.171.0, installed by install.sh),
# offline: the model API is a mock on 127.0.0.1. Prints the `input` array of the /v1/responses
# request the client sends for the resumed turn, as JSON. FILE itself is never written.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_BODY=1, VIEW_NORMALISE=1,
# VIEW_KEEP=1, VIEW_NETNS=0, VIEW_WRAP, CODEX_MODEL, MOCK_REPLY, CCTOOL_REALCLIENTS, CODEX_BIN,
# CODEX_EXTRA_ARGS, CODEX_AUTO_COMPACT_LIMIT, CODEX_CONFIG_EXTRA.
set -u
NAME=codex-resume-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"
setup "$@"

if [ -z "${CODEX_BIN:-}" ]; then
  CODEX_BIN=$(ls "$ROOT"/codex/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1)
fi
[ -n "$CODEX_BIN" ] && [ -x "$CODEX_BIN" ] \
  || fail 2 "Codex is not installed under $ROOT/codex (run install.sh, or set CODEX_BIN)"

new_run codex
INSTALL=$(python3 "$PY" codex-install "$INPUT") || fail 2 "cannot read $INPUT as a rollout"
field() { python3 -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print(v or "")' "$INSTALL" "$1"; }
THREAD=$(field id)
REL=$(field relpath)
PROVIDER=$(field provider)
MODEL=${CODEX_MODEL:-$(field model)}
MODEL=${MODEL:-gpt-5.3-codex}
CODEX_HOME=$RUN/codex-home
mkdir -p "$(dirname "$CODEX_HOME/$REL")"
cp "$INPUT" "$CODEX_HOME/$REL"

# A thread cannot change its model provider on resume, so the file's provider is kept and
# pointed at the mock: the built-in `openai` through `openai_base_url`, the local ones through
# CODEX_OSS_BASE_URL, any other as a Responses provider of its own. Plugins, apps, analytics,
# feedback, history and update checks are off: each would try the network or write outside
# the run. @PORT@ becomes the mock's port in go.sh, once it is known.
codex_config "$CODEX_HOME/config.toml" "$PROVIDER" "$MODEL"
{
  case $PROVIDER in
    openai|ollama|lmstudio) ;;
    *) printf '\n[model_providers."%s"]\nname = "%s"\n' "$PROVIDER" "$PROVIDER"
       cat <<'TOML'
base_url = "http://127.0.0.1:@PORT@/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
TOML
       ;;
  esac
  [ -n "${CODEX_CONFIG_EXTRA:-}" ] && printf '\n%s\n' "$CODEX_CONFIG_EXTRA"
} >> "$CODEX_HOME/config.toml"

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "CODEX_HOME=$CODEX_HOME" "CODEX_API_KEY=dummy"
  "MOCK_API_KEY=dummy" "RUST_LOG=error" "NO_COLOR=1"
)
CMD="env -i $(printf '%q ' "${ENVIRONMENT[@]}")"
case $PROVIDER in
  ollama|lmstudio) CMD+="CODEX_OSS_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 CODEX_OSS_PORT=\$MOCK_PORT " ;;
esac
CMD+="${VIEW_WRAP:-} $(printf '%q' "$CODEX_BIN") exec --skip-git-repo-check --color never ${CODEX_EXTRA_ARGS:-}"
CMD+=" resume $(printf '%q' "$THREAD") -- \"\$RESUME_PROMPT\""
write_launcher "$CMD" "sed -i \"s/@PORT@/\$MOCK_PORT/g\" $(printf '%q' "$CODEX_HOME/config.toml")"
export RESUME_PROMPT=$PROMPT
run_isolated
print_request codex /v1/responses
