"""The replay's sentences count right: one card, two cards (never "the palette's 1 cards")."""

from __future__ import annotations

from engine import Card, CardDrawn, DrawCause, GameState, Start, decide, fold
from replays import explain as sentences
from replays.explain import explain


def _names(seat: int) -> str:
    return f"seat {seat}"


def _dealt_with_palette(cards: list[str]) -> GameState:
    """A dealt two-player game whose seat 0 has exactly ``cards`` in its palette."""
    state = fold(decide(GameState(), Start(players=2, seed=7)))
    mask = 0
    for card in cards:
        mask |= 1 << Card.parse(card)
    state.palettes[0] = mask
    return state


def test_count_says_one_card_and_two_cards():
    count = sentences.count
    said = [count(0, "card"), count(1, "card"), count(2, "card"), count(1, "point")]
    assert said == ["0 cards", "1 card", "2 cards", "1 point"]


def test_an_advanced_draw_over_a_one_card_palette_says_one_card():
    before = _dealt_with_palette(["R2"])
    text = explain(CardDrawn(0, Card.parse("B6"), DrawCause.DISCARD), before, before, _names)
    assert "the palette's 1 card " in text and "1 cards" not in text, text


def test_an_advanced_draw_over_a_bigger_palette_says_cards():
    before = _dealt_with_palette(["R2", "O3"])
    text = explain(CardDrawn(0, Card.parse("B6"), DrawCause.DISCARD), before, before, _names)
    assert "the palette's 2 cards " in text, text
