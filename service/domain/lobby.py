"""The lobby's rules: who sits where before and around the engine's game, as pure as the engine.

A game's stream holds two vocabularies: the engine's events (the cards) and
the lobby's, defined here — a table set up, seats taken, left and resigned,
a turn timed out, a game called off.  Like the engine, the lobby is a
decision and a fold: :func:`decide` turns a command into events (or refuses
it with a stable code), :func:`fold` applies one event to a table.  Nothing
here does I/O or reads a clock; the application layer loads the game,
decides, and appends what was decided.

A *table* is anything with the lobby's fields (:class:`Table`): the service's
``Game`` is one.  Matchmaking, challenges and rematches are lobby commands too.

Two ways end a game with no winner.  Its creator *cancels* a game still waiting
(nothing was dealt: :class:`Cancel`); once it is dealt, any seated player may
*abort* it (:class:`Abort`) until every seat has moved once (ended a turn,
whatever ended it: the fold keeps :attr:`Table.moved`), after which a player who
wants out resigns instead (:class:`Leave`: an AI plays on).  At a finished game's
end the players may agree to a rematch (:class:`OfferRematch`): the offers are
events of the finished game, and the offer that completes them names the new
game, so whoever makes it (the offering request, a job, the next reader) makes
the same one.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol

from engine import Card, CorruptHistory, Event, GameState, Start, Variant, decide_and_fold
from service.common.errors import Refused

AI_LEVELS = ("random", "greedy", "expert")
SEAT_KINDS = ("human", "ai")
TIMEOUT_ACTIONS = ("fold", "ai")
DEALINGS = ("random", "seeded", "custom")
#: How a game came to be: created directly, from the open tables' list, a quick match, a challenge, a rematch.
ORIGINS = ("direct", "open_table", "quick_match", "challenge", "rematch")
#: Days a correspondence turn may take (what correspondence players are used to choosing from).
DAYS_PER_TURN = (1, 2, 3, 5, 7, 10, 14)


@dataclass
class Seat:
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


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat as a new game is set up: a human seat to fill, or an AI of a level."""

    kind: str
    level: str | None = None


@dataclass(frozen=True, slots=True)
class GameCreated:
    type: ClassVar[str] = "game_created"
    created_by: str
    seats: tuple[SeatSpec, ...]
    variant: str
    action_rules: bool
    turn_timeout: int | None
    timeout_action: str
    dealing: str  # "random" | "seeded" (the creator chose the seed) | "custom" (an explicit deck)
    seed: int
    deck: tuple[str, ...] | None
    join_code: str
    #: Shown in the open tables' list while a human seat is open (then anyone may join, without the code).
    listed: bool = False
    #: Counts for the players' ratings once finished with every seat filled (never when aborted).
    rated: bool = False
    #: A correspondence game: each turn may take this many days (``turn_timeout`` is that many seconds).
    days_per_turn: int | None = None
    origin: str = "direct"
    #: The game this one is a rematch of.
    rematch_of: str | None = None


@dataclass(frozen=True, slots=True)
class SeatTaken:
    type: ClassVar[str] = "seat_taken"
    seat: int
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """A player gave up their seat before the start: it is open again."""

    type: ClassVar[str] = "seat_left"
    seat: int


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """A player left a game in play: an AI of ``level`` plays the seat to the end."""

    type: ClassVar[str] = "seat_resigned"
    seat: int
    level: str


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The turn's deadline passed: the engine events that follow fold the seat or play its turn (``action``)."""

    type: ClassVar[str] = "turn_timed_out"
    seat: int
    action: str


@dataclass(frozen=True, slots=True)
class GameCancelled:
    """Its creator called the game off before it started."""

    type: ClassVar[str] = "game_cancelled"


@dataclass(frozen=True, slots=True)
class GameAborted:
    """A seated player (``seat``) called the game off before every seat had moved once: it ends with no winner."""

    type: ClassVar[str] = "game_aborted"
    seat: int


@dataclass(frozen=True, slots=True)
class RematchOffered:
    """At a finished game's end the player of ``seat`` wants a rematch (an offer, or the acceptance of one).

    The offer that completes the set (every human seat wants one) names the rematch, ``rematch_id``: decided with
    the last acceptance, so that a set-up stopped half-way is finished as the same game by whoever comes next.
    """

    type: ClassVar[str] = "rematch_offered"
    seat: int
    rematch_id: str | None = None


