"""Commands that must share one connection, on a standalone Redis and on a Redis Cluster alike.

``WAIT`` counts the replicas that hold the writes *of its own connection*: an
append and the ``WAIT`` that confirms it must go down one connection to the
primary that stored it.  A cluster client sends a keyless ``WAIT`` to every
primary and sums the answers, and its pipelines may use any pooled
connection, so on a cluster the commands go to the key's primary through that
node's own client.  That path bypasses the cluster client's redirections, so
it refreshes the slot map itself when the layout changed (a failover): the
command that met the change answers as a store error (503, ask again), or is
sent once more when Redis said ``MOVED`` (which executed nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import redis
from redis.cluster import RedisCluster
from redis.exceptions import ClusterDownError, MovedError

T = TypeVar("T")

#: Errors after which the slot map may be stale: the node is gone, or no longer serves the slot.
LAYOUT_CHANGED = (redis.ConnectionError, redis.TimeoutError, ClusterDownError, MovedError)


def on_one_connection(client: redis.Redis, key: str, work: Callable[[redis.client.Pipeline], T]) -> T:
    """``work(pipeline)`` on a non-transactional pipeline whose commands share one connection to ``key``'s primary."""
    if not isinstance(client, RedisCluster):
        with client.pipeline(transaction=False) as pipe:
            return work(pipe)
    for attempt in (1, 2):
        node = client.get_node_from_key(key)
        try:
            with client.get_redis_connection(node).pipeline(transaction=False) as pipe:
                return work(pipe)
        except LAYOUT_CHANGED as error:
            client.nodes_manager.initialize()  # learn who serves the slot now
            if attempt == 2 or not isinstance(error, MovedError):
                raise
    raise AssertionError("unreachable")  # for the type checker: the loop returns or raises
