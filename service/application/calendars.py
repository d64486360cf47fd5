"""Time controls as the application keeps them: players' calendars (stored, decided, retimed) and each turn's clock.

The deadline itself is :mod:`service.domain.deadlines`'s pure function; this module gathers what it needs — the turn (its start,
its allowance, the time given: the game's fold) and, for a correspondence turn, the mover's calendar (their stream:
:mod:`service.domain.calendars`) — so that the view, the deadline job, the agenda, the reminders and the list by urgency all
ask the same question the same way (:meth:`Calendars.turn`).

A calendar changes a player's deadlines without any append to their games (a vacation declared, ended, or taken at a
deadline): after each change the player's games in play are offered again (``retime``), so that the agenda looks at
each at its new deadline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from service.common.errors import Conflict, NotConfirmed, Refused
from service.domain import calendars as rules
from service.domain.calendars import CalendarEvent, PlayerCalendar
from service.domain.deadlines import Calendar, Period, Turn, capped, deadline, honoured_until, left, paused, vacation_room
from service.domain.game import Game
from service.storage.calendars import CalendarStreams
from service.storage.events import IdempotencyMismatch, NotReplicated, VersionConflict

log = logging.getLogger("red7.calendars")

#: How often a calendar's write is decided again when another write came first.
RETRIES = 5
#: Vacation hours a year by default (``RED7_VACATION_HOURS_PER_YEAR``): ten days.
VACATION_HOURS = 240


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def turn_of(game: Game, calendar: PlayerCalendar | None = None) -> Turn | None:
    """The clock of the turn being played, if it has one: a human seat to move in a game with a turn limit.

    ``calendar``: the mover's (read for a correspondence turn only; without it, nothing pauses the clock).
    """
    seat = game.seat_to_move()
    if seat is None or game.seats[seat].kind != "human" or not game.turn_timeout or not game.turn_started_at:
        return None
    started = parse_time(game.turn_started_at)
    correspondence = bool(game.days_per_turn)
    kept = calendar.calendar_for(started) if correspondence and calendar is not None else Calendar()
    return Turn(started, game.turn_timeout, correspondence, game.time_given, kept)


@dataclass(frozen=True, slots=True)
class TurnClock:
    """What a view shows of a game's clock at a moment: the deadline, the running clock left, the pause it is in (a
    weekend or the mover's vacation: until its end), and which seated players are on vacation until when."""

    deadline: datetime | None = None
    left: float | None = None
    paused_until: datetime | None = None
    away: dict[int, datetime] = field(default_factory=dict)

    def key(self) -> tuple[object, ...]:
        """What a rendered view depends on (whole seconds left: a view a second old is as good)."""
        return (self.deadline, None if self.left is None else int(self.left), self.paused_until, tuple(sorted(self.away.items())))


