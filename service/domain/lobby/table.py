"""A table as the lobby sees it, and the fold: each lobby event applied to the table it happened at.

A *table* is anything with the lobby's fields (:class:`Table`): the service's ``Game``
(:mod:`service.domain.game`) is one, folding the engine's events beside these.  The fold is where a history
that could not have happened is caught (an event that cannot happen where it stands is
:class:`~engine.CorruptHistory`), so that a stream from an imported file, or one edited by hand, never makes a table
the rules could not have made.  A few reads of a table that both the fold and the decisions ask (may the seat to
move be given more time, has every seat moved once, whom a rematch waits for) are here with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine import CorruptHistory, Variant
from service.domain.lobby.events import (
    GameAborted,
    GameCancelled,
    GameCreated,
    LobbyEvent,
    RematchDeclined,
    RematchOffered,
    RematchStarted,
    SeatLeft,
    SeatResigned,
    SeatTaken,
    TimeGiven,
    TurnTimedOut,
)


@dataclass
class Seat:
    """A seat as the fold leaves it: what it is, and who holds it now (a set-up's
    :class:`~service.domain.lobby.terms.SeatSpec` says only what it is)."""

    kind: str  # "human" | "ai"
    level: str | None = None  # the AI's level
    player_id: str | None = None
    name: str | None = None
    #: The player left; an AI plays the seat from then on (player and name stay, to tell who it was).
    resigned: bool = False

    @property
    def open(self) -> bool:
        return self.kind == "human" and self.player_id is None


class Table(Protocol):
    """What the lobby reads and folds into: the service's ``Game`` has these fields."""

    created_by: str
    created_at: str
    seats: list[Seat]
    variant: Variant
    action_rules: bool
    turn_timeout: int | None
    timeout_action: str
    dealing: str
    seed: int
    deck: list[str] | None
    join_code: str
    cancelled: bool
    listed: bool
    rated: bool
    days_per_turn: int | None
    origin: str
    rematch_of: str | None
    #: A seated player called the game off before every seat had moved once.
    aborted: bool
    #: The seats that have ended a turn (folded by the game from the engine's events).
    moved: frozenset[int]
    #: Seats whose players offered (or accepted) a rematch, in order; the seat that declined one.
    rematch_offers: tuple[int, ...]
    rematch_declined: int | None
    #: The rematch's game id, once every player wanted one; whether that game was made.
    rematch: str | None
    rematch_started: bool
    #: Seconds the other players gave the seat to move, for its turn now (back to 0 when a turn begins).
    time_given: int

    @property
    def status(self) -> str: ...  # "waiting" | "active" | "finished" | "cancelled" | "aborted"

    def seat_of(self, player_id: str | None) -> int | None: ...

    def seat_to_move(self) -> int | None: ...


def fold(table: Table, event: LobbyEvent, at: str) -> None:
    """Apply one lobby event, appended at ``at``, to ``table``; an event that cannot happen there is corrupt history."""
    if isinstance(event, GameCreated):
        table.created_by, table.created_at = event.created_by, at
        table.seats = [Seat(spec.kind, spec.level) for spec in event.seats]
        table.variant = Variant(event.variant)
        table.action_rules, table.turn_timeout = event.action_rules, event.turn_timeout
        table.timeout_action = event.timeout_action
        table.dealing, table.seed, table.join_code = event.dealing, event.seed, event.join_code
        table.deck = list(event.deck) if event.deck is not None else None
        table.listed, table.rated, table.days_per_turn = event.listed, event.rated, event.days_per_turn
        table.origin, table.rematch_of = event.origin, event.rematch_of
    elif isinstance(event, SeatTaken):
        seat = _seat(table, event)
        if not seat.open or table.status != "waiting":
            raise CorruptHistory(f"seat_taken: seat {event.seat} is not open")
        seat.player_id, seat.name = event.player_id, event.name
    elif isinstance(event, SeatLeft):
        seat = _held_seat(table, event, "waiting")
        seat.player_id = seat.name = None
    elif isinstance(event, SeatResigned):
        seat = _held_seat(table, event, "active")
        seat.kind, seat.level, seat.resigned = "ai", event.level, True
    elif isinstance(event, TurnTimedOut):  # the fold or AI turn that follows carries the change
        seat = _seat(table, event)
        if event.seat != table.seat_to_move() or seat.kind != "human":
            raise CorruptHistory(f"turn_timed_out: seat {event.seat} is not a human seat to move")
        if event.action != table.timeout_action:
            raise CorruptHistory(f"turn_timed_out: the game's turns time out to {table.timeout_action!r}, not {event.action!r}")
    elif isinstance(event, GameCancelled):
        if table.status != "waiting":
            raise CorruptHistory("game_cancelled: only a game still waiting can be called off")
        table.cancelled = True
    elif isinstance(event, GameAborted):
        _held_seat(table, event, "active")
        if every_seat_moved(table):
            raise CorruptHistory("game_aborted: every seat has moved; the game can no longer be aborted")
        table.aborted = True
    elif isinstance(event, TimeGiven):
        _held_seat(table, event, "active")
        if event.to == event.seat or event.to != table.seat_to_move() or table.seats[event.to].kind != "human":
            raise CorruptHistory(f"time_given: seat {event.to} is not another human seat to move")
        if not table.turn_timeout or not 0 < event.seconds <= max_gift(table):
            raise CorruptHistory(f"time_given: {event.seconds} s is more than the turn may be given")
        table.time_given += event.seconds
    else:
        _fold_rematch(table, event)


