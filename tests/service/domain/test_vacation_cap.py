"""A tournament round's cap on vacation (service/domain/deadlines.py's ``capped`` and ``vacation_room``): properties
over random vacations.  The capped calendar keeps at most the cap's seconds, all after the round's start, each kept
period inside a vacation; the clock of a turn under it never stops for longer than the cap; the room left at an
instant is the cap less what was honoured before it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.domain.deadlines import DAY, Calendar, Period, Turn, capped, deadline, vacation_room

BASE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@st.composite
def calendars(draw: st.DrawFn) -> Calendar:
    """Disjoint vacations within three weeks of ``BASE``, some before it."""
    cuts = sorted(draw(st.sets(st.integers(-5 * DAY, 20 * DAY), max_size=8)))
    periods = [
        Period(BASE + timedelta(seconds=a), BASE + timedelta(seconds=b)) for a, b in zip(cuts[::2], cuts[1::2], strict=False)
    ]
    return Calendar(vacations=tuple(p for p in periods if p.end > p.start))


def length(periods) -> float:
    return sum((p.end - p.start).total_seconds() for p in periods)


@given(calendars(), st.integers(0, 10 * DAY))
def test_the_capped_calendar_keeps_at_most_the_cap_after_the_start(calendar, cap):
    kept = capped(calendar, BASE, cap).vacations
    assert length(kept) <= cap
    assert all(p.start >= BASE and any(v.start <= p.start and p.end <= v.end for v in calendar.vacations) for p in kept)
    after = length(Period(max(v.start, BASE), v.end) for v in calendar.vacations if v.end > BASE)
    assert length(kept) == min(cap, after), "the whole cap is honoured when there is that much vacation"
    assert capped(Calendar(vacations=kept), BASE, cap).vacations == kept, "capping twice changes nothing"


@given(calendars(), st.integers(0, 10 * DAY), st.integers(1, 3))
def test_a_turn_stops_for_the_cap_at_most(calendar, cap, days):
    turn = Turn(BASE, days * DAY, correspondence=True, calendar=capped(calendar, BASE, cap))
    plain = Turn(BASE, days * DAY, correspondence=True, calendar=calendar)
    assert timedelta(days=days) <= deadline(turn) - BASE <= timedelta(days=days, seconds=cap)
    assert deadline(turn) <= deadline(plain)


@given(calendars(), st.integers(0, 10 * DAY), st.integers(0, 25 * DAY))
def test_the_room_left_is_the_cap_less_what_was_honoured(calendar, cap, offset):
    at = BASE + timedelta(seconds=offset)
    honoured = sum((min(p.end, at) - p.start).total_seconds() for p in capped(calendar, BASE, cap).vacations if p.start < at)
    assert vacation_room(calendar, BASE, cap, at) == cap - honoured
    assert vacation_room(calendar, BASE, 0, at) == 0
