#!/usr/bin/env bash
# copilot-hooks-view.sh CCTOOL OUTDIR
#
# Installs CCTOOL's hooks (`hooks install copilot --to OUTDIR/archive`) in a scratch
# COPILOT_HOME and runs the real GitHub Copilot CLI (1.0.102, installed by install.sh;
# proprietary, for local checks only) there offline, three times on one session: a new session
# (`-p "say ok"`: SessionEnd), a resume that compacts (`-p /compact`: PreCompact, no SessionEnd)
# and a resume with a prompt (SessionEnd). Each run waits for the hooks' backups (SessionEnd's
# is taken once the client has exited). Copies the store as the client left it to
# OUTDIR/copilot-home and prints the path of the session's events.jsonl there. The hooks' log
# is OUTDIR/archive/hooks.log.
#
# Exit status: 0 done; 1 the client, the install or a hook failed; 2 bad arguments or the
# client is not installed. Knobs: VIEW_TIMEOUT, VIEW_KEEP=1, VIEW_NETNS=0,
# CCTOOL_REALCLIENTS, COPILOT_BIN (README.md).
set -u
NAME=copilot-hooks-view
. "$(cd "$(dirname "$0")" && pwd)/lib/common.sh"
[ $# -eq 2 ] && [ -x "$1" ] || fail 2 "usage: copilot-hooks-view.sh CCTOOL OUTDIR"
command -v python3 >/dev/null || fail 2 "python3 is needed"
CCTOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$(mkdir -p "$2" && cd "$2" && pwd) || fail 2 "cannot create $2"
ARCHIVE=$OUT/archive
LIMIT=${VIEW_TIMEOUT:-120}
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
mkdir -p "$ROOT/runs" 2>/dev/null || fail 2 "cannot create $ROOT/runs"
ROOT=$(cd "$ROOT" && pwd)
if [ -z "${COPILOT_BIN:-}" ]; then
  COPILOT_BIN=$(ls "$ROOT"/copilot/node_modules/@github/copilot-linux-*/copilot 2>/dev/null | head -n 1)
fi
[ -n "$COPILOT_BIN" ] && [ -x "$COPILOT_BIN" ] \
  || fail 2 "Copilot CLI is not installed under $ROOT/copilot (run install.sh, or set COPILOT_BIN)"

new_run copilot-hooks
COPILOT_HOME=$RUN/copilot-home
mkdir -p "$COPILOT_HOME"
env -u COPILOT_HOME COPILOT_HOME="$COPILOT_HOME" HOME="$RUN/home" "$CCTOOL" hooks install copilot --to "$ARCHIVE" >&2 \
  || fail 1 "hooks install failed"

# Waits until the hooks' log holds N backups (a SessionEnd backup is taken by a process the hook
# leaves behind, after the client's exit).
wait_backups() {  # N
  for _ in $(seq 600); do
    [ "$(grep -c ' copilot backed up ' "$ARCHIVE/hooks.log" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
    sleep 0.1
  done
  fail 1 "the hooks' log does not show $1 backups: $(tail -n 5 "$ARCHIVE/hooks.log" 2>/dev/null)"
}

# Runs the client with ARGS (words, quoted for bash) in the run's work folder.
run_client() {  # ARGS
  local environment=(
    "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN/home" "USER=$(id -un 2>/dev/null || echo user)"
    "SHELL=/bin/bash" "TERM=dumb" "LANG=C.UTF-8" "TMPDIR=$RUN/tmp" "NO_COLOR=1"
    "COPILOT_HOME=$COPILOT_HOME" "COPILOT_PROVIDER_TYPE=openai" "COPILOT_PROVIDER_API_KEY=dummy"
    "COPILOT_MODEL=mock-model" "COPILOT_OFFLINE=true" "COPILOT_AUTO_UPDATE=false"
  )
  local cmd="env -i COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:\$MOCK_PORT/v1 $(printf '%q ' "${environment[@]}")"
  write_launcher "$cmd $(printf '%q' "$COPILOT_BIN") --allow-all-tools $1"
  # Each run starts a mock of its own, whose port the launcher learns from this file.
  rm -f "$RUN/port"
  run_isolated
  [ "$(cat "$RUN/client.status" 2>/dev/null)" = 0 ] \
    || fail 1 "the client failed ($1): $(tail -c 1500 "$RUN/client.err")"
}

run_client '-p "say ok"'
wait_backups 1
SESSION=$(ls "$COPILOT_HOME/session-state" | head -n 1)
[ -n "$SESSION" ] || fail 1 "the client wrote no session"
run_client "--resume=$SESSION -p /compact"
wait_backups 2
run_client "--resume=$SESSION -p \"say ok again\""
wait_backups 3
rm -rf "$OUT/copilot-home"
cp -a "$COPILOT_HOME" "$OUT/copilot-home" || fail 1 "cannot copy the store to $OUT"
echo "$OUT/copilot-home/session-state/$SESSION/events.jsonl"
