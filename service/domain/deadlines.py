"""Deadlines: when a turn runs out, a pure function of when it began, its allowance and the mover's calendar.

Every part of the service that needs a deadline asks this module (the game's view: the deadline and the time left;
the ``turn_deadline`` job and the agenda; the reminders; a player's games by urgency), so that they never disagree.
Nothing here reads a clock or does I/O: the time asked about is an argument.  (The time zones are the IANA database
``zoneinfo`` reads, with the ``tzdata`` package as its fallback: data, like the cards.)

What counts:

- A **live** turn (``turn_timeout`` seconds) runs on the wall clock: its deadline is its start, plus its seconds,
  plus the seconds its opponents gave.  No calendar touches it.
- A **correspondence** turn (days per turn) has a budget of that many days of 24 hours, plus the seconds given, and
  its clock runs only while the mover is not *away*: on vacation (periods in UTC, declared ahead or taken at a
  deadline), or (if they chose it) on a weekend, from Saturday's first instant to Monday's first instant *in their
  time zone*.  A weekend is whole local days, so one across a daylight-saving change lasts 47 or 49 hours of real
  time, and a day that begins in a skipped hour begins where the skipped hour ends.
- The turn's deadline is the instant its clock has run for its whole budget; "``left`` seconds left" (a reminder)
  is the instant it has run for the budget less ``left``.  A clock that runs out just as a pause begins runs out as
  the pause ends: so a vacation taken at a deadline (:mod:`service.domain.calendars`) stretches it by the vacation's length.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAY = 24 * 3600
#: The reminders a correspondence turn sends its mover: when a fifth of its time is left, and one hour before the end.
REMINDERS: tuple[tuple[str, float | None, int | None], ...] = (
    ("turn_reminder", 0.2, None),
    ("last_hour_reminder", None, 3600),
)
#: Saturday and Sunday (``date.weekday()``).
WEEKEND = (5, 6)


@lru_cache(maxsize=1024)
def zone(name: str) -> ZoneInfo:
    """The IANA time zone of that name; :class:`ValueError` for a name that is none."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise ValueError(f"{name!r} is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)") from exc


