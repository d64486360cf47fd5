"""Ratings as the entry points ask for them: a finished game applied to its ladder, leaderboards, a player's ratings,
the seats' ratings in a game's view, and the rebuild of every ladder from the game streams.

The ladders are a projection of the finished rated games (:mod:`service.domain.ratings` is the fold,
:mod:`service.storage.ratings` keeps it): the ``rate`` job (``workers/jobs.py``) calls :meth:`RatingService.apply`
when a rated game finishes, and whatever order those jobs run in, or however often, each game is applied once and
the ladder is the fold of its games in the order they finished.  ``red7 ratings rebuild``
(:meth:`RatingService.rebuild`) folds the game streams again and compares, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from service.common.errors import NotFound, Refused
from service.domain.game import Game, decode
from service.domain.ratings import (
    LADDERS,
    NEW,
    RULES,
    Applied,
    Form,
    Ladder,
    Record,
    Result,
    Rules,
    counts,
    established,
    fold,
    is_ai,
    is_rated,
    ladder_of,
    rated_player,
    result_of,
)
from service.storage.events import EventStore
from service.storage.ratings import BoardLine, LadderBusy, RatingStore

__all__ = ["HIDDEN_BECAUSE", "LADDERS", "BoardLine", "LadderBusy", "RatingService", "Rebuilt", "record_json"]

log = logging.getLogger("red7.ratings")

#: Rating changes a player's ratings show per ladder (the latest first).
HISTORY = 10
#: The longest page of a leaderboard.
MAX_PAGE = 100
#: Why a player is kept off the leaderboards: their account was deleted, or they are banned (issue 36 lifts a ban
#: with :meth:`RatingService.show`).
HIDDEN_BECAUSE = ("deleted", "banned")


def record_json(player: str, record: Record, rules: Rules = RULES) -> dict[str, Any]:
    """A player's rating and record on a ladder, as the API shows it."""
    rating = record.rating
    return {
        "rating": rating.shown,
        "provisional": not established(player, record.form, rules),
        "mu": rating.mu,
        "sigma": rating.sigma,
        "counted": record.counted,
        "played": record.played,
        "won": record.won,
        "average_place": _average(record.places, record.played),
        "by_players": {
            str(n): {"played": played, "won": won, "average_place": _average(places, played)}
            for n, (played, won, places) in sorted(record.by_players.items())
        },
    }


def _average(places: int, played: int) -> float | None:
    return round(places / played, 2) if played else None


def change_json(applied: Applied, player: str) -> dict[str, Any]:
    """A rating change a game made: the player's rating before and after it, their place, and whether it counted
    (``not_counted``: why not, when it did not)."""
    before, after = applied.before[player].rating, applied.after[player].rating
    place = next(p.place for p in applied.result.seats if p.player == player)
    return {
        "game_id": applied.result.game_id,
        "finished_at": applied.result.finished_at,
        "players": len(applied.result.seats),
        "place": place,
        "before": before.shown,
        "after": after.shown,
        "change": after.shown - before.shown,
        "counted": applied.counted(player),
        "not_counted": not_counted(applied, player),
    }


def not_counted(applied: Applied, player: str) -> str | None:
    """Why a game did not move ``player``'s rating (``None``: it did): the pair limit left out the only opponents who
    counted (``pair_limit``), or none of them had an established rating (``no_established_opponent``)."""
    if applied.counted(player):
        return None
    return "pair_limit" if applied.limited.get(player) else "no_established_opponent"


@dataclass
class Rebuilt:
    """What a rebuild found: per ladder, the games folded, the digest of the fold and of the stored ladder."""

    games: int = 0  # finished rated games found in the streams
    ladders: dict[str, tuple[int, str, str]] = field(default_factory=dict)  # ladder -> (games, rebuilt, stored)
    written: list[str] = field(default_factory=list)
    #: Deleted accounts taken off the leaderboards by a rebuild that writes (deleted before the ladders hid them).
    hidden: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return all(rebuilt == stored for _, rebuilt, stored in self.ladders.values())


