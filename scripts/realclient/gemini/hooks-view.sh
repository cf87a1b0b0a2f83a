#!/usr/bin/env bash
# hooks-view.sh CCTOOL OUTDIR: installs CCTOOL's hooks (`hooks install gemini-cli --to
# OUTDIR/archive`) in a scratch home, runs the real Gemini CLI there for one prompt, copies the
# home as the client left it to OUTDIR/home (the scratch home is the next script's), and prints
# the path of each chat there. The hooks' log is OUTDIR/archive/hooks.log. Exit status: 0 done;
# 1 the client or the install failed; 2 bad arguments or the client is missing.
set -u
NAME=hooks-view
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
need_client
[ $# -eq 2 ] && [ -x "$1" ] || fail 2 "usage: hooks-view.sh CCTOOL OUTDIR"
CCTOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$(mkdir -p "$2" && cd "$2" && pwd) || fail 2 "cannot create $2"
ARCHIVE=$OUT/archive
BASE=/tmp/cctool-gemini
exec 9>"/tmp/cctool-gemini.lock"
flock 9
rm -rf "$BASE/home" "$BASE/work" "$BASE/hooks"
mkdir -p "$BASE/work"
scratch_home "$BASE/home"
env -u GEMINI_CLI_HOME HOME="$BASE/home" "$CCTOOL" hooks install gemini-cli --to "$ARCHIVE" >&2 \
  || fail 1 "hooks install failed"
run_client "$BASE/home" "$BASE/work" "$BASE/hooks/1" -p "say ok" \
  || fail 1 "the client failed: $(tail -c 1500 "$BASE/hooks/1/client.err")"
rm -rf "$OUT/home"
cp -a "$BASE/home" "$OUT/home" || fail 1 "cannot copy the home to $OUT"
find "$OUT/home/.gemini/tmp" -path '*/chats/session-*.jsonl' | sort
