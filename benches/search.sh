#!/usr/bin/env bash
# `search` of a literal against `rg -F -l` over the same generated corpus, warm cache (hyperfine):
# a word the users' prompts hold (rg stops at each file's first match; cctool decodes the
# candidate lines of every file and reports each hit), and a word no file holds (both read
# everything). The corpus comes from examples/gen-corpus/.
#
#   benches/search.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-search-bench, 300 MiB of sessions)
#
# Needs hyperfine and rg. Results: OUT_DIR/results.md; the numbers of a run are kept in
# benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-search-bench}
mib=${2:-300}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
corpus=$out/corpus-$mib
if [ ! -d "$corpus" ]; then
  half=$((mib / 2))
  target/release/examples/gen-corpus "$corpus" --claude-mib "$half" --codex-mib "$half" --seed 37
fi
# A word of the generated prompts, and one of no file.
present=${PRESENT:-socket}
absent=${ABSENT:-zyzzogeton}
cmds=(
  "rg -F -l $present $corpus"
  "$bin search -l -s -q $present $corpus"
  "rg -F -l $absent $corpus"
  "$bin search -l -s -q $absent $corpus"
)
# search exits 1 when nothing matched, as rg does.
hyperfine --warmup 1 --runs "${RUNS:-5}" -i --export-markdown "$out/results.md" --output null "${cmds[@]}"
cat "$out/results.md"
