#!/bin/bash
# record-request-matrix.sh SAMPLES_DIR [SAMPLE...] > fixtures/claude/shared-requests.tsv
#
# Resumes every Claude Code transcript under SAMPLES_DIR/claude-code/ with the real client at
# each date (12:00 UTC) in two modes, and prints one fingerprint line per run (format:
# docs/claude-code-model.md, "The date/mode matrix"):
#   proxy        the harness's loopback base URL (another model's thinking is dropped)
#   first-party  _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1, as against api.anthropic.com
# DATES (default: 2026-11-29 2026-11-30 2027-01-22 and today) and PROMPT ("say ok") can be set;
# SAMPLE paths (under SAMPLES_DIR) restrict the run to those files.
# The real-client harness is ${CCTOOL_HARNESS:-<repo>/scripts/realclient}.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
harness=${CCTOOL_HARNESS:-$repo/scripts/realclient}
samples=${1:?usage: record-request-matrix.sh SAMPLES_DIR > fixtures/claude/shared-requests.tsv}
[ -x "$harness/cc-resume-view.sh" ] || { echo "record-request-matrix: no harness at $harness (set CCTOOL_HARNESS)" >&2; exit 2; }
dates=${DATES:-"2026-11-29 2026-11-30 2027-01-22 $(date -u +%F)"}
prompt=${PROMPT:-say ok}
samples=$(cd "$samples" && pwd)
shift
list() {
  if [ $# -gt 0 ]; then for r in "$@"; do echo "$samples/$r"; done
  else find "$samples/claude-code" -name '*.jsonl' | sort; fi
}
echo "# Requests the real Claude Code sent when resuming the shared samples: one line per file, date (12:00 UTC) and mode."
echo "# Recorded $(date -u +%FT%TZ) by scripts/record-request-matrix.sh with prompt \"$prompt\"; columns as docs/claude-code-model.md says."
printf 'sample\tdate\tmode\tmodel\tmessages\tthinking\tfnv1a64\n'
list "$@" | while read -r f; do
  rel=${f#"$samples"/}
  for d in $dates; do
    for mode in proxy first-party; do
      env_=
      [ "$mode" = first-party ] && env_=_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1
      if body=$(VIEW_BODY=1 VIEW_DATE=$d VIEW_ENV=$env_ bash "$harness/cc-resume-view.sh" "$f" "$prompt" 2>/dev/null); then
        fp=$(printf '%s' "$body" | python3 "$repo/scripts/claude-request.py" fingerprint)
      else
        fp=$(printf 'no-request\t0\t0\t-')
      fi
      printf '%s\t%s\t%s\t%s\n' "$rel" "$d" "$mode" "$fp"
    done
  done
done
