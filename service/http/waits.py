"""Open waits: how many long-polls and streams each token and each address holds open in this process, and how one
ends before its time.

Waiting is cheap on gevent (a greenlet each), but not free: without a cap one
client could open thousands and crowd everyone else out.  Counted per API
process (a waiting connection lives in one), so a client's cap across a
deployment is the cap times the processes its connections land on.

A cap must never lock out a client that no longer holds what it counts.  A
stream used to give its slot back only when a write to it failed (the second
keep-alive after the client left: up to 30 s), a long-poll only at the end of
its wait; a client whose connections dropped (a phone changing networks, a
killed tab) got 429 for that long.  So:

- a wait ends when its client closes the connection (:meth:`Wait.over`);
- a token at its cap does not get a 429: its new wait *replaces* its oldest
  one, which ends (a long-poll answers with what it has, a stream says
  ``event: replaced`` and closes).  A client that lost its connections is let
  in at once, and one that really holds too many loses its oldest wait, the one
  it is least likely still to want.

The per-address cap still refuses (429): many clients may share an address, and
one of them must not end another's waits.

How soon a wait ends depends on the server.  A wait blocks in a Redis read
(``XREAD BLOCK``), which nothing can cut short but an exception raised into it.
On gevent (gunicorn, production) a wait is told at once: the hub watches the
client's socket and raises :class:`WaitEnded` into the waiting greenlet when the
socket reads as closed or a newer wait replaces it, which costs nothing while
all is quiet (redis-py drops a connection a command was cut short on).  In
threads (``red7 serve``) nothing can be raised into a thread: there a wait reads
Redis in slices of :data:`CHECK_SECONDS` and looks at its socket between two.
"""

from __future__ import annotations

import select
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from service.http.problems import ApiError

#: In threads, how often a waiting long-poll or stream looks at its client (and whether it was replaced), in seconds.
CHECK_SECONDS = 1.0


class WaitEnded(Exception):
    """Raised into a greenlet blocked in a wait's read (gevent only): its client left, or a newer wait replaced it."""


class Wait:
    """One open long-poll or stream: whose it is, whether it should end before its time, and how it is told."""

    def __init__(self, token: str | None, address: str, environ: Mapping[str, Any] | None = None) -> None:
        self.token = token
        self.address = address
        self.replaced = False  # a newer wait of its token took its slot
        self.gone = False  # its client closed the connection
        #: The longest a read may block between two looks at the client (``None``: as long as it likes; it is told).
        self.every: float | None = CHECK_SECONDS
        self._counted = True  # its slot is still counted against its token and address
        self._environ: Mapping[str, Any] = environ or {}
        self._blocking = False  # inside a read that WaitEnded may cut short
        self._greenlet: Any = None
        self._watcher: Any = None
        self._hub: Any = None
        sock = client_socket(self._environ)
        gevent = _gevent()
        if gevent is not None and sock is not None:
            hub = self._hub = gevent.get_hub()
            self._greenlet = gevent.getcurrent()
            self._watcher = hub.loop.io(sock.fileno(), 1)  # 1: readable, as a closed socket is
            self._watcher.start(self._readable)
            self.every = None

    def over(self) -> bool:
        """Whether the wait should end before its time: a newer wait took its slot, or its client left."""
        if not (self.replaced or self.gone) and self._watcher is None and client_gone(self._environ):
            self.gone = True  # in threads: looked at now
        return self.replaced or self.gone

    @contextmanager
    def blocking(self) -> Iterator[None]:
        """Around a read that may be cut short (gevent): it ends, and :meth:`over` then says why."""
        self._blocking = True
        try:
            yield
        except WaitEnded:
            pass
        finally:
            self._blocking = False

    def end(self) -> None:
        """Tell the wait it should end (it was replaced): at once on gevent, at its next look in threads."""
        if self._hub is not None:
            self._hub.loop.run_callback(self._cut_short)  # from the hub: a greenlet thrown into returns to it

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher.close()
            self._watcher = None

    def _readable(self) -> None:
        """The hub's callback: the client's socket reads as closed, or it holds bytes the client sent after its request
        (then the wait looks at it every CHECK_SECONDS instead)."""
        try:
            gone = client_gone(self._environ)
        except Exception:  # never in the hub: a look that fails is a look that saw nothing
            gone = False
        self.close()
        if gone:
            self.gone = True
            self._cut_short()
        else:
            self.every = CHECK_SECONDS

    def _cut_short(self) -> None:
        if self._blocking and self._greenlet is not None and not self._greenlet.dead:
            self._greenlet.throw(WaitEnded())


