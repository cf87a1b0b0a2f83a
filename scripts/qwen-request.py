#!/usr/bin/env python3
"""Normalises what the real Qwen Code sent, as cctool's tests compare it (docs/qwen.md).

  qwen-request.py sent < body.json  -> the `messages` as `cctool rebuild-chain --api-view
                                       --prompt PROMPT` prints them (JSON array)

What only the resuming machine knows is taken out: the system prompt (the client's own, with
its tools, the working folder and the memory files) and the `<system-reminder>` text parts the
client writes into the user messages it sends (QW6: the skills and deferred tools of the
install, the startup context with the date, the operating system and the folder, the date
before the new prompt), told by how each begins. Every other message comes from the file and
is kept as sent.
"""
import json
import sys

# The reminders the client writes itself, by how each begins: the install's skills, the startup
# context (date, system, folder), the deferred tools, the date before the new prompt.
CLIENT_REMINDERS = (
    "<system-reminder>\nThe following skills are available",
    "<system-reminder>\nThis is the Qwen Code.",
    "<system-reminder>\nThe following tools are reachable",
    "<system-reminder>\nThe current date is:",
)


def without_reminders(m):
    content = m.get("content")
    if m.get("role") != "user" or not isinstance(content, list):
        return m
    kept = [p for p in content if not (isinstance(p, dict) and p.get("type") == "text"
                                       and str(p.get("text", "")).startswith(CLIENT_REMINDERS))]
    return dict(m, content=kept)


def sent(body):
    msgs = [without_reminders(m) for m in body["messages"] if m.get("role") != "system"]
    # A history that opens with the model's turn leaves the client's context alone in the first
    # user message: nothing of the file is in it.
    return [m for m in msgs if not (m.get("role") == "user" and m.get("content") == [])]


def main(argv):
    if len(argv) != 2 or argv[1] != "sent":
        sys.exit(__doc__)
    body = json.load(sys.stdin)
    if isinstance(body, list):  # the messages alone, not the whole body
        body = {"messages": body}
    json.dump(sent(body), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
