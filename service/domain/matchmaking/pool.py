"""A quick-match pool as an aggregate: its events, the fold, its commands and the decision — pure, like the lobby.

A *pool* holds the tickets of one kind of game (:mod:`service.domain.matchmaking.tickets`): only they can share a
table, so a pool is the unit that is decided on and appended to, as a game is.  Its stream holds a ticket opened,
cancelled, expired, and tickets matched (the tickets, the game's id and its seats, decided before the game is made, so
that whoever finds a match whose game is not there yet makes it under that id); then games made, which the
matchmaker appends once it has made (or found) a match's game: until then the match is *pending* in the pool, however
long that takes, and every pass makes it again.  :func:`decide` turns a command into events (or refuses it with a
stable code), :func:`fold` applies one.  Which tables to record is the pairing's
(:mod:`service.domain.matchmaking.pairing`); :func:`table_problem` holds any table to every ticket's preferences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import CorruptHistory
from service.common.errors import NotFound, Refused
from service.domain.blocks import NOBODY_APART, Apart
from service.domain.codec import Events, Integer, Many, Members, Nullable, OneOf, Row, Text
from service.domain.lobby import AI_LEVELS
from service.domain.matchmaking.tickets import PLAYER_COUNTS, TICKET_FORM, Ticket, compatible, ticket_from_dict, ticket_to_dict


@dataclass(frozen=True, slots=True)
class TicketOpened:
    type: ClassVar[str] = "ticket_opened"
    ticket: Ticket


@dataclass(frozen=True, slots=True)
class TicketCancelled:
    type: ClassVar[str] = "ticket_cancelled"
    ticket_id: str
    at: int


@dataclass(frozen=True, slots=True)
class TicketsExpired:
    type: ClassVar[str] = "tickets_expired"
    ticket_ids: tuple[str, ...]
    at: int


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """A human seat of a match: whose ticket, which player, under what name."""

    ticket_id: str
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class TicketsMatched:
    """Tickets that sit down together in game ``game_id``: the humans in seat order (the first is the game's creator,
    who owns its AI seats), then ``seats - len(players)`` AI seats of ``ai_level``.  Everything the game's set-up
    needs is here, so that it can be made from this event alone, by whoever finds it not made."""

    type: ClassVar[str] = "tickets_matched"
    game_id: str
    players: tuple[MatchSeat, ...]
    seats: int
    ai_level: str | None
    at: int

    @property
    def ticket_ids(self) -> tuple[str, ...]:
        return tuple(seat.ticket_id for seat in self.players)


@dataclass(frozen=True, slots=True)
class GamesMade:
    """The games of these pending matches are made: nobody need make them again."""

    type: ClassVar[str] = "games_made"
    game_ids: tuple[str, ...]
    at: int


PoolEvent = TicketOpened | TicketCancelled | TicketsExpired | TicketsMatched | GamesMade


def _seats_problem(match: TicketsMatched) -> str | None:
    """What makes a match's seats none of ours: at least one human, at most four seats, AIs (of a level) on the rest."""
    players, seats, level = len(match.players), match.seats, match.ai_level
    if not players or not players <= seats <= max(PLAYER_COUNTS) or (level is None) != (seats == players):
        return "the seats of a match"
    return None


#: How each pool event is stored (:mod:`service.domain.codec`): a match's seats compactly, as ``[ticket, player, name]``.
STORED: Events[PoolEvent] = Events(
    "pool",
    [
        Members(TicketOpened, {"ticket": TICKET_FORM}),
        Members(TicketCancelled, {"ticket_id": Text(), "at": Integer()}),
        Members(TicketsExpired, {"ticket_ids": Many(Text()), "at": Integer()}),
        Members(
            TicketsMatched,
            {
                "game_id": Text(),
                "players": Many(Row(MatchSeat, Text())),
                "seats": Integer(),
                "ai_level": Nullable(OneOf(AI_LEVELS)),
                "at": Integer(),
            },
            check=_seats_problem,
        ),
        Members(GamesMade, {"game_ids": Many(Text()), "at": Integer()}),
    ],
)


