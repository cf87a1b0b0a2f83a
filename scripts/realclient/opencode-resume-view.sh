#!/usr/bin/env bash
# opencode-resume-view.sh SESSION [PROMPT]
#
# Resumes an opencode session with the real opencode (opencode-ai 1.18.33, installed by
# install.sh), offline: the model API is the loopback mock of the agent-support research
# (mock.py and netrun.sh, in the folder OTHERAGENTS names). Prints the body of the request the
# client sends for the resumed turn, as JSON. SESSION is `DB#ID` (a session of an
# opencode.db, copied with SQLite's backup API first) or an `opencode export` document (loaded
# into a fresh database with `opencode import`). Nothing given is ever written.
#
# The resumed run does not exit after its turn (a quirk of 1.18.33 on a copied database): it
# is ended once its request is in (at most VIEW_TIMEOUT seconds, default 60).
#
# Exit status: 0 the request is printed; 1 the client sent no request of its turn; 2 bad
# arguments or the client is not installed.
set -u
SESSION=${1:?usage: opencode-resume-view.sh DB#ID|EXPORT.json [PROMPT]}
PROMPT=${2:-${VIEW_PROMPT:-say-ok}}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
OC=${OPENCODE_BIN:-$(ls "$ROOT"/opencode/node_modules/opencode-linux-*/bin/opencode 2>/dev/null | head -n 1)}
TOOLS=${OTHERAGENTS:-}
fail() { echo "opencode-resume-view.sh: $2" >&2; exit "$1"; }
[ -n "$OC" ] && [ -x "$OC" ] || fail 2 "opencode is not installed under $ROOT/opencode (run install.sh, or set OPENCODE_BIN)"
[ -n "$TOOLS" ] && [ -f "$TOOLS/netrun.sh" ] || fail 2 "OTHERAGENTS must name the folder of the agent-support mock (mock.py, netrun.sh)"
mkdir -p "$ROOT/runs"
RUN=$(mktemp -d "$ROOT/runs/opencode-view.XXXXXX")
[ "${VIEW_KEEP:-0}" = 1 ] || trap 'rm -rf "$RUN"' EXIT
H=$RUN/home DATA=$RUN/data
mkdir -p "$H/.config/opencode" "$DATA/opencode" "$RUN/tmp"
# The mock's model with a context window no session here fills: the view is of the turn, not
# of a compaction the client would start first.
cp "$HERE/opencode/opencode.json" "$H/.config/opencode/opencode.json"
ENVIRONMENT=(PATH=/usr/bin:/bin HOME="$H" XDG_DATA_HOME="$DATA" XDG_CONFIG_HOME="$H/.config"
  XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" TMPDIR="$RUN/tmp" OPENCODE_DISABLE_AUTOUPDATE=1)

if [ -f "$SESSION" ]; then
  # An export document: opencode's own import puts it in a fresh database.
  env -i "${ENVIRONMENT[@]}" unshare -n timeout 60 "$OC" import "$SESSION" >"$RUN/import.out" 2>&1 </dev/null \
    || fail 2 "opencode import $SESSION failed: $(tail -n 3 "$RUN/import.out")"
  DB=$DATA/opencode/opencode.db
  ID=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['info']['id'])" "$SESSION") \
    || fail 2 "$SESSION is not an opencode export"
else
  DB=${SESSION%#*} ID=${SESSION##*#}
  [ -f "$DB" ] && [ "$DB" != "$SESSION" ] || fail 2 "$SESSION names no database and session (DB#ID)"
  python3 - "$DB" "$DATA/opencode/opencode.db" <<'PY' || fail 2 "cannot copy $DB"
import sqlite3, sys
src = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.close()
PY
  DB=$DATA/opencode/opencode.db
fi
DIR=$(python3 -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute('select directory from session where id=?',(sys.argv[2],)).fetchone(); print(r[0] if r else '')" "$DB" "$ID")
[ -n "$DIR" ] || fail 2 "no session $ID in $SESSION"
# The client runs in the session's folder; one that does not exist here is made in the run's
# own scratch space when it cannot be made where it was.
mkdir -p "$DIR" 2>/dev/null || { DIR=$RUN/work; mkdir -p "$DIR"; }
# The request of the turn: the first whose last message is the user's prompt (a title's and a
# compaction's are not: a compaction's holds the conversation as one text).
found() {
  python3 - "$RUN/dump" "$PROMPT" <<'PY'
import glob, json, sys
for p in sorted(glob.glob(sys.argv[1] + "/0*.json")):
    b = json.load(open(p)).get("body") or {}
    msgs = b.get("messages") or []
    if "You are a title generator" in str(msgs[0].get("content") if msgs else ""):
        continue
    last = msgs[-1] if msgs else {}
    content = last.get("content")
    first = content[0].get("text") if isinstance(content, list) and content and isinstance(content[0], dict) else content
    if last.get("role") == "user" and first == sys.argv[2]:
        print(json.dumps(b, indent=1, ensure_ascii=False))
        sys.exit(0)
sys.exit(1)
PY
}
# The resumed run does not exit after its turn: it is ended (its whole process group) once
# the request is in, or after VIEW_TIMEOUT seconds.
WAIT=${VIEW_TIMEOUT:-60}
env -i "${ENVIRONMENT[@]}" MOCK_PT=10 T="$WAIT" \
  setsid bash "$TOOLS/netrun.sh" "$RUN/dump" "$DIR" "$OC" run -m mock/mock-model --session "$ID" "$PROMPT" \
  >"$RUN/run.out" 2>"$RUN/run.err" &
PID=$!
for _ in $(seq $((WAIT * 4))); do
  if found >"$RUN/request.json" 2>/dev/null; then break; fi
  kill -0 $PID 2>/dev/null || break
  sleep 0.25
done
kill -- -$PID 2>/dev/null
wait $PID 2>/dev/null
found || { tail -n 5 "$RUN/run.err" >&2; exit 1; }
