"""Blocks, mutes and who may reach a player, in Redis: each player's lists on the player's slot.

Keys (hash-tagged by player, ``{<id>}``, beside the player's record: :mod:`service.storage.players`):

- ``<prefix>player:{<id>}:blocks``, ``:mutes`` sorted sets: each player this one blocked (muted), scored by when
  (ms): the lists a player pages through, newest first, and what the caps count
- ``<prefix>player:{<id>}:blocked_by``, ``:muted_by`` sets: who blocked (muted) this player, only so that deleting
  either account removes the pair both ways (nothing else reads them: a block is private)
- ``<prefix>player:{<id>}:reach`` a hash: ``challenge`` and ``talk``, who may challenge this player and talk to them
  at a table (absent: the defaults, :class:`~service.domain.blocks.Reach`)

A pair's two entries are on two slots, so no write covers both.  They are ordered: the reverse entry (``blocked_by``)
is written before the block and removed after it, so a crash in between leaves at most a reverse entry with no
block behind it, which erasure removes as it finds it and nothing else reads.  A block is added by one script on the
blocker's slot with its cap's check (:data:`ADD`); a challenge is let into an inbox by one script on the challenged
player's slot that reads their blocks and reach in the same step (:data:`service.storage.challenges.RECEIVE`), so a
block or a "nobody" stored before that step refuses the challenge, whatever runs beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

import redis

from service.storage.players.keys import played_key, player_key

#: The two lists a player keeps of others, and the reverse index of each.
LISTS = {"blocks": "blocked_by", "mutes": "muted_by"}


def list_key(prefix: str, player_id: str, which: str) -> str:
    """A player's list ``which`` (``blocks`` or ``mutes``, or their reverse ``blocked_by``, ``muted_by``)."""
    return f"{player_key(prefix, player_id)}:{which}"


def reach_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:reach"


#: KEYS: the player's list.  ARGV: the other player, when (ms), the cap.  2: listed already (its time kept); 1: listed
#: now; 0: the list is at its cap.
ADD = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


