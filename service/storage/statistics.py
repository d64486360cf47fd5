"""Statistics across finished games in Redis (issue 40, item 5): counters a read sums nothing to answer.

Two kinds of group, each a hash of counters beside the set of the games counted in it, both on one slot:

- ``<prefix>player:{<id>}:stats`` and ``:stats:games``   a player's (on the player's slot, with their other keys)
- ``<prefix>stats:{<variant>:<players>}`` and ``:games``  everyone's, one group per variant and player count
  (six keys' pairs: ``basic:2`` ... ``advanced:4``), each on its own slot

A game is counted in a group by one script on the group's slot that adds the game to the group's set and, only if it
was not there, adds its counters: a game is counted once however often its finish is seen (a job run twice, a
listing that finds it finished again).  A game touches a group per player and its everyone's group, each its own
write: one cut short is made by the next time the game is counted, or by ``red7 stats rebuild --write``.  It is a
projection of the game streams: the rebuild (:meth:`service.application.statistics.StatisticsService.rebuild`)
counts every game again and compares each group's text (:func:`service.domain.statistics.canonical`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import redis

from service.domain.statistics import canonical
from service.storage.players.keys import player_key

#: Add the game (ARGV[1]) to the group's set (KEYS[2]) and, if it was new, its counters (ARGV[2..]: field, n, ...)
#: to the group's hash (KEYS[1]).  1 if counted now, 0 if it was already.
_COUNT = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class StatisticsStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix
        self._count = client.register_script(_COUNT)

    # --- the keys -----------------------------------------------------------------------------

    def player_keys(self, player_id: str) -> tuple[str, str]:
        key = f"{player_key(self.prefix, player_id)}:stats"
        return key, f"{key}:games"

    def group_keys(self, group: str) -> tuple[str, str]:
        key = f"{self.prefix}stats:{{{group}}}"
        return key, f"{key}:games"

    # --- writing ------------------------------------------------------------------------------

    def _add(self, keys: tuple[str, str], game_id: str, counts: Mapping[str, int]) -> bool:
        args: list[str | int] = [game_id]
        for field, n in sorted(counts.items()):
            args += [field, n]
        return bool(self._count(keys=list(keys), args=args))

    def count_player(self, player_id: str, game_id: str, counts: Mapping[str, int]) -> bool:
        """Count the game in the player's statistics unless it is already (True: counted now)."""
        return self._add(self.player_keys(player_id), game_id, counts)

    def count_group(self, group: str, game_id: str, counts: Mapping[str, int]) -> bool:
        """Count the game in everyone's statistics of its group unless it is already (True: counted now)."""
        return self._add(self.group_keys(group), game_id, counts)

    def _replace(self, keys: tuple[str, str], counts: Mapping[str, int], games: set[str]) -> None:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(*keys)
            if counts:
                pipe.hset(keys[0], mapping={field: count for field, count in counts.items()})
            if games:
                pipe.sadd(keys[1], *sorted(games))
            pipe.execute()

    def replace_player(self, player_id: str, counts: Mapping[str, int], games: set[str]) -> None:
        """Write a player's statistics whole (a rebuild), in one transaction on their slot."""
        self._replace(self.player_keys(player_id), counts, games)

    def replace_group(self, group: str, counts: Mapping[str, int], games: set[str]) -> None:
        self._replace(self.group_keys(group), counts, games)

    def drop(self, player_id: str) -> None:
        """Forget a player's statistics (a deleted account's; the games stay in everyone's)."""
        self.redis.delete(*self.player_keys(player_id))

    # --- reading ------------------------------------------------------------------------------

    def _counts(self, key: str) -> dict[str, int]:
        stored = self.redis.hgetall(key)
        return {_text(k): int(v) for k, v in stored.items()}

    def player(self, player_id: str) -> dict[str, int]:
        return self._counts(self.player_keys(player_id)[0])

    def group(self, group: str) -> dict[str, int]:
        return self._counts(self.group_keys(group)[0])

    def _export(self, keys: tuple[str, str]) -> str:
        games = {_text(g) for g in self.redis.smembers(keys[1])}
        return canonical(self._counts(keys[0]), games)

    def export_player(self, player_id: str) -> str:
        """The player's stored statistics as text (what a rebuild compares)."""
        return self._export(self.player_keys(player_id))

    def export_group(self, group: str) -> str:
        return self._export(self.group_keys(group))

    def players(self) -> Iterator[str]:
        """Every player who has statistics stored (a scan: of every primary, on a cluster)."""
        prefix = f"{self.prefix}player:{{"
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*}:stats"
        for key in self.redis.scan_iter(match=pattern, count=1000):
            name = _text(key)
            yield name[len(prefix) : -len("}:stats")]
