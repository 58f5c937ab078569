"""A real chat-completions server on loopback for the LLM tests: it serves a script of steps in the
order requests arrive (answers, HTTP errors, stalls) and records every request it received."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    """One scripted reply: an answer (200), or an HTTP error; `delay_s` stalls before replying."""

    text: str | None = None
    status: int = 200
    error: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    usage: bool = True


def answer(text: str, **kw: Any) -> Step:
    return Step(text=text, **kw)


def failure(status: int, message: str, **kw: Any) -> Step:
    return Step(status=status, error=message, **kw)


def count_tokens(text: str) -> int:
    """The server's deterministic token count: whitespace-separated words."""
    return len(text.split())


class ChatServer:
    def __init__(self, script: list[Step]):
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []  # body, headers, path, and the step served
        self.usage_served = {"prompt_tokens": 0, "completion_tokens": 0}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    step = server.script.pop(0) if server.script else failure(
                        500, "the test script has no more steps")
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    server.requests.append({"path": self.path, "body": body,
                                            "headers": headers, "step": step})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    step = failure(404, f"no route {self.path}")
                if step.delay_s:
                    time.sleep(step.delay_s)
                if step.status != 200:
                    self._send(step.status, {"error": {"message": step.error, "type": "test",
                                                       "code": None}}, step.headers)
                    return
                prompt = sum(count_tokens(m.get("content") or "") for m in body["messages"])
                completion = count_tokens(step.text or "")
                reply = {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", "test"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": step.text}}],
                }
                if step.usage:
                    reply["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                                      "total_tokens": prompt + completion}
                    with server._lock:
                        server.usage_served["prompt_tokens"] += prompt
                        server.usage_served["completion_tokens"] += completion
                self._send(200, reply, step.headers)

            def _send(self, status: int, payload: dict, headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left: that is what the stall was for

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def user_prompts(self) -> list[str]:
        """The user message of every chat request received, in arrival order."""
        return [next(m["content"] for m in r["body"]["messages"] if m["role"] == "user")
                for r in self.requests]

    def __enter__(self) -> "ChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
