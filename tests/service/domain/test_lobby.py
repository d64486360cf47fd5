"""The lobby's rules on their own: commands decided on a table in memory, its events folded — no Redis, no HTTP."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CorruptHistory, Discard, Finish, Fold, GameFinished, GameStarted, Variant, decide_steps
from service.common.errors import Refused
from service.domain.game import Game, apply_event
from service.domain.lobby import (
    AI_LEVELS,
    LOBBY_EVENTS,
    Abort,
    Cancel,
    DeclineRematch,
    GameAborted,
    GameCancelled,
    GameCreated,
    Join,
    Leave,
    OfferRematch,
    RematchDeclined,
    RematchOffered,
    RematchStarted,
    SeatLeft,
    SeatResigned,
    SeatSpec,
    SeatTaken,
    SetUp,
    TurnTimedOut,
    decide,
    event_from_dict,
    event_to_dict,
    every_seat_moved,
    rematch_seats,
)
from tests.engine.tables import order

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
    st.builds(GameAborted, st.integers(0, 3)),
    st.builds(RematchOffered, st.integers(0, 3), st.none() | st.text(min_size=1)),
    st.builds(RematchDeclined, st.integers(0, 3)),
    st.builds(RematchStarted, st.text(min_size=1)),
    st.builds(
        GameCreated,
        st.text(min_size=1),
        st.lists(st.sampled_from([HUMAN, GREEDY, SeatSpec("ai", "expert")]), min_size=2, max_size=4).map(tuple),
        st.sampled_from(["basic", "advanced"]),
        st.booleans(),
        st.none() | st.integers(1, 10**6),
        st.sampled_from(["fold", "ai"]),
        st.sampled_from(["random", "seeded"]),
        st.integers(0, 2**53),
        st.none(),
        st.text(),
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
        {
            "type": "game_created",
            "created_by": "p",
            "seats": [{"kind": "ai", "level": "god"}, {"kind": "human"}],
            "variant": "advanced",
            "action_rules": False,
            "dealing": "random",
            "seed": 1,
        },
        {
            "type": "game_created",
            "created_by": "p",
            "seats": [{"kind": "human"}],
            "variant": "advanced",
            "action_rules": False,
            "dealing": "random",
            "seed": 1,
        },
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
        "game_created",
        "seat_taken",
        "seat_left",
        "seat_resigned",
        "turn_timed_out",
        "game_cancelled",
        "game_aborted",
        "rematch_offered",
        "rematch_declined",
        "rematch_started",
        "time_given",
    }


def test_a_table_set_up_with_every_human_seated_deals_at_once():
    game = Game("g_2")
    command = SetUp(
        "ana",
        "Ana",
        (HUMAN, HUMAN, GREEDY),
        Variant.BASIC,
        False,
        86400 * 3,
        "fold",
        9,
        "c",
        rated=True,
        days_per_turn=3,
        origin="quick_match",
        seated=((1, "bo", "Bo"),),
    )
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
    old = {
        "type": "game_created",
        "created_by": "p",
        "seats": seats,
        "variant": "advanced",
        "action_rules": False,
        "turn_timeout": None,
        "timeout_action": "fold",
        "dealing": "random",
        "seed": 1,
        "deck": None,
        "join_code": "c",
    }
    event = event_from_dict(old)
    options = (event.listed, event.rated, event.days_per_turn, event.origin, event.rematch_of)
    assert options == (False, False, None, "direct", None)
    assert event_to_dict(event) == old  # the same bytes as before for a game that sets none of them
    with pytest.raises(CorruptHistory):
        event_from_dict({**old, "days_per_turn": 4})  # not one of the correspondence choices


# --- open tables, abort and rematch ----------------------------------------------------------------------------------

#: Seat 0 starts (seat 1 shows the highest palette card); discarding G4 leaves seat 0 winning (Green: its V2 is even).
DECK = tuple(order(hands=["R6 B3 G4 Y2 O5 I1 V5", "R1 O1 Y1 G1 B1 I7 V1"], palettes=["V2", "R7"]))


def dealt(*seats: SeatSpec, variant: Variant = Variant.ADVANCED, players: tuple[str, ...] = ("bo", "cy", "di")) -> Game:
    """A game dealt from :data:`DECK` (two seats) or at random, with ana on the first human seat and the others after."""
    humans = [n for n, seat in enumerate(seats) if seat.kind == "human"][1:]
    seated = tuple((n, player, player.capitalize()) for n, player in zip(humans, players, strict=False))
    deck = DECK if len(seats) == 2 else None
    command = SetUp(
        "ana",
        "Ana",
        seats,
        variant,
        False,
        None,
        "fold",
        3,
        "secret",
        dealing="custom" if deck else "seeded",
        deck=deck,
        seated=seated,
    )
    game = Game("g_1")
    return folded(game, decide(game, command))


def step(game: Game, *steps) -> Game:
    """The seat to move takes ``steps``."""
    return folded(game, decide_steps(game.state, list(steps), game.seat_to_move())[0])


def test_a_listed_table_is_joined_without_its_code_and_an_unlisted_one_only_with_it():
    listed = Game("g_1")
    folded(
        listed,
        decide(
            listed,
            SetUp(
                "ana", "Ana", (HUMAN, HUMAN), Variant.ADVANCED, False, None, "fold", 7, "secret", listed=True, origin="open_table"
            ),
        ),
    )
    assert decide(listed, Join("bo", "Bo", ""))[0] == SeatTaken(1, "bo", "Bo")
    assert refused(table(HUMAN, HUMAN), Join("bo", "Bo", "")) == "bad_join_code"


def test_a_seat_has_moved_once_a_turn_of_its_own_ended():
    game = dealt(HUMAN, HUMAN)
    assert game.status == "active" and game.moved == frozenset() and game.seat_to_move() == 0
    step(game, Discard(DECK[2], draw=False))  # G4: seat 0's turn ends, seat 1's starts
    assert game.moved == {0} and not every_seat_moved(game)
    step(game, Fold())  # a fold ends a turn too (and here the round)
    assert game.moved == {0, 1} and every_seat_moved(game)


def test_a_round_won_before_a_seat_moved_leaves_that_seat_unmoved():
    game = dealt(HUMAN, HUMAN)
    step(game, Fold())  # seat 0 folds: seat 1 wins the round without a turn of its own
    assert game.state.round_winner == 1 and game.moved == {0} and not every_seat_moved(game)
    assert decide(game, Abort("bo")) == [GameAborted(1)]


def test_a_turn_that_timed_out_or_an_ai_played_is_a_move():
    game = dealt(HUMAN, HUMAN)
    folded(game, [TurnTimedOut(0, "fold"), *decide_steps(game.state, [Fold()], 0)[0]])
    assert game.moved == {0}
    ai_game = dealt(SeatSpec("ai", "greedy"), HUMAN)  # the AI's seat 0 starts (the deck is seat 0's)
    step(ai_game, Discard(DECK[2], draw=False))
    assert ai_game.moved == {0}


def test_any_seated_player_aborts_until_every_seat_has_moved_and_then_the_game_is_over():
    game = dealt(HUMAN, HUMAN)
    assert decide(game, Abort("bo")) == [GameAborted(1)]
    folded(game, [GameAborted(1)])
    assert (game.status, game.over, game.seat_to_move()) == ("aborted", True, None)
    assert refused(game, Abort("ana")) == "game_not_active"
    assert refused(game, Cancel("ana")) == "game_not_waiting"


@pytest.mark.parametrize(
    ("moves", "player", "code"),
    [
        ((), "cy", "not_a_player"),
        ((Discard(DECK[2], draw=False), Fold()), "ana", "abort_too_late"),  # both seats ended a turn
    ],
)
def test_an_abort_is_refused_to_strangers_and_once_every_seat_has_moved(moves, player, code):
    game = dealt(HUMAN, HUMAN)
    for move in moves:
        step(game, move)
    assert refused(game, Abort(player)) == code


def test_a_waiting_game_is_cancelled_by_its_creator_not_aborted_and_a_resigned_player_aborts_nothing():
    assert refused(table(HUMAN, HUMAN), Abort("ana")) == "game_not_active"
    game = dealt(HUMAN, HUMAN, HUMAN)
    folded(game, [SeatResigned(2, "greedy")])
    assert refused(game, Abort("cy")) == "seat_resigned"


def test_an_abort_that_could_not_have_happened_is_corrupt_history():
    game = dealt(HUMAN, HUMAN)
    with pytest.raises(CorruptHistory):
        folded(game.copy(), [GameAborted(0), GameAborted(1)])  # over already
    step(game, Discard(DECK[2], draw=False))
    step(game, Fold())
    with pytest.raises(CorruptHistory):
        folded(game, [GameAborted(0)])  # every seat moved (and the round is won)


def finished(*seats: SeatSpec) -> Game:
    """A basic game (one round) of two seats dealt from :data:`DECK`, won by seat 0: its discard, then seat 1 folds."""
    game = dealt(*seats, variant=Variant.BASIC)
    step(game, Discard(DECK[2], draw=False))
    step(game, Fold())
    assert game.status == "finished"
    return game


def test_a_rematch_starts_when_every_player_offered_and_the_last_offer_names_it():
    game = finished(HUMAN, HUMAN)
    assert decide(game, OfferRematch("bo", "g_next")) == [RematchOffered(1)]
    folded(game, [RematchOffered(1)])
    assert decide(game, OfferRematch("bo", "g_other")) == []  # offering again changes nothing
    assert decide(game, OfferRematch("ana", "g_next")) == [RematchOffered(0, "g_next")]
    folded(game, [RematchOffered(0, "g_next")])
    assert (game.rematch_offers, game.rematch, game.rematch_started) == ((1, 0), "g_next", False)
    assert decide(game, OfferRematch("ana", "g_third")) == []
    assert refused(game, DeclineRematch("bo")) == "rematch_started"
    folded(game, [RematchStarted("g_next")])
    assert game.rematch_started and game.status == "finished"


def test_a_rematch_waits_for_the_humans_still_seated_only():
    game = dealt(HUMAN, SeatSpec("ai", "random"), HUMAN)  # seat 2: bo
    folded(game, [SeatResigned(2, "expert")])
    assert rematch_seats(game) == [0]
    folded(game, [GameFinished(0, Finish.TARGET_REACHED)])
    assert decide(game, OfferRematch("ana", "g_next")) == [RematchOffered(0, "g_next")]  # ana is the only one left
    assert refused(game, OfferRematch("bo", "g_next")) == "seat_resigned"


def test_a_declined_rematch_is_off_for_good():
    game = finished(HUMAN, HUMAN)
    folded(game, decide(game, OfferRematch("ana", "g_next")))
    assert decide(game, DeclineRematch("bo")) == [RematchDeclined(1)]
    folded(game, [RematchDeclined(1)])
    assert game.rematch_declined == 1 and decide(game, DeclineRematch("ana")) == []
    assert refused(game, OfferRematch("bo", "g_next")) == "rematch_declined"


@pytest.mark.parametrize("command", [OfferRematch("ana", "g_next"), DeclineRematch("ana")])
def test_a_rematch_is_answered_only_at_a_finished_games_end_by_its_players(command):
    assert refused(dealt(HUMAN, HUMAN), command) == "game_not_finished"
    assert refused(table(HUMAN, HUMAN), command) == "game_not_finished"
    stranger = OfferRematch("cy", "g_next") if isinstance(command, OfferRematch) else DeclineRematch("cy")
    assert refused(finished(HUMAN, HUMAN), stranger) == "not_a_player"


@pytest.mark.parametrize(
    "events",
    [
        [RematchOffered(0, "g_next")],  # names the rematch before every player offered
        [RematchOffered(0), RematchOffered(1)],  # every player offered, and nobody named it
        [RematchOffered(0), RematchOffered(0)],
        [RematchStarted("g_next")],  # nothing agreed on
        [RematchDeclined(1), RematchOffered(0)],
    ],
)
def test_rematch_events_that_could_not_have_happened_are_corrupt_history(events):
    with pytest.raises(CorruptHistory):
        folded(finished(HUMAN, HUMAN), events)
    with pytest.raises(CorruptHistory):
        folded(dealt(HUMAN, HUMAN), [RematchOffered(0)])  # before the end


def test_a_snapshot_from_before_moves_were_kept_counts_every_seat_of_a_dealt_game_as_moved():
    game = dealt(HUMAN, HUMAN)
    old = game.to_dict()
    del old["moved"]
    assert every_seat_moved(Game.from_dict(old))  # it cannot tell: no abort (the players may still resign)
    assert Game.from_dict(game.to_dict()).moved == frozenset()
    waiting = table(HUMAN, HUMAN).to_dict()
    del waiting["moved"]
    assert Game.from_dict(waiting).moved == frozenset()
