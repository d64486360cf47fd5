"""gunicorn's gevent worker, answering what gunicorn refuses by itself (before the app) as problem+json.

gunicorn writes those answers (431 for a header field over ``limit_request_field_size``, 414 for a request line over
``limit_request_line``, 400 for what does not parse) as HTML pages.  This worker lets gunicorn decide the status, log
and count them as always, and changes only what is written: the problem of :mod:`service.http.servers`, naming the
limit.  Statuses it has no code for keep gunicorn's own answer.  ``service/processes/gunicorn_config.py`` names this class as
the ``worker_class``; gunicorn imports it in its master process, so it imports nothing of the app.

It also keeps redis-py's readiness checks off gevent's hub (:func:`quick_readiness_checks`).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
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


class _Poll:
    """``select.poll`` for redis-py's readiness checks under gevent: a check that waits for nothing (timeout 0) asks
    the kernel at once; one that waits goes through gevent's poll, which lets the other greenlets run meanwhile."""

    def __init__(self, hub_poll: Callable[[], Any], os_poll: Callable[[], Any]) -> None:
        self._hub_poll, self._os_poll = hub_poll, os_poll
        self._registered: list[tuple[Any, int]] = []

    def register(self, fd: Any, eventmask: int = 0) -> None:
        self._registered.append((fd, eventmask))

    def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
        poller = (self._os_poll if timeout == 0 else self._hub_poll)()
        for fd, mask in self._registered:
            poller.register(fd, mask)
        return list(poller.poll(timeout))


class _Select:
    """The ``select`` module as redis-py's hiredis parser sees it: itself, but for :class:`_Poll`."""

    def __init__(self, module: Any, os_poll: Callable[[], Any]) -> None:
        self._module, self._os_poll = module, os_poll

    def poll(self) -> _Poll:
        return _Poll(self._module.poll, self._os_poll)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def quick_readiness_checks() -> bool:
    """Let redis-py check that a pooled connection holds no stale reply without a round of gevent's hub.

    redis-py (with hiredis, from 8.x) asks ``select.poll`` with a timeout of 0 before every command, to see
    that the connection it takes from its pool has nothing left unread.  gevent's ``poll`` answers that through
    its hub, even for a timeout of 0: a switch to the hub and back, about 150 µs a command on a busy worker,
    and most of a view's Redis cost.  The kernel's poll answers the same at once and never blocks with a
    timeout of 0, so those checks go to it; any check that waits still goes through gevent.  ``True`` if it
    was needed (the gevent-patched ``select`` seen by a redis-py that polls), ``False`` if there was nothing to do.
    """
    try:
        from gevent import monkey  # type: ignore[import-untyped]
        from redis._parsers import hiredis
    except ImportError:
        return False
    module = getattr(hiredis, "select", None)
    if module is None or isinstance(module, _Select) or not hasattr(module, "poll"):
        return False
    if not monkey.is_module_patched("select"):
        return False
    hiredis.select = _Select(module, monkey.get_original("select", "poll"))  # type: ignore[assignment,attr-defined]
    return True


class ProblemGeventWorker(GeventWorker):  # type: ignore[misc]  # gunicorn ships no type information
    def patch(self) -> None:
        super().patch()
        quick_readiness_checks()

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
