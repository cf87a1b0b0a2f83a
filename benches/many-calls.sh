#!/usr/bin/env bash
# Times `scan`, `doctor` and `rebuild-chain --api-view` of a session whose one turn makes N tool
# calls and gets N results, in every agent's format (Claude Code's, then converted by
# `cctool convert`), at N and at 4N. Work that grows with the session takes about 4 times as
# long at 4N; a pass that looks each call up in a list of them takes 16 times. A crafted file
# should cost what its size costs, and a real session of thousands of calls is no rarity.
#
#   benches/many-calls.sh [OUT_DIR] [N]      (default /tmp/cctool-bench-many-calls, 15000)
#
# Results: OUT_DIR/results.md, one row per agent and command: the seconds at N and 4N, and
# their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-bench-many-calls}
n=${2:-15000}
mkdir -p "$out"
command -v python3 > /dev/null || { echo "many-calls.sh: python3 is needed" >&2; exit 2; }
cargo build --release -q
bin=$PWD/target/release/cctool

# One user prompt, one assistant message of COUNT tool calls, one user message of their results.
session() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
count, path = int(sys.argv[1]), sys.argv[2]
base = {"sessionId": "s", "cwd": "/tmp", "version": "2.1.0"}
records = [
    dict(base, type="user", uuid="u0", parentUuid=None, timestamp="2026-01-01T00:00:00Z",
         message={"role": "user", "content": "run the checks"}),
    dict(base, type="assistant", uuid="u1", parentUuid="u0", timestamp="2026-01-01T00:00:01Z",
         message={"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                  "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                               "input": {"command": f"check {i}"}} for i in range(count)]}),
    dict(base, type="user", uuid="u2", parentUuid="u1", timestamp="2026-01-01T00:00:02Z",
         message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                               "content": "ok"} for i in range(count)]}),
]
with open(path, "w") as f:
    for r in records:
        f.write(json.dumps(r) + "\n")
EOF
}

# seconds CMD...: the wall time of one run (the files are small; the ratio is what is read).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}

for count in "$n" $((n * 4)); do
  src=$out/claude-code-$count.jsonl
  [ -f "$src" ] || session "$count" "$src"
  for agent in codex pi copilot gemini-cli qwen-code; do
    dest=$out/$agent-$count.jsonl
    [ -f "$dest" ] || "$bin" -q convert --to "$agent" -o "$dest" "$src" > /dev/null
  done
done

{
  echo "| agent | command | N = $n (s) | 4N (s) | 4N / N |"
  echo "|---|---|---:|---:|---:|"
} > "$out/results.md"
for agent in claude-code codex pi copilot gemini-cli qwen-code; do
  for cmd in scan doctor "rebuild-chain --api-view"; do
    # shellcheck disable=SC2086
    small=$(seconds "$bin" $cmd "$out/$agent-$n.jsonl")
    # shellcheck disable=SC2086
    large=$(seconds "$bin" $cmd "$out/$agent-$((n * 4)).jsonl")
    awk -v a="$agent" -v c="$cmd" -v s="$small" -v l="$large" \
      'BEGIN { printf "| %s | %s | %.3f | %.3f | %.1f |\n", a, c, s, l, (s > 0 ? l / s : 0) }' >> "$out/results.md"
  done
done
cat "$out/results.md"
