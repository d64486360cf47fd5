"""docs/rules.md 3-9: the seven canvas rules - which cards of a palette qualify, and who leads.

Each rule has its qualifying cards, its tie-break, and a few rulebook examples.
Palettes are written as in the rulebooks; ``qualifying`` lists the cards highest first.
"""

import pytest

from engine import Card, Color, Discard
from tests.engine.rulebook import qualifying, refused, winner
from tests.engine.tables import BLUE, GREEN, INDIGO, ORANGE, RED, VIOLET, YELLOW, step, table

# --- docs/rules.md 3: Red, the highest card ----------------------------------------------


def test_red_qualifying_card_is_the_single_highest_card():
    """docs/rules.md 3: under Red only the highest card of the palette counts."""
    assert qualifying("R1 G7 B7 O4", RED) == ["G7"]
    assert qualifying("V2", RED) == ["V2"]


def test_red_higher_number_wins():
    """docs/rules.md 3: a palette with a 6 beats one whose best card is a 5, whatever else it holds."""
    assert winner(RED, A="R5 O5 Y5", B="V6") == "B"


def test_red_same_number_the_colour_decides():
    """docs/rules.md 3 (rulebook): R7 beats O7."""
    assert winner(RED, A="O7 R6", B="R7 V1") == "B"


def test_red_russian_rulebook_example():
    """docs/rules.md 3 (rulebook example): Y4 G2 I6 cannot beat an opponent's R6 under Red."""
    assert qualifying("Y4 G2 I6", RED) == ["I6"]
    assert winner(RED, Alexey="Y4 G2 I6", rival="R6") == "rival"


# --- docs/rules.md 4: Orange, most cards of one number ---------------------------------


def test_orange_largest_group_of_one_number():
    """docs/rules.md 4: the largest group of cards with one number."""
    assert qualifying("R1 G4 B4 V2", ORANGE) == ["G4", "B4"]
    assert qualifying("V3 I3 B3 R7 O7", ORANGE) == ["B3", "I3", "V3"]


def test_orange_equal_groups_the_group_with_the_highest_card():
    """docs/rules.md 4: two pairs - the pair of 5s holds the highest card (B5), so it counts, not the 2s."""
    assert qualifying("R2 O2 B5 I5", ORANGE) == ["B5", "I5"]


def test_orange_equal_groups_of_one_the_highest_card():
    """docs/rules.md 4 (rulebook clarification): with no two cards of a number, the highest card is the group."""
    assert qualifying("R3 G6 V1", ORANGE) == ["G6"]
    assert winner(ORANGE, A="R3 G6 V1", B="V7") == "B"


def test_orange_more_cards_beat_higher_cards():
    """docs/rules.md 4, 10: three 2s beat two 7s."""
    assert winner(ORANGE, A="V2 I2 B2", B="R7 O7") == "A"


def test_orange_equal_groups_compare_their_top_cards():
    """docs/rules.md 4, 10: two 5s against two 5s - O5 beats B5."""
    assert winner(ORANGE, A="B5 I5 R4", B="O5 V5") == "B"


def test_orange_the_chosen_group_is_the_one_compared():
    """docs/rules.md 4: A's pair of 5s (B5 on top) is what counts - so A beats the pair R4 O4, though R2 O2 would not."""
    assert winner(ORANGE, A="R2 O2 B5 I5", B="R4 O4") == "A"


def test_orange_russian_rulebook_scoring_example():
    """docs/rules.md 4 (rulebook example): Y4 G2 I6 I4 under Orange - the two 4s qualify."""
    assert qualifying("Y4 G2 I6 I4", ORANGE) == ["Y4", "I4"]


# --- docs/rules.md 5: Yellow, most cards of one colour ---------------------------------


def test_yellow_largest_group_of_one_colour():
    """docs/rules.md 5: the largest group of cards of one colour."""
    assert qualifying("R7 G1 G3 G6", YELLOW) == ["G6", "G3", "G1"]


def test_yellow_equal_groups_the_group_with_the_highest_card():
    """docs/rules.md 5: two Reds and two Blues - the Blue group holds B7, the highest card."""
    assert qualifying("R2 R1 B7 B6", YELLOW) == ["B7", "B6"]


def test_yellow_equal_groups_same_top_number_the_colour_decides():
    """docs/rules.md 5, 2: R5 R1 against O5 O4 - R5 is the higher card, so the Reds count."""
    assert qualifying("R5 R1 O5 O4", YELLOW) == ["R5", "R1"]


