#!/usr/bin/env bash
# Times reading an opencode database of about 1 GiB against `sqlite3 DB .dump > /dev/null`
# (issue 39's bar: within 3×), warm cache, with hyperfine, and the peak memory of each command.
#
#   benches/opencode.sh [OUT_DIR]        (default /tmp/cctool-bench-opencode; about 1 GiB there)
#
# The database is made of the real client's own records: the sessions of
# fixtures/opencode/opencode.db (written by opencode 1.18.33: tool calls, compactions, a
# compaction loop), each copied SESSIONS times under new ids, every copy holding its messages
# and parts REPEAT times over (new message and part ids that keep the order), so that sessions
# are as long as the ones users complain about and the rows are the client's. MIB sets the size
# aimed at (default 1024); RUNS=N the number of timed runs (default 3). A database already in
# OUT_DIR is reused. Results: OUT_DIR/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-bench-opencode}
runs=${RUNS:-3}
mib=${MIB:-1024}
repeat=${REPEAT:-40}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for tool in hyperfine sqlite3 python3; do
  command -v $tool > /dev/null || { echo "opencode.sh: $tool is needed" >&2; exit 2; }
done

cargo build --release -q
bin=$PWD/target/release/cctool
db=$out/opencode.db
if [ ! -f "$out/.done" ]; then
  rm -f "$db" "$db-wal" "$db-shm"
  python3 - "$PWD/fixtures/opencode/opencode.db" "$db" "$mib" "$repeat" << 'EOF'
import os, shutil, sqlite3, sys
src, dst, mib, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shutil.copyfile(src, dst)
c = sqlite3.connect(dst)
c.execute("ATTACH ? AS src", (src,))
sessions = [r[0] for r in c.execute("SELECT id FROM src.session ORDER BY id")]
scols = [r[1] for r in c.execute("PRAGMA src.table_info(session)")]
sel = ", ".join("?" if col == "id" else col for col in scols)
n = 0
while os.path.getsize(dst) < mib << 20:
    c.execute("BEGIN")
    for sid in sessions:
        new = f"{sid}{n:06d}"
        c.execute(f"INSERT INTO session SELECT {sel} FROM src.session WHERE id = ?", (new, sid))
        for rep in range(repeat):
            # `msg_` + the repetition + the original id: the copies keep the client's order.
            c.execute(
                "INSERT INTO message SELECT printf('msg_%06d%04d', ?, ?) || substr(id, 5), ?, time_created, "
                "time_updated, data FROM src.message WHERE session_id = ?",
                (n, rep, new, sid),
            )
            c.execute(
                "INSERT INTO part SELECT printf('prt_%06d%04d', ?, ?) || substr(id, 5), "
                "printf('msg_%06d%04d', ?, ?) || substr(message_id, 5), ?, time_created, time_updated, data "
                "FROM src.part WHERE session_id = ?",
                (n, rep, n, rep, new, sid),
            )
    c.execute("COMMIT")
    n += 1
c.execute("DETACH src")
c.close()
print(f"{n * len(sessions)} sessions", file=sys.stderr)
EOF
  touch "$out/.done"
fi
size=$(stat -c %s "$db")
sessions=$(sqlite3 "$db" 'SELECT count(*) FROM session')
# The largest session a resume can send: one whose last compaction was never answered is refused
# by --api-view (the client would compact first), so the next largest is taken (one session
# of each size: the copies of one session are the same size and end alike).
largest=
for id in $(sqlite3 "$db" 'SELECT min(session_id) FROM (SELECT session_id, sum(length(data)) AS n FROM message GROUP BY session_id) GROUP BY n ORDER BY n DESC LIMIT 50'); do
  if "$bin" -q rebuild-chain --api-view "$db#$id" > /dev/null 2>&1; then
    largest=$id
    break
  fi
done
[ -n "$largest" ] || { echo "opencode.sh: none of the 50 largest sessions has a request to rebuild" >&2; exit 1; }

load_at_start=$(cut -d ' ' -f 1-3 /proc/loadavg)
{
  echo "database: $((size >> 20)) MiB, $sessions sessions (made by benches/opencode.sh)"
  echo
  echo "| case | cctool (s) | sqlite3 .dump (s) | cctool / .dump | peak RSS | target |"
  echo "|---|---:|---:|---:|---:|---|"
} > "$out/results.md"
dump=$(hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/dump.json" \
  "sqlite3 $db .dump" --output=null > /dev/null && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$out/dump.json")

# run CASE ARGS…: the command's mean time, its ratio to the dump, its peak memory.
run() {
  local case=$1
  shift
  hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/$case.json" --output=null \
    "$bin -q $*" > /dev/null || true
  local mean rss
  mean=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$out/$case.json")
  /usr/bin/time -f '%M' -o "$out/$case.rss" "$bin" -q "$@" > /dev/null 2>&1 || true
  rss=$(tail -n 1 "$out/$case.rss")
  python3 -c 'import sys; c,m,d,r=sys.argv[1:]; print(f"| {c} | {float(m):.2f} | {float(d):.2f} | {float(m)/float(d):.2f}× | {int(r)//1024} MiB | ≤ 3× |")' \
    "$case" "$mean" "$dump" "$rss" >> "$out/results.md"
}
run scan scan "$db"
run doctor doctor "$db"
run extract-summary extract-summary "$db"
run scan-rows scan --rows messages "$db"
run rebuild-chain-largest rebuild-chain --api-view "$db#$largest"
{
  echo
  echo "load average at start: $load_at_start; at end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
} >> "$out/results.md"
cat "$out/results.md"
