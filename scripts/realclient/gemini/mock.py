#!/usr/bin/env python3
"""The Gemini API on 127.0.0.1, for recording what the Gemini CLI writes and sends.

usage: mock.py DUMP PORTFILE [REPLY]

Every request is written to DUMP/NNNN.json ({n, method, path, body}). Answers, in order of the
conversation's last turn: a function response gets the text "done"; a prompt that holds RUNTOOL
gets a call of run_shell_command (`echo hi`) when the client offers it; a request for JSON (the
client's side questions: next speaker, routing) gets an object made from its schema; anything else
gets REPLY. The usage it reports is MOCK_TOKENS prompt tokens (default 10): a large value makes the
client compress on its next turn.
"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNT = [0]


def from_schema(schema, name=""):
    """A value that fits SCHEMA (Gemini's upper-case types and JSON Schema's lower-case ones)."""
    if not isinstance(schema, dict):
        return "mock"
    if schema.get("enum"):
        return schema["enum"][0]
    for k in ("anyOf", "oneOf"):
        if schema.get(k):
            return from_schema(schema[k][0], name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "string")
    kind = str(kind or ("object" if "properties" in schema else "string")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        need = schema.get("required") or list(props)
        return {k: from_schema(v, k) for k, v in props.items() if k in need}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 1
    return {"next_speaker": "user", "reasoning": "done"}.get(name, "mock")


def offered(body):
    names = set()
    for tool in body.get("tools") or []:
        for decl in (tool or {}).get("functionDeclarations") or []:
            names.add(decl.get("name"))
    return names


def reply_parts(body, reply):
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    parts = [p for p in last.get("parts") or [] if isinstance(p, dict)]
    if any("functionResponse" in p for p in parts):
        return [{"text": "done"}]
    text = " ".join(p.get("text", "") for p in parts)
    if "RUNTOOL" in text and "run_shell_command" in offered(body):
        return [{"functionCall": {"name": "run_shell_command",
                                  "args": {"command": "echo hi", "description": "print hi"}}}]
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        return [{"text": json.dumps(from_schema(schema))}]
    return [{"text": reply}]


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    dump = "."
    reply = "ok"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: {} {}\n".format(self.command, self.path))

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def save(self, body):
        with LOCK:
            COUNT[0] += 1
            n = COUNT[0]
        path = os.path.join(self.dump, "{:04d}.json".format(n))
        with open(path + ".part", "w") as f:
            json.dump({"n": n, "method": self.command, "path": self.path, "body": body}, f)
        os.replace(path + ".part", path)

    def send(self, payload, ctype="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.read_body()
        self.save(body)
        route = self.path.split("?")[0]
        if route.endswith(":countTokens"):
            return self.send({"totalTokens": 10})
        if not (route.endswith(":generateContent") or route.endswith(":streamGenerateContent")):
            return self.send(b"{}")
        tokens = int(os.environ.get("MOCK_TOKENS", "10"))
        answer = {"candidates": [{"content": {"role": "model", "parts": reply_parts(body or {}, self.reply)},
                                  "finishReason": "STOP", "index": 0}],
                  "usageMetadata": {"promptTokenCount": tokens, "candidatesTokenCount": 1,
                                    "totalTokenCount": tokens + 1},
                  "modelVersion": "gemini-mock", "responseId": "mock{:04d}".format(COUNT[0])}
        if route.endswith(":streamGenerateContent"):
            return self.send(("data: " + json.dumps(answer) + "\r\n\r\n").encode(), "text/event-stream")
        self.send(answer)

    def do_GET(self):
        self.save(None)
        self.send(b"{}")


def main():
    dump, port_file = sys.argv[1], sys.argv[2]
    Api.dump, Api.reply = dump, (sys.argv[3] if len(sys.argv) > 3 else "ok")
    os.makedirs(dump, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    server.daemon_threads = True
    with open(port_file + ".part", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".part", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