class ListFull(Exception):
    """The player's list is at its cap."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class BlockStore:
    """Each player's blocks, mutes and reach (see the module for the keys and the order of writes)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._add = client.register_script(ADD)

    def add(self, which: str, player_id: str, other_id: str, at_ms: int, cap: int) -> bool:
        """List ``other_id`` in the player's ``which`` list; ``False``: listed already (nothing changed).
        :class:`ListFull` when the list holds ``cap`` players."""
        reverse = LISTS[which]
        self.redis.sadd(list_key(self.prefix, other_id, reverse), player_id)  # before the block (see the module)
        added = int(cast(int, self._add(keys=[list_key(self.prefix, player_id, which)], args=[other_id, at_ms, cap])))
        if added == 0:
            if self.redis.zscore(list_key(self.prefix, player_id, which), other_id) is None:
                self.redis.srem(list_key(self.prefix, other_id, reverse), player_id)
            raise ListFull(which)
        return added == 1

    def remove(self, which: str, player_id: str, other_id: str) -> bool:
        """Unlist ``other_id`` from the player's ``which`` list; ``False``: it was not listed."""
        removed = bool(self.redis.zrem(list_key(self.prefix, player_id, which), other_id))
        self.redis.srem(list_key(self.prefix, other_id, LISTS[which]), player_id)  # after the block (see the module)
        return removed

    def has(self, which: str, player_id: str, other_id: str) -> bool:
        return self.since(which, player_id, other_id) is not None

    def since(self, which: str, player_id: str, other_id: str) -> int | None:
        """When the player listed ``other_id`` (ms), or ``None``."""
        score = self.redis.zscore(list_key(self.prefix, player_id, which), other_id)
        return None if score is None else int(score)

    def hearing(self, reader_id: str, others: Iterable[str]) -> tuple[set[str], dict[str, str]]:
        """What decides what ``reader_id`` receives from ``others`` at a table, in one round trip (table talk reads it
        on every message said and every live feed's wake): those of ``others`` the reader muted or blocked or who
        blocked the reader, and the reader's stored reach (as :meth:`reach`)."""
        others = list(others)
        pipe = self.redis.pipeline(transaction=False)
        for other in others:
            pipe.zscore(list_key(self.prefix, reader_id, "mutes"), other)
            pipe.zscore(list_key(self.prefix, reader_id, "blocks"), other)
            pipe.zscore(list_key(self.prefix, other, "blocks"), reader_id)
        pipe.hgetall(reach_key(self.prefix, reader_id))
        *scores, raw = pipe.execute()
        kept = {other for n, other in enumerate(others) if any(s is not None for s in scores[3 * n : 3 * n + 3])}
        return kept, {_text(k): _text(v) for k, v in cast("Mapping[bytes | str, bytes | str]", raw).items()}

    def count(self, which: str, player_id: str) -> int:
        return int(self.redis.zcard(list_key(self.prefix, player_id, which)))

    def page(self, which: str, player_id: str, before: tuple[int, str] | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` of the player's ``which`` list, newest first, after the cursor ``before`` = (ms, id) of the
        last one seen (equal times in descending id, Redis's order: none skipped or repeated)."""
        key = list_key(self.prefix, player_id, which)
        top: float | str = "+inf" if before is None else before[0]
        found: list[tuple[str, int]] = []
        offset = 0
        while len(found) < count:
            reply = self.redis.zrevrangebyscore(key, top, "-inf", start=offset, num=count + 16, withscores=True)
            chunk = cast("list[tuple[bytes | str, float]]", reply)
            for member, score in chunk:
                other = _text(member)
                if before is not None and int(score) == before[0] and other >= before[1]:
                    continue  # seen on an earlier page
                found.append((other, int(score)))
            if len(chunk) < count + 16:
                break
            offset += len(chunk)
        return found[:count]

    def blocks_of(self, player_ids: Iterable[str]) -> dict[str, list[str]]:
        """Each player's blocked players (those who blocked nobody left out): one plain pipeline of single-slot reads,
        which a cluster client splits by node — the matchmaker's read of a pool's players."""
        players = list(dict.fromkeys(player_ids))
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in players:
                pipe.zrange(list_key(self.prefix, player_id, "blocks"), 0, -1)
            replies = pipe.execute()
        return {p: [_text(m) for m in reply] for p, reply in zip(players, replies, strict=True) if reply}

    # --- reach ------------------------------------------------------------------------------------

    def reach(self, player_id: str) -> dict[str, str]:
        """The player's stored settings (``challenge``, ``talk``), those never set left out."""
        raw = cast("Mapping[bytes | str, bytes | str]", self.redis.hgetall(reach_key(self.prefix, player_id)))
        return {_text(k): _text(v) for k, v in raw.items()}

    def set_reach(self, player_id: str, values: Mapping[str, str]) -> None:
        if values:
            for name, value in values.items():
                self.redis.hset(reach_key(self.prefix, player_id), name, value)

    def played_together(self, player_id: str, other_id: str) -> bool:
        """Whether the two players have both played (and finished) one game: their records' sets of game ids meet."""
        mine = sorted(_text(g) for g in self.redis.smembers(played_key(self.prefix, player_id)))
        theirs = played_key(self.prefix, other_id)
        for start in range(0, len(mine), 500):
            chunk = mine[start : start + 500]
            if any(cast("list[int]", self.redis.smismember(theirs, chunk))):
                return True
        return False

    # --- a deleted account --------------------------------------------------------------------------

    def erase(self, player_id: str) -> None:
        """Remove every pair the player is part of, both ways, and their settings (safe to repeat)."""
        for which, reverse in LISTS.items():
            mine = [
                _text(m) for m in cast("list[bytes | str]", self.redis.zrange(list_key(self.prefix, player_id, which), 0, -1))
            ]
            theirs = [_text(m) for m in self.redis.smembers(list_key(self.prefix, player_id, reverse))]
            with self.redis.pipeline(transaction=False) as pipe:
                for other in mine:
                    pipe.srem(list_key(self.prefix, other, reverse), player_id)
                for other in theirs:
                    pipe.zrem(list_key(self.prefix, other, which), player_id)
                pipe.execute()
            self.redis.delete(list_key(self.prefix, player_id, which))
            self.redis.delete(list_key(self.prefix, player_id, reverse))
        self.redis.delete(reach_key(self.prefix, player_id))
