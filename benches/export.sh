#!/usr/bin/env bash
# `cctool export --share` of one large Claude Code transcript and one large Codex rollout in
# each format, warm cache: wall, user and system time, MB/s of input per second of wall time
# and per second of CPU time (user + system: what one core does, whatever the machine's load),
# and peak memory (GNU time). The sessions come from examples/gen-corpus/ (--single-*-mib); the
# redaction runs as the user `alice` with the home folder the generator wrote into them, so
# that every record holds a path to replace.
#
#   benches/export.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-export-bench, 256 MiB)
#
# Results: OUT_DIR/results.md; the numbers of a run are in the table of benches/README.md of
# measurements.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-export-bench}
mib=${2:-256}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
corpus=$out/corpus-$mib
if [ ! -f "$corpus/single/claude.jsonl" ]; then
  target/release/examples/gen-corpus "$corpus" --claude-mib 0 --codex-mib 0 \
    --single-claude-mib "$mib" --single-codex-mib "$mib" --seed 35
fi
: > "$out/times"
for agent in claude codex; do
  src=$corpus/single/$agent.jsonl
  bytes=$(stat -c %s "$src")
  cat "$src" > /dev/null # warm cache
  home=$(head -c 65536 "$src" | grep -o '"cwd":"/[^/"]*/[^/"]*' | head -1 | cut -d'"' -f4)
  for format in native markdown html; do
    for share in --share --no-redact; do
      rm -f "$out/export.out"
      /usr/bin/time -f "%e %U %S %M" -o "$out/t" env HOME="$home" USER="${home##*/}" \
        "$bin" export -q "$share" --format "$format" -o "$out/export.out" "$src" 2> /dev/null
      read -r wall user sys rss < "$out/t"
      mbs=$(awk -v b="$bytes" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? b / w / 1e6 : 0) }')
      cpu=$(awk -v b="$bytes" -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", (u + s > 0 ? b / (u + s) / 1e6 : 0) }')
      echo "| $agent | \`export $share --format $format\` | $wall s | $user s | $sys s | $mbs MB/s | $cpu MB/s | $rss KiB |" >> "$out/times"
    done
  done
done
rm -f "$out/export.out"
{
  echo "$(stat -c %s "$corpus/single/claude.jsonl") bytes (Claude Code), $(stat -c %s "$corpus/single/codex.jsonl") bytes (Codex); $(nproc) cores"
  echo
  echo "| input | command | wall | user | sys | MB/s (wall) | MB/s (CPU) | peak RSS |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  cat "$out/times"
} > "$out/results.md"
cat "$out/results.md"
