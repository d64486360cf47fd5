"""The matchmaker's pass: over every pool, tickets whose time is up expired, the tables found recorded, their games made.

A match is decided (the game's id and seats in the ``tickets_matched`` event) before its game is made with
:meth:`GameService.set_up <service.application.games.GameService.set_up>` under that id, which makes a game once
however often it is asked.  Whoever finds a match whose game is not there yet makes it (:meth:`Matchmaker.finish`):
the matchmaker's next pass (a match stays pending in its pool until a ``games_made`` event says its game is made) and
the ticket's next read (:mod:`service.application.matchmaking.tickets`, built on this).  Nobody is matched but not
seated.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

from engine import CorruptHistory, Variant
from service.application.commands import NewGame, SeatRequest
from service.application.games import GameService
from service.application.matchmaking.pools import ConflictingPool, PoolLoader, PoolWriter
from service.domain.blocks import NOBODY_APART, Apart
from service.domain.matchmaking import Expire, Kind, Made, Pool, PoolEvent, Record, TicketsMatched, decide, find_matches, fold
from service.storage.blocks import BlockStore
from service.storage.matchmaking import TicketIndex
from service.storage.players import Player, new_id

log = logging.getLogger("red7.matching")

#: Attempts of the matchmaker's write to a pool under contention: few, for it looks again on its next pass.
MATCH_ATTEMPTS = 3


class Matchmaker:
    """The matchmaker's pass over the pools, and a recorded match's game made once (part of :class:`MatchService
    <service.application.matchmaking.MatchService>`, which holds what it reads)."""

    ticket_index: TicketIndex
    games: GameService
    block_store: BlockStore
    clock: Callable[[], int]
    pools: PoolLoader
    writer: PoolWriter
    _made: OrderedDict[str, None]  # games of matches known to be made
    _made_lock: threading.Lock

    def match_pass(self, keep_going: Callable[[], bool] = lambda: True, waiting: dict[str, int] | None = None) -> int:
        """One pass over every pool: tickets whose time is up expired, tables found recorded and their games made
        (and any match's game an earlier pass left unmade); how many games were made.  ``keep_going`` is asked
        between pools (a matchmaker that lost its role stops); ``waiting``, if given, gets each pool's tickets as the
        pass found them (the matchmaker's metrics)."""
        made = 0
        for kind in self.ticket_index.pools():
            if not keep_going():
                break
            try:
                made += self.match_pool(Kind.parse(kind), waiting)
            except CorruptHistory:
                log.exception("pool %s cannot be folded; the other pools go on", kind)
        return made

    def match_pool(self, kind: Kind, waiting: dict[str, int] | None = None) -> int:
        """Expire, match and make the games of one pool (and those of its pending matches): how many games were made;
        the pool's tickets as found go in ``waiting``."""
        pool = self.pools.load(kind.key)
        if waiting is not None:
            waiting[kind.key] = len(pool.tickets)
        pending = list(pool.pending.values())
        if pool.tickets:
            blocks: dict[str, list[str]] = {}  # each player's blocks, read once a pass (a retry reads only newcomers)

            def matches(pool: Pool) -> list[PoolEvent]:
                now = self.clock()
                expired = decide(pool, Expire(), now)
                after = pool.copy()
                for event in expired:
                    fold(after, event)
                apart = self._apart(after, blocks)
                found = find_matches(after, now, apart=apart)
                return [*expired, *decide(after, Record(tuple((new_id("g"), table) for table in found), apart), now)]

            try:
                pending += [
                    e
                    for e in self.writer.write(kind.key, matches, MATCH_ATTEMPTS, confirmed=False)
                    if isinstance(e, TicketsMatched)
                ]
            except ConflictingPool:
                log.info("pool %s kept changing under the matchmaker; it looks again on its next pass", kind.key)
        made = sum(self.finish(kind, match) for match in pending)
        if pending:  # nobody need make them again: they leave the pool's pending matches
            done = tuple(match.game_id for match in pending)
            try:
                self.writer.write(kind.key, lambda pool: decide(pool, Made(done), self.clock()), MATCH_ATTEMPTS, confirmed=False)
            except ConflictingPool:
                log.info("pool %s kept changing; its games made are noted on the next pass", kind.key)
        return made

    def _apart(self, pool: Pool, blocks: dict[str, list[str]]) -> Apart:
        """The block relation among the pool's players, each player's blocks read once into ``blocks``: read before
        the decision it keeps apart, so a block stored before a pass reads it is honoured by that pass."""
        players = set(pool.by_player)
        if len(players) < 2:
            return NOBODY_APART
        unread = players - blocks.keys()
        if unread:
            read = self.block_store.blocks_of(unread)
            for player_id in unread:
                blocks[player_id] = read.get(player_id, [])
        return Apart({p: [o for o in blocks[p] if o in players] for p in players if blocks[p]})

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
        with self._made_lock:
            return game_id in self._made

    def _remember_made(self, game_id: str) -> None:
        with self._made_lock:
            self._made[game_id] = None
            while len(self._made) > 100_000:
                self._made.popitem(last=False)
