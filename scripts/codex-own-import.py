#!/usr/bin/env python3
"""Runs Codex's own Claude Code importer (Codex 0.171, `codex app-server`,
`externalAgentConfig/detect` then `externalAgentConfig/import`) offline on one transcript, so its
result can be compared with `cctool convert --to codex` (docs/convert.md#codexs-own-importer).

    scripts/codex-own-import.py TRANSCRIPT.jsonl OUT_DIR

OUT_DIR becomes a fake home: the transcript is copied to OUT_DIR/.claude/projects/<slug of
OUT_DIR/work>/<session>.jsonl with its working directory rewritten to OUT_DIR/work and its dates
moved to today (the importer only detects recent sessions in its own store), and Codex writes its
rollout under OUT_DIR/.codex/sessions/ and its ledger OUT_DIR/.codex/external_agent_session_imports.json.
Run it again after appending to the copy to see what a second import does. The app server runs
with no network (`unshare -rn`) and a dummy key; the client is the one scripts/realclient/install.sh
installs (CODEX_BIN overrides it).
"""
import datetime
import glob
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], os.path.abspath(sys.argv[2])
    root = os.environ.get("CCTOOL_REALCLIENTS", os.path.expanduser("~/.cache/cctool-realclients"))
    codex = os.environ.get("CODEX_BIN") or next(iter(glob.glob(f"{root}/codex/node_modules/@openai/codex-linux-*/vendor/*/bin/codex")), None)
    if not codex:
        sys.exit("Codex is not installed (scripts/realclient/install.sh), or set CODEX_BIN")
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9]", "-", work)
    session = None
    today = datetime.date.today().isoformat()
    lines = []
    with open(src) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            session = session or r.get("sessionId")
            if "cwd" in r:
                r["cwd"] = work
            if isinstance(r.get("timestamp"), str):
                r["timestamp"] = today + r["timestamp"][10:]
            lines.append(json.dumps(r, separators=(",", ":")))
    proj = os.path.join(out, ".claude", "projects", slug)
    os.makedirs(proj, exist_ok=True)
    dest = os.path.join(proj, f"{session or 'session'}.jsonl")
    if not os.path.exists(dest):
        with open(dest, "w") as f:
            f.write("\n".join(lines) + "\n")
    env = {"HOME": out, "CODEX_HOME": os.path.join(out, ".codex"), "PATH": "/usr/bin:/bin", "CODEX_API_KEY": "dummy"}
    os.makedirs(env["CODEX_HOME"], exist_ok=True)
    wrap = ["unshare", "-rn"] if shutil.which("unshare") else []
    p = subprocess.Popen(wrap + [codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=open(os.path.join(out, "app-server.stderr"), "w"), env=env, cwd=work)

    def send(obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    def until(pred, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([p.stdout], [], [], 0.5)
            if r:
                line = p.stdout.readline()
                if not line:
                    break
                m = json.loads(line)
                if pred(m):
                    return m
        sys.exit("the app server did not answer in time")

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "cctool", "version": "0"}}})
    until(lambda m: m.get("id") == 1)
    send({"jsonrpc": "2.0", "method": "initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "externalAgentConfig/detect", "params": {"includeHome": True, "cwds": [work]}})
    items = [i for i in until(lambda m: m.get("id") == 2)["result"]["items"] if i["itemType"] == "SESSIONS"]
    send({"jsonrpc": "2.0", "id": 3, "method": "externalAgentConfig/import", "params": {"migrationItems": items}})
    done = until(lambda m: m.get("method") == "externalAgentConfig/import/completed")
    p.terminate()
    print(json.dumps(done["params"]["itemTypeResults"], indent=1))


main()
