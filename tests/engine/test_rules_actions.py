"""RULES.md 26-32: the action rules of the odd cards - 1 take, 3 draw, 5 play again, 7 place.

All tables here play with the action rules; most use the basic variant, so that no
advanced draw (RULES.md 22) gets in the way unless a test asks for it.
"""

import pytest

from engine import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Destination,
    Discard,
    DrawCause,
    Effect,
    Elimination,
    EndTurn,
    Place,
    Play,
    PlayerEliminated,
    RuleViolation,
    Take,
    TurnStarted,
    Variant,
    decide_steps,
    legal_steps,
)
from tests.engine.rulebook import card, deck_top, kinds, names, refused
from tests.engine.tables import BLUE, GREEN, INDIGO, VIOLET, YELLOW, hand, palette, step, table

BASIC, ADVANCED = Variant.BASIC, Variant.ADVANCED
DECK, CANVAS = Destination.DECK, Destination.CANVAS


def actions(**layout):
    """A table played with the action rules (basic variant unless given)."""
    layout.setdefault("variant", BASIC)
    return table(action_rules=True, **layout)


def listed(state):
    return [s.step for s in legal_steps(state)]


# --- RULES.md 26: effects fire for hand-to-palette plays only, and come first ------------------


@pytest.mark.parametrize("odd", ["V1", "V3", "V5", "V7"])
def test_discarding_an_odd_card_fires_no_effect(odd: str):
    """RULES.md 26: a discard never fires an effect - discarding a violet 1, 3, 5 or 7 just sets Violet."""
    state = actions(palettes=["G2 B4", "R5 O4"], hands=["V1 V3 V5 V7", "B1"], deck="R1")
    state, events = step(state, Discard(card(odd)))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is VIOLET
    assert names(state.deck) == ["R1"]
    assert palette(state, 1) == ["R5", "O4"]


def test_a_card_put_on_the_canvas_by_a_7_fires_no_effect():
    """RULES.md 26: the 7 moves Y3 from the palette to the canvas; that 3 draws nothing."""
    state = actions(palettes=["Y3 Y6", "R5"], hands=["O7 B1", "B2"], deck="G1")
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("Y3"), CANVAS))
    assert events == [CardPlaced(0, card("Y3"), CANVAS)]
    assert state.rule is YELLOW
    assert hand(state, 0) == ["B1"]
    assert names(state.deck) == ["G1"]


def test_a_card_taken_by_a_1_fires_no_effect():
    """RULES.md 26: the 1 takes seat 1's R3 onto the deck; nobody draws for that 3."""
    state = actions(palettes=["G4", "R3 B5"], hands=["Y1 V2", "B2"], deck="G1")
    state, _ = step(state, Play(card("Y1")))
    state, events = step(state, Take(1, card("R3")))
    assert events == [CardTaken(0, 1, card("R3"))]
    assert state.turn.pending is None
    assert [hand(state, 0), hand(state, 1)] == [["V2"], ["B2"]]


def test_an_effect_must_be_resolved_before_anything_else():
    """RULES.md 26, 32: with the 1's take pending, seat 0 may not discard or end the turn yet."""
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
    """RULES.md 26: the actions are optional; without them a played 1 takes nothing."""
    state = table(palettes=["G4", "R3 B5"], hands=["Y1 V2", "B2"], variant=BASIC)
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), None)]
    assert state.turn.pending is None


# --- RULES.md 27: the 1 takes a card from a palette at least as big -----------------------------


def test_1_takes_from_a_palette_with_as_many_cards_counting_the_1():
    """RULES.md 27: G4 + Y1 = 2 cards. Seat 1 has 2: eligible. Seat 2 has 1 - as many as seat 0 had before
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
    """RULES.md 27: a palette with more cards than the mover's is eligible too."""
    state = actions(palettes=["G4", "O6", "R2 B5 V6"], hands=["Y1 V5", "B2", "I2"])
    state, _ = step(state, Play(card("Y1")))
    assert {s.seat for s in listed(state) if isinstance(s, Take)} == {2}


def test_1_puts_the_taken_card_face_down_on_top_of_the_deck():
    """RULES.md 27: R2 leaves seat 1's palette for the top of the deck; then V5 makes Violet the rule (Y1 wins it)."""
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
    """RULES.md 27: the card must be on the chosen player's palette."""
    state = actions(palettes=["G4", "R2 B5", "O6"], hands=["Y1 V5", "B2", "I2"])
    state, _ = step(state, Play(card("Y1")))
    error = refused(state, Take(1, card("O6")))
    assert error.code == "card_not_on_palette"
    assert "O6" in error.message


