"""The event store itself: a stream's append (all or nothing, at an expected version and head), its reads, its
wait for news, its compaction into a packed record, and the cached fold (snapshot) kept beside it.  The key layout
and why a head is checked: :mod:`service.storage.events`."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import redis

from service.storage.events.packing import pack, packed_upto, unpack
from service.storage.events.scripts import APPEND_SCRIPT, COMPACT_SCRIPT, READ_SCRIPT, SNAPSHOT_SCRIPT
from service.storage.events.terms import (
    Appended,
    Idempotency,
    IdempotencyMismatch,
    NotReplicated,
    Replayed,
    StoredEvent,
    VersionConflict,
    short_fingerprint,
)
from service.storage.events.waiting import Waiter, block_slice, read_blocking
from service.storage.nodes import on_one_connection

PAGE = 500


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
        self._block_slice = block_slice(client)
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

    def wait(
        self, stream: str, after: int, timeout: float, waiter: Waiter | None = None, also: Mapping[str, str] | None = None
    ) -> bool:
        """Block up to ``timeout`` seconds until the stream holds an event above ``after`` (or one of the streams
        ``also`` names, each on the game's slot, an entry above its id: the table talk a live feed follows too).

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
        streams = {self.events_key(stream): f"{after}-0", **(also or {})}
        if read_blocking(self.redis, streams, timeout, waiter, self._block_slice):
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


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _stored(entry_id: bytes | str, fields: dict[bytes | str, bytes | str]) -> StoredEvent:
    number = int(_text(entry_id).split("-", 1)[0])
    payload = fields.get("e", fields.get(b"e"))
    if payload is None:  # never: the append script writes every event as the field e
        raise ValueError(f"event {number} of the stream has no payload")
    return StoredEvent(number, _text(payload))