def test_yellow_the_chosen_group_is_the_one_compared():
    """docs/rules.md 5: A's Blues (B7 on top) beat B's Oranges (O6 on top); A's Reds (R2 on top) would not."""
    assert winner(YELLOW, A="R2 R1 B7 B6", B="O6 O5") == "A"


def test_yellow_all_colours_different_the_highest_card():
    """docs/rules.md 5 (rulebook clarification): one card of each colour - the highest card counts."""
    assert qualifying("R1 O4 V6", YELLOW) == ["V6"]


def test_yellow_more_cards_of_one_colour_win():
    """docs/rules.md 5, 10: three Violets beat two Reds."""
    assert winner(YELLOW, A="R7 R6 B3", B="V1 V2 V3") == "B"


# --- docs/rules.md 6: Green, even cards -----------------------------------------------------


def test_green_every_even_card():
    """docs/rules.md 6: every 2, 4 and 6 counts."""
    assert qualifying("R1 O2 Y3 G4 B5 I6 V7", GREEN) == ["I6", "G4", "O2"]


def test_green_no_even_card_qualifies_nothing():
    """docs/rules.md 6: a palette of odd cards has no qualifying card."""
    assert qualifying("R7 O5 Y3 G1", GREEN) == []


def test_green_equal_counts_the_highest_even_card():
    """docs/rules.md 6 (rulebook clarification): on a tie, the highest even card wins - O6 beats B6."""
    assert winner(GREEN, A="B6 V4 R7", B="O6 I2 Y5") == "B"


def test_green_three_players_most_even_cards():
    """docs/rules.md 6, 10: three even cards beat two, whatever the odd cards."""
    assert winner(GREEN, A="V2 I2 B2", B="R6 O6 R7", C="Y4") == "A"


def test_green_polish_rulebook_example():
    """docs/rules.md 6 (rulebook example): Bartek 5 6 2 against Ania 7 2 2 - two evens each, 6 beats 2."""
    assert winner(GREEN, Bartek="R5 Y6 B2", Ania="O7 G2 I2") == "Bartek"


# --- docs/rules.md 7: Blue, most different colours -------------------------------------------


def test_blue_highest_card_of_each_colour():
    """docs/rules.md 7: one card per colour present, the highest of that colour."""
    assert qualifying("R1 R5 G2 G4 V7", BLUE) == ["V7", "R5", "G4"]


def test_blue_more_colours_beat_higher_cards():
    """docs/rules.md 7, 10: three colours beat two colours."""
    assert winner(BLUE, A="R7 R6 R5 O7", B="V1 I1 B1") == "B"


def test_blue_rulebook_example_equal_colours_top_card_decides():
    """docs/rules.md 7 (worked example): R7 O7 I1 against G7 B7 Y4 - three colours each, R7 beats G7."""
    assert qualifying("R7 O7 I1", BLUE) == ["R7", "O7", "I1"]
    assert winner(BLUE, A="R7 O7 I1", B="G7 B7 Y4") == "A"


def test_blue_one_colour_each_the_highest_card():
    """docs/rules.md 7 (rulebook clarification): if everyone has one colour, the highest card wins."""
    assert qualifying("G1 G5 G3", BLUE) == ["G5"]
    assert winner(BLUE, A="G1 G5 G3", B="V6") == "B"


# --- docs/rules.md 8: Indigo, the longest run ---------------------------------------------------


def test_indigo_longest_run_of_consecutive_numbers():
    """docs/rules.md 8: 1 2 3 is a run of three; the lone 5 is not part of it."""
    assert qualifying("R1 O2 Y3 G5", INDIGO) == ["Y3", "O2", "R1"]


def test_indigo_rulebook_run_4_5_6():
    """docs/rules.md 8 (rulebook): "cards that form a run (i.e. 4 5 6)"."""
    assert qualifying("B4 Y5 R6 G1", INDIGO) == ["R6", "Y5", "B4"]


def test_indigo_only_the_highest_card_of_each_number():
    """docs/rules.md 8: R4 and B4 - only R4 is part of the run."""
    assert qualifying("B4 R4 G5", INDIGO) == ["G5", "R4"]


def test_indigo_polish_rulebook_scoring_example():
    """docs/rules.md 8 (rulebook example): 7 7 6 5 2 - the run is 5 6 and the red 7 (the higher 7)."""
    assert qualifying("R7 Y7 G6 B5 I2", INDIGO) == ["R7", "G6", "B5"]


