#!/usr/bin/env bash
# record.sh OUTDIR
#
# Makes opencode databases with the real client (opencode-ai 1.18.33, installed by
# ../install.sh), offline against the loopback mock of the agent-support research (mock.py and
# netrun.sh, in the folder OTHERAGENTS names: it answers with tool calls and reports
# overflows), then resumes each session of them once and records the
# request the client sent. Writes into OUTDIR:
#   opencode.db                 two projects: a turn with a tool call, a forced compaction
#                               (the mock reports a context overflow once) and turns after
#                               it; a plain turn in the other project
#   <session id>.export.json   the session as `opencode export` prints it
#   <session id>.sent.json      the body of the chat/completions request opencode sent when
#                               the session was resumed with `run --session ID "say ok"`
# The databases are made in a scratch HOME; nothing outside it and OUTDIR is written.
#
# Quirks of the client this script works around: `opencode run` stores a message argument
# that holds spaces wrapped in literal quotes (so the prompts here are single words joined by
# dashes); a resumed run does not exit after its turn (it is killed once the request is in);
# the title of a new session is asked of the model first (a request that is not the turn's).
set -u
OUT=${1:?usage: record.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
OC=${OPENCODE_BIN:-$ROOT/opencode/node_modules/opencode-linux-x64/bin/opencode}
TOOLS=${OTHERAGENTS:-}
[ -x "$OC" ] || { echo "record.sh: opencode is not installed at $OC (run scripts/realclient/install.sh)" >&2; exit 2; }
[ -n "$TOOLS" ] && [ -f "$TOOLS/netrun.sh" ] || { echo "record.sh: OTHERAGENTS must name the folder of the agent-support mock (mock.py, netrun.sh)" >&2; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RUN=$(mktemp -d "${TMPDIR:-/tmp}/opencode-record.XXXXXX")
# The projects' folders are written into the sessions: a fixed place keeps a re-recording's
# databases comparable with the committed ones.
WORK=/tmp/cctool-opencode-record
trap 'rm -rf "$RUN" "$WORK"' EXIT
rm -rf "$WORK"
H=$RUN/home
mkdir -p "$H/.config/opencode" "$WORK/proj-a" "$WORK/proj-b" "$WORK/proj-loop"
# A custom OpenAI-compatible provider on the mock; a small context window, so that the usage
# the mock reports once is an overflow.
cat > "$H/.config/opencode/opencode.json" <<'JSON'
{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": {"baseURL": "http://127.0.0.1:8765/v1", "apiKey": "mock"},
      "models": {"mock-model": {"name": "Mock", "limit": {"context": 20000, "output": 1000}}}
    }
  },
  "model": "mock/mock-model"
}
JSON

# oc DATA_HOME DUMP DIR ARGS...: one run of the client in DIR, its data under DATA_HOME.
oc() {
  local data=$1 dump=$2 dir=$3
  shift 3
  env -i PATH=/usr/bin:/bin HOME="$H" XDG_DATA_HOME="$data" XDG_CONFIG_HOME="$H/.config" \
    XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
    MOCK_PT="${MOCK_PT:-10}" MOCK_PT_FIRST="${MOCK_PT_FIRST:-}" T="${T:-120}" \
    bash "$TOOLS/netrun.sh" "$dump" "$dir" "$OC" run -m mock/mock-model "$@" >"$dump.out" 2>"$dump.err"
}

DATA=$RUN/data
n=0
step() { n=$((n + 1)); oc "$DATA" "$RUN/dump$n" "$@" || echo "record.sh: run $n ended with $?" >&2; }
step "$WORK/proj-a" "list-the-files-RUNTOOL"
MOCK_PT_FIRST=50000 step "$WORK/proj-a" --continue "keep-going"
step "$WORK/proj-a" --continue "after-the-compaction-RUNTOOL"
step "$WORK/proj-b" "a-plain-question"
# A model that reports an overflow on every answer: the client compacts again and again, the
# loop its users report, until the run is ended once LOOPS compactions are in the database.
n=$((n + 1))
# Job control puts the run in a process group of its own, which is ended whole.
set -m
MOCK_PT=50000 T=120 oc "$DATA" "$RUN/dump$n" "$WORK/proj-loop" "loop" &
LOOP=$!
set +m
for _ in $(seq 480); do
  sleep 0.25
  kill -0 $LOOP 2>/dev/null || break
  done_loops=$(python3 -c "
import sqlite3, sys
try:
    db = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True, timeout=1)
    print(db.execute(\"select count(*) from part where json_extract(data, '$.type') = 'compaction'\").fetchone()[0])
except Exception:
    print(0)
" "$DATA/opencode/opencode.db" 2>/dev/null)
  [ "${done_loops:-0}" -ge "${LOOPS:-3}" ] && break
done
kill -- -$LOOP 2>/dev/null
wait $LOOP 2>/dev/null
# The copy is made whole (the WAL folded in) by SQLite itself, never by copying files.
rm -f "$OUT/opencode.db"
python3 - "$DATA/opencode/opencode.db" "$OUT/opencode.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode=DELETE")
# Our copy only: its free pages go, so that the fixture is no larger than its rows.
dst.execute("VACUUM")
dst.close()
PY

# Each session as `opencode export` prints it: the form sessions are shared in.
for sid in $(python3 -c "import sqlite3,sys; print('\n'.join(r[0] for r in sqlite3.connect(sys.argv[1]).execute('select id from session order by id')))" "$OUT/opencode.db"); do
  env -i PATH=/usr/bin:/bin HOME="$H" XDG_DATA_HOME="$DATA" XDG_CONFIG_HOME="$H/.config" \
    XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
    unshare -n timeout 60 "$OC" export "$sid" >"$OUT/$sid.export.json" 2>"$RUN/export.err" </dev/null \
    || echo "record.sh: opencode export $sid failed: $(tail -n 3 "$RUN/export.err")" >&2
done

# Each session resumed from a copy of the database, the request of its turn recorded, by the
# harness's view script (its mock model's context window is large: no compaction first).
for sid in $(python3 -c "import sqlite3,sys; print('\n'.join(r[0] for r in sqlite3.connect(sys.argv[1]).execute('select id from session order by id')))" "$OUT/opencode.db"); do
  OPENCODE_BIN=$OC OTHERAGENTS=$TOOLS "$HERE/../opencode-resume-view.sh" "$OUT/opencode.db#$sid" say-ok >"$OUT/$sid.sent.json" \
    || { echo "record.sh: resuming $sid sent no request" >&2; rm -f "$OUT/$sid.sent.json"; }
done
ls "$OUT"