def is_zone(name: str) -> bool:
    try:
        zone(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Period:
    """A stretch of time, ``[start, end)``, both aware."""

    start: datetime
    end: datetime

    def holds(self, at: datetime) -> bool:
        return self.start <= at < self.end


@dataclass(frozen=True, slots=True)
class Calendar:
    """What of the mover's time counts: their time zone, whether weekends count, when they are on vacation."""

    zone: str = "UTC"
    weekends_off: bool = False
    vacations: tuple[Period, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn's clock: when it began, its allowance (``seconds``; ``correspondence``: days per turn, in seconds),
    the seconds the opponents gave, and the mover's calendar (read only for a correspondence turn)."""

    started: datetime
    seconds: int
    correspondence: bool = False
    given: int = 0
    calendar: Calendar = Calendar()

    @property
    def budget(self) -> int:
        """Seconds of running clock the turn may take."""
        return self.seconds + self.given


def day_start(day: date, name: str) -> datetime:
    """The first instant (UTC) whose date in the zone ``name`` is ``day`` (or later: a day skipped whole begins with
    the next one).  Where midnight falls in a skipped hour, the day begins as the skipped hour ends."""
    tz = zone(name)
    first, second = (datetime.combine(day, time(), tzinfo=tz).replace(fold=f).astimezone(UTC) for f in (0, 1))
    low, high = min(first, second), max(first, second)
    if _local_date(low, tz) >= day:
        return low  # midnight exists (the earlier of the two, if it came twice)
    while high - low > timedelta(seconds=1):  # midnight was skipped: the first instant of the day is between
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if _local_date(middle, tz) >= day:
            high = middle
        else:
            low = middle
    return high


def _local_date(at: datetime, tz: ZoneInfo) -> date:
    return at.astimezone(tz).date()


def weekends(calendar: Calendar, since: datetime) -> Iterator[Period]:
    """The mover's weekends that end after ``since``, in order, for ever."""
    tz = zone(calendar.zone)
    local = _local_date(since, tz)
    saturday = local - timedelta(days=(local.weekday() - 5) % 7)  # this week's Saturday, on or before today
    while True:
        period = Period(day_start(saturday, calendar.zone), day_start(saturday + timedelta(days=2), calendar.zone))
        if period.end > since:
            yield period
        saturday += timedelta(days=7)


def pauses(turn: Turn) -> Iterator[Period]:
    """When the turn's clock stands still, after its start, as disjoint periods in order (none for a live turn)."""
    if not turn.correspondence:
        return
    vacations = sorted((p for p in turn.calendar.vacations if p.end > turn.started and p.end > p.start), key=lambda p: p.start)
    sources: list[Iterable[Period]] = [vacations]
    if turn.calendar.weekends_off:
        sources.append(weekends(turn.calendar, turn.started))
    current: Period | None = None
    for period in heapq.merge(*sources, key=lambda p: p.start):
        start = max(period.start, turn.started)
        if current is not None and start <= current.end:
            current = Period(current.start, max(current.end, period.end))
            continue
        if current is not None:
            yield current
        current = Period(start, period.end)
    if current is not None:
        yield current


def run_until(turn: Turn, seconds: float) -> datetime:
    """The instant the turn's clock has run ``seconds`` (at most its budget: never past the deadline)."""
    remaining = timedelta(seconds=max(0.0, min(float(seconds), float(turn.budget))))
    cursor = turn.started
    for pause in pauses(turn):
        if pause.start > cursor:
            running = pause.start - cursor
            if running > remaining:
                return cursor + remaining
            remaining -= running
        cursor = max(cursor, pause.end)
    return cursor + remaining


def deadline(turn: Turn) -> datetime:
    """When the turn runs out."""
    return run_until(turn, turn.budget)


def at_left(turn: Turn, left: float) -> datetime:
    """The instant the turn has ``left`` seconds of running clock left."""
    return run_until(turn, turn.budget - left)


def ran(turn: Turn, until: datetime) -> float:
    """Seconds the turn's clock has run from its start to ``until``."""
    if until <= turn.started:
        return 0.0
    total = (until - turn.started).total_seconds()
    for pause in pauses(turn):
        if pause.start >= until:
            break
        total -= (min(pause.end, until) - pause.start).total_seconds()
    return total


def left(turn: Turn, now: datetime) -> float:
    """Seconds of running clock the turn has left at ``now`` (0 once it ran out)."""
    return max(0.0, turn.budget - ran(turn, now))


def paused(turn: Turn, now: datetime) -> Period | None:
    """The pause the turn's clock is in at ``now`` (a weekend or a vacation), if it is in one."""
    for pause in pauses(turn):
        if pause.start > now:
            return None
        if pause.holds(now):
            return pause
    return None


def reminders(turn: Turn) -> list[tuple[str, datetime]]:
    """When a correspondence turn reminds its mover (:data:`REMINDERS`), earliest first; a live turn never does."""
    if not turn.correspondence:
        return []
    found = []
    for kind, share, seconds in REMINDERS:
        amount = turn.budget * share if share is not None else float(seconds or 0)
        if 0 < amount < turn.budget:
            found.append((kind, at_left(turn, amount)))
    return sorted(found, key=lambda item: item[1])


def on_vacation(calendar: Calendar, now: datetime) -> Period | None:
    """The vacation the player is on at ``now`` (periods that touch merged: "on vacation until" their end)."""
    ordered = sorted(calendar.vacations, key=lambda p: p.start)
    found: Period | None = None
    for period in ordered:
        if found is None:
            if period.holds(now):
                found = period
        elif period.start <= found.end:
            found = Period(found.start, max(found.end, period.end))
    return found


def capped(calendar: Calendar, since: datetime, seconds: int) -> Calendar:
    """The calendar with only its first ``seconds`` of vacation from ``since`` on: what a tournament round honours
    (``vacation_days_per_round``, from the round's start).  A vacation that crosses the cap counts up to it, as if it
    ended there; those before ``since`` count from it; weekends are no vacation and stay as they are."""
    kept: list[Period] = []
    room = timedelta(seconds=max(0, seconds))
    for period in sorted(calendar.vacations, key=lambda p: p.start):
        start = max(period.start, since)
        if period.end <= start or room <= timedelta(0):
            continue
        end = min(period.end, start + room)
        kept.append(Period(start, end))
        room -= end - start
    return Calendar(calendar.zone, calendar.weekends_off, tuple(kept))


def honoured_until(calendar: Calendar, since: datetime, seconds: int, at: datetime) -> datetime | None:
    """Until when the vacation a ``seconds`` cap from ``since`` honours runs at ``at`` (periods that touch, taken
    together), or ``None``: what a capped game (a tournament round's) shows of a player's vacation, which is not
    the whole vacation declared when the cap ends it sooner, and nothing once the cap is used (or is 0)."""
    kept = sorted(capped(calendar, since, seconds).vacations, key=lambda p: p.start)
    current = next((p for p in kept if p.holds(at)), None)
    if current is None:
        return None
    end = current.end
    for period in kept:
        if period.start <= end < period.end:
            end = period.end
    return end


def vacation_room(calendar: Calendar, since: datetime, seconds: int, at: datetime) -> float:
    """Seconds of a ``seconds`` cap from ``since`` left at ``at``: the vacation a round may still honour then."""
    used = sum((min(p.end, at) - p.start).total_seconds() for p in capped(calendar, since, seconds).vacations if p.start < at)
    return max(0.0, seconds - used)
