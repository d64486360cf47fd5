"""Challenges in Redis: a stream per challenge (the event store's appends), and each player's index of them.

A challenge's keys share the hash tag ``{<challenge id>}`` (one Redis Cluster slot each), like a game's:

- ``<prefix>challenge:{<id>}:events``, ``:version``, ``:idem``  the stream, its version, the records of idempotent
  answers (accept, decline): :class:`~service.storage.events.EventStore`'s append script, keys and all

A player's index lives on the player's slot (``{<player id>}``, :mod:`service.storage.players`):

- ``<prefix>player:{<id>}:challenges`` a sorted set of every challenge the player sent or received, scored by the
  time it was made (ms): the inbox, read newest first a page at a time
- ``<prefix>player:{<id>}:challenges:sent`` a sorted set of the challenges the player sent that were open when last
  seen, scored the same way: what the cap on open challenges counts (``RED7_MAX_OPEN_CHALLENGES``)

The stream and the indexes are on different slots, so no write covers both.  They are ordered instead: a challenge
is indexed under each of its players *before* its stream is appended, so a crash in between leaves index entries
for a challenge that is not there (readers skip them), never a challenge its players cannot find.  The challenger's
entries are claimed in one transaction with the cap's check (``WATCH``) and the idempotency record of the create.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import redis

from service.storage.events import EventStore, Idempotency
from service.storage.idempotency import Made, made_by, record_field, record_text
from service.storage.players import player_key, records_key


class ChallengeStreams(EventStore):
    """The event store's streams under keys of their own, ``challenge:{<id>}:...``: appends checked against the
    expected version (and head), with their idempotency records, as a game's are."""

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}challenge:{{{stream}}}:{part}"


def inbox_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges"


def sent_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges:sent"


class TooManyOpen(Exception):
    """The challenger's open challenges are at the cap."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ChallengeIndex:
    """Each player's challenges: the inbox (sent and received) and the open ones sent."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def claim(
        self,
        challenger: str,
        challenge_id: str,
        made_ms: int,
        limit: int,
        idempotency: Idempotency | None = None,
        made: Made | None = None,
    ) -> Made | None:
        """List a new challenge under its challenger (inbox and open ones sent), with the record of its create, in one
        transaction on the challenger's slot, unless they hold ``limit`` open ones already (:class:`TooManyOpen`; 0:
        no limit).

        ``None``: listed.  Else the key was used before (a retry, or an attempt beside this one) and what that create
        made comes back (:class:`~service.storage.events.IdempotencyMismatch`: it was another request).
        """
        sent, inbox, records = (
            sent_key(self.prefix, challenger),
            inbox_key(self.prefix, challenger),
            records_key(self.prefix, challenger),
        )
        field = record_field(idempotency) if idempotency is not None else ""
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    # two creates at once cannot both pass the cap (redis-py leaves Pipeline.watch unannotated)
                    pipe.watch(sent, records)  # type: ignore[no-untyped-call]
                    if idempotency is not None and (stored := pipe.hget(records, field)) is not None:
                        return made_by(_text(stored), idempotency)
                    if limit and pipe.zcard(sent) >= limit:
                        raise TooManyOpen
                    pipe.multi()
                    pipe.zadd(sent, {challenge_id: made_ms})
                    pipe.zadd(inbox, {challenge_id: made_ms})
                    if idempotency is not None and made is not None:
                        pipe.hset(records, field, record_text(idempotency, made))
                        pipe.expire(records, idempotency.ttl)
                    pipe.execute()
                    return None
                except redis.WatchError:
                    continue

    def receive(self, player_ids: Iterable[str], challenge_id: str, made_ms: int) -> None:
        """List a challenge in the inboxes of the players it challenges: single-slot writes, each safe to repeat, in a
        plain pipeline (a cluster client splits it by node)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(inbox_key(self.prefix, player_id), {challenge_id: made_ms})
            pipe.execute()

    def sent(self, player_id: str) -> list[tuple[str, int]]:
        """The challenges the player sent that were open when last seen, with the time each was made (ms)."""
        reply = self.redis.zrange(sent_key(self.prefix, player_id), 0, -1, withscores=True)
        return [(_text(member), int(score)) for member, score in cast("list[tuple[str, float]]", reply)]

    def closed(self, player_id: str, challenge_id: str) -> None:
        """A challenge the player sent is no longer open: it leaves what the cap counts (it stays in the inbox)."""
        self.redis.zrem(sent_key(self.prefix, player_id), challenge_id)

    def page(self, player_id: str, before: tuple[int, str] | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` of the player's challenges, newest first, after the cursor ``before`` = (ms, id) of the last
        one seen (challenges made at the same millisecond in descending id, Redis's order: none skipped or repeated)."""
        key = inbox_key(self.prefix, player_id)
        top: float | str = "+inf" if before is None else before[0]
        found: list[tuple[str, int]] = []
        offset = 0
        while len(found) < count:
            reply = self.redis.zrevrangebyscore(key, top, "-inf", start=offset, num=count + 16, withscores=True)
            chunk = cast("list[tuple[str, float]]", reply)
            for member, score in chunk:
                challenge_id = _text(member)
                if before is not None and int(score) == before[0] and challenge_id >= before[1]:
                    continue  # seen on an earlier page
                found.append((challenge_id, int(score)))
            if len(chunk) < count + 16:
                break
            offset += len(chunk)
        return found[:count]
