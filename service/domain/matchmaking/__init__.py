"""Quick match's rules: tickets waiting in a pool, and who sits down together — pure, like the lobby.

A *pool* holds the tickets of one kind of game: only tickets of one kind can ever share a table, so a pool is the
unit that is decided on and appended to, as a game is.  Nothing here does I/O or reads a clock: every function that
needs the time takes ``now`` (epoch milliseconds).

Where each part is: :mod:`~service.domain.matchmaking.tickets` (a ticket, the kind of game it waits for, and the form
it is stored in), :mod:`~service.domain.matchmaking.pool` (the pool as an aggregate: its events, ``decide`` and
``fold``) and :mod:`~service.domain.matchmaking.pairing` (``find_matches``: which tables can sit down now, a policy
the pool's decision checks again).  Import from here: the package is quick match's one door to its rules.
"""

from service.domain.matchmaking.pairing import CORRESPONDENCE_PATIENCE_MS, LIVE_PATIENCE_MS, LOOK_AHEAD, find_matches
from service.domain.matchmaking.pool import (
    Cancel,
    Expire,
    Found,
    GamesMade,
    Made,
    MatchSeat,
    Open,
    Pool,
    PoolCommand,
    PoolEvent,
    Record,
    TicketCancelled,
    TicketOpened,
    TicketsExpired,
    TicketsMatched,
    decide,
    event_from_data,
    event_from_json,
    event_to_json,
    fold,
    table_problem,
)
from service.domain.matchmaking.tickets import (
    DEFAULT_RATING,
    LIVE_TURN_SECONDS,
    PLAYER_COUNTS,
    Kind,
    RatingRange,
    Ticket,
    compatible,
    ticket_from_dict,
    ticket_to_dict,
)

__all__ = [
    "CORRESPONDENCE_PATIENCE_MS",
    "DEFAULT_RATING",
    "LIVE_PATIENCE_MS",
    "LIVE_TURN_SECONDS",
    "LOOK_AHEAD",
    "PLAYER_COUNTS",
    "Cancel",
    "Expire",
    "Found",
    "GamesMade",
    "Kind",
    "Made",
    "MatchSeat",
    "Open",
    "Pool",
    "PoolCommand",
    "PoolEvent",
    "RatingRange",
    "Record",
    "Ticket",
    "TicketCancelled",
    "TicketOpened",
    "TicketsExpired",
    "TicketsMatched",
    "compatible",
    "decide",
    "event_from_data",
    "event_from_json",
    "event_to_json",
    "find_matches",
    "fold",
    "table_problem",
    "ticket_from_dict",
    "ticket_to_dict",
]
