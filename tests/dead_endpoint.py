"""A local TCP endpoint that accepts connections and never answers (a hung model server).

It counts the connections it accepted, so a test can tell how often a client called it
without timing anything.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class DeadEndpoint:
    """Where the endpoint listens, and the connections it has accepted (kept open)."""

    base_url: str
    accepted: list[socket.socket] = field(default_factory=list)

    @property
    def connections(self) -> int:
        """Connections accepted so far."""
        return len(self.accepted)


@contextmanager
def dead_endpoint() -> Iterator[DeadEndpoint]:
    """Listen on a free port of 127.0.0.1; accept every connection, read nothing, answer
    nothing; close them all on exit."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=512)
    listener.settimeout(0.05)
    endpoint = DeadEndpoint(f"http://127.0.0.1:{listener.getsockname()[1]}/v1")
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            endpoint.accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        stop.set()
        thread.join()
        listener.close()
        for conn in endpoint.accepted:
            conn.close()
