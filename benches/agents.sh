#!/usr/bin/env bash
# Times reading the stores of the agents added after Claude Code and Codex (pi, GitHub Copilot
# CLI, Gemini CLI, Qwen Code) against `cat` of the same files, warm cache, with hyperfine, and the peak memory of the
# largest session's commands.
#
#   benches/agents.sh [OUT_DIR]          (default /tmp/cctool-bench-agents; about 1 GiB there)
#
# The stores are made from the project's own generator (examples/gen-corpus/): its Claude Code
# sessions, with ccusage's size profile, converted by `cctool convert` into each agent's own
# layout (pi: sessions/--<cwd>--/<time>_<id>.jsonl; Copilot CLI:
# session-state/<id>/events.jsonl; Gemini CLI: tmp/<project>/chats/session-<time>-<id>.jsonl;
# Qwen Code: projects/<cwd>/chats/<id>.jsonl), which the real clients resume
# (tests/cli/convert_clients.rs).
# A store already in OUT_DIR is reused. CLAUDE_MIB changes the size of the generated source
# (default 300); RUNS=N the number of timed runs (default 5). Results: OUT_DIR/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-bench-agents}
runs=${RUNS:-5}
claude_mib=${CLAUDE_MIB:-300}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v hyperfine > /dev/null || { echo "agents.sh: hyperfine is needed (cargo install hyperfine)" >&2; exit 2; }

cargo build --release -q
cargo build --release -q --example gen-corpus
bin=$PWD/target/release/cctool
src=$out/claude
if [ ! -d "$src/claude" ]; then
  target/release/examples/gen-corpus "$src" --claude-mib "$claude_mib" --codex-mib 0 --seed 7
fi

# One store per agent, converted file by file (an interrupted run is finished on the next).
for agent in pi copilot gemini-cli qwen-code; do
  store=$out/$agent
  [ -f "$store/.done" ] && continue
  rm -rf "$store"
  mkdir -p "$store"
  n=0
  while IFS= read -r f; do
    n=$((n + 1))
    id=$(printf '%08d' "$n")
    case $agent in
      pi) dest=$store/sessions/--home-dev-app$((n % 17))--/2026-01-01T00-00-00-000Z_$id-0000-7000-8000-000000000000.jsonl ;;
      copilot) dest=$store/session-state/$id-0000-4000-8000-000000000000/events.jsonl ;;
      gemini-cli) dest=$store/tmp/app$((n % 17))/chats/session-2026-01-01T00-00-$id.jsonl ;;
      qwen-code) dest=$store/projects/-home-dev-app$((n % 17))/chats/$id-0000-4000-8000-000000000000.jsonl ;;
    esac
    mkdir -p "$(dirname "$dest")"
    "$bin" -q convert --to "$agent" -o "$dest" "$f" > /dev/null 2>&1 || rm -f "$dest"
  done < <(find "$src/claude" -name '*.jsonl' | sort)
  touch "$store/.done"
done

load_at_start=$(cut -d ' ' -f 1-3 /proc/loadavg)
: > "$out/notes.md"
{
  echo "| case | baseline | baseline (s) | cctool (s) | cctool / baseline | target |"
  echo "|---|---|---:|---:|---:|---|"
} > "$out/results.md"

# run CASE TARGET BASELINE_NAME BASELINE CCTOOL
run() {
  local case=$1 target=$2 base_name=$3 base=$4 tool=$5
  echo "agents.sh: $case" >&2
  hyperfine --warmup 1 --runs "$runs" --style basic --export-csv "$out/$case.csv" \
    -n "$base_name" "$base" -n cctool "$tool" > "$out/$case.txt"
  awk -F, -v case="$case" -v target="$target" 'NR == 2 { b = $2; name = $1 }
    NR == 3 { printf "| %s | %s | %.3f | %.3f | %.2fx | %s |\n", case, name, b, $2, $2 / b, target }' \
    "$out/$case.csv" >> "$out/results.md"
}

# peak CASE FILE CMD...: the peak resident memory of a command on one file, as a share of it.
peak() {
  local case=$1 file=$2; shift 2
  local kb size
  # doctor exits 1 on a session with errors: the memory is what is measured, not the finding.
  /usr/bin/time -f '%M' -o "$out/peak.txt" "$@" > /dev/null 2>&1 || true
  kb=$(tail -n 1 "$out/peak.txt")
  size=$(stat -c %s "$file")
  echo "| $case | peak RSS | | $((kb / 1024)) MiB | $(awk -v k="$kb" -v s="$size" 'BEGIN { printf "%.1f%% of the file", k * 102400 / s }') | bounded |" >> "$out/results.md"
}

for agent in pi copilot gemini-cli qwen-code; do
  store=$out/$agent
  files=$(find "$store" -name '*.jsonl' | wc -l)
  mib=$(du -sm --apparent-size "$store" | cut -f 1)
  echo "agents.sh: $agent store: $files sessions, $mib MiB" >&2
  echo "- $agent store: $files sessions, $mib MiB" >> "$out/notes.md"
  all="find $store -name '*.jsonl' -print0 | xargs -0 cat > /dev/null"
  run "scan-$agent" "≤ 3x cat" "cat" "$all" "$bin scan $store > /dev/null"
  run "scan-json-$agent" "≤ 3x cat" "cat" "$all" "$bin scan --json $store > /dev/null"
  run "doctor-$agent" "≤ 4x cat" "cat" "$all" "$bin doctor $store > /dev/null || true"
  run "extract-summary-$agent" "≤ 3x cat" "cat" "$all" "$bin extract-summary $store > /dev/null || true"
  big=$(find "$store" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d ' ' -f 2-)
  # The largest session of these generated stores is small enough for cat to read before a
  # process has started: this row times start-up more than reading, so it has no ratio to meet.
  run "rebuild-chain-largest-$agent" "none: start-up bound" "cat" "cat $big > /dev/null" "$bin rebuild-chain $big > /dev/null"
  if [ -x /usr/bin/time ]; then
    peak "doctor-largest-$agent" "$big" "$bin" doctor "$big"
  fi
done
echo "- load average at the start: $load_at_start; at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)" >> "$out/notes.md"
cat "$out/results.md" "$out/notes.md"
