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

What people see is the conservative rating μ − 3σ (the skill the player has with 99.7% confidence), scaled to a
number chess players read: ``1000 + 40 (μ − 3σ)``, rounded to a whole number; a new player shows 1000.  A
rating is *provisional* while σ is at least :data:`PROVISIONAL_SIGMA`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from service.game import Game

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
#: The displayed rating: ``BASE + SCALE × (μ − 3σ)``, a whole number.
BASE = 1000
SCALE = 40
#: A rating is provisional while σ is at least this: σ starts at 8.33 and Plackett-Luce lowers it slowly in
#: free-for-all (openskill's known trouble), about 20 games of two players or 30 of four bring it below 5
#: (tests/service/test_ratings.py counts them).
PROVISIONAL_SIGMA = 5.0
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


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def conservative(self) -> float:
        """μ − 3σ, as stored and ranked (exact)."""
        return exact(self.mu - 3 * self.sigma)

    @property
    def shown(self) -> int:
        """The displayed rating: ``BASE + SCALE × (μ − 3σ)``, rounded to a whole number (half to even)."""
        return BASE + round(SCALE * self.conservative)

    @property
    def provisional(self) -> bool:
        return self.sigma >= PROVISIONAL_SIGMA


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


# --- a ladder as a fold (the rebuild, the benchmarks, and the shape of what is stored) ----------------


@dataclass(slots=True)
class Record:
    """A player's standing on a ladder: their rating and their record (played, won, the sum of their places; the
    same by number of players), and the name of their last rated game."""

    name: str = ""
    rating: Rating = NEW
    played: int = 0
    won: int = 0
    places: int = 0
    by_players: dict[int, list[int]] = field(default_factory=dict)  # players -> [played, won, places]

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
        )


@dataclass(frozen=True, slots=True)
class Applied:
    """A game as its ladder applied it: its result, and each seat's player's rating before and after it."""

    result: Result
    before: dict[str, Rating]
    after: dict[str, Rating]

    def to_text(self) -> str:
        """The stored form of the game on its ladder (canonical JSON)."""
        return json.dumps(
            {
                "at": self.result.finished_at,
                "seats": [
                    [
                        p.player,
                        p.name,
                        p.place,
                        p.forfeited,
                        text(self.before[p.player].mu),
                        text(self.before[p.player].sigma),
                        text(self.after[p.player].mu),
                        text(self.after[p.player].sigma),
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
        seats, before, after = [], {}, {}
        for number, (player, name, place, forfeited, mu0, sigma0, mu1, sigma1) in enumerate(data["seats"]):
            seats.append(Placing(number, player, name, place, forfeited))
            before[player] = Rating(float(mu0), float(sigma0))
            after[player] = Rating(float(mu1), float(sigma1))
        return cls(Result(game_id, ladder, data["at"], tuple(seats)), before, after)


def apply(result: Result, ratings: Mapping[str, Rating]) -> Applied:
    """``result`` applied on ``ratings`` (each player's rating before it; absent: new)."""
    before = {player: ratings.get(player, NEW) for player in result.players}
    after = rate([(p.player, p.place) for p in result.seats], before)
    return Applied(result, before, after)


def insert(
    result: Result, records: Mapping[str, Record], later: Sequence[Applied] = ()
) -> tuple[list[Applied], dict[str, Record]]:
    """``result`` folded into a ladder whose players' records are ``records`` (absent: new), where ``later`` are the
    games already applied that finished after it, in the order they finished.

    The fold is in the order games finished, whatever the order their jobs ran in: the ratings of ``later``'s
    players go back to what they were before the first of them, ``result`` is applied, and ``later`` is applied
    again on top (their places stand; their ratings before and after may change).  Usually ``later`` is empty.
    Returns the games to store — ``result``, then each of ``later`` as applied again — and the record of every
    player they touch.
    """
    players = dict.fromkeys([*result.players, *(p for applied in later for p in applied.result.players)])
    mine = {p: Record.from_text(records[p].to_text()) if p in records else Record() for p in players}
    rewound: set[str] = set()
    for applied in later:
        for player in applied.result.players:
            if player not in rewound:
                mine[player].rating = applied.before[player]
                rewound.add(player)
    out = []
    for game in (result, *(applied.result for applied in later)):
        applied = apply(game, {p: mine[p].rating for p in game.players})
        for player, rating in applied.after.items():
            mine[player].rating = rating
        out.append(applied)
    latest = {p for applied in later for p in applied.result.players}
    for placing in result.seats:  # the records count places, which no order changes
        mine[placing.player].count(placing, len(result.seats))
        if placing.player not in latest:  # the name of the player's last game in the fold's order
            mine[placing.player].name = placing.name
    return out, mine


@dataclass(slots=True)
class Ladder:
    """A ladder folded in memory: what Redis holds for it (:mod:`service.storage.ratings`), in the same words."""

    name: str
    records: dict[str, Record] = field(default_factory=dict)
    games: dict[str, Applied] = field(default_factory=dict)
    tail: tuple[int, str] = (0, "")  # the key of the last game in the fold's order

    def add(self, result: Result) -> Applied:
        """Fold one more game, in its place among those folded (:func:`insert`)."""
        later: list[Applied] = []
        if self.games and result.key < self.tail:
            later = sorted((a for a in self.games.values() if a.result.key > result.key), key=lambda a: a.result.key)
        self.tail = max(self.tail, result.key)
        games, records = insert(result, self.records, later)
        self.records.update(records)
        for applied in games:
            self.games[applied.result.game_id] = applied
        return games[0]

    def stored(self) -> dict[str, Any]:
        """What the ladder's keys hold, as text (:func:`service.storage.ratings.RatingStore.export` reads the same
        shape): every player's record, every game applied and when it finished, the leaderboard, each player's games."""
        played: dict[str, dict[str, str]] = {}
        for game_id, applied in self.games.items():
            for player in applied.result.players:
                played.setdefault(player, {})[game_id] = str(applied.result.finished_ms)
        return {
            "records": {p: r.to_text() for p, r in sorted(self.records.items())},
            "games": {g: a.to_text() for g, a in sorted(self.games.items())},
            "order": {g: str(a.result.finished_ms) for g, a in sorted(self.games.items())},
            "board": {p: text(r.rating.conservative) for p, r in sorted(self.records.items())},
            "played": {p: dict(sorted(games.items())) for p, games in sorted(played.items())},
        }


def fold(results: Iterable[Result]) -> dict[str, Ladder]:
    """Every ladder from the results of finished rated games, each applied once, in the order they finished."""
    ladders: dict[str, Ladder] = {}
    seen: set[str] = set()
    for result in sorted(results, key=lambda r: r.key):
        if result.game_id in seen:
            continue
        seen.add(result.game_id)
        ladders.setdefault(result.ladder, Ladder(result.ladder)).add(result)
    return ladders