@dataclass(frozen=True, slots=True)
class RematchDeclined:
    """The player of ``seat`` wants no rematch: there will be none of this game."""

    type: ClassVar[str] = "rematch_declined"
    seat: int


@dataclass(frozen=True, slots=True)
class RematchStarted:
    """The rematch the offers named was made: nothing is left to do for it."""

    type: ClassVar[str] = "rematch_started"
    rematch_id: str


@dataclass(frozen=True, slots=True)
class TimeGiven:
    """The player of ``seat`` gave ``seconds`` to the turn of ``to``, the seat to move (its deadline moves that much
    running clock later: :mod:`service.domain.deadlines`)."""

    type: ClassVar[str] = "time_given"
    seat: int
    to: int
    seconds: int


LobbyEvent = (
    GameCreated
    | SeatTaken
    | SeatLeft
    | SeatResigned
    | TurnTimedOut
    | GameCancelled
    | GameAborted
    | RematchOffered
    | RematchDeclined
    | RematchStarted
    | TimeGiven
)
#: The lobby's event classes, for ``isinstance`` (a tuple the type checker narrows with).
LOBBY_EVENTS = (
    GameCreated,
    SeatTaken,
    SeatLeft,
    SeatResigned,
    TurnTimedOut,
    GameCancelled,
    GameAborted,
    RematchOffered,
    RematchDeclined,
    RematchStarted,
    TimeGiven,
)
EVENT_CLASSES: dict[str, type[LobbyEvent]] = {cls.type: cls for cls in LOBBY_EVENTS}
LOBBY_TYPES = frozenset(EVENT_CLASSES)


