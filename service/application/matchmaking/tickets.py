"""A player's quick-match tickets: opened (caps, once per Idempotency-Key), read and cancelled.

A ticket lives in its pool's stream (:mod:`service.domain.matchmaking` decides and folds), and in its player's index,
which finds it without a scan: an entry is made before the ticket is appended, and a ticket that is over is cached
there as such (its fate read from its pool's stream from where it was opened).  A read that finds the ticket matched
makes its game if it is not there yet, as the matchmaker would (:meth:`Matchmaker.finish
<service.application.matchmaking.matchmaker.Matchmaker.finish>`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from engine import Variant
from service.application.erasure import DELETED_NAME
from service.application.matchmaking.matchmaker import Matchmaker
from service.common.errors import NotConfirmed, NotFound, Refused
from service.domain.matchmaking import (
    Cancel,
    Kind,
    Open,
    Pool,
    PoolEvent,
    RatingRange,
    Ticket,
    TicketCancelled,
    TicketOpened,
    TicketsExpired,
    TicketsMatched,
    decide,
    event_from_json,
    ticket_from_dict,
    ticket_to_dict,
)
from service.domain.ratings import ladder_of
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.idempotency import CreateRecords
from service.storage.matchmaking import PoolStreams, TooManyTickets
from service.storage.players import Player, new_id

#: A ticket's entry younger than this (ms) whose ticket is nowhere yet may be a create still on its way: kept.
IN_FLIGHT_MS = 10_000
#: How long a ticket that is over stays readable (ms): its entry leaves the player's index after that.
KEEP_CLOSED_MS = 24 * 3600 * 1000
#: Attempts of a player's write to a pool under contention (each after a short random pause).
WRITE_ATTEMPTS = 40


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class TicketRequest:
    """What a player asks for: the kind of game, the counts they accept, their rating range, AIs after a while."""

    counts: tuple[int, ...] = (2, 3, 4)
    variant: Variant = Variant.ADVANCED
    action_rules: bool = False
    rated: bool = False
    #: The time control: a live turn limit in seconds, or days per turn (neither: a live 60 s).
    turn_seconds: int | None = None
    days_per_turn: int | None = None
    rating_range: int = 100
    rating_widen: int = 100  # a minute
    rating_range_max: int = 500
    ai_fill_after: float | None = None  # seconds
    ai_level: str = "greedy"
    expires_in: int | None = None  # seconds; None: the server's default

    def kind(self) -> Kind:
        live = self.turn_seconds if self.turn_seconds is not None or self.days_per_turn is not None else 60
        return Kind(self.variant.value, self.action_rules, self.rated, live, self.days_per_turn)


@dataclass(frozen=True, slots=True)
class TicketView:
    """A ticket as its player reads it: ``status`` waiting, matched, cancelled or expired."""

    ticket: Ticket
    kind: Kind
    status: str
    now: int
    game_id: str | None = None
    closed_at: int | None = None
    replayed: bool = False

    @property
    def waited_ms(self) -> int:
        return max(0, (self.closed_at if self.closed_at is not None else self.now) - self.ticket.opened)

    @property
    def rating_range_now(self) -> tuple[int, int]:
        """The ratings the ticket accepts now (or when it closed)."""
        width = self.ticket.range.width(self.waited_ms)
        return self.ticket.rating - width, self.ticket.rating + width

    def closed(self) -> dict[str, Any]:
        return {"status": self.status, "at": self.closed_at, "game_id": self.game_id, "ticket": ticket_to_dict(self.ticket)}


class TicketDesk(Matchmaker):
    """A player's tickets, as they open, read and cancel them (part of :class:`MatchService
    <service.application.matchmaking.MatchService>`, which holds what it reads)."""

    pool_streams: PoolStreams
    create_records: CreateRecords
    rating_of: Callable[[str, str], int]
    max_tickets: int
    expiry: int
    max_expiry: int

    def create(self, player: Player, request: TicketRequest, idempotency: Idempotency | None = None) -> TicketView:
        """Open a ticket: ``match_ticket_already_open`` if the player waits for this kind of game already,
        ``match_ticket_limit_reached`` at ``max_tickets`` open in all.  With ``idempotency``, once per key."""
        try:
            return self._create(player, request, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _create(self, player: Player, request: TicketRequest, idempotency: Idempotency | None) -> TicketView:
        kind = request.kind()
        if idempotency is not None:
            first = self.create_records.find(self.games.players.create_records_key(player.id), idempotency)
            if first is not None:
                return self._create_again(player, request, kind, first)
        now = self.clock()
        expires_in = request.expires_in if request.expires_in is not None else self.expiry
        if not 0 < expires_in <= self.max_expiry:
            raise Refused(
                "invalid_request",
                f"expires_in is 1 to {self.max_expiry} seconds on this server.",
                errors=[{"field": "expires_in", "message": f"must be 1 to {self.max_expiry}", "location": "json"}],
            )
        rating = self.rating_of(player.id, ladder_of(kind.variant == Variant.ADVANCED.value))  # on the kind's ladder
        ticket = self._ticket(new_id("mt"), player, request, now, now + expires_in * 1000, rating)
        self.games.quotas.check_join(player)  # a ticket becomes a game: not for a player in as many as they may be
        if kind.rated:
            self.games.check_rated(player)  # nor a rated one for a player who may not play one now
        pool = self.pools.load(kind.key)
        decide(pool, Open(ticket), now)  # refused here (one open ticket a kind) before anything is written
        self._settle(player)
        entry = {"pool": kind.key, "from": pool.version, "opened": now}
        made = {"id": ticket.id, "opened": now, "expires": ticket.expires, "rating": ticket.rating, "from": pool.version}
        try:
            first = self.ticket_index.claim(
                player.id, ticket.id, entry, limit=self.max_tickets, idempotency=idempotency, made=made
            )
        except TooManyTickets:
            raise Refused(
                "match_ticket_limit_reached",
                f"You hold {self.max_tickets} open match tickets, as many as a player may: cancel one, or wait for a game.",
                limit=self.max_tickets,
            ) from None
        if first is not None:  # an attempt with this key beside this one claimed it first
            return self._create_again(player, request, kind, first)
        return self._open(player, kind, ticket)

    def _open(self, player: Player, kind: Kind, ticket: Ticket) -> TicketView:
        self.ticket_index.add_pool(kind.key)  # before the append: the matchmaker's round has the pool first
        try:
            self.writer.write(kind.key, lambda pool: decide(pool, Open(ticket), self.clock()), WRITE_ATTEMPTS)
        except NotConfirmed:
            raise  # stored, if not on enough replicas yet: it stays listed
        except Refused:
            self.ticket_index.drop(player.id, ticket.id)
            raise
        return self._view(ticket, kind)

    def _create_again(self, player: Player, request: TicketRequest, kind: Kind, first: dict[str, Any]) -> TicketView:
        """A retry of a create: the ticket as it is now, or opened now if the first attempt never appended it."""
        entry = self.ticket_index.entry(player.id, first["id"])
        if entry is None:  # dropped: the first attempt was refused, or its append was never confirmed
            entry = {"pool": kind.key, "from": first["from"], "opened": first["opened"]}
            self.ticket_index.put(player.id, first["id"], entry)
        found = self._find(player.id, first["id"], entry)
        if found is None:
            ticket = self._ticket(first["id"], player, request, first["opened"], first["expires"], first["rating"])
            found = self._open(player, kind, ticket)
        return TicketView(found.ticket, found.kind, found.status, found.now, found.game_id, found.closed_at, replayed=True)

    @staticmethod
    def _ticket(ticket_id: str, player: Player, request: TicketRequest, opened: int, expires: int, rating: int) -> Ticket:
        fill = None if request.ai_fill_after is None else round(request.ai_fill_after * 1000)
        ticket = Ticket(
            ticket_id,
            player.id,
            player.name,
            tuple(sorted(set(request.counts))),
            rating,
            RatingRange(request.rating_range, request.rating_widen, request.rating_range_max),
            opened,
            expires,
            fill,
            request.ai_level,
        )
        if (problem := ticket.problem()) is not None:
            raise Refused("invalid_request", problem)
        return ticket

    def get(self, player: Player, ticket_id: str) -> TicketView:
        """The player's ticket as it is now; a match whose game is not made yet is made first."""
        entry = self.ticket_index.entry(player.id, ticket_id)
        found = self._find(player.id, ticket_id, entry) if entry is not None else None
        if found is None:
            raise NotFound("match_ticket_not_found", f"You have no match ticket {ticket_id!r}.")
        return found

    def cancel(self, player: Player, ticket_id: str) -> TicketView:
        """Call the ticket off; one that is over already is answered as it is, a matched one refused (its game)."""
        entry = self.ticket_index.entry(player.id, ticket_id)
        if entry is None:
            raise NotFound("match_ticket_not_found", f"You have no match ticket {ticket_id!r}.")
        if "closed" not in entry:
            self.writer.write(entry["pool"], partial(self._cancelled, ticket_id, player.id), WRITE_ATTEMPTS)
        found = self.get(player, ticket_id)
        if found.status == "matched":
            raise Refused(
                "match_ticket_matched", f"Your ticket was matched already: your game is {found.game_id}.", game_id=found.game_id
            )
        return found

    def open_tickets(self, player: Player) -> list[TicketView]:
        """The player's tickets still waiting (those over are closed in their index on the way)."""
        self._settle(player)
        return [
            view
            for ticket_id, entry in self.ticket_index.entries(player.id).items()
            if "closed" not in entry
            and (view := self._find(player.id, ticket_id, entry)) is not None
            and view.status == "waiting"
        ]

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's waiting tickets are cancelled (the account's ``on_account_deleted`` hook), before the
        account goes and again after, on its tombstone: found in the player's index, which a ticket enters before it is
        appended.  A ticket matched already has its game made here if it is not yet, which the player then leaves."""
        self.close_tickets_of(self.games.players.get(player_id) or Player(player_id, DELETED_NAME, ""))

    def close_tickets_of(self, player: Player) -> int:
        """Cancel every ticket of the player still waiting (an account deleted): how many there were."""
        waiting = self.open_tickets(player)
        for view in waiting:
            self.writer.write(view.kind.key, partial(self._cancelled, view.ticket.id, player.id), WRITE_ATTEMPTS)
            self.get(player, view.ticket.id)  # closed in the player's index (cancelled, or matched just before)
        return len(waiting)

    def _cancelled(self, ticket_id: str, player_id: str, pool: Pool) -> list[PoolEvent]:
        return decide(pool, Cancel(ticket_id, player_id), self.clock())

    def _settle(self, player: Player) -> None:
        """Close, in the player's index, the entries of tickets that are over; drop those long over, or never opened."""
        now = self.clock()
        gone = []
        for ticket_id, entry in self.ticket_index.entries(player.id).items():
            closed = entry.get("closed")
            if closed is not None:
                if now - (closed.get("at") or entry["opened"]) > KEEP_CLOSED_MS:
                    gone.append(ticket_id)
            elif self._find(player.id, ticket_id, entry) is None and now - entry["opened"] > IN_FLIGHT_MS:
                gone.append(ticket_id)
        self.ticket_index.drop(player.id, *gone)

    def _find(self, player_id: str, ticket_id: str, entry: dict[str, Any]) -> TicketView | None:
        """The ticket as it is now (``None``: never opened), from the index's cache, its pool, or its pool's stream.

        A ticket found over is cached as such in the index; a matched one only once its game is made.
        """
        kind = Kind.parse(entry["pool"])
        closed = entry.get("closed")
        if closed is not None:
            return TicketView(
                ticket_from_dict(closed["ticket"]), kind, closed["status"], self.clock(), closed["game_id"], closed["at"]
            )
        pool = self.pools.load(kind.key)
        now = self.clock()
        ticket = pool.tickets.get(ticket_id)
        match = None
        if ticket is not None and ticket.player_id == player_id:
            view: TicketView | None = self._view(ticket, kind, now)
        else:
            view, match = self._from_history(player_id, ticket_id, kind, entry["from"], now)
        if match is not None:
            self.finish(kind, match)
        if view is not None and view.status != "waiting":
            self.ticket_index.put(player_id, ticket_id, {**entry, "closed": view.closed()})
        return view

    def _view(self, ticket: Ticket, kind: Kind, now: int | None = None) -> TicketView:
        now = self.clock() if now is None else now
        if ticket.expired(now):
            return TicketView(ticket, kind, "expired", now, closed_at=ticket.expires)
        return TicketView(ticket, kind, "waiting", now)

    def _from_history(
        self, player_id: str, ticket_id: str, kind: Kind, after: int, now: int
    ) -> tuple[TicketView | None, TicketsMatched | None]:
        """What became of a ticket that is not open, read from its pool's stream from where it was opened (and the
        match that seated it, if one did)."""
        ticket = None
        for stored in self.pool_streams.read_all(kind.key, after=after):
            event = event_from_json(stored.payload)
            if isinstance(event, TicketOpened):
                if event.ticket.id == ticket_id and event.ticket.player_id == player_id:
                    ticket = event.ticket
            elif ticket is None:
                continue
            elif isinstance(event, TicketCancelled) and event.ticket_id == ticket_id:
                return TicketView(ticket, kind, "cancelled", now, closed_at=event.at), None
            elif isinstance(event, TicketsExpired) and ticket_id in event.ticket_ids:
                return TicketView(ticket, kind, "expired", now, closed_at=event.at), None
            elif isinstance(event, TicketsMatched) and ticket_id in event.ticket_ids:
                return TicketView(ticket, kind, "matched", now, event.game_id, event.at), event
        return (None if ticket is None else self._view(ticket, kind, now)), None  # None: opened since the pool was read
