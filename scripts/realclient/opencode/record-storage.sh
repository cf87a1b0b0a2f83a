#!/usr/bin/env bash
# record-storage.sh OUTDIR
#
# Makes an opencode storage of the older per-file form (`storage/session/…`, `message/…`,
# `part/…`) with a real client of that time (opencode-ai 1.1.65, the last release before the
# SQLite store; OLD_OPENCODE_BIN names its binary, e.g. after
# `npm install --prefix /tmp/oc-old opencode-ai@1.1.65`), offline against the loopback mock of
# the agent-support research (OTHERAGENTS: mock.py, netrun.sh). Then resumes each of its
# sessions with the current client (1.18.33, installed by ../install.sh) after the storage was
# migrated into a database by opencode-ai 1.2.1 (the first SQLite release, MIGRATOR_OPENCODE_BIN;
# 1.18.33 no longer has the JSON migration), and records the request it sent. Writes:
#   storage/                    the storage as the old client left it: a turn with a tool call,
#                               a compaction forced by the mock reporting an overflow once,
#                               a turn after it; a plain turn in another project
#   migrated.db                 the database 1.2.1 migrated the storage into
#   <session id>.sent.json      the body of the chat/completions request 1.18.33 sent when it
#                               resumed the migrated session with `run --session ID say-ok`
# The old client's prompts are single words for the reason record.sh gives.
set -u
OUT=${1:?usage: record-storage.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=${OLD_OPENCODE_BIN:-/tmp/oc-old/node_modules/opencode-linux-x64/bin/opencode}
MIGRATOR=${MIGRATOR_OPENCODE_BIN:-/tmp/oc-mid/node_modules/opencode-linux-x64/bin/opencode}
TOOLS=${OTHERAGENTS:-}
[ -x "$OLD" ] || { echo "record-storage.sh: no old opencode at $OLD (set OLD_OPENCODE_BIN)" >&2; exit 2; }
[ -x "$MIGRATOR" ] || { echo "record-storage.sh: no migrating opencode at $MIGRATOR (set MIGRATOR_OPENCODE_BIN)" >&2; exit 2; }
[ -n "$TOOLS" ] && [ -f "$TOOLS/netrun.sh" ] || { echo "record-storage.sh: OTHERAGENTS must name the folder of the agent-support mock (mock.py, netrun.sh)" >&2; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RUN=$(mktemp -d "${TMPDIR:-/tmp}/opencode-record-storage.XXXXXX")
# The projects' folders are written into the sessions: a fixed place keeps a re-recording
# comparable with the committed one.
WORK=/tmp/cctool-opencode-storage-record
trap 'rm -rf "$RUN" "$WORK"' EXIT
rm -rf "$WORK"
H=$RUN/home
mkdir -p "$H/.config/opencode" "$WORK/proj-a" "$WORK/proj-b"
# The mock's model with a small context window, so that the usage it reports once is an
# overflow and the client compacts.
sed 's/"context": 1000000/"context": 20000/' "$HERE/opencode.json" >"$H/.config/opencode/opencode.json"
DATA=$RUN/data
n=0
step() {
  n=$((n + 1))
  local dir=$1
  shift
  env -i PATH=/usr/bin:/bin HOME="$H" XDG_DATA_HOME="$DATA" XDG_CONFIG_HOME="$H/.config" \
    XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
    MOCK_PT="${MOCK_PT:-10}" MOCK_PT_FIRST="${MOCK_PT_FIRST:-}" T=120 \
    bash "$TOOLS/netrun.sh" "$RUN/dump$n" "$dir" "$OLD" run -m mock/mock-model "$@" \
    >"$RUN/dump$n.out" 2>"$RUN/dump$n.err" || echo "record-storage.sh: run $n ended with $?" >&2
}
step "$WORK/proj-a" "list-the-files-RUNTOOL"
MOCK_PT_FIRST=50000 step "$WORK/proj-a" --continue "keep-going"
step "$WORK/proj-a" --continue "after-the-compaction-RUNTOOL"
step "$WORK/proj-b" "a-plain-question"
rm -rf "$OUT/storage"
cp -r "$DATA/opencode/storage" "$OUT/storage"
# 1.18.33 no longer migrates a storage (its JSON migration is gone): the migration is the one
# of the first SQLite release, run where it runs, at the first start of a data folder with a
# storage and no database (`opencode export` is such a start). 1.18.33 then opens that
# database, applies its own schema migrations, and resumes the session from it.
MIG=$RUN/migrated
mkdir -p "$MIG/opencode"
cp -r "$OUT/storage" "$MIG/opencode/storage"
first=$(ls "$OUT"/storage/session/*/ses_*.json | head -n 1)
env -i PATH=/usr/bin:/bin HOME="$H" XDG_DATA_HOME="$MIG" XDG_CONFIG_HOME="$H/.config" \
  XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
  unshare -n timeout 120 "$MIGRATOR" export "$(basename "$first" .json)" >"$RUN/migrate.out" 2>"$RUN/migrate.err" </dev/null \
  || { echo "record-storage.sh: the migration by $MIGRATOR failed: $(tail -n 3 "$RUN/migrate.err")" >&2; exit 1; }
# The migrated database too, made whole by SQLite itself (as record.sh makes its copy).
rm -f "$OUT/migrated.db"
python3 - "$MIG/opencode/opencode.db" "$OUT/migrated.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode=DELETE")
dst.execute("VACUUM")
dst.close()
PY
for f in "$OUT"/storage/session/*/ses_*.json; do
  sid=$(basename "$f" .json)
  OTHERAGENTS=$TOOLS "$HERE/../opencode-resume-view.sh" "$MIG/opencode/opencode.db#$sid" say-ok >"$OUT/$sid.sent.json" \
    || { echo "record-storage.sh: resuming $sid sent no request" >&2; rm -f "$OUT/$sid.sent.json"; }
done
find "$OUT" -type f | sort
