"""A local OpenAI-compatible HTTP stub: answers /v1/chat/completions from a script.

Used to drive ``langchain-openai``'s ``ChatOpenAI`` over real HTTP without any network.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], dict[str, Any] | str]
"""Given the request body, returns the assistant message content (str) or a full message."""


@contextmanager
def openai_stub(
    responder: Responder, props: dict[str, Any] | None = None
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Serve the stub on 127.0.0.1; yields (base_url, list of received request bodies).
    With ``props``, ``GET /props`` answers them (as llama.cpp's server does); without, any
    GET is answered 501.
    """
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        if props is not None:

            def do_GET(self) -> None:
                payload = json.dumps(props).encode()
                self.send_response(200 if self.path == "/props" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append(body)
            answer = responder(body)
            message = (
                answer
                if isinstance(answer, dict)
                else {
                    "role": "assistant",
                    "content": answer,
                }
            )
            payload = json.dumps(
                {
                    "id": f"chatcmpl-{len(received)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "stub"),
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    finally:
        server.shutdown()
        server.server_close()
