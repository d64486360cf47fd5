"""Which games' keys have not changed since this process read them, as Redis itself tells.

A view of a game that nobody moved is what clients poll most (a move now, the next one tomorrow), and each of
those reads cost a round trip to learn that nothing happened.  Redis's server-assisted client-side caching in
broadcast mode (``CLIENT TRACKING ... BCAST PREFIX``, https://redis.io/docs/latest/develop/reference/client-side-caching/)
sends this process the name of every key under the games' prefix that anyone changes, appends and compaction
and expiry and ``FLUSHDB`` alike.  A game whose fold this process read, and whose keys no message named since,
is still what Redis holds: its view needs no read.

How it stays right:

- **One connection, its own target.**  It turns tracking on redirected to itself, then subscribes to
  ``__redis__:invalidate``: the messages come on the connection that asked for them, so if they stop (the
  connection broke, Redis restarted, a failover) the connection is gone too, and with it every game this process
  held unchanged (:meth:`ChangeWatch._reset`).  Nothing is kept across a reconnection.
- **Read, then settle.**  A read takes a :class:`Ticket` before it asks Redis and settles after: the game counts
  as unchanged only if no message named it (and no reset happened) in between.  A change racing the read makes
  the next read ask again; it never makes a stale fold count as current.
- **Drained before it answers.**  Messages are read without a thread of their own: :meth:`ChangeWatch.unchanged`
  first takes every message already in the socket (one ``poll`` with no wait), so a change Redis sent before a
  request came is always seen by it.  Redis sends a broadcast change in the same turn of its event loop as the
  writer's reply (``beforeSleep``: broadcasts first, then the replies), so a client that saw its move accepted,
  and then asks this process for the view, finds the change already here unless the network held the change back
  longer than the whole way round through the writer and the client.
- **Heard from lately, or not trusted.**  A connection can die without a close (a host lost, a NAT or load
  balancer that drops an idle connection): nothing would arrive, and every game would look unchanged.  So the watch
  sends a ``PING`` down its subscription every :data:`PING_EVERY` seconds while it answers, and trusts what it holds
  only while Redis answered a ping sent within :data:`TRUSTED_FOR` seconds: a process back from idle reads until a
  pong comes, and one whose pong is :data:`DEAD_AFTER` seconds late starts its connection again.  A change held up
  on its way is so seen within those seconds at worst.
- **Games, or tokens.**  A watch follows one family of keys: the games' (``<prefix>game:{<id>}:...``, named by the
  game's id), or the tokens' lookup keys (``<prefix>token:<sha256>``, named by the digest), which
  :class:`~service.storage.players.PlayerStore` watches so that a token revoked, or an account deleted, stops
  working in every process at once while its lookup is cached (a process has one watch, one connection, of each).
- **Anything unknown reads.**  A Redis without tracking (fakeredis; a proxy that refuses ``CLIENT``), a cluster
  client (one tracking connection per primary is not built here), a connection that cannot be made: the watch
  is off, every read asks Redis as before.  A broken connection is made again at most every
  :data:`RETRY_AFTER` seconds, outside the lock (loads go on reading meanwhile), with short timeouts of its own.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis

log = logging.getLogger("red7.changes")

#: Seconds between attempts to make the watch's connection again after it broke or could not be made.
RETRY_AFTER = 1.0

#: Games held unchanged at most (the process's cache of folds holds no more): past it, they are all let go.
MOST_HELD = 20_000

#: Messages one answer takes at most: a process that served nothing for a while on a busy deployment finds a backlog
#: (Redis keeps up to 32 MB of it for a subscriber); rather than make one request parse it all, the watch lets the
#: connection go (forgetting every game) and makes a new one.
MOST_TAKEN = 2_000

#: Seconds between two pings down the subscription, while the process answers.
PING_EVERY = 1.0

#: What the watch holds is trusted only if Redis answered a ping sent within this many seconds.
TRUSTED_FOR = 3.0

#: A ping unanswered this long (seconds): the connection is taken for dead and made again.
DEAD_AFTER = 3.0

#: Seconds the watch's own connection may take to connect and to answer its setup (the store client's may be longer).
CONNECT_TIMEOUT = 2.0

CHANNEL = "__redis__:invalidate"

#: Errors that say this Redis cannot track at all (an unknown command, a user without the right): never asked again.
NOT_TRACKED = ("unknown command", "unknown subcommand", "noperm", "not allowed")


@dataclass(frozen=True, slots=True)
class Ticket:
    """Where the watch stood when a read began: its connection's life (``epoch``) and the messages seen (``seen``)."""

    epoch: int
    seen: int


