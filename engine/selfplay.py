"""Bots playing whole games against each other through ``decide`` and the fold.

Used by ``python -m engine.simulate``, the benchmarks and the property tests:
every step goes through the same ``decide`` a request would, so a bot that
tried an illegal step would stop the game with the engine's refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.bots import Bot
from engine.decision import decide_and_fold, decide_steps
from engine.events import Event, RoundDealt, RoundWon, TurnStarted, Variant
from engine.legal import position_of
from engine.state import GameState, Phase
from engine.steps import Command, DealRound, ScoreRound, Start, Step


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


def play_game(
    bots: Sequence[Bot],
    *,
    variant: Variant = Variant.ADVANCED,
    action_rules: bool = False,
    seed: int = 0,
    max_steps: int = 100_000,
) -> GameRecord:
    """One game from the deal to the end; ``bots[s]`` plays seat ``s``."""
    record = GameRecord()
    state = GameState()

    def run(command: Step | Command | Sequence[Step], seat: int | None = None) -> None:
        nonlocal state
        if isinstance(command, list | tuple):
            events, state = decide_steps(state, command, seat)  # type: ignore[arg-type]
        else:
            events, state = decide_and_fold(state, command, seat)
        for event in events:
            if isinstance(event, RoundDealt):
                record.rounds.append(RoundRecord(event.first_seat))
            elif isinstance(event, TurnStarted):
                record.rounds[-1].turns += 1
            elif isinstance(event, RoundWon):
                record.rounds[-1].winner = event.seat
        record.events.extend(events)

    run(Start(len(bots), variant, action_rules, seed))
    for _ in range(max_steps):
        if state.phase is Phase.TURN:
            seat = state.turn.seat  # type: ignore[union-attr]
            run(bots[seat].plan(position_of(state)), seat)
        elif state.phase is Phase.ROUND_WON:
            run(ScoreRound())
        elif state.phase is Phase.ROUND_SCORED:
            run(DealRound())
        else:
            break
    else:
        raise RuntimeError(f"the game did not end within {max_steps} decisions")
    record.final = state
    return record
