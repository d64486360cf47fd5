"""The event store: one Redis stream per game, appended atomically with an expected version.

Keys of a game share the hash tag ``{<game id>}`` so that a game lives on one
Redis Cluster slot and a Lua script may touch all of them:

- ``<prefix>game:{<id>}:events``   the stream; entry ``n-0`` holds event number ``n`` (1-based)
- ``<prefix>game:{<id>}:version``  how many events the stream holds (the optimistic-lock token)
- ``<prefix>game:{<id>}:snapshot`` a hash: ``version`` and ``data`` (a cached fold; once the game is over,
  only for a while: its stream is all a finished game keeps for good)
- ``<prefix>game:{<id>}:packed``   once a finished game is compacted (:meth:`EventStore.compact`): its events
  ``1..n`` in one string, ``z1 <n> <length of event n>\n``, event ``n``'s payload (the head an append checks),
  then events ``1..n-1`` as a zlib-compressed JSON array.  The stream then holds only what was appended after
  (a rematch offered), usually nothing: the record replaces it
- ``<prefix>game:{<id>}:idem``     a hash of what answers idempotent requests again: for each
  ``<scope>:<key digest>``, the version its append made and the request's fingerprint (~70 bytes; the answer
  is that version's view, rendered again).  One hash per game, not a key per request: a key of its own cost
  ~240 bytes, 15 KB for a day of an asynchronous game.  Each record is kept at least its TTL: the hash lives
  until a TTL after the game's last idempotent append.

The version lives in its own key rather than being read with ``XLEN``: the
check and the append happen inside one script, and the key makes the
contract explicit (and cheap) for readers that only want the version.

A version number alone does not name a history: after Redis loses its last
writes (a crash between fsyncs, a failover to a lagging replica) the same
numbers are given again to other events.  So a writer that folded its game
from events it remembers passes the payload of the last one (the *head*),
and the append refuses when the stream holds something else at that number.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import redis
from redis.cluster import RedisCluster

from service.storage.nodes import on_one_connection

#: The head check of an append: event ``current``, in the stream or, once compacted, the packed record's head.
_HEAD_CHECK = """
if ARGV[2] ~= '' and current > 0 then
  local last = redis.call('XRANGE', KEYS[2], current .. '-0', current .. '-0')
  local head = nil
  if #last > 0 then
    head = last[1][2][2]
  else
    local top = redis.call('GETRANGE', KEYS[4], 0, 63)
    local upto, size, header = string.match(top, '^z1 (%d+) (%d+)\\n()')
    if upto and tonumber(upto) == current then
      head = redis.call('GETRANGE', KEYS[4], header - 1, header + tonumber(size) - 2)
    end
  end
  if head ~= ARGV[2] then return {'diverged', tostring(current)} end
end
"""

APPEND_SCRIPT = (
    """
-- KEYS: 1 version, 2 events, 3 idempotency records (a hash), 4 the packed record (a compacted game)
-- ARGV: 1 expected version, 2 expected head ('' unchecked), 3 the record's field ('' for none), 4 the record,
--       5 the records' ttl (s), 6.. payloads
if ARGV[3] ~= '' then
  local seen = redis.call('HGET', KEYS[3], ARGV[3])
  if seen then return {'replay', seen} end
end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
"""
    + _HEAD_CHECK
    + """
