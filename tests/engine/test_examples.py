"""The worked examples of docs/rules.md, as written there."""

from engine import Card, Color, Discard, leader, legal_steps, parse_cards, qualifying_cards
from tests.engine.tables import table


def names(cards: list[Card]) -> list[str]:
    return [str(c) for c in cards]


def test_green_more_evens_then_the_higher_top_even():
    a, b = parse_cards("R5 Y6 B2"), parse_cards("O7 G2 I2")
    assert names(qualifying_cards(a, Color.GREEN)) == ["Y6", "B2"]
    assert names(qualifying_cards(b, Color.GREEN)) == ["G2", "I2"]
    assert leader({"A": a, "B": b}, Color.GREEN) == "A"


def test_blue_three_colours_each_then_r7_beats_g7():
    a, b = parse_cards("R7 O7 I1"), parse_cards("G7 B7 Y4")
    assert leader({"A": a, "B": b}, Color.BLUE) == "A"


def test_advanced_draw_when_the_discard_beats_the_palette_size():
    # Palette 1, 2, 2 (3 cards); discarding I6 (6 > 3) grants the draw.
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I6", "B1"], deck="R3")
    discard = next(s for s in legal_steps(state) if s.step == Discard(Card.parse("I6")))
    assert discard.grants_draw
