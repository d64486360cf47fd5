"""Players and their tokens, as a request may ask for them: sign up, who a token is, the profile, the tokens.

The routes and the HTTP layer's auth call this, never the store (issue 19): what storage raises
(:class:`~service.storage.events.IdempotencyMismatch`, :class:`~service.storage.players.TooManyTokens`) is
turned into a refusal here, once, and every answer is the application's to give.

The types a caller gets back (:class:`Player`, :class:`TokenInfo`) and the digest a token is known by
(:func:`hash_token`: how the HTTP layer tells which token a request came with, for its rate limits and its
caps on open waits) are storage's own; they are exported from here, the layer the HTTP layer talks to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.application.commands import utc_now
from service.errors import NotFound, Refused
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.players import Player, PlayerStore, TokenInfo, TooManyTokens, hash_token

__all__ = ["Issued", "Player", "PlayerService", "SignedUp", "TokenInfo", "hash_token"]


@dataclass(frozen=True, slots=True)
class SignedUp:
    """A new player and its first token (the only time it is seen in clear); ``replayed``: a retry's answer."""

    player: Player
    token: str
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Issued:
    """A new token (seen in clear only here) and what the server keeps of it; ``replayed``: a retry's answer."""

    info: TokenInfo
    token: str
    replayed: bool = False


def _reused(exc: IdempotencyMismatch) -> Refused:
    return Refused("idempotency_key_reused", str(exc))


class PlayerService:
    """Sign-ups, token lookups, profiles, webhooks and tokens, over the player store."""

    def __init__(self, store: PlayerStore, *, clock: Callable[[], str] = utc_now) -> None:
        self.store = store
        self.clock = clock

    # --- who is calling -----------------------------------------------------------------

    def by_token(self, token: str) -> Player | None:
        """The player a bearer token belongs to, while it is not revoked."""
        return self.store.by_token(token)

    def by_token_digest(self, digest: str) -> Player | None:
        """The same for a token known by its digest (a stream ticket keeps only that)."""
        return self.store.by_token_digest(digest)

    def by_handle(self, handle: str) -> Player | None:
        """The player a handle names (compared case-insensitively), or ``None``: how others name a player."""
        return self.store.by_handle(handle)

    # --- signing up, the profile --------------------------------------------------------

    def sign_up(self, name: str, idempotency: Idempotency | None = None) -> SignedUp:
        """A new player and its first token; with ``idempotency`` (scoped by the caller's address: there is no player
        yet), once per key: a retry is answered with the player and token the first attempt made."""
        if idempotency is None:
            player, token = self.store.create(name, self.clock())
            return SignedUp(player, token)
        try:
            player, token, replayed = self.store.create_once(name, self.clock(), idempotency)
        except IdempotencyMismatch as exc:
            raise _reused(exc) from None
        return SignedUp(player, token, replayed)

    def update(self, player: Player, *, name: str | None = None, webhook_url: str | None = None) -> Player:
        """Rename the player, or set its webhook (``""`` removes it; ``None`` leaves either as it is).

        A webhook set gets a new signing secret, on the player returned (the only time it is shown).
        """
        return self.store.update(player.id, name=name, webhook_url=webhook_url)

    # --- tokens -------------------------------------------------------------------------

    def tokens(self, player: Player) -> list[TokenInfo]:
        """The player's tokens, oldest first (never the tokens themselves)."""
        return self.store.tokens(player.id)

    def issue_token(self, player: Player, label: str, idempotency: Idempotency | None = None) -> Issued:
        """Another token for the player; with ``idempotency``, once per key (a retry gets the token issued then).

        ``token_limit_reached`` when the player holds as many as a player may.
        """
        try:
            info, token, replayed = self.store.issue_token_once(player.id, label, self.clock(), idempotency)
        except TooManyTokens:
            raise Refused("token_limit_reached", "Revoke a token you no longer use first.") from None
        except IdempotencyMismatch as exc:
            raise _reused(exc) from None
        return Issued(info, token, replayed)

    def revoke_token(self, player: Player, token_id: str) -> None:
        """Revoke one of the player's tokens (``token_not_found`` if they hold none with that id: another player's
        is not theirs to revoke)."""
        if not self.store.revoke_token(player.id, token_id):
            raise NotFound("token_not_found")
