"""Ratings: a finished rated game's standing, and OpenSkill's Plackett-Luce update over it — pure, exact, no I/O.

A ladder is a fold of the finished rated games of one kind (:data:`LADDERS`), in the order they finished: every
rating is the result of that fold and nothing else, so the storage layer applies it game by game and
``red7 ratings rebuild`` folds the game streams again and finds the same bytes.  Everything that may end up
stored goes through :func:`exact`: a number is kept as its text with :data:`DECIMALS` decimals and read back as
the float that text names, so a rating the live projection wrote and one the rebuild computed are the same float
whatever the order of the arithmetic that led to it, and the next game starts from exactly what was stored.

The standing is the engine's order (docs/rules.md 20 and 25): in the basic game the round's winner, then the
others by how long they stayed in the round (the last one out second); in the advanced game by points, equal
points by the highest card in the score pile (rule 25), which only players who scored nothing can share.  A
player who resigned or let a turn time out is placed last, whatever the cards said; several such players share
the last place.  Places are numbered as competitions do: 1, 2, 2, 4.

The model: each seat is a team of one in :class:`openskill.models.PlackettLuce` (μ 25, σ 25/3, β 25/6, τ 25/300,
the package's defaults), rated on the places.  The seats are handed to it in one canonical order (place, then
player id), so the order of the seats at the table never matters beyond their places.  An AI level is one rated
player (``ai:<level>``); seated twice in one game, each of its seats is rated from the level's rating before the
game and the level takes the sum of their changes of μ and the product of their shrinkings of σ² (two results'
evidence, neither counted before the other).  A game needs two different players to be rated.

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

What people see is the skill estimated, μ, scaled to a number chess players read: ``1000 + 40 (μ − 25)``, rounded
to a whole number; a new player shows 1000.  Until it is established a rating is *provisional* (shown with a
mark, like Lichess's "?"), and only established ratings (the AI levels' among them, from their first game) are
ranked on a leaderboard, by μ.  Not the conservative
μ − 3σ: that one rises as σ shrinks, by playing alone (issue 34: an account playing at the random AI's strength
went from 1000 to 1360 winning 13 of 30 against it); μ moves only with results, and the σ bound is what the
established mark and the leaderboard ask for instead.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from service.domain.game import Game

#: One ladder per kind of game, decided from self-play (``python -m bench.ratings_bench ladders``: 400 two-player
#: games each, greedy against random): the greedy AI wins 81% of basic games and 98% of advanced ones — one round of
#: luck against a race to a target are two games, two ladders.  The action rules widen that edge in the basic game
#: (81% to 92%) and barely in the advanced (98% to 100%), but they do not change who is stronger; they share their
#: variant's ladder, which brings σ down twice as fast (Plackett-Luce lowers it slowly in free-for-all) and leaves
#: no player with two half-rated ratings.
LADDERS = ("basic", "advanced")

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
#: Decimals a stored μ or σ keeps (and every computed one is rounded to): far below what a game moves.
DECIMALS = 6
#: The displayed rating: ``BASE + SCALE × (μ − MU)``, a whole number (a new player's is ``BASE``).  One β of skill
#: (the model's "76% to win" step) is 167 points, close to chess's 200 for the same odds.
BASE = 1000
SCALE = 40
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
#: AI seats are rated players, one per level.
AI_PREFIX = "ai:"


def exact(value: float) -> float:
    """``value`` as stored: the float that its text with :data:`DECIMALS` decimals names (never -0.0)."""
    rounded = float(f"{value:.{DECIMALS}f}")
    return rounded + 0.0  # -0.0 becomes 0.0


def text(value: float) -> str:
    """The stored text of a number already :func:`exact`."""
    return f"{value:.{DECIMALS}f}"


def ladder_of(advanced: bool) -> str:
    """The ladder of a game: its variant's (the action rules share it, see :data:`LADDERS`)."""
    return "advanced" if advanced else "basic"


def is_ai(player: str) -> bool:
    """Whether a rated player is an AI level (``ai:<level>``): an anchor, established from the start."""
    return player.startswith(AI_PREFIX)


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
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> int:
        """The displayed rating: ``BASE + SCALE × (μ − MU)``, rounded to a whole number (half to even)."""
        return BASE + round(SCALE * exact(self.mu - MU))


