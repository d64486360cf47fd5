"""Deadlines (service/domain/deadlines.py) and vacations (service/domain/calendars.py): pure, so properties over every time zone.

Time zones, weekends, daylight-saving changes, vacations taken ahead and automatically, time given: the deadline is
the instant the turn's clock has run its whole budget, and its clock runs exactly when the mover is not away.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.common.errors import Refused
from service.domain import calendars
from service.domain.deadlines import (
    DAY,
    Calendar,
    Period,
    Turn,
    at_left,
    day_start,
    deadline,
    honoured_until,
    left,
    paused,
    pauses,
    ran,
    reminders,
)

ZONES = sorted(z for z in available_timezones() if "/" in z or z == "UTC")
instants = st.datetimes(datetime(2001, 1, 1), datetime(2036, 12, 31), timezones=st.just(UTC))
zones = st.sampled_from(ZONES)
days = st.sampled_from((1, 2, 3, 5, 7, 10, 14))
gifts = st.integers(0, 14 * DAY)


@st.composite
def vacations(draw: st.DrawFn, near: datetime, count: int = 3) -> tuple[Period, ...]:
    found: list[Period] = []
    for _ in range(draw(st.integers(0, count))):
        start = near + timedelta(seconds=draw(st.integers(-3 * DAY, 30 * DAY)))
        found.append(Period(start, start + timedelta(seconds=draw(st.integers(3600, 12 * DAY)))))
    return tuple(found)


@st.composite
def turns(draw: st.DrawFn, weekends: bool | None = None, with_vacations: bool = True) -> Turn:
    started = draw(instants)
    calendar = Calendar(
        draw(zones),
        draw(st.booleans()) if weekends is None else weekends,
        draw(vacations(started)) if with_vacations else (),
    )
    return Turn(started, draw(days) * DAY, True, draw(gifts), calendar)


CLOSE = 1e-3  # seconds: the clock's arithmetic is in microseconds


@settings(max_examples=300, deadline=None)
@given(turns())
def test_the_deadline_is_when_the_clock_has_run_the_whole_budget(turn: Turn) -> None:
    end = deadline(turn)
    assert abs(ran(turn, end) - turn.budget) < CLOSE
    assert left(turn, end) < CLOSE
    assert end >= turn.started + timedelta(seconds=turn.budget)  # pauses only ever push it later
    for pause in pauses(turn):  # it never falls inside a pause (at most as one begins)
        if pause.start > end:
            break
        assert not pause.start < end < pause.end


@settings(max_examples=200, deadline=None)
@given(turns(), st.floats(0, 1))
def test_the_clock_runs_exactly_outside_the_pauses(turn: Turn, share: float) -> None:
    end = deadline(turn)
    now = turn.started + (end - turn.started) * share
    stopped = paused(turn, now)
    later = now + timedelta(seconds=60)
    if stopped is not None and later <= stopped.end:
        assert abs(ran(turn, later) - ran(turn, now)) < CLOSE
    assert abs(left(turn, now) + ran(turn, now) - turn.budget) < CLOSE


@settings(max_examples=200, deadline=None)
@given(turns(weekends=True, with_vacations=False), st.floats(0, 1))
def test_weekends_off_pause_saturday_and_sunday_in_the_players_zone(turn: Turn, share: float) -> None:
    now = turn.started + (deadline(turn) - turn.started) * share
    weekday = now.astimezone(ZoneInfo(turn.calendar.zone)).weekday()
    assert (paused(turn, now) is not None) == (weekday in (5, 6))


@settings(max_examples=200, deadline=None)
@given(zones, st.dates(date(2001, 1, 1), date(2036, 12, 31)))
def test_a_day_begins_at_its_first_instant_in_the_zone(name: str, day: date) -> None:
    start = day_start(day, name)
    tz = ZoneInfo(name)
    assert start.astimezone(tz).date() >= day
    assert (start - timedelta(seconds=1)).astimezone(tz).date() < day


@pytest.mark.parametrize(
    ("name", "saturday", "hours"),
    [
        ("Europe/Paris", date(2024, 10, 26), 49),  # summer time ends on the Sunday: an hour comes twice
        ("Europe/Paris", date(2024, 3, 30), 47),  # summer time begins on the Sunday: an hour is skipped
        ("America/New_York", date(2024, 3, 9), 47),
        ("Australia/Sydney", date(2024, 4, 6), 49),
        ("UTC", date(2024, 3, 30), 48),
    ],
)
def test_a_weekend_across_a_daylight_saving_change_is_two_local_days(name: str, saturday: date, hours: int) -> None:
    friday_noon = day_start(saturday, name) - timedelta(hours=12)
    turn = Turn(friday_noon, DAY, True, 0, Calendar(name, True))
    weekend = next(pauses(turn))
    assert (weekend.end - weekend.start) == timedelta(hours=hours)
    assert deadline(turn) == weekend.end + timedelta(hours=12)  # half a day before it, half a day after


def test_a_day_whose_midnight_is_skipped_begins_when_the_skipped_hour_ends() -> None:
    start = day_start(date(2024, 9, 8), "America/Santiago")  # clocks go from 00:00 to 01:00
    assert start.astimezone(ZoneInfo("America/Santiago")).hour == 1
    assert start == datetime(2024, 9, 8, 4, 0, tzinfo=UTC)


@settings(max_examples=200, deadline=None)
@given(instants, days, st.integers(0, 20 * DAY), st.integers(3600, 10 * DAY), gifts, zones)
def test_a_vacation_within_the_turn_moves_the_deadline_by_its_length(
    started: datetime, per_turn: int, offset: int, length: int, gift: int, name: str
) -> None:
    budget = per_turn * DAY + gift
    assume(offset < budget)
    vacation = Period(started + timedelta(seconds=offset), started + timedelta(seconds=offset + length))
    turn = Turn(started, per_turn * DAY, True, gift, Calendar(name, False, (vacation,)))
    assert deadline(turn) == started + timedelta(seconds=budget + length)


@settings(max_examples=200, deadline=None)
@given(turns(), st.integers(1, 14 * DAY))
def test_time_given_is_running_clock_added(turn: Turn, more: int) -> None:
    richer = Turn(turn.started, turn.seconds, True, turn.given + more, turn.calendar)
    assert deadline(richer) >= deadline(turn)
    assert abs(ran(richer, deadline(richer)) - ran(turn, deadline(turn)) - more) < CLOSE
    if not turn.calendar.weekends_off and not turn.calendar.vacations:
        assert deadline(richer) - deadline(turn) == timedelta(seconds=more)


@settings(max_examples=100, deadline=None)
@given(instants, st.integers(1, 60 * DAY), gifts, zones, st.booleans())
def test_a_live_turn_keeps_no_calendar(started: datetime, seconds: int, gift: int, name: str, weekends: bool) -> None:
    away = (Period(started, started + timedelta(days=3)),)
    turn = Turn(started, seconds, False, gift, Calendar(name, weekends, away))
    assert deadline(turn) == started + timedelta(seconds=seconds + gift)
    assert reminders(turn) == []


@settings(max_examples=200, deadline=None)
@given(turns())
def test_reminders_come_at_a_fifth_left_and_an_hour_left(turn: Turn) -> None:
    found = dict(reminders(turn))
    assert abs(left(turn, found["turn_reminder"]) - turn.budget * 0.2) < CLOSE
    assert abs(left(turn, found["last_hour_reminder"]) - 3600) < CLOSE
    assert turn.started < found["turn_reminder"] <= deadline(turn)
    assert at_left(turn, 0) == deadline(turn)


# --- vacations: declared ahead, taken automatically, within the year's allowance -----------------------------


NOW = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # a Monday


def _folded(events: list[calendars.CalendarEvent], at: datetime = NOW) -> calendars.PlayerCalendar:
    calendar = calendars.PlayerCalendar("p_1")
    for number, event in enumerate(events, 1):
        calendars.apply(calendar, number, event, calendars.format_time(at))
    return calendar


@settings(max_examples=200, deadline=None)
@given(days, st.integers(0, 240), st.integers(1, 300), zones)
def test_automatic_vacations_stretch_a_deadline_by_what_is_left_and_no_more(
    per_turn: int, used: int, allowance: int, name: str
) -> None:
    """At each deadline a day of vacation (or what is left) is taken, until the year's allowance is spent: the turn
    then ends exactly that many hours after its first deadline."""
    calendar = _folded([calendars.CalendarSet(name, False)], NOW - timedelta(days=1))
    if used:
        start = NOW - timedelta(days=40)
        assume(calendar.year_of(start) == calendar.year_of(NOW))
        calendars.apply(
            calendar,
            2,
            calendars.VacationDeclared(calendars.format_time(start), calendars.format_time(start + timedelta(hours=used))),
            calendars.format_time(start),
        )
    before = calendar.hours_left(NOW, allowance)
    first = deadline(Turn(NOW, per_turn * DAY, True, 0, calendar.calendar_for(NOW)))
    year = calendar.year_of(NOW)
    assume(calendar.year_of(first) == year and calendar.year_of(first + timedelta(days=13)) == year)
    now, number = first, 10
    for _ in range(30):
        turn = Turn(NOW, per_turn * DAY, True, 0, calendar.calendar_for(NOW))
        end = deadline(turn)
        assert end >= now
        taken = calendars.take(calendar, end, "g_1", allowance)
        if not taken:
            break
        calendars.apply(calendar, number, taken[0], calendars.format_time(end))
        number, now = number + 1, end
    final = deadline(Turn(NOW, per_turn * DAY, True, 0, calendar.calendar_for(NOW)))
    assert final - first == timedelta(hours=before)
    assert calendar.hours_left(NOW, allowance) == 0


def test_a_declared_vacation_counts_against_its_year_in_hours_begun() -> None:
    calendar = _folded([calendars.CalendarSet("Pacific/Auckland", True)])
    start = datetime(2025, 12, 31, 11, 30, tzinfo=UTC)  # 00:30 on 1 January 2026 in Auckland (UTC+13)
    events = calendars.declare(calendar, start, start + timedelta(hours=5, minutes=1), NOW, 240)
    calendars.apply(calendar, 2, events[0], calendars.format_time(NOW))
    assert calendar.hours_used(2026) == 6 and calendar.hours_used(2025) == 0
    with pytest.raises(Refused) as refused:
        calendars.declare(calendar, start + timedelta(days=2), start + timedelta(days=12), NOW, 240)
    assert refused.value.code == "vacation_limit_reached" and refused.value.facts["left"] == 234
    with pytest.raises(Refused) as overlapping:
        calendars.declare(calendar, start + timedelta(hours=1), start + timedelta(days=1), NOW, 240)
    assert overlapping.value.code == "vacation_overlaps"


def test_coming_back_ends_an_automatic_vacation_and_counts_the_hours_it_ran() -> None:
    calendar = _folded([])
    taken = calendars.take(calendar, NOW, "g_1", 240)
    assert taken == [calendars.VacationTaken(calendars.format_time(NOW), calendars.format_time(NOW + timedelta(days=1)), "g_1")]
    calendars.apply(calendar, 1, taken[0], calendars.format_time(NOW))
    back = NOW + timedelta(hours=2, minutes=10)
    assert calendar.away_until(back) == NOW + timedelta(days=1)
    events = calendars.come_back(calendar, back, automatic_only=True)
    calendars.apply(calendar, 2, events[0], calendars.format_time(back))
    assert calendar.away_until(back) is None and calendar.hours_used(2025) == 3
    assert calendars.take(calendar, NOW + timedelta(hours=1), "g_1", 240) == []  # on vacation then: the deadline had not passed


def test_turning_weekends_off_counts_from_the_next_turn() -> None:
    saturday = datetime(2025, 3, 8, 12, tzinfo=UTC)
    calendar = _folded([calendars.CalendarSet("UTC", True)], saturday)
    assert calendar.calendar_for(saturday - timedelta(hours=1)).weekends_off is False
    assert calendar.calendar_for(saturday + timedelta(hours=1)).weekends_off is True


def test_a_stored_calendar_is_checked_field_by_field() -> None:
    with pytest.raises(Exception, match="not a time zone"):
        calendars.event_from_dict({"type": "calendar_set", "zone": "Mars/Olympus", "weekends_off": False})
    with pytest.raises(Exception, match="not a time"):
        calendars.event_from_dict({"type": "vacation_ended", "ended": "soon"})
    event = calendars.VacationTaken("2025-03-03T09:00:00.000Z", "2025-03-04T09:00:00.000Z", "g_1")
    assert calendars.event_from_dict(calendars.event_to_dict(event)) == event


def test_honoured_until_is_the_vacation_a_cap_keeps_running_now():
    """What a capped game shows of a vacation: the cap's end when it ends the vacation sooner, vacations that touch
    taken together within the cap, and nothing before the vacation, once the cap is used, or under a cap of 0."""
    day = timedelta(days=1)
    since = NOW
    cal = Calendar(vacations=(Period(NOW + day, NOW + 2 * day), Period(NOW + 2 * day, NOW + 6 * day)))
    assert honoured_until(cal, since, int(3 * day.total_seconds()), NOW) is None, "not on vacation yet"
    assert honoured_until(cal, since, int(3 * day.total_seconds()), NOW + 1.5 * day) == NOW + 4 * day
    assert honoured_until(cal, since, int(3 * day.total_seconds()), NOW + 4 * day) is None, "the cap is used"
    assert honoured_until(cal, since, int(10 * day.total_seconds()), NOW + 3 * day) == NOW + 6 * day, "all of it"
    assert honoured_until(cal, since, 0, NOW + 1.5 * day) is None
    late = NOW + 1.5 * day  # a round that began during the vacation counts the cap from its own start
    assert honoured_until(cal, late, int(day.total_seconds()), late + timedelta(hours=1)) == late + day
