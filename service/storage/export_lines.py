"""A finished game's export line, kept once so a bulk export streams stored lines instead of rebuilding each replay.

Rebuilding a finished game's replay costs ~60 ms (its events folded, every step's table and sentence made), so an
export of a player's 10,000 games rebuilt each would take ten minutes; a line kept costs a read and an inflate.

- ``<prefix>game:{<id>}:export``  a hash on the game's slot:

  - ``seated``: the players who took a seat in it (comma-separated), whose names the line holds;
  - ``deleted``: those of them whose accounts were deleted when the line was made (their seats read "deleted player");
  - ``line:<language>``: the line ``exportReplay``'s document makes in that language, without its analysis (which
    may come later, and is outside the content hash: it is added as the line is sent), zlib-compressed and
    base64-written (the stores' client reads text; a line keeps an eighth of its bytes: ~180 KB, ~25 KB).

A line is a function of the game's events (append-only; a finished game's never change) and of which of its players
were deleted, so writing it again writes the same bytes (idempotent), and a line made before a deletion is stale: a
reader compares ``deleted`` with the players deleted now and makes the line again when they differ (a deletion's
own drop, :meth:`ExportLines.drop`, is then tidiness, not what keeps a name from being shown).  ``red7 archive
rebuild`` makes every line again and compares.
"""

from __future__ import annotations

import base64
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import redis

#: How hard a line is compressed: zlib's fastest level already keeps a replay's JSON to ~7%.
LEVEL = 1


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _ids(text: str | None) -> frozenset[str]:
    return frozenset(text.split(",")) if text else frozenset()


def pack(line: str) -> str:
    return base64.b64encode(zlib.compress(line.encode(), LEVEL)).decode("ascii")


def unpack(packed: str) -> str:
    return zlib.decompress(base64.b64decode(packed)).decode()


#: Keep a line: the lines kept with other seated or deleted players go first (made before a deletion), on one key.
_PUT = """
if redis.call('HGET', KEYS[1], 'seated') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'deleted') ~= ARGV[2] then
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'seated', ARGV[1], 'deleted', ARGV[2], ARGV[3], ARGV[4])
return 1
"""


@dataclass(frozen=True)
class Kept:
    """What is kept of a game's export: who is seated, who was deleted then, and its line in one language (if made),
    still compressed (an export holds a batch of these)."""

    seated: frozenset[str]
    deleted: frozenset[str]
    packed: str | None

    def line(self) -> str:
        assert self.packed is not None
        return unpack(self.packed)


class ExportLines:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._put = client.register_script(_PUT)

    def key(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:export"

    def get_many(self, game_ids: list[str], language: str) -> dict[str, Kept]:
        """The kept export of each of these games that has one (one pipeline; a key each, on its game's slot)."""
        if not game_ids:
            return {}
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hmget(self.key(game_id), "seated", "deleted", f"line:{language}")
            replies = pipe.execute()
        kept = {}
        for game_id, (seated, deleted, packed) in zip(game_ids, replies, strict=True):
            if seated is None:
                continue
            kept[game_id] = Kept(
                _ids(_text(seated)), _ids(_text(deleted) if deleted is not None else ""), _text(packed) if packed else None
            )
        return kept

    def put(self, game_id: str, seated: Iterable[str], deleted: Iterable[str], language: str, line: str) -> None:
        """Keep the game's line in ``language``, made with ``deleted`` erased; lines kept with other deletions go
        first, in the same script on the game's slot (so a line never sits beside another deletion's record)."""
        self._put(
            keys=[self.key(game_id)],
            args=[",".join(sorted(seated)), ",".join(sorted(deleted)), f"line:{language}", pack(line)],
        )

    def drop(self, game_ids: Iterable[str]) -> None:
        """Forget these games' lines (a deleted account's games: their names are to be erased)."""
        keys = [self.key(game_id) for game_id in game_ids]
        for start in range(0, len(keys), 500):
            with self.redis.pipeline(transaction=False) as pipe:  # a key each: a cluster client splits it by node
                for key in keys[start : start + 500]:
                    pipe.delete(key)
                pipe.execute()

    def languages(self, game_id: str) -> list[str]:
        """The languages the game's line is kept in."""
        fields = self.redis.hkeys(self.key(game_id))
        return sorted(_text(f).removeprefix("line:") for f in fields if _text(f).startswith("line:"))

    def games(self) -> Iterator[str]:
        """Every game with a kept line (a scan: of every primary, on a cluster)."""
        prefix = f"{self.prefix}game:{{"
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*}:export"
        for key in self.redis.scan_iter(match=pattern, count=1000):
            name = _text(key)
            yield name[len(prefix) : -len("}:export")]
