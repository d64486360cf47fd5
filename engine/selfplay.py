"""Bots playing whole games against each other through ``decide`` and the fold.

Used by ``python -m engine.simulate``, the benchmarks and the property tests:
every step goes through the same ``decide`` a request would, so a bot that
tried an illegal step would stop the game with the engine's refusal.

Two kinds of bot take part.  A :class:`~engine.bots.Bot` plans from its
seat's search ``Position`` (``plan(pos)``).  A :class:`ViewBot` (the expert)
plans from exactly what a remote player gets: the seat's view and the seat's
redacted event history (``plan_view(view, history)``).  The histories are kept
only for view bots, so games between position bots cost what they always did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from engine.bots import Bot
from engine.decision import decide_and_fold, decide_steps
from engine.events import Event, RoundDealt, RoundWon, TurnStarted, Variant
from engine.legal import position_of
from engine.projection import View, redact, view
from engine.state import GameState, Phase
from engine.steps import DealRound, ScoreRound, Start, Step

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13; typing only, no runtime dependency


class ViewBot(Protocol):
    name: str

    def plan_view(self, seen: View, history: Sequence[Event]) -> Sequence[Step]:
        """The steps to take now, from the seat's view and its redacted history."""
        ...


@dataclass(slots=True)
class RoundRecord:
    first_seat: int
    winner: int = -1
    turns: int = 1  # the first turn starts with the deal


@dataclass(slots=True)
class GameRecord:
    events: list[Event] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    final: GameState | None = None


def _plans_from_view(bot: Bot | ViewBot) -> TypeIs[ViewBot]:
    """Whether ``bot`` is told its seat's view and history (``plan_view``) rather than its position."""
    return hasattr(bot, "plan_view")


def play_game(
    bots: Sequence[Bot | ViewBot],
    *,
    variant: Variant = Variant.ADVANCED,
    action_rules: bool = False,
    seed: int = 0,
    max_steps: int = 100_000,
) -> GameRecord:
    """One game from the deal to the end; ``bots[s]`` plays seat ``s``."""
    record = GameRecord()
    view_bots: dict[int, ViewBot] = {}
    position_bots: dict[int, Bot] = {}
    for s, bot in enumerate(bots):
        if _plans_from_view(bot):
            view_bots[s] = bot
        else:
            position_bots[s] = bot
    # What each view bot's seat has seen so far: redacted as the service would redact it.
    histories: dict[int, list[Event]] = {s: [] for s in view_bots}

    def note(events: list[Event]) -> None:
        for event in events:
            if isinstance(event, TurnStarted):
                record.rounds[-1].turns += 1
            elif isinstance(event, RoundDealt):
                record.rounds.append(RoundRecord(event.first_seat))
            elif isinstance(event, RoundWon):
                record.rounds[-1].winner = event.seat
        record.events.extend(events)
        for viewer, seen in histories.items():
            seen.extend(redact(event, viewer) for event in events)

    events, state = decide_and_fold(GameState(), Start(len(bots), variant, action_rules, seed))
    note(events)
    for _ in range(max_steps):
        if state.phase is Phase.TURN:
            turn = state.turn
            assert turn is not None  # the fold gives the TURN phase a turn
            seat = turn.seat
            if seat in histories:
                steps = view_bots[seat].plan_view(view(state, seat), tuple(histories[seat]))
            else:
                steps = position_bots[seat].plan(position_of(state))
            events, state = decide_steps(state, steps, seat)
        elif state.phase is Phase.ROUND_WON:
            events, state = decide_and_fold(state, ScoreRound())
        elif state.phase is Phase.ROUND_SCORED:
            events, state = decide_and_fold(state, DealRound())
        else:
            break
        note(events)
    else:
        raise RuntimeError(f"the game did not end within {max_steps} decisions")
    record.final = state
    return record
