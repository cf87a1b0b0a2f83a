#!/usr/bin/env bash
# `cctool index` over the generated corpus of benches/search.sh (build throughput in MB/s,
# from an empty index), an update with nothing changed, and queries with the fresh index
# against the same queries reading every file (`--no-index`), warm cache (hyperfine): a word
# no file holds, and a phrase of a few files.
#
#   benches/index.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-index-bench, 300 MiB of sessions;
#                                          CORPUS=DIR to use a corpus already generated)
#
# Needs hyperfine. Results: OUT_DIR/results.md; the numbers of a run are kept in
# benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-index-bench}
mib=${2:-300}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
corpus=${CORPUS:-$out/corpus-$mib}
if [ ! -d "$corpus" ]; then
  half=$((mib / 2))
  target/release/examples/gen-corpus "$corpus" --claude-mib "$half" --codex-mib "$half" --seed 37
fi
idx=$out/index
bytes=$(du -sb "$corpus" | cut -f1)
# The build, from an empty index each run.
hyperfine --runs "${BUILD_RUNS:-2}" --prepare "rm -rf $idx" --export-json "$out/build.json" \
  "CCTOOL_INDEX_DIR=$idx $bin index -q $corpus"
mean=$(python3 -c "import json,sys; print(json.load(open('$out/build.json'))['results'][0]['mean'])")
python3 -c "print(f'index build: {$bytes/1e6:.0f} MB in {$mean:.2f} s: {$bytes/1e6/$mean:.1f} MB/s')" | tee "$out/build.txt"
du -sb "$idx" | tee -a "$out/build.txt"
absent=${ABSENT:-zyzzogeton}
phrase=${PHRASE:-the retry budget}
cmds=(
  "CCTOOL_INDEX_DIR=$idx $bin index -q $corpus"
  "CCTOOL_INDEX_DIR=$idx $bin search -l -s -q $absent $corpus"
  "CCTOOL_INDEX_DIR=$idx $bin search -l -s -q --no-index $absent $corpus"
  "CCTOOL_INDEX_DIR=$idx $bin search -l -q '$phrase' $corpus"
  "CCTOOL_INDEX_DIR=$idx $bin search -l -q --no-index '$phrase' $corpus"
)
# search exits 1 when nothing matched.
hyperfine --warmup 1 --runs "${RUNS:-5}" -i --export-markdown "$out/results.md" --output null "${cmds[@]}"
cat "$out/build.txt" "$out/results.md"
