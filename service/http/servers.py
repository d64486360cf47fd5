"""What the HTTP servers answer by themselves, before the app sees a request, as problem+json like everything else.

A request whose header fields are too large, whose request line is too long or that is not HTTP at all never
reaches Flask: the server refuses it itself, and both servers did so with an HTML page (``red7 serve``'s werkzeug
answered a 100 KB ``Authorization`` header with a ``text/html`` 431).  A client switches on ``code`` and reads the
limit it broke from the answer, whichever server it met.  :class:`ProblemRequestHandler` is werkzeug's request
handler with that answer (``red7 serve`` runs it); ``service.processes.gunicorn_worker`` gives gunicorn's workers the same.

The limits differ by server, and each answer names its own: gunicorn takes a header field of up to 8190 bytes
(``limit_request_field_size``) and 100 fields; Python's ``http.server``, under werkzeug, 65536 bytes and 100.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any

from werkzeug.serving import WSGIRequestHandler

from service.http.problems import PROBLEM_JSON, problem

#: The problem code of each status a server answers by itself; other statuses keep the server's own answer.
SERVER_CODES = {400: "malformed_request", 414: "uri_too_long", 431: "headers_too_large"}


def server_problem(status: int, *, max_bytes: int, max_fields: int, request_line_bytes: int) -> dict[str, Any] | None:
    """The problem+json body a server answers ``status`` with by itself, naming its limits; ``None`` for a status it
    answers otherwise."""
    code = SERVER_CODES.get(status)
    if code is None:
        return None
    if code == "headers_too_large":
        detail = (
            f"A header field may be at most {max_bytes} bytes, and a request may carry at most {max_fields} "
            "of them; send a shorter one (a token is 46 characters)."
        )
        return problem(code, status, detail, max_bytes=max_bytes, max_fields=max_fields)
    if code == "uri_too_long":
        detail = f"The request line (method, path and query) may be at most {request_line_bytes} bytes."
        return problem(code, status, detail, max_bytes=request_line_bytes)
    return problem(code, status, "The request is not well-formed HTTP/1.1: the server could not read it.")


def problem_bytes(status: int, reason: str, body: dict[str, Any], *, head: bool = False) -> bytes:
    """A whole HTTP/1.1 response carrying ``body`` as problem+json, closing the connection."""
    content = json.dumps(body, separators=(",", ":")).encode()
    lines = [
        f"HTTP/1.1 {status} {reason}",
        "Connection: close",
        f"Content-Type: {PROBLEM_JSON}",
        f"Content-Length: {len(content)}",
        "X-Content-Type-Options: nosniff",
        "",
        "",
    ]
    return "\r\n".join(lines).encode("latin-1") + (b"" if head else content)


def drain(sock: socket.socket, seconds: float = 1.0, most: int = 1 << 20) -> None:
    """Read and drop what the client still sends (the rest of a header too large), briefly.

    A socket closed with unread bytes in its buffer makes the kernel send a reset, which can reach the client
    before it has read the answer: it would see a broken connection instead of the 431.
    """
    deadline = time.monotonic() + seconds
    read = 0
    try:
        sock.shutdown(socket.SHUT_WR)  # the answer is complete: the client sees the end of it
        while read < most and (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                return
            read += len(chunk)
    except OSError:
        return


class ProblemRequestHandler(WSGIRequestHandler):
    """werkzeug's request handler, answering what ``http.server`` refuses by itself as problem+json."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        body = server_problem(
            code,
            # what http.server reads of a header line, and how many it reads (private: typeshed leaves them out)
            max_bytes=getattr(http.client, "_MAXLINE", 65536),
            max_fields=getattr(http.client, "_MAXHEADERS", 100),
            request_line_bytes=65536,  # http.server's own limit (handle_one_request)
        )
        if body is None:
            super().send_error(code, message, explain)
            return
        self.log_error("code %d, message %s", code, message)
        self.close_connection = True
        reason = self.responses.get(code, ("",))[0]
        self.wfile.write(problem_bytes(code, reason, body, head=getattr(self, "command", "") == "HEAD"))
        self.wfile.flush()
        self.log_request(code)
        drain(self.connection)
