"""Small readers shared by the rule-by-rule tests (``test_rules_*.py``).

They keep each test down to the rulebook example it checks::

    assert qualifying("R2 O2 B5 I5", ORANGE) == ["B5", "I5"]
    assert winner(GREEN, A="R5 Y6 B2", B="O7 G2 I2") == "A"
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from engine import Card, Color, Event, GameState, RuleViolation, Step, leader, parse_cards, qualifying_cards
from tests.engine.tables import step


def card(name: str) -> Card:
    """One card from its notation: ``card("R7")``."""
    return Card.parse(name)


def names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def qualifying(palette: str, color: Color) -> list[str]:
    """The qualifying cards of a palette written in notation, highest first."""
    return names(qualifying_cards(parse_cards(palette), color))


def winner(color: Color, **palettes: str) -> str | None:
    """Who is winning under ``color`` among named palettes, or ``None``."""
    return leader({who: parse_cards(cards) for who, cards in palettes.items()}, color)


def refused(state: GameState, command: Step, seat: int | None = None) -> RuleViolation:
    """The refusal a step meets; fails the test if the step is accepted."""
    with pytest.raises(RuleViolation) as info:
        step(state, command, seat)
    return info.value


def kinds(events: Sequence[Event]) -> list[str]:
    """The event types, in order: ``["card_played", "card_drawn", ...]``."""
    return [e.type for e in events]


def deck_top(state: GameState) -> str:
    """The card the next draw takes (``state.deck[-1]``)."""
    return str(state.deck[-1])
