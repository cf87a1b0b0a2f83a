#!/usr/bin/env bash
# `cctool convert` of one large session against `cp` of the same file, warm cache: wall time
# and peak memory (GNU time). The sessions come from examples/gen-corpus.rs (--single-*-mib).
#
#   benches/convert.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-convert-bench, 1024 MiB)
#
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
cmds=(
  "cp $corpus/single/claude.jsonl $out/copy.jsonl"
  "$bin convert -q --to codex -o $out/to-codex.jsonl $corpus/single/claude.jsonl"
  "$bin convert -q --full --to codex -o $out/to-codex.jsonl $corpus/single/claude.jsonl"
  "cp $corpus/single/codex.jsonl $out/copy.jsonl"
  "$bin convert -q --to claude-code -o $out/to-claude.jsonl $corpus/single/codex.jsonl"
  "$bin convert -q --full --to claude-code -o $out/to-claude.jsonl $corpus/single/codex.jsonl"
)
{
  echo "| command | wall (s) | peak RSS (MiB) |"
  echo "|---|---|---|"
  for c in "${cmds[@]}"; do
    rm -f "$out"/copy.jsonl "$out"/to-*.jsonl
    $c > /dev/null 2>&1 # warm the cache
    rm -f "$out"/copy.jsonl "$out"/to-*.jsonl
    /usr/bin/time -o "$out/time.txt" -f '%e %M' $c > /dev/null 2>&1
    res=$(tail -1 "$out/time.txt")
    echo "| \`${c//$out\//}\` | ${res% *} | $(( ${res#* } / 1024 )) |"
  done
} | tee "$out/results.md"