NEW = Rating(exact(MU), exact(SIGMA))

MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


# --- who played, and their places ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placing:
    """A seat's outcome: who is rated for it, the place it finished in (1 is first), and whether it forfeited."""

    seat: int
    player: str
    name: str
    place: int
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """A finished rated game as a ladder takes it: when it finished, and each seat's placing (in seat order)."""

    game_id: str
    ladder: str
    finished_at: str  # the ISO time of the game_finished event: the order of the fold
    seats: tuple[Placing, ...]

    @property
    def finished_ms(self) -> int:
        return finished_ms(self.finished_at)

    @property
    def key(self) -> tuple[int, str]:
        """Where the game stands in its ladder's fold: the time it finished, then its id."""
        return (self.finished_ms, self.game_id)

    @property
    def players(self) -> list[str]:
        """The rated players, each once, in seat order."""
        return list(dict.fromkeys(p.player for p in self.seats))


def finished_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def is_rated(game: Game) -> bool:
    """Whether ``game`` counts for its players' ratings: created rated, finished (so every seat was filled), dealt
    at random (a creator who chose the seed or the deck could know every hand), and never aborted.

    The one predicate for it, beside :func:`counts` (a game that will count once finished).
    """
    return counts(game) and game.status == "finished" and not game.aborted


def counts(game: Game) -> bool:
    """Whether ``game`` will count for its players' ratings once finished (a view shows the seats' ratings then)."""
    return game.rated and game.dealing == "random" and game.status not in ("cancelled", "aborted")


def rated_player(game: Game, seat: int) -> tuple[str, str]:
    """Who is rated for a seat, and the name to show: the player who held it (even after resigning), or the AI."""
    held = game.seats[seat]
    if held.player_id is not None:
        return held.player_id, held.name or held.player_id
    level = held.level or "random"
    return AI_PREFIX + level, f"AI ({level})"


def standing(game: Game, history: Iterable[Mapping[str, Any]]) -> list[tuple[int, bool]]:
    """Each seat's place (1 is first; ties share it) and whether it forfeited, from the finished game and its
    decoded envelopes (the elimination order of the last round, resignations and time-outs are in the history)."""
    players = len(game.seats)
    forfeited = [False] * players
    out_order: list[int] = []  # seats in the order they left the last round dealt
    for data in history:
        kind = data.get("type")
        if kind == "round_dealt":
            out_order = []
        elif kind == "player_eliminated":
            out_order.append(int(data["seat"]))
        elif kind in ("seat_resigned", "turn_timed_out"):
            forfeited[int(data["seat"])] = True
    state = game.state
    if game.variant.value == "advanced":
        keys = [(0, state.score(s), state.scored[s].bit_length()) for s in range(players)]
    else:
        stayed = {seat: n for n, seat in enumerate(out_order)}  # later out: longer in
        keys = [(0, players if s == state.winner else stayed.get(s, -1), 0) for s in range(players)]
    keys = [(-1, 0, 0) if forfeited[s] else keys[s] for s in range(players)]
    return [(1 + sum(1 for other in keys if other > keys[s]), forfeited[s]) for s in range(players)]


def result_of(game: Game, history: Iterable[Mapping[str, Any]]) -> Result | None:
    """The ladder's view of a finished rated game, or ``None`` when it does not count (:func:`is_rated`, or fewer than
    two different players)."""
    if not is_rated(game):
        return None
    envelopes = list(history)
    finished = [data["at"] for data in envelopes if data.get("type") == "game_finished"]
    if not finished:
        return None
    places = standing(game, envelopes)
    seats = []
    for seat, (place, forfeited) in enumerate(places):
        player, name = rated_player(game, seat)
        seats.append(Placing(seat, player, name, place, forfeited))
    if len({p.player for p in seats}) < 2:
        return None
    return Result(game.id, ladder_of(game.variant.value == "advanced"), finished[-1], tuple(seats))


