"""docs/rules.md 10-11: who is winning, and the players who count."""

from engine import Discard, Elimination, EndTurn, Fold, Play, PlayerEliminated, legal_steps, mask_of, parse_cards
from tests.engine.rulebook import card, kinds, refused, winner
from tests.engine.tables import GREEN, ORANGE, RED, VIOLET, hand, palette, step, table

# --- docs/rules.md 10: more qualifying cards, then the higher top qualifying card --------------


def test_more_qualifying_cards_beat_fewer():
    """docs/rules.md 10: two even cards beat one, however high the single one is."""
    assert winner(GREEN, A="V2 I4", B="R6") == "A"


def test_equal_counts_the_higher_top_qualifying_card_wins():
    """docs/rules.md 10: two evens each; I6 beats V4. A's R7 does not count under Green."""
    assert winner(GREEN, A="R7 G2 V4", B="I6 O1 B2") == "B"


def test_no_qualifying_card_is_never_winning():
    """docs/rules.md 10: under Green, R7 against O7 Y7 - nobody has an even card, so nobody is winning."""
    assert winner(GREEN, A="R7", B="O7 Y7") is None
    assert winner(VIOLET, A="R7", B="O7 Y7") is None


def test_a_rule_nobody_qualifies_for_cannot_be_discarded_to():
    """docs/rules.md 10, 16: discarding G3 makes Green the rule, and with no even card seat 0 would not be winning."""
    state = table(palettes=["R7", "O7 Y7"], hands=["G3 B1", "V1"])
    assert refused(state, Discard(card("G3"))).code == "discard_not_winning"


def test_winning_means_ahead_of_every_other_player():
    """docs/rules.md 10: seat 0 would beat seat 1 under Orange but not seat 2, so it is not winning."""
    state = table(palettes=["R4 G4", "V7", "O2 B2 V2"], hands=["O1", "B3", "I3"])
    error = refused(state, Discard(card("O1")))
    assert error.code == "discard_not_winning"
    assert error.details["leader"] == 2
    assert winner(ORANGE, s0="R4 G4", s1="V7", s2="O2 B2 V2") == "s2"


def test_a_turn_that_ends_behind_one_player_is_out():
    """docs/rules.md 10, 17: ahead of seat 1 but behind seat 2 under Red - playing O5 and stopping loses."""
    state = table(palettes=["R4", "V3", "B6"], hands=["O5 I1", "B3", "I3"])
    state, _ = step(state, Play(card("O5")))
    state, events = step(state, EndTurn())
    assert PlayerEliminated(0, Elimination.NOT_WINNING) in events
    assert not state.in_round[0]


def test_winning_is_decided_by_the_qualifying_cards_only():
    """docs/rules.md 10: under Red, seat 0's many cards do not help; only its highest card is compared."""
    state = table(palettes=["R5 O5 Y5 G5", "V6"], hands=["I1 V1", "B1"], turn=0)
    state, _ = step(state, Play(card("I1")))
    state, events = step(state, EndTurn())
    assert PlayerEliminated(0, Elimination.NOT_WINNING) in events


# --- docs/rules.md 11: eliminated players count for nothing ---------------------------------------


def test_an_eliminated_players_palette_no_longer_counts():
    """docs/rules.md 11: once seat 0 (holding R7) folds, seat 1's O6 leads Red against seat 2's B6."""
    state = table(palettes=["R7", "O6", "B6"], hands=["G2 G3", "R1 V1", "I1 I2"])
    state, _ = step(state, Fold())
    assert not state.in_round[0]
    assert palette(state, 0) == [] and hand(state, 0) == []
    assert state.out[0] == mask_of(parse_cards("R7 G2 G3"))  # its palette and hand left the round
    # Seat 1 may now "discard" R1 (Red stays the rule): R7 is out of the round.
    assert Discard(card("R1")) in [s.step for s in legal_steps(state)]
    state, _ = step(state, Discard(card("R1")))
    assert state.turn.seat == 2 and state.rule is RED


def test_an_eliminated_players_cards_are_never_compared_again():
    """docs/rules.md 11: seat 2 went out holding three Violets; Violet is a fine rule for seat 0 afterwards."""
    state = table(palettes=["V1", "O6", "V2 V3 I3"], hands=["V4 R1", "B5", "Y2"], turn=2)
    state, _ = step(state, Fold())
    assert state.turn.seat == 0
    state, events = step(state, Discard(card("V4")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is VIOLET