def max_gift(table: Table) -> int:
    """The most seconds the seat to move may still be given this turn: in all, as much as the turn's own limit (a turn
    at most doubles), so that giving time cannot keep a game from ending."""
    return max(0, (table.turn_timeout or 0) - table.time_given)


def _fold_rematch(table: Table, event: RematchOffered | RematchDeclined | RematchStarted) -> None:
    """The rematch's events, after a finished game's end."""
    if table.status != "finished":
        raise CorruptHistory(f"{event.type}: the game is {table.status}, not finished")
    if isinstance(event, RematchStarted):
        if table.rematch != event.rematch_id or table.rematch_started:
            raise CorruptHistory(f"rematch_started: {event.rematch_id!r} is not the rematch waiting to be made")
        table.rematch_started = True
        return
    _held_seat(table, event, "finished")  # a human seat still held (a resigned one is an AI's)
    if table.rematch is not None or table.rematch_declined is not None:
        raise CorruptHistory(f"{event.type}: seat {event.seat} can no longer answer a rematch")
    if isinstance(event, RematchDeclined):
        table.rematch_declined = event.seat
        return
    if event.seat in table.rematch_offers:
        raise CorruptHistory(f"rematch_offered: seat {event.seat} offered already")
    table.rematch_offers = (*table.rematch_offers, event.seat)
    complete = set(table.rematch_offers) == set(rematch_seats(table))
    if complete != (event.rematch_id is not None):
        raise CorruptHistory("rematch_offered: the last offer wanted, and only it, names the rematch")
    table.rematch = event.rematch_id


def every_seat_moved(table: Table) -> bool:
    """Whether every seat has ended a turn (whatever ended it: a step, a fold, a timeout, an AI): from then on the
    game is under way, and a player who wants out resigns (an AI plays on) instead of aborting it."""
    return len(table.moved) >= len(table.seats)


def rematch_seats(table: Table) -> list[int]:
    """The seats whose players a rematch waits for: the human seats still held at the end (a resigned seat is an
    AI's, and stays one in the rematch)."""
    return [n for n, seat in enumerate(table.seats) if seat.kind == "human" and seat.player_id is not None]


def _seat(
    table: Table,
    event: SeatTaken | SeatLeft | SeatResigned | TurnTimedOut | GameAborted | RematchOffered | RematchDeclined | TimeGiven,
) -> Seat:
    if not 0 <= event.seat < len(table.seats):
        raise CorruptHistory(f"{event.type}: no seat {event.seat}")
    return table.seats[event.seat]


def _held_seat(
    table: Table, event: SeatLeft | SeatResigned | GameAborted | RematchOffered | RematchDeclined | TimeGiven, status: str
) -> Seat:
    """The human seat a player leaves, checked."""
    seat = _seat(table, event)
    if seat.kind != "human" or seat.player_id is None:
        raise CorruptHistory(f"{event.type}: seat {event.seat} holds no player")
    if table.status != status:
        raise CorruptHistory(f"{event.type}: the game is {table.status}, not {status}")
    return seat
