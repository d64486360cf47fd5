"""The ladders in Redis: each a fold of its finished rated games, every game applied once, atomically, in order.

A ladder's keys share the hash tag ``{ladder:<name>}`` (one Redis Cluster slot, so one script writes them all):

- ``<prefix>ladder:{<name>}:version``  how many writes the ladder has taken (the optimistic-lock token)
- ``<prefix>ladder:{<name>}:records``  player -> their record: μ, σ, games that moved it, played, won, places, ...
- ``<prefix>ladder:{<name>}:games``    game id -> the game as applied: each seat's player, place, form before and after,
  and whose results counted for them
- ``<prefix>ladder:{<name>}:order``    a sorted set of the games applied, scored by the time they finished (ms)
- ``<prefix>ladder:{<name>}:ranked``   the players the fold ranks (established ratings), scored by μ
- ``<prefix>ladder:{<name>}:board``    the leaderboard: ``ranked`` but the hidden players, scored by μ
- ``<prefix>ladder:{<name>}:hidden``   player -> why they are kept off the leaderboard (``deleted``, ``banned``: a
  comma-separated set), not a fold of the streams but what the board honours
- ``<prefix>ladder:{<name>}:played:<player>``  a player's games on the ladder, scored by when they finished

A game is applied by :meth:`RatingStore.apply`: read what it needs (the version, whether the game is applied, the
games that finished after it, the games its people played in the pair limit's window before it, its players'
records), compute (:func:`service.domain.ratings.insert`), then one script that writes everything only if the game is
still not applied and the version is still the one read.  So a game is applied once however many jobs apply it at
once or again (the script answers ``applied``), a worker killed mid-update leaves the ladder as it was (the script
runs whole or not at all), and two games of one ladder applied at once are applied one after the other (the second
finds a new version and computes again).  Every value written is what :class:`service.domain.ratings.Ladder` would hold:
:meth:`RatingStore.export` reads a ladder in the shape of :meth:`service.domain.ratings.Ladder.stored`, which is how the
rebuild compares them byte for byte.

Hiding a player (:meth:`RatingStore.hide`: a deleted account, a ban) takes them off the board and keeps them off
whatever games are applied after; showing them again (:meth:`RatingStore.show`, once no reason is left) puts back
their ``ranked`` score.  Both are one script on the ladder's slot; neither changes the fold (records, games, ranked),
so a hidden player's past games stay rated for everyone else, and a rebuild finds the same bytes: it compares the
board it folds less the hidden players with the board stored.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.domain.ratings import (
    RULES,
    Applied,
    Ladder,
    PairLog,
    Record,
    Result,
    Rules,
    established,
    exact,
    insert,
    is_ai,
    text,
)

APPLY_SCRIPT = """
-- KEYS: 1 version, 2 games, 3 records, 4 order, 5 ranked, 6 board, 7 hidden, 8.. the played keys of the game's players
-- ARGV: 1 expected version, 2 game id, 3 when it finished (ms), 4 how many games follow, then game id and text
--       pairs, then how many records follow, then player, record and score triples (score '': not ranked)
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return {'applied', tostring(current)} end
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
local i = 5
for _ = 1, tonumber(ARGV[4]) do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
local records = tonumber(ARGV[i])
i = i + 1
for _ = 1, records do
  local player, score = ARGV[i], ARGV[i + 2]
  redis.call('HSET', KEYS[3], player, ARGV[i + 1])
  if score == '' then
    redis.call('ZREM', KEYS[5], player)
    redis.call('ZREM', KEYS[6], player)
  else
    redis.call('ZADD', KEYS[5], score, player)
    if redis.call('HEXISTS', KEYS[7], player) == 0 then redis.call('ZADD', KEYS[6], score, player) end
  end
  i = i + 3
end
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
for k = 8, #KEYS do redis.call('ZADD', KEYS[k], ARGV[3], ARGV[2]) end
redis.call('SET', KEYS[1], current + 1)
return {'ok', tostring(current + 1)}
"""

HIDE_SCRIPT = """
-- KEYS: 1 hidden, 2 board.  ARGV: 1 player, 2 the reason.  Adds the reason; off the board.
local reasons = {}
for reason in string.gmatch(redis.call('HGET', KEYS[1], ARGV[1]) or '', '[^,]+') do reasons[reason] = true end
reasons[ARGV[2]] = true
local sorted = {}
for reason in pairs(reasons) do table.insert(sorted, reason) end
table.sort(sorted)
redis.call('HSET', KEYS[1], ARGV[1], table.concat(sorted, ','))
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