def digest(stored: dict[str, Any]) -> str:
    """The sha256 of a ladder's stored form (canonical JSON)."""
    return hashlib.sha256(json.dumps(stored, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class RatingService:
    """Apply finished games, and read the ladders, over the rating store and the game streams."""

    def __init__(
        self,
        store: RatingStore,
        events: EventStore,
        load: Callable[[str], Game],
        deleted_among: Callable[[set[str]], set[str]] | None = None,
    ) -> None:
        self.store = store
        self.events = events
        self.load = load
        #: Which of these players' accounts were deleted (the rebuild hides those deleted before deletions hid them).
        self.deleted_among = deleted_among

    # --- the projection -------------------------------------------------------------------------

    def result(self, game: Game) -> Result | None:
        """The ladder's view of ``game`` (``None``: it does not count), from its stream."""
        if not is_rated(game):
            return None
        history = [decode(e.payload) for e in self.events.read_all(game.id) if e.number <= game.version]
        return result_of(game, history)

    def apply(self, game_id: str) -> str:
        """Apply a finished rated game to its ladder, once; what came of it, in words (the job's result)."""
        game = self.load(game_id)
        result = self.result(game)
        if result is None:
            return "nothing to do: the game is not a finished rated game"
        now, applied = self.store.apply(result)
        changes = ", ".join(
            f"{p} {applied.before[p].rating.shown}->{applied.after[p].rating.shown}"
            + ("" if applied.counted(p) else f" (not counted: {not_counted(applied, p)})")
            for p in result.players
        )
        return f"applied to {result.ladder}: {changes}" if now else f"applied before, to {result.ladder}"

    def applied(self, game: Game) -> bool:
        """Whether ``game``'s ladder has it (the dispatcher watches its ``rate`` job until it does)."""
        return self.store.has(ladder_of(game.variant.value == "advanced"), game.id)

    # --- reads ----------------------------------------------------------------------------------

    @staticmethod
    def check_ladder(ladder: str) -> None:
        if ladder not in LADDERS:
            raise NotFound(
                "ladder_not_found", f"There is no ladder {ladder!r}; the ladders are {', '.join(LADDERS)}.", ladders=list(LADDERS)
            )

    def leaderboard(self, ladder: str, *, limit: int = 50, offset: int = 0, around: str | None = None) -> dict[str, Any]:
        """A page of the ladder's leaderboard: from rank ``offset + 1``, or centred on the player ``around``."""
        self.check_ladder(ladder)
        if around is not None:
            rank = self.store.rank_of(ladder, around)
            if rank is None:
                raise NotFound(
                    "player_not_rated",
                    f"{around} is not on the {ladder} leaderboard: their rating there is provisional, or they have none.",
                    ladder=ladder,
                )
            offset = max(0, rank - 1 - limit // 2)
        lines, ranked = self.store.board(ladder, offset, limit)
        return {
            "ladder": ladder,
            "ranked": ranked,
            "offset": offset,
            "players": [
                {
                    "rank": line.rank,
                    "player_id": line.player,
                    "name": line.record.name,
                    **record_json(line.player, line.record, self.store.rules),
                }
                for line in lines
            ],
        }

    def rating(self, player_id: str, ladder: str) -> int:
        """A player's displayed rating on ``ladder`` (a new player's until they have one): what the open tables'
        and quick match's rating ranges compare."""
        standing = self.store.standing(ladder, player_id)
        return standing.record.rating.shown if standing is not None else NEW.shown

    def ratings_of(self, player_id: str) -> dict[str, Any]:
        """What a profile shows of a player's ratings: on each ladder they play, their rating, rank (``None`` while the
        leaderboard does not show them), provisional flag, last rating changes (with the game) and record (played,
        won, average place, by number of players)."""
        ladders: dict[str, Any] = {}
        for ladder in LADDERS:
            standing = self.store.standing(ladder, player_id)
            if standing is None:
                continue
            ladders[ladder] = {
                "rank": standing.rank,
                "ranked": standing.ranked,
                **record_json(player_id, standing.record, self.store.rules),
                "history": [change_json(applied, player_id) for applied in self.store.history(ladder, player_id, HISTORY)],
            }
        return {"player_id": player_id, "ladders": ladders}

    def of_game(self, game: Game) -> dict[str, Any] | None:
        """The ratings a game's view shows (``None`` for a game that is not rated): each seat's player's rating — as
        it was before the game once the game is applied to its ladder, with the change it made; before that their
        rating now."""
        if not counts(game) or not game.seats:
            return None
        ladder = ladder_of(game.variant.value == "advanced")
        players = [None if seat.open else rated_player(game, n)[0] for n, seat in enumerate(game.seats)]
        applied = self.store.game(ladder, game.id) if game.status == "finished" else None
        if applied is None:
            records = self.store.records(ladder, [p for p in dict.fromkeys(players) if p is not None])
            seats = [_seat_now(n, p, records.get(p) if p else None, self.store.rules) for n, p in enumerate(players)]
        else:
            seats = [_seat_applied(n, p, applied, self.store.rules) for n, p in enumerate(players) if p is not None]
        return {"ladder": ladder, "applied": applied is not None, "seats": seats}

    # --- who the leaderboards show ---------------------------------------------------------------

    def hide(self, player_id: str, reason: str) -> None:
        """Keep a player off every leaderboard for ``reason`` (:data:`HIDDEN_BECAUSE`): their past games stay rated for
        everyone else, under their pseudonymous id, and the ladders' fold is unchanged.  Safe to repeat."""
        self._check_reason(reason)
        for ladder in LADDERS:
            self.store.hide(ladder, player_id, reason)

    def show(self, player_id: str, reason: str) -> None:
        """Take ``reason`` back (a ban lifted): once no reason is left the player is on every leaderboard that ranks
        them, where their rating puts them (a deleted account stays off: its reason is never taken back)."""
        self._check_reason(reason)
        for ladder in LADDERS:
            self.store.show(ladder, player_id, reason)

    def hidden_because(self, player_id: str) -> tuple[str, ...]:
        """Why a player is kept off the leaderboards (empty: they are not)."""
        reasons = {reason for ladder in LADDERS for reason in self.store.hidden(ladder).get(player_id, ())}
        return tuple(sorted(reasons))

    @staticmethod
    def _check_reason(reason: str) -> None:
        if reason not in HIDDEN_BECAUSE:
            raise ValueError(f"{reason!r} is not a reason to keep a player off a leaderboard: {HIDDEN_BECAUSE}")

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's name leaves every leaderboard (the ladders' part of deleting an account)."""
        self.hide(player_id, "deleted")

    # --- the rebuild ----------------------------------------------------------------------------

    def _hide_deleted(self, report: Rebuilt) -> None:
        if self.deleted_among is None:
            return
        for ladder in LADDERS:
            people = {p for p in self.store.players(ladder) if not is_ai(p)}
            hidden = self.store.hidden(ladder)
            for player in sorted(self.deleted_among(people)):
                if "deleted" not in hidden.get(player, ()):
                    self.store.hide(ladder, player, "deleted")
                    report.hidden.append(player)

    def game_ids(self) -> Iterator[str]:
        """Every game id the store holds a stream for (a scan: of every primary, on a cluster)."""
        prefix = f"{self.events.prefix}game:{{"
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*}:version"
        for key in self.events.redis.scan_iter(match=pattern, count=1000):
            name = key.decode() if isinstance(key, bytes) else key
            yield name[len(prefix) : -len("}:version")]

    def rebuild(self, *, write: bool = False) -> Rebuilt:
        """Fold every finished rated game of the streams into fresh ladders, and compare each with the stored one
        (``write``: then store the fold in its place, where the stored one differs, after taking off the leaderboards
        the accounts deleted before deleting an account did so)."""
        report = Rebuilt()
        if write:
            self._hide_deleted(report)
        versions = {ladder: self.store.version(ladder) for ladder in LADDERS}
        results = []
        for game_id in sorted(self.game_ids()):
            try:
                found = self.result(self.load(game_id))
            except Refused:
                continue  # gone meanwhile
            if found is not None:
                results.append(found)
        ladders = fold(results, self.store.rules)
        report.games = len(results)
        for name in LADDERS:
            ladder = ladders.get(name, Ladder(name, rules=self.store.rules))
            hidden = self.store.hidden(name)  # not a fold of the streams: what the stored board honours
            rebuilt, stored = digest(ladder.stored(hidden=hidden)), digest(self.store.export(name))
            report.ladders[name] = (len(ladder.games), rebuilt, stored)
            if write and rebuilt != stored and self.store.replace(ladder, versions[name]):
                report.written.append(name)
        return report


def _seat_now(seat: int, player: str | None, record: Record | None, rules: Rules) -> dict[str, Any]:
    if player is None:  # an open seat: nobody to rate yet
        return {
            "seat": seat,
            "player": None,
            "rating": None,
            "provisional": None,
            "change": None,
            "place": None,
            "counted": None,
            "not_counted": None,
        }
    form = record.form if record is not None else Form()
    return {
        "seat": seat,
        "player": player,
        "rating": form.rating.shown,
        "provisional": not established(player, form, rules),
        "change": None,
        "place": None,
        "counted": None,
        "not_counted": None,
    }


def _seat_applied(seat: int, player: str, applied: Applied, rules: Rules) -> dict[str, Any]:
    before, after = applied.before[player], applied.after[player]
    return {
        "seat": seat,
        "player": player,
        "rating": before.rating.shown,
        "provisional": not established(player, before, rules),
        "change": after.rating.shown - before.rating.shown,
        "place": applied.result.seats[seat].place,
        "counted": applied.counted(player),
        "not_counted": not_counted(applied, player),
    }
