#!/usr/bin/env python3
"""Places a Qwen Code session where the client finds it (standard library only).

    session.py install FILE QWEN_DIR CWD   copies FILE to QWEN_DIR/projects/<CWD, every
                                           character that is not a letter or digit as '-'>/
                                           chats/<id>.jsonl, every record's `cwd` made CWD;
                                           prints the id

The id is the first record's `sessionId`. The client loads a session only when its first
record's `cwd` is the folder it runs in (the project folder's `meta.json` is the memory's, which a
resume does not need); lines that are no JSON object are copied as they are.
"""
import json
import os
import re
import sys


def install(src, qwen, cwd):
    with open(src, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    sid = None
    for i, line in enumerate(lines):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if sid is None and isinstance(rec.get("sessionId"), str):
            sid = rec["sessionId"]
        if "cwd" in rec:
            rec["cwd"] = cwd
            lines[i] = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    if not sid or not re.fullmatch(r"[A-Za-z0-9_-]+", sid):
        sys.exit("session.py: {}: no usable sessionId".format(src))
    project = os.path.join(qwen, "projects", re.sub(r"[^a-zA-Z0-9]", "-", cwd))
    os.makedirs(os.path.join(project, "chats"), exist_ok=True)
    with open(os.path.join(project, "chats", sid + ".jsonl"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines))
    return sid


def main(argv):
    if len(argv) == 5 and argv[1] == "install":
        print(install(argv[2], argv[3], argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
