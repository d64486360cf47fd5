"""Challenges in Redis: a stream per challenge (the event store's appends), and each player's index of them.

A challenge's keys share the hash tag ``{<challenge id>}`` (one Redis Cluster slot each), like a game's:

- ``<prefix>challenge:{<id>}:events``, ``:version``, ``:idem``  the stream, its version, the records of idempotent
  answers (accept, decline): :class:`~service.storage.events.EventStore`'s append script, keys and all

A player's index lives on the player's slot (``{<player id>}``, :mod:`service.storage.players`):

- ``<prefix>player:{<id>}:challenges`` a sorted set of every challenge the player sent or received, scored by the
  time it was made (ms): the inbox, read newest first a page at a time
- ``<prefix>player:{<id>}:challenges:sent`` a sorted set of the challenges the player sent that were open when last
  seen, scored the same way: what the cap on open challenges counts (``RED7_MAX_OPEN_CHALLENGES``)
- ``<prefix>player:{<id>}:challenges:to`` a hash: each player the player challenged, to the challenge that named them
  when it was claimed: one challenge at a time toward each player (``already_challenged``)
- ``<prefix>player:{<id>}:challenges:received`` a sorted set of the challenges the player received that were open
  when last seen, scored as the inbox: what the cap on an inbox counts (``RED7_MAX_CHALLENGES_RECEIVED``)

The stream and the indexes are on different slots, so no write covers both.  They are ordered instead: a challenge
is indexed under each of its players *before* its stream is appended, so a crash in between leaves index entries
for a challenge that is not there (readers skip them, and take them for gone once old), never a challenge its
players cannot find.  The challenger's entries are claimed in one transaction with the cap's check, the pairs' check
(``WATCH`` on both, so that two creates at once cannot both pass either) and the idempotency record of the create;
each challenged player's in one script with the check of their inbox's cap.  A create refused at an inbox gives back
what it claimed (:meth:`ChallengeIndex.withdraw`, :meth:`ChallengeIndex.unclaim`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import cast

import redis

from service.storage.blocks import list_key, reach_key
from service.storage.events import EventStore, Idempotency
from service.storage.idempotency import Made, made_by, record_field, record_text
from service.storage.players.keys import player_key, records_key


class ChallengeStreams(EventStore):
    """The event store's streams under keys of their own, ``challenge:{<id>}:...``: appends checked against the
    expected version (and head), with their idempotency records, as a game's are."""

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}challenge:{{{stream}}}:{part}"


def inbox_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges"


def sent_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges:sent"


def pairs_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges:to"


def received_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:challenges:received"


class TooManyOpen(Exception):
    """The challenger's open challenges are at the cap."""


class AlreadyChallenged(Exception):
    """Another challenge of the challenger's, open or being made, names these players."""

    def __init__(self, players: list[str]) -> None:
        super().__init__(f"challenged already: {', '.join(players)}")
        self.players = players


#: KEYS: the challenger's open ones sent, their pairs.  ARGV: the challenge.  It leaves what the cap counts, and frees
#: the pairs that name it (and no other challenge's: a pair taken since by another stays).
CLOSED = """
redis.call('ZREM', KEYS[1], ARGV[1])
local pairs = redis.call('HGETALL', KEYS[2])
for i = 1, #pairs, 2 do
  if pairs[i + 1] == ARGV[1] then redis.call('HDEL', KEYS[2], pairs[i]) end
end
return 1
"""

