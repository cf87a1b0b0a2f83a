#!/usr/bin/env python3
"""Helpers of the real-client harness (Python standard library only).

    realclient.py mock DUMP_DIR PORT_FILE [REPLY]   serve the loopback model API
                                                    (MOCK_SCRIPT=FILE: scripted replies, Messages or chat/completions)
    realclient.py claude-session FILE               session id to install a transcript under
    realclient.py codex-install FILE                JSON: thread id, rollout path, provider, model
    realclient.py copilot-session FILE              session id to install a Copilot CLI session under
    realclient.py pick claude|codex|pi|copilot DUMP_DIR PROMPT [--body]
                                                    print the model request the client sent
                                                    (pi's: the whole body)
    realclient.py turns claude DUMP_DIR [--body]   print the messages of every agent-turn
                                                    request (the ones offering tools), in order
    realclient.py normalise claude|codex|copilot [FILE]
                                                    drop what the client adds by itself

`pick` exits 3 when no model request was recorded. Nothing here reaches beyond 127.0.0.1.
"""
import gzip
import json
import os
import re
import sys
import threading
import time
import uuid
import zlib
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


# ---- reading session files ---------------------------------------------------------------------

def json_lines(path):
    """Every line of FILE that parses as JSON (a BOM, blank and broken lines are passed over, as
    the clients pass them over)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    for line in data.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            yield json.loads(line)
        except ValueError:
            pass


def claude_session(path):
    """Claude Code finds a transcript by its file name, which is the session id: keep the name
    when it is one, else use the first sessionId written in the file, else a new id."""
    name = os.path.basename(path)
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if re.fullmatch(UUID, stem):
        return stem
    for rec in json_lines(path):
        sid = rec.get("sessionId") if isinstance(rec, dict) else None
        if isinstance(sid, str) and re.fullmatch(UUID, sid):
            return sid
    return str(uuid.uuid4())


def copilot_session(path):
    """Copilot CLI resumes a session by the name of its folder under session-state/: the
    sessionId of the file's session.start (what the client named the folder when it wrote it),
    else a new id."""
    for rec in json_lines(path):
        data = rec.get("data") if isinstance(rec, dict) else None
        if rec.get("type") == "session.start" and isinstance(data, dict):
            sid = data.get("sessionId")
            if isinstance(sid, str) and re.fullmatch(UUID, sid):
                return sid
    return str(uuid.uuid4())


def codex_install(path):
    """Codex resumes a thread by id, found by scanning sessions/YYYY/MM/DD/rollout-STAMP-ID.jsonl:
    the id and start time come from the file's header (session_meta, or the bare header object
    of the 2025 format), the model from its last turn context."""
    thread = started = provider = model = None
    for n, rec in enumerate(json_lines(path)):
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        payload = rec.get("payload") if isinstance(rec.get("payload"), dict) else {}
        if kind == "session_meta" and thread is None:
            thread = payload.get("id") or payload.get("session_id")
            started = payload.get("timestamp") or rec.get("timestamp")
            provider = payload.get("model_provider")
        elif n == 0 and kind is None and "id" in rec:
            thread, started = rec.get("id"), rec.get("timestamp")
        elif kind == "turn_context" and payload.get("model"):
            model = payload["model"]
    named = re.search(r"rollout-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d)-(" + UUID + r")\.jsonl$", os.path.basename(path))
    if thread is None and named:
        thread = named.group(2)
    thread = thread or str(uuid.uuid4())
    if named and named.group(2) == thread:
        stamp = named.group(1)
    else:
        try:
            when = datetime.fromisoformat(str(started).replace("Z", "+00:00"))
        except ValueError:
            when = datetime.now(timezone.utc)
        stamp = when.strftime("%Y-%m-%dT%H-%M-%S")
    rel = "sessions/{}/{}/{}/rollout-{}-{}.jsonl".format(stamp[:4], stamp[5:7], stamp[8:10], stamp, thread)
    return {"id": thread, "relpath": rel, "provider": provider or "openai", "model": model}


# ---- the loopback model API --------------------------------------------------------------------

def event(name, data):
    return "event: {}\ndata: {}\n\n".format(name, json.dumps(data)).encode()


def load_script(path):
    """The scripted replies of MOCK_SCRIPT: a JSON array, one reply per agent-loop request, in
    order. A reply is a string (a text reply) or a list of Anthropic content blocks (`text`,
    `tool_use` with `name`, `input` and an optional `id`). A bad file stops the mock at once,
    so that a run never goes on with replies nobody wrote."""
    with open(path) as f:
        replies = json.load(f)
    if not isinstance(replies, list):
        raise ValueError("{}: a JSON array of replies is expected".format(path))
    out = []
    for n, reply in enumerate(replies):
        blocks = [{"type": "text", "text": reply}] if isinstance(reply, str) else reply
        if not isinstance(blocks, list) or not blocks:
            raise ValueError("{}: reply {} is neither a string nor a list of blocks".format(path, n))
        for i, b in enumerate(blocks):
            kind = b.get("type") if isinstance(b, dict) else None
            if kind == "text" and isinstance(b.get("text"), str):
                continue
            if kind == "tool_use" and isinstance(b.get("name"), str) and isinstance(b.get("input"), dict):
                # A fixed id: the recorded requests that answer it stay the same run after run.
                blocks[i] = {"type": "tool_use", "id": b.get("id") or "toolu_mock_{:02d}_{:02d}".format(n + 1, i),
                             "name": b["name"], "input": b["input"]}
                continue
            raise ValueError("{}: reply {} block {} is not a text or tool_use block".format(path, n, i))
        out.append(blocks)
    return out


def agent_loop(body):
    """Whether a Messages request is the agent's own turn, the one a script answers: it offers
    tools. The client's side requests (titles, quota checks) offer none and get the plain reply."""
    return isinstance(body.get("tools"), list) and len(body["tools"]) > 0


