"""Tournaments in Redis: a stream per tournament (the event store's appends), each player's index of their
tournaments, and the list every player browses (``listTournaments``).

A tournament's keys share the hash tag ``{<tournament id>}`` (one Redis Cluster slot each), like a challenge's:

- ``<prefix>tournament:{<id>}:events``, ``:version``, ``:idem``  the stream, its version, the records of idempotent
  writes: :class:`~service.storage.events.EventStore`'s append script, keys and all

A player's index lives on the player's slot (``{<player id>}``, :mod:`service.storage.players`):

- ``<prefix>player:{<id>}:tournaments`` a sorted set of every tournament the player organised or entered, scored by
  the time the tournament was made (ms), read newest first

The list shared by all lives on a slot of its own (``{tournaments}``):

- ``<prefix>tournaments:{tournaments}`` a sorted set of every tournament, scored by the time it was made (ms)
- ``<prefix>tournaments:{tournaments}:summary`` a hash: each tournament to the JSON of what the list filters and shows
  without loading the stream (format, times of entry, rounds started, finished or not, and the version it was taken
  at: :meth:`TournamentList.put` writes a summary only over an older one, so two writers in any order leave the newest)

The stream, the indexes and the list are on different slots, so no write covers them all.  They are ordered: a
tournament is listed (and indexed under its organiser, or a player under their entry) *before* its stream is
appended, so a crash in between leaves a listed tournament that is not there (readers skip it), never a tournament,
or an entry, that nobody can find.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import redis

from service.storage.events import EventStore
from service.storage.players.keys import player_key


class TournamentStreams(EventStore):
    """The event store's streams under keys of their own, ``tournament:{<id>}:...``: appends checked against the
    expected version (and head), with their idempotency records, as a game's are."""

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}tournament:{{{stream}}}:{part}"


def player_tournaments_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:tournaments"


def list_key(prefix: str) -> str:
    return f"{prefix}tournaments:{{tournaments}}"


def summary_key(prefix: str) -> str:
    return f"{list_key(prefix)}:summary"


#: KEYS: the list, the summaries.  ARGV: the tournament, when it was made (ms), its summary's JSON, its version.
#: The summary is written unless one of a later version is there (1: written, 0: a newer one stays).
PUT = """
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then
  local ok, stored = pcall(cjson.decode, old)
  if ok and tonumber(stored['version'] or 0) > tonumber(ARGV[4]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class TournamentList:
    """Every tournament, newest first, each with a summary the list filters on (status, format)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._put = client.register_script(PUT)

    def put(self, tournament_id: str, made_ms: int, summary: Mapping[str, Any], version: int) -> bool:
        """List the tournament with ``summary`` as of ``version`` (safe to repeat, in any order: an older version never
        replaces a newer one); ``False``: a newer summary is there already."""
        text = json.dumps({**summary, "version": version}, sort_keys=True)
        keys = [list_key(self.prefix), summary_key(self.prefix)]
        return bool(self._put(keys=keys, args=[tournament_id, made_ms, text, version]))

    def drop(self, tournament_id: str) -> None:
        """Unlist a tournament whose stream was never appended (a create that stopped half-way)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(list_key(self.prefix), tournament_id)
            pipe.hdel(summary_key(self.prefix), tournament_id)
            pipe.execute()

    def summary(self, tournament_id: str) -> dict[str, Any] | None:
        stored = self.redis.hget(summary_key(self.prefix), tournament_id)
        return json.loads(_text(stored)) if stored is not None else None

    def unfinished(self) -> Iterator[str]:
        """Every listed tournament whose summary is not finished, in no order (an incremental scan of the summaries:
        what the ticker puts back on the agenda after the queue's Redis lost it; a rare sweep)."""
        for tournament_id, stored in self.redis.hscan_iter(summary_key(self.prefix)):
            try:
                summary = json.loads(_text(stored))
            except ValueError:
                continue
            if summary.get("finished") is None:
                yield _text(tournament_id)

    def page(self, before: tuple[int, str] | None, count: int, keep: Any = None) -> list[tuple[str, int, dict[str, Any]]]:
        """Up to ``count`` tournaments, newest first, after the cursor ``before`` = (ms, id) of the last one seen, each
        with its summary; ``keep(summary)`` (if given) says which count (a filter: skipped ones do not)."""
        key = list_key(self.prefix)
        top: float | str = "+inf" if before is None else before[0]
        found: list[tuple[str, int, dict[str, Any]]] = []
        offset, chunk_size = 0, count + 16
        while len(found) < count:
            raw = self.redis.zrevrangebyscore(key, top, "-inf", start=offset, num=chunk_size, withscores=True)
            reply = cast("list[tuple[str, float]]", raw)
            ids = [_text(member) for member, _ in reply]
            summaries = self.redis.hmget(summary_key(self.prefix), ids) if ids else []
            for tournament_id, (_, score), stored in zip(ids, reply, summaries, strict=True):
                if before is not None and int(score) == before[0] and tournament_id >= before[1]:
                    continue  # seen on an earlier page
                if stored is None:
                    continue  # listed by a create that stopped before its stream
                summary = json.loads(_text(stored))
                if keep is None or keep(summary):
                    found.append((tournament_id, int(score), summary))
            if len(reply) < chunk_size:
                break
            offset += len(reply)
        return found[:count]


class TournamentIndex:
    """Each player's tournaments: those they organised or entered, newest first."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def add(self, player_ids: Iterable[str], tournament_id: str, made_ms: int) -> None:
        """Index the tournament under each player (single-slot writes, safe to repeat, in a plain pipeline: a cluster
        client splits it)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(player_tournaments_key(self.prefix, player_id), {tournament_id: made_ms})
            pipe.execute()

    def of(self, player_id: str, count: int = 100) -> list[str]:
        """The player's newest ``count`` tournaments."""
        reply = self.redis.zrevrange(player_tournaments_key(self.prefix, player_id), 0, count - 1)
        return [_text(member) for member in cast("list[str]", reply)]

    def forget(self, player_id: str) -> None:
        """A deleted account's index goes with it."""
        self.redis.delete(player_tournaments_key(self.prefix, player_id))
