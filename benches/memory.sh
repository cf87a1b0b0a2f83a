#!/usr/bin/env bash
# Peak memory (GNU time's maximum resident set size) of every command on one generated 1 GiB
# Claude Code transcript and one 1 GiB Codex rollout (examples/gen-corpus/, --single-*-mib),
# each run once, sequentially, with the default --mmap auto and with --mmap never; output
# written to a file in OUT_DIR and removed after each run.
#
#   benches/memory.sh [OUT_DIR] [MIB] [BIN]   (defaults /tmp/cctool-memory-bench, 1024 MiB,
#                                              target/release/cctool)
#
# Results: OUT_DIR/results.md; the numbers of a run are in benches/memory.md.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-memory-bench}
mib=${2:-1024}
bin=${3:-}
mkdir -p "$out"
if [ -z "$bin" ]; then
  cargo build --release --locked --bin cctool --example gen-corpus
  bin=$PWD/target/release/cctool
fi
corpus=$out/corpus-$mib
if [ ! -f "$corpus/single/claude.jsonl" ]; then
  cargo build --release --locked --example gen-corpus
  target/release/examples/gen-corpus "$corpus" --claude-mib 0 --codex-mib 0 \
    --single-claude-mib "$mib" --single-codex-mib "$mib" --seed 35
fi
commands=(
  "scan"
  "scan --rows sessions"
  "scan --rows messages"
  "scan --rows tool-calls"
  "scan --rows compactions"
  "rebuild-chain"
  "rebuild-chain --api-view"
  "doctor"
  "extract-summary"
  "export --format markdown"
  "export --format html"
  "export --format jsonl"
  "export --format native"
  "export --share --format markdown"
  "export --share --format html"
  "export --share --format jsonl"
  "export --share --format native"
  "compact -o OUT"
  "slim -o OUT"
  "convert --to OTHER -o OUT"
  "migrate -o OUT"
)
: > "$out/rows"
for agent in claude codex; do
  src=$corpus/single/$agent.jsonl
  bytes=$(stat -c %s "$src")
  other=$([ $agent = claude ] && echo codex || echo claude-code)
  for cmd in "${commands[@]}"; do
    for mmap in auto never; do
      rm -rf "$out/result"
      args=${cmd//OUT/$out/result}
      args=${args//OTHER/$other}
      # Commands that print write to a file, so that what is measured is the command alone.
      /usr/bin/time -f "%M %e" -o "$out/t" "$bin" $args --mmap $mmap -q "$src" > "$out/result.out" 2> "$out/err"
      rc=$?
      read -r rss wall < <(tail -1 "$out/t")
      pct=$(awk -v r="$rss" -v b="$bytes" 'BEGIN { printf "%.1f", r * 1024 * 100 / b }')
      echo "| \`$cmd\` | $agent | $bytes | $mmap | $((rss / 1024)) MiB | $pct% | $wall s | $rc |" >> "$out/rows"
      tail -1 "$out/rows"
    done
  done
done
rm -rf "$out/result" "$out/result.out"
{
  echo "$(nproc) cores; $bin"
  echo
  echo "| command | agent | input bytes | --mmap | peak RSS | % of input | wall | exit |"
  echo "|---|---|---:|---|---:|---:|---:|---:|"
  cat "$out/rows"
} > "$out/results.md"