local n = current
for i = 6, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[2], n .. '-0', 'e', ARGV[i])
end
redis.call('SET', KEYS[1], n)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
end
return {'ok', tostring(n)}
"""
)

READ_SCRIPT = """
-- KEYS: 1 events, 2 the packed record; ARGV: 1 the first number wanted, 2 how many at most ('' for all)
-- Answers {entries} or, when the packed record holds the first wanted, {entries, packed record}; or when that is
-- the record's last event (a reader checking its cached fold's head), {entries, '', that event's payload}.
local first = tonumber(ARGV[1])
local entries
if ARGV[2] ~= '' then
  entries = redis.call('XRANGE', KEYS[1], first .. '-0', '+', 'COUNT', tonumber(ARGV[2]))
else
  entries = redis.call('XRANGE', KEYS[1], first .. '-0', '+')
end
if #entries > 0 and tonumber(string.match(entries[1][1], '^(%d+)')) == first then return {entries} end
local upto, size, header = string.match(redis.call('GETRANGE', KEYS[2], 0, 63), '^z1 (%d+) (%d+)\\n()')
if not upto or tonumber(upto) < first then return {entries} end
if tonumber(upto) == first then
  return {entries, '', redis.call('GETRANGE', KEYS[2], header - 1, header + tonumber(size) - 2)}
end
return {entries, redis.call('GET', KEYS[2])}
"""

COMPACT_SCRIPT = (
    """
-- KEYS: 1 version, 2 events, 3 (unused), 4 the packed record; ARGV: 1 the version packed, 2 its head, 3 the record
-- Replaces the stream by the record if the stream is still at that version with that head.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
"""
    + _HEAD_CHECK
    + """
redis.call('SET', KEYS[4], ARGV[3])
redis.call('DEL', KEYS[2])
return {'ok', tostring(current)}
"""
)

#: The packed record's format, its first bytes.
PACKED = b"z1"

SNAPSHOT_SCRIPT = """
-- Keep a snapshot only if it is newer than the one stored; ARGV[3]: its ttl (s), 0 for none.
local stored = redis.call('HGET', KEYS[1], 'version')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3])) end
return 1
"""

PAGE = 500


class VersionConflict(Exception):
    """The stream moved on since the writer read it, or (``diverged``) holds other events than the writer folded."""

    def __init__(self, expected: int, current: int, *, diverged: bool = False) -> None:
        what = "other events than the writer read" if diverged else f"version {current}"
        super().__init__(f"expected version {expected}, the stream holds {what}")
        self.expected = expected
        self.current = current
        self.diverged = diverged


class NotReplicated(Exception):
    """An append that Redis stored but fewer replicas than asked for acknowledged in time.

    The events are on the primary (and in the stream); they may be lost if
    the primary fails before its replicas catch up.
    """

    def __init__(self, version: int | None, replicas: int, wanted: int) -> None:
        super().__init__(f"{'version ' + str(version) if version else 'the append'} reached {replicas} of {wanted} replicas")
        self.version = version
        self.replicas = replicas
        self.wanted = wanted


class IdempotencyMismatch(Exception):
    """An idempotency key was used before with a different request."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An idempotent write: who asked (``scope``), their key, and what they asked (``fingerprint``)."""

    scope: str
    key: str
    fingerprint: str
    ttl: int = 24 * 3600
    #: Fingerprints the same request had in records written before (what a fingerprint covers changed once).
    earlier: tuple[str, ...] = ()

    def same_request(self, recorded: str) -> bool:
        """Whether a record's fingerprint (whole, or the first 128 bits a record keeps) is this request's."""
        return any(recorded in (mine, short_fingerprint(mine)) for mine in (self.fingerprint, *self.earlier))

    @staticmethod
    def fingerprint_of(method: str, path: str, body: Any) -> str:
        canonical = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


class Waiter(Protocol):
    """Whoever waits on a stream, if it may have to stop before its time (an HTTP client that left).

    A blocking read cannot be interrupted but by an exception raised into it: ``blocking()`` wraps each read, and
    where the waiter can raise into it (gevent), it does, and swallows what it raised; elsewhere the reads last at
    most ``every`` seconds and ``over()`` is asked between two.
    """

    every: float | None

    def over(self) -> bool: ...

    def blocking(self) -> AbstractContextManager[None]: ...


@dataclass(frozen=True, slots=True)
class Appended:
    version: int


@dataclass(frozen=True, slots=True)
class Replayed:
    """A retried idempotent write: nothing was appended; the first one made ``version``."""

    version: int


@dataclass(frozen=True, slots=True)
class StoredEvent:
    number: int
    payload: str


