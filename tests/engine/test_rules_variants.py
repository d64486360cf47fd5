"""docs/rules.md 20-25: the basic variant (one round) and the advanced variant (draws, scoring, rounds)."""

import pytest

from engine import (
    TARGET_SCORE,
    CardDrawn,
    DealRound,
    Discard,
    DrawCause,
    Finish,
    Fold,
    GameFinished,
    Options,
    Phase,
    Play,
    RoundScored,
    ScoreRound,
    Variant,
    cards_in,
    legal_steps,
    mask_of,
    parse_cards,
    step_from_dict,
)
from tests.engine.rulebook import card, kinds, names, refused
from tests.engine.tables import INDIGO, ORANGE, RED, hand, palette, step, table

BASIC, ADVANCED = Variant.BASIC, Variant.ADVANCED


def win_round(state):
    """Everyone but seat 0 folds, one after the other (seat 1 must be to move)."""
    while state.phase is Phase.TURN:
        state, _ = step(state, Fold())
    assert state.round_winner == 0
    return state


# --- docs/rules.md 20: the basic variant ---------------------------------------------------------


def test_basic_one_round_its_winner_wins_the_game():
    """docs/rules.md 20: in the basic variant the round winner wins the game; there is nothing to score."""
    state = table(palettes=["R7", "O7"], hands=["G2", "B2"], turn=1, variant=BASIC)
    state, events = step(state, Fold())
    assert kinds(events) == ["player_eliminated", "round_won", "game_finished"]
    assert events[-1] == GameFinished(0, Finish.ROUND_WON)
    assert state.phase is Phase.FINISHED and state.winner == 0
    assert refused(state, ScoreRound()).code == "nothing_to_score"
    assert refused(state, DealRound()).code == "no_deal_due"
    assert refused(state, Play(card("G2")), seat=0).code == "game_over"


