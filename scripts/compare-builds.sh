#!/usr/bin/env bash
# Runs two cctool builds on the same inputs and reports every difference in stdout, stderr,
# exit status and written files, byte for byte. It is how a refactor proves that behaviour
# did not change.
#
#   scripts/compare-builds.sh OLD_BIN NEW_BIN [DIR_OR_FILE…]
#
# Inputs: the given paths, else the project's fixtures/, the folder of real sessions named by
# CCTOOL_SAMPLES when it is set, and a generated corpus (CORPUS_MIB,
# default 300; CORPUS_MIB=0 skips it) made with examples/gen-corpus into WORK: the tree
# cases (scan, doctor, migrate --check) read all of it, the per-file cases every
# CORPUS_STRIDE-th file (default 8). The recorded requests of the fixtures (`*.sent.json`,
# `*.body.json`, `*.settings.json`, `*expected*`) are outputs, not sessions, and are skipped.
# JOBS=N runs N shards side by side.
# WORK (default /tmp/cctool-compare) holds the corpus and the results; differences are listed
# in WORK/diffs.txt with the first lines of each diff. Exit status 0 when the builds agree,
# 1 when they differ, 2 on bad usage.
#
# Both builds run one after the other in the same scratch folder and with the same
# environment (HOME, clock for compaction ids, terminal width, no colour), so outputs need no
# normalisation beyond that folder's path, which is the same for both; `--api-view`, `scan`
# and `doctor` are given a fixed `--as-of`, since they otherwise report the time they ran.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,22p' "$0" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/cctool-compare}
mkdir -p "$work"
work=$(realpath "$work")
scratch=$work/scratch
results=$work/diffs.txt
: > "$results"

