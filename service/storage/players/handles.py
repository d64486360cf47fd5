"""A player's handle: given, changed, set aside or dropped; a player found by it or by its first letters; and
what a table shows of a player (the handle, or that the account was deleted).

The claims and the index of handles are :mod:`service.storage.handles`, on slots of their own: a claim is taken
before the player's record names the handle, the index entry written before it too (a reader checks the record),
and both let go of after the record no longer names it.
"""

from __future__ import annotations

import time

import redis

from service.storage.handles import Found, fold
from service.storage.players.base import PlayerBase
from service.storage.players.model import AccountGone, Player, PlayerTag, as_text, as_texts, stored_player


def _same(handle: str | None, other: str | None) -> bool:
    return handle is not None and other is not None and fold(handle) == fold(other)


class Handles(PlayerBase):
    """A player's handle, and the players found by theirs (see the module)."""

    def set_handle(self, player_id: str, handle: str | None, keep_ms: int = 0) -> Player:
        """Give the player ``handle`` (``None``: no handle), or raise :class:`HandleTaken`.

        The handle given up is set aside for ``keep_ms`` (0: freed now): only this player may take it back
        meanwhile.  A player sets aside one handle at a time, the one given up last: a change frees the one set
        aside before (unless it takes it back).  Only the case changed: the record changes, and nothing else.
        """
        current = self._got(player_id)  # AccountGone if it was deleted (its token worked when the request began)
        if handle is not None and _same(handle, current.handle):
            if handle != current.handle:
                if not self._set_if_player(keys=[self._player_key(player_id)], args=["handle", handle]):
                    raise AccountGone(player_id)
                self._forget(player_id)
            return self._got(player_id)
        if handle is not None:
            claim = self.claims.claim(handle, player_id, self._names)
            self.index.add(handle, player_id)  # a hint until the record names the handle (readers check)
            self.claims.refresh(claim, player_id)
        try:
            old, held = self._point_to(player_id, handle, keep=keep_ms > 0)
        except AccountGone:
            if handle is not None:  # deleted meanwhile: the handle claimed for it is nobody's
                self.index.remove(handle, player_id)
                self.claims.let_go(handle, player_id)
            raise
        if old is not None:
            self.index.remove(old, player_id)
            self.claims.let_go(old, player_id, keep_ms)  # set aside (or freed) after the record no longer names it
        if held is not None and not _same(held, handle):
            self.claims.let_go(held, player_id)  # the handle set aside before (unless taken back now): freed
        self._forget(player_id)
        return self._got(player_id)

    def _point_to(self, player_id: str, handle: str | None, *, keep: bool) -> tuple[str | None, str | None]:
        """Make the record name ``handle`` (and set aside the one it named, if ``keep``); what it named and had set
        aside before.  One transaction on the player's slot, decided again if the record changed meanwhile;
        :class:`AccountGone` if the record is a tombstone (the account was deleted since the request began)."""
        key = self._player_key(player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                    stored = pipe.hmget(key, ["handle", "held_handle", "name"])
                    if stored[2] is None:
                        raise AccountGone(player_id)
                    old, held = (as_text(value) if value else None for value in stored[:2])
                    pipe.multi()
                    if handle is None:
                        pipe.hdel(key, "handle")
                    else:
                        pipe.hset(key, "handle", handle)
                    if keep and old is not None:
                        pipe.hset(key, "held_handle", old)
                    else:
                        pipe.hdel(key, "held_handle")
                    pipe.execute()
                    return old, held
                except redis.WatchError:
                    continue

    def by_handle(self, handle: str) -> Player | None:
        """The player whose handle this is (case aside), if any: the claim says who, and their record must agree."""
        owner = self.claims.owner(handle)
        player = self.get(owner) if owner is not None else None
        return player if player is not None and _same(player.handle, handle) else None

    def search(self, prefix: str, after: Found | None, count: int) -> tuple[list[Player], Found | None]:
        """Up to ``count`` players whose handle starts with ``prefix`` (case aside), in handle order, after the entry
        ``after``; and the entry to pass as ``after`` for the next page (``None``: the last page).

        Index entries whose player's record does not name that handle (a change or a deletion on its way, or cut
        short) are passed over: a page may hold fewer than ``count`` players only when it is the last.
        """
        shown: list[tuple[Found, Player]] = []
        cursor = after
        while len(shown) <= count:
            wanted = count + 1 - len(shown)
            batch = self.index.starting(prefix, cursor, wanted)
            with self.redis.pipeline(transaction=False) as pipe:  # one key each: a cluster client splits it by node
                for found in batch:
                    pipe.hgetall(self._player_key(found.player_id))
                records = pipe.execute()
            for found, record in zip(batch, records, strict=True):
                cursor = found
                player = stored_player(found.player_id, as_texts(record))
                if player is not None and player.handle is not None and fold(player.handle) == found.folded:
                    shown.append((found, player))
            if len(batch) < wanted:
                break
        page = shown[:count]
        return [player for _, player in page], (page[-1][0] if len(shown) > count else None)

    def tags(self, player_ids: set[str]) -> dict[str, PlayerTag]:
        """What a table shows of each of these players (cached like token lookups: a change shows within
        ``cache_seconds`` in other processes)."""
        now = time.monotonic()
        out: dict[str, PlayerTag] = {}
        with self._lock:
            for player_id in player_ids:
                hit = self._tags.get(player_id)
                if hit is not None and hit[0] > now:
                    out[player_id] = hit[1]
        missing = sorted(player_ids - out.keys())
        if not missing:
            return out
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in missing:
                pipe.hmget(self._player_key(player_id), ["handle", "deleted_at"])
            replies = pipe.execute()
        with self._lock:
            if len(self._tags) > 50_000:
                self._tags.clear()
            for player_id, (handle, deleted_at) in zip(missing, replies, strict=True):
                tag = PlayerTag(as_text(handle) if handle and not deleted_at else None, deleted=bool(deleted_at))
                self._tags[player_id] = (now + self.cache_seconds, tag)
                out[player_id] = tag
        return out