def test_basic_has_no_advanced_draw():
    """docs/rules.md 20: palette 1 2 2 and a discarded I6 - in the basic variant there is no draw."""
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I6 B1", "B3"], deck="R3", variant=BASIC)
    state, events = step(state, Discard(card("I6")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert hand(state, 0) == ["B1"]
    assert names(state.deck) == ["R3"]
    fresh = table(palettes=["R1 O2 Y2", "V1"], hands=["I6", "B3"], deck="R3", variant=BASIC)
    assert not next(s for s in legal_steps(fresh) if s.step == Discard(card("I6"))).grants_draw


def test_basic_still_has_a_deck_for_the_action_rules():
    """docs/rules.md 20: with the action rules, a 3 played in the basic variant draws from the deck."""
    state = table(palettes=["R6", "O6"], hands=["G3", "B2"], deck="V7", variant=BASIC, action_rules=True)
    state, events = step(state, Play(card("G3")))
    assert events[-1] == CardDrawn(0, card("V7"), DrawCause.THREE)
    assert hand(state, 0) == ["V7"]


# --- docs/rules.md 21: the advanced targets -----------------------------------------------------------


def test_advanced_targets_40_35_30():
    """docs/rules.md 21: 2 players play to 40 points, 3 to 35, 4 to 30."""
    assert TARGET_SCORE == {2: 40, 3: 35, 4: 30}
    assert [Options(n, ADVANCED, False).target for n in (2, 3, 4)] == [40, 35, 30]


@pytest.mark.parametrize(
    ("players", "scored_before", "finished"),
    [
        (2, "O7 Y7 G7 B7 I5", True),  # 33 + 7 = 40
        (2, "O7 Y7 G7 B7 I4", False),  # 32 + 7 = 39
        (3, "O7 Y7 G7 B7", True),  # 28 + 7 = 35
        (3, "O7 Y7 G7 B6", False),  # 27 + 7 = 34
        (4, "O7 Y7 G7 B2", True),  # 23 + 7 = 30
        (4, "O7 Y7 G7 B1", False),  # 22 + 7 = 29
    ],
)
def test_the_game_ends_when_a_player_reaches_the_target(players: int, scored_before: str, finished: bool):
    """docs/rules.md 21, 24: seat 0 wins a round worth 7 (R7 under Red); reaching the target ends the game."""
    palettes = ["R7", "V1", "V2", "V3"][:players]
    hands = ["G2", "B2", "I2", "Y3"][:players]
    scored = [scored_before, "", "", ""][:players]
    state = win_round(table(palettes=palettes, hands=hands, turn=1, scored=scored))
    state, events = step(state, ScoreRound())
    assert events[0] == RoundScored(0, (card("R7"),), 7)
    if finished:
        assert events[-1] == GameFinished(0, Finish.TARGET_REACHED)
        assert state.phase is Phase.FINISHED
    else:
        assert kinds(events) == ["round_scored"]
        assert state.phase is Phase.ROUND_SCORED


# --- docs/rules.md 22: the advanced draw ----------------------------------------------------------------


def test_advanced_draw_rulebook_example_palette_1_2_2_discard_i6():
    """docs/rules.md 22 (worked example): palette 1 2 2 (3 cards), discard I6: 6 > 3, so the player draws."""
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I6 B1", "B3"], deck="R3 G5")
    state, events = step(state, Discard(card("I6")))
    assert kinds(events) == ["card_discarded", "card_drawn", "turn_started"]
    assert events[1] == CardDrawn(0, card("R3"), DrawCause.DISCARD)
    assert hand(state, 0) == ["R3", "B1"]
    assert names(state.deck) == ["G5"]


def test_advanced_draw_is_the_default():
    """docs/rules.md 22: a discard that does not say otherwise takes the draw (also as the API reads it)."""
    assert Discard(card("I6")).draw is True
    assert step_from_dict({"type": "discard", "card": "I6"}) == Discard(card("I6"), draw=True)


def test_advanced_draw_may_be_declined():
    """docs/rules.md 22: the player chooses; declining leaves the deck as it is."""
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I6 B1", "B3"], deck="R3")
    state, events = step(state, Discard(card("I6"), draw=False))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert hand(state, 0) == ["B1"]
    assert names(state.deck) == ["R3"]


def test_no_advanced_draw_when_the_number_is_not_greater_than_the_palette():
    """docs/rules.md 22: greater, not equal - discarding I3 onto a 3-card palette draws nothing."""
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I3 B1", "B3"], deck="R3")
    state, events = step(state, Discard(card("I3")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert names(state.deck) == ["R3"]


def test_advanced_draw_counts_the_palette_after_this_turns_play():
    """docs/rules.md 22: "at that moment" - 2 cards + the card played = 3, so a discarded 3 does not draw."""
    start = table(palettes=["R1 O2", "V1"], hands=["Y2 I3 B1", "B3"], deck="R3")
    # Without a play the palette has 2 cards and a 3 would draw ...
    _, events = step(start, Discard(card("I3")))
    assert kinds(events) == ["card_discarded", "card_drawn", "turn_started"]
    # ... after playing Y2 it has 3, and the same discard does not.
    state, _ = step(start, Play(card("Y2")))
    _, events = step(state, Discard(card("I3")))
    assert kinds(events) == ["card_discarded", "turn_started"]


def test_advanced_draw_skipped_when_the_deck_is_empty():
    """docs/rules.md 22: with an empty deck there is nothing to draw; the discard still stands."""
    state = table(palettes=["R1 O2 Y2", "V1"], hands=["I6 B1", "B3"], deck="")
    state, events = step(state, Discard(card("I6")))
    assert kinds(events) == ["card_discarded", "turn_started"]
    assert state.rule is INDIGO


def test_advanced_draw_russian_rulebook_example():
    """docs/rules.md 22 (rulebook example): Y4 G2 I6, play I4, discard O5 - two 4s lead Orange, 5 > 4 cards: draw."""
    state = table(palettes=["Y4 G2 I6", "R3 B7"], hands=["I4 O5", "V1"], deck="G7")
    state, _ = step(state, Play(card("I4")))
    state, events = step(state, Discard(card("O5")))
    assert state.rule is ORANGE
    assert events[1] == CardDrawn(0, card("G7"), DrawCause.DISCARD)


# --- docs/rules.md 23: scoring -------------------------------------------------------------------------


def test_the_winner_scores_the_qualifying_cards_under_the_final_rule():
    """docs/rules.md 23: won under Blue with R5 R2 G4 V1 - the highest card of each colour scores: R5 G4 V1 = 10."""
    state = win_round(table(palettes=["R5 R2 G4 V1", "O3"], hands=["B2", "B1"], canvas="B6", turn=1))
    state, events = step(state, ScoreRound())
    assert events == [RoundScored(0, (card("R5"), card("G4"), card("V1")), 10)]
    assert names(cards_in(state.scored[0])) == ["R5", "G4", "V1"]
    assert state.score(0) == 10
    assert palette(state, 0) == ["R2"]  # the rest of the palette is not scored


def test_scoring_polish_rulebook_example_indigo():
    """docs/rules.md 23 (rulebook example): Ania wins under Indigo with 7 7 6 5 2 and scores 5, 6 and the red 7."""
    state = win_round(table(palettes=["R7 Y7 G6 B5 I2", "O1"], hands=["B2", "B1"], canvas="I4", turn=1))
    state, events = step(state, ScoreRound())
    assert events == [RoundScored(0, (card("R7"), card("G6"), card("B5")), 18)]


def test_scoring_russian_rulebook_example_orange():
    """docs/rules.md 23 (rulebook example): Y4 G2 I6 I4 won under Orange - the two 4s score 8."""
    state = win_round(table(palettes=["Y4 G2 I6 I4", "O1"], hands=["B2", "B1"], canvas="O2", turn=1))
    _, events = step(state, ScoreRound())
    assert events == [RoundScored(0, (card("Y4"), card("I4")), 8)]


def test_scored_cards_never_return_to_play():
    """docs/rules.md 23, 24: the next round is dealt from every card except the score piles."""
    state = win_round(table(palettes=["R7 Y7", "O1"], hands=["B2", "B1"], deck="G5 V3", turn=1, scored=["", "O7"]))
    state, _ = step(state, ScoreRound())
    state, _ = step(state, DealRound())
    assert state.round == 2 and state.phase is Phase.TURN
    scored = mask_of(parse_cards("R7 O7"))
    in_play = sum(state.hands) | sum(state.palettes) | mask_of(state.deck)
    assert in_play & scored == 0
    assert in_play | scored == (1 << 49) - 1  # hands, palettes, canvas and deck all came back


# --- docs/rules.md 24: a new round, or the end of the game -------------------------------------------


def test_after_scoring_below_the_target_a_new_round_is_dealt():
    """docs/rules.md 24: nobody reached the target, so everything but the score piles is shuffled and dealt again."""
    state = win_round(table(palettes=["R7", "O1"], hands=["B2", "B1"], canvas="G2 B3", deck="V5", turn=1))
    state, _ = step(state, ScoreRound())
    assert state.phase is Phase.ROUND_SCORED
    state, _ = step(state, DealRound())
    assert state.round == 2
    assert [h.bit_count() for h in state.hands] == [7, 7]
    assert [p.bit_count() for p in state.palettes] == [1, 1]
    assert len(state.deck) == 48 - 16  # 49 minus the scored R7, minus the deal
    assert state.canvas == [] and state.rule is RED
    assert state.in_round == [True, True]


def test_a_new_round_is_dealt_only_after_scoring():
    """docs/rules.md 24: the deal follows the scoring, not the round win."""
    state = win_round(table(palettes=["R7", "O1"], hands=["B2", "B1"], turn=1))
    error = refused(state, DealRound())
    assert error.code == "no_deal_due"
    assert "scored" in error.message


# Four players need 32 cards for a deal. Score piles before the round: 16 cards worth 7 + 14 + ... points.
SIXTEEN = ["V1 I1 B1 G1 Y1 O1 R1", "V2 I2 B2 G2 Y2 O2 R2", "V3 I3", ""]
SEVENTEEN = ["V1 I1 B1 G1 Y1 O1 R1", "V2 I2 B2 G2 Y2 O2 R2", "V3 I3 B3", ""]


def test_the_game_ends_when_fewer_than_8_cards_per_player_are_left():
    """docs/rules.md 24: 17 cards scored + the 1 card of this round = 18; 31 left < 32 for 4 players - the game ends."""
    state = win_round(table(palettes=["R7", "O6", "", ""], hands=["B4", "B5", "", ""], turn=1, out=(2, 3), scored=SEVENTEEN))
    state, events = step(state, ScoreRound())
    assert kinds(events) == ["round_scored", "game_finished"]
    assert events[-1].reason is Finish.DECK_EXHAUSTED
    assert state.phase is Phase.FINISHED


def test_exactly_8_cards_per_player_is_enough_for_another_round():
    """docs/rules.md 24: 16 + 1 cards scored leaves 32 = 8 x 4 - the game goes on."""
    state = win_round(table(palettes=["R7", "O6", "", ""], hands=["B4", "B5", "", ""], turn=1, out=(2, 3), scored=SIXTEEN))
    state, events = step(state, ScoreRound())
    assert kinds(events) == ["round_scored"]
    state, _ = step(state, DealRound())
    assert [h.bit_count() for h in state.hands] == [7, 7, 7, 7]
    assert state.deck == []


# --- docs/rules.md 25: the game winner ------------------------------------------------------------------


def test_equal_scores_r7_beats_r2():
    """docs/rules.md 25: the game ends on a short deck with 14 points each; seat 0 scored R7, seat 1 at best R2."""
    state = win_round(table(palettes=["R7", "O6", "", ""], hands=["B4", "B5", "", ""], turn=1, out=(2, 3), scored=SEVENTEEN))
    state, events = step(state, ScoreRound())
    assert [state.score(s) for s in range(4)] == [14, 14, 9, 0]
    assert events[-1] == GameFinished(0, Finish.DECK_EXHAUSTED)


def test_equal_scores_the_highest_scored_card_wins():
    """docs/rules.md 25: 17 points each; seat 1 holds R7, seat 0's best is V3 - seat 1 wins the game."""
    scored = ["V2 I2 B2 G2 Y2 O2 R2", "R7 O7 R3", "V1 I1 B1 G1 Y1 O1 R1", ""]  # 17 cards
    state = win_round(table(palettes=["V3", "O6", "", ""], hands=["B4", "B5", "", ""], turn=1, out=(2, 3), scored=scored))
    state, events = step(state, ScoreRound())
    assert events[0] == RoundScored(0, (card("V3"),), 3)
    assert state.score(0) == state.score(1) == 17
    assert events[-1] == GameFinished(1, Finish.DECK_EXHAUSTED)
    assert state.winner == 1


def test_the_player_with_more_points_wins_a_short_deck_game():
    """docs/rules.md 25: the round winner seat 0 ends with 17 points, seat 1 has 21 - seat 1 wins the game."""
    scored = ["V2 I2 B2 G2 Y2 O2 R2", "R7 O7 Y7", "V1 I1 B1 G1 Y1 O1 R1", ""]  # 17 cards
    state = win_round(table(palettes=["V3", "O6", "", ""], hands=["B4", "B5", "", ""], turn=1, out=(2, 3), scored=scored))
    state, events = step(state, ScoreRound())
    assert [state.score(0), state.score(1)] == [17, 21]
    assert events[-1] == GameFinished(1, Finish.DECK_EXHAUSTED)


def test_scoring_is_for_the_advanced_variant_only():
    """docs/rules.md 25 (points 23-25 apply only to the advanced variant): a basic game ends with the round."""
    state = table(palettes=["R7", "O6"], hands=["B4", "B5"], turn=1, variant=BASIC)
    state, _ = step(state, Fold())
    assert state.phase is Phase.FINISHED
    assert state.scored == [0, 0]
    assert refused(state, ScoreRound()).code == "nothing_to_score"


def test_a_won_round_waits_for_scoring_in_the_advanced_variant():
    """docs/rules.md 23: an advanced round win is followed by scoring; turns are over until the next deal."""
    state = win_round(table(palettes=["R7", "O6"], hands=["B4", "B5"], turn=1))
    assert state.phase is Phase.ROUND_WON
    error = refused(state, Play(card("B4")), seat=0)
    assert error.code == "round_over"