def event_to_json(event: PoolEvent) -> str:
    """The event as its pool's stream stores it."""
    return STORED.to_json(event)


def event_from_json(text: str) -> PoolEvent:
    """A stored pool event; :class:`~engine.CorruptHistory` for anything no event of ours could be."""
    return STORED.from_json(text)


def event_from_data(data: Any) -> PoolEvent:
    """A pool event as JSON holds it (see :func:`event_from_json`)."""
    return STORED.from_dict(data)


@dataclass
class Pool:
    """The open tickets of one kind, and the matches whose games are not known to be made."""

    kind: str
    tickets: dict[str, Ticket] = field(default_factory=dict)  # open, oldest first
    by_player: dict[str, str] = field(default_factory=dict)  # player id -> their open ticket's id
    pending: dict[str, TicketsMatched] = field(default_factory=dict)  # game id -> its match, oldest first
    version: int = 0
    #: The stored payload of event ``version``: with the version, it names the history this fold came from.
    head: str = ""

    def copy(self) -> Pool:
        return Pool(self.kind, dict(self.tickets), dict(self.by_player), dict(self.pending), self.version, self.head)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tickets": [ticket_to_dict(t) for t in self.tickets.values()],
            "pending": [STORED.to_dict(m) for m in self.pending.values()],
            "version": self.version,
            "head": self.head,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pool:
        pool = cls(str(data["kind"]), version=int(data["version"]), head=str(data["head"]))
        for item in data["tickets"]:
            ticket = ticket_from_dict(item)
            pool.tickets[ticket.id] = ticket
            pool.by_player[ticket.player_id] = ticket.id
        for match in map(event_from_data, data["pending"]):
            if isinstance(match, TicketsMatched):
                pool.pending[match.game_id] = match
        return pool


def fold(pool: Pool, event: PoolEvent) -> None:
    """Apply one event to ``pool``; an event that cannot happen there is corrupt history."""
    if isinstance(event, TicketOpened):
        ticket = event.ticket
        if ticket.id in pool.tickets or ticket.player_id in pool.by_player:
            raise CorruptHistory(f"ticket_opened: {ticket.id} or its player already has an open ticket here")
        pool.tickets[ticket.id] = ticket
        pool.by_player[ticket.player_id] = ticket.id
        return
    if isinstance(event, GamesMade):
        if any(game_id not in pool.pending for game_id in event.game_ids):
            raise CorruptHistory("games_made: a game of no pending match")
        for game_id in event.game_ids:
            del pool.pending[game_id]
        return
    closed = (event.ticket_id,) if isinstance(event, TicketCancelled) else event.ticket_ids
    if len(set(closed)) != len(closed) or any(ticket_id not in pool.tickets for ticket_id in closed):
        raise CorruptHistory(f"{event.type}: a ticket that is not open, or one twice")
    for ticket_id in closed:
        del pool.by_player[pool.tickets.pop(ticket_id).player_id]
    if isinstance(event, TicketsMatched):
        if event.game_id in pool.pending:
            raise CorruptHistory(f"tickets_matched: game {event.game_id} twice")
        pool.pending[event.game_id] = event


# --- commands and the decision --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Open:
    """Open ``ticket`` (its id and times decided by the caller).  Opened already: nothing to do."""

    ticket: Ticket


@dataclass(frozen=True, slots=True)
class Cancel:
    """The player calls their ticket off."""

    ticket_id: str
    player_id: str


@dataclass(frozen=True, slots=True)
class Expire:
    """Close every ticket whose time is up (the matchmaker's)."""


@dataclass(frozen=True, slots=True)
class Made:
    """These matches' games are made (the matchmaker made them, or found them made)."""

    game_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Found:
    """A table :func:`find_matches` can seat now: tickets in seat order, how many seats, the AIs' level (if any)."""

    ticket_ids: tuple[str, ...]
    seats: int
    ai_level: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """Record tables found, each under the id its game will have; none may seat two players ``apart`` keeps apart."""

    matches: tuple[tuple[str, Found], ...]
    apart: Apart = NOBODY_APART


PoolCommand = Open | Cancel | Expire | Record | Made


