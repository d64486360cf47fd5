"""Which results count, and one game applied by those rules: whose rating it moves, against whom.

**Which results count** (issue 34: ratings farmed with fresh accounts that fold at once, and by play alone).  The
fold's rules (:class:`Rules`, :data:`RULES`) are constants of the code, not settings: the ladder is a fold of the
streams, and a rule read from the environment would make the stored ladder depend on the settings of whichever
process applied each game, so that no rebuild could find its bytes again.

- *Only established opponents move a rating.*  A rating is **established** once σ is below
  :data:`ESTABLISHED_SIGMA` and :data:`ESTABLISHED_GAMES` games have moved it (Lichess ranks a rating once it has
  30 games and a deviation below 75, after a provisional phase while the deviation is above 110).  AI levels are
  the service's own players and cannot be made to lose on purpose: they are established from the start (the
  anchors).  Each player is rated on their own view of the game: the seats of the opponents who count for them
  (established or AI), with the places as they finished; opponents who do not count are left out, and with none
  left the game does not move the player's rating (it still counts in their record).  So a newcomer is rated
  against AI levels and established players, as the Internet Chess Server left games between two provisional
  players unrated, and an established rating is not moved by newcomers (what Glicko does by weighing an opponent
  by their deviation, taken to its limit).  Fresh accounts are worth nothing to beat: the farm of issue 34 (ten new
  accounts folding at once, 2272 after 30 games) moves nobody.
- *A pair of people counts at most* :data:`PAIR_LIMIT` *games in* :data:`PAIR_WINDOW_MS`.  Between two people
  (never an AI level) a game counts for the pair when either counted the other; the fourth game within 24 hours
  before it (in the fold's order: finish time, then id) counts for neither of them against the other, whatever
  else it counts for.  So two established accounts cannot trade rating by playing each other all day (Lichess
  marks a winner who keeps beating one loser in short games as a booster, lila's ``BoostingApi``).

A game applied (:class:`Applied`) keeps what the rules decided for it (who counted for whom, whom the pair limit
left out, each player's form before and after), so that a game applied again in its place reads the same, and the
stored ladder says why each rating moved.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from service.domain.ratings.model import NEW, Rating, is_ai, rate, text
from service.domain.ratings.results import Placing, Result

#: A rating is established (no longer provisional, and ranked) once σ is below this and
#: :data:`ESTABLISHED_GAMES` games have moved it.  σ starts at 8.33 and Plackett-Luce lowers it slowly in
#: free-for-all (openskill's known trouble): about 20 games of two equal players, or 30 of four, bring it below 5;
#: against an AI level whose rating is sure it takes about 11 (tests/service/domain/test_ratings.py counts them).
ESTABLISHED_SIGMA = 5.0
#: Games that moved a rating before it is established (Lichess: 30 rated games for a leaderboard).  Against a sure
#: opponent σ falls below the bound sooner; this keeps a rating provisional for 20 results in every case.
ESTABLISHED_GAMES = 20
#: Games between the same two people that count for them against each other, in :data:`PAIR_WINDOW_MS`.
PAIR_LIMIT = 3
PAIR_WINDOW_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Rules:
    """Which results move whose rating (the module's docstring says why); :data:`RULES` are the service's."""

    established_sigma: float = ESTABLISHED_SIGMA
    established_games: int = ESTABLISHED_GAMES
    #: Games a pair of people count against each other in ``pair_window_ms`` (0: no limit).
    pair_limit: int = PAIR_LIMIT
    pair_window_ms: int = PAIR_WINDOW_MS
    #: Only established opponents (and AI levels) move a rating; ``False``: every opponent does (the model alone,
    #: as ``bench/ratings_bench.py predicts`` measures it).
    anchored: bool = True


RULES = Rules()
#: Every result counts: the model alone, without the rules against farming (benchmarks of the model).
EVERY_RESULT = Rules(pair_limit=0, anchored=False)


@dataclass(frozen=True, slots=True)
class Form:
    """A player's rating in the fold at a moment, and how many games had moved it (what makes it established)."""

    rating: Rating = NEW
    counted: int = 0

    def established(self, rules: Rules = RULES) -> bool:
        """Established: σ below the bound and enough games that moved it (provisional until then)."""
        return self.rating.sigma < rules.established_sigma and self.counted >= rules.established_games


def established(player: str, form: Form, rules: Rules = RULES) -> bool:
    """Whether ``player``'s rating is established (ranked, not provisional): an AI level's always is (the anchors),
    anyone else's once :meth:`Form.established`."""
    return is_ai(player) or form.established(rules)


def anchor(player: str, form: Form, rules: Rules = RULES) -> bool:
    """Whether ``player``'s results count for their opponents: an established rating (or, without the anchoring
    rule, everyone's)."""
    return not rules.anchored or established(player, form, rules)


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class PairLog:
    """When the games that counted between two people finished (their keys in the fold's order), per pair: what the
    pair limit reads.  It holds what it was given; the caller gives it every game of the window before the one
    applied (:func:`insert`)."""

    def __init__(self, window_ms: int = PAIR_WINDOW_MS, games: Iterable[Applied] = ()) -> None:
        self.window_ms = window_ms
        self._keys: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for applied in games:
            self.add(applied)

    def add(self, applied: Applied) -> None:
        for found in applied.counted_pairs():
            keys = self._keys.setdefault(found, [])
            if applied.result.key not in keys:
                bisect.insort(keys, applied.result.key)

    def remove(self, applied: Applied) -> None:
        for found in applied.counted_pairs():
            keys = self._keys.get(found, [])
            if applied.result.key in keys:
                keys.remove(applied.result.key)

    def count(self, a: str, b: str, key: tuple[int, str]) -> int:
        """Games that counted between ``a`` and ``b`` which finished in the window before ``key`` (its start
        included)."""
        keys = self._keys.get(pair(a, b), [])
        return bisect.bisect_left(keys, key) - bisect.bisect_left(keys, (key[0] - self.window_ms, ""))


@dataclass(frozen=True, slots=True)
class Applied:
    """A game as its ladder applied it: its result; each seat's player's form before and after it; per player, the
    opponents who counted for them (``against``: their rating moved, and then only on those seats) and the
    established opponents the pair limit left out (``limited``)."""

    result: Result
    before: dict[str, Form]
    after: dict[str, Form]
    against: dict[str, tuple[str, ...]] = field(default_factory=dict)
    limited: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def counted(self, player: str) -> bool:
        """Whether the game moved ``player``'s rating."""
        return bool(self.against.get(player))

    def counted_pairs(self) -> set[tuple[str, str]]:
        """The pairs of people the game counted for, one against the other (what the pair limit counts)."""
        people = [p for p in self.result.players if not is_ai(p)]
        return {
            pair(a, b) for a in people for b in people if a < b and (b in self.against.get(a, ()) or a in self.against.get(b, ()))
        }

    def to_text(self) -> str:
        """The stored form of the game on its ladder (canonical JSON): per seat its player, name, place, forfeit,
        the player's μ and σ before and after, the games that had moved their rating before, and the seats of the
        opponents who counted for them and of those the pair limit left out."""
        seat_of: dict[str, list[int]] = {p.player: [] for p in self.result.seats}
        for p in self.result.seats:
            seat_of[p.player].append(p.seat)

        def seats(players: Iterable[str]) -> list[int]:
            return sorted(s for player in players for s in seat_of[player])

        return json.dumps(
            {
                "at": self.result.finished_at,
                "seats": [
                    [
                        p.player,
                        p.name,
                        p.place,
                        p.forfeited,
                        text(self.before[p.player].rating.mu),
                        text(self.before[p.player].rating.sigma),
                        text(self.after[p.player].rating.mu),
                        text(self.after[p.player].rating.sigma),
                        self.before[p.player].counted,
                        seats(self.against.get(p.player, ())),
                        seats(self.limited.get(p.player, ())),
                    ]
                    for p in self.result.seats
                ],
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_text(cls, game_id: str, ladder: str, stored: str) -> Applied:
        data = json.loads(stored)
        rows = data["seats"]
        players = [row[0] for row in rows]
        seats, before, after, against, limited = [], {}, {}, {}, {}
        for number, row in enumerate(rows):
            player, name, place, forfeited, mu0, sigma0, mu1, sigma1 = row[:8]
            # Before the rules (eight members) every opponent counted: read so until ``red7 ratings rebuild --write``.
            counted0, counted_seats, limited_seats = row[8:] if len(row) > 8 else (0, [n for n in range(len(rows))], [])
            seats.append(Placing(number, player, name, place, forfeited))
            moved = [players[s] for s in counted_seats if players[s] != player]
            before[player] = Form(Rating(float(mu0), float(sigma0)), counted0)
            after[player] = Form(Rating(float(mu1), float(sigma1)), counted0 + (1 if moved else 0))
            against[player] = tuple(dict.fromkeys(moved))
            limited[player] = tuple(dict.fromkeys(players[s] for s in limited_seats))
        return cls(Result(game_id, ladder, data["at"], tuple(seats)), before, after, against, limited)


def apply(result: Result, forms: Mapping[str, Form], log: PairLog | None = None, rules: Rules = RULES) -> Applied:
    """``result`` applied on ``forms`` (each player's form before it; absent: new), with ``log`` holding the games
    that counted between pairs of its people in the window before it (none: no pair has played).

    Each player is rated on the seats of the opponents who count for them (:func:`anchor`, within the pair limit),
    from everyone's rating before the game; with none, their rating stays as it was."""
    players = result.players
    before = {player: forms.get(player, Form()) for player in players}
    over: set[tuple[str, str]] = set()
    if rules.pair_limit and log is not None:
        people = [p for p in players if not is_ai(p)]
        over = {pair(a, b) for a in people for b in people if a < b and log.count(a, b, result.key) >= rules.pair_limit}
    after: dict[str, Form] = {}
    against: dict[str, tuple[str, ...]] = {}
    limited: dict[str, tuple[str, ...]] = {}
    ratings = {player: form.rating for player, form in before.items()}
    for player in players:
        counting = [q for q in players if q != player and anchor(q, before[q], rules)]
        limited[player] = tuple(q for q in counting if pair(player, q) in over)
        against[player] = tuple(q for q in counting if pair(player, q) not in over)
        if against[player]:
            mine = {player, *against[player]}
            seats = [(p.player, p.place) for p in result.seats if p.player in mine]
            after[player] = Form(rate(seats, ratings)[player], before[player].counted + 1)
        else:
            after[player] = before[player]
    return Applied(result, before, after, against, limited)
