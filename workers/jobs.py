"""The RQ jobs: thin adapters from a queued job to the application, and from its outcome to RQ's retries.

A job is called with the game id and the version it was queued for, and asks the application to do what it was
queued for (:mod:`service.application.turns`: an AI's turn, a round's end, a deadline; the games, the ratings, the
notices).  If the game is no longer at that version — the job ran already, a duplicate ran, a player moved first, the
deadline came after the move — nothing is appended and the job says so.  So any job may run twice, late, or beside a
twin.  A failure no retry mends is a :class:`~service.jobqueue.retries.PermanentJobError`; any other is retried by RQ.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.application.ratings import LadderBusy
from service.application.turns import IllegalAIStep
from service.jobqueue.logcontext import caused_by
from service.jobqueue.retries import PermanentJobError
from workers.context import runtime
from workers.notices import notices, notify, push

log = logging.getLogger("red7.jobs")


def ai_turn(game_id: str, version: int) -> str:
    """An AI seat plays its turn, and the quick AIs that move right after it too, up to a bound
    (:meth:`service.application.turns.Turns.ai_turn`); an AI that chose an illegal step fails the job for good."""
    try:
        played = runtime().turns.ai_turn(game_id, version, request_id=caused_by())
    except IllegalAIStep as illegal:
        raise PermanentJobError(str(illegal)) from None
    return f"played {played} turn(s)" if played else "nothing to do: the game moved on"


def score_round(game_id: str, version: int) -> str:
    """Score the round just won and deal the next one from the recorded seed, or finish the game."""
    return (
        "scored" if runtime().turns.score_round(game_id, version, request_id=caused_by()) else "nothing to do: the game moved on"
    )


def turn_deadline(game_id: str, version: int, deadline_ms: int | None = None) -> str:
    """The turn ran out (:meth:`service.application.turns.Turns.time_out`): the stalled seat folds, an AI plays it,
    or the mover's vacation is taken.  ``deadline_ms``, the deadline it was queued for, only names the job (a deadline
    moved later is a job of its own): the deadline is computed afresh, by the runtime's clock."""
    rt = runtime()
    done = rt.turns.time_out(game_id, version, clock=rt.clock, sleep=time.sleep)
    seat = done.seat
    if done.outcome == "no_deadline":
        return "nothing to do: the game has no deadline"
    if done.outcome == "not_yet_due":
        return f"not yet due: the deadline is {done.remaining:.0f} s away"
    if done.outcome == "vacation":
        return f"seat {seat}'s player is on vacation from the deadline (automatically)"
    if done.outcome == "away":
        return f"not yet due: seat {seat}'s player was on vacation at the deadline"
    if done.outcome == "timed_out":
        return f"seat {seat} timed out ({done.action})"
    return "nothing to do: the turn was played"


def start_rematch(game_id: str, version: int) -> str:
    """Make the rematch a finished game's players agreed on, if the request that agreed stopped before it did (safe
    to run twice: the rematch is made under the id the agreement named, and noted on the finished game once)."""
    game = runtime().games.start_rematch(game_id)
    return f"rematch {game.rematch} made" if game.rematch_started else "nothing to do: no rematch agreed on"


def rate(game_id: str, version: int) -> str:
    """A finished rated game goes into its ladder: applied once, however often this runs, beside whatever twin
    (``service.storage.ratings``); a ladder changing under every attempt fails it, and RQ retries it."""
    try:
        return runtime().ratings.apply(game_id)
    except LadderBusy as busy:
        raise RuntimeError(str(busy)) from None


def tournament_game(game_id: str, version: int) -> str:
    """A finished tournament game's places folded into its tournament; the round it closes closed and the next one
    started (safe to run twice: a game's end is folded once)."""
    tournaments = runtime().tournaments
    return tournaments.game_finished(game_id) if tournaments is not None else "nothing to do: no tournaments here"


def compact(game_id: str, version: int) -> str:
    """An over game's stream folded into one packed record, once its grace is over (safe to run twice)."""
    return runtime().games.compact(game_id)


#: The jobs a worker runs, by the names the dispatcher queues them under (``service.jobqueue.dispatch``).  Decision analyses are
#: no RQ jobs: they have a queue of their own that serves players in turn (``service.jobqueue.analysis_queue``), and analysts
#: that compute them in processes of their own (``workers.analysts``).
JOBS: dict[str, Callable[..., str]] = {
    "ai_turn": ai_turn,
    "score_round": score_round,
    "turn_deadline": turn_deadline,
    "start_rematch": start_rematch,
    "notify": notify,
    "notices": notices,
    "rate": rate,
    "push": push,
    "compact": compact,
    "tournament_game": tournament_game,
}
