"""replays/analysis.py: which decisions were not the player's."""

from __future__ import annotations

from replays.analysis import _not_the_players


def test_a_timed_out_turn_and_a_resigned_seats_turns_are_not_the_players() -> None:
    records = [
        {"n": 5, "type": "round_dealt"},
        {"n": 6, "type": "card_played", "seat": 0},
        {"n": 7, "type": "turn_started", "seat": 1},
        {"n": 8, "type": "turn_timed_out", "seat": 1, "action": "ai"},
        {"n": 9, "type": "card_played", "seat": 1},
        {"n": 10, "type": "card_discarded", "seat": 1},
        {"n": 11, "type": "turn_started", "seat": 0},
        {"n": 12, "type": "card_played", "seat": 0},
        {"n": 13, "type": "seat_resigned", "seat": 1, "level": "greedy"},
        {"n": 14, "type": "turn_started", "seat": 1},
        {"n": 15, "type": "card_played", "seat": 1},
        {"n": 16, "type": "player_eliminated", "seat": 0},
    ]
    assert _not_the_players(records) == {9: "timeout", 10: "timeout", 14: "ai", 15: "ai"}
