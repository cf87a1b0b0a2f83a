#!/usr/bin/env bash
# cc-store-view.sh CONFIG_DIR WORKDIR ID|--continue|--picker [PROMPT]
#
# Runs the real Claude Code (2.1.332, installed by install.sh) offline against a store that is
# already laid out (CONFIG_DIR, given to the client as CLAUDE_CONFIG_DIR: projects/<slug>/…
# as a test or cctool left it), from WORKDIR: `claude -p --resume ID` (found by id) or
# `claude -p --continue` (the newest session Claude Code lists for WORKDIR). Prints the
# `messages` array of the request the client sends, as JSON; the model API is a mock on
# 127.0.0.1. With --picker, prints instead the screen of the `claude --resume` picker (run on
# a pseudo-terminal, lib/pty-screen.py, until it shows its list; escape sequences removed):
# the store's .claude.json gets onboarding done, WORKDIR trusted and the dummy key approved.
#
# Unlike cc-resume-view.sh, the store is used in place and the client writes to it (the
# resumed turn is appended): give it a scratch store.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_TIMEOUT, VIEW_BODY=1, VIEW_KEEP=1, VIEW_NETNS=0,
# VIEW_ENV, MOCK_REPLY, CCTOOL_REALCLIENTS, CC_BIN, CC_EXTRA_ARGS.
set -u
NAME=cc-store-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"

setup_store "CONFIG_DIR WORKDIR ID|--continue|--picker [PROMPT]" "$@"
CONFIG=$STORE

CC_BIN=${CC_BIN:-$ROOT/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe}
[ -x "$CC_BIN" ] || fail 2 "Claude Code is not installed at $CC_BIN (run install.sh, or set CC_BIN)"

new_run cc-store
# The same client environment as cc-resume-view.sh, with the store given by CLAUDE_CONFIG_DIR.
ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "CLAUDE_CODE_TMPDIR=$RUN/tmp"
  "CLAUDE_CONFIG_DIR=$CONFIG" "ANTHROPIC_API_KEY=dummy" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
  "DISABLE_TELEMETRY=1" "DISABLE_AUTOUPDATER=1" "DISABLE_ERROR_REPORTING=1" "DISABLE_AUTO_COMPACT=1"
)
if [ "$WHICH" = --picker ]; then
  python3 - "$CONFIG/.claude.json" "$WORK" "$(cd "$WORK" && pwd -P)" <<'PY' || fail 2 "cannot write $CONFIG/.claude.json"
import json, os, sys
path, dirs = sys.argv[1], sys.argv[2:]
state = json.load(open(path)) if os.path.exists(path) else {}
state.update(hasCompletedOnboarding=True, theme="dark")
state.setdefault("customApiKeyResponses", {"approved": [], "rejected": []})["approved"].append("dummy")
for d in dirs:
    state.setdefault("projects", {}).setdefault(d, {}).update(
        hasTrustDialogAccepted=True, hasCompletedProjectOnboarding=True)
json.dump(state, open(path, "w"))
PY
  NS=$(netns)
  cd "$WORK" || fail 2 "cannot enter $WORK"
  env -i "ANTHROPIC_BASE_URL=http://127.0.0.1:9" "${ENVIRONMENT[@]}" "TERM=xterm-256color" \
    $NS python3 "$LIB/pty-screen.py" "${VIEW_TIMEOUT:-30}" "Enter to resume" "$CC_BIN" --resume
  exit $?
fi
case $WHICH in
  --continue) TARGET=--continue ;;
  *) TARGET="--resume $(printf '%q' "$WHICH")" ;;
esac
CMD="env -i ANTHROPIC_BASE_URL=http://127.0.0.1:\$MOCK_PORT $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="${VIEW_ENV:-} $(printf '%q' "$CC_BIN") -p $TARGET ${CC_EXTRA_ARGS:-} -- \"\$RESUME_PROMPT\""
write_launcher "$CMD"
# The client runs in WORKDIR, which decides the project folder it looks in.
run_in_work
export RESUME_PROMPT=$PROMPT
run_isolated
print_request claude /v1/messages