def test_1_with_no_eligible_player_has_no_effect():
    """RULES.md 27: R7 G4 + Y1 = 3 cards, seat 1 has only 2 - nothing to take, the turn goes on."""
    state = actions(palettes=["R7 G4", "O6 B5"], hands=["Y1 V5", "B2"])
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), None)]
    assert state.turn.pending is None
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_a_take_is_refused_when_no_1_was_played():
    """RULES.md 27: a take happens only as the effect of a 1."""
    state = actions(palettes=["G4", "R2 B5"], hands=["Y2 V5", "B2"])
    state, _ = step(state, Play(card("Y2")))
    assert refused(state, Take(1, card("R2"))).code == "no_effect_pending"


# --- RULES.md 28: the 3 draws -------------------------------------------------------------------


def test_3_draws_the_top_card_of_the_deck():
    """RULES.md 28: G3 to the palette, and V7 (the top card) into the hand."""
    state = actions(palettes=["R6", "O6"], hands=["G3 B1", "B2"], deck="V7 R1")
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), Effect.DRAW), CardDrawn(0, card("V7"), DrawCause.THREE)]
    assert hand(state, 0) == ["V7", "B1"]
    assert deck_top(state) == "R1"
    assert state.turn.pending is None


def test_3_on_an_empty_deck_draws_nothing():
    """RULES.md 28: nothing to draw, nothing happens."""
    state = actions(palettes=["R6", "O6"], hands=["G3 B1", "B2"], deck="")
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), None)]
    assert hand(state, 0) == ["B1"]


def test_the_card_a_3_draws_may_be_discarded_in_the_same_turn():
    """RULES.md 28 (rulebook note): play Y3 hoping for a rule card; the drawn I6 makes Indigo the rule (a run 3-4)."""
    state = actions(palettes=["G4", "R5"], hands=["Y3 R1", "B2"], deck="I6")
    state, _ = step(state, Play(card("Y3")))
    assert hand(state, 0) == ["I6", "R1"]
    state, events = step(state, Discard(card("I6")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is INDIGO


def test_no_step_may_follow_a_3s_draw_in_the_same_batch():
    """RULES.md 28, 31: the drawn card must be seen first; a batch that went on would reveal it by its refusal.

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
    """RULES.md 22: a discard that draws is the last step a batch may hold."""
    state = table(variant=ADVANCED, palettes=["R6", "B2"], hands=["O5 Y1", "B3"], deck="V7 I2")
    with pytest.raises(RuleViolation) as refusal:
        decide_steps(state, [Discard(card("O5"), draw=True), EndTurn()], 0)
    assert refusal.value.code == "step_after_draw"


# --- RULES.md 29: the 5 plays one more card --------------------------------------------------------


def test_5_plays_one_more_card_then_a_discard_may_follow():
    """RULES.md 29 (rulebook): play B5, then Y6 as the extra card; then discard G1 - two evens lead Green."""
    state = actions(palettes=["G4", "R6"], hands=["B5 Y6 G1", "B2"])
    state, events = step(state, Play(card("B5")))
    assert events == [CardPlayed(0, card("B5"), Effect.PLAY)]
    state, events = step(state, Play(card("Y6")))
    assert events == [CardPlayed(0, card("Y6"), None)]
    assert palette(state, 0) == ["Y6", "B5", "G4"]
    assert refused(state, Play(card("G1"))).code == "already_played"
    state, _ = step(state, Discard(card("G1")))
    assert state.rule is GREEN


def test_the_5s_extra_play_must_be_made():
    """RULES.md 29, 26: with the extra play pending, seat 0 may not stop or discard first."""
    state = actions(palettes=["G4", "R3"], hands=["B5 Y6 G1", "B2"])
    state, _ = step(state, Play(card("B5")))
    for command in (EndTurn(), Discard(card("G1"))):
        error = refused(state, command)
        assert error.code == "effect_pending"
        assert "5" in error.message


def test_5_with_an_empty_hand_has_no_effect():
    """RULES.md 29: the 5 was the last hand card - there is nothing more to play."""
    state = actions(palettes=["G4", "R3"], hands=["B5", "B2"])
    state, events = step(state, Play(card("B5")))
    assert events == [CardPlayed(0, card("B5"), None)]
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_5_has_no_effect_when_no_hand_card_may_be_played():
    """RULES.md 29, 31, 26: the only card left is V7, which may not be played (no finish wins) - so the 5 cannot
    be carried out and has no effect (the engine's reading of "must be carried out if it can be")."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y5 V7", "B2"], canvas="G2")
    state, events = step(state, Play(card("Y5")))
    assert events == [CardPlayed(0, card("Y5"), None)]
    assert state.turn.pending is None


def test_5_then_a_3_the_3_draws():
    """RULES.md 29, 28: the extra card is odd, so its own effect fires - G3 draws the top card."""
    state = actions(palettes=["G4", "R3"], hands=["B5 G3", "B2"], deck="V7")
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), Effect.DRAW), CardDrawn(0, card("V7"), DrawCause.THREE)]


