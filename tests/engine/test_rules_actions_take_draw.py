"""docs/rules.md 26-28: the action rules of the odd cards in general, then the 1 (take) and the 3 (draw).

The 5 (play again) and the 7 (place) are in test_rules_actions_play_place.py; when a 1, 3 or 7
may be played and the order inside a turn (docs/rules.md 31-32) in test_rules_actions_order.py.
All tables here play with the action rules; most use the basic variant, so that no
advanced draw (docs/rules.md 22) gets in the way unless a test asks for it.
"""

import pytest

from engine import (
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Discard,
    DrawCause,
    Effect,
    EndTurn,
    Place,
    Play,
    RuleViolation,
    Take,
    TurnStarted,
    decide_steps,
)
from tests.engine.action_tables import ADVANCED, BASIC, CANVAS, actions, listed
from tests.engine.rulebook import card, deck_top, kinds, names, refused
from tests.engine.tables import INDIGO, VIOLET, YELLOW, hand, palette, step, table

# --- docs/rules.md 26: effects fire for hand-to-palette plays only, and come first ------------------


@pytest.mark.parametrize("odd", ["V1", "V3", "V5", "V7"])
def test_discarding_an_odd_card_fires_no_effect(odd: str):
    """docs/rules.md 26: a discard never fires an effect - discarding a violet 1, 3, 5 or 7 just sets Violet."""
    state = actions(palettes=["G2 B4", "R5 O4"], hands=["V1 V3 V5 V7", "B1"], deck="R1")
    state, events = step(state, Discard(card(odd)))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is VIOLET
    assert names(state.deck) == ["R1"]
    assert palette(state, 1) == ["R5", "O4"]


def test_a_card_put_on_the_canvas_by_a_7_fires_no_effect():
    """docs/rules.md 26: the 7 moves Y3 from the palette to the canvas; that 3 draws nothing."""
    state = actions(palettes=["Y3 Y6", "R5"], hands=["O7 B1", "B2"], deck="G1")
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("Y3"), CANVAS))
    assert events == [CardPlaced(0, card("Y3"), CANVAS)]
    assert state.rule is YELLOW
    assert hand(state, 0) == ["B1"]
    assert names(state.deck) == ["G1"]


def test_a_card_taken_by_a_1_fires_no_effect():
    """docs/rules.md 26: the 1 takes seat 1's R3 onto the deck; nobody draws for that 3."""
    state = actions(palettes=["G4", "R3 B5"], hands=["Y1 V2", "B2"], deck="G1")
    state, _ = step(state, Play(card("Y1")))
    state, events = step(state, Take(1, card("R3")))
    assert events == [CardTaken(0, 1, card("R3"))]
    assert state.turn.pending is None
    assert [hand(state, 0), hand(state, 1)] == [["V2"], ["B2"]]


def test_an_effect_must_be_resolved_before_anything_else():
    """docs/rules.md 26, 32: with the 1's take pending, seat 0 may not discard or end the turn yet."""
    state = actions(palettes=["G4", "R3 B5"], hands=["Y1 V2", "B2"])
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), Effect.TAKE)]
    assert state.turn.pending is Effect.TAKE
    for command in (Discard(card("V2")), EndTurn(), Play(card("V2"))):
        error = refused(state, command)
        assert error.code == "effect_pending"
        assert "take" in error.message
    assert {type(s).__name__ for s in listed(state)} == {"Take", "Fold"}


def test_without_the_action_rules_odd_cards_do_nothing():
    """docs/rules.md 26: the actions are optional; without them a played 1 takes nothing."""
    state = table(palettes=["G4", "R3 B5"], hands=["Y1 V2", "B2"], variant=BASIC)
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), None)]
    assert state.turn.pending is None


# --- docs/rules.md 27: the 1 takes a card from a palette at least as big -----------------------------


def test_1_takes_from_a_palette_with_as_many_cards_counting_the_1():
    """docs/rules.md 27: G4 + Y1 = 2 cards. Seat 1 has 2: eligible. Seat 2 has 1 - as many as seat 0 had before
    the 1, but the 1 counts: not eligible."""
    state = actions(palettes=["G4", "R2 B5", "O6"], hands=["Y1 V5", "B2", "I2"])
    state, _ = step(state, Play(card("Y1")))
    takes = [s for s in listed(state) if isinstance(s, Take)]
    assert takes == [Take(1, card("B5")), Take(1, card("R2"))]
    error = refused(state, Take(2, card("O6")))
    assert error.code == "take_not_allowed"
    assert "at least 2 cards" in error.message and "seats 1" in error.message
    assert error.details["targets"] == [1]


def test_1_takes_from_a_bigger_palette():
    """docs/rules.md 27: a palette with more cards than the mover's is eligible too."""
    state = actions(palettes=["G4", "O6", "R2 B5 V6"], hands=["Y1 V5", "B2", "I2"])
    state, _ = step(state, Play(card("Y1")))
    assert {s.seat for s in listed(state) if isinstance(s, Take)} == {2}


