#!/bin/bash
# record-model-fixtures.sh [--check] [NAME...]
#
# Records what the real Claude Code sends for each fixture of fixtures/claude/model/: NAME.jsonl
# resumed under the conditions of NAME.view (VIEW_DATE, VIEW_ENV, VIEW_SETTINGS, CC_EXTRA_ARGS,
# PROMPT), written as NAME.sent.json (the messages) and NAME.body.json (the body as
# `rebuild-chain --api-view --body` prints it), normalised by scripts/claude-request.py.
# --check writes nothing and lists the fixtures whose recording differs (exit 1 if any).
# The real-client harness is ${CCTOOL_HARNESS:-<repo>/scripts/realclient}.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
harness=${CCTOOL_HARNESS:-$repo/scripts/realclient}
dir=$repo/fixtures/claude/model
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
[ -x "$harness/cc-resume-view.sh" ] || { echo "record-model-fixtures: no harness at $harness (set CCTOOL_HARNESS)" >&2; exit 2; }
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for v in "$dir"/*.view; do names+=("$(basename "$v" .view)"); done
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
differ=0
for n in "${names[@]}"; do
  VIEW_DATE= VIEW_ENV= VIEW_SETTINGS= CC_EXTRA_ARGS= PROMPT="say ok"
  while IFS= read -r line; do
    case "$line" in
      VIEW_DATE=*) VIEW_DATE=${line#*=} ;;
      VIEW_ENV=*) VIEW_ENV=${line#*=} ;;
      VIEW_SETTINGS=*) VIEW_SETTINGS=$(cat "$dir/${line#*=}") ;;
      CC_EXTRA_ARGS=*) CC_EXTRA_ARGS=${line#*=} ;;
      PROMPT=*) PROMPT=${line#*=} ;;
    esac
  done < "$dir/$n.view"
  if ! VIEW_BODY=1 VIEW_DATE=$VIEW_DATE VIEW_ENV=$VIEW_ENV VIEW_SETTINGS=$VIEW_SETTINGS CC_EXTRA_ARGS=$CC_EXTRA_ARGS \
      bash "$harness/cc-resume-view.sh" "$dir/$n.jsonl" "$PROMPT" > "$tmp/$n.raw" 2> "$tmp/$n.err"; then
    echo "$n: the client sent no request ($(tail -1 "$tmp/$n.err"))"; differ=1; continue
  fi
  python3 "$repo/scripts/claude-request.py" sent < "$tmp/$n.raw" > "$tmp/$n.sent.json"
  python3 "$repo/scripts/claude-request.py" body < "$tmp/$n.raw" > "$tmp/$n.body.json"
  for k in sent body; do
    if [ $check = 1 ]; then
      cmp -s "$tmp/$n.$k.json" "$dir/$n.$k.json" || { echo "$n.$k.json differs"; differ=1; }
    else
      cp "$tmp/$n.$k.json" "$dir/$n.$k.json"
    fi
  done
done
[ $check = 1 ] && [ $differ = 0 ] && echo "all ${#names[@]} fixtures as recorded"
exit $differ