SHOW_SCRIPT = """
-- KEYS: 1 hidden, 2 board, 3 ranked.  ARGV: 1 player, 2 the reason.  Drops the reason; back on the board if no
-- reason is left and the fold ranks them.
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return 0 end
local left = {}
for reason in string.gmatch(stored, '[^,]+') do
  if reason ~= ARGV[2] then table.insert(left, reason) end
end
if #left > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], table.concat(left, ','))
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
local score = redis.call('ZSCORE', KEYS[3], ARGV[1])
if score then redis.call('ZADD', KEYS[2], score, ARGV[1]) end
return 1
"""

#: Attempts of one apply against writers of the same ladder before it gives up (its job is then retried by RQ).
ATTEMPTS = 50


class LadderBusy(Exception):
    """Other games kept changing the ladder through every attempt to apply one."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player on a ladder: their record, rank (1 is first) and how many are ranked."""

    player: str
    record: Record
    rank: int | None  # None: not on the leaderboard (provisional, or hidden)
    ranked: int


@dataclass(frozen=True, slots=True)
class BoardLine:
    rank: int
    player: str
    record: Record


class RatingStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:", rules: Rules = RULES) -> None:
        self.redis = client
        self.prefix = prefix
        self.rules = rules  # the fold's (the service's are RULES; tests fold with others)
        self._apply = client.register_script(APPLY_SCRIPT)
        self._hide = client.register_script(HIDE_SCRIPT)
        self._show = client.register_script(SHOW_SCRIPT)

    def key(self, ladder: str, part: str) -> str:
        return f"{self.prefix}ladder:{{{ladder}}}:{part}"

    # --- writing ------------------------------------------------------------------------------

    def apply(self, result: Result) -> tuple[bool, Applied]:
        """Apply a finished rated game to its ladder once: ``(True, as applied now)``, or ``(False, as applied
        before)`` when it already was.  Raises :class:`LadderBusy` if every attempt met another write."""
        for attempt in range(ATTEMPTS):
            done = self._try(result)
            if done is not None:
                return done
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise LadderBusy(f"ladder {result.ladder} changed under every one of {ATTEMPTS} attempts to apply {result.game_id}")

    def _try(self, result: Result) -> tuple[bool, Applied] | None:
        ladder, game_id, ms = result.ladder, result.game_id, result.finished_ms
        people = [p for p in result.players if not is_ai(p)]
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(self.key(ladder, "version"))
            pipe.hget(self.key(ladder, "games"), game_id)
            pipe.zrangebyscore(self.key(ladder, "order"), ms, "+inf", withscores=True)
            pipe.hmget(self.key(ladder, "records"), result.players)
            for player in people:
                pipe.zrangebyscore(self.key(ladder, f"played:{player}"), ms - self.rules.pair_window_ms, ms, withscores=True)
            version_text, stored, after, texts, *windows = pipe.execute()
        if stored is not None:
            return False, Applied.from_text(game_id, ladder, _text(stored))
        later_ids = [_text(member) for member, score in after if (int(score), _text(member)) > result.key]
        records = {p: Record.from_text(_text(t)) for p, t in zip(result.players, texts, strict=True) if t is not None}
        later: list[Applied] = []
        if later_ids:
            stored_later = self.redis.hmget(self.key(ladder, "games"), later_ids)
            found = zip(later_ids, stored_later, strict=True)
            later = [Applied.from_text(g, ladder, _text(t)) for g, t in found if t is not None]
            others = sorted({p for a in later for p in a.result.players} - set(records))
            if others:
                records.update(
                    (p, Record.from_text(_text(t)))
                    for p, t in zip(others, self.redis.hmget(self.key(ladder, "records"), others), strict=True)
                    if t is not None
                )
            more = sorted({p for a in later for p in a.result.players if not is_ai(p)} - set(people))
            windows += [self._window(ladder, player, ms) for player in more]
        log = PairLog(self.rules.pair_window_ms, self._before(ladder, result, windows, {a.result.game_id for a in later}))
        games, changed = insert(result, records, later, log, self.rules)
        args: list[Any] = [int(version_text or 0), game_id, ms, len(games)]
        for applied in games:
            args += [applied.result.game_id, applied.to_text()]
        args.append(len(changed))
        for player, record in changed.items():
            args += [player, record.to_text(), text(record.rating.mu) if established(player, record.form, self.rules) else ""]
        keys = [self.key(ladder, part) for part in ("version", "games", "records", "order", "ranked", "board", "hidden")]
        keys += [self.key(ladder, f"played:{player}") for player in result.players]
        outcome, _ = self._apply(keys=keys, args=args)
        if _text(outcome) == "ok":
            return True, games[0]
        if _text(outcome) == "applied":
            again = self.redis.hget(self.key(ladder, "games"), game_id)
            assert again is not None  # applied, and a ladder's games are never deleted (but by a rebuild's write)
            return False, Applied.from_text(game_id, ladder, _text(again))
        return None  # another game was applied meanwhile: compute again

    def _window(self, ladder: str, player: str, ms: int) -> Any:
        return self.redis.zrangebyscore(self.key(ladder, f"played:{player}"), ms - self.rules.pair_window_ms, ms, withscores=True)

    def _before(self, ladder: str, result: Result, windows: Iterable[Any], later: set[str]) -> list[Applied]:
        """The games of the pair limit's window before ``result`` that its people (and those of the games after it)
        played, as applied: what the pair limit counts (read outside the script, whose version check vouches for it)."""
        ids = sorted(
            {
                _text(member)
                for window in windows
                for member, score in window
                if (int(score), _text(member)) < result.key and _text(member) not in later
            }
        )
        if not ids:
            return []
        found = zip(ids, self.redis.hmget(self.key(ladder, "games"), ids), strict=True)
        return [Applied.from_text(g, ladder, _text(t)) for g, t in found if t is not None]

    def replace(self, ladder: Ladder, expected_version: int) -> bool:
        """Write ``ladder`` (a rebuild) in place of the stored one, unless the stored one changed since its version was
        read, or a player was hidden or shown meanwhile (``False``).  One transaction on the ladder's slot."""
        name = ladder.name
        version_key, hidden_key = self.key(name, "version"), self.key(name, "hidden")
        old_played = [self.key(name, f"played:{_text(p)}") for p in self.redis.hkeys(self.key(name, "records"))]
        with self.redis.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(version_key, hidden_key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                if int(pipe.get(version_key) or 0) != expected_version:
                    return False
                stored = ladder.stored(hidden=(_text(p) for p in pipe.hkeys(hidden_key)))
                pipe.multi()
                for part in ("games", "records", "order", "ranked", "board"):
                    pipe.delete(self.key(name, part))
                for key in old_played:
                    pipe.delete(key)
                if stored["games"]:
                    pipe.hset(self.key(name, "games"), mapping=stored["games"])
                    pipe.zadd(self.key(name, "order"), {g: int(ms) for g, ms in stored["order"].items()})
                if stored["records"]:
                    pipe.hset(self.key(name, "records"), mapping=stored["records"])
                for part in ("ranked", "board"):
                    if stored[part]:
                        pipe.zadd(self.key(name, part), {p: float(score) for p, score in stored[part].items()})
                for player, games in stored["played"].items():
                    pipe.zadd(self.key(name, f"played:{player}"), {g: int(ms) for g, ms in games.items()})
                pipe.set(version_key, expected_version + 1)
                pipe.execute()
            except redis.WatchError:
                return False
        return True

    def hide(self, ladder: str, player: str, reason: str) -> None:
        """Keep ``player`` off the ladder's leaderboard for ``reason`` (``deleted``, ``banned``), until every reason is
        taken back (:meth:`show`); their record, games and rating stay as the fold made them.  Safe to repeat."""
        self._hide(keys=[self.key(ladder, "hidden"), self.key(ladder, "board")], args=[player, reason])

    def show(self, ladder: str, player: str, reason: str) -> bool:
        """Take ``reason`` back; with no reason left, ``player`` is on the leaderboard again if the fold ranks them.
        Whether no reason is left (safe to repeat)."""
        keys = [self.key(ladder, part) for part in ("hidden", "board", "ranked")]
        return bool(self._show(keys=keys, args=[player, reason]))

    # --- reading ------------------------------------------------------------------------------

    def version(self, ladder: str) -> int:
        return int(self.redis.get(self.key(ladder, "version")) or 0)

    def players(self, ladder: str) -> list[str]:
        """Every player the ladder has a record of."""
        return [_text(p) for p in self.redis.hkeys(self.key(ladder, "records"))]

    def hidden(self, ladder: str) -> dict[str, tuple[str, ...]]:
        """The players kept off the ladder's leaderboard, each with why."""
        stored = cast("dict[str, str]", self.redis.hgetall(self.key(ladder, "hidden")))
        return {_text(p): tuple(_text(r).split(",")) for p, r in stored.items()}

    def export(self, ladder: str) -> dict[str, Any]:
        """The stored ladder as text, in the shape of :meth:`service.domain.ratings.Ladder.stored` (numbers as stored)."""
        records = cast("dict[str, str]", self.redis.hgetall(self.key(ladder, "records")))
        games = cast("dict[str, str]", self.redis.hgetall(self.key(ladder, "games")))
        order = _scored(self.redis.zrange(self.key(ladder, "order"), 0, -1, withscores=True))
        ranks = _scored(self.redis.zrange(self.key(ladder, "ranked"), 0, -1, withscores=True))
        board = _scored(self.redis.zrange(self.key(ladder, "board"), 0, -1, withscores=True))
        players = sorted(records)
        with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.zrange(self.key(ladder, f"played:{player}"), 0, -1, withscores=True)
            played = pipe.execute()
        return {
            "records": dict(sorted(records.items())),
            "games": dict(sorted(games.items())),
            "order": {g: str(int(ms)) for g, ms in sorted(order)},
            "ranked": {p: text(exact(score)) for p, score in sorted(ranks)},
            "board": {p: text(exact(score)) for p, score in sorted(board)},
            "played": {
                p: {g: str(int(ms)) for g, ms in sorted(_scored(games_of))}
                for p, games_of in zip(players, played, strict=True)
                if games_of
            },
        }

    def has(self, ladder: str, game_id: str) -> bool:
        return bool(self.redis.hexists(self.key(ladder, "games"), game_id))

    def game(self, ladder: str, game_id: str) -> Applied | None:
        stored = self.redis.hget(self.key(ladder, "games"), game_id)
        return None if stored is None else Applied.from_text(game_id, ladder, _text(stored))

    def games(self, ladder: str, game_ids: Sequence[str]) -> dict[str, Applied]:
        """These games as the ladder applied them (those it has not left out), in one read."""
        if not game_ids:
            return {}
        texts = self.redis.hmget(self.key(ladder, "games"), list(game_ids))
        return {g: Applied.from_text(g, ladder, _text(t)) for g, t in zip(game_ids, texts, strict=True) if t is not None}

    def records(self, ladder: str, players: Sequence[str]) -> dict[str, Record]:
        if not players:
            return {}
        texts = self.redis.hmget(self.key(ladder, "records"), list(players))
        return {p: Record.from_text(_text(t)) for p, t in zip(players, texts, strict=True) if t is not None}

    def standing(self, ladder: str, player: str) -> Standing | None:
        """The player's record, with their rank on the leaderboard (``None`` while it does not show them: not
        established, or hidden) and how many it ranks; ``None`` if the ladder has not rated them."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self.key(ladder, "records"), player)
            pipe.zrevrank(self.key(ladder, "board"), player)
            pipe.zcard(self.key(ladder, "board"))
            stored, rank, ranked = pipe.execute()
        if stored is None:
            return None
        return Standing(player, Record.from_text(stored), None if rank is None else int(rank) + 1, int(ranked))

    def board(self, ladder: str, start: int, count: int) -> tuple[list[BoardLine], int]:
        """``count`` lines of the leaderboard from rank ``start + 1``, and how many players it ranks."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(self.key(ladder, "board"), start, start + count - 1)
            pipe.zcard(self.key(ladder, "board"))
            players, ranked = pipe.execute()
        names = [_text(p) for p in players]
        records = self.records(ladder, names)
        lines = [BoardLine(start + n + 1, p, records[p]) for n, p in enumerate(names) if p in records]
        return lines, int(ranked)

    def rank_of(self, ladder: str, player: str) -> int | None:
        """The player's rank on the leaderboard (1 is first), or ``None`` if it does not show them."""
        rank = self.redis.zrevrank(self.key(ladder, "board"), player)
        return None if rank is None else int(cast(int, rank)) + 1

    def history(self, ladder: str, player: str, count: int) -> list[Applied]:
        """The player's last ``count`` games on the ladder, the latest first."""
        found = cast("list[bytes | str]", self.redis.zrevrange(self.key(ladder, f"played:{player}"), 0, count - 1))
        game_ids = [_text(g) for g in found]
        if not game_ids:
            return []
        texts = self.redis.hmget(self.key(ladder, "games"), game_ids)
        return [Applied.from_text(g, ladder, _text(t)) for g, t in zip(game_ids, texts, strict=True) if t is not None]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _scored(reply: Any) -> list[tuple[str, float]]:
    """A sorted set's members with their scores (``WITHSCORES``), as text and floats."""
    return [(_text(member), float(score)) for member, score in cast("list[tuple[bytes | str, float]]", reply)]