class EventStore:
    """Streams of JSON payloads with optimistic concurrency; knows nothing of games.

    ``replicas`` > 0 makes every append wait (Redis ``WAIT``) until that many
    replicas hold it, up to ``replica_timeout_ms``; an append they do not
    confirm in time raises :class:`NotReplicated` after it is stored.
    """

    def __init__(self, client: redis.Redis, prefix: str = "red7:", *, replicas: int = 0, replica_timeout_ms: int = 1000) -> None:
        self.redis = client
        self.prefix = prefix
        self.replicas = replicas
        self.replica_timeout_ms = replica_timeout_ms
        self._block_slice = _block_slice(client)
        self._append = client.register_script(APPEND_SCRIPT)
        self._snapshot = client.register_script(SNAPSHOT_SCRIPT)
        self._read = client.register_script(READ_SCRIPT)
        self._compact = client.register_script(COMPACT_SCRIPT)

    # --- keys ---------------------------------------------------------------------

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}game:{{{stream}}}:{part}"

    def events_key(self, stream: str) -> str:
        return self._key(stream, "events")

    # --- writing --------------------------------------------------------------------

    def append(
        self,
        stream: str,
        expected_version: int,
        payloads: Sequence[str],
        *,
        expected_head: str = "",
        idempotency: Idempotency | None = None,
    ) -> Appended | Replayed:
        """Append ``payloads`` if the stream is at ``expected_version``; all or nothing.

        ``expected_head``, if given, must be the stored payload of event
        ``expected_version``: a writer whose fold came from a history Redis no
        longer has gets :class:`VersionConflict` (``diverged``), never an append.
        With ``idempotency``, a record of it is stored with the append (atomically):
        a retry gets :class:`Replayed` with the version this append made, instead
        of appending again.
        """
        if not payloads:
            raise ValueError("nothing to append")
        field = record = ""
        if idempotency is not None:
            field = self._idem_field(idempotency)
            made = expected_version + len(payloads)  # what the append makes, if it appends: the script checks the version
            record = f"{made} {short_fingerprint(idempotency.fingerprint)}"
        keys = [self._key(stream, "version"), self.events_key(stream), self._key(stream, "idem"), self._key(stream, "packed")]
        ttl = idempotency.ttl if idempotency else 0
        args: list[int | str] = [expected_version, expected_head, field, record, ttl, *payloads]
        acknowledged = None
        if self.replicas > 0:
            # WAIT counts the writes of its own connection: the script and WAIT go down one pipeline.
            def append_and_wait(pipe: redis.client.Pipeline) -> list[Any]:
                self._append(keys=keys, args=args, client=pipe)
                pipe.wait(self.replicas, self.replica_timeout_ms)
                return pipe.execute()

            (status, value), acknowledged = on_one_connection(self.redis, keys[0], append_and_wait)
        else:
            status, value = self._append(keys=keys, args=args)
        status = _text(status)
        if status in ("conflict", "diverged"):
            raise VersionConflict(expected_version, int(_text(value)), diverged=status == "diverged")
        result = Appended(int(_text(value))) if status == "ok" else self._replay(_text(value), idempotency)
        if acknowledged is not None and acknowledged < self.replicas:  # a replayed answer is confirmed the same way
            raise NotReplicated(result.version if isinstance(result, Appended) else None, acknowledged, self.replicas)
        return result

    @staticmethod
    def _idem_field(idempotency: Idempotency) -> str:
        """A record's field in its game's hash: short enough (with the record) for Redis's compact hash encoding."""
        return f"{idempotency.scope}:{hashlib.sha256(idempotency.key.encode()).hexdigest()[:16]}"

    @staticmethod
    def _replay(stored: str, idempotency: Idempotency | None) -> Replayed:
        """A record, ``"<version> <fingerprint>"``, as the answer to a retry of the request it records."""
        version, _, fingerprint = stored.partition(" ")
        if idempotency is None or not idempotency.same_request(fingerprint):
            raise IdempotencyMismatch("this Idempotency-Key was already used for a different request")
        return Replayed(int(version))

    def idempotent_response(self, stream: str, idempotency: Idempotency) -> Replayed | None:
        """What answers this idempotent request again, if it was made before.

        With ``replicas``, it is given only once they hold it: the record's
        TTL is set again (a write) and ``WAIT`` confirms that write, which the
        replicas receive after the append it answers.
        """
        key, field = self._key(stream, "idem"), self._idem_field(idempotency)
        if self.replicas <= 0:
            found = self.redis.hget(key, field)
            return None if found is None else self._replay(_text(found), idempotency)

        def read_and_wait(pipe: redis.client.Pipeline) -> list[Any]:
            pipe.hget(key, field)
            pipe.expire(key, idempotency.ttl)  # a write for WAIT to confirm
            pipe.wait(self.replicas, self.replica_timeout_ms)
            return pipe.execute()

        stored, _, acknowledged = on_one_connection(self.redis, key, read_and_wait)
        if stored is None:
            return None
        replay = self._replay(_text(stored), idempotency)
        if acknowledged < self.replicas:
            raise NotReplicated(None, acknowledged, self.replicas)
        return replay

    # --- reading --------------------------------------------------------------------

    def version(self, stream: str) -> int:
        return int(self.redis.get(self._key(stream, "version")) or 0)

    def exists(self, stream: str) -> bool:
        return self.version(stream) > 0

    def streams(self, count: int = 500) -> Iterator[str]:
        """The id of every stream under this prefix (SCAN: every primary of a cluster; a tool's walk, never a request's)."""
        start, end = f"{self.prefix}game:{{", "}:version"
        for key in self.redis.scan_iter(match=f"{self.prefix}game:{{*}}:version", count=count):
            text = key.decode() if isinstance(key, bytes) else str(key)
            if text.startswith(start) and text.endswith(end):
                yield text[len(start) : -len(end)]

    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events numbered above ``after``, at most ``limit`` of them, oldest first (one command, compacted or not)."""
        keys = [self.events_key(stream), self._key(stream, "packed")]
        reply = self._bytes_script(self._read, keys, [after + 1, "" if limit is None else limit])
        entries = [_stored(entry_id, dict(zip(fields[::2], fields[1::2], strict=True))) for entry_id, fields in reply[0]]
        if len(reply) < 2:
            return entries
        if len(reply) == 3:  # only the record's last event was wanted first: its head, kept apart from the rest
            packed = [StoredEvent(after + 1, _text(reply[2]))]
        else:
            packed = [StoredEvent(n, p) for n, p in enumerate(unpack(reply[1]), start=1) if n > after]
        merged = packed + [e for e in entries if e.number > len(packed) + after]
        return merged if limit is None else merged[:limit]

    def _bytes_script(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script, its answer in bytes (a packed record is binary: the text client would fail to
        decode it); loaded again if Redis does not know it (``NOSCRIPT``), as redis-py's ``Script`` does."""
        try:
            return self._raw("EVALSHA", script.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            script.sha = self.redis.script_load(script.script)
            return self._raw("EVALSHA", script.sha, len(keys), *keys, *args)

    def _raw(self, *command: Any) -> Any:
        """A command whose answer stays in bytes."""
        return self.redis.execute_command(*command, NEVER_DECODE=True)  # type: ignore[no-untyped-call]

    # --- compaction ---------------------------------------------------------------

    def compact(self, stream: str, version: int, payloads: Sequence[str]) -> bool:
        """Fold the stream's events ``1..version`` (``payloads``, as :meth:`read` gave them) into one packed record,
        and drop the stream; ``False`` (nothing changed) if the stream moved on or holds another history meanwhile.

        Reads give the same events after as before, one command each; appends go on (a rematch offered), into the
        stream again, after the record.  Compacting again folds those in too.
        """
        if version < 1 or len(payloads) != version:
            raise ValueError(f"{len(payloads)} payloads for version {version}")
        keys = [self._key(stream, "version"), self.events_key(stream), self._key(stream, "idem"), self._key(stream, "packed")]
        status, _ = self._compact(keys=keys, args=[version, payloads[-1], pack(payloads)])
        return _text(status) == "ok"

    def compacted(self, stream: str) -> int:
        """How many events the stream's packed record holds (0: it is not compacted)."""
        top = self._raw("GETRANGE", self._key(stream, "packed"), 0, 31)
        return packed_upto(top) if top else 0

    def read_all(self, stream: str, after: int = 0) -> Iterator[StoredEvent]:
        """Every event above ``after``, in pages."""
        while True:
            page = self.read(stream, after, PAGE)
            yield from page
            if len(page) < PAGE:
                return
            after = page[-1].number

    def wait(self, stream: str, after: int, timeout: float, waiter: Waiter | None = None) -> bool:
        """Block up to ``timeout`` seconds until the stream holds an event above ``after``.

        The blocking read goes in slices shorter than the client's socket
        timeout (redis-py 8 defaults to 5 s): one long ``XREAD BLOCK`` would be
        cut by the client as a dead connection however long the caller waits.
        With a ``waiter``, the wait stops (``False``) when ``waiter.over()`` says
        so between two slices, or when ``waiter.blocking()`` cuts a slice short
        (see :class:`Waiter`).

        ``XREAD`` from ``after`` answers at once if the stream holds a later event, so the version is read only when
        the wait ends without one (a compacted stream's events are in its packed record, which ``XREAD`` never sees:
        nobody waits on a game that is over, but a wait on one still ends with the truth).
        """
        deadline = time.monotonic() + timeout
        key = self.events_key(stream)
        first = True
        while (left := deadline - time.monotonic()) > 0:
            block = min(left, self._block_slice) if self._block_slice else left
            if waiter is None:
                if self.redis.xread({key: f"{after}-0"}, count=1, block=max(1, int(block * 1000))):
                    return True
                continue
            if waiter.over():
                return False
            if waiter.every:  # the first slice of a random length: waits begun together do not all wake together
                block = min(block, waiter.every * (random.uniform(0.05, 1.0) if first else 1.0))
            first = False
            found = None
            with waiter.blocking():
                found = self.redis.xread({key: f"{after}-0"}, count=1, block=max(1, int(block * 1000)))
            if found:
                return True
        return self.version(stream) > after

    # --- snapshots ----------------------------------------------------------------

    def snapshot(self, stream: str) -> tuple[int, str] | None:
        stored = self.redis.hmget(self._key(stream, "snapshot"), ["version", "data"])
        if stored[0] is None or stored[1] is None:
            return None
        return int(_text(stored[0])), _text(stored[1])

    def save_snapshot(self, stream: str, version: int, data: str, *, ttl: int = 0) -> bool:
        """Keep ``data`` as the fold of the first ``version`` events, unless a newer one is kept.

        ``ttl`` (seconds; 0: none) lets a snapshot go after a while: that of a game that is over.
        """
        return bool(self._snapshot(keys=[self._key(stream, "snapshot")], args=[version, data, ttl]))

    def drop_snapshot(self, stream: str) -> None:
        self.redis.delete(self._key(stream, "snapshot"))


#: Assumed when a client does not tell its socket timeout: redis-py's own default.
ASSUMED_SOCKET_TIMEOUT = 5.0


def _block_slice(client: redis.Redis) -> float | None:
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


def pack(payloads: Sequence[str]) -> bytes:
    """Events ``1..n`` as one record: a header (``z1 <n> <length of the head>``), event ``n`` as it is (the head an
    append checks, read without unpacking), then events ``1..n-1``: a JSON array, zlib-compressed."""
    head = payloads[-1].encode()
    body = zlib.compress(json.dumps(list(payloads[:-1]), separators=(",", ":")).encode(), 9)
    return b"%s %d %d\n%s%s" % (PACKED, len(payloads), len(head), head, body)


def packed_upto(record: bytes) -> int:
    """How many events a packed record holds (its header's ``n``)."""
    fields = record.split(b"\n", 1)[0].split(b" ")
    if fields[0] != PACKED or len(fields) < 3:
        raise ValueError(f"not a packed record: {record[:32]!r}")
    return int(fields[1])


def unpack(record: bytes) -> list[str]:
    """The payloads of events ``1..n`` of a packed record, as they were appended."""
    header, _, rest = record.partition(b"\n")
    _, upto, size = header.split(b" ")
    head, body = rest[: int(size)], rest[int(size) :]
    payloads: list[str] = json.loads(zlib.decompress(body)) if int(upto) > 1 else []
    if int(upto) > 1 and len(payloads) != int(upto) - 1:
        raise ValueError(f"a packed record of {int(upto)} events holds {len(payloads) + 1}")
    return [*payloads, head.decode()]


def short_fingerprint(fingerprint: str) -> str:
    """What a record keeps of a request's fingerprint (a SHA-256 in hex): its first 128 bits."""
    return fingerprint[:32]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _stored(entry_id: bytes | str, fields: dict[bytes | str, bytes | str]) -> StoredEvent:
    number = int(_text(entry_id).split("-", 1)[0])
    payload = fields.get("e", fields.get(b"e"))
    if payload is None:  # never: the append script writes every event as the field e
        raise ValueError(f"event {number} of the stream has no payload")
    return StoredEvent(number, _text(payload))
