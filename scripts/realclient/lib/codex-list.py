#!/usr/bin/env python3
"""codex-list.py CODEX_BIN [--all]: starts `codex app-server` on a pipe and asks it for the
sessions it lists, the way its resume picker asks: `initialize`, then `thread/list` for the
current folder (every folder with --all), interactive sources, newest first. Prints the `data` array of the answer as JSON.

Exit status 0, or 1 when the server answered with an error or not at all.
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        print("usage: codex-list.py CODEX_BIN [--all]", file=sys.stderr)
        return 2
    every = "--all" in argv[2:]
    proc = subprocess.Popen(
        [argv[1], "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def send(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def answer(want):
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == want:
                return msg
        return None

    try:
        send({"id": 1, "method": "initialize",
              "params": {"clientInfo": {"name": "cctool-realclient", "version": "0"}}})
        if answer(1) is None:
            print("codex-list: no answer to initialize", file=sys.stderr)
            return 1
        send({"method": "initialized"})
        params = {"limit": 100}
        if not every:
            params["cwd"] = os.getcwd()
        send({"id": 2, "method": "thread/list", "params": params})
        msg = answer(2)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    if msg is None or "error" in msg:
        print(f"codex-list: thread/list failed: {msg and msg.get('error')}", file=sys.stderr)
        return 1
    json.dump(msg["result"].get("data", []), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
