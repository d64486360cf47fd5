"""Players and their tokens, as a request may ask for them: sign up, who a token is, the profile, the tokens;
handles, public profiles, the search by handle, and deleting an account.

The routes and the HTTP layer's auth call this, never the store (issue 19): what storage raises
(:class:`~service.storage.events.IdempotencyMismatch`, :class:`~service.storage.players.TooManyTokens`) is
turned into a refusal here, once, and every answer is the application's to give.

The types a caller gets back (:class:`Player`, :class:`TokenInfo`) and the digest a token is known by
(:func:`hash_token`: how the HTTP layer tells which token a request came with, for its rate limits and its
caps on open waits) are storage's own; they are exported from here, the layer the HTTP layer talks to.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Protocol

from service.application.commands import utc_now
from service.application.handles import check_handle, is_handle, is_player_id
from service.application.records import rebuild
from service.application.screening import Screen
from service.common.errors import NotFound, Refused, bad_cursor
from service.domain.game import Game
from service.domain.scopes import beyond, granted, ordered
from service.outbound.destinations import Destinations, UnsafeDestination
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.handles import Found, HandleTaken, fold
from service.storage.players import (
    AccountGone,
    Grant,
    Player,
    PlayerStore,
    PlayerTag,
    TokenInfo,
    TooManyTokens,
    hash_token,
)

__all__ = [
    "ACCOUNT_GONE",
    "AccountDeleted",
    "Grant",
    "Issued",
    "Player",
    "PlayerPage",
    "PlayerService",
    "PlayerTag",
    "Profile",
    "SignedUp",
    "TokenInfo",
    "hash_token",
]

log = logging.getLogger("red7.players")

#: How long a handle given up is set aside for the player who gave it up (s): a week.
HANDLE_HOLD_SECONDS = 7 * 24 * 3600
#: The most players a page of a search holds.
SEARCH_LIMIT = 20
_CURSOR = re.compile(r"([a-z0-9_-]{1,20})\.([A-Za-z0-9_]{1,40})")


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


@dataclass(frozen=True, slots=True)
class Profile:
    """What anyone may see of a player: who they are and their record (never a token or a webhook)."""

    player: Player
    played: int
    won: int


@dataclass(frozen=True, slots=True)
class PlayerPage:
    """A page of a search: the players ``found``; ``next_cursor``: what to pass for the next page (``None``: the last)."""

    found: list[Player]
    next_cursor: str | None


class AccountDeleted(Protocol):
    """A part of the service that holds something of a player which ends when their account is deleted (their
    games, match tickets, challenges, push subscriptions ...).  It joins with :meth:`PlayerService.join`; its
    ``on_account_deleted`` must be safe to call again and again (see :meth:`PlayerService.delete`), and must work
    on an account already deleted (its record a tombstone: no name), finding what it ends from what the player's
    slot lists (their games, tickets, challenges), which every write that gives the player something lists first."""

    def on_account_deleted(self, player_id: str) -> None: ...


#: What a request whose account was deleted while it ran is told (``invalid_token``, as any later one with its token).
ACCOUNT_GONE = "This account was deleted: its tokens no longer work."


def _gone() -> Refused:
    """The answer to a request whose account was deleted while it ran: as to any later one with its token."""
    return Refused("invalid_token", ACCOUNT_GONE)


def _reused(exc: IdempotencyMismatch) -> Refused:
    return Refused("idempotency_key_reused", str(exc))


def _taken(handle: str) -> Refused:
    return Refused("handle_taken", f"Another player has the handle {handle!r} (handles are the same whatever their case).")


def _bad_cursor() -> Refused:
    return bad_cursor("The cursor is not one this server gave out for this prefix; pass next_cursor as it came.")


class PlayerService:
    """Sign-ups, token lookups, profiles, webhooks and tokens, over the player store."""

    def __init__(
        self,
        store: PlayerStore,
        *,
        clock: Callable[[], str] = utc_now,
        load: Callable[[str], Game] | None = None,
        handle_hold_seconds: int = HANDLE_HOLD_SECONDS,
        destinations: Destinations | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.load = load  # the games, for a record to rebuild (none: records are read as they are)
        self.handle_hold_seconds = handle_hold_seconds
        self.destinations = destinations or Destinations()  # where a webhook may be sent: public hosts only
        self.parts: list[AccountDeleted] = []
        self.screen = Screen()  # names and handles with a listed word refused (the runtime's has the operator's words)

    def join(self, part: AccountDeleted) -> None:
        """``part``'s ``on_account_deleted`` is called when an account is deleted, after the parts that joined before
        it (what could seat the player in a new game joins before the games' part)."""
        self.parts.append(part)

    # --- who is calling -----------------------------------------------------------------

    def by_token(self, token: str, *, fresh: bool = False) -> Player | None:
        """The player a bearer token belongs to, while it is not revoked (nor their account deleted); ``fresh``: for a
        write, the store is asked even if this process has the token cached (see :class:`PlayerStore`)."""
        return self.store.by_token(token, fresh=fresh)

    def grant_of(self, token: str, *, fresh: bool = False) -> Grant | None:
        """:meth:`by_token`, with the scopes the token was issued with (``None``: stored without any, so it may do
        everything: a sign-up's token, or one issued before scopes existed)."""
        return self.store.grant_of(token, fresh=fresh)

    def get(self, player_id: str) -> Player | None:
        """The player with this id, as the store has them (``None``: no such player); a job's way to who it tells."""
        return self.store.get(player_id)

    def names(self, player_ids: Iterable[str]) -> dict[str, str | None]:
        """Each player's name as it is now (``None``: no player now, a deleted account among them), in one round trip:
        what a list naming many players shows beside their ids (the moderators' queue and audit log)."""
        return self.store.names(player_ids)

    def by_token_digest(self, digest: str) -> Player | None:
        """The same for a token known by its digest (a stream ticket keeps only that)."""
        return self.store.by_token_digest(digest)

    def still_there(self, player: Player) -> bool:
        """After a write of ``player``'s: whether their account is still there.  If it was deleted while the write
        ran, whatever the write made for them is ended now, as the deletion ends the rest (:meth:`delete`), and
        ``False``: the write is then answered as any request with a token of the account (``invalid_token``).

        This is what makes a deletion complete whatever raced it: the write listed what it made on the player's slot
        before it wrote it (every part's rule), and reads the tombstone after; the deletion writes the tombstone before
        its second pass reads those lists.  Redis applies each of these in one order, so either this read sees the
        tombstone (and this ends what the write made), or the write came before the tombstone, and the deletion's
        second pass finds it.  A request authenticated before the deletion and writing after it can leave nothing.
        """
        if not self.store.deleted(player.id):
            return True
        self._end_everything(player.id)
        return False

    # --- signing up, the profile --------------------------------------------------------

    def sign_up(self, name: str, idempotency: Idempotency | None = None, handle: str | None = None) -> SignedUp:
        """A new player and its first token; with ``idempotency`` (scoped by the caller's address: there is no player
        yet), once per key: a retry is answered with the player and token the first attempt made.

        With a ``handle``: refused as :func:`~service.application.handles.check_handle` says, and ``handle_taken``
        if another player has it (nothing is made then).
        """
        if handle is not None:
            check_handle(handle)
        self.screen.check(name=name, handle=handle)
        try:
            if idempotency is None:
                player, token = self.store.create(name, self.clock(), handle)
                return SignedUp(player, token)
            player, token, replayed = self.store.create_once(name, self.clock(), idempotency, handle)
        except IdempotencyMismatch as exc:
            raise _reused(exc) from None
        except HandleTaken:
            raise _taken(handle or "") from None
        return SignedUp(player, token, replayed)

    def update(
        self,
        player: Player,
        *,
        name: str | None = None,
        webhook_url: str | None = None,
        handle: str | None = None,
        language: str | None = None,
        live_listed: bool | None = None,
    ) -> Player:
        """Rename the player, set its webhook, its handle, the language of the service's texts for them (``""``
        removes any; ``None`` leaves each as it is), or whether their games in play may be listed to watch.

        A webhook set gets a new signing secret, on the player returned (the only time it is shown); its URL is
        checked first, by the rule every delivery checks it with again (``webhook_url_refused``: not an http(s) URL,
        a host that is or resolves to an address that is not public, a name that resolves to nothing).  The handle is
        changed next, as it alone may be refused by the store (``handle_invalid``, ``handle_reserved``,
        ``handle_taken``): a request that is refused changes nothing.  The handle given up is set aside for
        ``handle_hold_seconds``, for this player alone to take back (so that nobody poses as them under it while others
        still use it); a player sets aside one handle at a time.
        """
        if handle:
            check_handle(handle)
        self.screen.check(name=name, handle=handle)
        if webhook_url:
            self._check_webhook(webhook_url)
        try:
            if handle is not None:
                try:
                    self.store.set_handle(player.id, handle or None, self.handle_hold_seconds * 1000)
                except HandleTaken:
                    raise _taken(handle) from None
            return self.store.update(player.id, name=name, webhook_url=webhook_url, language=language, live_listed=live_listed)
        except AccountGone:
            raise _gone() from None

    def _check_webhook(self, url: str) -> None:
        try:
            self.destinations.check(url)
        except UnsafeDestination as refused:
            raise Refused(
                "webhook_url_refused",
                f"The webhook URL must be an http(s) URL of a public host: {refused}.",
                reason=refused.reason,
                errors=[{"field": "webhook_url", "message": str(refused), "location": "json"}],
            ) from None

    # --- players others can find ----------------------------------------------------------

    def by_handle(self, handle: str) -> Player | None:
        """The player whose handle this is, whatever its case; ``None`` if nobody's (a deleted account is nobody)."""
        return self.store.by_handle(handle) if is_handle(handle) else None

    def find(self, ref: str) -> Player:
        """The player ``ref`` names: their id (``p_`` and 16 hex digits) or their handle; ``player_not_found``."""
        player = self.store.get(ref) if is_player_id(ref) else self.by_handle(ref)
        if player is None:
            raise NotFound("player_not_found", f"No player has the id or handle {ref!r}.")
        return player

    def profile(self, ref: str) -> Profile:
        """What anyone may see of the player ``ref`` names (:meth:`find`), their record made complete if it was not."""
        player = self.find(ref)
        record = self.store.record(player.id)
        if not record.complete and self.load is not None:
            record = rebuild(self.store, player.id, self.load)
        return Profile(player, record.played, record.won)

    def search(self, prefix: str = "", *, limit: int = SEARCH_LIMIT, cursor: str | None = None) -> PlayerPage:
        """Players whose handle starts with ``prefix`` (whatever its case; empty: everyone with a handle), in the order
        of their handles, ``limit`` a page (at most :data:`SEARCH_LIMIT`); ``cursor``: the page before's next_cursor."""
        after = None
        if cursor is not None:
            match = _CURSOR.fullmatch(cursor)
            if match is None or not match[1].startswith(fold(prefix)):
                raise _bad_cursor()
            after = Found(match[1], match[2])
        players, last = self.store.search(prefix, after, max(1, min(limit, SEARCH_LIMIT)))
        return PlayerPage(players, None if last is None else f"{last.folded}.{last.player_id}")

    def tags(self, player_ids: set[str]) -> dict[str, PlayerTag]:
        """What a table shows of each seated player: their handle, or that their account was deleted."""
        return self.store.tags(player_ids) if player_ids else {}

    # --- deleting an account -----------------------------------------------------------------

    def delete(self, player: Player) -> None:
        """Delete the player's account.

        Every part that joined (:meth:`join`) ends what it holds of the player first, while the player is still
        there, so that a failure stops the deletion where the client can try it again; then the account goes
        (:meth:`PlayerStore.erase`: tokens revoked, webhook, name and handle erased, the handle freed, the lists
        ended); then the parts are called again, for what seated the player meanwhile (their tokens worked until
        then), and what fails now is logged: nobody could retry it.  A write that passed its token's check before
        the account went and wrote after that second pass ends what it made itself (:meth:`still_there`).  Game
        streams keep the player's pseudonymous id, so every replay still verifies; what is shown of the seat is
        "deleted player".
        """
        for part in self.parts:
            part.on_account_deleted(player.id)
        self._end_everything(player.id)

    def _end_everything(self, player_id: str) -> None:
        """Erase the account (again: a token issued meanwhile goes too), then let every part end what it holds of it;
        a part's failure is logged, as nobody could retry it."""
        self.store.erase(player_id, self.clock())
        for part in self.parts:
            try:
                part.on_account_deleted(player_id)
            except Exception:
                log.exception("%s could not end what it holds of deleted player %s", type(part).__name__, player_id)

    # --- tokens -------------------------------------------------------------------------

    def tokens(self, player: Player) -> list[TokenInfo]:
        """The player's tokens, oldest first (never the tokens themselves)."""
        return self.store.tokens(player.id)

    def issue_token(
        self,
        player: Player,
        label: str,
        idempotency: Idempotency | None = None,
        *,
        scopes: Collection[str] | None = None,
        holder: tuple[str, ...] | None = None,
        lifetime: int | None = None,
    ) -> Issued:
        """Another token for the player; with ``idempotency``, once per key (a retry gets the token issued then).

        ``scopes``: what it may do (``None``: what the token asking may, ``holder``, its scopes as stored: a full token
        mints full ones).  A token never mints a wider one: ``scope_exceeds_token`` names the scopes asked for that
        ``holder`` lacks (else a token stolen with one scope would make itself every other).
        ``token_limit_reached`` when the player holds as many as a player may.  ``lifetime``: seconds it works (an
        app's access token, service/application/oauth.py), ``None``: until revoked.
        """
        stored = holder
        if scopes is not None:
            lacking = beyond(granted(holder), scopes)
            if lacking:
                raise Refused(
                    "scope_exceeds_token",
                    f"This token cannot grant what it does not hold itself: {', '.join(lacking)}.",
                    scopes=lacking,
                )
            stored = tuple(ordered(scopes))
        try:
            info, token, replayed = self.store.issue_token_once(player.id, label, self.clock(), idempotency, stored, lifetime)
        except AccountGone:
            raise _gone() from None
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