# --- the update ---------------------------------------------------------------------------------


def rate(places: Sequence[tuple[str, int]], ratings: Mapping[str, Rating]) -> dict[str, Rating]:
    """The new rating of each player of a game, from their ratings before it and the places of its seats
    (``(player, place)`` per seat; a player may hold several seats: an AI level).  Pure and exact: the same input
    gives the same floats, whatever the order of ``places``."""
    seats = sorted(places, key=lambda item: (item[1], item[0]))
    before = {player: ratings.get(player, NEW) for player, _ in seats}
    teams = [[MODEL.create_rating([before[player].mu, before[player].sigma])] for player, _ in seats]
    rated = MODEL.rate(teams, ranks=[float(place) for _, place in seats])
    inflated = {player: rating.sigma * rating.sigma + TAU * TAU for player, rating in before.items()}
    mu_change: dict[str, float] = dict.fromkeys(before, 0.0)
    shrink: dict[str, float] = dict.fromkeys(before, 1.0)
    for (player, _), (after,) in zip(seats, rated, strict=True):
        mu_change[player] += after.mu - before[player].mu
        shrink[player] *= (after.sigma * after.sigma) / inflated[player]
    return {
        player: Rating(exact(before[player].mu + mu_change[player]), exact((inflated[player] * shrink[player]) ** 0.5))
        for player in before
    }


# --- which results count: a player's form, the pairs' log -------------------------------------------------


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


# --- a ladder as a fold (the rebuild, the benchmarks, and the shape of what is stored) ----------------


