"""docs/rules.md 1-2: the 49 cards and how two cards compare."""

from itertools import pairwise

import pytest

from engine import ALL_CARDS, Card, Color, parse_cards
from tests.engine.rulebook import names


def test_49_cards_numbered_1_to_7_in_seven_colours():
    """docs/rules.md 1: 49 cards, numbers 1-7 in each of seven colours, each card once."""
    assert len(ALL_CARDS) == 49
    assert len(set(ALL_CARDS)) == 49
    assert {c.number for c in ALL_CARDS} == {1, 2, 3, 4, 5, 6, 7}
    assert {c.color for c in ALL_CARDS} == set(Color)
    for color in Color:
        assert sorted(c.number for c in ALL_CARDS if c.color is color) == [1, 2, 3, 4, 5, 6, 7]


def test_colour_order_red_orange_yellow_green_blue_indigo_violet():
    """docs/rules.md 1: Red > Orange > Yellow > Green > Blue > Indigo > Violet."""
    assert Color.RED > Color.ORANGE > Color.YELLOW > Color.GREEN > Color.BLUE > Color.INDIGO > Color.VIOLET
    assert [c.letter for c in sorted(Color, reverse=True)] == ["R", "O", "Y", "G", "B", "I", "V"]


def test_card_notation_is_colour_letter_and_number():
    """docs/rules.md notation: colour letter + number, e.g. R7 O3 Y1 G2 B5 I6 V4."""
    cards = parse_cards("R7 O3 Y1 G2 B5 I6 V4")
    assert names(cards) == ["R7", "O3", "Y1", "G2", "B5", "I6", "V4"]
    assert [(c.number, c.color) for c in cards[:2]] == [(7, Color.RED), (3, Color.ORANGE)]
    assert Card.of(6, Color.INDIGO) == Card.parse("I6")
    with pytest.raises(ValueError, match="not a card"):
        Card.parse("R8")


def test_a_higher_number_beats_any_colour():
    """docs/rules.md 2: "A 7 is always higher than a 6" - even a Violet 7 beats a Red 6."""
    assert Card.parse("V7") > Card.parse("R6")
    assert Card.parse("V2") > Card.parse("R1")


def test_on_equal_numbers_the_colour_decides():
    """docs/rules.md 2 (rulebook): "a Red 6 is higher than an Orange 6, and so on down the colour spectrum"."""
    sixes = parse_cards("V6 R6 B6 O6 I6 G6 Y6")
    assert names(sorted(sixes, reverse=True)) == ["R6", "O6", "Y6", "G6", "B6", "I6", "V6"]


def test_compare_the_value_first_then_the_colour():
    """docs/rules.md 2: number first, colour only on equal numbers."""
    hand = parse_cards("O3 R2 V3 B7 R7 I1")
    assert names(sorted(hand, reverse=True)) == ["R7", "B7", "O3", "V3", "R2", "I1"]


def test_r7_is_the_highest_card_and_v1_the_lowest():
    """docs/rules.md 2: R7 is the highest card, V1 the lowest."""
    assert str(max(ALL_CARDS)) == "R7"
    assert str(min(ALL_CARDS)) == "V1"


def test_no_two_cards_are_equal():
    """docs/rules.md 2: every pair of distinct cards is strictly ordered."""
    ranked = sorted(ALL_CARDS)
    assert all(low < high for low, high in pairwise(ranked))
    assert len({(c.number, c.color) for c in ALL_CARDS}) == 49
