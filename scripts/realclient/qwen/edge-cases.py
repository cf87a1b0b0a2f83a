#!/usr/bin/env python3
"""Derives the hand-made Qwen Code fixtures from a recorded session (standard library only).

    edge-cases.py RECORDED.jsonl OUTDIR

RECORDED is a session of two turns, each with a tool call (record.sh's `ran-tools`). Writes:
  damaged.jsonl        two records written onto one line (a lost newline) and a last line cut
                       short, as a crash leaves it
  broken-parent.jsonl  the second prompt's parentUuid names no record
  branch.jsonl         a second branch from the end of the first turn, written last
  dangling-call.jsonl  the file ends at the second turn's tool call, before its result
  image.jsonl          the first prompt carries an image (a PNG of one pixel) after its text
  unanswered.jsonl     the file ends at the first prompt, before any reply: the new prompt
                       joins it in one user message (QW4)
  mixed-session.jsonl  a last record of another session (a file two runs wrote into); the
                       client refuses it, which its recording says with `null`
Each keeps the recorded records as they were written, but for what its name says; the request
the client sends resuming each is recorded by qwen-resume-view.sh (refresh: record.sh).
"""
import json
import os
import sys


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    lines = [l for l in open(argv[1], encoding="utf-8").read().split("\n") if l.strip()]
    recs = [json.loads(l) for l in lines]
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    prompts = [i for i, r in enumerate(recs) if r["type"] == "user"]
    calls = [i for i, r in enumerate(recs) if r["type"] == "assistant"
             and any("functionCall" in p for p in r["message"]["parts"])]
    second = prompts[1]

    def write(name, body):
        with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(body)

    glued = list(lines)
    glued[1:3] = [glued[1] + glued[2]]
    write("damaged", "\n".join(glued) + "\n" + lines[-1][: len(lines[-1]) // 2])

    broken = list(lines)
    rec = dict(recs[second], parentUuid="00000000-0000-4000-8000-00000000dead")
    broken[second] = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    write("broken-parent", "\n".join(broken) + "\n")

    fork = recs[second - 1]["uuid"]
    base = {k: recs[second][k] for k in ("sessionId", "cwd", "version")}
    user = dict(base, uuid="b0000000-0000-4000-8000-000000000001", parentUuid=fork,
                timestamp="2026-12-05T09:00:00.000Z", type="user", provenance="real_user",
                message={"role": "user", "parts": [{"text": "try the other way"}]})
    reply = dict(base, uuid="b0000000-0000-4000-8000-000000000002", parentUuid=user["uuid"],
                 timestamp="2026-12-05T09:00:01.000Z", type="assistant", provenance="assistant_output",
                 model="mock-model", message={"role": "model", "parts": [{"text": "Another way, then."}]})
    extra = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in (user, reply)]
    write("branch", "\n".join(lines + extra) + "\n")

    write("dangling-call", "\n".join(lines[: calls[1] + 1]) + "\n")

    pixel = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGA"
             "WjR9awAAAABJRU5ErkJggg==")
    pictured = list(lines)
    first = json.loads(lines[prompts[0]])
    first["message"]["parts"].append({"inlineData": {"mimeType": "image/png", "data": pixel}})
    pictured[prompts[0]] = json.dumps(first, ensure_ascii=False, separators=(",", ":"))
    write("image", "\n".join(pictured) + "\n")

    write("unanswered", "\n".join(lines[: prompts[0] + 1]) + "\n")

    other = dict(base, uuid="c0000000-0000-4000-8000-000000000001", parentUuid=None,
                 sessionId="c0000000-0000-4000-8000-0000000000ff", timestamp="2026-12-05T09:30:00.000Z",
                 type="user", provenance="real_user", message={"role": "user", "parts": [{"text": "hello"}]})
    write("mixed-session", "\n".join(lines + [json.dumps(other, ensure_ascii=False, separators=(",", ":"))]) + "\n")


if __name__ == "__main__":
    main(sys.argv)
