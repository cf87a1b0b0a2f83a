#!/usr/bin/env bash
# `scan --rows` against `scan --json` over the same generated corpus, warm cache: wall time
# (hyperfine) and peak memory (GNU time). The corpus comes from examples/gen-corpus/.
#
#   benches/rows.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-rows-bench, 300 MiB of sessions)
#
# Needs a release build with the parquet feature (built here), hyperfine and GNU time.
# Results: OUT_DIR/results.md; the numbers of a run are kept in benches/rows.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-rows-bench}
mib=${2:-300}
mkdir -p "$out"
cargo build --release --locked --features parquet --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
corpus=$out/corpus-$mib
if [ ! -d "$corpus" ]; then
  half=$((mib / 2))
  target/release/examples/gen-corpus "$corpus" --claude-mib "$half" --codex-mib "$half" --seed 24
fi
cmds=(
  "$bin scan --json $corpus"
  "$bin scan --rows sessions $corpus"
  "$bin scan --rows messages $corpus"
  "$bin scan --rows messages --format parquet $corpus"
  "$bin scan --rows tool-calls --format parquet $corpus"
)
hyperfine --warmup 1 --runs "${RUNS:-3}" --export-markdown "$out/results.md" --output null "${cmds[@]}"
echo >> "$out/results.md"
echo "| command | peak RSS (MiB) |" >> "$out/results.md"
echo "|---|---|" >> "$out/results.md"
for c in "${cmds[@]}"; do
  kb=$( { /usr/bin/time -f '%M' $c > /dev/null; } 2>&1 | tail -1 )
  echo "| \`${c//$out\//}\` | $((kb / 1024)) |" >> "$out/results.md"
done
cat "$out/results.md"
