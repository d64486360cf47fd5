"""Sign in with Red7 for other apps (issue 37 item 4): what the OAuth endpoints may do, protocol aside.

The protocol (requests, PKCE's check, errors as RFC 6749 writes them) is Authlib's, in ``service/http/oauth.py``;
this module keeps the state it rests on and the rules of RFC 9700 that are about state:

- **Apps are registered by the operator** (``red7 apps add``): a name, exact redirect URIs, the scopes it may ask for.
  All are public clients: no secret (a phone or a browser app keeps none); PKCE (S256) binds a code to its redeemer.
- **A code** is single-use and lives :data:`~service.storage.oauth.CODE_SECONDS`; redeemed twice, the grant the
  first redemption made is revoked (RFC 6749 §4.1.2: the code was stolen, and so may the tokens be).
- **An access token** is one of the player's scoped tokens (:meth:`PlayerService.issue_token`) holding only the
  granted scopes, and works :data:`ACCESS_SECONDS`; it is listed with the player's tokens (``listTokens``) as the
  app's, so revoking it there revokes the grant.
- **A refresh token** rotates on every use (the grant holds the one current digest); a rotated one used again
  revokes the whole grant (RFC 9700 §4.14.2), as does a race of two uses of one token.
- **One grant per app and player**: approving an app again replaces its grant (and revokes the old one's tokens).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from service.application.commands import utc_now
from service.application.players import Player, PlayerService
from service.common.errors import Refused
from service.domain.scopes import UnknownScope, checked, ordered
from service.storage.oauth import App, CodeGrant, OAuthStore, StoredGrant, digest

__all__ = ["ACCESS_SECONDS", "App", "CodeGrant", "IssuedTokens", "OAuthService", "StoredGrant", "check_redirect_uri"]

log = logging.getLogger(__name__)

#: How long an app's access token works: an hour, then its refresh token gets another (a stolen access token is
#: worth an hour; one revoked goes at once anyway).
ACCESS_SECONDS = 3600
#: Loopback hosts a native app may listen on with plain http (RFC 8252 §7.3).
_LOOPBACK = {"127.0.0.1", "[::1]", "localhost"}
_PRIVATE_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+$")  # reverse domain name, RFC 8252 §7.1


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]


def check_redirect_uri(uri: str) -> str:
    """A redirect URI an app may register: https; http on a loopback host (a native app's own listener); or a
    private-use scheme in reverse-domain form (RFC 8252 §7.1).  No fragment (RFC 6749 §3.1.2)."""
    parts = urlsplit(uri)
    host = (parts.hostname or "").lower()
    ok = (
        (parts.scheme == "https" and bool(host))
        or (parts.scheme == "http" and (host in _LOOPBACK or f"[{host}]" in _LOOPBACK))
        or (bool(_PRIVATE_SCHEME.match(parts.scheme)) and parts.scheme not in ("http", "https"))
    )
    if not ok or parts.fragment or "#" in uri:
        raise Refused(
            "invalid_redirect_uri",
            f"{uri!r}: use https, http on 127.0.0.1/[::1]/localhost, or a reverse-domain scheme; no fragment.",
        )
    return uri


class OAuthService:
    """Apps, codes, grants and their tokens (see the module)."""

    def __init__(self, store: OAuthStore, players: PlayerService, *, clock: Callable[[], str] = utc_now) -> None:
        self.store, self.players, self.clock = store, players, clock

    # --- apps (the operator's) -------------------------------------------------------------------
    def register(self, name: str, redirect_uris: Iterable[str], scopes: Iterable[str]) -> App:
        uris = tuple(dict.fromkeys(check_redirect_uri(uri) for uri in redirect_uris))
        if not name.strip() or not uris:
            raise Refused("invalid_app", "An app needs a name and at least one redirect URI.")
        try:
            allowed = tuple(ordered(checked(scopes)))
        except UnknownScope as unknown:
            raise Refused("invalid_scope", f"No such scope: {unknown}.") from None
        if not allowed:
            raise Refused("invalid_scope", "An app needs at least one scope.")
        app = App("app_" + secrets.token_hex(8), name.strip(), uris, allowed, self.clock())
        self.store.add_app(app)
        return app

    def apps(self) -> list[App]:
        return self.store.apps()

    def app(self, client_id: str) -> App | None:
        return self.store.app(client_id)

    def remove(self, client_id: str) -> bool:
        """The app unregistered, and every token it holds ended at once: nothing more is authorized or refreshed for
        it, and each player's grant to it is revoked (its access token stops working in every process, its refresh
        token names no grant).  ``False``: no such app (the sweep runs anyway, finishing one a crash cut short).

        The app goes first, so no new grant starts after the sweep reads its holders; one whose tokens were being
        issued as it went is ended by :meth:`_still_registered`."""
        removed = self.store.remove_app(client_id)
        holders = self.store.holders(client_id)
        for player_id in holders:
            self.revoke_grant(player_id, client_id)
        self.store.forget_holders(client_id, holders)
        if holders:
            log.info("app %s removed: the grants of %d players revoked", client_id, len(holders))
        return removed

    # --- codes ---------------------------------------------------------------------------------
    def keep_code(self, code: str, grant: CodeGrant) -> None:
        """An authorization code (made by the protocol's side) kept for the player's approval, single-use."""
        self.store.put_code(code, grant)

    def redeem(self, code: str, client_id: str) -> CodeGrant | None:
        """The code's grant, once; ``None`` for a code unknown, expired, another app's, or redeemed before (which
        revokes the grant its first redemption made)."""
        redeemed = self.store.redeem_code(code)
        if redeemed is None or redeemed[0].client_id != client_id:
            return None
        found, first = redeemed
        if first:
            return found
        self._revoke_family(found.player_id, found.client_id, found.used)
        return None

    # --- tokens --------------------------------------------------------------------------------
    def grant_tokens(self, code: CodeGrant) -> IssuedTokens:
        """The first tokens of a grant made from a redeemed code (replacing the app's former grant, if any)."""
        assert code.used is not None, "a code is redeemed (marked with its family) before its tokens are issued"
        player = self._player(code.player_id)
        former = self.store.grant(player.id, code.client_id)
        if former is not None:
            self.revoke_grant(player.id, code.client_id)
        access = self._access(player.id, code.client_id, code.scopes)
        refresh = secrets.token_urlsafe(32)
        grant = StoredGrant(code.client_id, code.scopes, code.used, self.clock(), access[0], digest(access[1]), digest(refresh))
        self.store.put_grant(player.id, grant, refresh)
        self._still_registered(player.id, code.client_id)
        return IssuedTokens(access[1], refresh, ACCESS_SECONDS, code.scopes)

    def refreshable(self, refresh_token: str, client_id: str) -> tuple[str, StoredGrant] | None:
        """The player and grant a refresh token renews; ``None`` for one unknown, expired, another app's, or of a
        grant revoked; a rotated one (reused) revokes its grant."""
        owner = self.store.refresh_owner(refresh_token)
        if owner is None or owner[1] != client_id:
            return None
        player_id, _, family = owner
        grant = self.store.grant(player_id, client_id)
        if grant is None or grant.family != family:
            return None
        if grant.refresh_digest != digest(refresh_token):
            log.warning("refresh token reused for app %s: grant of %s revoked", client_id, player_id)
            self.revoke_grant(player_id, client_id)
            return None
        return player_id, grant

    def renew(self, player_id: str, grant: StoredGrant, scopes: Iterable[str] | None = None) -> IssuedTokens | None:
        """New tokens for the grant (``scopes``: fewer than granted, RFC 6749 §6), the refresh token rotated; the
        old access token revoked.  ``None``: another renewal came first with the same refresh token (the grant is
        revoked: one of the two was not the app)."""
        wanted = grant.scopes if scopes is None else tuple(ordered(set(scopes) & set(grant.scopes)))
        token_id, access = self._access(player_id, grant.client_id, wanted)
        refresh = secrets.token_urlsafe(32)
        renewed = replace(
            grant, token_id=token_id, token_digest=digest(access), refresh_digest=digest(refresh), refreshed_at=self.clock()
        )
        if not self.store.rotate(player_id, grant, renewed, refresh):
            self._revoke_token(player_id, token_id)
            self.revoke_grant(player_id, grant.client_id)
            return None
        self._revoke_token(player_id, grant.token_id)
        self._still_registered(player_id, grant.client_id)
        return IssuedTokens(access, refresh, ACCESS_SECONDS, wanted)

    def revoke(self, token: str, client_id: str) -> None:
        """RFC 7009: the grant a refresh or access token of this app belongs to, revoked (nothing happens for a token
        unknown, or another app's: the answer is the same, so it tells nothing)."""
        owner = self.store.refresh_owner(token)
        if owner is not None:
            player_id, owner_client, family = owner
            grant = self.store.grant(player_id, owner_client)
            if owner_client == client_id and grant is not None and grant.family == family:
                self.revoke_grant(player_id, client_id)
            return
        found = self.players.grant_of(token, fresh=True)
        if found is None:
            return
        grant = self.store.grant(found.player.id, client_id)
        if grant is not None and grant.token_digest == digest(token):
            self.revoke_grant(found.player.id, client_id)

    # --- a player's grants ----------------------------------------------------------------------
    def grants(self, player_id: str) -> list[StoredGrant]:
        return self.store.grants(player_id)

    def app_of_token(self, player_id: str) -> dict[str, App | None]:
        """token id -> the app whose grant holds it (``None``: an app since removed), for ``listTokens``."""
        return {grant.token_id: self.store.app(grant.client_id) for grant in self.store.grants(player_id)}

    def revoke_grant(self, player_id: str, client_id: str) -> bool:
        """The grant gone, its refresh tokens with it and its access token revoked; ``False``: there was none."""
        grant = self.store.delete_grant(player_id, client_id)
        if grant is None:
            return False
        self._revoke_token(player_id, grant.token_id)
        return True

    def revoke_grant_of_token(self, player_id: str, token_id: str) -> None:
        """A token revoked in ``listTokens``'s way (``revokeToken``): if it is an app's, its whole grant goes."""
        for grant in self.store.grants(player_id):
            if grant.token_id == token_id:
                self.store.delete_grant(player_id, grant.client_id)

    def on_account_deleted(self, player_id: str) -> None:
        self.store.forget(player_id)  # the tokens go with the account; the refresh tokens name no grant any more

    # --- helpers -------------------------------------------------------------------------------
    def _player(self, player_id: str) -> Player:
        player = self.players.get(player_id)
        if player is None:
            raise Refused("account_gone", "This account was deleted.")
        return player

    def _access(self, player_id: str, client_id: str, scopes: tuple[str, ...]) -> tuple[str, str]:
        app = self.store.app(client_id)
        label = f"app: {app.name if app is not None else client_id}"
        issued = self.players.issue_token(self._player(player_id), label, scopes=scopes, holder=None, lifetime=ACCESS_SECONDS)
        return issued.info.id, issued.token

    def _still_registered(self, player_id: str, client_id: str) -> None:
        """After a grant's tokens are stored: if the app was removed meanwhile (its sweep may have read its holders
        before this grant was written), the grant is revoked here and ``app_removed`` refused, so no token outlives
        its app."""
        if self.store.app(client_id) is None:
            self.revoke_grant(player_id, client_id)
            raise Refused("app_removed", "This app was removed by the operator.")

    def _revoke_token(self, player_id: str, token_id: str) -> None:
        player = self.players.get(player_id)
        if player is not None and token_id:
            with suppress(Refused):  # revoked already (in listTokens, say)
                self.players.revoke_token(player, token_id)

    def _revoke_family(self, player_id: str, client_id: str, family: str | None) -> None:
        grant = self.store.grant(player_id, client_id)
        if grant is not None and grant.family == family:
            log.warning("authorization code reused for app %s: grant of %s revoked", client_id, player_id)
            self.revoke_grant(player_id, client_id)
