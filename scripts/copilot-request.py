#!/usr/bin/env python3
"""Normalises what the real GitHub Copilot CLI sent, as cctool's tests compare it (docs/copilot.md).

  copilot-request.py sent < body.json  -> the `messages` as `cctool rebuild-chain --api-view
                                          --prompt PROMPT` prints them (JSON array)

What only the resuming machine knows is taken out: the system prompt (GH1: the client's own,
with the tools, the working folder and the date) and the `<current_datetime>` prefix the client
gives the new prompt when it sends it (the time of the run). Every other message comes from
the file and is kept as sent.
"""
import json
import re
import sys

DATETIME = re.compile(r"\A<current_datetime>[^<]*</current_datetime>\n\n")


def sent(body):
    msgs = [m for m in body["messages"] if m.get("role") != "system"]
    if msgs and msgs[-1].get("role") == "user" and isinstance(msgs[-1].get("content"), str):
        msgs[-1] = dict(msgs[-1], content=DATETIME.sub("", msgs[-1]["content"], count=1))
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