def test_indigo_equal_runs_the_run_with_the_highest_card():
    """docs/rules.md 8: runs 1-2 and 5-6 - the run 5-6 holds the highest card."""
    assert qualifying("R1 R2 G5 V6", INDIGO) == ["V6", "G5"]


def test_indigo_the_chosen_run_is_the_one_compared():
    """docs/rules.md 8: A's run 5-6 (V6 on top) beats B's run 3-4 (Y4 on top); A's run 1-2 would not."""
    assert winner(INDIGO, A="R1 R2 G5 V6", B="O3 Y4") == "A"


def test_indigo_a_single_card_is_a_run_of_1():
    """docs/rules.md 8: a single card is a run of 1; with no two consecutive numbers the highest card counts."""
    assert qualifying("R7", INDIGO) == ["R7"]
    assert qualifying("R1 G3 V5", INDIGO) == ["V5"]


def test_indigo_runs_of_one_compare_the_highest_card():
    """docs/rules.md 8 (rulebook clarification): if nobody has a run, the highest card wins."""
    assert winner(INDIGO, A="R1 G3", B="V5") == "B"


def test_indigo_longer_run_beats_higher_cards():
    """docs/rules.md 8, 10: V1 V2 V3 beat R7 R5."""
    assert winner(INDIGO, A="R7 R5", B="V1 I2 V3") == "B"


# --- docs/rules.md 9: Violet, cards below 4 -----------------------------------------------------


def test_violet_every_card_numbered_1_2_or_3():
    """docs/rules.md 9: every 1, 2 and 3 counts."""
    assert qualifying("R3 O4 V1 G2 B7", VIOLET) == ["R3", "G2", "V1"]


def test_violet_no_low_card_qualifies_nothing():
    """docs/rules.md 9: 4s and higher never count."""
    assert qualifying("R4 O5 Y7", VIOLET) == []


def test_violet_equal_counts_the_highest_low_card():
    """docs/rules.md 9 (rulebook clarification): on a tie, the highest card is (at best) R3."""
    assert winner(VIOLET, A="O3 V1 R7", B="R3 I2") == "B"


def test_violet_more_low_cards_win():
    """docs/rules.md 9, 10: three low cards beat two."""
    assert winner(VIOLET, A="V1 I1 B1", B="R3 O3 R7") == "A"


# --- every rule at once --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("color", "expected"),
    [
        (RED, ["R7"]),
        (ORANGE, ["O6", "G6", "B6"]),
        (YELLOW, ["R7", "R2"]),
        (GREEN, ["O6", "G6", "B6", "R2", "V2"]),
        (BLUE, ["R7", "O6", "G6", "B6", "V2"]),
        (INDIGO, ["R7", "O6"]),
        (VIOLET, ["R2", "V2"]),
    ],
)
def test_one_palette_under_each_rule(color: Color, expected: list[str]):
    """docs/rules.md 3-9: the palette R7 O6 G6 B6 R2 V2 under each of the seven rules."""
    assert qualifying("R7 O6 G6 B6 R2 V2", color) == expected


@pytest.mark.parametrize(
    ("discard", "mine", "theirs", "allowed"),
    [
        ("R1", "O7 R6", "R7 V1", False),  # Red: O7 against R7
        ("O1", "R2 O2 B5 I5", "R4 O4", True),  # Orange: the 5s (B5) against the 4s (R4)
        ("Y1", "R2 R1 B7 B6", "O6 O5", True),  # Yellow: the Blues (B7) against the Oranges (O6)
        ("G1", "B6 V4 R7", "O6 I2 Y5", False),  # Green: B6 V4 against O6 I2
        ("B1", "R7 O7 I1", "G7 B7 Y4", True),  # Blue: R7 O7 I1 against G7 B7 Y4
        ("I1", "R1 R2 G5 V6", "O3 Y4", True),  # Indigo: the run 5-6 against the run 3-4
        ("V1", "O3 I1 R7", "R3 I2", False),  # Violet: O3 I1 against R3 I2
    ],
)
def test_a_discard_is_judged_by_the_new_rules_qualifying_cards(discard: str, mine: str, theirs: str, allowed: bool):
    """docs/rules.md 3-9, 16: in a game, discarding changes the rule, and the examples above decide whether that is allowed."""
    state = table(palettes=[mine, theirs], hands=[discard, "V7"])
    color = Card.parse(discard).color
    if allowed:
        state, _ = step(state, Discard(Card.parse(discard)))
        assert state.rule is color
    else:
        assert refused(state, Discard(Card.parse(discard))).code == "discard_not_winning"
