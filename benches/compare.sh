#!/usr/bin/env bash
# Times whole cctool commands side by side with baselines on the same generated files, warm
# cache, with hyperfine, and prints each cctool time as a ratio of its baseline, beside the
# project's target for that ratio.
#
#   benches/compare.sh [OUT_DIR]          (default /tmp/cctool-bench; needs about 5 GiB there)
#
# The corpus comes from the project's own generator (examples/gen-corpus/): 400 MiB of
# Claude Code and Codex sessions, one 1 GiB Claude Code session, and cctool v1 sessions of
# 1 GiB and 100 MB, and the Claude Code and Codex sessions and the 1 GiB session imported
# into cctool v5 files. hyperfine and rg are installed from crates.io into OUT_DIR/tools when
# absent; jq, python3 and ccusage are used when installed and skipped, with a note, when not.
# Results: OUT_DIR/results.md. RUNS=N changes the number of timed runs (default 5).
# CLAUDE_MIB, CODEX_MIB, SINGLE_MIB, V1_MIB, V1_SMALL_MIB and BOUNDARIES change the sizes
# (defaults 240, 160, 1024, 1024, 100 and 50000), to check the script end to end on a small
# corpus; the targets are for the default sizes. A corpus already in OUT_DIR is reused.
# BASE=PATH times another cctool build (an earlier commit's) in the same runs, as a row
# "cctool before" of each case: a change's before and after measured side by side, under the
# same load.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-bench}
runs=${RUNS:-5}
claude_mib=${CLAUDE_MIB:-240}
codex_mib=${CODEX_MIB:-160}
single_mib=${SINGLE_MIB:-1024}
v1_mib=${V1_MIB:-1024}
v1_small_mib=${V1_SMALL_MIB:-100}
boundaries=${BOUNDARIES:-50000}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH="$out/tools/bin:$PATH"
note() { echo "compare.sh: $*" >&2; echo "- $*" >> "$out/notes.md"; }
: > "$out/notes.md"

# Versions pinned where the newest release needs a newer rustc than this project's.
for pair in hyperfine:hyperfine@1.20.0 rg:ripgrep; do
  tool=${pair%%:*}
  if ! command -v "$tool" > /dev/null; then
    echo "compare.sh: installing $tool from crates.io into $out/tools" >&2
    cargo install -q --locked --root "$out/tools" "${pair#*:}"
  fi
done
have() { command -v "$1" > /dev/null; }

cargo build --release -q
cargo build --release -q --example gen-corpus
bin=$PWD/target/release/cctool
corpus=$out/corpus
if [ ! -f "$corpus/single/claude.jsonl" ]; then
  target/release/examples/gen-corpus "$corpus" --claude-mib "$claude_mib" --codex-mib "$codex_mib" \
    --single-claude-mib "$single_mib" --seed 11
fi
if [ ! -f "$corpus/many/single/boundaries.jsonl" ]; then
  target/release/examples/gen-corpus "$corpus/many" --claude-mib 0 --codex-mib 0 --boundaries "$boundaries" --seed 11
fi
single=$corpus/single/claude.jsonl
bounded=$corpus/many/single/boundaries.jsonl
# The many-files cases run on these two trees; the single sessions are for the single-file cases.
trees="$corpus/claude $corpus/codex"
files=$out/files.txt
find $trees -name '*.jsonl' | sort > "$files"

# A v1 session of N MiB, streamed out so the generator's memory stays small; every third
# message is a large tool output, with non-ASCII text as real harnesses write it.
v1_session() {
  local mib=$1 path=$2
  [ -f "$path" ] && return
  awk -v limit=$((mib * 1024 * 1024)) 'BEGIN {
    pad = ""; for (k = 0; k < 40; k++) pad = pad "fn main() {\\n    println!(\\\"héllo {}\\\", 42);\\n}\\n";
    plan = ""; for (k = 0; k < 20; k++) plan = plan "plan ";
    printf "{\"version\": 1, \"id\": \"big\", \"messages\": ["; size = 0
    for (i = 0; size < limit; i++) {
      r = i % 3; ts = 1752573600 + i
      if (r == 0) m = sprintf("{\"role\": \"user\", \"content\": \"request %d — please look at módulo %d\", \"ts\": %d}", i, i, ts)
      else if (r == 1) m = sprintf("{\"role\": \"assistant\", \"content\": \"Reading.\", \"thinking\": \"%s\", \"tool_calls\": [{\"id\": \"call_%d\", \"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"src/m%d.rs\\\"}\"}], \"ts\": %d}", plan, i, i, ts)
      else m = sprintf("{\"role\": \"tool\", \"tool_call_id\": \"call_%d\", \"content\": \"%s\", \"ts\": %d}", i - 1, pad, ts)
      printf "%s%s", (i ? ", " : ""), m; size += length(m) + 2
    }
    print "]}"
  }' > "$path.part"
  mv "$path.part" "$path"
}
v1_big=$out/v1-1gib.json
v1_small=$out/v1-100mb.json
v1_session "$v1_mib" "$v1_big"
v1_session "$v1_small_mib" "$v1_small"
# The same sessions imported into cctool v5 files (pretty-printed JSON documents), to read
# them at the speed of the native files.
v5=$out/v5
if [ ! -d "$v5/codex" ]; then
  rm -rf "$v5"
  "$bin" -q migrate "$corpus/claude" -o "$v5/claude" > /dev/null
  "$bin" -q migrate "$corpus/codex" -o "$v5/codex" > /dev/null
