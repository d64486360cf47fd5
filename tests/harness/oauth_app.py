"""An app that signs in with Red7, as far as the tests need one: its loopback listener for the redirect."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.harness.loopback import serving


@contextmanager
def app_listener() -> Iterator[str]:
    """A native app's loopback listener for its redirect (a free port, a page that says it is done): the code comes to
    the app, never to the service's own server, whose access log would hold it."""

    class Done(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"Signed in: you may close this window.")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the app logs no code either

    with serving(Done, "app-listener") as listener:
        yield f"{listener.base}/app/callback"
