"""Redis clients from URLs: the stores' Redis (standalone or a Redis Cluster) and the queue's (standalone or Sentinel).

Two Redis roles, because RQ cannot run on a cluster (rq/rq#862) while the
stores scale out on one:

- the *stores* (games, players and tokens, stream tickets, replays, the rate
  limits): ``redis://``, ``rediss://``, ``unix://``, or
  ``redis+cluster://[[user]:password@]host:port[,host:port…]`` (TLS:
  ``rediss+cluster://…[?ssl_ca_certs=…&ssl_certfile=…&ssl_keyfile=…&ssl_cert_reqs=…]``,
  as managed clusters with encryption in transit ask).  Every transaction and
  script of a store touches the keys of one hash tag, so one slot.
- the *queue* (RQ, the dispatcher's job markers, the agenda, the AI shares, the
  workers' pulses, the ticker's role): ``redis://``, ``rediss://``, ``unix://``, or
  ``redis+sentinel://[[user]:password@]host:port[,host:port…]/service_name[/db]``.
  These are sorted sets and lists read across games, which a cluster could not
  serve without a scan of every node; one standalone Redis (or a Sentinel-watched
  primary) holds them — or several, each serving its share of the games
  (``RED7_QUEUE_URL`` naming a comma-separated list: ``service/jobqueue/shards.py``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import parse_qsl, unquote

import redis
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.sentinel import Sentinel

from service.common import roundtrips

CLUSTER_SCHEME = "redis+cluster://"
TLS_CLUSTER_SCHEME = "rediss+cluster://"
SENTINEL_SCHEME = "redis+sentinel://"

#: What a ``rediss+cluster://`` URL may say of TLS in its query, as ``rediss://`` URLs say it (redis-py's names).
TLS_OPTIONS = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs", "ssl_check_hostname")
_CERT_REQS = ("none", "optional", "required")


#: The players' store writes in transactions on one slot, which redis-py's cluster client runs from 6.1 on
#: (before, ``pipeline(transaction=True)`` on a cluster raises).
CLUSTER_TRANSACTIONS = "transaction" in inspect.signature(ClusterPipeline.__init__).parameters


class BadRedisUrl(ValueError):
    """A Redis URL the service cannot use (said at start, never at the first request)."""


@dataclass(frozen=True)
class Locations:
    """What a ``redis+cluster://`` or ``redis+sentinel://`` URL names: credentials, host:port pairs, the rest of the path."""

    username: str | None
    password: str | None
    hosts: tuple[tuple[str, int], ...]
    path: str
    query: dict[str, str] = field(default_factory=dict)  # what follows "?": a TLS cluster's options


def is_cluster(url: str) -> bool:
    return url.startswith((CLUSTER_SCHEME, TLS_CLUSTER_SCHEME))


def parse_locations(url: str, scheme: str) -> Locations:
    """``scheme[[user]:password@]host:port[,host:port…][/path]`` (what urllib cannot split: several hosts)."""
    if not url.startswith(scheme):
        raise BadRedisUrl(f"{url!r} does not start with {scheme}")
    rest, _, query = url[len(scheme) :].partition("?")
    netloc, _, path = rest.partition("/")
    username = password = None
    if "@" in netloc:
        credentials, netloc = netloc.rsplit("@", 1)
        user, has_password, secret = credentials.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if has_password else unquote(user) or None
        if not has_password:  # "password@host": the password alone, as redis:// URLs allow
            username = None
    hosts = []
    for item in netloc.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise BadRedisUrl(f"{url!r}: {item!r} is not host:port")
        hosts.append((host.strip("[]"), int(port)))
    pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=False)
    return Locations(username, password, tuple(hosts), path, {name: value for name, value in pairs})


def store_client(url: str, max_connections: int) -> redis.Redis:
    """The stores' text client: a :class:`RedisCluster` for ``redis+cluster://``, else a :class:`redis.Redis`.

    Typed as ``redis.Redis``: the stores use only the commands both clients
    share (single-key commands, scripts and transactions on one hash tag,
    blocking ``XREAD`` of one stream).
    """
    if is_cluster(url):
        return cast(redis.Redis, cluster_client(url, max_connections, decode_responses=True))
    options = {} if "max_connections=" in url else {"max_connections": max_connections}
    return counted(redis.Redis.from_url(url, decode_responses=True, **options))


def cluster_client(url: str, max_connections: int, **options: Any) -> RedisCluster:
    """A cluster client that starts from every node the URL names.

    ``require_full_coverage`` off: while one primary fails over, the games on
    the other primaries go on (their slots are served), and only the games in
    the failing slots answer 503 until a replica takes over.
    """
    tls = url.startswith(TLS_CLUSTER_SCHEME)
    where = parse_locations(url, TLS_CLUSTER_SCHEME if tls else CLUSTER_SCHEME)
    if not CLUSTER_TRANSACTIONS:
        raise BadRedisUrl(f"a Redis Cluster needs redis-py 6.1 or later (transactions on one slot); this is {redis.__version__}")
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in where.hosts],  # type: ignore[no-untyped-call]
        username=where.username,
        password=where.password,
        max_connections=max_connections,
        require_full_coverage=False,
        **_tls_options(where.query, tls),
        **options,
    )


