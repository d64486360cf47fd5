"""docs/rules.md 15-19: a turn - play, discard, fold - and who leaves the round when."""

from engine import (
    Discard,
    Elimination,
    EndTurn,
    Finish,
    Fold,
    GameFinished,
    Phase,
    Play,
    PlayerEliminated,
    RoundWon,
    TurnStarted,
    Variant,
    legal_steps,
)
from tests.engine.rulebook import card, kinds, refused
from tests.engine.tables import GREEN, ORANGE, RED, VIOLET, hand, palette, step, table

BASIC = Variant.BASIC


def listed(state, step_):
    """The legal step entry for ``step_`` (what a client is shown), or ``None``."""
    return next((s for s in legal_steps(state) if s.step == step_), None)


# --- docs/rules.md 15: play, then discard, or fold -------------------------------------------------


def test_play_a_card_then_discard_a_card():
    """docs/rules.md 15: play I4 (a pair of 4s), then discard O1 - Orange is the rule, and seat 0 leads it."""
    state = table(palettes=["G4", "R5"], hands=["I4 O1 V6", "B1"], variant=BASIC)
    state, played = step(state, Play(card("I4")))
    assert kinds(played) == ["card_played"]
    state, discarded = step(state, Discard(card("O1")))
    assert kinds(discarded) == ["card_discarded", "turn_started"]
    assert palette(state, 0) == ["G4", "I4"]
    assert hand(state, 0) == ["V6"]
    assert state.rule is ORANGE
    assert state.canvas == [card("O1")]
    assert state.turn.seat == 1