inputs=()
stride_root=${STRIDE_ROOT:-}
if [ $# -gt 0 ]; then
  inputs=("$@")
else
  inputs+=("$repo/fixtures")
  samples=${CCTOOL_SAMPLES:-}
  if [ -n "$samples" ] && [ -d "$samples" ]; then
    inputs+=("$(realpath "$samples")")
  else
    echo "compare-builds: no CCTOOL_SAMPLES folder; comparing without real sessions" >&2
  fi
  mib=${CORPUS_MIB:-300}
  if [ "$mib" -gt 0 ]; then
    corpus=$work/corpus-$mib
    if [ ! -d "$corpus/claude" ]; then
      (cd "$repo" && cargo build --release -q --example gen-corpus) || exit 2
      half=$((mib / 2))
      "$repo/target/release/examples/gen-corpus" "$corpus" --claude-mib "$half" \
        --codex-mib "$((mib - half))" --boundaries 200 --seed 19 > /dev/null || exit 2
    fi
    inputs+=("$corpus")
    stride_root=$corpus
  fi
fi

export HOME=$work/home SOURCE_DATE_EPOCH=1767225600 COLUMNS=120 NO_COLOR=1 TZ=UTC LC_ALL=C
unset CLAUDE_CONFIG_DIR CODEX_HOME CCTOOL_HARNESS
mkdir -p "$HOME"

# The Claude Code model checks report the time they ran unless given one.
asof=2026-06-01T00:00:00Z
cases=0
diffs=0
jobs=${JOBS:-1}
shard=${SHARD:-}

# One case: NAME, a shell prelude run in the scratch folder before each build (copies of
# inputs to rewrite), then the arguments; differences go to the results file.
compare() {
  local name=$1 prelude=$2
  shift 2
  cases=$((cases + 1))
  local a=$work/old b=$work/new
  rm -rf "$a" "$b"
  run_case "$old" "$a" "$prelude" "$@"
  run_case "$new" "$b" "$prelude" "$@"
  local part
  for part in rc out err files; do
    if ! cmp -s "$a/$part" "$b/$part"; then
      diffs=$((diffs + 1))
      {
        echo "== $name: $part differs ($*)"
        diff "$a/$part" "$b/$part" | head -20
      } >> "$results"
    fi
  done
}

# One build on one case in a fresh scratch folder: stdout, stderr, exit status, and the files
# the command left behind (by hash) under DEST. The prelude sees the build as $BIN.
run_case() {
  local bin=$1 dest=$2 prelude=$3
  shift 3
  rm -rf "$scratch"
  mkdir -p "$scratch/in" "$dest"
  if [ -n "$prelude" ]; then (cd "$scratch" && BIN=$bin eval "$prelude"); fi
  (cd "$scratch" && timeout 600 "$bin" "$@" > "$dest/out" 2> "$dest/err" < /dev/null)
  echo $? > "$dest/rc"
  (cd "$scratch" && find . -type f ! -path './in/*' -print0 | sort -z | xargs -0 -r sha256sum) > "$dest/files"
}

per_file() {
  local f=$1 q
  q=$(printf %q "$f")
  compare "$f rebuild-chain" "" rebuild-chain "$f"
  compare "$f rebuild-chain text" "" rebuild-chain "$f" --format text
  compare "$f rebuild-chain markdown full" "" rebuild-chain "$f" --format markdown --full
  compare "$f rebuild-chain json full" "" --json rebuild-chain "$f" --full
  compare "$f rebuild-chain api-view" "" --json rebuild-chain "$f" --api-view --prompt hello --as-of "$asof"
  compare "$f rebuild-chain api-view text" "" rebuild-chain "$f" --api-view --body --format text --as-of "$asof"
  compare "$f extract-summary json" "" --json extract-summary --all-events "$f"
  compare "$f extract-summary text" "" extract-summary --strip-template "$f"
  compare "$f scan json" "" --json scan "$f" --as-of "$asof"
  compare "$f doctor json" "" --json doctor "$f" --as-of "$asof"
  compare "$f migrate -o" "" migrate "$f" -o out
  compare "$f migrate dry-run" "" --json migrate --dry-run --effective "$f"
  compare "$f compact" "" --json compact --keep-recent 300 "$f" -o compacted
  # Decompress what this build compacted, back against the original.
  compare "$f compact+decompress" "\"\$BIN\" compact --keep-recent 300 $q -o in/c > /dev/null 2>&1" \
    decompress in/c --from "$f" -o restored
  compare "$f compact in place" "cp $q in/copy" compact --keep-recent 300 --in-place --force in/copy
  compare "$f export markdown" "" export "$f"
  compare "$f export html full" "" export --format html --full "$f"
  compare "$f export jsonl" "" --json export --format jsonl "$f" -o out.jsonl
  compare "$f export jsonl full" "" export --format jsonl --full "$f"
  compare "$f export redacted" "" export --redact "$f"
  compare "$f export native redacted" "" export --format native --redact "$f"
  local t
  for t in sessions messages compactions tool-calls; do
    compare "$f rows $t" "" scan --rows "$t" --max-text 200 "$f"
  done
  compare "$f rows parquet" "" scan --rows tool-calls --format parquet "$f"
}

per_tree() {
  local d=$1
  compare "$d scan json" "" --json scan "$d" --as-of "$asof"
  compare "$d scan table" "" scan "$d" --as-of "$asof"
  compare "$d scan wide sorted" "" scan --wide --sort size "$d" --as-of "$asof"
  compare "$d doctor json" "" --json doctor "$d" --as-of "$asof"
  compare "$d doctor" "" doctor --min-severity warning "$d" --as-of "$asof"
  compare "$d migrate --check" "" migrate --check "$d"
  compare "$d rows sessions" "" scan --rows sessions "$d"
  compare "$d rows messages parquet parts" "" scan --rows messages --format parquet --out-dir rows "$d"
  compare "$d export html" "" export --format html "$d" -o pages
}

# JOBS=N: N copies of this script, each on every N-th file in its own WORK folder.
if [ "$jobs" -gt 1 ] && [ -z "$shard" ]; then
  pids=()
  for i in $(seq 0 $((jobs - 1))); do
    WORK=$work/shard$i SHARD=$i/$jobs STRIDE_ROOT=$stride_root "$0" "$old" "$new" "${inputs[@]}" > /dev/null &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  total_cases=0
  for i in $(seq 0 $((jobs - 1))); do
    grep -v '^compare-builds: ' "$work/shard$i/diffs.txt" >> "$results"
    c=$(sed -n 's/^compare-builds: \([0-9]*\) cases.*/\1/p' "$work/shard$i/diffs.txt")
    total_cases=$((total_cases + ${c:-0}))
  done
  diffs=$(grep -c '^== ' "$results")
  echo "compare-builds: $total_cases cases, $diffs differences" | tee -a "$results"
  [ "$diffs" -eq 0 ]
  exit
fi
file_no=0
mine() {
  local n=$((file_no++))
  [ -z "$shard" ] || [ $((n % ${shard#*/})) -eq "${shard%/*}" ]
}

for root in "${inputs[@]}"; do
  root=$(realpath "$root")
  if [ -d "$root" ]; then
    if mine; then per_tree "$root"; fi
    n=0
    while IFS= read -r -d '' f; do
      # Every file of a tree runs whole through the tree cases above; in the generated corpus
      # the per-file cases take every CORPUS_STRIDE-th file, which keeps a run under an hour.
      if [ "$root" = "$stride_root" ] && [ $((n++ % ${CORPUS_STRIDE:-8})) -ne 0 ]; then continue; fi
      if mine; then per_file "$f"; fi
    done < <(find "$root" -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.jsonl.zst' \) \
      ! -name '*.sent.json' ! -name '*.body.json' ! -name '*.settings.json' ! -name '*expected*' -print0 | sort -z)
  elif mine; then
    per_file "$root"
  fi
done

echo "compare-builds: $cases cases, $diffs differences" | tee -a "$results"
[ "$diffs" -eq 0 ]