fi
v5_trees="$v5/claude $v5/codex"
v5_single=$out/single.v5.json
[ -f "$v5_single" ] || "$bin" -q migrate "$single" -o "$v5_single" > /dev/null
# Files not modified for a minute are memory-mapped, as users' old sessions are, and only
# those may be migrated in place.
find "$corpus" "$v1_big" "$v1_small" "$v5" "$v5_single" -type f -exec touch -d '10 minutes ago' {} +

# Other work on the machine moves every number: the load is printed with the results.
load_at_start=$(cut -d ' ' -f 1-3 /proc/loadavg)
{
  echo "| case | baseline | baseline (s) | cctool (s) | cctool / baseline | target |"
  echo "|---|---|---:|---:|---:|---|"
} > "$out/results.md"

# run CASE TARGET_NOTE CCTOOL_CMD [NAME CMD]... (each command may be "PREPARE ;; CMD")
run() {
  local case=$1 target=$2; shift 2
  local args=(--warmup 1 --runs "$runs" --style basic --export-csv "$out/$case.csv")
  local spec=("cctool" "$1"); shift
  spec+=("$@")
  if [ -n "${BASE:-}" ]; then spec+=("cctool before" "${spec[1]//$bin/$BASE}"); fi
  local i
  for ((i = 0; i < ${#spec[@]}; i += 2)); do
    local cmd=${spec[i + 1]} prep=true
    # A preparation that writes files ends with sync: the timed command should not pay for
    # flushing what the preparation wrote (an fsync waits behind it on the same disk).
    if [[ $cmd == *" ;; "* ]]; then prep="${cmd%% ;; *}; sync"; cmd=${cmd#* ;; }; fi
    args+=(--prepare "$prep" -n "${spec[i]}" "$cmd")
  done
  echo "compare.sh: $case" >&2
  hyperfine "${args[@]}" > "$out/$case.txt"
  awk -F, -v case="$case" -v target="$target" 'NR == 1 { next }
    NR == 2 { tool = $2; next }
    { printf "| %s | %s | %.3f | %.3f | %.2fx | %s |\n", case, $1, $2, tool, tool / $2,
        $1 == "cctool before" ? "≤ 1x (no slower)" : target }' \
    "$out/$case.csv" >> "$out/results.md"
}

# extract-summary: every compaction summary in 400 MiB of sessions.
es=("rg -c -F compact_boundary" "rg -c -F compact_boundary $trees > /dev/null || true")
if have jq; then
  es+=("jq" "xargs -a $files jq -c 'select((.type==\"system\" and .subtype==\"compact_boundary\") or .isCompactSummary==true or .type==\"compacted\")' > /dev/null 2>&1 || true")
else note "jq not installed: the jq baselines are skipped"; fi
if have python3; then
  es+=("python3 json.loads loop" "xargs -a $files python3 -c 'import json,sys
for p in sys.argv[1:]:
    for l in open(p, encoding=\"utf-8\", errors=\"replace\"):
        try: d = json.loads(l)
        except Exception: continue
        if d.get(\"subtype\") == \"compact_boundary\" or d.get(\"isCompactSummary\") or d.get(\"type\") == \"compacted\": print(l[:80])' > /dev/null")
else note "python3 not installed: the json.loads baseline is skipped"; fi
run extract-summary "≤ 1.5x rg; ≤ 0.05x jq" "$bin -q extract-summary --json $trees > /dev/null" "${es[@]}"
run extract-summary-v5 "≤ 1.5x native" "$bin -q extract-summary --json $v5_trees > /dev/null" \
  "cctool native" "$bin -q extract-summary --json $trees > /dev/null"

# scan: full parse and chain rebuild of every file.
run scan "≤ 4x cat" "$bin -q scan --json $trees > /dev/null" "cat" "xargs -a $files cat > /dev/null"
run scan-v5 "≤ 1.5x native" "$bin -q scan --json $v5_trees > /dev/null" \
  "cctool native" "$bin -q scan --json $trees > /dev/null"
# ccusage (npm i ccusage; CCUSAGE=PATH names its binary) reports token usage per session from
# the same Claude Code files, offline (no price download), without chains or request sizes.
ccusage=${CCUSAGE:-$(command -v ccusage || true)}
if [ -n "$ccusage" ]; then
  note "ccusage: $("$ccusage" --version 2>/dev/null | head -n 1)"
  run scan-claude "faster than ccusage" "$bin -q scan --json $corpus/claude > /dev/null" \
    "ccusage claude session" "CLAUDE_CONFIG_DIR=$corpus/claude $ccusage claude session --json --offline > /dev/null"
else note "ccusage not installed: scan is not compared with it"; fi

# doctor: every finding of every file.
run doctor "≤ 4x cat" "$bin -q doctor --json $trees > /dev/null" "cat" "xargs -a $files cat > /dev/null"

# A row with the peak RSS of one run of a command on FILE (after PREPARE, untimed).
peak_rss() {
  local case=$1 file=$2 target=$3 prepare=$4; shift 4
  [ -x /usr/bin/time ] || return 0
  eval "$prepare"
  /usr/bin/time -f "%M" "$@" > /dev/null 2> "$out/rss.txt"
  local kb size
  kb=$(tail -n 1 "$out/rss.txt")
  size=$(stat -c %s "$file")
  echo "| $case | peak RSS | | $((kb / 1024)) MiB | $(awk -v k="$kb" -v s="$size" 'BEGIN { printf "%.1f%% of the file", k * 102400 / s }') | $target |" >> "$out/results.md"
}
[ -x /usr/bin/time ] || note "/usr/bin/time not installed: peak RSS is not measured"

# One session of 50,000 compactions (200 MiB): every boundary's summary, and a compaction,
# cost a lookup each, not a pass over the boundaries before it (22 s for 8,000 once).
run extract-summary-50k-boundaries "seconds" "$bin -q extract-summary --json $bounded > /dev/null" \
  "rg -c -F compact_boundary" "rg -c -F compact_boundary $bounded > /dev/null"
run compact-50k-boundaries "seconds" \
  "rm -f $out/k.jsonl ;; $bin -q compact --keep-recent 50 $bounded -o $out/k.jsonl" \
  "cp" "rm -f $out/c.json ;; cp $bounded $out/c.json"
rm -f "$out/k.jsonl" "$out/c.json"

# rebuild-chain on one 1 GiB session.
run rebuild-chain-1gib "≤ 3x wc -l" "$bin -q rebuild-chain $single > /dev/null" "wc -l" "wc -l $single > /dev/null"
peak_rss rebuild-chain-1gib "$single" "< 25%" ":" "$bin" -q rebuild-chain "$single"
run rebuild-chain-1gib-v5 "≤ 1.5x native" "$bin -q rebuild-chain $v5_single > /dev/null" \
  "cctool native" "$bin -q rebuild-chain $single > /dev/null"
peak_rss doctor-1gib "$single" "< 10%" ":" "$bin" -q doctor --json "$single"

# compact one 1 GiB session: to a new file, and in place (backup, temporary file, fsync, rename).
run compact-1gib "≤ 3x cp" \
  "rm -f $out/k.jsonl ;; $bin -q compact $single -o $out/k.jsonl" \
  "cp" "rm -f $out/c.json ;; cp $single $out/c.json"
run compact-1gib-in-place "≤ 3x cp" \
  "rm -f $out/k.jsonl*; cp -p $single $out/k.jsonl ;; $bin -q compact --in-place $out/k.jsonl" \
  "cp" "rm -f $out/c.json ;; cp $single $out/c.json"
rm -f "$out"/k.jsonl*

# migrate a v1 session in place (backup, temporary file, fsync, rename) against copying it.
run migrate-1gib "≤ 3x cp" \
  "rm -f $out/m.json*; cp -p $v1_big $out/m.json ;; $bin -q migrate $out/m.json > /dev/null" \
  "cp" "rm -f $out/c.json ;; cp $v1_big $out/c.json"
peak_rss migrate-1gib "$v1_big" "bounded" "rm -f $out/m.json*; cp -p $v1_big $out/m.json" "$bin" -q migrate "$out/m.json"
if have jq; then
  run migrate-100mb "≤ 0.1x jq" \
    "rm -f $out/m.json*; cp -p $v1_small $out/m.json ;; $bin -q migrate $out/m.json > /dev/null" \
    "jq -c ." "jq -c . $v1_small > /dev/null"
fi
rm -f "$out"/m.json* "$out/c.json"

{
  echo
  echo "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr); warm cache, mean of $runs runs; load average (1, 5, 15 min) $load_at_start at the start, $(cut -d ' ' -f 1-3 /proc/loadavg) at the end."
  cat "$out/notes.md"
} >> "$out/results.md"
cat "$out/results.md"
