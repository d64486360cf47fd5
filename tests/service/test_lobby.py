"""The lobby's rules on their own: commands decided on a table in memory, its events folded — no Redis, no HTTP."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CorruptHistory, GameStarted, Variant
from service.errors import Refused
from service.game import Game, apply_event
from service.lobby import (
    AI_LEVELS,
    LOBBY_EVENTS,
    Cancel,
    GameCancelled,
    GameCreated,
    Join,
    Leave,
    SeatLeft,
    SeatResigned,
    SeatSpec,
    SeatTaken,
    SetUp,
    TurnTimedOut,
    decide,
    event_from_dict,
    event_to_dict,
)

AT = "2026-11-26T12:00:00.000Z"
HUMAN, GREEDY = SeatSpec("human"), SeatSpec("ai", "greedy")


def set_up(*seats: SeatSpec, creator: str = "ana", seed: int = 7) -> SetUp:
    return SetUp(creator, creator.capitalize(), seats, Variant.ADVANCED, True, None, "fold", seed, "secret", dealing="seeded")


def folded(game: Game, events) -> Game:
    for event in events:
        apply_event(game, game.version + 1, event, AT)
    return game


def table(*seats: SeatSpec) -> Game:
    game = Game("g_1")
    return folded(game, decide(game, set_up(*seats)))


def refused(game: Game, command) -> str:
    with pytest.raises(Refused) as caught:
        decide(game, command)
    return caught.value.code


def test_setting_up_seats_the_creator_and_deals_once_no_human_seat_is_open():
    game = Game("g_1")
    events = decide(game, set_up(HUMAN, GREEDY))
    assert [type(e) for e in events[:2]] == [GameCreated, SeatTaken]
    assert isinstance(events[2], GameStarted)  # the creator filled the only human seat: the engine deals
    folded(game, events)
    assert game.status == "active" and game.seats[0].player_id == "ana" and game.seed == 7


def test_a_table_with_an_open_seat_waits_and_the_last_join_deals():
    game = table(HUMAN, HUMAN, GREEDY)
    assert game.status == "waiting" and game.seats[1].open
    events = decide(game, Join("bo", "Bo", "secret"))
    assert events[0] == SeatTaken(1, "bo", "Bo") and isinstance(events[1], GameStarted)
    assert folded(game, events).status == "active"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (Join("ana", "Ana", "secret"), "already_seated"),
        (Join("bo", "Bo", "wrong"), "bad_join_code"),
        (Join("bo", "Bo", "secret", seat=0), "seat_not_open"),
        (Join("bo", "Bo", "secret", seat=9), "seat_not_open"),
        (Leave("bo"), "not_a_player"),
        (Leave("ana"), "creator_cannot_leave"),
        (Cancel("bo"), "not_the_creator"),
    ],
)
def test_lobby_commands_are_refused_with_a_stable_code(command, code):
    assert refused(table(HUMAN, HUMAN, GREEDY), command) == code


def test_a_full_or_started_table_takes_no_one():
    game = table(HUMAN, HUMAN)
    folded(game, decide(game, Join("bo", "Bo", "secret")))
    assert refused(game, Join("cy", "Cy", "secret")) == "game_not_waiting"
    assert refused(game, Cancel("ana")) == "game_not_waiting"


def test_leaving_opens_the_seat_before_the_start_and_hands_it_to_an_ai_in_play():
    game = table(HUMAN, HUMAN, HUMAN)
    folded(game, decide(game, Join("bo", "Bo", "secret")))
    assert decide(game, Leave("bo")) == [SeatLeft(1)]
    folded(game, decide(game, Join("cy", "Cy", "secret")))
    assert game.status == "active"
    assert decide(game, Leave("bo", "expert")) == [SeatResigned(1, "expert")]
    folded(game, [SeatResigned(1, "expert")])
    assert game.seats[1].kind == "ai" and game.seats[1].resigned
    assert refused(game, Leave("bo")) == "seat_resigned"


def test_cancelling_a_waiting_table():
    game = table(HUMAN, HUMAN)
    assert decide(game, Cancel("ana")) == [GameCancelled()]
    assert folded(game, [GameCancelled()]).status == "cancelled"


def test_deciding_leaves_the_table_as_it_was():
    game = table(HUMAN, HUMAN, GREEDY)
    before = game.to_dict()
    decide(game, Join("bo", "Bo", "secret"))
    assert game.to_dict() == before


EVENTS = st.one_of(
    st.builds(SeatTaken, st.integers(0, 3), st.text(min_size=1), st.text(min_size=1)),
    st.builds(SeatLeft, st.integers(0, 3)),
    st.builds(SeatResigned, st.integers(0, 3), st.sampled_from(AI_LEVELS)),
    st.builds(TurnTimedOut, st.integers(0, 3), st.sampled_from(("fold", "ai"))),
    st.just(GameCancelled()),
    st.builds(
        GameCreated, st.text(min_size=1), st.lists(st.sampled_from([HUMAN, GREEDY, SeatSpec("ai", "expert")]), min_size=2,
                                                   max_size=4).map(tuple),
        st.sampled_from(["basic", "advanced"]), st.booleans(), st.none() | st.integers(1, 10**6), st.sampled_from(["fold", "ai"]),
        st.sampled_from(["random", "seeded"]), st.integers(0, 2**53), st.none(), st.text(),
    ),
)


@given(EVENTS)
def test_every_lobby_event_round_trips_through_its_stored_form(event):
    assert event_from_dict(event_to_dict(event)) == event


@pytest.mark.parametrize(
    "data",
    [
        {"type": "seat_taken", "seat": -1, "player_id": "p", "name": "P"},
        {"type": "seat_taken", "seat": 1, "player_id": "p", "name": {"a": 1}},
        {"type": "seat_resigned", "seat": 1, "level": "god"},
        {"type": "turn_timed_out", "seat": 0, "action": "pass"},
        {"type": "game_created", "created_by": "p", "seats": [{"kind": "ai", "level": "god"}, {"kind": "human"}],
         "variant": "advanced", "action_rules": False, "dealing": "random", "seed": 1},
        {"type": "game_created", "created_by": "p", "seats": [{"kind": "human"}], "variant": "advanced",
         "action_rules": False, "dealing": "random", "seed": 1},
        {"type": "no_such_event"},
    ],
)
def test_a_stored_lobby_event_no_game_could_hold_is_corrupt_history(data):
    with pytest.raises(CorruptHistory):
        event_from_dict(data)


def test_folding_an_event_where_it_cannot_happen_is_corrupt_history():
    game = table(HUMAN, HUMAN)
    with pytest.raises(CorruptHistory):
        folded(game, [SeatTaken(0, "bo", "Bo")])  # seat 0 is held
    with pytest.raises(CorruptHistory):
        folded(game, [SeatResigned(1, "greedy")])  # nobody holds seat 1, and the game has not started
    with pytest.raises(CorruptHistory):
        folded(game, [SeatLeft(5)])


def test_the_lobby_vocabulary_is_complete():
    assert {cls.type for cls in LOBBY_EVENTS} == {
        "game_created", "seat_taken", "seat_left", "seat_resigned", "turn_timed_out", "game_cancelled"}


def test_a_table_set_up_with_every_human_seated_deals_at_once():
    game = Game("g_2")
    command = SetUp("ana", "Ana", (HUMAN, HUMAN, GREEDY), Variant.BASIC, False, 86400 * 3, "fold", 9, "c",
                    rated=True, days_per_turn=3, origin="quick_match", seated=((1, "bo", "Bo"),))
    events = decide(game, command)
    assert [e for e in events if isinstance(e, SeatTaken)] == [SeatTaken(0, "ana", "Ana"), SeatTaken(1, "bo", "Bo")]
    folded(game, events)
    assert game.status == "active" and game.rated and game.days_per_turn == 3 and game.origin == "quick_match"


@pytest.mark.parametrize(
    "seated", [((0, "bo", "Bo"),), ((2, "bo", "Bo"),), ((1, "ana", "Ana"),), ((1, "bo", "Bo"), (1, "cy", "Cy"))]
)
def test_a_set_up_seats_each_player_once_on_a_human_seat_of_their_own(seated):
    command = SetUp("ana", "Ana", (HUMAN, HUMAN, GREEDY), Variant.BASIC, False, None, "fold", 9, "c", seated=seated)
    assert refused(Game("g_3"), command) == "invalid_request"


def test_a_game_created_before_the_new_options_reads_with_their_defaults_and_is_stored_as_it_was():
    seats = [{"kind": "human", "level": None}, {"kind": "ai", "level": "greedy"}]
    old = {"type": "game_created", "created_by": "p", "seats": seats, "variant": "advanced", "action_rules": False,
           "turn_timeout": None, "timeout_action": "fold", "dealing": "random", "seed": 1, "deck": None, "join_code": "c"}
    event = event_from_dict(old)
    options = (event.listed, event.rated, event.days_per_turn, event.origin, event.rematch_of)
    assert options == (False, False, None, "direct", None)
    assert event_to_dict(event) == old  # the same bytes as before for a game that sets none of them
    with pytest.raises(CorruptHistory):
        event_from_dict({**old, "days_per_turn": 4})  # not one of the correspondence choices