class OpenWaits:
    def __init__(self, per_token: int, per_address: int) -> None:
        self.per_token = per_token
        self.per_address = per_address
        self._by_token: dict[str, dict[Wait, None]] = {}  # each token's open waits, oldest first
        self._by_address: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, token_key: str | None, address: str, environ: Mapping[str, Any] | None = None) -> Wait:
        """Count one more wait for the token (if any) and the address (``environ``: its request's, to watch its client).

        A token at its cap gets the slot of its oldest wait, which is told to end; an address at its cap is refused
        (429 too_many_waits) and ends nothing.
        """
        with self._lock:
            held = self._by_token.get(token_key) if token_key else None
            oldest = next(iter(held)) if held and self.per_token and len(held) >= self.per_token else None
            freed = 1 if oldest is not None and oldest.address == address else 0
            if self.per_address and self._by_address[address] - freed >= self.per_address:
                raise _refused(f"Your address holds {self.per_address} long-polls and streams open here already")
            if oldest is not None:
                oldest.replaced = True
                self._uncount(oldest)
            wait = Wait(token_key, address, environ)
            self._by_address[address] += 1
            if token_key:
                self._by_token.setdefault(token_key, {})[wait] = None
        if oldest is not None:
            oldest.end()
        return wait

    def give_back(self, wait: Wait) -> None:
        """The wait ended (however it did); its slot is free, unless a newer wait has it already."""
        wait.close()
        with self._lock:
            self._uncount(wait)

    def _uncount(self, wait: Wait) -> None:
        if not wait._counted:
            return
        wait._counted = False
        self._by_address[wait.address] -= 1
        if self._by_address[wait.address] <= 0:
            del self._by_address[wait.address]
        if wait.token is not None:
            held = self._by_token.get(wait.token, {})
            held.pop(wait, None)
            if not held:
                self._by_token.pop(wait.token, None)

    def open_for(self, token_key: str | None = None, address: str | None = None) -> int:
        """How many waits the token (or the address; or everyone) holds open now."""
        with self._lock:
            if token_key is not None:
                return len(self._by_token.get(token_key, ()))
            return self._by_address[address] if address is not None else sum(self._by_address.values())

    @contextmanager
    def held(self, token_key: str | None, address: str, environ: Mapping[str, Any] | None = None) -> Iterator[Wait]:
        wait = self.take(token_key, address, environ)
        try:
            yield wait
        finally:
            self.give_back(wait)


def _refused(why: str) -> ApiError:
    error = ApiError("too_many_waits", f"{why}; close one (or wait without it) and try again.")
    error.headers["Retry-After"] = "1"
    return error


# --- is the client still there? --------------------------------------------------------

#: The socket of the request's connection, by server: gunicorn's workers and werkzeug's server both hand it over.
SOCKET_KEYS = ("gunicorn.socket", "werkzeug.socket")
_HUNG_UP = (select.POLLHUP | select.POLLERR | select.POLLNVAL | getattr(select, "POLLRDHUP", 0)) if hasattr(select, "poll") else 0


def client_socket(environ: Mapping[str, Any]) -> Any:
    """The request's socket, or ``None`` where the server does not hand it over (a test client)."""
    return next((environ[key] for key in SOCKET_KEYS if environ.get(key) is not None), None)


def client_gone(environ: Mapping[str, Any]) -> bool:
    """Whether the client of this request has closed its connection (``False`` when the server does not say).

    A client that is gone leaves its socket readable at end-of-file (Linux also says so with ``POLLRDHUP``); one
    that is there leaves it quiet, or holding the next request it pipelined.  (One that shuts only its sending side
    down and still reads is taken for gone: HTTP clients do not.)  The look never blocks and reads nothing:
    ``poll`` with no timeout, then at most a peek at one byte.
    """
    sock = client_socket(environ)
    poll = _real_poll()
    if sock is None or poll is None:
        return False
    try:
        fd = sock.fileno()
    except (OSError, ValueError):
        return True
    if fd < 0:  # closed already
        return True
    poller = poll()
    poller.register(fd, select.POLLIN | _HUNG_UP)
    events = poller.poll(0)
    if not events:
        return False
    if events[0][1] & _HUNG_UP:
        return True
    try:  # readable: the end of the stream, or bytes the client sent after its request
        return bool(sock.recv(1, socket.MSG_PEEK) == b"")
    except (BlockingIOError, InterruptedError, ValueError):  # nothing after all; a TLS socket takes no flags
        return False
    except OSError:  # reset
        return True


def _gevent() -> Any:
    """The gevent module when this process runs on gevent (gunicorn's gevent workers patch the socket module), else
    ``None`` (gevent is a dependency of the deployment, not of the service)."""
    monkey = sys.modules.get("gevent.monkey")
    return sys.modules.get("gevent") if monkey is not None and monkey.is_module_patched("socket") else None


def _real_poll() -> Callable[[], Any] | None:
    """The system's ``select.poll`` (under gevent's monkey-patching too: its cooperative one waits on the hub; this
    look never waits at all), or ``None`` where there is none."""
    gevent_monkey = sys.modules.get("gevent.monkey")
    if gevent_monkey is not None and gevent_monkey.is_module_patched("select"):
        original: Callable[[], Any] = gevent_monkey.get_original("select", "poll")
        return original
    return getattr(select, "poll", None)
