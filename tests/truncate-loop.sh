#!/usr/bin/env bash
# Truncates a mapped session file at random points while each reading command reads it, many
# times, and checks every run: no death by a signal (SIGBUS was exit 135), an exit status of 0,
# 1 or 2, and on 2 the error naming the file and the truncation, no NUL byte in the output,
# and no output file left by `compact -o` or `migrate -o`. Run by hand:
# tests/truncate-loop.sh [ROUNDS] [MIB] (default 30 rounds per command on a 256 MiB session).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
mib=${2:-256}
cargo build --release -q
cargo build --release -q --example gen-corpus
bin=$PWD/target/release/cctool
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen-corpus "$work/corpus" --claude-mib 0 --codex-mib 0 \
  --single-claude-mib "$mib" --seed 7 > /dev/null 2>&1
orig=$work/corpus/single/claude.jsonl
out=$work/out.jsonl
commands=(
  "rebuild-chain --json"
  "rebuild-chain --full --format text"
  "scan --json"
  "extract-summary --json"
  "doctor --json"
  "compact --keep-recent 1000 -o $out"
  "migrate -o $out"
)
total=0; cut=0
for c in "${commands[@]}"; do
  # How long a whole read takes: the cuts fall anywhere in it.
  f=$work/s.jsonl
  cp "$orig" "$f"; touch -d "10 minutes ago" "$f"; rm -f "$out"
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  "$bin" $c "$f" > /dev/null 2>&1 || true
  took_us=$(( ( $(date +%s%N) - start ) / 1000 ))
  errors=0
  for r in $(seq 1 "$rounds"); do
    cp "$orig" "$f"; touch -d "10 minutes ago" "$f"; rm -f "$out"
    # shellcheck disable=SC2086
    "$bin" $c "$f" > "$work/stdout" 2> "$work/stderr" &
    pid=$!
    delay=$(( (RANDOM * 32768 + RANDOM) % took_us ))
    sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))"
    truncate -s $(( (RANDOM * 32768 + RANDOM) % 4000000 )) "$f"
    status=0; wait "$pid" || status=$?
    total=$((total + 1))
    if [ "$status" -gt 2 ]; then
      echo "$c, round $r: exit $status"; cat "$work/stderr"; exit 1
    fi
    if grep -qaP '\x00' "$work/stdout"; then
      echo "$c, round $r: a NUL byte in the output"; exit 1
    fi
    if grep -q "changed while it was read" "$work/stderr" "$work/stdout"; then
      [ "$status" -eq 2 ] || { echo "$c, round $r: the error with exit $status"; exit 1; }
      grep -q "$f" "$work/stderr" "$work/stdout" || { echo "$c, round $r: the file is not named"; exit 1; }
      [ ! -e "$out" ] || { echo "$c, round $r: an output was written"; exit 1; }
      errors=$((errors + 1))
    fi
  done
  cut=$((cut + errors))
  echo "$c: $rounds cuts in ${took_us} us of reading, $errors seen by the reader, never a signal"
done
echo "$total truncations of a mapped ${mib} MiB file: $cut ended in the error, none by a signal"
