"""Stream tickets: short-lived, read-only stand-ins for a token, for one player and one game.

A browser's ``EventSource`` cannot send an ``Authorization`` header, so a page
that wants its own player's live feed trades its token for a ticket and puts
the ticket in the stream's URL.  A URL is far more exposed than a header
(access logs, the browser's history, a proxy's logs), hence what a ticket is
*not*: it opens the feeds of one game only, reads only, and is good for
connecting for a minute (its ``ttl``).  Within that minute it may be used
again, so that ``EventSource``'s own reconnection (with ``Last-Event-ID``)
works; after it, the page asks for a new one.

Only the ticket's SHA-256 is kept, under ``<prefix>ticket:<sha256>``, with the
player, the game and the digest of the token it was issued for: revoking that
token ends its tickets too (a redeemed ticket is good only while its token is).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

import redis

TICKET_PREFIX = "st_"
#: How long a ticket may be used to connect, in seconds.
TICKET_SECONDS = 60


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a ticket stands for (its holder may read ``game_id``'s feeds as ``player_id``)."""

    player_id: str
    game_id: str
    token_digest: str


def ticket_digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


class TicketStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:", ttl: int = TICKET_SECONDS) -> None:
        self.redis = client
        self.prefix = prefix
        self.ttl = ttl

    def _key(self, digest: str) -> str:
        # Hash-tagged by the ticket itself: one key, one slot, wherever a cluster puts it.
        return f"{self.prefix}ticket:{{{digest}}}"

    def issue(self, ticket: Ticket) -> str:
        """A new ticket for ``ticket``'s player and game (the only time it exists in clear)."""
        secret = TICKET_PREFIX + secrets.token_urlsafe(24)
        value = "\t".join((ticket.player_id, ticket.game_id, ticket.token_digest))
        self.redis.set(self._key(ticket_digest(secret)), value, ex=self.ttl)
        return secret

    def redeem(self, secret: str) -> Ticket | None:
        """What a ticket stands for while it lives; ``None`` if it is unknown or has expired."""
        if not secret.startswith(TICKET_PREFIX) or len(secret) > 100:
            return None
        stored = self.redis.get(self._key(ticket_digest(secret)))
        if stored is None:
            return None
        text = stored.decode() if isinstance(stored, bytes) else str(stored)
        player_id, game_id, token_digest = text.split("\t")
        return Ticket(player_id, game_id, token_digest)
