"""A webhook receiver on loopback for tests and the soak: it notes each delivery (when, and its JSON body) and may
hang before it answers, as a slow or dead endpoint of a player's does."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.harness.loopback import LoopbackServer


class WebhookReceiver:
    """Answers every POST with 200, after :attr:`hang` seconds (0: at once) or as soon as it is released.

    ``hang`` may change while it runs (the soak's nemesis hangs it for a while): :meth:`hold` and :meth:`release`
    do that for deliveries already waiting too."""

    def __init__(self, hang: float = 0.0) -> None:
        self.hang = hang
        self.calls: list[tuple[float, Any]] = []
        self._released = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    parsed: Any = json.loads(body)
                except ValueError:
                    parsed = None
                receiver.calls.append((time.time(), parsed))
                if receiver.hang:
                    receiver._released.wait(receiver.hang)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = LoopbackServer(Handler, "webhook-receiver")

    @property
    def url(self) -> str:
        return f"{self.server.base}/hook"

    @property
    def received(self) -> int:
        return len(self.calls)

    def hold(self, seconds: float) -> None:
        """Hang every delivery from now on for up to ``seconds``."""
        self._released.clear()
        self.hang = seconds

    def release(self) -> None:
        """Answer at once again, the deliveries hanging now included."""
        self.hang = 0.0
        self._released.set()

    def close(self) -> None:
        self._released.set()
        self.server.close()
