#!/usr/bin/env bash
# refresh-context.sh [--write]: records anew, with the installed pi, for each fixture in
# fixtures/pi/: what it loads on resuming it (FILE.context.json beside FILE.jsonl, by
# pi-context.sh) and the request it sends after resuming it with the prompt "say ok"
# (FILE.sent.json, by pi-resume-view.sh: its header's cwd made /tmp, the package folder written
# as npm -g's default). The fixtures pi 1.6.0 wrote itself (ran-*.jsonl, see docs/pi.md) are
# recorded the same way: resumed in /tmp, the folder they ran in stays in their recorded <cwd>
# section, which pi patches. Names those that differ from the committed ones, and with --write
# replaces them. Never write a .context.json or a .sent.json by hand.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
write=0
[ "${1:-}" = --write ] && write=1
differ=0
# settle GOT WANT: says whether GOT differs from WANT (as JSON) and with --write replaces it.
settle() {
  if ! python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$1" "$2" 2>/dev/null; then
    differ=1
    echo "differs: ${2#"$REPO"/}"
    [ $write = 1 ] && cp "$1" "$2"
  fi
  rm -f "$1"
}
for f in "$REPO"/fixtures/pi/*.jsonl; do
  got=$(mktemp)
  "$HERE/pi-context.sh" "$f" >"$got" || { echo "refresh-context.sh: pi failed on $f" >&2; rm -f "$got"; exit 1; }
  settle "$got" "${f%.jsonl}.context.json"
  got=$(mktemp)
  VIEW_CWD=/tmp "$HERE/pi-resume-view.sh" "$f" "say ok" >"$got" \
    || { echo "refresh-context.sh: pi sent no request for $f" >&2; rm -f "$got"; exit 1; }
  settle "$got" "${f%.jsonl}.sent.json"
done
[ $differ = 0 ] && echo "refresh-context.sh: every recorded context and request is what pi loads and sends"
exit 0
