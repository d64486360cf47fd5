"""Each player's archive of finished games in Redis: an index a query pages through without folding a game.

A player's keys share their hash tag (``{<id>}``, the slot of their other keys: ``service/storage/players/keys.py``):

- ``<prefix>player:{<id>}:archive``          a sorted set of their finished games, scored by when each finished (ms)
- ``<prefix>player:{<id>}:archive:entries``  game id -> the game's entry (:class:`service.domain.archive.Entry`)
- ``<prefix>player:{<id>}:archive:hidden``   present while the player hides their archive from others

A game is indexed for each of its players in one plain pipeline (a slot each: no write spans two); for each, the entry
is written before the game joins the sorted set, so a reader never meets an id without its entry, and writing a game
again writes the same values (safe to repeat).  It is a projection of the game streams: ``red7 archive rebuild``
(:meth:`service.application.archive.ArchiveService.rebuild`) makes every entry again and compares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import cast

import redis

from service.domain.archive import Cursor, Entry
from service.storage.players.keys import player_key

#: Games read from Redis at a time while a query pages through an archive.
CHUNK = 200


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ArchiveStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def games_key(self, player_id: str) -> str:
        return f"{player_key(self.prefix, player_id)}:archive"

    def entries_key(self, player_id: str) -> str:
        return f"{self.games_key(player_id)}:entries"

    def hidden_key(self, player_id: str) -> str:
        return f"{self.games_key(player_id)}:hidden"

    # --- writing ------------------------------------------------------------------------------

    def add(self, entry: Entry, players: Iterable[str]) -> None:
        """Index ``entry`` in each of these players' archives (safe to repeat)."""
        text = entry.to_text()
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in sorted(players):
                pipe.hset(self.entries_key(player_id), entry.game_id, text)
                pipe.zadd(self.games_key(player_id), {entry.game_id: entry.finished_ms})
            pipe.execute()

    def replace(self, player_id: str, entries: Mapping[str, Entry]) -> None:
        """Write ``entries`` as the player's whole archive (a rebuild), in one transaction on their slot."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.games_key(player_id), self.entries_key(player_id))
            if entries:
                pipe.hset(self.entries_key(player_id), mapping={g: e.to_text() for g, e in entries.items()})
                pipe.zadd(self.games_key(player_id), {g: e.finished_ms for g, e in entries.items()})
            pipe.execute()

    def drop(self, player_id: str) -> None:
        """Forget the player's archive and its setting (a deleted account's)."""
        self.redis.delete(self.games_key(player_id), self.entries_key(player_id), self.hidden_key(player_id))

    def set_hidden(self, player_id: str, hidden: bool) -> None:
        if hidden:
            self.redis.set(self.hidden_key(player_id), "1")
        else:
            self.redis.delete(self.hidden_key(player_id))

    # --- reading ------------------------------------------------------------------------------

    def hidden(self, player_id: str) -> bool:
        return bool(self.redis.exists(self.hidden_key(player_id)))

    def count(self, player_id: str) -> int:
        return int(self.redis.zcard(self.games_key(player_id)))

    def entries(self, player_id: str, *, since: int | None, until: int | None, after: Cursor | None) -> Iterator[Entry]:
        """The player's entries newest first (equal times by id, descending: Redis's order), finished within
        ``since``..``until`` (ms, both included), after the position ``after``; read :data:`CHUNK` at a time."""
        key, entries_key = self.games_key(player_id), self.entries_key(player_id)
        top = until if until is not None else "+inf"
        if after is not None:
            top = after[0] if until is None else min(after[0], until)
        bottom = since if since is not None else "-inf"
        offset = 0
        while True:
            reply = self.redis.zrevrangebyscore(key, top, bottom, start=offset, num=CHUNK, withscores=True)
            chunk = [(_text(m), int(s)) for m, s in cast("list[tuple[bytes | str, float]]", reply)]
            if not chunk:
                return
            offset += len(chunk)
            wanted = [(g, ms) for g, ms in chunk if after is None or (ms, g) < after]
            if wanted:
                texts = self.redis.hmget(entries_key, [g for g, _ in wanted])
                for (game_id, _), text in zip(wanted, texts, strict=True):
                    if text is not None:
                        yield Entry.from_text(game_id, _text(text))
            if len(chunk) < CHUNK:
                return

    def game_ids(self, player_id: str) -> list[str]:
        """Every game in the player's archive."""
        return [_text(g) for g in cast("list[bytes | str]", self.redis.zrange(self.games_key(player_id), 0, -1))]

    def export(self, player_id: str) -> dict[str, str]:
        """The player's stored archive as text: game id -> entry (what a rebuild compares)."""
        stored = cast("dict[str, str]", self.redis.hgetall(self.entries_key(player_id)))
        listed = {_text(g) for g in cast("list[bytes | str]", self.redis.zrange(self.games_key(player_id), 0, -1))}
        return {_text(g): _text(t) for g, t in sorted(stored.items()) if _text(g) in listed}

    def players(self) -> Iterator[str]:
        """Every player who has an archive (a scan: of every primary, on a cluster)."""
        prefix = f"{self.prefix}player:{{"
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*}:archive"
        for key in self.redis.scan_iter(match=pattern, count=1000):
            name = _text(key)
            yield name[len(prefix) : -len("}:archive")]
