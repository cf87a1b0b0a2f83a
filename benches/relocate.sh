#!/usr/bin/env bash
# `cctool relocate` on generated stores: a dry run over a store of many sessions (the cost of
# finding a project's sessions: every file searched for OLD's bytes) against `cat` of the same
# files, and the move of one 1 GiB Claude Code session (every record's cwd rewritten) against
# `cp` of it: wall, CPU and peak RSS (GNU time).
#
#   benches/relocate.sh [OUT_DIR] [STORE_MIB] [SESSION_MIB]
#       (defaults /tmp/cctool-relocate-bench, 400, 1024)
#
# The sessions come from examples/gen-corpus (synthetic, deterministic). Results:
# OUT_DIR/results.md; the numbers of a run are kept in benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-relocate-bench}
store_mib=${2:-400}
session_mib=${3:-1024}
mkdir -p "$out"
cargo build --release --locked --bin cctool --example gen-corpus
bin=$PWD/target/release/cctool
gen=$out/gen
[ -d "$gen/claude" ] || target/release/examples/gen-corpus "$gen" --claude-mib "$store_mib" --codex-mib 0 --single-claude-mib "$session_mib"
# The store as Claude Code lays it out; a project of the corpus to relocate.
home=$out/home
rm -rf "$home"
mkdir -p "$home/.claude"
cp -r "$gen/claude/projects" "$home/.claude/projects"
project=$(head -c 4096 "$(find "$home/.claude/projects" -name '*.jsonl' | sort | head -n 1)" | grep -o '"cwd":"[^"]*"' | head -n 1 | cut -d'"' -f4)
t() { /usr/bin/time -f "| $1 | %e s | %U s | %S s | %M KiB |" "${@:2}" > /dev/null 2>> "$out/times"; }
: > "$out/times"
find "$home/.claude/projects" -name '*.jsonl' -exec cat {} + > /dev/null # warm cache
t "cat of the store ($store_mib MiB)" sh -c "find '$home/.claude/projects' -name '*.jsonl' -exec cat {} + > /dev/null"
t "relocate --dry-run of one project" env HOME="$home" "$bin" relocate --dry-run "$project" /bench/moved || true
# One large session of its own project.
big=$out/big
rm -rf "$big"
cwd=$(head -c 4096 "$gen/single/claude.jsonl" | grep -o '"cwd":"[^"]*"' | head -n 1 | cut -d'"' -f4)
slug=$(printf '%s' "$cwd" | sed 's/[^A-Za-z0-9]/-/g')
mkdir -p "$big/.claude/projects/$slug"
cp "$gen/single/claude.jsonl" "$big/.claude/projects/$slug/big.jsonl"
touch -d '1 hour ago' "$big/.claude/projects/$slug/big.jsonl"
cat "$big/.claude/projects/$slug/big.jsonl" > /dev/null
t "cp of the $session_mib MiB session" cp "$big/.claude/projects/$slug/big.jsonl" "$out/copy.jsonl"
t "relocate of the $session_mib MiB session" env HOME="$big" "$bin" relocate "$cwd" /bench/moved
rm -f "$out/copy.jsonl"
{
  echo "| command | wall | user | sys | peak RSS |"
  echo "|---|---:|---:|---:|---:|"
  grep '^|' "$out/times"
} > "$out/results.md"
cat "$out/results.md"
