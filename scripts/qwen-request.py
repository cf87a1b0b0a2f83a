#!/usr/bin/env python3
"""Normalises what the real Qwen Code sent, as cctool's tests compare it (docs/qwen.md).

  qwen-request.py sent < body.json  -> the `messages` as `cctool rebuild-chain --api-view
                                       --prompt PROMPT` prints them (JSON array)

What only the resuming machine knows is taken out: the system prompt (the client's own, with
its tools, the working folder and the memory files) and the `<system-reminder>` text parts the
client puts before the text of a user message it sends (QW6: the skills and deferred tools of
the install, the startup context with the date, the operating system and the folder, the date
before the new prompt). Every other message comes from the file and is kept as sent.
"""
import json
import sys

REMINDER = "<system-reminder>\n"


def without_reminders(m):
    content = m.get("content")
    if m.get("role") != "user" or not isinstance(content, list):
        return m
    kept = list(content)
    while kept and isinstance(kept[0], dict) and kept[0].get("type") == "text" \
            and str(kept[0].get("text", "")).startswith(REMINDER):
        kept.pop(0)
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
