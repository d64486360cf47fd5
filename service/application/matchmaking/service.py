"""Quick match's one service: a player's tickets and the matchmaker's pass, over one set of pools and stores."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from service.application.games import GameService
from service.application.matchmaking.pools import PoolLoader, PoolWriter
from service.application.matchmaking.tickets import TicketDesk
from service.domain.matchmaking import DEFAULT_RATING
from service.storage.idempotency import CreateRecords
from service.storage.matchmaking import PoolStreams, TicketIndex


def now_ms() -> int:
    return int(time.time() * 1000)


def default_rating(player_id: str, ladder: str) -> int:
    """A player's rating where no rating service is wired: a new player's."""
    return DEFAULT_RATING


class MatchService(TicketDesk):
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
        self.writer = PoolWriter(streams, self.pools)
        self.create_records = CreateRecords(streams.redis)
        self.block_store = games.block_store  # who is never seated with whom: the games' own, shared
        self._made: OrderedDict[str, None] = OrderedDict()  # games of matches known to be made
        self._made_lock = threading.Lock()
