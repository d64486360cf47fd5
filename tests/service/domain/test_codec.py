"""One codec for the service's own events (service/domain/codec.py): every event of the lobby, a challenge, a
quick-match pool and a calendar goes through it and comes back equal; the forms stored before still read as they
did; and empty text is read by one rule in all four."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CorruptHistory
from service.domain import calendars, challenges, lobby
from service.domain import matchmaking as pools
from service.domain.codec import Events
from service.domain.game import decode, envelope
from service.domain.lobby import events as lobby_events

TESTS = Path(__file__).resolve().parents[2]
AT = "2026-11-26T12:00:00.000Z"
BY = "player:p_1"

ids = st.text(min_size=1, max_size=12)  # ids and names: never empty (the codec's rule)
seat = st.integers(0, 3)
times = st.datetimes(timezones=st.just(UTC)).map(calendars.format_time)
seat_specs = st.sampled_from([lobby.SeatSpec("human"), *(lobby.SeatSpec("ai", level) for level in lobby.AI_LEVELS)])
variants = st.sampled_from(["basic", "advanced"])

LOBBY = {
    lobby.GameCreated: st.builds(
        lobby.GameCreated,
        created_by=ids,
        seats=st.lists(seat_specs, min_size=2, max_size=4).map(tuple),
        variant=variants,
        action_rules=st.booleans(),
        turn_timeout=st.none() | st.integers(0, 10**6),
        timeout_action=st.sampled_from(lobby.TIMEOUT_ACTIONS),
        dealing=st.sampled_from(lobby.DEALINGS),
        seed=st.integers(0, 2**64 - 1),
        deck=st.none() | st.lists(ids, max_size=49).map(tuple),
        join_code=st.text(max_size=8),  # the one text that may be empty
        listed=st.booleans(),
        rated=st.booleans(),
        days_per_turn=st.none() | st.sampled_from(lobby.DAYS_PER_TURN),
        origin=st.sampled_from(lobby.ORIGINS),
        rematch_of=st.none() | ids,
    ),
    lobby.SeatTaken: st.builds(lobby.SeatTaken, seat, ids, ids),
    lobby.SeatLeft: st.builds(lobby.SeatLeft, seat),
    lobby.SeatResigned: st.builds(lobby.SeatResigned, seat, st.sampled_from(lobby.AI_LEVELS)),
    lobby.TurnTimedOut: st.builds(lobby.TurnTimedOut, seat, st.sampled_from(lobby.TIMEOUT_ACTIONS)),
    lobby.GameCancelled: st.just(lobby.GameCancelled()),
    lobby.GameAborted: st.builds(lobby.GameAborted, seat),
    lobby.RematchOffered: st.builds(lobby.RematchOffered, seat, st.none() | ids),
    lobby.RematchDeclined: st.builds(lobby.RematchDeclined, seat),
    lobby.RematchStarted: st.builds(lobby.RematchStarted, ids),
    lobby.TimeGiven: st.builds(lobby.TimeGiven, seat, seat, st.integers(0, 10**6)),
}

TERMS = st.builds(
    challenges.Terms,
    seats=st.lists(seat_specs, min_size=2, max_size=4).map(tuple),
    variant=variants,
    action_rules=st.booleans(),
    turn_timeout=st.none() | st.integers(1, 10**6),
    timeout_action=st.sampled_from(lobby.TIMEOUT_ACTIONS),
    days_per_turn=st.none() | st.sampled_from(lobby.DAYS_PER_TURN),
    rated=st.booleans(),
)
CHALLENGE = {
    challenges.ChallengeCreated: st.builds(
        challenges.ChallengeCreated,
        ids,
        ids,
        st.lists(st.builds(challenges.Invitee, ids, ids), min_size=1, max_size=challenges.MAX_CHALLENGED).map(tuple),
        TERMS,
        times,
    ),
    challenges.ChallengeAccepted: st.builds(challenges.ChallengeAccepted, ids),
    challenges.ChallengeDeclined: st.builds(challenges.ChallengeDeclined, ids, st.sampled_from(list(challenges.DECLINE_REASONS))),
    challenges.ChallengeCancelled: st.just(challenges.ChallengeCancelled()),
    challenges.ChallengeStarted: st.builds(challenges.ChallengeStarted, ids),
}

ms = st.integers(0, 2**53)
TICKET = st.builds(
    lambda ticket_id, player, name, counts, rating, start, widen, opened, lasts, fill, level: pools.Ticket(
        ticket_id, player, name, counts, rating, pools.RatingRange(start, widen, start + 400), opened, opened + lasts, fill, level
    ),
    ids,
    ids,
    ids,
    st.sets(st.sampled_from(pools.PLAYER_COUNTS), min_size=1).map(lambda counts: tuple(sorted(counts))),
    st.integers(-500, 3000),
    st.integers(0, 500),
    st.integers(0, 500),
    ms,
    st.integers(1, 10**9),
    st.none() | st.integers(0, 10**7),
    st.sampled_from(lobby.AI_LEVELS),
)


@st.composite
def matches(draw: st.DrawFn) -> pools.TicketsMatched:
    players = tuple(draw(st.lists(st.builds(pools.MatchSeat, ids, ids, ids), min_size=1, max_size=4)))
    ais = draw(st.integers(0, max(pools.PLAYER_COUNTS) - len(players)))
    level = draw(st.sampled_from(lobby.AI_LEVELS)) if ais else None
    return pools.TicketsMatched(draw(ids), players, len(players) + ais, level, draw(ms))


POOL = {
    pools.TicketOpened: st.builds(pools.TicketOpened, TICKET),
    pools.TicketCancelled: st.builds(pools.TicketCancelled, ids, ms),
    pools.TicketsExpired: st.builds(pools.TicketsExpired, st.lists(ids).map(tuple), ms),
    pools.TicketsMatched: matches(),
    pools.GamesMade: st.builds(pools.GamesMade, st.lists(ids).map(tuple), ms),
}

CALENDAR = {
    calendars.CalendarSet: st.builds(
        calendars.CalendarSet, st.sampled_from(["UTC", "Europe/Paris", "America/New_York"]), st.booleans()
    ),
    calendars.VacationDeclared: st.builds(calendars.VacationDeclared, times, times),
    calendars.VacationTaken: st.builds(calendars.VacationTaken, times, times, ids),
    calendars.VacationEnded: st.builds(calendars.VacationEnded, times),
    calendars.VacationCancelled: st.builds(calendars.VacationCancelled, times),
}

#: Each aggregate's codec, a strategy for each of its events, and the way the service stores one and reads it back.
AGGREGATES: dict[str, tuple[Events[Any], dict[type, st.SearchStrategy[Any]], Callable[[Any], Any]]] = {
    "lobby": (
        lobby_events.STORED,
        LOBBY,
        lambda e: lobby.event_from_dict(decode(envelope(lobby.event_to_dict(e), at=AT, by=BY))),
    ),
    "challenge": (challenges.STORED, CHALLENGE, lambda e: challenges.from_envelope(challenges.envelope(e, at=AT, by=BY))[0]),
    "pool": (pools.pool.STORED, POOL, lambda e: pools.event_from_json(pools.event_to_json(e))),
    "calendar": (calendars.STORED, CALENDAR, lambda e: calendars.STORED.from_envelope(calendars.envelope(e, at=AT, by=BY))[0]),
}


@pytest.mark.parametrize("family", list(AGGREGATES))
def test_every_event_of_each_aggregate_has_a_strategy(family):
    stored, strategies, _ = AGGREGATES[family]
    assert {form.cls for form in stored.by_type.values()} == set(strategies)


@pytest.mark.parametrize(("family", "cls"), [(family, cls) for family, (_, each, _) in AGGREGATES.items() for cls in each])
@given(data=st.data())
def test_every_event_round_trips_through_the_one_codec_as_stored(family, cls, data):
    stored, strategies, through_the_store = AGGREGATES[family]
    event = data.draw(strategies[cls])
    assert stored.from_dict(stored.to_dict(event)) == event
    assert stored.from_json(stored.to_json(event)) == event  # through the bytes
    assert through_the_store(event) == event  # in its envelope, as the aggregate stores and reads it


@given(st.one_of(*LOBBY.values()))
def test_the_lobbys_own_functions_are_the_codec(event):
    assert lobby.event_from_dict(lobby.event_to_dict(event)) == event
    assert lobby.event_to_dict(event) == lobby_events.STORED.to_dict(event)


# --- forms stored before -------------------------------------------------------------------------------------


def _stored_lobby_events() -> list[dict[str, Any]]:
    """Every lobby event of the stored fixtures: a replay export and a whole store written by older code."""
    replay = json.loads((TESTS / "replays" / "fixtures" / "finished_game_v1.json").read_text())
    store = json.loads((TESTS / "service" / "storage" / "fixtures" / "store_before_cluster.json").read_text())
    envelopes = list(replay["events"])
    for key in store["keys"].values():
        if key["type"] == "stream":
            envelopes += [decode(fields["e"]) for _, fields in key["value"] if "e" in fields]
    return [data for data in envelopes if data["type"] in lobby.LOBBY_TYPES]


def test_every_lobby_event_stored_by_older_code_reads_and_is_written_back_member_for_member():
    found = _stored_lobby_events()
    assert {data["type"] for data in found} >= {"game_created", "seat_taken"}
    for data in found:
        members = {k: v for k, v in data.items() if k not in ("n", "at", "by", "v")}
        assert lobby.event_to_dict(lobby.event_from_dict(data)) == members


def test_a_game_created_of_the_first_release_or_of_an_import_reads_with_its_defaults():
    first = {  # an import may lack turn_timeout, timeout_action, deck, join_code (replays/shape.py); older games the options
        "type": "game_created",
        "created_by": "p_1",
        "seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}],
        "variant": "basic",
        "action_rules": False,
        "dealing": "random",
        "seed": 3,
    }
    event = lobby.event_from_dict(first)
    assert event == lobby.GameCreated(
        "p_1", (lobby.SeatSpec("human"), lobby.SeatSpec("ai", "greedy")), "basic", False, None, "fold", "random", 3, None, ""
    )


#: Payloads as the service has stored them since each aggregate's first release (their forms have not changed).
STORED_BEFORE = [
    (
        challenges.STORED,
        '{"type":"challenge_created","challenger":"p_a","challenger_name":"Ana","challenged":[{"player_id":"p_b",'
        '"name":"Bo"}],"terms":{"seats":[{"kind":"human","level":null},{"kind":"human","level":null}],"variant":'
        '"advanced","action_rules":false,"turn_timeout":null,"timeout_action":"fold","days_per_turn":3,"rated":true},'
        '"expires_at":"2026-11-27T12:00:00.000Z","at":"2026-11-26T12:00:00.000Z","by":"player:p_a","v":1}',
        challenges.ChallengeCreated(
            "p_a",
            "Ana",
            (challenges.Invitee("p_b", "Bo"),),
            challenges.Terms((lobby.SeatSpec("human"), lobby.SeatSpec("human")), "advanced", False, None, "fold", 3, True),
            "2026-11-27T12:00:00.000Z",
        ),
    ),
    (
        challenges.STORED,
        '{"type":"challenge_declined","player_id":"p_b","reason":"later","at":"2026-11-26T12:00:00.000Z","by":"player:p_b","v":1}',
        challenges.ChallengeDeclined("p_b", "later"),
    ),
    (
        pools.pool.STORED,
        '{"type":"ticket_opened","ticket":{"id":"mt_1","player_id":"p_a","name":"Ana","counts":[2,3],"rating":1000,'
        '"range":[100,100,500],"opened":1800000000000,"expires":1800003600000,"ai_fill_after":null,"ai_level":"greedy"}}',
        pools.TicketOpened(
            pools.Ticket("mt_1", "p_a", "Ana", (2, 3), 1000, pools.RatingRange(), 1800000000000, 1800003600000, None, "greedy")
        ),
    ),
    (
        pools.pool.STORED,
        '{"type":"tickets_matched","game_id":"g_1","players":[["mt_1","p_a","Ana"]],"seats":2,"ai_level":"expert","at":5}',
        pools.TicketsMatched("g_1", (pools.MatchSeat("mt_1", "p_a", "Ana"),), 2, "expert", 5),
    ),
    (
        calendars.STORED,
        '{"type":"vacation_taken","start":"2025-03-03T09:00:00.000Z","end":"2025-03-04T09:00:00.000Z","game_id":"g_1",'
        '"at":"2025-03-03T09:00:00.000Z","by":"player:p_a"}',
        calendars.VacationTaken("2025-03-03T09:00:00.000Z", "2025-03-04T09:00:00.000Z", "g_1"),
    ),
]


@pytest.mark.parametrize(("stored", "payload", "event"), STORED_BEFORE)
def test_payloads_stored_before_read_as_they_did_and_are_written_as_they_were(stored, payload, event):
    data = json.loads(payload)
    assert stored.from_dict(data) == event
    envelope_members = ("at", "by", "v") if stored is not pools.pool.STORED else ()  # a pool event is stored bare
    assert stored.to_dict(event) == {k: v for k, v in data.items() if k not in envelope_members}


# --- empty text, one rule -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "data"),
    [
        (lobby_events.STORED, {"type": "seat_taken", "seat": 1, "player_id": "", "name": "Bo"}),
        (lobby_events.STORED, {"type": "seat_taken", "seat": 1, "player_id": "p_b", "name": ""}),
        (lobby_events.STORED, {"type": "rematch_offered", "seat": 1, "rematch_id": ""}),
        (challenges.STORED, {"type": "challenge_accepted", "player_id": ""}),
        (pools.pool.STORED, {"type": "ticket_cancelled", "ticket_id": "", "at": 1}),
        (
            pools.pool.STORED,
            {"type": "tickets_matched", "game_id": "g", "players": [["t", "p", ""]], "seats": 1, "ai_level": None, "at": 1},
        ),
        (calendars.STORED, {"type": "vacation_taken", "start": AT, "end": AT, "game_id": ""}),
    ],
)
def test_an_empty_id_or_name_is_corrupt_history_in_every_aggregate(stored, data):
    with pytest.raises(CorruptHistory, match="not empty"):
        stored.from_dict(data)


def test_a_join_code_is_the_one_text_that_may_be_empty():
    created = lobby.event_from_dict(
        {
            "type": "game_created",
            "created_by": "p_1",
            "seats": [{"kind": "human", "level": None}, {"kind": "human", "level": None}],
            "variant": "advanced",
            "action_rules": False,
            "dealing": "random",
            "seed": 1,
            "join_code": "",
        }
    )
    assert isinstance(created, lobby.GameCreated) and created.join_code == ""


@pytest.mark.parametrize(
    ("stored", "data"),
    [
        (pools.pool.STORED, {"type": "ticket_cancelled", "ticket_id": 7, "at": 1}),  # once read as "7"
        (pools.pool.STORED, {"type": "games_made", "game_ids": "g_1", "at": 1}),  # once read as ("g", "_", "1")
        (pools.pool.STORED, {"type": "ticket_cancelled", "ticket_id": "t", "at": True}),
        (lobby_events.STORED, {"type": "seat_left", "seat": 1.0}),
        (challenges.STORED, {"type": "challenge_started"}),
    ],
)
def test_values_are_read_by_their_json_type_and_never_coerced(stored, data):
    with pytest.raises(CorruptHistory):
        stored.from_dict(data)
