"""What the game's own jobs decide: an AI's turn, a round's end, a turn that ran out.

These are decisions like a player's command, so they live here beside the commands (``workers/jobs.py`` only
decodes a job, calls one of these and maps the outcome to RQ's retries).  Each is a write
:meth:`~service.application.games.GameService.advance` makes only if the game is still at the version the job was
queued for: a job that finds the game moved on (it ran already, a twin ran, a player moved first, the deadline came
after the move) appends nothing and says so, so any of them may run twice, late, or beside a twin.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine import DealRound, Event, Fold, GameState, Phase, RuleViolation, ScoreRound, decide_and_fold, decide_steps
from service.application.calendars import Calendars
from service.application.followups import plays_on
from service.application.games import GameService
from service.domain.ai import choose_steps
from service.domain.deadlines import deadline
from service.domain.game import Game, decode, folded
from service.domain.lobby import LobbyEvent, TurnTimedOut

#: AI turns one job plays in a row (AIs that move one after another) before it queues the next: enough for a
#: whole round of the table, few enough that an all-AI table leaves the worker to others now and then.
AI_TURNS_PER_JOB = 3

#: How early a deadline job may run and still wait for its deadline in place (RQ's whole-second
#: schedule, the scheduler's polling, clocks of different hosts).  Earlier than that it is retried later.
EARLY_WAIT_MAX = 5.0


class IllegalAIStep(Exception):
    """An AI chose a step the engine refuses: no retry mends it (the job fails for good)."""


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


@dataclass(frozen=True, slots=True)
class Deadline:
    """What a deadline job came to: ``outcome`` one of ``played`` (the turn was played: nothing to do), ``no_deadline``,
    ``not_yet_due`` (``remaining`` seconds away: the game is back on the agenda), ``vacation`` (the mover's vacation
    was taken from the deadline), ``away`` (the mover was on vacation at it), ``timed_out`` (``action``: fold or ai)."""

    outcome: str
    seat: int | None = None
    remaining: float = 0.0
    action: str = ""


class Turns:
    """The decisions the game's jobs make, over the games and the players' calendars."""

    def __init__(
        self,
        games: GameService,
        calendars: Calendars,
        *,
        ai_delay: float,
        expert_seconds: float,
        play_on_levels: Callable[[], frozenset[str]],
    ) -> None:
        self.games, self.calendars = games, calendars
        self.ai_delay, self.expert_seconds = ai_delay, expert_seconds
        #: The AI levels a job plays on into, asked at each turn: the job system's (the dispatcher's) setting.
        self.play_on_levels = play_on_levels

    def _history(self, game_id: str) -> list[dict[str, Any]]:
        return [decode(e.payload) for e in self.games.store.read_all(game_id)]

    def ai_turn(self, game_id: str, version: int, request_id: str | None = None) -> int:
        """An AI seat plays its turn (or the part of it up to a 3's draw); then, if another AI of a quick level is to
        move at once, that one too, up to :data:`AI_TURNS_PER_JOB` turns (one job instead of one each: RQ's
        bookkeeping of a job costs Redis more than the turn; see ``service.application.followups.play_on_levels``: an
        expert that thinks briefly enough is played on too).  How many turns were played (0: the game moved on).

        Quick AIs (random, greedy: they decide in microseconds) that move one after another are one append, each event
        still by its own seat: one write, one wake of everyone waiting, one look of the job system, where a turn each
        cost as much again.  An expert's turn is an append of its own, so that the table sees each move it thought
        about when it is made.  ``request_id``: the request that caused the job, carried into the jobs it queues.
        Raises :class:`IllegalAIStep` if an AI chose a step the engine refuses.
        """

        def turn_of(game: Game) -> Sequence[LobbyEvent | Event]:
            seat = game.seat_to_move()
            if seat is None or game.seats[seat].kind != "ai":
                return []
            level = game.seats[seat].level or "random"
            history = self._history(game_id) if level == "expert" else ()  # only the expert reads the past: all of it
            steps = choose_steps(game, seat, level, history, expert_seconds=self.expert_seconds)
            try:
                return decide_steps(game.state, steps, seat)[0]
            except RuleViolation as refusal:
                raise IllegalAIStep(f"the {level} AI chose an illegal step: {refusal.code}: {refusal.message}") from None

        first = self.games.load(game_id)
        at, played = version, 0
        try:
            while True:
                go_on = played + 1 < AI_TURNS_PER_JOB  # may this job play an AI turn after this append?
                # At most the turns that leave one for the job after this append (go_on promises the dispatcher to play
                # the next quick turn itself, so it queues none); the last turn the job may play is an append alone.
                chain = Chain(turn_of, AI_TURNS_PER_JOB - played - 1 if go_on else 1, self.ai_delay)
                after = self.games.advance(game_id, at, chain.decide, by=chain.authors, playing_on=go_on, request_id=request_id)
                if after is None:
                    break
                played += chain.turns
                if not (played < AI_TURNS_PER_JOB and plays_on(after, self.ai_delay, self.play_on_levels())):
                    break
                at = after.version
        finally:
            self.games.ai_turn_finished(first, version)  # its place in its owner's share, to the next game
        return played

    def score_round(self, game_id: str, version: int, request_id: str | None = None) -> bool:
        """Score the round just won and deal the next one from the recorded seed, or finish the game; ``False``: the
        game moved on (done already).  ``request_id``: the request that caused the job, carried on."""
        scored = self.games.advance(
            game_id, version, lambda game: round_end(game.state), by="system:scoring", request_id=request_id
        )
        return scored is not None

    def time_out(
        self, game_id: str, version: int, *, clock: Callable[[], datetime], sleep: Callable[[float], None] = time.sleep
    ) -> Deadline:
        """The turn ran out: the stalled seat folds, or an AI plays the turn for it if the game says so; or, in a
        correspondence game whose mover has vacation left, a vacation is taken from the deadline (their clocks stop).

        The deadline is :mod:`service.domain.deadlines`'s, with the mover's calendar as it is now: one that moved later
        since the job was queued (a vacation declared) puts the game back on the agenda at it; one near (within
        :data:`EARLY_WAIT_MAX`) is waited for in place with ``sleep``.  Two of these at once (two tickers) take one
        vacation or time the turn out once: the vacation's append is checked against the calendar's version and the
        timeout's against the game's.  ``clock``: what time it is (the runtime's, which a test moves).
        """
        game = self.games.load(game_id)
        seat = game.seat_to_move()
        if game.version != version or seat is None or game.seats[seat].kind != "human":
            return Deadline("played")
        turn = self.games.turn(game)
        if turn is None:
            return Deadline("no_deadline")
        due_at = deadline(turn)
        remaining = (due_at - clock()).total_seconds()
        if remaining > EARLY_WAIT_MAX:
            self.games.followups.reoffer(game, self.games.needs(game))  # the agenda looks at it at its deadline as it is now
            return Deadline("not_yet_due", remaining=remaining)
        if remaining > 0:
            sleep(remaining)
        mover = game.seats[seat].player_id
        may_take = turn.correspondence and mover and self.calendars.may_take(game, due_at)
        vacation = self.calendars.take(mover, due_at, game_id) if may_take and mover else None
        if vacation == "taken":
            return Deadline("vacation", seat)
        if vacation == "away":  # taken by a twin of this job meanwhile: the deadline had not passed
            return Deadline("away", seat)

        def decide(current: Game) -> Sequence[LobbyEvent | Event]:
            steps = choose_steps(current, seat, "greedy", []) if current.timeout_action == "ai" else [Fold()]
            return [TurnTimedOut(seat, current.timeout_action), *decide_steps(current.state, steps, seat)[0]]

        if self.games.advance(game_id, version, decide, by="system:deadline") is None:
            return Deadline("played")
        return Deadline("timed_out", seat, action=game.timeout_action)
