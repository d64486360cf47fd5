"""The RQ jobs.  Each loads the game, checks that what it was queued for still holds, and appends.

A job is called with the game id and the version it was queued for.  If the
game is no longer at that version — the job ran already, a duplicate ran, a
player moved first, the deadline came after the move — it appends nothing
and says so.  So any job may run twice, late, or beside a twin.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine import DealRound, Event, Fold, GameState, Phase, RuleViolation, ScoreRound, decide_and_fold, decide_steps
from service.application.followups import plays_on
from service.application.ratings import LadderBusy
from service.domain.ai import choose_steps
from service.domain.deadlines import deadline
from service.domain.game import Game, decode, folded
from service.domain.lobby import LobbyEvent, TurnTimedOut
from service.jobqueue.queues import PermanentJobError
from workers.context import runtime
from workers.notices import notices, notify, push

log = logging.getLogger("red7.jobs")


def _history(game_id: str) -> list[dict[str, Any]]:
    return [decode(e.payload) for e in runtime().store.read_all(game_id)]


#: AI turns one job plays in a row (AIs that move one after another) before it queues the next: enough for a
#: whole round of the table, few enough that an all-AI table leaves the worker to others now and then.
AI_TURNS_PER_JOB = 3


def ai_turn(game_id: str, version: int) -> str:
    """An AI seat plays its turn (or the part of it up to a 3's draw); then, if another AI of a quick level is to
    move at once, that one too, up to :data:`AI_TURNS_PER_JOB` turns (one job instead of one each: RQ's
    bookkeeping of a job costs Redis more than the turn; see ``service.application.followups.play_on_levels``: an
    expert that thinks briefly enough is played on too).

    Quick AIs (random, greedy: they decide in microseconds) that move one after another are one append, each event
    still by its own seat: one write, one wake of everyone waiting, one look of the job system, where a turn each
    cost as much again.  An expert's turn is an append of its own, so that the table sees each move it thought about
    when it is made.
    """
    rt = runtime()
    ai_delay = rt.settings.ai_delay

    def turn_of(game: Game) -> Sequence[LobbyEvent | Event]:
        seat = game.seat_to_move()
        if seat is None or game.seats[seat].kind != "ai":
            return []
        level = game.seats[seat].level or "random"
        history = _history(game_id) if level == "expert" else ()  # only the expert reads the past: it costs a read of it all
        steps = choose_steps(game, seat, level, history, expert_seconds=rt.settings.expert_seconds)
        try:
            return decide_steps(game.state, steps, seat)[0]
        except RuleViolation as refusal:
            raise PermanentJobError(f"the {level} AI chose an illegal step: {refusal.code}: {refusal.message}") from None

    first = rt.games.load(game_id)
    at, played = version, 0
    try:
        while True:
            go_on = played + 1 < AI_TURNS_PER_JOB  # may this job play an AI turn after this append?
            # At most the turns that leave one for the job after this append (go_on promises the dispatcher to play
            # the next quick turn itself, so it queues none); the last turn the job may play is an append alone.
            chain = Chain(turn_of, AI_TURNS_PER_JOB - played - 1 if go_on else 1, ai_delay)
            after = rt.games.advance(game_id, at, chain.decide, by=chain.authors, playing_on=go_on)
            if after is None:
                break
            played += chain.turns
            if not (played < AI_TURNS_PER_JOB and plays_on(after, ai_delay, rt.dispatcher.play_on_levels)):
                break
            at = after.version
    finally:
        rt.games.ai_turn_finished(first, version)  # its place in its owner's share, to the next game
    return f"played {played} turn(s)" if played else "nothing to do: the game moved on"


class Chain:
    """One decision of the AI to move and of each quick AI that moves right after it, up to ``most`` turns, each
    turn decided on the game as the turns before it left it."""

    def __init__(self, turn_of: Callable[[Game], Sequence[LobbyEvent | Event]], most: int, ai_delay: float) -> None:
        self.turn_of, self.most, self.ai_delay = turn_of, most, ai_delay
        self.turns = 0
        self._by: list[str] = []

    def decide(self, game: Game) -> list[LobbyEvent | Event]:
        """The events of the turns (anew at each call: a write decides again on a game read afresh)."""
        self.turns, self._by = 0, []
        events: list[LobbyEvent | Event] = []
        while True:
            seat = game.seat_to_move()
            turn = self.turn_of(game)
            if not turn:
                return events
            events += turn
            self._by += [f"ai:{seat}"] * len(turn)
            self.turns += 1
            if self.turns >= self.most:
                return events
            game = folded(game, turn, game.updated_at)
            if not plays_on(game, self.ai_delay):  # quick levels only: an expert's turn is an append of its own
                return events

    def authors(self) -> list[str]:
        """Who made each event :meth:`decide` returned last."""
        return self._by


def round_end(state: GameState) -> list[Event]:
    """Score a won round and deal the next one (or finish the game), as one decision."""
    events: list[Event] = []
    if state.phase is Phase.ROUND_WON:
        scored, state = decide_and_fold(state, ScoreRound())
        events += scored
    if state.phase is Phase.ROUND_SCORED:
        dealt, state = decide_and_fold(state, DealRound())
        events += dealt
    return events


def score_round(game_id: str, version: int) -> str:
    """Score the round just won and deal the next one from the recorded seed, or finish the game."""
    done = runtime().games.advance(game_id, version, lambda game: round_end(game.state), by="system:scoring")
    return "scored" if done else "nothing to do: the game moved on"


#: How early a deadline job may run and still wait for its deadline in place (RQ's whole-second
#: schedule, the scheduler's polling, clocks of different hosts).  Earlier than that it is retried later.
EARLY_WAIT_MAX = 5.0


class NotYetDue(Exception):
    """A deadline job that ran well before its deadline; RQ retries it later (a transient failure)."""


def turn_deadline(game_id: str, version: int, deadline_ms: int | None = None) -> str:
    """The turn ran out: the stalled seat folds, or an AI plays the turn for it if the game says so; or, in a
    correspondence game whose mover has vacation left, a vacation is taken from the deadline (their clocks stop).

    The deadline is :mod:`service.domain.deadlines`'s, with the mover's calendar as it is now: one that moved later since the job
    was queued (a vacation declared) puts the game back on the agenda at it; one near waits in place.  Two of these
    jobs at once (two tickers) take one vacation or time the turn out once: the vacation's append is checked against
    the calendar's version and the timeout's against the game's.  ``deadline_ms``, the deadline it was queued for, only
    names the job (a deadline moved later is a job of its own): the deadline is computed afresh.
    """
    rt = runtime()
    game = rt.games.load(game_id)
    seat = game.seat_to_move()
    if game.version != version or seat is None or game.seats[seat].kind != "human":
        return "nothing to do: the turn was played"
    turn = rt.games.turn(game)
    if turn is None:
        return "nothing to do: the game has no deadline"
    due_at = deadline(turn)
    remaining = (due_at - rt.clock()).total_seconds()
    if remaining > EARLY_WAIT_MAX:
        rt.shard_of(game_id).dispatcher.reoffer(game, rt.games.needs(game))  # the agenda looks at it at its deadline as it is now
        return f"not yet due: the deadline is {remaining:.0f} s away"
    if remaining > 0:
        time.sleep(remaining)
    mover = game.seats[seat].player_id
    vacation = rt.calendars.take(mover, due_at, game_id) if turn.correspondence and mover else None
    if vacation == "taken":
        return f"seat {seat}'s player is on vacation from the deadline (automatically)"
    if vacation == "away":  # taken by a twin of this job meanwhile: the deadline had not passed
        return f"not yet due: seat {seat}'s player was on vacation at the deadline"

    def decide(current: Game) -> Sequence[LobbyEvent | Event]:
        steps = choose_steps(current, seat, "greedy", []) if current.timeout_action == "ai" else [Fold()]
        return [TurnTimedOut(seat, current.timeout_action), *decide_steps(current.state, steps, seat)[0]]

    done = rt.games.advance(game_id, version, decide, by="system:deadline")
    return f"seat {seat} timed out ({game.timeout_action})" if done else "nothing to do: the turn was played"


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
}