def decide(pool: Pool, command: PoolCommand, now: int) -> list[PoolEvent]:
    """The events ``command`` makes on ``pool`` at ``now``, or a :class:`~service.common.errors.Refused`; ``pool`` unchanged.

    An empty list: nothing to do (a ticket opened already, one no longer open to cancel, nothing expired, games
    already known made).
    """
    if isinstance(command, Open):
        return _open(pool, command.ticket, now)
    if isinstance(command, Cancel):
        ticket = pool.tickets.get(command.ticket_id)
        if ticket is None:
            return []  # closed already: what became of it is in the stream
        if ticket.player_id != command.player_id:
            raise NotFound("match_ticket_not_found", f"You have no match ticket {command.ticket_id!r}.")
        if ticket.expired(now):
            return [TicketsExpired((ticket.id,), now)]
        return [TicketCancelled(ticket.id, now)]
    if isinstance(command, Expire):
        expired = tuple(t.id for t in pool.tickets.values() if t.expired(now))
        return [TicketsExpired(expired, now)] if expired else []
    if isinstance(command, Made):
        made = tuple(dict.fromkeys(game_id for game_id in command.game_ids if game_id in pool.pending))
        return [GamesMade(made, now)] if made else []
    return _record(pool, command, now)


def _open(pool: Pool, ticket: Ticket, now: int) -> list[PoolEvent]:
    if ticket.id in pool.tickets:
        return []
    if (problem := ticket.problem()) is not None:
        raise Refused("invalid_request", problem)
    events: list[PoolEvent] = []
    held = pool.tickets.get(pool.by_player.get(ticket.player_id, ""))
    if held is not None:
        if not held.expired(now):
            raise Refused(
                "match_ticket_already_open",
                f"You already wait for a game of this kind with ticket {held.id}: cancel it first, or keep waiting.",
                ticket_id=held.id,
            )
        events.append(TicketsExpired((held.id,), now))
    return [*events, TicketOpened(ticket)]


def _record(pool: Pool, command: Record, now: int) -> list[PoolEvent]:
    events: list[PoolEvent] = []
    seated: set[str] = set()
    for game_id, found in command.matches:
        tickets = [pool.tickets.get(ticket_id) for ticket_id in found.ticket_ids]
        if any(t is None for t in tickets) or seated & set(found.ticket_ids):
            raise ValueError(f"match {game_id}: a ticket that is not open, or already seated")
        present = [t for t in tickets if t is not None]
        if (problem := table_problem(present, found.seats, found.ai_level, now, command.apart)) is not None:
            raise ValueError(f"match {game_id}: {problem}")
        seated |= set(found.ticket_ids)
        players = tuple(MatchSeat(t.id, t.player_id, t.name) for t in present)
        events.append(TicketsMatched(game_id, players, found.seats, found.ai_level, now))
    return events


def table_problem(
    tickets: Sequence[Ticket], seats: int, ai_level: str | None, now: int, apart: Apart = NOBODY_APART
) -> str | None:
    """What makes these tickets no table at ``now`` (``None``: a good one): every ticket's preferences, checked, and
    no two of its players kept ``apart`` (a block either way)."""
    if not tickets or len({t.id for t in tickets}) != len(tickets) or len({t.player_id for t in tickets}) != len(tickets):
        return "a table seats tickets of different players, each once"
    if not len(tickets) <= seats <= max(PLAYER_COUNTS):
        return f"{len(tickets)} players at a table of {seats}"
    if any(seats not in t.counts for t in tickets):
        return f"a ticket does not accept {seats} players"
    if any(t.expired(now) for t in tickets):
        return "an expired ticket"
    if any(not compatible(a, b, now) for n, a in enumerate(tickets) for b in tickets[n + 1 :]):
        return "a rating outside another's range"
    if apart and apart.any_among(t.player_id for t in tickets):
        return "two players a block keeps apart"
    if seats > len(tickets):
        if ai_level is None or any(not t.ai_due(now) or t.ai_level != ai_level for t in tickets):
            return "AI seats at a table whose tickets do not all ask for them now, of that level"
    elif ai_level is not None:
        return "an AI level with no AI seat"
    return None
