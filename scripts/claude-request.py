#!/usr/bin/env python3
"""Normalises what the real Claude Code sent, as cctool's tests compare it (docs/claude-code-model.md).

  claude-request.py sent        < body.json  -> the `messages` as cctool prints them (JSON array)
  claude-request.py body        < body.json  -> the body as `cctool rebuild-chain --api-view --body` prints it
  claude-request.py fingerprint < body.json  -> "MODEL<TAB>MESSAGES<TAB>THINKING<TAB>HASH"
  claude-request.py turn        < body.json  -> `sent`, reminders dropped from every user message
  claude-request.py mcp-tools   < body.json  -> the MCP servers' tools the request offers (mcp__*)

What only the resuming machine knows is taken out: the system prompt, tools and metadata; the
`<system-reminder>` blocks the client adds to the last user message; the text of the
environment block in `role:"system"` messages (replaced by cctool's marker); `cache_control`
and `is_error: false`. `sent` and `fingerprint` drop the system messages altogether.
`turn` is for a request later in a turn than the first (tool calls answered, as
scripts/realclient/cc-mcp-view.sh records them): the reminders the client adds to the prompt
stay in the prompt's message there, and they hold the date and the model.
The hash is FNV-1a (64 bit) of the messages as canonical JSON: keys sorted, no spaces, ASCII
with \\u escapes (Python's json.dumps(sort_keys=True, separators=(",", ":"))).
"""
import json
import sys

# Must equal claude_model::ENVIRONMENT_BLOCK.
ENVIRONMENT_BLOCK = (
    "# Environment\n[written by the client when it sends: working directory, platform and OS, "
    "model name and knowledge cutoff, deferred tools, agent types, skills, date]"
)


def clean(v):
    if isinstance(v, dict):
        v.pop("cache_control", None)
        if v.get("is_error") is False:
            del v["is_error"]
        for x in v.values():
            clean(x)
    elif isinstance(v, list):
        for x in v:
            clean(x)


def strip_reminders(msgs):
    users = [m for m in msgs if m.get("role") != "system"]
    if users and isinstance(users[-1].get("content"), list):
        users[-1]["content"] = [
            b for b in users[-1]["content"]
            if not (isinstance(b, dict) and b.get("type") == "text"
                    and str(b.get("text", "")).startswith("<system-reminder>"))
        ]


def sent(body):
    msgs = [m for m in body["messages"] if m.get("role") != "system"]
    strip_reminders(msgs)
    clean(msgs)
    return msgs


def whole(body):
    msgs = body["messages"]
    strip_reminders(msgs)
    for m in msgs:
        if m.get("role") == "system" and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "text":
                    wrapped = str(b.get("text", "")).startswith("<system-reminder>")
                    b["text"] = ("<system-reminder>\n%s\n</system-reminder>" % ENVIRONMENT_BLOCK) if wrapped else ENVIRONMENT_BLOCK
    clean(msgs)
    out = {"model": body.get("model"), "messages": msgs}
    for k in ("max_tokens", "thinking", "context_management", "output_config"):
        if k in body:
            out[k] = body[k]
    return out


def turn(body):
    msgs = sent(body)
    for m in msgs:
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            m["content"] = [
                b for b in m["content"]
                if not (isinstance(b, dict) and b.get("type") == "text"
                        and str(b.get("text", "")).startswith("<system-reminder>"))
            ]
    return msgs


def mcp_tools(body):
    tools = [t for t in body.get("tools") or [] if str(t.get("name", "")).startswith("mcp__")]
    clean(tools)
    return tools


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def fingerprint(body):
    msgs = sent(body)
    thinking = sum(
        1 for m in msgs if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"] if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")
    )
    canon = json.dumps(msgs, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "%s\t%d\t%d\t%s" % (body.get("model"), len(msgs), thinking, fnv1a64(canon.encode("ascii")))


def main():
    body = json.load(sys.stdin)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "sent":
        json.dump(sent(body), sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif mode == "body":
        json.dump(whole(body), sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif mode == "fingerprint":
        print(fingerprint(body))
    elif mode in ("turn", "mcp-tools"):
        json.dump((turn if mode == "turn" else mcp_tools)(body), sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        sys.exit("usage: claude-request.py sent|body|fingerprint|turn|mcp-tools < body.json")


if __name__ == "__main__":
    main()
