"""docs/rules.md 31-32: when a 1, 3 or 7 may be played at all, and the order of the actions inside one turn.

The actions themselves are in test_rules_actions_take_draw.py (docs/rules.md 26-28: the 1 and the 3)
and test_rules_actions_play_place.py (docs/rules.md 29-30: the 5 and the 7).
All tables here play with the action rules; most use the basic variant, so that no
advanced draw (docs/rules.md 22) gets in the way unless a test asks for it.
"""

from engine import CardDrawn, Discard, DrawCause, Elimination, EndTurn, Place, Play, PlayerEliminated, Take, legal_steps
from tests.engine.action_tables import ADVANCED, BASIC, DECK, actions, listed
from tests.engine.rulebook import card, deck_top, kinds, refused
from tests.engine.tables import BLUE, VIOLET, hand, step, table

# --- docs/rules.md 31: a 1 or 7 only if some finish wins; a 3 always ---------------------------------------


def test_a_1_that_cannot_lead_to_winning_is_refused():
    """docs/rules.md 31: under Red, taking R7 or O7 from seat 1 still leaves B2 behind, and R3 cannot save seat 0."""
    state = actions(palettes=["B2", "R7 O7"], hands=["Y1 R3", "B1"])
    assert Play(card("Y1")) not in listed(state)
    error = refused(state, Play(card("Y1")))
    assert error.code == "play_cannot_win"
    assert "docs/rules.md 31" in error.message
    assert error.details["card"] == "Y1"


def test_the_same_1_is_a_plain_card_without_the_action_rules():
    """docs/rules.md 31, 17: without the action rules, Y1 may be played (and loses)."""
    state = table(palettes=["B2", "R7 O7"], hands=["Y1 R3", "B1"], variant=BASIC)
    state, _ = step(state, Play(card("Y1")))
    _, events = step(state, EndTurn())
    assert events[0] == PlayerEliminated(0, Elimination.NOT_WINNING)


def test_a_1_is_allowed_when_its_take_opens_a_winning_finish():
    """docs/rules.md 31: taking R2 from seat 1 lets V5 make Violet the rule, which Y1 then leads."""
    state = actions(palettes=["G4", "R2 B5"], hands=["Y1 V5", "B2"])
    assert Play(card("Y1")) in listed(state)
    state, _ = step(state, Play(card("Y1")))
    state, _ = step(state, Take(1, card("R2")))
    state, _ = step(state, Discard(card("V5")))
    assert state.rule is VIOLET and state.in_round == [True, True]


def test_a_7_that_cannot_lead_to_winning_is_refused():
    """docs/rules.md 31: B1 V7 against R7 O6 O4 R3 under Green - no place and no discard leaves seat 0 winning."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["V7 Y5", "B2"], canvas="G2")
    error = refused(state, Play(card("V7")))
    assert error.code == "play_cannot_win"
    assert "7" in error.message


def test_a_3_may_always_be_played_a_gamble_on_the_draw():
    """docs/rules.md 31, 28: Y3 cannot win without luck, yet it may be played; the drawn V5 saves seat 0 (Violet)."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y3 O5", "B2"], canvas="G2", deck="V5")
    three = next(s for s in legal_steps(state) if s.step == Play(card("Y3")))
    assert three.can_win is False  # the draw is unknown; the client is warned
    state, _ = step(state, Play(card("Y3")))
    state, _ = step(state, Discard(card("V5")))  # Violet: Y3 B1 (two) against R3 (one)
    assert state.rule is VIOLET and state.in_round == [True, True]


def test_a_3_may_be_played_even_onto_an_empty_deck():
    """docs/rules.md 31: the 3 needs no winning finish even when there is nothing to draw."""
    state = actions(palettes=["B1", "R7 O6 O4 R3"], hands=["Y3 O5", "B2"], canvas="G2", deck="")
    state, _ = step(state, Play(card("Y3")))
    _, events = step(state, EndTurn())
    assert events[0] == PlayerEliminated(0, Elimination.NOT_WINNING)


# --- docs/rules.md 32: the order inside one turn ----------------------------------------------------------


def test_the_card_a_1_put_on_the_deck_is_the_card_the_advanced_draw_picks_up():
    """docs/rules.md 32 (Russian rulebook example): G1 takes R2 onto the deck; the V5 discard (5 > 2) draws that R2."""
    state = actions(palettes=["G4", "R2 B6"], hands=["G1 V5", "B2"], deck="O7", variant=ADVANCED)
    state, _ = step(state, Play(card("G1")))
    state, _ = step(state, Take(1, card("R2")))
    state, events = step(state, Discard(card("V5")))
    assert events[1] == CardDrawn(0, card("R2"), DrawCause.DISCARD)
    assert hand(state, 0) == ["R2"]
    assert deck_top(state) == "O7"


def test_the_card_a_7_put_on_the_deck_is_the_card_the_advanced_draw_picks_up():
    """docs/rules.md 32: O7 sends B2 to the deck; the G6 discard (6 > 2) draws B2 back, not V1."""
    state = actions(palettes=["G4 B2", "R5"], hands=["O7 G6", "B1"], deck="V1", variant=ADVANCED)
    state, _ = step(state, Play(card("O7")))
    state, _ = step(state, Place(card("B2"), DECK))
    state, events = step(state, Discard(card("G6")))
    assert events[1] == CardDrawn(0, card("B2"), DrawCause.DISCARD)
    assert hand(state, 0) == ["B2"]


def test_chained_effects_resolve_before_the_discard_and_its_draw():
    """docs/rules.md 32: B5 -> Y1 -> take R2 -> discard B6 (Blue, 6 > 3) -> draw the R2 just taken."""
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
    """docs/rules.md 32, 26: the 3's draw is part of the play, before any discard - so the discard can use it."""
    state = actions(palettes=["G4", "R5"], hands=["Y3 R1", "B2"], deck="I6")
    state, events = step(state, Play(card("Y3")))
    assert kinds(events) == ["card_played", "card_drawn"]
    assert state.turn.pending is None
