"""A tournament's events through the one codec (service/domain/codec.py): every event comes back equal from its
stored form, and every value no decision of ours writes is corrupt history, named."""

from __future__ import annotations

from datetime import UTC

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CorruptHistory
from service.domain.tournaments import (
    STORED,
    Deal,
    GameFinished,
    GroupsDrawn,
    Outcome,
    PlayerEntered,
    PlayerWithdrew,
    RoundClosed,
    RoundStarted,
    Settings,
    Table,
    TimeoutRecorded,
    TournamentCreated,
    TournamentFinished,
    envelope,
    event_to_dict,
    from_envelope,
)
from service.domain.tournaments.events import FINISH_REASONS, WITHDRAWAL_REASONS
from service.domain.tournaments.settings import format_time, settings_problem

AT = "2026-11-28T12:00:00.000Z"
ids = st.text(min_size=1, max_size=10)
times = st.datetimes(timezones=st.just(UTC)).map(format_time)


@st.composite
def standings(draw: st.DrawFn, seats: int | None = None) -> tuple[int, ...]:
    n = seats or draw(st.integers(2, 4))
    keys = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


@st.composite
def settings(draw: st.DrawFn) -> Settings:
    size = draw(st.sampled_from([2, 3, 4]))
    live = draw(st.booleans())
    made = Settings(
        format="swiss",
        table_size=size,
        rounds=draw(st.integers(2, 30)),
        entries_open="2026-06-01T00:00:00.000Z",
        entries_close="2026-06-08T00:00:00.000Z",
        min_players=size,
        max_players=draw(st.integers(size, 10_000)),
        odd_rule=draw(st.sampled_from(["ai_seat", "bye"])),
        time_control="live" if live else "correspondence",
        turn_timeout=60 if live else None,
        days_per_turn=None if live else 3,
        round_days=None if live else draw(st.none() | st.integers(1, 30)),
        rated=draw(st.booleans()),
        duplicate=draw(st.booleans()),
        seat_rotation=draw(st.sampled_from(["none", "by_table", "by_round"])),
        timeouts_to_withdraw=draw(st.integers(1, 10)),
        late_entry_rounds=1,
    )
    assert settings_problem(made) is None
    return made


@st.composite
def tables(draw: st.DrawFn) -> Table:
    seats = draw(st.lists(st.none() | ids, min_size=2, max_size=4, unique_by=lambda x: x or object()))
    if all(seat is None for seat in seats):
        seats[0] = "p_1"
    return Table(draw(ids), tuple(seats))


OUTCOMES = st.lists(st.builds(Outcome, ids, standings()), max_size=4).map(tuple)
EVENTS = {
    TournamentCreated: st.builds(TournamentCreated, ids, ids, settings()),
    PlayerEntered: st.builds(PlayerEntered, ids, ids, st.integers(-5000, 5000), st.integers(1, 30)),
    PlayerWithdrew: st.builds(PlayerWithdrew, ids, st.sampled_from(WITHDRAWAL_REASONS)),
    TimeoutRecorded: st.builds(TimeoutRecorded, ids, ids, st.integers(0, 10**6)),
    GroupsDrawn: st.builds(
        GroupsDrawn, st.lists(st.lists(st.none() | ids, min_size=2, max_size=16).map(tuple), min_size=1).map(tuple)
    ),
    RoundStarted: st.builds(
        RoundStarted,
        st.integers(1, 30),
        st.lists(tables(), max_size=5).map(tuple),
        st.lists(ids, max_size=3).map(tuple),
        st.lists(st.builds(Deal, st.integers(2, 4), st.integers(0, 2**64 - 1)), max_size=3).map(tuple),
        st.none() | times,
    ),
    GameFinished: st.builds(GameFinished, ids, standings()),
    RoundClosed: st.builds(
        RoundClosed, st.integers(1, 30), st.lists(st.builds(Outcome, ids, standings()), max_size=4).map(tuple)
    ),
    TournamentFinished: st.builds(TournamentFinished, st.sampled_from(FINISH_REASONS)),
}


def test_every_event_has_a_strategy():
    assert {form.cls for form in STORED.by_type.values()} == set(EVENTS)


@pytest.mark.parametrize("cls", list(EVENTS))
@given(data=st.data())
def test_every_event_round_trips_through_its_envelope(cls, data):
    event = data.draw(EVENTS[cls])
    assert from_envelope(envelope(event, at=AT, by="test")) == (event, AT)
    assert STORED.from_json(STORED.to_json(event)) == event


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "tournament_entered", "player_id": "p", "name": "P", "rating": 1500.0, "from_round": 1},
        {"type": "tournament_entered", "player_id": "p", "name": "P", "rating": 1500, "from_round": 0},
        {"type": "tournament_game_finished", "game_id": "g", "places": [2, 1, 1]},
        {"type": "round_closed", "number": 1, "settled": [{"game_id": "g", "places": [1, 1, 3, 5]}]},
        {
            "type": "round_started",
            "number": 1,
            "tables": [{"game_id": "g", "seats": [None, None]}],
            "byes": [],
            "deals": [],
            "deadline": None,
        },
        {"type": "round_started", "number": 1, "tables": [], "byes": [], "deals": [[2]], "deadline": None},
        {"type": "tournament_withdrawn", "player_id": "p", "reason": "bored"},
        {"type": "tournament_started"},
    ],
)
def test_what_no_decision_writes_is_corrupt_history(bad):
    with pytest.raises(CorruptHistory):
        STORED.from_dict(bad)


def test_settings_no_organiser_could_choose_are_corrupt_history():
    stored = event_to_dict(TournamentCreated("p", "Cup", Settings("swiss", 3, 5, AT, AT, 3, 64)))
    with pytest.raises(CorruptHistory, match="entries open before they close"):
        STORED.from_dict(stored)
