#!/usr/bin/env bash
# Proves that a faster build answers exactly as the build before it: runs the reading commands
# a performance change touches (`scan --json`, `doctor --json`, `extract-summary --json`,
# `rebuild-chain`) with two builds on the same inputs and compares the md5 of every stdout,
# stderr and exit status.
#
#   benches/same-output.sh OLD_BIN NEW_BIN [DIR…]
#
# Inputs: every session file of the project's fixtures/ one by one, and each DIR given (for
# instance the trees of benches/compare.sh's corpus, native and v5) both as one tree and file
# by file. The md5 of each output of each build goes to WORK/old.md5 and WORK/new.md5 (WORK
# defaults to /tmp/cctool-same-output); the script prints the number of outputs compared, the
# md5 of each manifest and every line where they differ. Exit status 0 when every output is
# identical, 1 when one differs, 2 on bad usage.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/cctool-same-output}
mkdir -p "$work/home"
export HOME=$work/home SOURCE_DATE_EPOCH=1767225600 COLUMNS=120 NO_COLOR=1 TZ=UTC LC_ALL=C
unset CLAUDE_CONFIG_DIR CODEX_HOME CCTOOL_HARNESS
# scan and doctor report the time they ran unless given one.
asof=2026-06-01T00:00:00Z

# One line per output: the case, then the md5 of stdout, stderr and the exit status.
outputs() {
  local bin=$1 path=$2 kind
  for kind in scan doctor extract-summary rebuild-chain; do
    local args
    case $kind in
      scan) args=(--json scan --as-of "$asof" "$path") ;;
      doctor) args=(--json doctor --as-of "$asof" "$path") ;;
      extract-summary) args=(--json extract-summary "$path") ;;
      rebuild-chain) [ -d "$path" ] && continue; args=(rebuild-chain "$path") ;;
    esac
    local o e rc
    o=$("$bin" "${args[@]}" 2> "$work/err" < /dev/null | md5sum)
    rc=${PIPESTATUS[0]}
    e=$(md5sum < "$work/err")
    printf '%s %s\t%s %s %s\n' "$kind" "$path" "${o%% *}" "${e%% *}" "$rc"
  done
}

list() {
  find "$repo/fixtures" -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.jsonl.zst' \) \
    ! -name '*.sent.json' ! -name '*.body.json' ! -name '*.settings.json' ! -name '*expected*' | sort
  local d
  for d in "$@"; do
    realpath "$d"
    [ -d "$d" ] && find "$(realpath "$d")" -type f \( -name '*.jsonl' -o -name '*.json' \) | sort
  done
}

list "$@" > "$work/inputs.txt"
for side in old new; do
  bin=$old
  [ $side = new ] && bin=$new
  while IFS= read -r p; do outputs "$bin" "$p"; done < "$work/inputs.txt" > "$work/$side.md5"
done
n=$(wc -l < "$work/new.md5")
echo "same-output: $n outputs of $(wc -l < "$work/inputs.txt") inputs"
echo "same-output: old $(md5sum < "$work/old.md5" | cut -c1-32), new $(md5sum < "$work/new.md5" | cut -c1-32)"
if diff "$work/old.md5" "$work/new.md5" > "$work/diff.txt"; then
  echo "same-output: every output identical"
else
  echo "same-output: $(grep -c '^>' "$work/diff.txt") outputs differ:"
  head -40 "$work/diff.txt"
  exit 1
fi
