"""Who sits down together: the pairing policy that finds the tables a pool can seat now — pure, and only a proposal.

How tables are chosen (:func:`find_matches`): the oldest ticket first, each takes the fullest table it can make with
the tickets nearest its rating (every player within every other's range as it has widened by now, the count in
everyone's counts).  A table short of the ticket's largest count waits for a fuller one, but not long: half a second
in a live pool (two live players should be playing within a second or two), ten minutes in a correspondence pool
(nobody watches a correspondence ticket; a fuller table is worth the wait).  A ticket whose ``ai_fill_after`` has
passed with no table gets one with AI seats: the humans it can find whose own ``ai_fill_after`` has passed too (same
AI level), and AIs for the rest, up to the fewest seats everyone accepts.  Two players a block keeps apart (either way:
:class:`~service.domain.blocks.Apart`) never sit at one table: each passes the other by as one out of range.

It is apart from the pool's rules (:mod:`service.domain.matchmaking.pool`) because it is a policy, not a rule: what
it finds is recorded only through the pool's decision (``Record``), which holds every table to every ticket's
preferences again, so a better policy can replace this one without any history changing meaning.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from service.domain.blocks import NOBODY_APART, Apart
from service.domain.matchmaking.pool import Found, Pool
from service.domain.matchmaking.tickets import Kind, Ticket, compatible

#: How long a table short of its oldest ticket's largest count waits for a fuller one (ms), live and correspondence.
LIVE_PATIENCE_MS = 500
CORRESPONDENCE_PATIENCE_MS = 10 * 60_000
#: Tickets looked at, nearest rating first, to seat one table: bounds a pass over a pool of thousands whose tickets
#: mostly do not fit each other (a table may be missed for it, never a wrong one made).
LOOK_AHEAD = 200


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
    apart: Apart = NOBODY_APART,
) -> list[Found]:
    """The tables that can sit down at ``now``: no ticket in two, each ticket's preferences respected, no two players
    ``apart`` keeps apart (a block either way) at one table.

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
        table = _human_table(ticket, waiting, at, now, patience, apart) or _ai_table(ticket, waiting, at, now, apart)
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


def _fits(other: Ticket, table: list[Ticket], now: int, apart: Apart) -> bool:
    """Whether ``other`` may join ``table``: in every member's range (and they in its), kept apart from none."""
    return all(compatible(other, member, now) and not apart(other.player_id, member.player_id) for member in table)


def _human_table(ticket: Ticket, waiting: _Waiting, at: int, now: int, patience: int, apart: Apart) -> list[Ticket] | None:
    """The fullest table of humans ``ticket`` can sit at now, if it should sit down now rather than wait for a fuller one."""
    for count in sorted(ticket.counts, reverse=True):
        table = [ticket]
        for other in waiting.nearest(ticket, at, now):
            if count in other.counts and _fits(other, table, now, apart):
                table.append(other)
                if len(table) == count:
                    break
        if len(table) < count:
            continue
        if count == max(ticket.counts) or max(member.waited(now) for member in table) >= patience:
            return table
        return None  # a table, but a fuller one may come: wait (for the pool's patience at most)
    return None


def _ai_table(ticket: Ticket, waiting: _Waiting, at: int, now: int, apart: Apart) -> _AiTable | None:
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
            and _fits(other, table, now, apart)
        ):
            table.append(other)
            counts = shared
    table.seats = min(n for n in counts if n >= len(table))
    table.level = ticket.ai_level
    return table
