#!/usr/bin/env bash
# cc-mcp-view.sh CCTOOL STORE PATTERN [PROMPT]
#
# Runs the real Claude Code (2.1.332, installed by install.sh) offline with one MCP server,
# `CCTOOL mcp` (the cctool binary given), serving the sessions of STORE: a folder laid out as a
# home (STORE/.claude/projects/…, STORE/.codex/sessions/…), copied into the run and given to
# the server as its HOME, so that it searches those sessions and nothing of the client's own.
# The mock model answers the prompt as a model would: a `tool_use` of ToolSearch loading the
# server's `search` tool (the client defers MCP tools), then a `tool_use` calling it with
# PATTERN, then, once the client has sent the tool's result back, text that ends the turn.
# Prints the `messages` of every request of the agent's turn (the ones offering tools), in
# order, as one JSON array: the last holds the `tool_result` the client made of the server's
# answer.
#
# Exit status: 0 the requests are printed; 1 the client sent no request (its output on
# stderr); 2 bad arguments or the client is not installed.
#
# Knobs (environment; see README.md): VIEW_TIMEOUT, VIEW_BODY=1 (whole bodies), VIEW_KEEP=1,
# VIEW_NETNS=0, VIEW_ENV, MOCK_REPLY (the closing text), MOCK_SCRIPT (other replies: a file as
# lib/realclient.py reads it), MCP_ARGS (more `cctool mcp` arguments, e.g. --no-redact),
# CCTOOL_REALCLIENTS, CC_BIN, CC_EXTRA_ARGS.
set -u
NAME=cc-mcp-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"

[ $# -ge 3 ] || fail 2 "usage: $NAME CCTOOL STORE PATTERN [PROMPT]"
command -v python3 >/dev/null || fail 2 "python3 is needed"
[ -x "$1" ] && [ -f "$1" ] || fail 2 "no cctool binary at $1"
[ -d "$2" ] || fail 2 "no folder $2"
CCTOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
STORE=$(cd "$2" && pwd)
PATTERN=$3
PROMPT=${4:-${VIEW_PROMPT:-find it in my past sessions}}
LIMIT=${VIEW_TIMEOUT:-120}
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
mkdir -p "$ROOT/runs" 2>/dev/null || fail 2 "cannot create $ROOT/runs"
ROOT=$(cd "$ROOT" && pwd)

CC_BIN=${CC_BIN:-$ROOT/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe}
[ -x "$CC_BIN" ] || fail 2 "Claude Code is not installed at $CC_BIN (run install.sh, or set CC_BIN)"

new_run cc-mcp
cp -R "$STORE" "$RUN/store" || fail 2 "cannot copy $STORE"
# Claude Code names a server's tools mcp__SERVER__TOOL.
TOOL=mcp__cctool__search
python3 - "$RUN" "$CCTOOL" "$TOOL" "$PATTERN" "${MCP_ARGS:-}" <<'PY' || fail 2 "cannot write the run's configuration"
import json, shlex, sys
run, cctool, tool, pattern, extra = sys.argv[1:]
server = {"type": "stdio", "command": cctool, "args": ["mcp"] + shlex.split(extra),
          "env": {"HOME": run + "/store"}}
json.dump({"mcpServers": {"cctool": server}}, open(run + "/mcp.json", "w"), indent=1)
# The client defers an MCP server's tools: their schemas are sent once ToolSearch has loaded
# them, and a model is told to load them first. The mock does as a model would.
script = [
    [{"type": "tool_use", "id": "toolu_mock_load", "name": "ToolSearch",
      "input": {"query": "select:" + tool, "max_results": 1}}],
    [{"type": "tool_use", "id": "toolu_mock_search", "name": tool, "input": {"pattern": pattern}}],
]
json.dump(script, open(run + "/script.json", "w"), indent=1)
PY
export MOCK_SCRIPT=${MOCK_SCRIPT:-$RUN/script.json}

ENVIRONMENT=(
  "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
  "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "CLAUDE_CODE_TMPDIR=$RUN/tmp"
  "ANTHROPIC_API_KEY=dummy" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1" "DISABLE_TELEMETRY=1"
  "DISABLE_AUTOUPDATER=1" "DISABLE_ERROR_REPORTING=1" "DISABLE_AUTO_COMPACT=1"
)
CMD="env -i ANTHROPIC_BASE_URL=http://127.0.0.1:\$MOCK_PORT $(printf '%q ' "${ENVIRONMENT[@]}")"
CMD+="${VIEW_ENV:-} $(printf '%q' "$CC_BIN") -p --mcp-config $(printf '%q' "$RUN/mcp.json") --strict-mcp-config"
CMD+=" --allowedTools $TOOL ${CC_EXTRA_ARGS:-} -- \"\$RESUME_PROMPT\""
write_launcher "$CMD"
export RESUME_PROMPT=$PROMPT
run_isolated
status=$(cat "$RUN/client.status" 2>/dev/null || echo "?")
body=
[ "${VIEW_BODY:-0}" = 1 ] && body=--body
if ! python3 "$PY" turns claude "$RUN/dump" $body > "$RUN/requests.json"; then
  {
    echo "$NAME: the client sent no /v1/messages request (its exit status: $status)"
    echo "--- end of the client's stdout"
    tail -c 2000 "$RUN/client.out" 2>/dev/null
    echo "--- end of the client's stderr"
    tail -c 3000 "$RUN/client.err" 2>/dev/null
  } >&2
  exit 1
fi
cat "$RUN/requests.json"
[ "$status" = 0 ] || echo "$NAME: note: the client exited with status $status" >&2
exit 0
