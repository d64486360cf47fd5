"""The lobby's events: what a game's stream records of who sits where, and the form each is stored in.

A game's stream holds two vocabularies, the engine's events (the cards) and these: a table set up, seats taken,
left and resigned, a turn timed out, a game called off or aborted, a rematch offered, declined and started, time
given.  They are the lobby's history, so they are read back (:func:`event_from_dict`) from streams written by every
release, and from imported files: every member is checked as :mod:`service.domain.codec` checks it, and
``game_created``'s later options are written only when set, so that a game that sets none is stored as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine import Variant
from service.domain.codec import WHOLE, Absent, Events, Flag, Many, Members, Nullable, OneOf, Text
from service.domain.lobby.terms import (
    AI_LEVELS,
    DAYS_PER_TURN,
    DEALINGS,
    ORIGINS,
    SEAT_FORM,
    TIMEOUT_ACTIONS,
    SeatSpec,
)


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
#: Members of ``game_created`` added after the first release: absent, they have their defaults; written only when set.
OPTIONAL_CREATED = frozenset({"listed", "rated", "days_per_turn", "origin", "rematch_of"})

_SEAT = WHOLE

#: How each lobby event is stored.
STORED: Events[LobbyEvent] = Events(
    "lobby",
    [
        Members(
            GameCreated,
            {
                "created_by": Text(),
                "seats": Many(SEAT_FORM, least=2, most=4),
                "variant": OneOf([v.value for v in Variant]),
                "action_rules": Flag(),
                "turn_timeout": Absent(Nullable(WHOLE), None),
                "timeout_action": Absent(OneOf(TIMEOUT_ACTIONS), "fold"),
                "dealing": OneOf(DEALINGS),
                "seed": WHOLE,
                "deck": Absent(Nullable(Many(Text())), None),
                "join_code": Absent(Text(empty=True), ""),  # the one text that may be empty (service.domain.codec)
                "listed": Absent(Flag(), False, written_when_set=True),
                "rated": Absent(Flag(), False, written_when_set=True),
                "days_per_turn": Absent(Nullable(OneOf(DAYS_PER_TURN)), None, written_when_set=True),
                "origin": Absent(OneOf(ORIGINS), "direct", written_when_set=True),
                "rematch_of": Absent(Nullable(Text()), None, written_when_set=True),
            },
        ),
        Members(SeatTaken, {"seat": _SEAT, "player_id": Text(), "name": Text()}),
        Members(SeatLeft, {"seat": _SEAT}),
        Members(SeatResigned, {"seat": _SEAT, "level": OneOf(AI_LEVELS)}),
        Members(TurnTimedOut, {"seat": _SEAT, "action": OneOf(TIMEOUT_ACTIONS)}),
        Members(GameCancelled, {}),
        Members(GameAborted, {"seat": _SEAT}),
        Members(RematchOffered, {"seat": _SEAT, "rematch_id": Absent(Nullable(Text()), None)}),
        Members(RematchDeclined, {"seat": _SEAT}),
        Members(RematchStarted, {"rematch_id": Text()}),
        Members(TimeGiven, {"seat": _SEAT, "to": _SEAT, "seconds": WHOLE}),
    ],
)
LOBBY_TYPES = STORED.types
assert {cls.type for cls in LOBBY_EVENTS} == LOBBY_TYPES


def event_to_dict(event: LobbyEvent) -> dict[str, Any]:
    """The event as stored in its envelope (``type`` and its members, as JSON holds them)."""
    return STORED.to_dict(event)


def event_from_dict(data: dict[str, Any]) -> LobbyEvent:
    """A stored lobby event, checked member by member: a stream may come from an imported file.

    Raises :class:`~engine.CorruptHistory` for a member that no event of ours could hold.
    """
    return STORED.from_dict(data)
