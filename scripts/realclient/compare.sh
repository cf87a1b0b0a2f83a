#!/usr/bin/env bash
# compare.sh OTHER_HARNESS FILE...
#
# Runs this harness and another one with the same interface (another checkout's
# scripts/realclient, say, before and after a change) on each FILE and says whether the two
# requests are the same. What legitimately differs between two runs is masked first: the run
# directory's name, the ids and turn metadata the client makes up, today's date. A Claude Code
# transcript goes to cc-resume-view.sh, a Codex rollout (a file with a `session_meta` record or
# the 2025 header) to codex-resume-view.sh. Exit 1 when any file differs or fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: compare.sh OTHER_HARNESS FILE..." >&2; exit 2; }
OTHER=$(cd "$1" && pwd) || exit 2
shift

mask() {
  python3 - "$1" <<'EOF'
import json, re, sys
text = json.dumps(json.load(open(sys.argv[1])), indent=1, ensure_ascii=False, sort_keys=True)
text = re.sub(r"runs/(cc|codex)\.[A-Za-z0-9]{6}", "runs/RUN", text)
text = re.sub(r"runs/RUN/codex-?home", "runs/RUN/CODEX_HOME", text)
text = re.sub(r"msg_[0-9a-f-]{36}", "msg_ID", text)
text = re.sub(r'"(turn_id|create_time)": [^,\n]+', r'"\1": X', text)
text = re.sub(r"\d{4}-\d\d-\d\d", "DATE", text)
print(text)
EOF
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for f in "$@"; do
  if grep -q '"session_meta"' "$f" || head -n 1 "$f" | grep -q '"instructions"'; then
    script=codex-resume-view.sh
  else
    script=cc-resume-view.sh
  fi
  "$HERE/$script" "$f" > "$scratch/a.json" 2> "$scratch/a.err"; a=$?
  "$OTHER/$script" "$f" > "$scratch/b.json" 2> "$scratch/b.err"; b=$?
  if [ $a != $b ]; then
    echo "DIFFERS  $f (exit $a here, $b there)"; status=1
  elif [ $a != 0 ]; then
    echo "SAME     $f (both: no request, exit $a)"
  elif diff <(mask "$scratch/a.json") <(mask "$scratch/b.json") > "$scratch/diff"; then
    echo "SAME     $f"
  else
    echo "DIFFERS  $f"; head -n 40 "$scratch/diff"; status=1
  fi
done
exit $status
