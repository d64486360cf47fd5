"""Stream tickets: a player's read-only pass to one game's feeds, issued for a token and redeemed on a feed.

Why tickets exist, and what one may not do, is said with their store (:mod:`service.storage.stream_tickets`).  What
the application adds is the two rules around it: a ticket is issued only for a game there is (``game_not_found``
otherwise), and a ticket stands for its player only while the token it was issued for still works, and only on
the game it was issued for.  The routes and the HTTP layer's auth call this, never the store (issue 19).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from service.application.players import Player, PlayerService, hash_token
from service.storage.stream_tickets import Ticket, TicketStore


@dataclass(frozen=True, slots=True)
class IssuedTicket:
    """A new ticket (seen in clear only here) and until when it may be used to connect (ISO 8601, UTC, seconds)."""

    ticket: str
    expires_at: str


@dataclass(frozen=True, slots=True)
class TicketHolder:
    """Who reads a feed with a ticket: its player, and the digest of the token it stands for (the caps on open
    waits are per token)."""

    player: Player
    token_digest: str


class StreamTickets:
    """Issuing tickets, and telling who holds one."""

    def __init__(
        self,
        store: TicketStore,
        players: PlayerService,
        game_exists: Callable[[str], object],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.players = players
        self.game_exists = game_exists  # refuses a game there is not (NotFound), as loading one does
        self.clock = clock

    @property
    def ttl(self) -> int:
        """How long a ticket may be used to connect, in seconds."""
        return self.store.ttl

    def issue(self, player: Player, game_id: str, token: str) -> IssuedTicket:
        """A ticket to read ``game_id``'s feeds as ``player``, standing for ``token`` (the one the request came with).

        ``game_not_found`` for a game that does not exist.
        """
        self.game_exists(game_id)
        return self.issue_for(player, game_id, token)

    def issue_for(self, player: Player, scope: str, token: str) -> IssuedTicket:
        """A ticket to read the feeds ``scope`` names (a game's id, or the player's own feed) as ``player``."""
        now = self.clock()
        ticket = self.store.issue(Ticket(player.id, scope, hash_token(token)))
        expires = datetime.fromtimestamp(now + self.store.ttl, UTC)
        return IssuedTicket(ticket, expires.isoformat(timespec="seconds").replace("+00:00", "Z"))

    def redeem(self, ticket: str, game_id: str) -> TicketHolder | None:
        """Who holds ``ticket`` on ``game_id``'s feeds; ``None`` if it is unknown, has expired, is for another game, or
        the token it stands for was revoked (or its player is not that token's any more)."""
        known = self.store.redeem(ticket)
        if known is None or known.game_id != game_id:
            return None
        player = self.players.by_token_digest(known.token_digest)
        if player is None or player.id != known.player_id:
            return None
        return TicketHolder(player, known.token_digest)