def test_5_then_a_1_the_1_takes():
    """RULES.md 29, 27: G4 B5 Y1 = 3 cards; seat 1's 3-card palette may be taken from."""
    state = actions(palettes=["G4", "R6 O2 V2"], hands=["B5 Y1", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), Effect.TAKE)]
    state, _ = step(state, Take(1, card("R6")))
    state, events = step(state, EndTurn())  # B5 now beats O2 under Red
    assert events == [TurnStarted(1)]


def test_5_then_another_5_plays_yet_another_card():
    """RULES.md 29: the extra card is a 5, so one more card is played."""
    state = actions(palettes=["G4", "R3"], hands=["B5 I5 G2", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("I5")))
    assert events == [CardPlayed(0, card("I5"), Effect.PLAY)]
    state, events = step(state, Play(card("G2")))
    assert events == [CardPlayed(0, card("G2"), None)]
    assert palette(state, 0) == ["B5", "I5", "G4", "G2"]


def test_5_then_a_7_the_7_places():
    """RULES.md 29, 30: the extra card is a 7, so a palette card must be placed."""
    state = actions(palettes=["G4", "R3"], hands=["B5 V7", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("V7")))
    assert events == [CardPlayed(0, card("V7"), Effect.PLACE)]
    state, _ = step(state, Place(card("G4"), DECK))
    assert deck_top(state) == "G4"


# --- RULES.md 30: the 7 moves an own palette card to the deck or the canvas -------------------------


def test_7_puts_a_palette_card_on_top_of_the_deck():
    """RULES.md 30: O7 is played; B2 goes face down on the deck."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"], deck="V1")
    state, events = step(state, Play(card("O7")))
    assert events == [CardPlayed(0, card("O7"), Effect.PLACE)]
    state, events = step(state, Place(card("B2"), DECK))
    assert events == [CardPlaced(0, card("B2"), DECK)]
    assert palette(state, 0) == ["O7", "G4"]
    assert names(reversed(state.deck)) == ["B2", "V1"]
    state, events = step(state, EndTurn())  # O7 beats R5 under Red
    assert events == [TurnStarted(1)]


def test_7_may_move_itself():
    """RULES.md 30: the 7 itself may go on the deck; then G6 makes Green the rule (G4 B2 against Y2)."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    state, _ = step(state, Place(card("O7"), DECK))
    assert palette(state, 0) == ["G4", "B2"]
    assert deck_top(state) == "O7"
    state, _ = step(state, Discard(card("G6")))
    assert state.rule is GREEN


def test_7_puts_a_palette_card_on_the_canvas_as_the_new_rule():
    """RULES.md 30: B2 on the canvas - Blue: G4 O7 (two colours, O7 on top) against R5 Y2 (R5 on top)."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("B2"), CANVAS))
    assert events == [CardPlaced(0, card("B2"), CANVAS)]
    assert state.rule is BLUE
    assert state.canvas == [card("B2")]
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_7_to_the_canvas_only_if_winning_right_after():
    """RULES.md 30: G4 on the canvas would make Green the rule, where seat 1's Y2 beats the B2 left behind."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    assert Place(card("G4"), CANVAS) not in listed(state)
    error = refused(state, Place(card("G4"), CANVAS))
    assert error.code == "place_not_winning"
    assert "G4" in error.message and "Green" in error.message
    assert "B2" in error.message and "Y2" in error.message and "seat 1" in error.message
    assert error.details["yours"] == ["B2"] and error.details["theirs"] == ["Y2"]
    # Onto the deck it may go.
    state, _ = step(state, Place(card("G4"), DECK))
    assert deck_top(state) == "G4"