class ChangeWatch:
    """The games under ``prefix`` whose keys this process read and nobody changed since (see the module)."""

    def __init__(self, client: redis.Redis, prefix: str, *, retry_after: float = RETRY_AFTER, family: str = "game") -> None:
        self.client = client
        self.family = family
        self.prefix = f"{prefix}{family}:"
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self._connection: Any = None
        self._pid = os.getpid()
        self._epoch = 0
        self._seen = 0  # messages taken on this connection
        self._next_try = 0.0
        self._connecting = False
        self._refused = False  # this Redis has no tracking (or refuses it): never asked again
        self._heard = 0.0  # Redis sent everything up to this time (monotonic s): the last ping it answered
        self._pinged: float | None = None  # when the ping not yet answered was sent
        self._unchanged: set[str] = set()
        self._reading: dict[str, int] = {}  # game -> reads in flight
        self._changed_while_read: dict[str, int] = {}  # game -> the message count when it last changed, while read

    @property
    def watching(self) -> bool:
        return self._connection is not None

    def ticket(self, stream: str) -> Ticket | None:
        """Before reading ``stream`` from Redis: where the watch stands (``None``: it is off, nothing will count)."""
        self._ensure()
        with self._lock:
            self._drain()
            if self._connection is None:
                return None
            self._reading[stream] = self._reading.get(stream, 0) + 1
            return Ticket(self._epoch, self._seen)

    def settle(self, stream: str, ticket: Ticket | None, *, current: bool = True) -> None:
        """After the read ``ticket`` began: the fold it gave counts as unchanged if nothing changed it meanwhile.

        ``current=False``: the read failed or gave nothing to hold; only its place among the reads is given back.
        """
        if ticket is None:
            return
        with self._lock:
            self._drain()
            changed_at = self._changed_while_read.get(stream)
            left = self._reading.get(stream, 1) - 1
            if left > 0:
                self._reading[stream] = left
            else:
                self._reading.pop(stream, None)
                self._changed_while_read.pop(stream, None)
            if not current or ticket.epoch != self._epoch or self._connection is None:
                return
            if changed_at is not None and changed_at > ticket.seen:
                return
            if len(self._unchanged) >= MOST_HELD:
                self._unchanged.clear()
            self._unchanged.add(stream)

    def unchanged(self, stream: str) -> bool:
        """Whether the last fold of ``stream`` this process settled is still what Redis holds (``False`` too while
        Redis was not heard from lately: see the module)."""
        self._ensure()
        with self._lock:
            self._drain()
            return stream in self._unchanged and time.monotonic() - self._heard <= TRUSTED_FOR

    def forget(self, stream: str) -> None:
        """This process's fold of ``stream`` was dropped: it counts as changed until read again."""
        with self._lock:
            self._unchanged.discard(stream)

    def close(self) -> None:
        with self._lock:
            self._reset()
            self._refused = True  # never made again

    # --- the connection ---------------------------------------------------------------------------------------------

    def _drain(self) -> None:
        """Take every message already here (never waiting for one), and ping when it is time (the lock held)."""
        self._leave_parents()
        connection = self._connection
        if connection is None:
            return
        now = time.monotonic()
        try:
            taken = 0
            while connection.can_read(timeout=0):
                if taken == MOST_TAKEN:
                    log.info("the watch of %s changes fell %d messages behind: starting it again", self.family, taken)
                    self._reset(at_once=True)
                    return
                self._take(connection.read_response(disconnect_on_error=False, push_request=True))
                taken += 1
            if self._pinged is not None and now - self._pinged > DEAD_AFTER:
                log.info("the watch of %s changes heard nothing for %.0f s: starting it again", self.family, now - self._pinged)
                self._reset(at_once=True)
                return
            if self._pinged is None and now - self._heard >= PING_EVERY:
                connection.send_command("PING")
                self._pinged = now
        except (redis.RedisError, OSError) as error:
            log.info("the watch of %s changes lost its connection (%s): reading every one until it is back", self.family, error)
            self._reset()

    def _take(self, message: Any) -> None:
        kind = _text(message[0]) if isinstance(message, list) and message else ""
        if kind == "pong" and self._pinged is not None:
            # Redis answered after the ping was sent, and every change it sent before the answer is here (one
            # ordered stream): heard from as of the ping, not as of now (the answer may have waited here a while).
            self._heard, self._pinged = self._pinged, None
        if kind != "message" or len(message) < 3:
            return  # a pong, or a subscription's confirmation
        self._seen += 1
        keys = message[2]
        if keys is None:  # FLUSHDB / FLUSHALL: everything changed
            self._unchanged.clear()
            for reading in self._reading:
                self._changed_while_read[reading] = self._seen
            return
        for key in keys if isinstance(keys, list) else [keys]:
            stream = self._stream_of(_text(key))
            if stream is None:
                continue
            self._unchanged.discard(stream)
            if stream in self._reading:
                self._changed_while_read[stream] = self._seen

    def _stream_of(self, key: str) -> str | None:
        """The game a key is of (``<prefix>game:{<id>}:<part>``), ``None`` for another key under the prefix; for the
        tokens' family, the digest a lookup key is of (``<prefix>token:<sha256>``)."""
        if not key.startswith(self.prefix):
            return None
        rest = key[len(self.prefix) :]
        if self.family != "game":
            return rest or None
        if not rest.startswith("{"):
            return None
        end = rest.find("}")
        return rest[1:end] if end > 0 else None

    def _ensure(self) -> None:
        """Make the connection if there is none and it is time to try: outside the lock, so that the loads of a
        process whose Redis answers slowly read meanwhile instead of queueing behind a connect."""
        with self._lock:
            self._leave_parents()
            if self._connection is not None or self._refused or self._connecting or time.monotonic() < self._next_try:
                return
            self._connecting = True
            self._next_try = time.monotonic() + self.retry_after
        connection = None
        try:
            connection = self._open()
        finally:
            with self._lock:
                self._connecting = False
                if connection is not None:
                    if self._refused or self._connection is not None:  # closed meanwhile
                        _close(connection)
                    else:
                        self._connection, self._seen, self._pinged = connection, 0, None
                        self._heard = time.monotonic()
                        self._epoch += 1

    def _open(self) -> Any:
        """A connection tracking the games' keys and subscribed to their changes, or ``None`` (it cannot be had now,
        or this Redis does not track: then never again)."""
        pool = getattr(self.client, "connection_pool", None)
        if pool is None or not hasattr(pool, "connection_kwargs"):
            self._refused = True  # a cluster client: no one connection sees every change
            return None
        connection = None
        try:
            # RESP2 whatever the client speaks: the changes then come as messages of the channel it subscribed to
            # (RESP3 would push them, parsed by handlers of redis-py's that differ from one release to the next).
            # Timeouts of its own: redis-py 5's default is to wait for ever.
            options = {**pool.connection_kwargs, "protocol": 2, "socket_keepalive": True}
            for name in ("socket_connect_timeout", "socket_timeout"):
                given = options.get(name)
                options[name] = CONNECT_TIMEOUT if given is None else min(given, CONNECT_TIMEOUT)
            connection = pool.connection_class(**options)
            connection.connect()
            connection.send_command("CLIENT", "ID")
            own_id = connection.read_response()
            connection.send_command("CLIENT", "TRACKING", "ON", "REDIRECT", own_id, "BCAST", "PREFIX", self.prefix)
            connection.read_response()
            connection.send_command("SUBSCRIBE", CHANNEL)
            connection.read_response(push_request=True)
        except redis.ResponseError as error:
            _close(connection)
            if any(words in str(error).lower() for words in NOT_TRACKED):
                log.info("this Redis does not track changes (%s): every game is read from it", error)
                self._refused = True
            else:
                log.info("the watch of %s changes was refused (%s): trying again in %.0f s", self.family, error, self.retry_after)
            return None
        except (redis.RedisError, OSError) as error:
            log.info(
                "the watch of %s changes could not connect (%s): trying again in %.0f s", self.family, error, self.retry_after
            )
            _close(connection)
            return None
        return connection

    def _reset(self, *, at_once: bool = False) -> None:
        """The connection is gone: no game is known unchanged, no read in flight may settle.  It is made again on the
        next load (``at_once``: a connection that works but fell behind or silent) or after :attr:`retry_after`."""
        _close(self._connection)
        self._connection, self._pinged = None, None
        self._epoch += 1
        self._unchanged.clear()
        self._changed_while_read.clear()
        if at_once:
            self._next_try = 0.0

    def _leave_parents(self) -> None:
        """In a forked child, let the parent's connection be (it is the parent's to use and close) and start afresh."""
        if self._pid != os.getpid():
            self._connection, self._pid = None, os.getpid()
            self._reset()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _close(connection: Any) -> None:
    if connection is None:
        return
    try:
        connection.disconnect()
    except Exception:  # a connection being let go: nothing more to do with it
        log.debug("closing the watch's connection failed", exc_info=True)
