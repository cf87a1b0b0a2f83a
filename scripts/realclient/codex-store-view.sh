#!/usr/bin/env bash
# codex-store-view.sh CODEX_HOME WORKDIR ID|--last|--list [PROMPT]
#
# Runs the real Codex CLI (0.171.0, installed by install.sh) offline against a store that is
# already laid out (CODEX_HOME: sessions/ and state_5.sqlite as a test or cctool left them),
# from WORKDIR: `codex exec resume ID` (found by id) or `codex exec resume --last` (the newest
# session Codex lists for WORKDIR). Prints the `input` array of the /v1/responses request the
# client sends, as JSON; the model API is a mock on 127.0.0.1. With --list, prints instead
# what the app server (behind the `codex resume` picker) lists for WORKDIR: the `data` of its
# `thread/list` answer (lib/codex-list.py); no model is asked.
#
# Unlike codex-resume-view.sh, the store is used in place and the client writes to it (its
# config.toml is replaced, the resumed turn is appended, the database updated): give it a
# scratch store. The threads' provider must be `openai`.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_TIMEOUT, VIEW_BODY=1, VIEW_KEEP=1, VIEW_NETNS=0,
# CODEX_MODEL, MOCK_REPLY, CCTOOL_REALCLIENTS, CODEX_BIN, CODEX_EXTRA_ARGS.
set -u
NAME=codex-store-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"

setup_store "CODEX_HOME WORKDIR ID|--last|--list [PROMPT]" "$@"
CODEX_HOME=$STORE

if [ -z "${CODEX_BIN:-}" ]; then
  CODEX_BIN=$(ls "$ROOT"/codex/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1)
fi
[ -n "$CODEX_BIN" ] && [ -x "$CODEX_BIN" ] \
  || fail 2 "Codex is not installed under $ROOT/codex (run install.sh, or set CODEX_BIN)"

new_run codex-store
# The same offline configuration as codex-resume-view.sh, for the `openai` provider.
codex_config "$CODEX_HOME/config.toml" openai "${CODEX_MODEL:-gpt-5.3-codex}"

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "CODEX_HOME=$CODEX_HOME" "CODEX_API_KEY=dummy"
  "RUST_LOG=error" "NO_COLOR=1"
)
if [ "$WHICH" = --list ]; then
  NS=$(netns)
  cd "$WORK" || fail 2 "cannot enter $WORK"
  sed -i "s/@PORT@/9/g" "$CODEX_HOME/config.toml"
  env -i "${ENVIRONMENT[@]}" timeout -k 5 "$LIMIT" $NS python3 "$LIB/codex-list.py" "$CODEX_BIN" \
    2> "$RUN/client.err" || { tail -c 3000 "$RUN/client.err" >&2; exit 1; }
  exit 0
fi
case $WHICH in
  --last) TARGET=--last ;;
  *) TARGET=$(printf '%q' "$WHICH") ;;
esac
CMD="env -i $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="$(printf '%q' "$CODEX_BIN") exec --skip-git-repo-check --color never ${CODEX_EXTRA_ARGS:-}"
CMD+=" resume $TARGET -- \"\$RESUME_PROMPT\""
write_launcher "$CMD" "sed -i \"s/@PORT@/\$MOCK_PORT/g\" $(printf '%q' "$CODEX_HOME/config.toml")"
# The client runs in WORKDIR, which decides what `--last` lists.
run_in_work
export RESUME_PROMPT=$PROMPT
run_isolated
print_request codex /v1/responses
