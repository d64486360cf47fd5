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

Where each part is: :mod:`~service.domain.lobby.terms` (the words a table is set up in, shared with challenges and
quick match), :mod:`~service.domain.lobby.events` (the events and the form each is stored in),
:mod:`~service.domain.lobby.commands`, :mod:`~service.domain.lobby.decision` (``decide``) and
:mod:`~service.domain.lobby.table` (the table and ``fold``).  Import from here: the package is the lobby's one door.
"""

from service.domain.lobby.commands import (
    Abort,
    Cancel,
    DeclineRematch,
    GiveTime,
    Join,
    Leave,
    LobbyCommand,
    OfferRematch,
    SetUp,
)
from service.domain.lobby.decision import decide
from service.domain.lobby.events import (
    LOBBY_EVENTS,
    LOBBY_TYPES,
    OPTIONAL_CREATED,
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
    event_from_dict,
    event_to_dict,
)
from service.domain.lobby.table import Seat, Table, every_seat_moved, fold, max_gift, rematch_seats
from service.domain.lobby.terms import (
    AI_LEVELS,
    DAYS_PER_TURN,
    DEALINGS,
    ORIGINS,
    SEAT_FORM,
    SEAT_KINDS,
    TIMEOUT_ACTIONS,
    SeatSpec,
)

__all__ = [
    "AI_LEVELS",
    "DAYS_PER_TURN",
    "DEALINGS",
    "LOBBY_EVENTS",
    "LOBBY_TYPES",
    "OPTIONAL_CREATED",
    "ORIGINS",
    "SEAT_FORM",
    "SEAT_KINDS",
    "TIMEOUT_ACTIONS",
    "Abort",
    "Cancel",
    "DeclineRematch",
    "GameAborted",
    "GameCancelled",
    "GameCreated",
    "GiveTime",
    "Join",
    "Leave",
    "LobbyCommand",
    "LobbyEvent",
    "OfferRematch",
    "RematchDeclined",
    "RematchOffered",
    "RematchStarted",
    "Seat",
    "SeatLeft",
    "SeatResigned",
    "SeatSpec",
    "SeatTaken",
    "SetUp",
    "Table",
    "TimeGiven",
    "TurnTimedOut",
    "decide",
    "event_from_dict",
    "event_to_dict",
    "every_seat_moved",
    "fold",
    "max_gift",
    "rematch_seats",
]
