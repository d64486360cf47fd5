"""The rating model: OpenSkill's Plackett-Luce update over a game's places, and numbers kept exact.

The model: each seat is a team of one in :class:`openskill.models.PlackettLuce` (μ 25, σ 25/3, β 25/6, τ 25/300,
the package's defaults), rated on the places.  The seats are handed to it in one canonical order (place, then
player id), so the order of the seats at the table never matters beyond their places.  An AI level is one rated
player (``ai:<level>``); seated twice in one game, each of its seats is rated from the level's rating before the
game and the level takes the sum of their changes of μ and the product of their shrinkings of σ² (two results'
evidence, neither counted before the other).  A game needs two different players to be rated.

Exact.  Everything that may end up stored goes through :func:`exact`: a number is kept as its text with
:data:`DECIMALS` decimals and read back as the float that text names, so a rating the live projection wrote and one
the rebuild computed are the same float whatever the order of the arithmetic that led to it, and the next game
starts from exactly what was stored.

What people see is the skill estimated, μ, scaled to a number chess players read: ``1000 + 40 (μ − 25)``, rounded
to a whole number; a new player shows 1000.  Until it is established a rating is *provisional* (shown with a
mark, like Lichess's "?"), and only established ratings (the AI levels' among them, from their first game) are
ranked on a leaderboard, by μ.  Not the conservative
μ − 3σ: that one rises as σ shrinks, by playing alone (issue 34: an account playing at the random AI's strength
went from 1000 to 1360 winning 13 of 30 against it); μ moves only with results, and the σ bound is what the
established mark and the leaderboard ask for instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

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
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> int:
        """The displayed rating: ``BASE + SCALE × (μ − MU)``, rounded to a whole number (half to even)."""
        return BASE + round(SCALE * exact(self.mu - MU))


NEW = Rating(exact(MU), exact(SIGMA))

MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


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
