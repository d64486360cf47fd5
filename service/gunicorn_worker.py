"""gunicorn's gevent worker, answering what gunicorn refuses by itself (before the app) as problem+json.

gunicorn writes those answers (431 for a header field over ``limit_request_field_size``, 414 for a request line over
``limit_request_line``, 400 for what does not parse) as HTML pages.  This worker lets gunicorn decide the status, log
and count them as always, and changes only what is written: the problem of :mod:`service.http.servers`, naming the
limit.  Statuses it has no code for keep gunicorn's own answer.  ``service/gunicorn_config.py`` names this class as
the ``worker_class``; gunicorn imports it in its master process, so it imports nothing of the app.
"""

from __future__ import annotations

import re
import socket
from typing import Any

from gunicorn.workers.ggevent import GeventWorker

from service.http.servers import drain, problem_bytes, server_problem

_STATUS_LINE = re.compile(rb"^HTTP/1\.[01] (\d{3}) ([^\r\n]*)")


class _Answer:
    """The client's socket, keeping what gunicorn writes to it instead of sending it."""

    def __init__(self, client: socket.socket) -> None:
        self.client = client
        self.written = b""

    def sendall(self, data: bytes) -> None:
        self.written += data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class ProblemGeventWorker(GeventWorker):  # type: ignore[misc]  # gunicorn ships no type information
    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        answer = _Answer(client)
        super().handle_error(req, answer, addr, exc)
        found = _STATUS_LINE.match(answer.written)
        body = None
        if found is not None:
            status = int(found.group(1))
            body = server_problem(
                status,
                max_bytes=self.cfg.limit_request_field_size,
                max_fields=self.cfg.limit_request_fields,
                request_line_bytes=self.cfg.limit_request_line,
            )
        try:
            if body is None or found is None:
                client.sendall(answer.written)
                return
            client.sendall(problem_bytes(status, found.group(2).decode("latin-1"), body))
            drain(client)
        except OSError:
            self.log.debug("Failed to send error message.")
