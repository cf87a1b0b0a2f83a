#!/usr/bin/env bash
# record.sh OUTDIR: makes the Gemini CLI fixtures with the real client (install.sh's 0.61.0),
# offline against mock.py, each session written by the client itself into a scratch home:
#
#   turns.jsonl      two runs in one minute: prompts, a shell call and its result, a resume
#                    (a second header and the whole history as `$set.messages`)
#   slash.jsonl      slash commands among the prompts (`/memory show`, `/compress` that does not
#                    compress in -p mode): the client keeps their replies, drops the prompts
#   compacted.jsonl  a compression forced by a tiny model.compressionThreshold: a `$set.messages`
#                    that replaces the history with the summary exchange
#   twin.jsonl       a session resumed in later minutes (libfaketime): the full transcript ...
#   twin-stub.jsonl  ... and the stub the resume wrote under the same short id
#   edges.jsonl      turns.jsonl with a rewind, a bad line, a message replaced by id, a notice
#   twin-stub.resume.txt what the client says when asked to resume the stub alone
#   twin.listing.txt the chats folder before and after the next `--list-sessions`: the client
#                    deletes the full transcript
#
# then each fixture's .sent.json with resume-view.sh. The home and working folder are fixed
# (/tmp/cctool-gemini/{home,work}: the session context the client writes names them) and the
# clock is faked from RECORD_DATE (default 2026-12-01), so a new recording differs from the
# committed one only where the client itself changed.
set -u
NAME=record
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
need_client
[ $# -eq 1 ] || fail 2 "usage: record.sh OUTDIR"
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || fail 2 "cannot create $1"
BASE=/tmp/cctool-gemini
DAY=${RECORD_DATE:-2026-12-01}
exec 9>"/tmp/cctool-gemini.lock"
flock 9

fresh() {  # the scratch home and folder, emptied
  rm -rf "$BASE/home" "$BASE/work" "$BASE/dump"
  mkdir -p "$BASE/home" "$BASE/work"
  scratch_home "$BASE/home"
}
N=0
at() {  # TIME ARGS...: one run of the client at DAY TIME
  local when="$DAY $1"
  shift
  N=$((N + 1))
  GEMINI_FAKETIME=$when run_client "$BASE/home" "$BASE/work" "$BASE/dump/$N" "$@" --approval-mode yolo \
    || fail 1 "the client failed ($*): $(tail -c 1500 "$BASE/dump/$N/client.err")"
}
chats() { echo "$BASE/home/.gemini/tmp/work/chats"; }
only() {  # the one session file of the chats folder
  local files
  files=$(ls "$(chats)"/session-*.jsonl)
  [ "$(echo "$files" | wc -l)" = 1 ] || fail 1 "expected one session file, found: $files"
  echo "$files"
}

fresh
at 10:00:05 -p "first prompt: what is in this folder?"
at 10:00:20 --resume latest -p "RUNTOOL and say what it printed"
at 10:00:40 --resume latest -p "thanks"
cp "$(only)" "$OUT/turns.jsonl"

fresh
at 10:10:05 -p "hello"
at 10:10:15 --resume latest -p "/memory show"
at 10:10:25 --resume latest -p "/compress"
at 10:10:35 --resume latest -p "RUNTOOL once more"
cp "$(only)" "$OUT/slash.jsonl"

fresh
at 10:20:05 -p "start of a long task"
at 10:20:15 --resume latest -p "RUNTOOL to look around"
scratch_home "$BASE/home" 0.00001
MOCK_REPLY="<state_snapshot>The user started a long task and ran echo hi, which printed hi.</state_snapshot>" \
  at 10:20:30 --resume latest -p "go on after the compression"
scratch_home "$BASE/home"
at 10:20:45 --resume latest -p "and once more"
cp "$(only)" "$OUT/compacted.jsonl"

fresh
at 10:30:05 -p "a session that will be resumed later"
at 10:30:15 --resume latest -p "RUNTOOL please"
at 10:31:10 --resume latest -p "resumed a minute later"
full=$(ls "$(chats)"/session-*T10-30-*.jsonl) || fail 1 "no full transcript"
stub=$(ls "$(chats)"/session-*T10-31-*.jsonl) || fail 1 "the resume wrote no stub twin"
cp "$full" "$OUT/twin.jsonl"
cp "$stub" "$OUT/twin-stub.jsonl"
{
  echo "# the chats folder after a resume in a later minute"
  (cd "$(chats)" && ls -1 && wc -c session-* | sed 's/^ *//')
  at 10:32:00 --list-sessions
  echo "# after the next gemini --list-sessions"
  (cd "$(chats)" && ls -1)
} > "$OUT/twin.listing.txt"

# edges.jsonl: turns.jsonl with what the client reads but -p runs do not write: a rewind to the
# last prompt, a line that is not JSON, the first prompt written again under its id (replaced
# where it stands), a notice, a title, and a turn after them.
python3 - "$OUT/turns.jsonl" "$OUT/edges.jsonl" <<'PY' || fail 1 "cannot make edges.jsonl"
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
records = [json.loads(l) for l in lines]
users = [r for r in records if r.get("type") == "user" and isinstance(r.get("content"), list)
         and "text" in r["content"][0]]
first, last = users[0], users[-1]
edited = dict(first, content=[{"text": "first prompt, edited in place"}])
extra = [
    json.dumps({"$rewindTo": last["id"]}),
    "not json {",
    json.dumps(edited),
    json.dumps({"id": "edge-info-1", "timestamp": last["timestamp"], "type": "info", "content": "a notice"}),
    json.dumps({"$set": {"summary": "an edge case"}}),
    json.dumps({"id": "edge-user-2", "timestamp": last["timestamp"], "type": "user",
                "content": [{"text": "after the rewind"}]}),
    json.dumps({"id": "edge-gemini-2", "timestamp": last["timestamp"], "type": "gemini", "content": "fine",
                "thoughts": [], "model": "gemini-3.8-flash"}),
]
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(lines + extra) + "\n")
PY

for f in turns slash compacted twin edges; do
  GEMINI_LOCK_HELD=1 "$GEMINI_HERE/resume-view.sh" "$OUT/$f.jsonl" > "$OUT/$f.sent.json" \
    || fail 1 "resume-view.sh failed on $f.jsonl"
done
# The stub alone holds nothing the client resumes: its refusal is the evidence.
GEMINI_LOCK_HELD=1 "$GEMINI_HERE/resume-view.sh" "$OUT/twin-stub.jsonl" > /dev/null 2> "$OUT/twin-stub.resume.txt" \
  && fail 1 "the client resumed the stub twin"
echo "record.sh: fixtures written to $OUT" >&2