def _tls_options(query: dict[str, str], tls: bool) -> dict[str, Any]:
    """The TLS settings a cluster URL's query gives (``rediss+cluster://`` only), checked at start."""
    unknown = sorted(set(query) - set(TLS_OPTIONS))
    if unknown:
        raise BadRedisUrl(f"a cluster URL takes no {', '.join(unknown)} (it takes {', '.join(TLS_OPTIONS)})")
    if not tls:
        if query:
            raise BadRedisUrl("TLS options need a rediss+cluster:// URL")
        return {}
    options: dict[str, Any] = {"ssl": True}
    for name in ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile"):
        if query.get(name):
            options[name] = query[name]
    if "ssl_cert_reqs" in query:
        if query["ssl_cert_reqs"] not in _CERT_REQS:
            raise BadRedisUrl(f"ssl_cert_reqs is one of {', '.join(_CERT_REQS)}, not {query['ssl_cert_reqs']!r}")
        options["ssl_cert_reqs"] = query["ssl_cert_reqs"]
    if "ssl_check_hostname" in query:
        options["ssl_check_hostname"] = query["ssl_check_hostname"].lower() in ("1", "true", "yes", "on")
    return options


def queue_client(url: str, max_connections: int) -> redis.Redis:
    """The queue's bytes client (RQ wants bytes): standalone, or the primary a Sentinel names."""
    if is_cluster(url):
        raise BadRedisUrl("RQ cannot run on a Redis Cluster (rq/rq#862): RED7_QUEUE_URL must name a standalone Redis or Sentinel")
    if url.startswith(SENTINEL_SCHEME):
        where = parse_locations(url, SENTINEL_SCHEME)
        service, _, db = where.path.partition("/")
        if not service:
            raise BadRedisUrl(f"{url!r} names no service: redis+sentinel://host:port[,host:port]/service_name")
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            list(where.hosts), socket_timeout=5, username=where.username, password=where.password
        )
        primary = sentinel.master_for(service, db=int(db or 0), max_connections=max_connections)  # type: ignore[no-untyped-call]
        return counted(cast(redis.Redis, primary))
    options = {} if "max_connections=" in url else {"max_connections": max_connections}
    return counted(redis.Redis.from_url(url, **options))


def waiting_client(client: redis.Redis, socket_timeout: float) -> redis.Redis:
    """The stores' text client again, on a pool of its own whose connections wait up to ``socket_timeout`` for a reply:
    for the players' feeds, whose waits are blocking ``XREAD`` s that must end inside the socket timeout.

    On the stores' own pool (redis-py's 5 s) an idle open feed reads again every 4 s: 2,000 idle feeds were 500
    ``XREAD`` s a second, each a wake-up of a gevent worker, for nothing.  On this pool a feed blocks a heartbeat long
    in one read.  A timeout the URL sets higher (or none) is kept; a cluster client is given back as it is.
    """
    if isinstance(client, RedisCluster):
        return client
    pool = client.connection_pool
    options = dict(pool.connection_kwargs)
    current = options.get("socket_timeout", 5.0)  # not given: redis-py's default (5 s from 8.0 on); None: no timeout
    if current is not None and current < socket_timeout:
        options["socket_timeout"] = socket_timeout
    own = redis.ConnectionPool(connection_class=pool.connection_class, max_connections=pool.max_connections, **options)
    return redis.Redis(connection_pool=own)


def blocking_client(url: str, max_connections: int, socket_timeout: float) -> redis.Redis:
    """The queue's client again, for commands that block (RQ's workers wait for a job in one ``BLPOP`` of minutes):
    a pool of its own, whose connections wait up to ``socket_timeout`` for a reply.

    The queue's client gives up on a reply after 5 s (redis-py 8's default): a longer blocking read on it ends in a
    timeout error, which RQ logs as an ERROR before it pauses.  RQ raises the socket timeout of the pool it is given,
    but only for the connections made after that, and for every other user of the pool too.  This pool is new, so
    every connection it makes has the timeout, and only the commands that need it wait that long.  A timeout the URL
    sets higher (or none) is kept.
    """
    client = queue_client(url, max_connections)
    options = client.connection_pool.connection_kwargs
    current = options.get("socket_timeout", 0)  # not given: redis-py's default (5 s from 8.0 on); None: no timeout
    if current is not None and current < socket_timeout:
        options["socket_timeout"] = socket_timeout
    return client


_COUNTING: dict[type, type] = {}


def _counting(base: type) -> type:
    """``base`` (a redis-py connection class) counting each command or pipeline it sends in
    :mod:`service.common.roundtrips`: one ``send_packed_command`` is one round trip."""
    found = _COUNTING.get(base)
    if found is None:

        def send_packed_command(self: Any, command: Any, check_health: bool = True) -> None:
            roundtrips.sent()
            base.send_packed_command(self, command, check_health)  # type: ignore[attr-defined]

        found = _COUNTING[base] = type(f"Counting{base.__name__}", (base,), {"send_packed_command": send_packed_command})
    return found


def counted(client: redis.Redis) -> redis.Redis:
    """``client`` with its round trips counted per request (``red7_redis_round_trips``): its pool makes counting
    connections from now on (called before it makes any).  A Redis Cluster's are not counted: its nodes' pools are
    made by redis-py as it finds the nodes, and take no connection class of ours (redis-py 8)."""
    pool = client.connection_pool
    pool.connection_class = _counting(pool.connection_class)
    return client
