"""A game's decisions, found in its events: who decided, what they knew then, and what they played.

A decision is a turn, or the rest of a turn after a 3's draw.  What it knew is the mover's view and redacted history
at that point (:func:`engine.projection.view`, :func:`engine.projection.redact`): all an evaluation may read, so
that no judgement can rest on cards the mover could not see.  The steps played are found by deciding each legal turn
of the real position and comparing its events with the recorded ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.decision import decide_steps
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    DrawCause,
    Event,
    PlayerEliminated,
    RoundDealt,
    TurnStarted,
)
from engine.legal import position_of, walk
from engine.projection import redact, view
from engine.state import GameState, Phase, apply_in_place
from engine.steps import Fold, Step
from engine.views import View


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """One decision of a game: where it starts, who made it, what they knew, and what they did.

    ``seen`` and ``history`` are all an evaluation may read of the game: the
    mover's view and redacted history.  ``played`` are the mover's steps, and
    ``events`` how many events they made.
    """

    number: int
    event: int
    seat: int
    round: int
    seen: View
    history: tuple[Event, ...]
    played: tuple[Step, ...]
    events: int


_STEP_EVENTS = (CardPlayed, CardDiscarded, CardTaken, CardPlaced, PlayerEliminated)


def decision_points(events: Sequence[Event]) -> list[DecisionPoint]:
    """Every decision of the game in ``events``: a turn, or the rest of a turn after a 3's draw.

    The played steps are found among the legal turns of the real position by
    deciding each and comparing its events with the recorded ones; a stretch
    that matches no turn (a step the service took, such as a timeout) is
    skipped and not judged.
    """
    state = GameState()
    points: list[DecisionPoint] = []
    fresh = False
    i = 0
    while i < len(events):
        event = events[i]
        turn = state.turn
        if (
            fresh
            and state.phase is Phase.TURN
            and turn is not None
            and isinstance(event, _STEP_EVENTS)
            and event.seat == turn.seat
        ):
            fresh = False
            found = _played(state, events, i)
            if found is not None:
                steps, count = found
                seat = turn.seat
                points.append(
                    DecisionPoint(
                        number=len(points),
                        event=i,
                        seat=seat,
                        round=state.round,
                        seen=view(state, seat),
                        history=tuple(redact(e, seat) for e in events[:i]),
                        played=steps,
                        events=count,
                    )
                )
        apply_in_place(state, event)
        if isinstance(event, TurnStarted | RoundDealt) or (isinstance(event, CardDrawn) and event.cause is DrawCause.THREE):
            fresh = True
        elif isinstance(event, _STEP_EVENTS):
            fresh = False
        i += 1
    return points


def _played(state: GameState, events: Sequence[Event], start: int) -> tuple[tuple[Step, ...], int] | None:
    """The legal turn whose events are the recorded ones from ``start``, and how many events it made."""
    turn = state.turn
    assert turn is not None
    plans = [plan.steps for plan in walk(position_of(state), losing=True, draw_choices=True)]
    plans.append((Fold(),))
    first = events[start]
    for steps in plans:
        try:
            made, _ = decide_steps(state, steps, turn.seat)
        except Exception:
            continue
        if made and made[0] == first and list(events[start : start + len(made)]) == made:
            return steps, len(made)
    return None
