#!/usr/bin/env bash
# twin-view.sh FILE.jsonl OUTDIR: reproduces Gemini CLI 0.61.0's stub-twin data loss on a copy of
# the chat FILE (named session-<minute>-<short id>.jsonl). The real client resumes it two minutes
# after the minute in its name (libfaketime), which writes a stub under the same short id; the
# chats folder is then copied to OUTDIR/before/, and `gemini --list-sessions` is run. Prints the
# names left in the folder after the listing, one a line. Exit status: 0 done; 1 the client failed;
# 2 bad arguments or the client is missing.
set -u
NAME=twin-view
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
need_client
[ $# -eq 2 ] && [ -f "$1" ] || fail 2 "usage: twin-view.sh FILE.jsonl OUTDIR"
NAME_IN=$(basename "$1")
[[ $NAME_IN =~ ^session-([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2})-([0-9]{2})-[0-9a-f]{8}\.jsonl$ ]] \
  || fail 2 "$NAME_IN is not named session-<YYYY-MM-DDTHH-MM>-<short id>.jsonl"
DAY=${BASH_REMATCH[1]}
LATER=$(python3 -c 'import datetime,sys; t=datetime.datetime.strptime(sys.argv[1], "%Y-%m-%d %H:%M"); print((t + datetime.timedelta(minutes=2)).strftime("%Y-%m-%d %H:%M:%S"))' \
  "$DAY ${BASH_REMATCH[2]}:${BASH_REMATCH[3]}")
SID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["sessionId"])' "$1") \
  || fail 2 "$1 has no header"
OUT=$(mkdir -p "$2/before" && cd "$2" && pwd) || fail 2 "cannot create $2"
BASE=/tmp/cctool-gemini
exec 9>"/tmp/cctool-gemini.lock"
flock 9
rm -rf "$BASE/home" "$BASE/work" "$BASE/twin"
CHATS=$BASE/home/.gemini/tmp/work/chats
mkdir -p "$CHATS" "$BASE/work"
scratch_home "$BASE/home"
printf '{\n  "projects": {\n    "%s": "work"\n  }\n}' "$BASE/work" > "$BASE/home/.gemini/projects.json"
printf '%s' "$BASE/work" > "$BASE/home/.gemini/tmp/work/.project_root"
cp "$1" "$CHATS/$NAME_IN"
GEMINI_FAKETIME=$LATER run_client "$BASE/home" "$BASE/work" "$BASE/twin/1" --resume "$SID" -p "say ok" \
  --approval-mode yolo || fail 1 "the resume failed: $(tail -c 1500 "$BASE/twin/1/client.err")"
cp "$CHATS"/* "$OUT/before/"
GEMINI_FAKETIME=$LATER run_client "$BASE/home" "$BASE/work" "$BASE/twin/2" --list-sessions \
  || fail 1 "--list-sessions failed: $(tail -c 1500 "$BASE/twin/2/client.err")"
ls -1 "$CHATS"
