"""An HTTP server of the tests' own on loopback: a webhook receiver, a push service, an app's redirect listener.

Each binds 127.0.0.1 on a port the kernel picks (tests run side by side), answers each request on a daemon thread
(a handler left hanging never holds the test's process open), and is stopped by the test that started it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """``handler`` served on loopback from now until :meth:`close`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], name: str = "loopback-server") -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True, name=name)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler], name: str = "loopback-server") -> Iterator[LoopbackServer]:
    """A :class:`LoopbackServer` for the ``with`` block."""
    server = LoopbackServer(handler, name)
    try:
        yield server
    finally:
        server.close()
