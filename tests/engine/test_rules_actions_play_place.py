"""docs/rules.md 29-30: the action rules of the 5 (play one more card) and the 7 (place a palette card).

The action rules in general, the 1 and the 3 (docs/rules.md 26-28) are in test_rules_actions_take_draw.py;
when a 1, 3 or 7 may be played and the order inside a turn (docs/rules.md 31-32) in test_rules_actions_order.py.
All tables here play with the action rules; most use the basic variant, so that no
advanced draw (docs/rules.md 22) gets in the way unless a test asks for it.
"""

from engine import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    Discard,
    DrawCause,
    Effect,
    EndTurn,
    Place,
    Play,
    Take,
    TurnStarted,
)
from tests.engine.action_tables import ADVANCED, CANVAS, DECK, actions, listed
from tests.engine.rulebook import card, deck_top, names, refused
from tests.engine.tables import BLUE, GREEN, INDIGO, YELLOW, hand, palette, step

# --- docs/rules.md 29: the 5 plays one more card --------------------------------------------------------


def test_5_plays_one_more_card_then_a_discard_may_follow():
    """docs/rules.md 29 (rulebook): play B5, then Y6 as the extra card; then discard G1 - two evens lead Green."""
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
    """docs/rules.md 29, 26: with the extra play pending, seat 0 may not stop or discard first."""
    state = actions(palettes=["G4", "R3"], hands=["B5 Y6 G1", "B2"])
    state, _ = step(state, Play(card("B5")))
    for command in (EndTurn(), Discard(card("G1"))):
        error = refused(state, command)
        assert error.code == "effect_pending"
        assert "5" in error.message


def test_5_with_an_empty_hand_has_no_effect():
    """docs/rules.md 29: the 5 was the last hand card - there is nothing more to play."""
    state = actions(palettes=["G4", "R3"], hands=["B5", "B2"])
    state, events = step(state, Play(card("B5")))
    assert events == [CardPlayed(0, card("B5"), None)]
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_5_has_no_effect_when_no_hand_card_may_be_played():
    """docs/rules.md 29, 31, 26: the only card left is V7, which may not be played (no finish wins) - so the 5 cannot
    be carried out and has no effect (the engine's reading of "must be carried out if it can be")."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y5 V7", "B2"], canvas="G2")
    state, events = step(state, Play(card("Y5")))
    assert events == [CardPlayed(0, card("Y5"), None)]
    assert state.turn.pending is None


def test_5_then_a_3_the_3_draws():
    """docs/rules.md 29, 28: the extra card is odd, so its own effect fires - G3 draws the top card."""
    state = actions(palettes=["G4", "R3"], hands=["B5 G3", "B2"], deck="V7")
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("G3")))
    assert events == [CardPlayed(0, card("G3"), Effect.DRAW), CardDrawn(0, card("V7"), DrawCause.THREE)]


def test_5_then_a_1_the_1_takes():
    """docs/rules.md 29, 27: G4 B5 Y1 = 3 cards; seat 1's 3-card palette may be taken from."""
    state = actions(palettes=["G4", "R6 O2 V2"], hands=["B5 Y1", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("Y1")))
    assert events == [CardPlayed(0, card("Y1"), Effect.TAKE)]
    state, _ = step(state, Take(1, card("R6")))
    state, events = step(state, EndTurn())  # B5 now beats O2 under Red
    assert events == [TurnStarted(1)]


def test_5_then_another_5_plays_yet_another_card():
    """docs/rules.md 29: the extra card is a 5, so one more card is played."""
    state = actions(palettes=["G4", "R3"], hands=["B5 I5 G2", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("I5")))
    assert events == [CardPlayed(0, card("I5"), Effect.PLAY)]
    state, events = step(state, Play(card("G2")))
    assert events == [CardPlayed(0, card("G2"), None)]
    assert palette(state, 0) == ["B5", "I5", "G4", "G2"]


