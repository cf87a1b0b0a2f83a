#!/usr/bin/env bash
# Kills `cctool migrate` at random points of a large rewrite, many times, and checks after each
# kill that the file is the original or the migrated one, and that the backup exists whenever
# the migrated file is in place. Run by hand: tests/kill-loop.sh [ROUNDS] (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
cargo build --release -q
bin=target/release/cctool
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/orig.json" <<'PY'
import json, sys
msgs = []
for i in range(60000):
    r = i % 3
    if r == 0: msgs.append({"role": "user", "content": f"request {i} — módulo ✓", "ts": 1752573600 + i})
    elif r == 1: msgs.append({"role": "assistant", "content": "Reading.", "thinking": "plan", "tool_calls": [{"id": f"call_{i}", "name": "read_file", "arguments": json.dumps({"path": f"src/m{i}.rs"})}]})
    else: msgs.append({"role": "tool", "tool_call_id": f"call_{i-1}", "content": "fn main() {}\n" * 60})
open(sys.argv[1], "w").write(json.dumps({"version": 1, "id": "big", "messages": msgs}))
PY
touch -d "10 minutes ago" "$work/orig.json"  # an old session: migrate refuses live files
cp -p "$work/orig.json" "$work/clean.json"
start=$(date +%s%N)
"$bin" migrate "$work/clean.json" > /dev/null
took_us=$(( ( $(date +%s%N) - start ) / 1000 ))
echo "file $(stat -c %s "$work/orig.json") bytes, a clean migrate takes ${took_us} us"
old=0; new=0
for r in $(seq 1 "$rounds"); do
  f="$work/s.json"; rm -f "$work"/s.json*
  cp -p "$work/orig.json" "$f"
  "$bin" migrate "$f" > /dev/null 2>&1 &
  pid=$!
  delay=$(( RANDOM * 32768 + RANDOM )); delay=$(( delay % (took_us * 3 / 2) ))
  sleep "$(printf '0.%06d' "$delay")" 2>/dev/null || sleep 0
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if cmp -s "$f" "$work/orig.json"; then
    old=$((old + 1))
  elif cmp -s "$f" "$work/clean.json"; then
    new=$((new + 1))
    cmp -s "$f.v1.bak" "$work/orig.json" || { echo "round $r: migrated file without its backup"; exit 1; }
  else
    echo "round $r: the file is neither the original nor the migration"; exit 1
  fi
done
echo "$rounds kills: $old left the original, $new the migrated file, never anything else"