class Calendars:
    """Players' calendars: read, changed (decided again if another write came first), and the games they time."""

    def __init__(
        self,
        streams: CalendarStreams,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        allowance: int = VACATION_HOURS,
    ) -> None:
        self.streams = streams
        self.clock = clock
        self.allowance = allowance
        #: Called with a player's id after their calendar changed (the games retime their deadlines).
        self.changed: list[Callable[[str], None]] = []
        #: The cap a game puts on the vacation its turns honour: from when, how many seconds (``None``: no cap).  The
        #: composition root's: a tournament round honours ``vacation_days_per_round`` days from its start.
        self.vacation_cap: Callable[[Game], tuple[datetime, int] | None] | None = None

    def load(self, player_id: str) -> PlayerCalendar:
        return rules.fold(player_id, [(e.number, e.payload) for e in self.streams.read_all(player_id)])

    # --- what a turn's clock is ---------------------------------------------------------

    def turn(self, game: Game) -> Turn | None:
        """The clock of the turn being played, with the mover's calendar if it is a correspondence turn."""
        seat = game.seat_to_move()
        mover = game.seats[seat].player_id if seat is not None else None
        calendar = self.load(mover) if mover and game.days_per_turn and game.turn_timeout else None
        turn = turn_of(game, calendar)
        cap = self._cap(game) if turn is not None and turn.correspondence else None
        return replace(turn, calendar=capped(turn.calendar, *cap)) if turn is not None and cap is not None else turn

    def _cap(self, game: Game) -> tuple[datetime, int] | None:
        return self.vacation_cap(game) if self.vacation_cap is not None else None

    def may_take(self, game: Game, at: datetime) -> bool:
        """Whether a vacation taken at the game's deadline ``at`` would stop its clock: not once the vacation its cap
        honours (a tournament round's) is used up, when the turn times out as if the player had none left."""
        cap = self._cap(game)
        turn = self.turn(game) if cap is not None else None
        return turn is None or cap is None or vacation_room(turn.calendar, *cap, at) > 0

    def deadline(self, game: Game) -> datetime | None:
        turn = self.turn(game)
        return deadline(turn) if turn is not None else None

    def clock_of(self, game: Game, now: datetime | None = None) -> TurnClock:
        """The game's clock as a view shows it at ``now``; a seat's vacation (``away``) is what the game honours of it:
        the whole of it, or in a tournament round only what the round's cap honours (none once the cap is used)."""
        now = now or self.clock()
        away: dict[int, datetime] = {}
        if game.days_per_turn and game.status in ("active", "waiting"):  # vacations stop correspondence clocks only
            cap = self._cap(game)  # a tournament round's: only the vacation it honours is shown
            for number, seat in enumerate(game.seats):
                if seat.kind == "human" and seat.player_id:
                    calendar = self.load(seat.player_id)
                    until = calendar.away_until(now) if cap is None else honoured_until(calendar.calendar_for(now), *cap, now)
                    if until is not None:
                        away[number] = until
        turn = self.turn(game) if game.status == "active" else None
        if turn is None:
            return TurnClock(away=away)
        pause: Period | None = paused(turn, now)
        return TurnClock(deadline(turn), left(turn, now), pause.end if pause is not None else None, away)

    # --- a player's own calendar, as they read and change it (``getMe``, ``updateMe``) ----------

    def view(self, player_id: str) -> dict[str, object]:
        calendar, now = self.load(player_id), self.clock()
        return {
            "time_zone": calendar.zone,
            "weekends_off": calendar.weekends_off,
            "vacations": rules.vacations_json(calendar, now),
            "vacation_hours_left": calendar.hours_left(now, self.allowance),
            "vacation_hours_per_year": self.allowance,
        }

    def check(self, player_id: str, changes: dict[str, Any]) -> None:
        """Refuse now what :meth:`update` would refuse (a zone that is none, a vacation that overlaps or is too long),
        so that a request refused changes nothing."""
        calendar, now = self.load(player_id), self.clock()
        if "time_zone" in changes or "weekends_off" in changes:
            rules.set_calendar(calendar, changes.get("time_zone"), changes.get("weekends_off"))
        vacation = changes.get("vacation")
        if vacation:
            rules.declare(calendar, vacation.get("start") or now, vacation["end"], now, self.allowance)

    def update(self, player_id: str, changes: dict[str, Any]) -> None:
        """Change the time zone or weekends, then the vacation: declared (``{"start", "end"}``) or, ``None``, back now."""
        if "time_zone" in changes or "weekends_off" in changes:
            self.settings(player_id, changes.get("time_zone"), changes.get("weekends_off"))
        if "vacation" in changes:
            vacation = changes["vacation"]
            if vacation is None:
                self.come_back(player_id, automatic_only=False)
            else:
                self.declare(player_id, vacation.get("start") or self.clock(), vacation["end"])

    # --- changing a calendar -------------------------------------------------------------

    def settings(self, player_id: str, zone: str | None, weekends_off: bool | None) -> PlayerCalendar:
        return self.write(player_id, lambda calendar, now: rules.set_calendar(calendar, zone, weekends_off))

    def declare(self, player_id: str, start: datetime, end: datetime) -> PlayerCalendar:
        return self.write(player_id, lambda calendar, now: rules.declare(calendar, start, end, now, self.allowance))

    def come_back(self, player_id: str, *, automatic_only: bool) -> PlayerCalendar:
        return self.write(player_id, lambda calendar, now: rules.come_back(calendar, now, automatic_only=automatic_only))

    def take(self, player_id: str, at: datetime, game_id: str) -> Literal["taken", "away"] | None:
        """A deadline of ``game_id`` passed at ``at``: take a vacation from then if the player has hours left.

        ``"taken"`` when this call took it; ``"away"`` when the player was on vacation at ``at`` already (a twin job or
        another ticker's took it first, even while this one was writing): the deadline had not passed, and the turn
        must not time out either; ``None`` when no hours are left."""
        decided: list[CalendarEvent] = []

        def decide(calendar: PlayerCalendar, now: datetime) -> list[CalendarEvent]:
            decided[:] = rules.take(calendar, at, game_id, self.allowance)  # the last decision is the one appended
            return decided

        after = self.write(player_id, decide)
        if decided:
            return "taken"
        return "away" if after.running(at) is not None else None

    def on_vacation_back(self, player_id: str) -> None:
        """The player moved: a vacation taken automatically, running now, ends (a failure only logs: it ends anyway)."""
        try:
            calendar = self.load(player_id)
            running = calendar.running(self.clock())
            if running is not None and running.automatic:
                self.come_back(player_id, automatic_only=True)
        except Exception:
            log.exception("could not end the automatic vacation of player %s", player_id)

    def on_account_deleted(self, player_id: str) -> None:
        """Nothing to end: a deleted player's games are played by AIs, whose turns have no clock."""

    def write(
        self,
        player_id: str,
        decide: Callable[[PlayerCalendar, datetime], list[CalendarEvent]],
        calendar: PlayerCalendar | None = None,
    ) -> PlayerCalendar:
        """Load, decide, append (decided again if another write came first); then retime the player's games."""
        for _ in range(RETRIES):
            calendar = calendar or self.load(player_id)
            now = self.clock()
            events = decide(calendar, now)
            if not events:
                return calendar
            at = rules.format_time(now)
            after = calendar.copy()
            payloads = []
            for event in events:
                payloads.append(rules.envelope(event, at=at, by=f"player:{player_id}"))
                rules.apply(after, after.version + 1, event, at)
            after.head = payloads[-1]
            try:
                self.streams.append(player_id, calendar.version, payloads, expected_head=calendar.head)
            except VersionConflict:
                calendar = None
                continue
            except IdempotencyMismatch as exc:  # no record is kept: never, but said once
                raise Refused("idempotency_key_reused", str(exc)) from None
            except NotReplicated as short:
                self._changed(player_id)
                raise NotConfirmed(short.version, short.replicas, short.wanted) from None
            self._changed(player_id)
            return after
        raise Conflict(0, 0, "Your calendar kept changing; try again.")

    def _changed(self, player_id: str) -> None:
        for callback in self.changed:
            try:
                callback(player_id)
            except Exception:
                log.exception("could not retime the games of player %s; the ticker's next look at each will", player_id)
