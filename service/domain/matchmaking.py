"""Quick match's rules: tickets waiting in a pool, and who sits down together — pure, like the lobby.

A *pool* holds the tickets of one kind of game (:class:`Kind`: variant, action rules, rated or not, the time
control): only tickets of one kind can ever share a table, so a pool is the unit that is decided on and appended
to, as a game is.  Its stream holds a ticket opened, cancelled, expired, and tickets matched (the tickets, the
game's id and its seats, decided before the game is made, so that whoever finds a match whose game is not there
yet makes it under that id); then games made, which the matchmaker appends once it has made (or found) a match's
game: until then the match is *pending* in the pool, however long that takes, and every pass makes it again.
:func:`decide` turns a command into events (or refuses it with a stable code), :func:`fold` applies one, and
:func:`find_matches` says which tables can sit down now.  Nothing here does
I/O or reads a clock: every function that needs the time takes ``now`` (epoch milliseconds).

Inside a pool, tickets differ in the player counts they accept (2 to 4), their rating and the range around it that
widens as they wait, and whether the empty seats may become AI seats after a while (``ai_fill_after``, of a level).
How tables are chosen (:func:`find_matches`): the oldest ticket first, each takes the fullest table it can make with
the tickets nearest its rating (every player within every other's range as it has widened by now, the count in
everyone's counts).  A table short of the ticket's largest count waits for a fuller one, but not long: half a second
in a live pool (two live players should be playing within a second or two), ten minutes in a correspondence pool
(nobody watches a correspondence ticket; a fuller table is worth the wait).  A ticket whose ``ai_fill_after`` has
passed with no table gets one with AI seats: the humans it can find whose own ``ai_fill_after`` has passed too (same
AI level), and AIs for the rest, up to the fewest seats everyone accepts.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import CorruptHistory, Variant
from service.common.errors import NotFound, Refused
from service.domain.lobby import AI_LEVELS, DAYS_PER_TURN

#: The player counts a ticket may accept.
PLAYER_COUNTS = (2, 3, 4)
#: A live ticket's time control: seconds per turn, from these (fewer pools, each fuller, than any number would make).
LIVE_TURN_SECONDS = (30, 60, 120, 300)
#: A ticket's rating when its player has none on the kind's ladder.
DEFAULT_RATING = 1000  # a new player's displayed rating (service.domain.ratings.NEW; tests/service/domain/test_matchmaking.py)
#: How long a table short of its oldest ticket's largest count waits for a fuller one (ms), live and correspondence.
LIVE_PATIENCE_MS = 500
CORRESPONDENCE_PATIENCE_MS = 10 * 60_000
#: Tickets looked at, nearest rating first, to seat one table: bounds a pass over a pool of thousands whose tickets
#: mostly do not fit each other (a table may be missed for it, never a wrong one made).
LOOK_AHEAD = 200

MINUTE_MS = 60_000


# --- the kind of game: what must be equal to share a table ----------------------------------------


@dataclass(frozen=True, slots=True)
class Kind:
    """What two tickets must agree on to share a table; its :attr:`key` names the pool."""

    variant: str = Variant.ADVANCED.value
    action_rules: bool = False
    rated: bool = False
    turn_seconds: int | None = 60
    days_per_turn: int | None = None

    def __post_init__(self) -> None:
        if self.variant not in tuple(v.value for v in Variant):
            raise Refused("invalid_request", f"{self.variant!r} is not a variant.", field="variant")
        if (self.turn_seconds is None) == (self.days_per_turn is None):
            raise Refused(
                "invalid_request",
                "A ticket has a live turn limit (turn_seconds) or days per turn, not both.",
                field="days_per_turn",
            )
        if self.turn_seconds is not None and self.turn_seconds not in LIVE_TURN_SECONDS:
            raise Refused("invalid_request", f"turn_seconds is one of {LIVE_TURN_SECONDS}.", field="turn_seconds")
        if self.days_per_turn is not None and self.days_per_turn not in DAYS_PER_TURN:
            raise Refused("invalid_request", f"days_per_turn is one of {DAYS_PER_TURN}.", field="days_per_turn")

    @property
    def live(self) -> bool:
        return self.turn_seconds is not None

    @property
    def key(self) -> str:
        """``advanced-plain-casual-60s``, ``basic-actions-rated-3d``: letters, digits and ``-`` only."""
        clock = f"{self.turn_seconds}s" if self.turn_seconds is not None else f"{self.days_per_turn}d"
        return "-".join((self.variant, "actions" if self.action_rules else "plain", "rated" if self.rated else "casual", clock))

    @classmethod
    def parse(cls, key: str) -> Kind:
        try:
            variant, rules, rated, clock = key.split("-")
            number = int(clock[:-1])
            if rules not in ("actions", "plain") or rated not in ("rated", "casual") or clock[-1:] not in ("s", "d"):
                raise ValueError(key)
            live = clock[-1] == "s"
            return cls(variant, rules == "actions", rated == "rated", number if live else None, None if live else number)
        except (ValueError, Refused):
            raise CorruptHistory(f"{key!r} names no pool") from None


# --- tickets --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingRange:
    """``start`` either side of the ticket's rating, wider by ``widen`` a minute of waiting, up to ``most``."""

    start: int = 100
    widen: int = 100
    most: int = 500

    def width(self, waited_ms: int) -> int:
        return min(self.most, self.start + self.widen * max(0, waited_ms) // MINUTE_MS)


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player waiting for a table: the counts they accept, their rating and range, how long until AIs fill in."""

    id: str
    player_id: str
    name: str
    counts: tuple[int, ...]
    rating: int
    range: RatingRange
    opened: int  # ms
    expires: int  # ms
    ai_fill_after: int | None = None  # ms after opening; None: never
    ai_level: str = "greedy"

    def waited(self, now: int) -> int:
        return max(0, now - self.opened)

    def width(self, now: int) -> int:
        return self.range.width(self.waited(now))

    def expired(self, now: int) -> bool:
        return now >= self.expires

    def ai_due(self, now: int) -> bool:
        return self.ai_fill_after is not None and self.waited(now) >= self.ai_fill_after

    def problem(self) -> str | None:
        """What makes this no ticket the service takes, or ``None``."""
        if not self.id or not self.player_id:
            return "a ticket has an id and a player"
        if not self.counts or sorted(set(self.counts)) != list(self.counts) or not set(self.counts) <= set(PLAYER_COUNTS):
            return f"player_counts are some of {list(PLAYER_COUNTS)}, each once"
        if not 0 <= self.range.start <= self.range.most or self.range.widen < 0:
            return "a rating range starts at 0 or more, widens by 0 or more, and is at most its maximum"
        if self.ai_fill_after is not None and self.ai_fill_after < 0:
            return "ai_fill_after is 0 or more seconds"
        if self.ai_level not in AI_LEVELS:
            return f"ai_level is one of {', '.join(AI_LEVELS)}"
        if self.expires <= self.opened:
            return "a ticket expires after it is opened"
        return None


def compatible(a: Ticket, b: Ticket, now: int) -> bool:
    """Each of the two within the other's rating range as it has widened by ``now``."""
    gap = abs(a.rating - b.rating)
    return gap <= a.width(now) and gap <= b.width(now)


# --- events ---------------------------------------------------------------------------------------


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


def ticket_to_dict(ticket: Ticket) -> dict[str, Any]:
    return {
        "id": ticket.id,
        "player_id": ticket.player_id,
        "name": ticket.name,
        "counts": list(ticket.counts),
        "rating": ticket.rating,
        "range": [ticket.range.start, ticket.range.widen, ticket.range.most],
        "opened": ticket.opened,
        "expires": ticket.expires,
        "ai_fill_after": ticket.ai_fill_after,
        "ai_level": ticket.ai_level,
    }


def ticket_from_dict(data: Any) -> Ticket:
    try:
        start, widen, most = (int(n) for n in data["range"])
        ticket = Ticket(
            id=str(data["id"]),
            player_id=str(data["player_id"]),
            name=str(data["name"]),
            counts=tuple(int(n) for n in data["counts"]),
            rating=int(data["rating"]),
            range=RatingRange(start, widen, most),
            opened=int(data["opened"]),
            expires=int(data["expires"]),
            ai_fill_after=None if data["ai_fill_after"] is None else int(data["ai_fill_after"]),
            ai_level=str(data["ai_level"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptHistory(f"ticket_opened: not a ticket ({exc})") from None
    if (problem := ticket.problem()) is not None:
        raise CorruptHistory(f"ticket_opened: {problem}")
    return ticket


def event_to_json(event: PoolEvent) -> str:
    """The event as its pool's stream stores it."""
    data: dict[str, Any] = {"type": event.type}
    if isinstance(event, TicketOpened):
        data["ticket"] = ticket_to_dict(event.ticket)
    elif isinstance(event, TicketCancelled):
        data.update(ticket_id=event.ticket_id, at=event.at)
    elif isinstance(event, TicketsExpired):
        data.update(ticket_ids=list(event.ticket_ids), at=event.at)
    elif isinstance(event, GamesMade):
        data.update(game_ids=list(event.game_ids), at=event.at)
    else:
        data.update(
            game_id=event.game_id,
            players=[[s.ticket_id, s.player_id, s.name] for s in event.players],
            seats=event.seats,
            ai_level=event.ai_level,
            at=event.at,
        )
    return json.dumps(data, separators=(",", ":"))


def event_from_json(text: str) -> PoolEvent:
    """A stored pool event; :class:`~engine.CorruptHistory` for anything no event of ours could be."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CorruptHistory(f"not a pool event: {exc}") from None
    return event_from_data(data)


def event_from_data(data: Any) -> PoolEvent:
    """A pool event as JSON holds it (see :func:`event_from_json`)."""
    try:
        kind = data["type"]
        if kind == "ticket_opened":
            return TicketOpened(ticket_from_dict(data["ticket"]))
        if kind == "ticket_cancelled":
            return TicketCancelled(str(data["ticket_id"]), int(data["at"]))
        if kind == "tickets_expired":
            return TicketsExpired(tuple(str(t) for t in data["ticket_ids"]), int(data["at"]))
        if kind == "games_made":
            return GamesMade(tuple(str(g) for g in data["game_ids"]), int(data["at"]))
        if kind == "tickets_matched":
            players = tuple(MatchSeat(str(t), str(p), str(n)) for t, p, n in data["players"])
            level = data["ai_level"]
            if level is not None and level not in AI_LEVELS:
                raise ValueError(f"{level!r} is not an AI level")
            seats = int(data["seats"])
            if not players or not len(players) <= seats <= max(PLAYER_COUNTS) or (level is None) != (seats == len(players)):
                raise ValueError("the seats of a match")
            return TicketsMatched(str(data["game_id"]), players, seats, level, int(data["at"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptHistory(f"not a pool event: {exc}") from None
    raise CorruptHistory(f"{kind!r} is not a pool event")


# --- the pool and its fold ------------------------------------------------------------------------


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
            "pending": [json.loads(event_to_json(m)) for m in self.pending.values()],
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
    """Record tables found, each under the id its game will have."""

    matches: tuple[tuple[str, Found], ...]


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
        if (problem := table_problem(present, found.seats, found.ai_level, now)) is not None:
            raise ValueError(f"match {game_id}: {problem}")
        seated |= set(found.ticket_ids)
        players = tuple(MatchSeat(t.id, t.player_id, t.name) for t in present)
        events.append(TicketsMatched(game_id, players, found.seats, found.ai_level, now))
    return events


def table_problem(tickets: Sequence[Ticket], seats: int, ai_level: str | None, now: int) -> str | None:
    """What makes these tickets no table at ``now`` (``None``: a good one): every ticket's preferences, checked."""
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
    if seats > len(tickets):
        if ai_level is None or any(not t.ai_due(now) or t.ai_level != ai_level for t in tickets):
            return "AI seats at a table whose tickets do not all ask for them now, of that level"
    elif ai_level is not None:
        return "an AI level with no AI seat"
    return None


# --- matching ---------------------------------------------------------------------------------------


def _age(ticket: Ticket) -> tuple[int, str]:
    return ticket.opened, ticket.id


def _by_rating(ticket: Ticket) -> tuple[int, int, str]:
    return ticket.rating, ticket.opened, ticket.id


class _Waiting:
    """The tickets not seated yet, in rating order, to walk outwards from one of them."""

    def __init__(self, tickets: list[Ticket]) -> None:
        self.tickets = sorted(tickets, key=_by_rating)
        self.keys = [_by_rating(t) for t in self.tickets]

    def index(self, ticket: Ticket) -> int | None:
        key = _by_rating(ticket)
        at = bisect_left(self.keys, key)
        return at if at < len(self.keys) and self.keys[at] == key else None

    def remove(self, ticket: Ticket) -> None:
        at = self.index(ticket)
        if at is not None:
            del self.keys[at], self.tickets[at]

    def nearest(self, ticket: Ticket, at: int, now: int) -> Iterator[Ticket]:
        """The others within ``ticket``'s range now, nearest rating first (at most :data:`LOOK_AHEAD`)."""
        width = ticket.width(now)
        low, high, given = at - 1, at + 1, 0
        while given < LOOK_AHEAD:
            below = ticket.rating - self.tickets[low].rating if low >= 0 else None
            above = self.tickets[high].rating - ticket.rating if high < len(self.tickets) else None
            if below is not None and below <= width and (above is None or above > width or below <= above):
                yield self.tickets[low]
                low -= 1
            elif above is not None and above <= width:
                yield self.tickets[high]
                high += 1
            else:
                return
            given += 1


def find_matches(
    pool: Pool,
    now: int,
    *,
    live_patience: int = LIVE_PATIENCE_MS,
    correspondence_patience: int = CORRESPONDENCE_PATIENCE_MS,
) -> list[Found]:
    """The tables that can sit down at ``now``: no ticket in two, each ticket's preferences respected.

    The oldest ticket first: it takes the fullest table it can make (see the module), or waits for a fuller one for
    the pool's patience, or has its empty seats filled by AIs once its ``ai_fill_after`` has passed.
    """
    patience = live_patience if Kind.parse(pool.kind).live else correspondence_patience
    oldest_first = sorted((t for t in pool.tickets.values() if not t.expired(now)), key=_age)
    waiting = _Waiting(oldest_first)
    found: list[Found] = []
    for ticket in oldest_first:
        at = waiting.index(ticket)
        if at is None:
            continue  # seated at an older ticket's table
        table = _human_table(ticket, waiting, at, now, patience) or _ai_table(ticket, waiting, at, now)
        if table is None:
            continue
        for member in table:
            waiting.remove(member)
        seats = len(table) if not isinstance(table, _AiTable) else table.seats
        level = table.level if isinstance(table, _AiTable) and table.seats > len(table) else None
        found.append(Found(tuple(t.id for t in sorted(table, key=_age)), seats, level))
    return found


class _AiTable(list[Ticket]):
    """Humans at a table whose other seats are AIs'."""

    seats: int
    level: str


def _human_table(ticket: Ticket, waiting: _Waiting, at: int, now: int, patience: int) -> list[Ticket] | None:
    """The fullest table of humans ``ticket`` can sit at now, if it should sit down now rather than wait for a fuller one."""
    for count in sorted(ticket.counts, reverse=True):
        table = [ticket]
        for other in waiting.nearest(ticket, at, now):
            if count in other.counts and all(compatible(other, member, now) for member in table):
                table.append(other)
                if len(table) == count:
                    break
        if len(table) < count:
            continue
        if count == max(ticket.counts) or max(member.waited(now) for member in table) >= patience:
            return table
        return None  # a table, but a fuller one may come: wait (for the pool's patience at most)
    return None


def _ai_table(ticket: Ticket, waiting: _Waiting, at: int, now: int) -> _AiTable | None:
    """Once ``ticket``'s ``ai_fill_after`` has passed: it, the humans it can find who also ask for AIs now (of its
    level), and AIs on the other seats, up to the fewest seats all of them accept."""
    if not ticket.ai_due(now):
        return None
    table = _AiTable([ticket])
    counts = set(ticket.counts)
    for other in waiting.nearest(ticket, at, now):
        if len(table) == max(counts):
            break
        shared = counts & set(other.counts)
        if (
            other.ai_due(now)
            and other.ai_level == ticket.ai_level
            and any(n > len(table) for n in shared)
            and all(compatible(other, member, now) for member in table)
        ):
            table.append(other)
            counts = shared
    table.seats = min(n for n in counts if n >= len(table))
    table.level = ticket.ai_level
    return table
