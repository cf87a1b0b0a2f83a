#!/usr/bin/env python3
"""Normalises what the real Codex sent, as cctool's tests compare it (docs/codex-request.md).

  codex-request.py sent    < input.json  -> the history and the prompt, as `cctool rebuild-chain
                                            --api-view` prints them (fixtures/codex/api/)
  codex-request.py history < input.json  -> the history alone, as `cctool rebuild-chain` prints
                                            it (fixtures/codex/chain/)

The input is the request's `input` array or the whole request body (VIEW_BODY=1).

Codex puts its tool list (an `additional_tools` item, for some models) and its base instructions
(a developer message) first, and before the new prompt the context of the new turn
(permissions, skills, environment, AGENTS.md, model hints): all items that carry the prompt's
turn id, or, for the models that get no such metadata, the developer messages and the
`<environment_context>` message right before the prompt. Those describe the machine and the configuration, not the session: they are dropped,
and so is every item's `internal_chat_message_metadata_passthrough` and the prompt's `id` (a
fresh one each run). Ids of history items, and the ids Codex derives for the outputs it adds to
unanswered calls, are part of the request and kept.
"""
import json
import sys


def meta(item):
    return (item.get("internal_chat_message_metadata_passthrough") or {}) if isinstance(item, dict) else {}


def role(item):
    return item.get("role") if isinstance(item, dict) else None


def text(item):
    """The text of a user message's first part."""
    if role(item) != "user" or not isinstance(item.get("content"), list) or not item["content"]:
        return ""
    first = item["content"][0]
    return str(first.get("text", "")) if isinstance(first, dict) else ""


def sent(items):
    # Without the metadata, the base instructions are the first item (as tests/cli/codex_api.rs
    # normalises a live request too).
    base = next(
        (i for i, x in enumerate(items) if "model.base_instructions" in (meta(x).get("content_item_kinds") or [])),
        0,
    )
    items = items[base + 1:]
    if not items:
        return items
    prompt = items[-1]
    turn = meta(prompt).get("turn_id")
    if turn:
        out = [x for x in items[:-1] if meta(x).get("turn_id") != turn] + [prompt]
    else:
        # Some models get no metadata: the new turn's context is then the developer messages
        # and the <environment_context> message right before the prompt.
        out = items[:-1]
        while out and (role(out[-1]) == "developer" or text(out[-1]).startswith("<environment_context>")):
            out.pop()
        out.append(prompt)
    for x in out:
        if isinstance(x, dict):
            x.pop("internal_chat_message_metadata_passthrough", None)
    if isinstance(prompt, dict):
        prompt.pop("id", None)
    return out


def history(items):
    return sent(items)[:-1]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("sent", "history"):
        sys.exit("usage: codex-request.py sent|history < input.json")
    data = json.load(sys.stdin)
    if isinstance(data, dict):
        data = data["input"]
    out = sent(data) if mode == "sent" else history(data)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
