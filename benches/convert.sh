#!/usr/bin/env bash
# `cctool convert` of one large session against `cp` of the same file, warm cache: wall time
# and peak memory (GNU time). The sessions come from examples/gen-corpus/ (--single-*-mib).
#
#   benches/convert.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-convert-bench, 1024 MiB)
#
# SINK=/dev/null writes every output there instead of into OUT_DIR (a disk without room for
# the copies; no fsync is measured then, for cp or cctool).
# Results: OUT_DIR/results.md; the numbers of a run are in docs/convert.md#performance.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-convert-bench}
mib=${2:-1024}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
corpus=$out/corpus-$mib
if [ ! -f "$corpus/single/claude.jsonl" ]; then
  target/release/examples/gen-corpus "$corpus" --claude-mib 0 --codex-mib 0 \
    --single-claude-mib "$mib" --single-codex-mib "$mib" --seed 20
fi
# Each conversion writes a new file (an existing one would make it an incremental run).
copy=${SINK:-$out/copy.jsonl}
to_codex=${SINK:-$out/to-codex.jsonl}
to_claude=${SINK:-$out/to-claude.jsonl}
cmds=(
  "cp $corpus/single/claude.jsonl $copy"
  "$bin convert -q --to codex -o $to_codex $corpus/single/claude.jsonl"
  "$bin convert -q --full --to codex -o $to_codex $corpus/single/claude.jsonl"
  "cp $corpus/single/codex.jsonl $copy"
  "$bin convert -q --to claude-code -o $to_claude $corpus/single/codex.jsonl"
  "$bin convert -q --full --to claude-code -o $to_claude $corpus/single/codex.jsonl"
)
{
  echo "| command | wall (s) | CPU user + sys (s) | peak RSS (MiB) |"
  echo "|---|---|---|---|"
  for c in "${cmds[@]}"; do
    rm -f "$out"/copy.jsonl "$out"/to-*.jsonl
    $c > /dev/null 2>&1 # warm the cache
    rm -f "$out"/copy.jsonl "$out"/to-*.jsonl
    /usr/bin/time -o "$out/time.txt" -f '%e %U %S %M' $c > /dev/null 2>&1
    read -r wall user sys rss < <(tail -1 "$out/time.txt")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    echo "| \`${c//$out\//}\` | $wall | $cpu | $(( rss / 1024 )) |"
  done
} | tee "$out/results.md"
