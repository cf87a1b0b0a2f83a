#!/usr/bin/env bash
# Times `scan`, `doctor` and `rebuild-chain --api-view` of two sessions of N tool calls, in
# every agent's format (Claude Code's, then converted by `cctool convert`), at N and at 4N: one
# turn that makes N calls and gets N results ("turn"), and N turns of a prompt, a call and its
# result, each prompt typed after the last result ("turns"). Work that grows with the session
# takes about 4 times as long at 4N; a pass that looks each call up in a list of them, or
# searches back through every turn, takes 16 times. A crafted file should cost what its size
# costs, and a real session of thousands of calls is no rarity.
#
#   benches/many-calls.sh [OUT_DIR] [N]      (default /tmp/cctool-bench-many-calls, 15000)
#
# Results: OUT_DIR/results.md, one row per shape, agent and command: the seconds at N and 4N,
# and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cctool-bench-many-calls}
n=${2:-15000}
mkdir -p "$out"
command -v python3 > /dev/null || { echo "many-calls.sh: python3 is needed" >&2; exit 2; }
cargo build --release -q
bin=$PWD/target/release/cctool

# session SHAPE COUNT PATH: "turn", one user prompt, one assistant message of COUNT tool calls,
# one user message of their results; "turns", COUNT prompts each answered by a call and its
# result.
session() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
shape, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = {"sessionId": "s", "cwd": "/tmp", "version": "2.1.0"}
records = []
def add(ty, message):
    n = len(records)
    records.append(dict(base, type=ty, uuid=f"u{n}", parentUuid=f"u{n - 1}" if n else None,
                        timestamp="2026-01-01T00:00:00Z", message=message))
def call(i):
    return {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": f"check {i}"}}
def result(i):
    return {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "ok"}
def reply(i, content):
    return {"id": f"msg_{i}", "role": "assistant", "model": "claude-sonnet-4-5", "content": content}
if shape == "turn":
    add("user", {"role": "user", "content": "run the checks"})
    add("assistant", reply(0, [call(i) for i in range(count)]))
    add("user", {"role": "user", "content": [result(i) for i in range(count)]})
else:
    for i in range(count):
        add("user", {"role": "user", "content": f"run check {i}"})
        add("assistant", reply(i, [{"type": "text", "text": f"running {i}"}, call(i)]))
        add("user", {"role": "user", "content": [result(i)]})
with open(path, "w") as f:
    for r in records:
        f.write(json.dumps(r) + "\n")
PY
}

# seconds CMD...: the wall time of one run (the files are small; the ratio is what is read).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}

for shape in turn turns; do
  for count in "$n" $((n * 4)); do
    src=$out/$shape-claude-code-$count.jsonl
    [ -f "$src" ] || session "$shape" "$count" "$src"
    for agent in codex pi copilot gemini-cli qwen-code; do
      dest=$out/$shape-$agent-$count.jsonl
      [ -f "$dest" ] || "$bin" -q convert --to "$agent" -o "$dest" "$src" > /dev/null
    done
  done
done

{
  echo "| shape | agent | command | N = $n (s) | 4N (s) | 4N / N |"
  echo "|---|---|---|---:|---:|---:|"
} > "$out/results.md"
for shape in turn turns; do
  for agent in claude-code codex pi copilot gemini-cli qwen-code; do
    for cmd in scan doctor "rebuild-chain --api-view"; do
      # shellcheck disable=SC2086
      small=$(seconds "$bin" $cmd "$out/$shape-$agent-$n.jsonl")
      # shellcheck disable=SC2086
      large=$(seconds "$bin" $cmd "$out/$shape-$agent-$((n * 4)).jsonl")
      awk -v h="$shape" -v a="$agent" -v c="$cmd" -v s="$small" -v l="$large" \
        'BEGIN { printf "| %s | %s | %s | %.3f | %.3f | %.1f |\n", h, a, c, s, l, (s > 0 ? l / s : 0) }' >> "$out/results.md"
    done
  done
done
cat "$out/results.md"