#: KEYS: a challenged player's inbox and open ones received, their blocks and reach (:mod:`service.storage.blocks`).
#: ARGV: the challenge, when it was made (ms), the cap (0: none), the challenger ('': nobody to check), whether the
#: two have played a finished game together ('1').  1: listed (or listed already); 0: the inbox is at its cap; -1:
#: the player does not take it (a block of theirs, or their reach: :func:`service.domain.blocks.takes_challenge`).
RECEIVE = """
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 1 end
if ARGV[4] ~= '' then
  if redis.call('ZSCORE', KEYS[3], ARGV[4]) then return -1 end
  local from = redis.call('HGET', KEYS[4], 'challenge')
  if from == 'nobody' or (from == 'played' and ARGV[5] ~= '1') then return -1 end
end
local cap = tonumber(ARGV[3])
if cap > 0 and redis.call('ZCARD', KEYS[2]) >= cap then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ChallengeIndex:
    """Each player's challenges: the inbox (sent and received) and the open ones sent."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._closed = client.register_script(CLOSED)
        self._receive = client.register_script(RECEIVE)

    def claim(
        self,
        challenger: str,
        challenge_id: str,
        made_ms: int,
        limit: int,
        idempotency: Idempotency | None = None,
        made: Made | None = None,
        *,
        challenged: Sequence[str] = (),
        stale: Mapping[str, str] | None = None,
    ) -> Made | None:
        """List a new challenge under its challenger (inbox, open ones sent, the players it challenges), with the
        record of its create, in one transaction on the challenger's slot, unless they hold ``limit`` open ones
        already (:class:`TooManyOpen`; 0: no limit) or a pair names one of ``challenged`` (:class:`AlreadyChallenged`)
        but for the challenge ``stale`` says was found closed.

        ``None``: listed.  Else the key was used before (a retry, or an attempt beside this one) and what that create
        made comes back (:class:`~service.storage.events.IdempotencyMismatch`: it was another request).
        """
        sent, inbox, records, pairs = (
            sent_key(self.prefix, challenger),
            inbox_key(self.prefix, challenger),
            records_key(self.prefix, challenger),
            pairs_key(self.prefix, challenger),
        )
        field = record_field(idempotency) if idempotency is not None else ""
        stale = stale or {}
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    # two creates at once cannot both pass the cap, nor both take a pair (redis-py leaves
                    # Pipeline.watch unannotated)
                    pipe.watch(sent, records, pairs)  # type: ignore[no-untyped-call]
                    if idempotency is not None and (stored := pipe.hget(records, field)) is not None:
                        return made_by(_text(stored), idempotency)
                    if limit and pipe.zcard(sent) >= limit:
                        raise TooManyOpen
                    if challenged:
                        named = [_text(v) if v is not None else None for v in pipe.hmget(pairs, list(challenged))]
                        taken = [p for p, by in zip(challenged, named, strict=True) if by is not None and by != stale.get(p)]
                        if taken:
                            raise AlreadyChallenged(taken)
                    pipe.multi()
                    pipe.zadd(sent, {challenge_id: made_ms})
                    pipe.zadd(inbox, {challenge_id: made_ms})
                    if challenged:
                        pipe.hset(pairs, mapping=dict.fromkeys(challenged, challenge_id))
                    if idempotency is not None and made is not None:
                        pipe.hset(records, field, record_text(idempotency, made))
                        pipe.expire(records, idempotency.ttl)
                    pipe.execute()
                    return None
                except redis.WatchError:
                    continue

    def unclaim(self, challenger: str, challenge_id: str, idempotency: Idempotency | None = None) -> None:
        """Give back what :meth:`claim` took for a challenge that will not be made (an inbox it names is full): its
        places in the challenger's index and pairs, and the record of its create (so that a retry makes it anew), in
        one transaction on the challenger's slot."""
        records = records_key(self.prefix, challenger)
        field = record_field(idempotency) if idempotency is not None else ""
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(records)  # type: ignore[no-untyped-call]
                    stored = pipe.hget(records, field) if idempotency is not None else None
                    ours = stored is not None and json.loads(_text(stored)).get("made", {}).get("id") == challenge_id
                    pipe.multi()
                    pipe.zrem(inbox_key(self.prefix, challenger), challenge_id)
                    if ours:
                        pipe.hdel(records, field)
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        self.closed(challenger, challenge_id)

    def pairs(self, challenger: str, challenged: Sequence[str]) -> dict[str, str]:
        """Of ``challenged``, those a challenge of the challenger's named when it was claimed, with that challenge."""
        if not challenged:
            return {}
        named = self.redis.hmget(pairs_key(self.prefix, challenger), list(challenged))
        return {player: _text(by) for player, by in zip(challenged, named, strict=True) if by is not None}

    def receive(self, player_ids: Iterable[str], challenge_id: str, made_ms: int, limit: int = 0) -> list[str]:
        """List a challenge in the inboxes of the players it challenges, each unless they hold ``limit`` open ones
        received already (0: no limit); those whose inbox was full.  One script per player, on their slot, safe to
        repeat (a challenge listed already is listed)."""
        return self.receive_from("", (), player_ids, challenge_id, made_ms, limit)[0]

    def receive_from(
        self,
        challenger: str,
        played: Collection[str],
        player_ids: Iterable[str],
        challenge_id: str,
        made_ms: int,
        limit: int = 0,
    ) -> tuple[list[str], list[str]]:
        """As :meth:`receive`, each player's blocks and reach checked in the same script (``played``: those who have
        finished a game with ``challenger``): those whose inbox was full, and those who do not take the challenge."""
        full, refused = [], []
        for player_id in player_ids:
            keys = [
                inbox_key(self.prefix, player_id),
                received_key(self.prefix, player_id),
                list_key(self.prefix, player_id, "blocks"),
                reach_key(self.prefix, player_id),
            ]
            args: list[str | int] = [challenge_id, made_ms, limit, challenger, "1" if player_id in played else "0"]
            answer = int(cast(int, self._receive(keys=keys, args=args)))
            if answer == 0:
                full.append(player_id)
            elif answer < 0:
                refused.append(player_id)
        return full, refused

    def received(self, player_id: str) -> list[tuple[str, int]]:
        """The challenges the player received that were open when last seen, with the time each was made (ms)."""
        reply = self.redis.zrange(received_key(self.prefix, player_id), 0, -1, withscores=True)
        return [(_text(member), int(score)) for member, score in cast("list[tuple[str, float]]", reply)]

    def answered(self, player_ids: Iterable[str], challenge_id: str) -> None:
        """A challenge the players received is no longer open: it leaves what their inboxes' caps count (it stays in
        their inboxes).  Single-slot writes, each safe to repeat, in a plain pipeline (a cluster client splits it)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zrem(received_key(self.prefix, player_id), challenge_id)
            pipe.execute()

    def withdraw(self, player_ids: Iterable[str], challenge_id: str) -> None:
        """A challenge that will not be made leaves the inboxes it was listed in (and what their caps count)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zrem(received_key(self.prefix, player_id), challenge_id)
                pipe.zrem(inbox_key(self.prefix, player_id), challenge_id)
            pipe.execute()

    def sent(self, player_id: str) -> list[tuple[str, int]]:
        """The challenges the player sent that were open when last seen, with the time each was made (ms)."""
        reply = self.redis.zrange(sent_key(self.prefix, player_id), 0, -1, withscores=True)
        return [(_text(member), int(score)) for member, score in cast("list[tuple[str, float]]", reply)]

    def closed(self, player_id: str, challenge_id: str) -> None:
        """A challenge the player sent is no longer open: it leaves what the cap counts (it stays in the inbox), and
        the players it challenged may be challenged again (one script on the player's slot)."""
        self._closed(keys=[sent_key(self.prefix, player_id), pairs_key(self.prefix, player_id)], args=[challenge_id])

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