def test_discard_without_playing():
    """docs/rules.md 15: the play is optional - discarding G6 alone makes Green the rule (G4 against no even card)."""
    state = table(palettes=["G4", "R5"], hands=["G6 B1", "B2"], variant=BASIC)
    state, events = step(state, Discard(card("G6")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is GREEN
    assert palette(state, 0) == ["G4"]


def test_play_without_discarding():
    """docs/rules.md 15: the discard is optional - play R6 (beats R5 under Red) and end the turn."""
    state = table(palettes=["G4", "R5"], hands=["R6 B1", "B2"], variant=BASIC)
    state, _ = step(state, Play(card("R6")))
    state, events = step(state, EndTurn())
    assert kinds(events) == ["turn_started"]
    assert state.in_round == [True, True]
    assert state.rule is RED


def test_only_one_card_may_be_played_per_turn():
    """docs/rules.md 15: one play; after it comes a discard or the end of the turn."""
    state = table(palettes=["G4", "R5"], hands=["R6 B1", "B2"], variant=BASIC)
    state, _ = step(state, Play(card("R6")))
    error = refused(state, Play(card("B1")))
    assert error.code == "already_played"
    assert "discard" in error.message and "end the turn" in error.message


def test_a_discard_ends_the_turn():
    """docs/rules.md 15: after the discard the next player moves; seat 0 can do nothing more."""
    state = table(palettes=["G4", "R5"], hands=["G6 R7", "B2"], variant=BASIC)
    state, _ = step(state, Discard(card("G6")))
    error = refused(state, Play(card("R7")), seat=0)
    assert error.code == "not_your_turn"
    assert "seat 1" in error.message


def test_doing_nothing_is_folding():
    """docs/rules.md 15: doing nothing at all is a fold, and the folding player is out of the round."""
    state = table(palettes=["G4", "R5", "B3"], hands=["G6", "B2", "I1"], variant=BASIC)
    state, events = step(state, Fold())
    assert events[0] == PlayerEliminated(0, Elimination.FOLDED)
    assert not state.in_round[0]
    assert state.turn.seat == 1


def test_ending_a_turn_without_doing_anything_is_refused():
    """docs/rules.md 15: "end the turn" without a play or discard is not a turn; the message points to fold."""
    state = table(palettes=["G4", "R5"], hands=["G6", "B2"])
    error = refused(state, EndTurn())
    assert error.code == "nothing_played"
    assert "fold" in error.message


def test_a_card_not_in_the_hand_cannot_be_played_or_discarded():
    """docs/rules.md 15: plays and discards come from the own hand."""
    state = table(palettes=["G4", "R5"], hands=["G6", "R7"])
    for command in (Play(card("R7")), Discard(card("R7"))):
        error = refused(state, command)
        assert error.code == "card_not_in_hand"
        assert "R7" in error.message


def test_only_the_player_to_move_may_act():
    """docs/rules.md 15: a turn belongs to one player; the others are told whose turn it is."""
    state = table(palettes=["G4", "R5"], hands=["G6", "R7"], turn=0)
    error = refused(state, Play(card("R7")), seat=1)
    assert error.code == "not_your_turn"
    assert error.details["turn"] == 0


# --- docs/rules.md 16: a discard must leave the player winning -----------------------------------


def test_a_discard_that_does_not_win_is_refused_and_says_why():
    """docs/rules.md 16: G3 would make Green the rule, where seat 1's O6 Y2 beat seat 0's lone G4."""
    state = table(palettes=["G4 R1", "O6 Y2"], hands=["G3 B1", "V1"])
    error = refused(state, Discard(card("G3")))
    assert error.code == "discard_not_winning"
    assert "Green" in error.message
    assert "G4" in error.message  # what seat 0 would have
    assert "O6 Y2" in error.message and "seat 1" in error.message  # what beats it
    assert error.details == {"rule": "green", "yours": ["G4"], "leader": 1, "theirs": ["O6", "Y2"]}


def test_a_refused_discard_names_the_missing_qualifying_cards():
    """docs/rules.md 16, 10: under Violet seat 0 has no card below 4, and the message says so."""
    state = table(palettes=["R7", "O2"], hands=["V5", "B1"])
    error = refused(state, Discard(card("V5")))
    assert error.code == "discard_not_winning"
    assert "no qualifying card" in error.message
    assert "O2" in error.message
    assert error.details["yours"] == [] and error.details["theirs"] == ["O2"]


def test_a_discard_is_judged_after_the_play():
    """docs/rules.md 16: O1 alone loses (G4 against R5 under Orange); after playing I4 the pair of 4s wins."""
    state = table(palettes=["G4", "R5"], hands=["I4 O1", "B1"], variant=BASIC)
    assert refused(state, Discard(card("O1"))).code == "discard_not_winning"
    state, _ = step(state, Play(card("I4")))
    state, _ = step(state, Discard(card("O1")))
    assert state.rule is ORANGE


def test_discarding_a_card_of_the_current_rules_colour_is_allowed():
    """docs/rules.md 16: under Green, seat 0 (leading with G4) may discard another green card."""
    state = table(palettes=["G4", "R5"], hands=["G1 B1", "B2"], canvas="G3", variant=BASIC)
    state, events = step(state, Discard(card("G1")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is GREEN
    assert state.canvas == [card("G3"), card("G1")]


def test_discarding_a_red_card_under_the_starting_red_rule():
    """docs/rules.md 16, 12: the starting card is Red; a red discard keeps Red - allowed when leading."""
    state = table(palettes=["R6", "O6"], hands=["R1", "B2"], variant=BASIC)
    state, _ = step(state, Discard(card("R1")))
    assert state.rule is RED


# --- docs/rules.md 17: a play alone is always legal, but ending behind is out ----------------------


def test_a_play_without_discard_is_legal_even_when_it_loses():
    """docs/rules.md 17: V1 loses every finish, yet it may be played; the client is told before committing."""
    # Seat 1's R7 O6 Y5 leads Red, Indigo (a run of 3) ...; only I1-then-V1 (Violet) would save seat 0.
    state = table(palettes=["B2", "R7 O6 Y5"], hands=["V1 I1", "B3"], variant=BASIC)
    assert listed(state, Play(card("V1"))).can_win is False
    assert listed(state, Play(card("I1"))).can_win is True
    state, _ = step(state, Play(card("V1")))
    end = listed(state, EndTurn())
    assert end.eliminates and not end.can_win
    state, events = step(state, EndTurn())
    assert events[0] == PlayerEliminated(0, Elimination.NOT_WINNING)


def test_ending_the_turn_behind_puts_the_player_out():
    """docs/rules.md 17: seat 0 plays B3 under Red and stops behind R7 - out of the round, the others play on."""
    state = table(palettes=["G4", "R7", "O1"], hands=["B3 V2", "B2", "I1"])
    state, _ = step(state, Play(card("B3")))
    state, events = step(state, EndTurn())
    assert events == [PlayerEliminated(0, Elimination.NOT_WINNING), TurnStarted(1)]
    assert state.in_round == [False, True, True]


def test_ending_the_turn_ahead_keeps_the_player_in():
    """docs/rules.md 17: the same play under Blue (two colours, G4 B3 against one) keeps seat 0 in."""
    state = table(palettes=["G4", "R7", "O1"], hands=["B3 V2", "B2", "I1"], canvas="B1")
    state, _ = step(state, Play(card("B3")))
    assert listed(state, EndTurn()).eliminates is False
    state, events = step(state, EndTurn())
    assert events == [TurnStarted(1)]


# --- docs/rules.md 18: an empty hand at the start of the turn ------------------------------------


def test_a_player_with_an_empty_hand_is_out_when_the_turn_comes():
    """docs/rules.md 18: seat 1 has no hand card; it is out at once and seat 2 moves."""
    state = table(palettes=["R6", "O6", "Y1"], hands=["G2", "", "V1"], variant=BASIC)
    state, _ = step(state, Play(card("G2")))
    state, events = step(state, EndTurn())
    assert events == [PlayerEliminated(1, Elimination.EMPTY_HAND), TurnStarted(2)]
    assert state.turn.seat == 2


def test_playing_the_last_hand_card_means_going_out_next_turn():
    """docs/rules.md 18, 19: seat 0 plays its last card; when its turn comes again it is out and seat 1 wins."""
    state = table(palettes=["G4", "R5"], hands=["R6", "B1 R7"], variant=BASIC)
    state, _ = step(state, Play(card("R6")))
    state, _ = step(state, EndTurn())
    assert hand(state, 0) == []
    state, _ = step(state, Play(card("R7")))
    state, events = step(state, EndTurn())
    assert events == [
        PlayerEliminated(0, Elimination.EMPTY_HAND),
        RoundWon(1, RED),
        GameFinished(1, Finish.ROUND_WON),
    ]


def test_empty_hands_one_after_the_other_can_end_the_round():
    """docs/rules.md 18, 19: seats 1 and 2 both have empty hands - both go out, and seat 0 wins the round."""
    state = table(palettes=["R6", "O6", "Y1"], hands=["G2", "", ""])
    state, _ = step(state, Play(card("G2")))
    state, events = step(state, EndTurn())
    assert events == [
        PlayerEliminated(1, Elimination.EMPTY_HAND),
        PlayerEliminated(2, Elimination.EMPTY_HAND),
        RoundWon(0, RED),
    ]


# --- docs/rules.md 19: the last player in wins the round ----------------------------------------


def test_the_last_player_left_wins_the_round_at_once():
    """docs/rules.md 19: seats 0 and 1 fold; seat 2 wins the round even with the weakest palette."""
    state = table(palettes=["R7", "O7", "V1"], hands=["G2", "B2", "I1"])
    state, _ = step(state, Fold())
    state, events = step(state, Fold())
    assert events == [PlayerEliminated(1, Elimination.FOLDED), RoundWon(2, RED)]
    assert state.round_winner == 2
    assert state.phase is Phase.ROUND_WON
    assert state.turn is None


def test_two_players_left_the_round_goes_on():
    """docs/rules.md 19: with two players still in, the round continues."""
    state = table(palettes=["R7", "O7", "V1"], hands=["G2", "B2", "I1"])
    state, events = step(state, Fold())
    assert kinds(events) == ["player_eliminated", "turn_started"]
    assert state.phase is Phase.TURN


def test_a_discard_alone_never_ends_the_round():
    """docs/rules.md 19: the round ends only when one player is left; a winning discard just passes the turn."""
    state = table(palettes=["V2", "O7"], hands=["V3", "B2"], variant=BASIC)
    state, events = step(state, Discard(card("V3")))
    assert state.rule is VIOLET
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.in_round == [True, True]
