#!/usr/bin/env bash
# Kills `cctool compact --in-place` at random points of a large rewrite, many times, and checks
# after each kill that the file is the original or exactly the compacted one (a clean run with
# the same SOURCE_DATE_EPOCH on the same path), that the backup exists and is the original
# whenever the compacted file is in place, and that no temporary file is left beside it once a
# later run cleans up. Run by hand: tests/kill-loop-compact.sh [ROUNDS] [ROWS] (300, 30000).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
rows=${2:-30000}
cargo build --release -q
bin=$PWD/target/release/cctool
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000
python3 - "$work/orig.jsonl" "$rows" <<'PY'
import json, sys
rows, parent = int(sys.argv[2]), None
body = 'fn main() { println!("módulo ✓"); }\n' * 80
with open(sys.argv[1], "w") as out:
    for i in range(rows):
        uuid = "00000000-0000-4000-8000-%012d" % i
        call = "toolu_%08d" % (i - i % 3 + 1)
        r = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/work/app",
             "sessionId": "big-session", "version": "2.1.0", "uuid": uuid,
             "timestamp": "2026-01-01T%02d:%02d:%02d.000Z" % ((i // 3600) % 24, (i // 60) % 60, i % 60)}
        if i % 3 == 0:
            r.update(type="user", message={"role": "user", "content": f"request {i}: look at src/m{i}.rs"})
        elif i % 3 == 1:
            r.update(type="assistant", message={"id": f"msg_{i}", "role": "assistant", "model": "claude", "content": [
                {"type": "text", "text": f"Reading src/m{i}.rs."},
                {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": f"src/m{i}.rs"}}]})
        else:
            r.update(type="user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call, "content": body}]})
        out.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
        parent = uuid
PY
touch -d "10 minutes ago" "$work/orig.jsonl"  # an old session: compact refuses live files
mkdir "$work/run"
f="$work/run/s.jsonl"
cp -p "$work/orig.jsonl" "$f"
start=$(date +%s%N)
"$bin" compact --in-place --keep-recent 200000 "$f" > /dev/null
took_us=$(( ( $(date +%s%N) - start ) / 1000 ))
cp "$f" "$work/clean.jsonl"
cmp -s "$work/clean.jsonl" "$work/orig.jsonl" && { echo "the clean run did not compact"; exit 1; }
echo "file $(stat -c %s "$work/orig.jsonl") bytes, a clean compact takes ${took_us} us"
old=0; new=0; temps=0
for r in $(seq 1 "$rounds"); do
  rm -f "$work"/run/s.jsonl* "$work"/run/.s.jsonl.*
  cp -p "$work/orig.jsonl" "$f"
  "$bin" compact --in-place --keep-recent 200000 "$f" > /dev/null 2>&1 &
  pid=$!
  delay=$(( RANDOM * 32768 + RANDOM )); delay=$(( delay % (took_us * 5 / 4) ))
  sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))" 2>/dev/null || sleep 0
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if cmp -s "$f" "$work/orig.jsonl"; then
    old=$((old + 1))
  elif cmp -s "$f" "$work/clean.jsonl"; then
    new=$((new + 1))
    cmp -s "$f.precompact.bak" "$work/orig.jsonl" || { echo "round $r: compacted file without its backup"; exit 1; }
  else
    echo "round $r: the file is neither the original nor the compaction"; exit 1
  fi
  if [ -e "$f.precompact.bak" ]; then
    cmp -s "$f.precompact.bak" "$work/orig.jsonl" || { echo "round $r: a backup that is not the original"; exit 1; }
  fi
  # A kill can leave the temporary file (nothing runs at SIGKILL); it is never the session.
  ls "$work"/run/.s.jsonl.*.tmp > /dev/null 2>&1 && temps=$((temps + 1))
done
echo "$rounds kills: $old left the original, $new the compacted file, never anything else ($temps left a temporary file)"
