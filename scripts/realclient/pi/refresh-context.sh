#!/usr/bin/env bash
# refresh-context.sh [--write]: records anew, with the installed pi, what it loads on resuming
# each fixture in fixtures/pi/ (FILE.context.json beside FILE.jsonl), names those that differ
# from the committed ones, and with --write replaces them. Never write a .context.json by hand.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
write=0
[ "${1:-}" = --write ] && write=1
differ=0
for f in "$REPO"/fixtures/pi/*.jsonl; do
  want=${f%.jsonl}.context.json
  got=$(mktemp)
  "$HERE/pi-context.sh" "$f" >"$got" || { echo "refresh-context.sh: pi failed on $f" >&2; rm -f "$got"; exit 1; }
  if ! cmp -s "$got" "$want"; then
    differ=1
    echo "differs: ${want#"$REPO"/}"
    [ $write = 1 ] && cp "$got" "$want"
  fi
  rm -f "$got"
done
[ $differ = 0 ] && echo "refresh-context.sh: every recorded context is what pi loads"
exit 0