def event_to_dict(event: LobbyEvent) -> dict[str, Any]:
    """The event as stored in its envelope (``type`` and its fields, as JSON holds them)."""
    data: dict[str, Any] = {"type": event.type}
    for item in fields(event):
        value = getattr(event, item.name)
        if item.name in OPTIONAL_CREATED and value == item.default:
            continue  # written only when set: a game created without them is stored as before
        if item.name == "seats":
            value = [{"kind": s.kind, "level": s.level} for s in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[item.name] = value
    return data


#: Members of ``game_created`` added after the first release: absent, they have their defaults.
OPTIONAL_CREATED = frozenset({"listed", "rated", "days_per_turn", "origin", "rematch_of"})


def event_from_dict(data: dict[str, Any]) -> LobbyEvent:
    """A stored lobby event, checked field by field: a stream may come from an imported file.

    Raises :class:`~engine.CorruptHistory` for a field that no event of ours could hold.
    """
    kind = data.get("type")
    if kind == "game_created":
        seats = data.get("seats")
        if not isinstance(seats, list) or not 2 <= len(seats) <= 4:
            raise CorruptHistory("game_created: seats must be a list of 2 to 4 seats")
        specs = tuple(_seat_spec(seat) for seat in seats)
        deck = data.get("deck")
        if deck is not None and (not isinstance(deck, list) or not all(isinstance(c, str) for c in deck)):
            raise CorruptHistory("game_created: deck must be a list of cards")
        return GameCreated(
            created_by=_text(data, "created_by", kind),
            seats=specs,
            variant=_one_of(data, "variant", tuple(v.value for v in Variant), kind),
            action_rules=_flag(data, "action_rules", kind),
            turn_timeout=_whole(data, "turn_timeout", kind, optional=True),
            timeout_action=_one_of({"timeout_action": "fold", **data}, "timeout_action", TIMEOUT_ACTIONS, kind),
            dealing=_one_of(data, "dealing", DEALINGS, kind),
            seed=_whole(data, "seed", kind),
            deck=tuple(deck) if deck is not None else None,
            join_code=str(data.get("join_code", "")),
            listed=_flag({"listed": False, **data}, "listed", kind),
            rated=_flag({"rated": False, **data}, "rated", kind),
            days_per_turn=_days(data.get("days_per_turn"), kind),
            origin=_one_of({"origin": "direct", **data}, "origin", ORIGINS, kind),
            rematch_of=_optional_text(data, "rematch_of", kind),
        )
    if kind == "seat_taken":
        return SeatTaken(_whole(data, "seat", kind), _text(data, "player_id", kind), _text(data, "name", kind))
    if kind == "seat_left":
        return SeatLeft(_whole(data, "seat", kind))
    if kind == "seat_resigned":
        return SeatResigned(_whole(data, "seat", kind), _one_of(data, "level", AI_LEVELS, kind))
    if kind == "turn_timed_out":
        return TurnTimedOut(_whole(data, "seat", kind), _one_of(data, "action", TIMEOUT_ACTIONS, kind))
    if kind == "game_cancelled":
        return GameCancelled()
    if kind == "game_aborted":
        return GameAborted(_whole(data, "seat", kind))
    if kind == "rematch_offered":
        return RematchOffered(_whole(data, "seat", kind), _optional_text(data, "rematch_id", kind))
    if kind == "rematch_declined":
        return RematchDeclined(_whole(data, "seat", kind))
    if kind == "rematch_started":
        return RematchStarted(_text(data, "rematch_id", kind))
    if kind == "time_given":
        return TimeGiven(_whole(data, "seat", kind), _whole(data, "to", kind), _whole(data, "seconds", kind))
    raise CorruptHistory(f"{kind!r} is not a lobby event")


def _seat_spec(seat: object) -> SeatSpec:
    if not isinstance(seat, dict) or seat.get("kind") not in SEAT_KINDS:
        raise CorruptHistory(f"game_created: a seat must be human or ai, not {seat!r}")
    level = seat.get("level")
    if seat["kind"] == "ai" and level not in AI_LEVELS:
        raise CorruptHistory(f"game_created: {level!r} is not an AI level")
    if seat["kind"] == "human" and level is not None:
        raise CorruptHistory("game_created: a human seat has no level")
    return SeatSpec(seat["kind"], level)


def _text(data: dict[str, Any], name: str, kind: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise CorruptHistory(f"{kind}: {name} must be text, not {type(value).__name__}")
    return value


def _days(value: object, kind: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value not in DAYS_PER_TURN:
        raise CorruptHistory(f"{kind}: days_per_turn must be one of {DAYS_PER_TURN}, not {value!r}")
    return value


def _optional_text(data: dict[str, Any], name: str, kind: str) -> str | None:
    return None if data.get(name) is None else _text(data, name, kind)


def _whole(data: dict[str, Any], name: str, kind: str, *, optional: bool = False) -> Any:
    value = data.get(name)
    if value is None and optional:
        return None
    if type(value) is not int or value < 0:
        raise CorruptHistory(f"{kind}: {name} must be a whole number, 0 or more, not {value!r}")
    return value


def _flag(data: dict[str, Any], name: str, kind: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise CorruptHistory(f"{kind}: {name} must be true or false, not {value!r}")
    return value


def _one_of(data: dict[str, Any], name: str, allowed: Sequence[str], kind: str) -> str:
    value = data.get(name)
    if value not in allowed:
        raise CorruptHistory(f"{kind}: {name} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


# --- the fold ------------------------------------------------------------------------


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


# --- commands and the decision --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetUp:
    """Set a new table up; its creator takes the first human seat.  The seed and join code come from the caller."""

    creator_id: str
    creator_name: str
    seats: tuple[SeatSpec, ...]
    variant: Variant
    action_rules: bool
    turn_timeout: int | None
    timeout_action: str
    seed: int
    join_code: str
    dealing: str = "random"
    deck: tuple[Card, ...] | None = None
    listed: bool = False
    rated: bool = False
    days_per_turn: int | None = None
    origin: str = "direct"
    rematch_of: str | None = None
    #: More players seated at once (a match, an accepted challenge, a rematch): ``(seat, player id, name)``, each
    #: on a human seat other than the creator's.
    seated: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Join:
    """Take an open human seat (the first one, or ``seat``), with the game's join code (a listed game needs none)."""

    player_id: str
    name: str
    code: str
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Give a seat up: before the start it opens again; in play an AI of ``level`` takes it."""

    player_id: str
    level: str = "greedy"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Call off a game that has not started (its creator only)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class Abort:
    """Call off a game in play before every seat has moved once (any seated player); it ends with no winner."""

    player_id: str


@dataclass(frozen=True, slots=True)
class OfferRematch:
    """Offer (or accept) a rematch of a finished game.  ``rematch_id``, chosen by the caller (the lobby draws no
    random numbers), is the new game's id if this offer is the last one wanted."""

    player_id: str
    rematch_id: str


@dataclass(frozen=True, slots=True)
class DeclineRematch:
    """Want no rematch of a finished game (an offer made before is withdrawn with it): there will be none."""

    player_id: str


@dataclass(frozen=True, slots=True)
class GiveTime:
    """Give ``seconds`` to the turn of the seat to move (another player's): see :func:`max_gift` for the limit."""

    player_id: str
    seconds: int


LobbyCommand = SetUp | Join | Leave | Cancel | Abort | OfferRematch | DeclineRematch | GiveTime


def decide(table: Table, command: LobbyCommand) -> list[LobbyEvent | Event]:
    """The events ``command`` makes on ``table`` — the lobby's, then the engine's deal once no human seat is open —
    or a :class:`~service.common.errors.Refused` with a stable code.  ``table`` is not changed."""
    if isinstance(command, SetUp):
        return _set_up(command)
    if isinstance(command, Join):
        return _join(table, command)
    if isinstance(command, Leave):
        return _leave(table, command)
    if isinstance(command, Cancel):
        return _cancel(table, command)
    if isinstance(command, Abort):
        return _abort(table, command)
    if isinstance(command, OfferRematch):
        return _offer_rematch(table, command)
    if isinstance(command, GiveTime):
        return _give_time(table, command)
    return _decline_rematch(table, command)


def _set_up(command: SetUp) -> list[LobbyEvent | Event]:
    created = GameCreated(
        created_by=command.creator_id,
        seats=command.seats,
        variant=command.variant.value,
        action_rules=command.action_rules,
        turn_timeout=command.turn_timeout,
        timeout_action=command.timeout_action,
        dealing=command.dealing,
        seed=command.seed,
        deck=tuple(str(c) for c in command.deck) if command.deck is not None else None,
        join_code=command.join_code,
        listed=command.listed,
        rated=command.rated,
        days_per_turn=command.days_per_turn,
        origin=command.origin,
        rematch_of=command.rematch_of,
    )
    humans = [n for n, spec in enumerate(command.seats) if spec.kind == "human"]
    events: list[LobbyEvent | Event] = [created]
    if humans:
        events.append(SeatTaken(humans[0], command.creator_id, command.creator_name))
    taken = {humans[0]} if humans else set()
    for seat, player_id, name in command.seated:
        if seat not in humans or seat in taken or player_id in {e.player_id for e in events if isinstance(e, SeatTaken)}:
            raise Refused("invalid_request", f"Seat {seat} cannot be given to {player_id} at set-up.", field="seats")
        taken.add(seat)
        events.append(SeatTaken(seat, player_id, name))
    if len(taken) == len(humans):
        events += _deal(created)
    return events


def _join(table: Table, command: Join) -> list[LobbyEvent | Event]:
    held = table.seat_of(command.player_id)
    if held is not None:
        raise Refused("already_seated", f"You already hold seat {held} of this game.", seat=held)
    if table.status != "waiting":
        raise Refused("game_not_waiting", f"The game is {table.status}: seats are taken only before it starts.")
    if not table.listed and not _same_code(command.code, table.join_code):
        raise Refused("bad_join_code", "The join code is wrong: this game is not listed, so joining it takes its code.")
    open_seats = [n for n, seat in enumerate(table.seats) if seat.open]
    if not open_seats:
        raise Refused("game_full")
    if command.seat is not None and command.seat not in open_seats:
        raise Refused("seat_not_open", f"Seat {command.seat} is not open; open seats: {open_seats}.", open_seats=open_seats)
    chosen = open_seats[0] if command.seat is None else command.seat
    events: list[LobbyEvent | Event] = [SeatTaken(chosen, command.player_id, command.name)]
    if open_seats == [chosen]:
        events += _deal(table)
    return events


def _leave(table: Table, command: Leave) -> list[LobbyEvent | Event]:
    seat = table.seat_of(command.player_id)
    if seat is None:
        raise Refused("not_a_player", "Only seated players leave a game.")
    if table.seats[seat].resigned:
        raise Refused("seat_resigned", "You have already resigned from this game.")
    if table.status == "waiting":
        if table.created_by == command.player_id:
            raise Refused("creator_cannot_leave")
        return [SeatLeft(seat)]
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: there is no seat to leave any more.")
    if command.level not in AI_LEVELS:
        raise Refused("invalid_request", f"{command.level!r} is not an AI level.", field="level")
    return [SeatResigned(seat, command.level)]


def _cancel(table: Table, command: Cancel) -> list[LobbyEvent | Event]:
    if table.created_by != command.player_id:
        raise Refused("not_the_creator", "Only the player who created the game may call it off.")
    if table.status != "waiting":
        raise Refused("game_not_waiting", f"The game is {table.status}: only a game still waiting can be called off.")
    return [GameCancelled()]


def _abort(table: Table, command: Abort) -> list[LobbyEvent | Event]:
    seat = _players_seat(table, command.player_id, "abort")
    if table.status == "waiting":
        raise Refused(
            "game_not_active",
            "The game has not started: its creator calls it off (cancelGame), and anyone "
            "else who joined may leave it (leaveGame).",
        )
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: there is nothing to abort.")
    if every_seat_moved(table):
        raise Refused(
            "abort_too_late",
            "Every seat has moved once: the game is under way and can no longer be aborted. "
            "Leave it instead (an AI plays your seat).",
        )
    return [GameAborted(seat)]


def _offer_rematch(table: Table, command: OfferRematch) -> list[LobbyEvent | Event]:
    seat = _rematch_seat(table, command.player_id, "offer a rematch")
    if table.rematch is not None or seat in table.rematch_offers:
        return []  # offered already, or every player did: nothing more to do
    offers = {*table.rematch_offers, seat}
    complete = offers == set(rematch_seats(table))
    return [RematchOffered(seat, command.rematch_id if complete else None)]


def _decline_rematch(table: Table, command: DeclineRematch) -> list[LobbyEvent | Event]:
    seat = _rematch_seat(table, command.player_id, "decline a rematch", declined_ok=True)
    if table.rematch is not None:
        raise Refused("rematch_started", "Every player wanted the rematch: it has started.", rematch=table.rematch)
    return [] if table.rematch_declined is not None else [RematchDeclined(seat)]


def _give_time(table: Table, command: GiveTime) -> list[LobbyEvent | Event]:
    seat = _players_seat(table, command.player_id, "give time")
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: time is given while it is played.")
    if not table.turn_timeout:
        raise Refused("no_turn_limit", "This game's turns have no time limit: there is no clock to give time to.")
    to = table.seat_to_move()
    if to is None or to == seat or table.seats[to].kind != "human":
        raise Refused(
            "not_their_turn", "Time is given to another player whose turn it is (their clock is running).", seat_to_move=to
        )
    most = max_gift(table)
    if not 1 <= command.seconds <= most:
        raise Refused(
            "give_time_limit_reached",
            f"This turn may be given {most} more seconds at most (in all, as much as "
            f"the turn's own limit, {table.turn_timeout} s).",
            limit=table.turn_timeout,
            left=most,
        )
    return [TimeGiven(seat, to, command.seconds)]


def _players_seat(table: Table, player_id: str, what: str) -> int:
    """The seat the player holds and plays themselves (not one they resigned from), or a refusal."""
    seat = table.seat_of(player_id)
    if seat is None:
        raise Refused("not_a_player", f"Only the game's players {what}.")
    if table.seats[seat].resigned:
        raise Refused("seat_resigned", f"You resigned from this game: an AI plays your seat, and only the players {what}.")
    return seat


def _rematch_seat(table: Table, player_id: str, what: str, *, declined_ok: bool = False) -> int:
    seat = _players_seat(table, player_id, what)
    if table.status != "finished":
        raise Refused("game_not_finished", f"The game is {table.status}: a rematch is offered at a finished game's end.")
    if table.rematch_declined is not None and not declined_ok:
        raise Refused(
            "rematch_declined",
            "A player declined the rematch: there will be none of this game.",
            declined_by=table.rematch_declined,
        )
    return seat


def _deal(table: Table | GameCreated) -> list[Event]:
    """The engine's first deal, from the table's recorded seed (or explicit deck)."""
    deck = tuple(Card.parse(c) for c in table.deck) if table.deck else None
    variant = table.variant if isinstance(table.variant, Variant) else Variant(table.variant)
    start = Start(len(table.seats), variant, table.action_rules, table.seed, deck)
    return decide_and_fold(GameState(), start)[0]


def _same_code(given: str, expected: str) -> bool:
    """Compared in constant time: a join code is a secret."""
    return hmac.compare_digest(given.encode(), expected.encode())
