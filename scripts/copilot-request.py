#!/usr/bin/env python3
"""Normalises what the real GitHub Copilot CLI sent, as cctool's tests compare it (docs/copilot.md).

  copilot-request.py sent < body.json  -> the `messages` as `cctool rebuild-chain --api-view
                                          --prompt PROMPT` prints them (JSON array)

What only the resuming machine knows is taken out: the system prompt (GH1: the client's own,
with the tools, the working folder and the date) and the `<current_datetime>` prefix the client
gives the new prompt when it sends it (the time of the run), which is the last message
with that prefix. Every other message comes from
the file and is kept as sent.
"""
import json
import re
import sys

DATETIME = re.compile(r"\A<current_datetime>[^<]*</current_datetime>\n\n")


def sent(body):
    msgs = [m for m in body["messages"] if m.get("role") != "system"]
    # The new prompt is the last message with the prefix: a reminder the client sends after it
    # (GH13) has none.
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if m.get("role") == "user" and isinstance(m.get("content"), str) and DATETIME.match(m["content"]):
            msgs[i] = dict(m, content=DATETIME.sub("", m["content"], count=1))
            break
    return msgs


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
