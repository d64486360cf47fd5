"""Waiting on a stream: who waits (:class:`Waiter`), and how long one blocking read may last on a client
(:func:`block_slice`), so that :meth:`~service.storage.events.store.EventStore.wait` never outlasts its socket."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Protocol

import redis
from redis.cluster import RedisCluster


class Waiter(Protocol):
    """Whoever waits on a stream, if it may have to stop before its time (an HTTP client that left).

    A blocking read cannot be interrupted but by an exception raised into it: ``blocking()`` wraps each read, and
    where the waiter can raise into it (gevent), it does, and swallows what it raised; elsewhere the reads last at
    most ``every`` seconds and ``over()`` is asked between two.
    """

    every: float | None

    def over(self) -> bool: ...

    def blocking(self) -> AbstractContextManager[None]: ...


#: Assumed when a client does not tell its socket timeout: redis-py's own default.
ASSUMED_SOCKET_TIMEOUT = 5.0


def block_slice(client: redis.Redis) -> float | None:
    """How long one blocking read may last on ``client``: well inside its socket timeout (``None``: no limit).

    The timeout is the one its connections get: what ``REDIS_URL`` or the
    caller set, else the connection class's default (redis-py 8: 5 s); on a
    cluster, the one of its nodes' connections.
    """
    timeout: float | None = ASSUMED_SOCKET_TIMEOUT
    with contextlib.suppress(Exception):  # a client of another shape: keep the assumption
        # A cluster client's nodes are clients of their own, all built with the cluster's connection options.
        node = client.get_default_node().redis_connection if isinstance(client, RedisCluster) else client
        pool = node.connection_pool
        timeout = pool.connection_class(**pool.connection_kwargs).socket_timeout  # built, never connected
    if not timeout:
        return None
    return timeout - 1.0 if timeout >= 2 else timeout / 2


def read_blocking(
    client: redis.Redis, streams: Mapping[str, str], timeout: float, waiter: Waiter | None, slice_: float | None
) -> bool:
    """Block up to ``timeout`` seconds until one of ``streams`` (each on one slot, by its id: an entry above it)
    holds an entry (``True``), in reads of at most ``slice_`` seconds (:func:`block_slice`); ``False`` when none came
    in time or ``waiter`` stopped the wait.  The one blocking loop of the game feeds and the player feeds."""
    deadline = time.monotonic() + timeout
    first = True
    while (left := deadline - time.monotonic()) > 0:
        block = min(left, slice_) if slice_ else left
        if waiter is None:
            if client.xread(dict(streams), count=1, block=max(1, int(block * 1000))):  # type: ignore[arg-type]
                return True
            continue
        if waiter.over():
            return False
        if waiter.every:  # the first slice of a random length: waits begun together do not all wake together
            block = min(block, waiter.every * (random.uniform(0.05, 1.0) if first else 1.0))
        first = False
        found = None
        with waiter.blocking():
            found = client.xread(dict(streams), count=1, block=max(1, int(block * 1000)))  # type: ignore[arg-type]
        if found:
            return True
    return False