def test_7_to_the_canvas_never_grants_the_advanced_draw():
    """RULES.md 30, 22: Y6 from the palette to the canvas (6 > 2 palette cards) - still no draw."""
    state = actions(palettes=["G4 Y6", "R5"], hands=["O7 B3", "B1"], deck="V6", variant=ADVANCED)
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("Y6"), CANVAS))
    assert events == [CardPlaced(0, card("Y6"), CANVAS)]
    assert state.rule is YELLOW
    assert hand(state, 0) == ["B3"]
    assert names(state.deck) == ["V6"]


def test_a_hand_discard_may_follow_the_7_and_draws_as_usual():
    """RULES.md 30, 22: after the 7's canvas card, B3 is discarded (Blue: G4 O7 against R5) and, 3 > 2, draws."""
    state = actions(palettes=["G4 Y6", "R5"], hands=["O7 B3", "B1"], deck="V6", variant=ADVANCED)
    state, _ = step(state, Play(card("O7")))
    state, _ = step(state, Place(card("Y6"), CANVAS))
    state, events = step(state, Discard(card("B3")))
    assert events == [
        CardDiscarded(0, card("B3")),
        CardDrawn(0, card("V6"), DrawCause.DISCARD),
        TurnStarted(1),
    ]
    assert state.canvas == [card("Y6"), card("B3")]
    assert state.rule is BLUE


def test_7_russian_rulebook_example():
    """RULES.md 30 (rulebook example): Y4 G2 I6 I4, play V7, put I4 on the canvas - the run I6 V7 leads Indigo."""
    state = actions(palettes=["Y4 G2 I6 I4", "R5 O3 B1"], hands=["V7 B6", "B2"])
    state, _ = step(state, Play(card("V7")))
    state, _ = step(state, Place(card("I4"), CANVAS))
    assert state.rule is INDIGO
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_the_7s_place_must_be_made_first():
    """RULES.md 30, 26: after the 7, the place comes before a discard or the end of the turn."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    for command in (EndTurn(), Discard(card("G6"))):
        error = refused(state, command)
        assert error.code == "effect_pending"
        assert "7" in error.message


def test_7_can_place_only_an_own_palette_card():
    """RULES.md 30: the card comes from the mover's own palette."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    error = refused(state, Place(card("R5"), DECK))
    assert error.code == "card_not_on_palette"


def test_a_place_is_refused_when_no_7_was_played():
    """RULES.md 30: a place happens only as the effect of a 7."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O6 G6", "B1"])
    state, _ = step(state, Play(card("O6")))
    assert refused(state, Place(card("B2"), DECK)).code == "no_effect_pending"


# --- RULES.md 31: a 1 or 7 only if some finish wins; a 3 always ---------------------------------------


def test_a_1_that_cannot_lead_to_winning_is_refused():
    """RULES.md 31: under Red, taking R7 or O7 from seat 1 still leaves B2 behind, and R3 cannot save seat 0."""
    state = actions(palettes=["B2", "R7 O7"], hands=["Y1 R3", "B1"])
    assert Play(card("Y1")) not in listed(state)
    error = refused(state, Play(card("Y1")))
    assert error.code == "play_cannot_win"
    assert "RULES.md 31" in error.message
    assert error.details["card"] == "Y1"


def test_the_same_1_is_a_plain_card_without_the_action_rules():
    """RULES.md 31, 17: without the action rules, Y1 may be played (and loses)."""
    state = table(palettes=["B2", "R7 O7"], hands=["Y1 R3", "B1"], variant=BASIC)
    state, _ = step(state, Play(card("Y1")))
    _, events = step(state, EndTurn())
    assert events[0] == PlayerEliminated(0, Elimination.NOT_WINNING)


def test_a_1_is_allowed_when_its_take_opens_a_winning_finish():
    """RULES.md 31: taking R2 from seat 1 lets V5 make Violet the rule, which Y1 then leads."""
    state = actions(palettes=["G4", "R2 B5"], hands=["Y1 V5", "B2"])
    assert Play(card("Y1")) in listed(state)
    state, _ = step(state, Play(card("Y1")))
    state, _ = step(state, Take(1, card("R2")))
    state, _ = step(state, Discard(card("V5")))
    assert state.rule is VIOLET and state.in_round == [True, True]


def test_a_7_that_cannot_lead_to_winning_is_refused():
    """RULES.md 31: B1 V7 against R7 O6 O4 R3 under Green - no place and no discard leaves seat 0 winning."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["V7 Y5", "B2"], canvas="G2")
    error = refused(state, Play(card("V7")))
    assert error.code == "play_cannot_win"
    assert "7" in error.message


