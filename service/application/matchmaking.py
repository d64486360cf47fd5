"""Quick match: a player's tickets (open, read, cancel) and the matchmaker's pass, over the pools' streams.

A ticket lives in its pool's stream (:mod:`service.domain.matchmaking` decides and folds; :mod:`service.storage.matchmaking`
keeps), and in its player's index, which finds it without a scan.  Every write to a pool is load, decide, append
with the version (and head) that was read: two writers never both win, the loser decides again on the pool as it
is now.  So a matchmaker and a cancel, or two matchmakers, cannot seat a ticket twice or seat a cancelled one.

A match is decided (the game's id and seats in the ``tickets_matched`` event) before its game is made with
:meth:`GameService.set_up <service.application.games.GameService.set_up>` under that id, which makes a game once
however often it is asked.  Whoever finds a match whose game is not there yet makes it: the matchmaker's next
pass (a match stays pending in its pool until a ``games_made`` event says its game is made) and the ticket's next
read.  Nobody is matched but not seated.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import redis

from engine import CorruptHistory, Variant
from service.application.commands import NewGame, SeatRequest
from service.application.erasure import DELETED_NAME
from service.application.games import GameService
from service.common.errors import NotConfirmed, NotFound, Refused
from service.domain.matchmaking import (
    DEFAULT_RATING,
    Cancel,
    Expire,
    Kind,
    Made,
    Open,
    Pool,
    PoolEvent,
    RatingRange,
    Record,
    Ticket,
    TicketCancelled,
    TicketOpened,
    TicketsExpired,
    TicketsMatched,
    decide,
    event_from_json,
    event_to_json,
    find_matches,
    fold,
    ticket_from_dict,
    ticket_to_dict,
)
from service.domain.ratings import ladder_of
from service.storage.events import Idempotency, IdempotencyMismatch, NotReplicated, VersionConflict
from service.storage.idempotency import CreateRecords
from service.storage.matchmaking import PoolStreams, TicketIndex, TooManyTickets
from service.storage.players import Player, new_id, records_key

log = logging.getLogger("red7.matching")

#: A ticket's entry younger than this (ms) whose ticket is nowhere yet may be a create still on its way: kept.
IN_FLIGHT_MS = 10_000
#: How long a ticket that is over stays readable (ms): its entry leaves the player's index after that.
KEEP_CLOSED_MS = 24 * 3600 * 1000
#: A pool's snapshot is written every this many events (a cold reader folds at most that many).
SNAPSHOT_EVERY = 256
#: Attempts of a player's write to a pool under contention (each after a short random pause), and the matchmaker's.
WRITE_ATTEMPTS = 40
MATCH_ATTEMPTS = 3


def now_ms() -> int:
    return int(time.time() * 1000)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def default_rating(player_id: str, ladder: str) -> int:
    """A player's rating where no rating service is wired: a new player's."""
    return DEFAULT_RATING


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


class PoolLoader:
    """Pools folded from their streams, through this process's newest fold of each and the stored snapshots.

    As with games (:class:`~service.application.loading.GameLoader`), a fold is used only while the stream still
    holds its head: one of a history Redis lost is dropped and the pool folded again from what Redis has.
    """

    def __init__(self, streams: PoolStreams, *, snapshot_every: int = SNAPSHOT_EVERY) -> None:
        self.streams = streams
        self.snapshot_every = snapshot_every
        self._pools: dict[str, Pool] = {}
        self._snapshot_at: dict[str, int] = {}
        self._lock = threading.Lock()

    def load(self, kind: str) -> Pool:
        """The pool now (shared with this process's cache: never change it; :meth:`Pool.copy` it)."""
        with self._lock:
            start = cached = self._pools.get(kind)
        if start is None and (snapshot := self.streams.snapshot(kind)) is not None:
            start = Pool.from_dict(json.loads(snapshot[1]))
        tail = []
        if start is not None and start.version:
            stored = list(self.streams.read_all(kind, after=start.version - 1))
            if stored and stored[0].number == start.version and stored[0].payload == start.head:
                tail = stored[1:]
            else:
                log.warning(
                    "pool %s: Redis no longer holds the history of the fold at version %s; folding it again", kind, start.version
                )
                self.forget(kind)
                self.streams.drop_snapshot(kind)
                start = cached = None
        if start is None or not start.version:
            start, tail = Pool(kind), list(self.streams.read_all(kind))
        if cached is not None and not tail:
            return cached
        pool = start.copy() if start is cached else start
        for event in tail:
            fold(pool, event_from_json(event.payload))
            pool.version, pool.head = event.number, event.payload
        self.remember(pool)
        return pool

    def remember(self, pool: Pool) -> None:
        with self._lock:
            known = self._pools.get(pool.kind)
            if known is None or known.version < pool.version:
                self._pools[pool.kind] = pool
        if pool.version - self._snapshot_at.get(pool.kind, 0) >= self.snapshot_every:
            try:
                self.streams.save_snapshot(pool.kind, pool.version, json.dumps(pool.to_dict(), separators=(",", ":")))
            except redis.RedisError as error:  # only a shortcut for cold readers
                log.warning("pool %s: no snapshot at version %s (%s); the next one will be", pool.kind, pool.version, error)
                return
            self._snapshot_at[pool.kind] = pool.version

    def forget(self, kind: str) -> None:
        with self._lock:
            self._pools.pop(kind, None)
            self._snapshot_at.pop(kind, None)


class MatchService:
    """Tickets as their players open, read and cancel them; the matchmaker's pass over the pools."""

    def __init__(
        self,
        streams: PoolStreams,
        ticket_index: TicketIndex,
        games: GameService,
        *,
        clock: Callable[[], int] = now_ms,
        rating_of: Callable[[str, str], int] = default_rating,
        max_tickets: int = 5,
        expiry: int = 3600,
        max_expiry: int = 14 * 24 * 3600,
    ) -> None:
        self.pool_streams = streams
        self.ticket_index = ticket_index
        self.games = games
        self.clock = clock
        self.rating_of = rating_of
        self.max_tickets = max_tickets
        self.expiry = expiry
        self.max_expiry = max_expiry
        self.pools = PoolLoader(streams)
        self.create_records = CreateRecords(streams.redis)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._made: OrderedDict[str, None] = OrderedDict()  # games of matches known to be made

    # --- a player's tickets -----------------------------------------------------------------------

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
            first = self.create_records.find(records_key(self.ticket_index.prefix, player.id), idempotency)
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
            self._write(kind.key, lambda pool: decide(pool, Open(ticket), self.clock()), WRITE_ATTEMPTS)
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
            self._write(entry["pool"], partial(self._cancelled, ticket_id, player.id), WRITE_ATTEMPTS)
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
            self._write(view.kind.key, partial(self._cancelled, view.ticket.id, player.id), WRITE_ATTEMPTS)
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

    # --- the matchmaker -----------------------------------------------------------------------------

    def match_pass(self, keep_going: Callable[[], bool] = lambda: True) -> int:
        """One pass over every pool: tickets whose time is up expired, tables found recorded and their games made
        (and any match's game an earlier pass left unmade); how many games were made.  ``keep_going`` is asked
        between pools (a matchmaker that lost its role stops)."""
        made = 0
        for kind in self.ticket_index.pools():
            if not keep_going():
                break
            try:
                made += self.match_pool(Kind.parse(kind))
            except CorruptHistory:
                log.exception("pool %s cannot be folded; the other pools go on", kind)
        return made

    def match_pool(self, kind: Kind) -> int:
        """Expire, match and make the games of one pool (and those of its pending matches): how many games were made."""
        pool = self.pools.load(kind.key)
        pending = list(pool.pending.values())
        if pool.tickets:

            def matches(pool: Pool) -> list[PoolEvent]:
                now = self.clock()
                expired = decide(pool, Expire(), now)
                after = pool.copy()
                for event in expired:
                    fold(after, event)
                found = find_matches(after, now)
                return [*expired, *decide(after, Record(tuple((new_id("g"), table) for table in found)), now)]

            try:
                pending += [
                    e for e in self._write(kind.key, matches, MATCH_ATTEMPTS, confirmed=False) if isinstance(e, TicketsMatched)
                ]
            except ConflictingPool:
                log.info("pool %s kept changing under the matchmaker; it looks again on its next pass", kind.key)
        made = sum(self.finish(kind, match) for match in pending)
        if pending:  # nobody need make them again: they leave the pool's pending matches
            done = tuple(match.game_id for match in pending)
            try:
                self._write(kind.key, lambda pool: decide(pool, Made(done), self.clock()), MATCH_ATTEMPTS, confirmed=False)
            except ConflictingPool:
                log.info("pool %s kept changing; its games made are noted on the next pass", kind.key)
        return made

    def finish(self, kind: Kind, match: TicketsMatched) -> bool:
        """Make ``match``'s game unless it is made (``True``: made now): its humans in seat order, the first its creator
        (who owns the AI seats), then the AI seats."""
        if self._known_made(match.game_id):
            return False
        if self.games.store.exists(match.game_id):
            self._remember_made(match.game_id)
            return False
        humans = [Player(seat.player_id, seat.name, "") for seat in match.players]
        seats = [SeatRequest("human")] * len(humans) + [SeatRequest("ai", match.ai_level)] * (match.seats - len(humans))
        request = NewGame(
            seats=seats,
            variant=Variant(kind.variant),
            action_rules=kind.action_rules,
            turn_timeout=kind.turn_seconds,
            days_per_turn=kind.days_per_turn,
            rated=kind.rated,
            origin="quick_match",
        )
        game = self.games.set_up(humans[0], request, list(enumerate(humans[1:], start=1)), game_id=match.game_id)
        self._remember_made(match.game_id)
        return game is not None

    def _known_made(self, game_id: str) -> bool:
        with self._locks_lock:
            return game_id in self._made

    def _remember_made(self, game_id: str) -> None:
        with self._locks_lock:
            self._made[game_id] = None
            while len(self._made) > 100_000:
                self._made.popitem(last=False)

    # --- writing to a pool --------------------------------------------------------------------------

    def _write(
        self, kind: str, decide_on: Callable[[Pool], list[PoolEvent]], attempts: int, *, confirmed: bool = True
    ) -> list[PoolEvent]:
        """Load the pool, decide, append with the version and head decided on; what was appended.

        Decided again when another write came first (after a short random pause), up to ``attempts`` times (then
        :class:`ConflictingPool`).  One write to a pool at a time in this process: its requests queue here rather
        than all lose to each other in Redis.  An append fewer replicas confirmed than asked for
        (``RED7_WAIT_REPLICAS``) is stored: ``confirmed`` writers (a player's) are told so
        (:class:`~service.common.errors.NotConfirmed`, a retry with the Idempotency-Key is answered); the matchmaker goes on.
        """
        with self._lock_of(kind):
            for attempt in range(attempts):
                pool = self.pools.load(kind)
                events = decide_on(pool)
                if not events:
                    return []
                payloads = [event_to_json(event) for event in events]
                short = None
                try:
                    self.pool_streams.append(kind, pool.version, payloads, expected_head=pool.head)
                except VersionConflict as conflict:
                    if conflict.diverged:
                        self.pools.forget(kind)
                    time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
                    continue
                except NotReplicated as unconfirmed:
                    short = unconfirmed
                after = pool.copy()
                for event, payload in zip(events, payloads, strict=True):
                    fold(after, event)
                    after.version += 1
                    after.head = payload
                self.pools.remember(after)
                if short is not None:
                    log.warning("pool %s: an append confirmed by %s of %s replicas", kind, short.replicas, short.wanted)
                    if confirmed:
                        raise NotConfirmed(short.version, short.replicas, short.wanted)
                return events
        raise ConflictingPool(kind)

    def _lock_of(self, kind: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(kind, threading.Lock())


class ConflictingPool(Refused):
    """A pool that kept changing between the reads and the appends of a writer (a 409 the client may retry)."""

    def __init__(self, kind: str) -> None:
        super().__init__(
            "match_pool_busy",
            f"Many players are opening tickets for this kind of game ({kind}) at once; try again in a moment.",
            pool=kind,
        )
