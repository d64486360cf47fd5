"""The shapes of what a seat is shown: its :class:`View` and the :class:`LegalStep` list in it.

Data only.  :mod:`engine.projection` builds a view (calling
:func:`engine.legal.legal_steps` for the steps in it) and :mod:`engine.legal`
reads one back into a search position (``position_from_view``), so the types
both of them speak live here, below both: the dependency runs one way,
projection → legal → views.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card, Color
from engine.events import Effect, Finish, Variant
from engine.state import Phase
from engine.steps import Step


@dataclass(frozen=True, slots=True)
class LegalStep:
    """A step the seat to move may take, with what a client should know before sending it.

    ``can_win``: some way of finishing the turn after this step keeps the
    player in the round (unknown draws count as nothing).  ``eliminates``:
    taking this step ends the turn with the player out.  ``grants_draw``: a
    discard that allows the advanced draw.  ``draws``: the step draws a card
    (a 3's action, or a discard that takes the advanced draw), so no step
    may follow it in the same batch.  ``ends_turn``: nothing more can be
    done in this turn afterwards.
    """

    step: Step
    can_win: bool
    eliminates: bool = False
    grants_draw: bool = False
    ends_turn: bool = False
    draws: bool = False


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    in_round: bool
    palette: tuple[Card, ...]  # highest first
    hand_size: int
    score: int
    scored: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TurnView:
    seat: int
    played: bool
    pending: Effect | None


@dataclass(frozen=True, slots=True)
class View:
    viewer: int | None
    phase: Phase
    players: int
    variant: Variant
    action_rules: bool
    custom_deal: bool
    target: int | None
    round: int
    rule: Color
    canvas: tuple[Card, ...]  # bottom first
    deck_size: int
    seats: tuple[SeatView, ...]
    hand: tuple[Card, ...] | None  # the viewer's own hand, highest first
    turn: TurnView | None
    legal: tuple[LegalStep, ...]  # only for the viewer, only on the viewer's turn
    round_winner: int | None
    winner: int | None
    finish: Finish | None
