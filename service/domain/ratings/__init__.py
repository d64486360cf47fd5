"""Ratings: a finished rated game's standing, and OpenSkill's Plackett-Luce update over it — pure, exact, no I/O.

A ladder is a fold of the finished rated games of one kind (:data:`LADDERS`), in the order they finished: every
rating is the result of that fold and nothing else, so the storage layer applies it game by game and
``red7 ratings rebuild`` folds the game streams again and finds the same bytes (every number that may be stored is
kept exact for it: :func:`~service.domain.ratings.model.exact`).

Where each part is: :mod:`~service.domain.ratings.model` (the update, and numbers kept exact),
:mod:`~service.domain.ratings.results` (a finished game's places, and whether it counts),
:mod:`~service.domain.ratings.counting` (which results count: the rules against farming, one game applied) and
:mod:`~service.domain.ratings.ladder` (a ladder as the fold of its games).  Import from here: the package is the
ratings' one door.
"""

from service.domain.ratings.counting import (
    ESTABLISHED_GAMES,
    ESTABLISHED_SIGMA,
    EVERY_RESULT,
    PAIR_LIMIT,
    PAIR_WINDOW_MS,
    RULES,
    Applied,
    Form,
    PairLog,
    Rules,
    anchor,
    apply,
    established,
    pair,
)
from service.domain.ratings.ladder import Ladder, Record, fold, insert, ranked
from service.domain.ratings.model import (
    AI_PREFIX,
    BASE,
    BETA,
    DECIMALS,
    LADDERS,
    MODEL,
    MU,
    NEW,
    SCALE,
    SIGMA,
    TAU,
    Rating,
    exact,
    is_ai,
    ladder_of,
    rate,
    text,
)
from service.domain.ratings.results import Placing, Result, counts, finished_ms, is_rated, rated_player, result_of, standing

__all__ = [
    "AI_PREFIX",
    "BASE",
    "BETA",
    "DECIMALS",
    "ESTABLISHED_GAMES",
    "ESTABLISHED_SIGMA",
    "EVERY_RESULT",
    "LADDERS",
    "MODEL",
    "MU",
    "NEW",
    "PAIR_LIMIT",
    "PAIR_WINDOW_MS",
    "RULES",
    "SCALE",
    "SIGMA",
    "TAU",
    "Applied",
    "Form",
    "Ladder",
    "PairLog",
    "Placing",
    "Rating",
    "Record",
    "Result",
    "Rules",
    "anchor",
    "apply",
    "counts",
    "established",
    "exact",
    "finished_ms",
    "fold",
    "insert",
    "is_ai",
    "is_rated",
    "ladder_of",
    "pair",
    "ranked",
    "rate",
    "rated_player",
    "result_of",
    "standing",
    "text",
]
