"""docs/rules.md 12-14: dealing a round, the first player, the number of players."""

import pytest

from engine import (
    ALL_CARDS,
    DealRound,
    Fold,
    GameState,
    Phase,
    RuleViolation,
    ScoreRound,
    Start,
    Variant,
    cards_in,
    decide,
    fold,
    parse_cards,
)
from tests.engine.rulebook import names
from tests.engine.tables import RED, dealt, hand, order, palette, step

# --- docs/rules.md 12: 7 hand cards, 1 palette card, the starting card, the deck ----------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_gets_7_hand_cards_and_1_palette_card(players: int):
    """docs/rules.md 12: 7 hand cards and 1 face-up palette card each; the rest is the deck."""
    state = fold(decide(GameState(), Start(players, seed=12)))
    assert [h.bit_count() for h in state.hands] == [7] * players
    assert [p.bit_count() for p in state.palettes] == [1] * players
    assert len(state.deck) == 49 - 8 * players


def test_the_canvas_starts_with_the_starting_card_whose_rule_is_red():
    """docs/rules.md 12: the canvas holds only the starting card (not one of the 49), so the rule is Red."""
    state = fold(decide(GameState(), Start(2, seed=12)))
    assert state.canvas == []
    assert state.rule is RED
    in_play = sum(state.hands) | sum(state.palettes) | sum(1 << c for c in state.deck)
    assert cards_in(in_play) == sorted(ALL_CARDS, reverse=True)


def test_an_explicit_deal_hands_first_then_palettes_then_the_deck():
    """docs/rules.md 12: seat 0 takes the first 7 cards, seat 1 the next 7, one palette card each, the rest is the deck."""
    state, _ = dealt(
        hands=["R1 R2 R3 R4 R5 R6 R7", "O1 O2 O3 O4 O5 O6 O7"],
        palettes=["G4", "B6"],
        deck="V7 V6",
    )
    assert hand(state, 0) == ["R7", "R6", "R5", "R4", "R3", "R2", "R1"]
    assert hand(state, 1) == ["O7", "O6", "O5", "O4", "O3", "O2", "O1"]
    assert palette(state, 0) == ["G4"] and palette(state, 1) == ["B6"]
    assert names(reversed(state.deck[-2:])) == ["V7", "V6"]  # V7 is on top
    assert len(state.deck) == 33


# --- docs/rules.md 13: the first player --------------------------------------------------------


@pytest.mark.parametrize(
    ("palettes", "first"),
    [
        (["R7", "O1"], 1),
        (["O1", "R7"], 0),
        (["G3", "R2", "B7"], 0),
        (["G3", "B7", "R2"], 2),
        (["V1", "I1", "B1", "G1"], 0),  # G1 is the highest: seat 3, so seat 0 goes first
        (["Y5", "O5", "R4", "V2"], 2),  # O5 beats Y5 on colour
    ],
)
def test_the_first_player_sits_after_the_highest_palette_card(palettes: list[str], first: int):
    """docs/rules.md 13: the player after (in seat order) the one with the highest palette card goes first."""
    state, _ = dealt(hands=[""] * len(palettes), palettes=palettes)
    assert state.first_seat == first
    assert state.turn.seat == first


def test_every_later_round_starts_after_the_highest_palette_card_too():
    """docs/rules.md 13: the first player of round 2 follows the same rule."""
    state, _ = dealt(hands=["", "", ""], palettes=["R7", "O1", "Y1"], seed=3)
    # Seat 1 opens (after R7) and folds; seat 2 folds; seat 0 wins the round.
    state, _ = step(state, Fold())
    state, _ = step(state, Fold())
    state, _ = step(state, ScoreRound())
    state, events = step(state, DealRound())
    assert state.round == 2
    tops = [max(cards_in(p)) for p in state.palettes]
    highest = tops.index(max(tops))
    assert state.first_seat == (highest + 1) % 3 == state.turn.seat
    assert events[-1].first_seat == state.first_seat


# --- docs/rules.md 14: 2 to 4 players ------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players(players: int):
    """docs/rules.md 14: 2, 3 and 4 players may play."""
    state = fold(decide(GameState(), Start(players, Variant.BASIC, seed=1)))
    assert state.players == players
    assert state.phase is Phase.TURN


@pytest.mark.parametrize("players", [0, 1, 5, 8])
def test_other_player_counts_are_refused(players: int):
    """docs/rules.md 14: any other number of players is refused with a stable code and says why."""
    with pytest.raises(RuleViolation) as info:
        decide(GameState(), Start(players))
    assert info.value.code == "bad_player_count"
    assert "2 to 4" in info.value.message and str(players) in info.value.message


def test_a_custom_deck_must_hold_the_49_cards_once_each():
    """docs/rules.md 1, 12: an explicit deal must be the whole deck."""
    short = tuple(parse_cards("R7 O7 Y7"))
    full = order(["", ""], ["G4", "B6"])
    twice = (*full[:-1], full[0])  # 49 cards, but one of them twice
    for deck in (short, twice):
        with pytest.raises(RuleViolation) as info:
            decide(GameState(), Start(2, deck=deck))
        assert info.value.code == "bad_deck"


def test_a_game_starts_only_once():
    """docs/rules.md 12: the deal happens once per game; a second Start is refused."""
    state = fold(decide(GameState(), Start(2, seed=1)))
    with pytest.raises(RuleViolation) as info:
        decide(state, Start(2, seed=1))
    assert info.value.code == "game_already_started"