def test_a_3_may_always_be_played_a_gamble_on_the_draw():
    """RULES.md 31, 28: Y3 cannot win without luck, yet it may be played; the drawn V5 saves seat 0 (Violet)."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y3 O5", "B2"], canvas="G2", deck="V5")
    three = next(s for s in legal_steps(state) if s.step == Play(card("Y3")))
    assert three.can_win is False  # the draw is unknown; the client is warned
    state, _ = step(state, Play(card("Y3")))
    state, _ = step(state, Discard(card("V5")))  # Violet: Y3 B1 (two) against R3 (one)
    assert state.rule is VIOLET and state.in_round == [True, True]


def test_a_3_may_be_played_even_onto_an_empty_deck():
    """RULES.md 31: the 3 needs no winning finish even when there is nothing to draw."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y3 O5", "B2"], canvas="G2", deck="")
    state, _ = step(state, Play(card("Y3")))
    _, events = step(state, EndTurn())
    assert events[0] == PlayerEliminated(0, Elimination.NOT_WINNING)


# --- RULES.md 32: the order inside one turn ----------------------------------------------------------


def test_the_card_a_1_put_on_the_deck_is_the_card_the_advanced_draw_picks_up():
    """RULES.md 32 (Russian rulebook example): G1 takes R2 onto the deck; the V5 discard (5 > 2) draws that R2."""
    state = actions(palettes=["G4", "R2 B6"], hands=["G1 V5", "B2"], deck="O7", variant=ADVANCED)
    state, _ = step(state, Play(card("G1")))
    state, _ = step(state, Take(1, card("R2")))
    state, events = step(state, Discard(card("V5")))
    assert events[1] == CardDrawn(0, card("R2"), DrawCause.DISCARD)
    assert hand(state, 0) == ["R2"]
    assert deck_top(state) == "O7"


def test_the_card_a_7_put_on_the_deck_is_the_card_the_advanced_draw_picks_up():
    """RULES.md 32: O7 sends B2 to the deck; the G6 discard (6 > 2) draws B2 back, not V1."""
    state = actions(palettes=["G4 B2", "R5"], hands=["O7 G6", "B1"], deck="V1", variant=ADVANCED)
    state, _ = step(state, Play(card("O7")))
    state, _ = step(state, Place(card("B2"), DECK))
    state, events = step(state, Discard(card("G6")))
    assert events[1] == CardDrawn(0, card("B2"), DrawCause.DISCARD)
    assert hand(state, 0) == ["B2"]


def test_chained_effects_resolve_before_the_discard_and_its_draw():
    """RULES.md 32: B5 -> Y1 -> take R2 -> discard B6 (Blue, 6 > 3) -> draw the R2 just taken."""
    state = actions(palettes=["G4", "R2 O2 I6"], hands=["B5 Y1 B6", "V2"], deck="O7", variant=ADVANCED)
    state, e1 = step(state, Play(card("B5")))
    state, e2 = step(state, Play(card("Y1")))
    state, e3 = step(state, Take(1, card("R2")))
    state, e4 = step(state, Discard(card("B6")))
    assert kinds(e1 + e2 + e3 + e4) == [
        "card_played",
        "card_played",
        "card_taken",
        "card_discarded",
        "card_drawn",
        "turn_started",
    ]
    assert e4[1] == CardDrawn(0, card("R2"), DrawCause.DISCARD)
    assert state.rule is BLUE


def test_the_3s_draw_comes_right_after_its_play():
    """RULES.md 32, 26: the 3's draw is part of the play, before any discard - so the discard can use it."""
    state = actions(palettes=["G4", "R5"], hands=["Y3 R1", "B2"], deck="I6")
    state, events = step(state, Play(card("Y3")))
    assert kinds(events) == ["card_played", "card_drawn"]
    assert state.turn.pending is None
