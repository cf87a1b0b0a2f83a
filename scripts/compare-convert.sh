#!/usr/bin/env bash
# Runs `cctool convert` of two builds on every session file found and reports every
# difference in the converted file, the report (stderr and --json) and the exit status, byte
# for byte: how a change to the converters proves their output did not change.
#
#   scripts/compare-convert.sh OLD_BIN NEW_BIN [DIR_OR_FILE…]     (default: fixtures/)
#
# Each file is converted to both agents (a file of the target's own format too), with and
# without --full and --reasoning-as-text, into a new file, then again into the same file (the
# incremental run: nothing to write). WORK (default /tmp/cctool-compare-convert) holds the
# outputs; the differences are listed in WORK/diffs.txt. EXT (default "jsonl") names the
# file endings taken, e.g. EXT="jsonl json db" for Gemini CLI's chats and opencode's
# databases; a database's session is named as convert takes it (`opencode.db#ses_…`). Exit
# status 0 when the builds agree.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/cctool-compare-convert}
mkdir -p "$work"
work=$(realpath "$work")
: > "$work/diffs.txt"
[ $# -eq 0 ] && set -- "$repo/fixtures"
names=()
for e in ${EXT:-jsonl}; do
  [ ${#names[@]} -gt 0 ] && names+=(-o)
  names+=(-name "*.$e")
done
# A source named with its session (`opencode.db#ses_…`) is taken as given.
dirs=()
given=()
for a in "$@"; do
  case $a in *#*) given+=("$a") ;; *) dirs+=("$a") ;; esac
done
files=("${given[@]}")
if [ ${#dirs[@]} -gt 0 ]; then
  mapfile -t found < <(find "${dirs[@]}" -type f \( "${names[@]}" \) | sort)
  files+=("${found[@]}")
fi
cases=0
diffs=0
run() { # BIN TAG FILE ARGS… → WORK/TAG/{out.jsonl,err,json,status}
  # Both builds run in the same folder (a source without a working directory is given the
  # current one), their results moved aside after.
  local bin=$1 tag=$2 file=$3
  shift 3
  local d=$work/run
  rm -rf "$d" "${work:?}/$tag"
  mkdir -p "$d"
  (cd "$d" && HOME=$d NO_COLOR=1 "$bin" convert "$@" -o out.jsonl "$file" 2> err; echo $? > status
   HOME=$d NO_COLOR=1 "$bin" --json convert "$@" -o out.jsonl "$file" > json 2>> err; echo $? >> status)
  [ -f "$d/out.jsonl" ] || : > "$d/out.jsonl"
  mv "$d" "$work/$tag"
}
for f in "${files[@]}"; do
  for to in codex claude-code; do
    for opts in "" "--full" "--reasoning-as-text" "--full --reasoning-as-text"; do
      # shellcheck disable=SC2086
      run "$old" old "$f" --to $to $opts
      # shellcheck disable=SC2086
      run "$new" new "$f" --to $to $opts
      cases=$((cases + 1))
      for part in out.jsonl err json status; do
        if ! cmp -s "$work/old/$part" "$work/new/$part"; then
          diffs=$((diffs + 1))
          { echo "== $f --to $to $opts: $part"; diff "$work/old/$part" "$work/new/$part" | head -5; } >> "$work/diffs.txt"
        fi
      done
    done
  done
done
echo "$cases cases, $diffs differences (in $work/diffs.txt)"
[ "$diffs" -eq 0 ]