def test_1_puts_the_taken_card_face_down_on_top_of_the_deck():
    """docs/rules.md 27: R2 leaves seat 1's palette for the top of the deck; then V5 makes Violet the rule (Y1 wins it)."""
    state = actions(palettes=["G4", "R2 B5", "O6"], hands=["Y1 V5", "B2", "I2"], deck="G7")
    state, _ = step(state, Play(card("Y1")))
    state, events = step(state, Take(1, card("R2")))
    assert events == [CardTaken(0, 1, card("R2"))]
    assert palette(state, 1) == ["B5"]
    assert deck_top(state) == "R2"
    assert names(reversed(state.deck)) == ["R2", "G7"]
    state, _ = step(state, Discard(card("V5")))
    assert state.rule is VIOLET and state.in_round == [True, True, True]


def test_1_can_take_only_a_card_that_is_on_that_palette():
    """docs/rules.md 27: the card must be on the chosen player's palette."""
    state = actions(palettes=["G4", "R2 B5", "O6"], hands=["Y1 V5", "B2", "I2"])
    state, _ = step(state, Play(card("Y1")))
    error = refused(state, Take(1, card("O6")))
    assert error.code == "card_not_on_palette"
    assert "O6" in error.message


def test_1_with_no_eligible_player_has_no_effect():
    """docs/rules.md 27: R7 G4 + Y1 = 3 cards, seat 1 has only 2 - nothing to take, the turn goes on."""
    state = actions(palettes=["R7 G4", "O6 B5"], hands=["Y1 V5", "B2"])
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), None)]
    assert state.turn.pending is None
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_a_take_is_refused_when_no_1_was_played():
    """docs/rules.md 27: a take happens only as the effect of a 1."""
    state = actions(palettes=["G4", "R2 B5"], hands=["Y2 V5", "B2"])
    state, _ = step(state, Play(card("Y2")))
    assert refused(state, Take(1, card("R2"))).code == "no_effect_pending"


# --- docs/rules.md 28: the 3 draws -------------------------------------------------------------------


def test_3_draws_the_top_card_of_the_deck():
    """docs/rules.md 28: G3 to the palette, and V7 (the top card) into the hand."""
    state = actions(palettes=["R6", "O6"], hands=["G3 B1", "B2"], deck="V7 R1")
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), Effect.DRAW), CardDrawn(0, card("V7"), DrawCause.THREE)]
    assert hand(state, 0) == ["V7", "B1"]
    assert deck_top(state) == "R1"
    assert state.turn.pending is None


def test_3_on_an_empty_deck_draws_nothing():
    """docs/rules.md 28: nothing to draw, nothing happens."""
    state = actions(palettes=["R6", "O6"], hands=["G3 B1", "B2"], deck="")
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), None)]
    assert hand(state, 0) == ["B1"]


def test_the_card_a_3_draws_may_be_discarded_in_the_same_turn():
    """docs/rules.md 28 (rulebook note): play Y3 hoping for a rule card; the drawn I6 makes Indigo the rule (a run 3-4)."""
    state = actions(palettes=["G4", "R5"], hands=["Y3 R1", "B2"], deck="I6")
    state, _ = step(state, Play(card("Y3")))
    assert hand(state, 0) == ["I6", "R1"]
    state, events = step(state, Discard(card("I6")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is INDIGO


def test_no_step_may_follow_a_3s_draw_in_the_same_batch():
    """docs/rules.md 28, 31: the drawn card must be seen first; a batch that went on would reveal it by its refusal.

    Whatever lies on the deck, [Y3, discard I6, end] is refused the same way,
    at the step after the draw, so a refused batch tells nothing of the deck.
    """
    refusals = []
    for top in ("I6", "R1", "V7"):
        state = actions(palettes=["G4", "R5"], hands=["Y3 R1", "B2"], deck=top)
        with pytest.raises(RuleViolation) as refusal:
            decide_steps(state, [Play(card("Y3")), Discard(card("I6")), EndTurn()], 0)
        refusals.append((refusal.value.code, refusal.value.message, refusal.value.details))
    assert refusals[0][0] == "step_after_draw" and refusals[0][2]["step"] == 1
    assert refusals.count(refusals[0]) == 3


def test_the_advanced_draw_ends_the_batch_too():
    """docs/rules.md 22: a discard that draws is the last step a batch may hold."""
    state = table(variant=ADVANCED, palettes=["R6", "B2"], hands=["O5 Y1", "B3"], deck="V7 I2")
    with pytest.raises(RuleViolation) as refusal:
        decide_steps(state, [Discard(card("O5"), draw=True), EndTurn()], 0)
    assert refusal.value.code == "step_after_draw"
