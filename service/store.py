"""The event store: one Redis stream per game, appended atomically with an expected version.

Keys of a game share the hash tag ``{<game id>}`` so that a game lives on one
Redis Cluster slot and a Lua script may touch all of them:

- ``<prefix>game:{<id>}:events``   the stream; entry ``n-0`` holds event number ``n`` (1-based)
- ``<prefix>game:{<id>}:version``  how many events the stream holds (the optimistic-lock token)
- ``<prefix>game:{<id>}:snapshot`` a hash: ``version`` and ``data`` (a cached fold)
- ``<prefix>game:{<id>}:idem:<scope>:<key>`` the first response to an idempotent request

The version lives in its own key rather than being read with ``XLEN``: the
check and the append happen inside one script, and the key makes the
contract explicit (and cheap) for readers that only want the version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis

APPEND_SCRIPT = """
-- KEYS: 1 version, 2 events, 3 idempotency record
-- ARGV: 1 expected version, 2 idempotency record ('' for none), 3 its ttl (s), 4.. payloads
if ARGV[2] ~= '' then
  local seen = redis.call('GET', KEYS[3])
  if seen then return {'replay', seen} end
end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
local n = current
for i = 4, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[2], n .. '-0', 'e', ARGV[i])
end
redis.call('SET', KEYS[1], n)
if ARGV[2] ~= '' then redis.call('SET', KEYS[3], ARGV[2], 'EX', tonumber(ARGV[3])) end
return {'ok', tostring(n)}
"""

SNAPSHOT_SCRIPT = """
-- Keep a snapshot only if it is newer than the one stored.
local stored = redis.call('HGET', KEYS[1], 'version')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2])
return 1
"""

PAGE = 500


class VersionConflict(Exception):
    """The stream moved on since the writer read it."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, the stream is at {current}")
        self.expected = expected
        self.current = current


class IdempotencyMismatch(Exception):
    """An idempotency key was used before with a different request."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An idempotent write: who asked (``scope``), their key, and what they asked (``fingerprint``)."""

    scope: str
    key: str
    fingerprint: str
    ttl: int = 24 * 3600

    @staticmethod
    def fingerprint_of(method: str, path: str, body: Any) -> str:
        canonical = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Appended:
    version: int


@dataclass(frozen=True, slots=True)
class Replayed:
    """A retried idempotent write: nothing was appended; this is the first response."""

    response: str


@dataclass(frozen=True, slots=True)
class StoredEvent:
    number: int
    payload: str


class EventStore:
    """Streams of JSON payloads with optimistic concurrency; knows nothing of games."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._append = client.register_script(APPEND_SCRIPT)
        self._snapshot = client.register_script(SNAPSHOT_SCRIPT)

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
        idempotency: Idempotency | None = None,
        response: str = "",
    ) -> Appended | Replayed:
        """Append ``payloads`` if the stream is at ``expected_version``; all or nothing.

        With ``idempotency``, ``response`` is stored with the append (atomically)
        so that a retry gets it back instead of appending again.
        """
        if not payloads:
            raise ValueError("nothing to append")
        record = ""
        idem_key = self._key(stream, "idem:-")
        if idempotency is not None:
            idem_key = self._idem_key(stream, idempotency)
            record = json.dumps({"fingerprint": idempotency.fingerprint, "response": response})
        args = [expected_version, record, idempotency.ttl if idempotency else 0, *payloads]
        status, value = self._append(keys=[self._key(stream, "version"), self.events_key(stream), idem_key], args=args)
        status = _text(status)
        if status == "ok":
            return Appended(int(_text(value)))
        if status == "conflict":
            raise VersionConflict(expected_version, int(_text(value)))
        return self._replay(_text(value), idempotency)

    def _idem_key(self, stream: str, idempotency: Idempotency) -> str:
        digest = hashlib.sha256(idempotency.key.encode()).hexdigest()[:32]
        return self._key(stream, f"idem:{idempotency.scope}:{digest}")

    @staticmethod
    def _replay(stored: str, idempotency: Idempotency | None) -> Replayed:
        record = json.loads(stored)
        if idempotency is None or record["fingerprint"] != idempotency.fingerprint:
            raise IdempotencyMismatch("this Idempotency-Key was already used for a different request")
        return Replayed(record["response"])

    def idempotent_response(self, stream: str, idempotency: Idempotency) -> Replayed | None:
        """The stored first response to this idempotent request, if it was made before."""
        stored = self.redis.get(self._idem_key(stream, idempotency))
        return None if stored is None else self._replay(_text(stored), idempotency)

    # --- reading --------------------------------------------------------------------

    def version(self, stream: str) -> int:
        return int(self.redis.get(self._key(stream, "version")) or 0)

    def exists(self, stream: str) -> bool:
        return self.version(stream) > 0

    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events numbered above ``after``, at most ``limit`` of them, oldest first."""
        entries = self.redis.xrange(self.events_key(stream), min=f"{after + 1}-0", max="+", count=limit)
        return [_stored(entry_id, fields) for entry_id, fields in entries]

    def read_all(self, stream: str, after: int = 0) -> Iterator[StoredEvent]:
        """Every event above ``after``, in pages."""
        while True:
            page = self.read(stream, after, PAGE)
            yield from page
            if len(page) < PAGE:
                return
            after = page[-1].number

    def wait(self, stream: str, after: int, timeout: float) -> bool:
        """Block up to ``timeout`` seconds until the stream holds an event above ``after``."""
        if self.version(stream) > after:
            return True
        if timeout <= 0:
            return False
        found = self.redis.xread({self.events_key(stream): f"{after}-0"}, count=1, block=max(1, int(timeout * 1000)))
        return bool(found)

    # --- snapshots ----------------------------------------------------------------

    def snapshot(self, stream: str) -> tuple[int, str] | None:
        stored = self.redis.hmget(self._key(stream, "snapshot"), ["version", "data"])
        if stored[0] is None or stored[1] is None:
            return None
        return int(_text(stored[0])), _text(stored[1])

    def save_snapshot(self, stream: str, version: int, data: str) -> bool:
        """Keep ``data`` as the fold of the first ``version`` events, unless a newer one is kept."""
        return bool(self._snapshot(keys=[self._key(stream, "snapshot")], args=[version, data]))

    def drop_snapshot(self, stream: str) -> None:
        self.redis.delete(self._key(stream, "snapshot"))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _stored(entry_id: bytes | str, fields: dict[Any, Any]) -> StoredEvent:
    number = int(_text(entry_id).split("-", 1)[0])
    payload = fields.get("e", fields.get(b"e"))
    return StoredEvent(number, _text(payload))
