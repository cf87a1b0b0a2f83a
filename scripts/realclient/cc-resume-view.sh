#!/usr/bin/env bash
# cc-resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the Claude Code transcript FILE with the real Claude Code (2.1.332, installed by
# install.sh), offline: the model API is a mock on 127.0.0.1. Prints the `messages` array of the
# request the client sends for the resumed turn, as JSON. FILE itself is never written.
#
# Exit status: 0 the request is printed; 1 the client sent no request (its output on stderr);
# 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_PROMPT, VIEW_TIMEOUT, VIEW_BODY=1, VIEW_NORMALISE=1,
# VIEW_KEEP=1, VIEW_NETNS=0, VIEW_WRAP, VIEW_DATE, VIEW_ENV, VIEW_SETTINGS, MOCK_REPLY,
# CCTOOL_REALCLIENTS, CC_BIN, CC_EXTRA_ARGS.
set -u
NAME=cc-resume-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"
setup "$@"

CC_BIN=${CC_BIN:-$ROOT/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe}
[ -x "$CC_BIN" ] || fail 2 "Claude Code is not installed at $CC_BIN (run install.sh, or set CC_BIN)"

# A date other than today: libfaketime preloaded into the client (its `faketime` wrapper does
# not work with this binary).
faketime_env "${VIEW_DATE:-}"

new_run cc
SESSION=$(python3 "$PY" claude-session "$INPUT")
# Claude Code keeps a project's transcripts under a folder named after the working directory,
# every character other than a letter or a digit replaced by '-'.
PROJECT=$RUN/home/.claude/projects/$(printf '%s' "$RUN/work" | tr -c 'a-zA-Z0-9' '-')
mkdir -p "$PROJECT"
cp "$INPUT" "$PROJECT/$SESSION.jsonl"
[ -n "${VIEW_SETTINGS:-}" ] && printf '%s' "$VIEW_SETTINGS" > "$RUN/home/.claude/settings.json"

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "CLAUDE_CODE_TMPDIR=$RUN/tmp"
  "ANTHROPIC_API_KEY=dummy" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1" "DISABLE_TELEMETRY=1"
  "DISABLE_AUTOUPDATER=1" "DISABLE_ERROR_REPORTING=1" "DISABLE_AUTO_COMPACT=1"
  "${PRELOAD[@]}"
)
# The port is known only once the mock listens, inside the namespace: left for go.sh to expand.
CMD="env -i ANTHROPIC_BASE_URL=http://127.0.0.1:\$MOCK_PORT $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="${VIEW_ENV:-} ${VIEW_WRAP:-} $(printf '%q' "$CC_BIN") -p --resume $(printf '%q' "$SESSION")"
CMD+=" ${CC_EXTRA_ARGS:-} -- \"\$RESUME_PROMPT\""
write_launcher "$CMD"
export RESUME_PROMPT=$PROMPT
run_isolated
print_request claude /v1/messages