@dataclass(slots=True)
class Record:
    """A player's standing on a ladder: their rating, how many games moved it, their record (played, won, the sum of
    their places; the same by number of players), and the name of their last rated game."""

    name: str = ""
    rating: Rating = NEW
    played: int = 0
    won: int = 0
    places: int = 0
    by_players: dict[int, list[int]] = field(default_factory=dict)  # players -> [played, won, places]
    counted: int = 0  # games that moved the rating (:class:`Form`)

    @property
    def form(self) -> Form:
        return Form(self.rating, self.counted)

    def count(self, placing: Placing, players: int) -> None:
        self.played += 1
        self.won += placing.place == 1
        self.places += placing.place
        mine = self.by_players.setdefault(players, [0, 0, 0])
        mine[0] += 1
        mine[1] += placing.place == 1
        mine[2] += placing.place

    def to_text(self) -> str:
        """The stored form (canonical JSON: the same record is the same bytes)."""
        return json.dumps(
            {
                "name": self.name,
                "mu": text(self.rating.mu),
                "sigma": text(self.rating.sigma),
                "counted": self.counted,
                "played": self.played,
                "won": self.won,
                "places": self.places,
                "by_players": {str(n): counts for n, counts in sorted(self.by_players.items())},
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_text(cls, stored: str) -> Record:
        data = json.loads(stored)
        return cls(
            data["name"],
            Rating(float(data["mu"]), float(data["sigma"])),
            data["played"],
            data["won"],
            data["places"],
            {int(n): list(counts) for n, counts in data["by_players"].items()},
            data.get("counted", 0),  # a ladder stored before the rules: ``red7 ratings rebuild --write`` brings it
        )


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


def insert(
    result: Result,
    records: Mapping[str, Record],
    later: Sequence[Applied] = (),
    log: PairLog | None = None,
    rules: Rules = RULES,
) -> tuple[list[Applied], dict[str, Record]]:
    """``result`` folded into a ladder whose players' records are ``records`` (absent: new), where ``later`` are the
    games already applied that finished after it, in the order they finished, and ``log`` holds the games that
    counted between pairs of people in the window before ``result`` (and none of ``later``'s: they are applied
    again).  ``log`` is added to as the games are applied.

    The fold is in the order games finished, whatever the order their jobs ran in: the forms of ``later``'s
    players go back to what they were before the first of them, ``result`` is applied, and ``later`` is applied
    again on top (their places stand; their ratings before and after, and which of their results count, may
    change).  Usually ``later`` is empty.  Returns the games to store — ``result``, then each of ``later`` as
    applied again — and the record of every player they touch.
    """
    log = log if log is not None else PairLog(rules.pair_window_ms)
    players = dict.fromkeys([*result.players, *(p for applied in later for p in applied.result.players)])
    mine = {p: Record.from_text(records[p].to_text()) if p in records else Record() for p in players}
    rewound: set[str] = set()
    for applied in later:
        for player in applied.result.players:
            if player not in rewound:
                mine[player].rating = applied.before[player].rating
                mine[player].counted = applied.before[player].counted
                rewound.add(player)
    out = []
    for game in (result, *(applied.result for applied in later)):
        applied = apply(game, {p: mine[p].form for p in game.players}, log, rules)
        log.add(applied)
        for player, form in applied.after.items():
            mine[player].rating, mine[player].counted = form.rating, form.counted
        out.append(applied)
    latest = {p for applied in later for p in applied.result.players}
    for placing in result.seats:  # the records count places, which no order changes
        mine[placing.player].count(placing, len(result.seats))
        if placing.player not in latest:  # the name of the player's last game in the fold's order
            mine[placing.player].name = placing.name
    return out, mine


def ranked(records: Mapping[str, Record], rules: Rules = RULES) -> dict[str, str]:
    """The players a ladder ranks (established), each with their μ as stored: what a leaderboard orders by."""
    return {p: text(r.rating.mu) for p, r in sorted(records.items()) if established(p, r.form, rules)}


@dataclass(slots=True)
class Ladder:
    """A ladder folded in memory: what Redis holds for it (:mod:`service.storage.ratings`), in the same words."""

    name: str
    records: dict[str, Record] = field(default_factory=dict)
    games: dict[str, Applied] = field(default_factory=dict)
    tail: tuple[int, str] = (0, "")  # the key of the last game in the fold's order
    rules: Rules = RULES
    log: PairLog = field(default_factory=PairLog)

    def __post_init__(self) -> None:
        self.log.window_ms = self.rules.pair_window_ms

    def add(self, result: Result) -> Applied:
        """Fold one more game, in its place among those folded (:func:`insert`)."""
        later: list[Applied] = []
        if self.games and result.key < self.tail:
            later = sorted((a for a in self.games.values() if a.result.key > result.key), key=lambda a: a.result.key)
        for applied in later:
            self.log.remove(applied)  # applied again, in :func:`insert`
        self.tail = max(self.tail, result.key)
        games, records = insert(result, self.records, later, self.log, self.rules)
        self.records.update(records)
        for applied in games:
            self.games[applied.result.game_id] = applied
        return games[0]

    def stored(self, hidden: Iterable[str] = ()) -> dict[str, Any]:
        """What the ladder's keys hold, as text (:func:`service.storage.ratings.RatingStore.export` reads the same
        shape): every player's record, every game applied and when it finished, the players it ranks, the leaderboard
        (those ranked but the ``hidden``: deleted accounts, banned players), each player's games."""
        played: dict[str, dict[str, str]] = {}
        for game_id, applied in self.games.items():
            for player in applied.result.players:
                played.setdefault(player, {})[game_id] = str(applied.result.finished_ms)
        ranks = ranked(self.records, self.rules)
        hide = set(hidden)
        return {
            "records": {p: r.to_text() for p, r in sorted(self.records.items())},
            "games": {g: a.to_text() for g, a in sorted(self.games.items())},
            "order": {g: str(a.result.finished_ms) for g, a in sorted(self.games.items())},
            "ranked": ranks,
            "board": {p: score for p, score in ranks.items() if p not in hide},
            "played": {p: dict(sorted(games.items())) for p, games in sorted(played.items())},
        }


def fold(results: Iterable[Result], rules: Rules = RULES) -> dict[str, Ladder]:
    """Every ladder from the results of finished rated games, each applied once, in the order they finished."""
    ladders: dict[str, Ladder] = {}
    seen: set[str] = set()
    for result in sorted(results, key=lambda r: r.key):
        if result.game_id in seen:
            continue
        seen.add(result.game_id)
        ladders.setdefault(result.ladder, Ladder(result.ladder, rules=rules)).add(result)
    return ladders
