#!/usr/bin/env bash
# `cctool slim` on a generated multi-GB Codex rollout whose images repeat in every
# compaction's replacement_history, against `cp` of the same file: wall and CPU time and peak
# RSS (GNU time), then `--restore` and a byte comparison with the original.
#
#   benches/slim.sh [OUT_DIR] [MIB]      (defaults /tmp/cctool-slim-bench, 2048 MiB)
#
# The rollout comes from examples/gen-payloads.rs (300 KiB images, a pool of six). Results:
# OUT_DIR/results.md; the numbers of a run are kept in benches/slim.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-slim-bench}
mib=${2:-2048}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-payloads
bin=$PWD/target/release/cctool
src=$out/codex.jsonl
[ -f "$src" ] || target/release/examples/gen-payloads "$out" --codex-mib "$mib" --image-kib 300 --images 6
cat "$src" > /dev/null # warm cache for both
t() { /usr/bin/time -f "| \`$1\` | %e s | %U s | %S s | %M KiB |" "${@:2}" > /dev/null 2>> "$out/times"; }
: > "$out/times"
rm -f "$out/copy.jsonl" "$out/slim.jsonl" "$out/restored.jsonl"
t "cp" cp "$src" "$out/copy.jsonl"
t "slim -o" "$bin" slim "$src" -o "$out/slim.jsonl"
t "slim --restore" "$bin" slim --restore "$out/none" "$out/slim.jsonl" -o "$out/restored.jsonl"
cmp "$src" "$out/restored.jsonl"
{
  echo "$(stat -c %s "$src") bytes -> $(stat -c %s "$out/slim.jsonl") bytes; restored byte for byte"
  echo
  echo "| command | wall | user | sys | peak RSS |"
  echo "|---|---:|---:|---:|---:|"
  grep '^|' "$out/times"
} > "$out/results.md"
rm -f "$out/copy.jsonl" "$out/restored.jsonl"
cat "$out/results.md"