def test_5_then_a_7_the_7_places():
    """docs/rules.md 29, 30: the extra card is a 7, so a palette card must be placed."""
    state = actions(palettes=["G4", "R3"], hands=["B5 V7", "B2"])
    state, _ = step(state, Play(card("B5")))
    state, events = step(state, Play(card("V7")))
    assert events == [CardPlayed(0, card("V7"), Effect.PLACE)]
    state, _ = step(state, Place(card("G4"), DECK))
    assert deck_top(state) == "G4"


# --- docs/rules.md 30: the 7 moves an own palette card to the deck or the canvas -------------------------


def test_7_puts_a_palette_card_on_top_of_the_deck():
    """docs/rules.md 30: O7 is played; B2 goes face down on the deck."""
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
    """docs/rules.md 30: the 7 itself may go on the deck; then G6 makes Green the rule (G4 B2 against Y2)."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    state, _ = step(state, Place(card("O7"), DECK))
    assert palette(state, 0) == ["G4", "B2"]
    assert deck_top(state) == "O7"
    state, _ = step(state, Discard(card("G6")))
    assert state.rule is GREEN


def test_7_puts_a_palette_card_on_the_canvas_as_the_new_rule():
    """docs/rules.md 30: B2 on the canvas - Blue: G4 O7 (two colours, O7 on top) against R5 Y2 (R5 on top)."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("B2"), CANVAS))
    assert events == [CardPlaced(0, card("B2"), CANVAS)]
    assert state.rule is BLUE
    assert state.canvas == [card("B2")]
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_7_to_the_canvas_only_if_winning_right_after():
    """docs/rules.md 30: G4 on the canvas would make Green the rule, where seat 1's Y2 beats the B2 left behind."""
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
    """docs/rules.md 30, 22: Y6 from the palette to the canvas (6 > 2 palette cards) - still no draw."""
    state = actions(palettes=["G4 Y6", "R5"], hands=["O7 B3", "B1"], deck="V6", variant=ADVANCED)
    state, _ = step(state, Play(card("O7")))
    state, events = step(state, Place(card("Y6"), CANVAS))
    assert events == [CardPlaced(0, card("Y6"), CANVAS)]
    assert state.rule is YELLOW
    assert hand(state, 0) == ["B3"]
    assert names(state.deck) == ["V6"]


def test_a_hand_discard_may_follow_the_7_and_draws_as_usual():
    """docs/rules.md 30, 22: after the 7's canvas card, B3 is discarded (Blue: G4 O7 against R5) and, 3 > 2, draws."""
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
    """docs/rules.md 30 (rulebook example): Y4 G2 I6 I4, play V7, put I4 on the canvas - the run I6 V7 leads Indigo."""
    state = actions(palettes=["Y4 G2 I6 I4", "R5 O3 B1"], hands=["V7 B6", "B2"])
    state, _ = step(state, Play(card("V7")))
    state, _ = step(state, Place(card("I4"), CANVAS))
    assert state.rule is INDIGO
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


def test_the_7s_place_must_be_made_first():
    """docs/rules.md 30, 26: after the 7, the place comes before a discard or the end of the turn."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    for command in (EndTurn(), Discard(card("G6"))):
        error = refused(state, command)
        assert error.code == "effect_pending"
        assert "7" in error.message


def test_7_can_place_only_an_own_palette_card():
    """docs/rules.md 30: the card comes from the mover's own palette."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O7 G6", "B1"])
    state, _ = step(state, Play(card("O7")))
    error = refused(state, Place(card("R5"), DECK))
    assert error.code == "card_not_on_palette"


def test_a_place_is_refused_when_no_7_was_played():
    """docs/rules.md 30: a place happens only as the effect of a 7."""
    state = actions(palettes=["G4 B2", "R5 Y2"], hands=["O6 G6", "B1"])
    state, _ = step(state, Play(card("O6")))
    assert refused(state, Place(card("B2"), DECK)).code == "no_effect_pending"