def block_events(index, block):
    """The SSE events that stream one content block, as the Messages API streams them."""
    if block["type"] == "tool_use":
        start = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    return [
        event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
        event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
        event("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


class ModelApi(BaseHTTPRequestHandler):
    """Records every request as DUMP/NNNN.json and answers like the two model APIs would, with a
    one-word reply that ends the turn, or, for the agent's turns of the Messages API, the next
    reply of a script (`script`, from MOCK_SCRIPT), then the one-word reply once it is used up."""

    protocol_version = "HTTP/1.1"
    dump = "."
    reply = "ok"
    script = []
    counter = [0]
    turns = [0]
    lock = threading.Lock()

    def next_blocks(self, body):
        """The content of the reply to BODY: the script's next reply on an agent turn, else text."""
        if self.script and agent_loop(body):
            with self.lock:
                n = self.turns[0]
                self.turns[0] += 1
            if n < len(self.script):
                return self.script[n]
        return [{"type": "text", "text": self.reply}]

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: {} {}\n".format(self.command, self.path))

    def body_bytes(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def save(self, raw):
        with self.lock:
            self.counter[0] += 1
            n = self.counter[0]
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        try:
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
            elif encoding == "zstd":
                import zstandard  # not in the standard library: used when installed

                raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        except Exception:
            pass
        entry = {"n": n, "t": time.time(), "method": self.command, "path": self.path,
                 "headers": dict(self.headers.items()), "body": None}
        if raw:
            try:
                entry["body"] = json.loads(raw)
            except ValueError:
                entry["raw"] = raw[:200000].decode("utf-8", "replace")
        tmp = os.path.join(self.dump, "{:04d}.json.part".format(n))
        with open(tmp, "w") as f:
            json.dump(entry, f)
        os.replace(tmp, tmp[: -len(".part")])
        return entry["body"] if isinstance(entry["body"], dict) else {}

    def answer(self, status, payload, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def stream(self, chunks, headers=()):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        for c in chunks:
            self.wfile.write(c)
            self.wfile.flush()
        self.close_connection = True

    def anthropic_messages(self, body):
        usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        message = {"id": "msg_mock_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                   "model": body.get("model", "claude-mock"), "content": [], "stop_reason": None,
                   "stop_sequence": None, "usage": usage}
        headers = [("request-id", "req_mock_" + uuid.uuid4().hex[:16]),
                   ("anthropic-ratelimit-unified-status", "allowed")]
        blocks = self.next_blocks(body)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        if not body.get("stream"):
            done = dict(message, content=blocks, stop_reason=stop)
            return self.answer(200, json.dumps(done).encode(), headers=headers)
        chunks = [event("message_start", {"type": "message_start", "message": message})]
        for i, b in enumerate(blocks):
            chunks += block_events(i, b)
        chunks += [
            event("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                    "delta": {"stop_reason": stop, "stop_sequence": None}}),
            event("message_stop", {"type": "message_stop"}),
        ]
        self.stream(chunks, headers)

    def openai_responses(self, body):
        item_id = "msg_mock_" + uuid.uuid4().hex[:20]
        response = {"id": "resp_mock_" + uuid.uuid4().hex[:20], "object": "response",
                    "created_at": int(time.time()), "model": body.get("model", "gpt-mock"),
                    "status": "in_progress", "output": []}
        part = {"type": "output_text", "text": self.reply, "annotations": []}
        item = {"type": "message", "id": item_id, "status": "completed", "role": "assistant", "content": [part]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 11}
        at = {"item_id": item_id, "output_index": 0, "content_index": 0}
        steps = [
            ("response.created", {"response": response}),
            ("response.in_progress", {"response": response}),
            ("response.output_item.added", {"output_index": 0,
                                            "item": dict(item, status="in_progress", content=[])}),
            ("response.content_part.added", dict(at, part=dict(part, text=""))),
            ("response.output_text.delta", dict(at, delta=self.reply)),
            ("response.output_text.done", dict(at, text=self.reply)),
            ("response.content_part.done", dict(at, part=part)),
            ("response.output_item.done", {"output_index": 0, "item": item}),
            ("response.completed", {"response": dict(response, status="completed", output=[item], usage=usage)}),
        ]
        self.stream([event(name, dict(data, type=name, sequence_number=i)) for i, (name, data) in enumerate(steps)],
                    [("x-request-id", "req_mock_" + uuid.uuid4().hex[:16])])

    def openai_chat(self, body):
        """A chat/completions answer (Copilot CLI's `openai` provider, pi's `openai-completions`,
        Qwen Code's `openai`): the reply (a script's next one on an agent turn, its `tool_use`
        blocks as `tool_calls`) streamed as chunks when asked, with the usage chunk the client
        reads last. MOCK_PROMPT_TOKENS sets the prompt tokens reported (a client compacts on
        what it is told it used)."""
        completion = {"id": "chatcmpl-mock" + uuid.uuid4().hex[:12], "created": int(time.time()),
                      "model": body.get("model", "gpt-mock")}
        prompt_tokens = int(os.environ.get("MOCK_PROMPT_TOKENS") or 10)
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1}
        blocks = self.next_blocks(body)
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        calls = [{"id": b["id"], "type": "function",
                  "function": {"name": b["name"], "arguments": json.dumps(b["input"])}}
                 for b in blocks if b["type"] == "tool_use"]
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            message = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            done = dict(completion, object="chat.completion", usage=usage,
                        choices=[{"index": 0, "message": message, "finish_reason": finish}])
            return self.answer(200, json.dumps(done).encode())
        chunk = dict(completion, object="chat.completion.chunk")

        def data(payload):
            return "data: {}\n\n".format(payload if isinstance(payload, str) else json.dumps(payload)).encode()

        delta = {"role": "assistant", "content": text}
        if calls:
            delta["tool_calls"] = [dict(c, index=i) for i, c in enumerate(calls)]
        self.stream([
            data(dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
            data(dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])),
            data(dict(chunk, choices=[], usage=usage)),
            data("[DONE]"),
        ])

    def do_POST(self):
        body = self.save(self.body_bytes())
        route = self.path.split("?")[0].rstrip("/")
        if route.endswith("/chat/completions"):
            return self.openai_chat(body)
        if route.endswith("/v1/messages/count_tokens"):
            return self.answer(200, b'{"input_tokens": 1000}')
        if route.endswith("/v1/messages"):
            return self.anthropic_messages(body)
        if route.endswith("/responses"):
            return self.openai_responses(body)
        if route.endswith("/chat/completions"):
            return self.openai_chat(body)
        self.answer(200, b"{}")

    def do_GET(self):
        self.save(b"")
        if (self.headers.get("Upgrade") or "").lower() == "websocket":
            # Codex tries a WebSocket first; a 426 sends it to plain HTTP at once (a 200 or a
            # dropped connection costs seconds of retries).
            return self.answer(426, b'{"error":{"message":"no websocket here"}}')
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            listing = {"object": "list", "models": [],
                       "data": [{"id": "gpt-mock", "object": "model", "created": 0, "owned_by": "mock"}]}
            return self.answer(200, json.dumps(listing).encode())
        self.answer(200, b"{}")

    def do_HEAD(self):
        self.save(b"")
        self.answer(200, b"")

    do_PUT = do_PATCH = do_DELETE = do_POST


def serve(dump, port_file, reply):
    os.makedirs(dump, exist_ok=True)
    ModelApi.dump, ModelApi.reply = dump, reply
    if os.environ.get("MOCK_SCRIPT"):
        ModelApi.script = load_script(os.environ["MOCK_SCRIPT"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), ModelApi)
    server.daemon_threads = True
    with open(port_file + ".part", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".part", port_file)  # the port appears whole, once listening
    server.serve_forever()


# ---- picking and normalising the request -------------------------------------------------------

def text_of(value):
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(text_of(value[k]) for k in ("text", "content") if isinstance(value.get(k), (str, list)))
    return ""


def dumped(dump):
    """The requests the mock wrote into `dump`, in the order they arrived (a file that is not
    JSON is passed over)."""
    for name in sorted(os.listdir(dump)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(dump, name)) as f:
                entry = json.load(f)
        except ValueError:
            continue
        yield entry


def pick(client, dump, prompt):
    """The request of the resumed turn: the first model request whose last user message holds the
    prompt (a client may send side requests first); else the first whose user messages after the
    history's last reply hold it and that lets the model call tools (Copilot CLI sends a reminder
    after the prompt, and may compact in the background meanwhile: that request ends with its own
    instruction and has `tool_choice: none`); else the largest. Returns (chosen, count)."""
    key = "input" if client == "codex" else "messages"
    route_of = {"claude": "/v1/messages", "codex": "/responses", "pi": "/chat/completions", "copilot": "/chat/completions",
                "qwen": "/chat/completions"}[client]
    requests = []
    for entry in dumped(dump):
        route = entry.get("path", "").split("?")[0]
        model_call = route.endswith(route_of)
        if entry.get("method") == "POST" and model_call and isinstance((entry.get("body") or {}).get(key), list):
            requests.append(entry)
    if not requests:
        return None, 0

    def last_user(entry):
        users = [m for m in entry["body"][key] if isinstance(m, dict) and m.get("role") == "user"]
        return users[-1] if users else None

    def trailing_users(entry):
        msgs = [m for m in entry["body"][key] if isinstance(m, dict)]
        tail = []
        for m in reversed(msgs):
            if m.get("role") != "user":
                break
            tail.append(m)
        return tail

    for entry in requests:
        if last_user(entry) is not None and prompt in text_of(last_user(entry)):
            return entry, len(requests)
    for entry in requests:
        if entry["body"].get("tool_choice") != "none" and any(prompt in text_of(m) for m in trailing_users(entry)):
            return entry, len(requests)
    return max(requests, key=lambda e: len(e["body"][key])), len(requests)


def turns(dump):
    """The Messages requests of the agent's own turns (they offer tools; agent_loop), in the
    order they arrived."""
    out = []
    for entry in dumped(dump):
        body = entry.get("body")
        if (entry.get("method") == "POST" and entry.get("path", "").split("?")[0].endswith("/v1/messages")
                and isinstance(body, dict) and isinstance(body.get("messages"), list) and agent_loop(body)):
            out.append(body)
    return out


def project_normaliser(client):
    """The project's normaliser of CLIENT's requests (scripts/claude-request.py `sent`,
    scripts/codex-request.py `history`, scripts/copilot-request.py `sent`): the one the recorded fixtures are checked with, kept
    in one place."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", client + "-request.py")
    spec = importlib.util.spec_from_file_location(client + "_request", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.history if client == "codex" else module.sent


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "mock":
        serve(args[0], args[1], args[2] if len(args) > 2 else "ok")
    elif cmd == "copilot-session":
        print(copilot_session(args[0]))
    elif cmd == "claude-session":
        print(claude_session(args[0]))
    elif cmd == "codex-install":
        print(json.dumps(codex_install(args[0])))
    elif cmd == "pick":
        client, dump, prompt = args[0], args[1], args[2]
        chosen, count = pick(client, dump, prompt)
        if chosen is None:
            seen = sorted(os.listdir(dump))
            sys.stderr.write("realclient: no model request among the {} requests recorded\n".format(len(seen)))
            sys.exit(3)
        if count > 1:
            sys.stderr.write("realclient: note: {} model requests; printing request #{}\n".format(count, chosen["n"]))
        body = chosen["body"]
        # pi's request is compared whole: its system prompt and tools are emulated too.
        out = body if "--body" in args or client == "pi" else body["input" if client == "codex" else "messages"]
        json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif cmd == "turns":
        bodies = turns(args[1])
        if not bodies:
            sys.stderr.write("realclient: no agent-turn request among those recorded\n")
            sys.exit(3)
        out = bodies if "--body" in args else [b["messages"] for b in bodies]
        json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif cmd == "normalise":
        client = args[0]
        data = json.load(open(args[1]) if len(args) > 1 else sys.stdin)
        if not isinstance(data, dict):  # the request's messages or input, not the whole body
            data = {"input" if client == "codex" else "messages": data}
        out = project_normaliser(client)(data["input"] if client == "codex" else data)
        json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.exit("realclient.py: unknown command {!r}\n{}".format(cmd, __doc__))


if __name__ == "__main__":
    main(sys.argv)
