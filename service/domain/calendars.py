"""A player's calendar: their time zone, whether weekends count, and their vacations; an aggregate of its own.

What of a player's time counts on their correspondence clocks (:mod:`service.domain.deadlines`) is event-sourced, one stream per
player (``calendar:{<player id>}``, on the player's slot), decided and folded here, pure (the time a decision is made at
is an argument).  The events (``type`` and fields, as stored; times in UTC, ``...Z``):

- ``calendar_set``: ``zone`` (an IANA name) and ``weekends_off``; in force for the turns that begin after it, so that
  nobody stretches a turn already running by turning weekends off on a Saturday;
- ``vacation_declared``: ``start``, ``end``: an absence declared ahead (or from now);
- ``vacation_taken``: ``start``, ``end``, ``game_id``: taken automatically when a correspondence deadline of that game
  passed while the player had vacation left (a day, or what is left of the year's allowance if less);
- ``vacation_ended``: ``ended``: the vacation running then ends then (the player is back: they said so, or, for one taken
  automatically, they moved);
- ``vacation_cancelled``: ``start``: the vacation declared to begin then will not.

**The allowance** is in hours a year (``RED7_VACATION_HOURS_PER_YEAR``, 240: ten days), a *year* being the calendar
year in the player's time zone (their zone when the vacation begins): a vacation counts whole, in hours begun,
against the year it begins in.  A vacation cut short counts the hours it ran.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from engine import CorruptHistory
from service.common.errors import Refused
from service.domain.codec import Events, Flag, Members, Text, Time
from service.domain.deadlines import Calendar, Period, is_zone, zone

#: How far ahead a vacation may be declared, and the longest one (days).
MAX_AHEAD_DAYS = 366
#: An automatic vacation, taken at a deadline, lasts this long (hours), or what is left of the allowance if less.
AUTOMATIC_HOURS = 24


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(at: datetime) -> str:
    """In UTC, as the service writes times (whatever zone ``at`` is given in: a request may say ``+01:00``)."""
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CalendarSet:
    type: ClassVar[str] = "calendar_set"
    zone: str
    weekends_off: bool


@dataclass(frozen=True, slots=True)
class VacationDeclared:
    type: ClassVar[str] = "vacation_declared"
    start: str
    end: str


@dataclass(frozen=True, slots=True)
class VacationTaken:
    type: ClassVar[str] = "vacation_taken"
    start: str
    end: str
    game_id: str


@dataclass(frozen=True, slots=True)
class VacationEnded:
    type: ClassVar[str] = "vacation_ended"
    ended: str


@dataclass(frozen=True, slots=True)
class VacationCancelled:
    type: ClassVar[str] = "vacation_cancelled"
    start: str


CalendarEvent = CalendarSet | VacationDeclared | VacationTaken | VacationEnded | VacationCancelled


def _zone_problem(event: CalendarSet) -> str | None:
    return None if is_zone(event.zone) else f"{event.zone!r} is not a time zone"


#: How each calendar event is stored (:mod:`service.domain.codec`).
STORED: Events[CalendarEvent] = Events(
    "calendar",
    [
        Members(CalendarSet, {"zone": Text(), "weekends_off": Flag()}, check=_zone_problem),
        Members(VacationDeclared, {"start": Time(), "end": Time()}),
        Members(VacationTaken, {"start": Time(), "end": Time(), "game_id": Text()}),
        Members(VacationEnded, {"ended": Time()}),
        Members(VacationCancelled, {"start": Time()}),
    ],
)


def event_to_dict(event: CalendarEvent) -> dict[str, Any]:
    return STORED.to_dict(event)


def event_from_dict(data: dict[str, Any]) -> CalendarEvent:
    """A stored event, checked member by member."""
    return STORED.from_dict(data)


# --- the aggregate ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Vacation:
    start: datetime
    end: datetime
    automatic: bool = False
    game_id: str | None = None

    @property
    def period(self) -> Period:
        return Period(self.start, self.end)

    @property
    def hours(self) -> int:
        """Hours begun: what it counts against the allowance."""
        return max(0, math.ceil((self.end - self.start).total_seconds() / 3600))


@dataclass
class PlayerCalendar:
    player_id: str
    #: ``(since, zone, weekends_off)``, oldest first; before the first, UTC and weekends count.
    settings: list[tuple[datetime, str, bool]] = field(default_factory=list)
    vacations: list[Vacation] = field(default_factory=list)
    version: int = 0
    head: str = ""

    @property
    def zone(self) -> str:
        return self.settings[-1][1] if self.settings else "UTC"

    @property
    def weekends_off(self) -> bool:
        return self.settings[-1][2] if self.settings else False

    def settings_at(self, at: datetime) -> tuple[str, bool]:
        """The zone and weekends setting in force at ``at``."""
        found = ("UTC", False)
        for since, name, off in self.settings:
            if since > at:
                break
            found = (name, off)
        return found

    def calendar_for(self, turn_started: datetime) -> Calendar:
        """What counts on a turn that began at ``turn_started``: the settings in force then, every vacation."""
        name, off = self.settings_at(turn_started)
        return Calendar(name, off, tuple(v.period for v in self.vacations))

    def year_of(self, at: datetime) -> int:
        return at.astimezone(zone(self.settings_at(at)[0])).year

    def hours_used(self, year: int, *, leaving_out: Vacation | None = None) -> int:
        return sum(v.hours for v in self.vacations if v is not leaving_out and self.year_of(v.start) == year)

    def hours_left(self, at: datetime, allowance: int) -> int:
        """Hours of vacation left in the year ``at`` is in."""
        return max(0, allowance - self.hours_used(self.year_of(at)))

    def running(self, at: datetime) -> Vacation | None:
        return next((v for v in self.vacations if v.start <= at < v.end), None)

    def ahead(self, at: datetime) -> list[Vacation]:
        """The vacations running at ``at`` or yet to come, in order."""
        return sorted((v for v in self.vacations if v.end > at), key=lambda v: v.start)

    def away_until(self, at: datetime) -> datetime | None:
        """Until when the player is on vacation at ``at`` (vacations that touch, taken together), or ``None``."""
        current = self.running(at)
        if current is None:
            return None
        end = current.end
        for vacation in sorted(self.vacations, key=lambda v: v.start):
            if vacation.start <= end < vacation.end:
                end = vacation.end
        return end

    def copy(self) -> PlayerCalendar:
        return replace(self, settings=list(self.settings), vacations=list(self.vacations))


def apply(calendar: PlayerCalendar, number: int, event: CalendarEvent, at: str) -> None:
    """Fold one event, appended at ``at`` as event ``number``."""
    when = parse_time(at)
    if isinstance(event, CalendarSet):
        calendar.settings.append((when, event.zone, event.weekends_off))
    elif isinstance(event, VacationDeclared | VacationTaken):
        start, end = parse_time(event.start), parse_time(event.end)
        if end <= start or any(v.start < end and start < v.end for v in calendar.vacations):
            raise CorruptHistory(f"{event.type}: {event.start}..{event.end} is empty or overlaps another vacation")
        game_id = event.game_id if isinstance(event, VacationTaken) else None
        calendar.vacations.append(Vacation(start, end, isinstance(event, VacationTaken), game_id))
    elif isinstance(event, VacationEnded):
        end = parse_time(event.ended)
        running = calendar.running(end)
        if running is None:
            raise CorruptHistory(f"vacation_ended: no vacation runs at {event.ended}")
        index = calendar.vacations.index(running)
        if end > running.start:
            calendar.vacations[index] = replace(running, end=end)
        else:
            del calendar.vacations[index]  # ended as it began: it never ran
    else:
        start = parse_time(event.start)
        found = next((v for v in calendar.vacations if v.start == start), None)
        if found is None:
            raise CorruptHistory(f"vacation_cancelled: no vacation begins at {event.start}")
        calendar.vacations.remove(found)
    calendar.version = number


def envelope(event: CalendarEvent, *, at: str, by: str) -> str:
    return STORED.envelope(event, at=at, by=by)


def fold(player_id: str, stored: Iterable[tuple[int, str]]) -> PlayerCalendar:
    """The calendar after its stored envelopes ``(number, payload)``."""
    calendar = PlayerCalendar(player_id)
    for number, payload in stored:
        event, at = STORED.from_envelope(payload)
        apply(calendar, number, event, at)
        calendar.head = payload
    return calendar


# --- decisions ------------------------------------------------------------------------------


def set_calendar(calendar: PlayerCalendar, name: str | None, weekends_off: bool | None) -> list[CalendarEvent]:
    """Change the time zone and/or whether weekends count (``None``: as it is); nothing if nothing changes."""
    wanted = (calendar.zone if name is None else name, calendar.weekends_off if weekends_off is None else weekends_off)
    if not is_zone(wanted[0]):
        raise Refused(
            "invalid_request",
            f"{wanted[0]!r} is not an IANA time zone (e.g. Europe/Paris, America/New_York).",
            errors=[{"field": "time_zone", "message": "not an IANA time zone", "location": "json"}],
        )
    if wanted == (calendar.zone, calendar.weekends_off) and calendar.settings:
        return []
    if wanted == ("UTC", False) and not calendar.settings:
        return []
    return [CalendarSet(*wanted)]


def declare(calendar: PlayerCalendar, start: datetime, end: datetime, now: datetime, allowance: int) -> list[CalendarEvent]:
    """Declare a vacation ahead, from ``start`` (now or later) to ``end``: refused if it overlaps another, or takes
    more hours than are left in its year (``vacation_limit_reached``)."""
    start = max(start, now)
    if end <= start:
        raise Refused(
            "invalid_request",
            "A vacation ends after it starts, and after now.",
            errors=[{"field": "vacation", "message": "end must come after start and after now", "location": "json"}],
        )
    if start - now > timedelta(days=MAX_AHEAD_DAYS) or end - start > timedelta(days=MAX_AHEAD_DAYS):
        raise Refused(
            "invalid_request",
            f"A vacation is declared at most {MAX_AHEAD_DAYS} days ahead, and lasts no longer.",
            errors=[{"field": "vacation", "message": "too far ahead or too long", "location": "json"}],
        )
    if any(v.start < end and start < v.end for v in calendar.vacations):
        raise Refused(
            "vacation_overlaps",
            "You are on vacation at some of that time already: end or cancel that vacation first (updateMe with vacation null).",
        )
    new = Vacation(start, end)
    left = calendar.hours_left(start, allowance)
    if new.hours > left:
        raise Refused(
            "vacation_limit_reached",
            f"That vacation takes {new.hours} hours; {left} of your {allowance} hours of vacation are left in its year.",
            limit=allowance,
            left=left,
            hours=new.hours,
        )
    return [VacationDeclared(format_time(start), format_time(end))]


def take(calendar: PlayerCalendar, at: datetime, game_id: str, allowance: int) -> list[CalendarEvent]:
    """A correspondence deadline of ``game_id`` passed at ``at``: a vacation is taken from then, for a day (or what is
    left of the year's allowance, or until a vacation declared ahead begins); nothing if none is left, or if the
    player is on vacation already (the deadline had not passed then)."""
    if calendar.running(at) is not None:
        return []
    hours = min(AUTOMATIC_HOURS, calendar.hours_left(at, allowance))
    if hours <= 0:
        return []
    end = at + timedelta(hours=hours)
    for vacation in calendar.vacations:
        if at < vacation.start < end:
            end = vacation.start
    return [VacationTaken(format_time(at), format_time(end), game_id)]


def come_back(calendar: PlayerCalendar, now: datetime, *, automatic_only: bool) -> list[CalendarEvent]:
    """The player is back at ``now``: the vacation running ends (only one taken automatically, if so asked); with
    ``automatic_only`` false, the vacations declared ahead are cancelled too."""
    events: list[CalendarEvent] = []
    running = calendar.running(now)
    if running is not None and (running.automatic or not automatic_only):
        events.append(VacationEnded(format_time(now)))
    if not automatic_only:
        events += [VacationCancelled(format_time(v.start)) for v in calendar.vacations if v.start > now]
    return events


def vacations_json(calendar: PlayerCalendar, now: datetime) -> list[dict[str, Any]]:
    """The vacations running or ahead, as a player reads them."""
    return [{"start": format_time(v.start), "end": format_time(v.end), "automatic": v.automatic} for v in calendar.ahead(now)]
