#!/usr/bin/env bash
# refresh.sh [--write]: resumes every committed Gemini CLI fixture (fixtures/gemini/NAME.jsonl that
# has a NAME.sent.json) with the real client again and names each whose request differs from the
# recorded one; --write replaces the recorded requests. The fixtures themselves are remade by
# record.sh. Exit status: 0 all equal (or written), 1 some differ, 2 the client is missing.
set -u
NAME=refresh
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
need_client
FIXTURES=$(cd "$HERE/../../../fixtures/gemini" && pwd)
WRITE=0
[ "${1:-}" = --write ] && WRITE=1
differ=0
for sent in "$FIXTURES"/*.sent.json; do
  name=${sent%.sent.json}
  new=$(mktemp)
  if ! "$HERE/resume-view.sh" "$name.jsonl" > "$new"; then
    echo "refresh: $(basename "$name").jsonl: the client sent no request" >&2
    rm -f "$new"
    exit 1
  fi
  if ! python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$new" "$sent"; then
    echo "refresh: $(basename "$sent") differs" >&2
    differ=1
    [ $WRITE = 1 ] && cp "$new" "$sent"
  fi
  rm -f "$new"
done
[ $WRITE = 1 ] && exit 0
exit $differ
