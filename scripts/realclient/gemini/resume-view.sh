#!/usr/bin/env bash
# resume-view.sh FILE.jsonl [PROMPT]
#
# Resumes the Gemini CLI session FILE with the real client (install.sh's 0.61.0), offline against
# mock.py, and prints the `contents` of the request it sends for the resumed turn (the agent's
# streamGenerateContent call, the one that offers tools), as JSON. FILE itself is never written: a
# copy is put in a scratch home's chats folder and resumed by its session id.
#
# What the request depends on besides the file is fixed: the home and working folder are
# /tmp/cctool-gemini/{home,work} (record.sh's, which the session context the client sends names),
# the working folder is empty, and the clock is the file's last timestamp (libfaketime), so the
# session context the client makes anew on resume is the one the file holds last.
#
# Exit status: 0 the request is printed; 1 the client sent none (its stderr is shown); 2 bad
# arguments or the client is not installed. Knobs: VIEW_PROMPT, VIEW_TIMEOUT, VIEW_NETNS=0,
# VIEW_BODY=1 (the whole request body), CCTOOL_REALCLIENTS.
set -u
NAME=resume-view
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
need_client
[ $# -ge 1 ] && [ -f "$1" ] || fail 2 "usage: resume-view.sh FILE.jsonl [PROMPT]"
INPUT=$1
PROMPT=${2:-${VIEW_PROMPT:-say ok}}
BASE=/tmp/cctool-gemini
if [ "${GEMINI_LOCK_HELD:-0}" != 1 ]; then
  exec 9>"/tmp/cctool-gemini.lock"
  flock 9
fi
rm -rf "$BASE/home" "$BASE/work" "$BASE/view"
mkdir -p "$BASE/home/.gemini/tmp/work/chats" "$BASE/work"
scratch_home "$BASE/home"
INFO=$(python3 - "$INPUT" "$BASE" <<'PY'
import json, os, re, sys
src, base = sys.argv[1], sys.argv[2]
sid, last = None, None
for line in open(src, encoding="utf-8", errors="replace"):
    try:
        rec = json.loads(line)
    except ValueError:
        continue
    if not isinstance(rec, dict):
        continue
    if isinstance(rec.get("sessionId"), str):
        sid = rec["sessionId"]
    stamps = [rec.get("timestamp"), rec.get("startTime")]
    for m in (rec.get("$set") or {}).get("messages") or [] if isinstance(rec.get("$set"), dict) else []:
        if isinstance(m, dict):
            stamps.append(m.get("timestamp"))
    for s in stamps:
        if isinstance(s, str) and (last is None or s > last):
            last = s
name = os.path.basename(src)
if not re.fullmatch(r"session-.*\.jsonl", name):
    name = "session-{}-{}.jsonl".format((last or "2026-01-01T00:00")[:16].replace(":", "-"), (sid or "x")[:8])
print(sid or "")
print(name)
print((last or "")[:19].replace("T", " "))
PY
) || fail 2 "cannot read $INPUT"
SID=$(echo "$INFO" | sed -n 1p)
FILE=$(echo "$INFO" | sed -n 2p)
WHEN=$(echo "$INFO" | sed -n 3p)
[ -n "$SID" ] || fail 2 "$INPUT names no session id"
cp "$INPUT" "$BASE/home/.gemini/tmp/work/chats/$FILE"
printf '{\n  "projects": {\n    "%s": "work"\n  }\n}' "$BASE/work" > "$BASE/home/.gemini/projects.json"
printf '%s' "$BASE/work" > "$BASE/home/.gemini/tmp/work/.project_root"
GEMINI_FAKETIME=${WHEN:-} run_client "$BASE/home" "$BASE/work" "$BASE/view" --resume "$SID" -p "$PROMPT" --approval-mode yolo
status=$?
python3 - "$BASE/view" "$PROMPT" "${VIEW_BODY:-0}" <<'PY' || { echo "$NAME: the client sent no request (exit status $status)" >&2; tail -c 3000 "$BASE/view/client.err" >&2; exit 1; }
import json, os, sys
dump, prompt, whole = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
chosen = None
for name in sorted(os.listdir(dump)):
    if not name[:4].isdigit():
        continue
    entry = json.load(open(os.path.join(dump, name)))
    body = entry.get("body") or {}
    if not entry["path"].split("?")[0].endswith(":streamGenerateContent") or not body.get("tools"):
        continue
    last = (body.get("contents") or [{}])[-1]
    if last.get("role") == "user" and any(prompt in (p.get("text") or "") for p in last.get("parts") or []):
        chosen = body
        break
if chosen is None:
    sys.exit(1)
json.dump(chosen if whole else chosen["contents"], sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
PY
