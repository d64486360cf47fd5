"""Sign in with Red7 (issue 37 item 4) in Redis: the apps the operator registered, authorization codes, each
player's grants and the refresh tokens that renew them.

Keys (cluster-friendly: what one write must change together shares a slot):

- ``<prefix>oauth:apps`` a hash: client id -> JSON of the app (name, redirect URIs, scopes, time registered).  A few
  dozen apps at most, read on every authorization: one key, one slot.
- ``<prefix>oauth:code:<sha256>`` JSON of what an authorization code stands for (player, app, redirect URI, scopes,
  PKCE challenge), for :data:`CODE_SECONDS`; redeemed, it is marked ``used`` with the grant's family (kept until it
  expires) so that a second redemption is seen as such and revokes what the first made (RFC 6749 §4.1.2).
- ``<prefix>player:{<id>}:grants`` a hash on the player's slot: client id -> JSON of the grant (scopes, its family,
  the current access token's id and digest, the current refresh token's digest).  One grant per app and player:
  approving an app again replaces its grant.
- ``<prefix>oauth:app:<client id>:holders`` a set of the ids of the players who were granted tokens for the app (on
  the app's slot, written before the grant): what removing the app sweeps to end every token it holds.  A member
  whose grant has gone since (revoked, replaced, the account deleted) stays until the app is removed: the sweep finds
  no grant there and goes on.
- ``<prefix>oauth:refresh:<sha256>`` JSON naming the player, the app and the grant's family, for
  :data:`REFRESH_SECONDS`.  A refresh token works while its grant exists, has its family and names it as current;
  one of the family that is not current was rotated away: its reuse revokes the grant (RFC 9700 §4.14.2).

Only digests are keys: a code or a token is never stored.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass, field

import redis

from service.storage.players.keys import player_key

__all__ = [
    "CODE_SECONDS",
    "REFRESH_SECONDS",
    "App",
    "CodeGrant",
    "OAuthStore",
    "StoredGrant",
    "digest",
]

#: How long an authorization code may be redeemed: RFC 6749 §4.1.2 recommends ten minutes at most; a minute is plenty
#: for a redirect and one request.
CODE_SECONDS = 60
#: How long a refresh token lives unused (each use rotates it and starts a new one).
REFRESH_SECONDS = 30 * 24 * 3600


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class App:
    """An app the operator registered: a public client (no secret; PKCE proves the code's redeemer)."""

    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    scopes: tuple[str, ...]
    created_at: str

    @staticmethod
    def of(text: str) -> App:
        data = json.loads(text)
        return App(data["client_id"], data["name"], tuple(data["redirect_uris"]), tuple(data["scopes"]), data["created_at"])


@dataclass(frozen=True, slots=True)
class CodeGrant:
    """What an authorization code stands for; ``used``: the grant family its first redemption made, if redeemed."""

    player_id: str
    client_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    challenge: str
    method: str
    used: str | None = None


@dataclass(frozen=True, slots=True)
class StoredGrant:
    """A player's grant to an app: what it may do, and its current tokens (by id and digest, never themselves)."""

    client_id: str
    scopes: tuple[str, ...]
    family: str
    created_at: str
    token_id: str = ""
    token_digest: str = ""
    refresh_digest: str = ""
    refreshed_at: str = field(default="")

    @staticmethod
    def of(text: str) -> StoredGrant:
        data = json.loads(text)
        data["scopes"] = tuple(data["scopes"])
        return StoredGrant(**data)

    def text(self) -> str:
        return json.dumps({**asdict(self), "scopes": list(self.scopes)}, separators=(",", ":"))


class OAuthStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    # --- keys ----------------------------------------------------------------------------------
    def _apps(self) -> str:
        return f"{self.prefix}oauth:apps"

    def _code(self, code: str) -> str:
        return f"{self.prefix}oauth:code:{digest(code)}"

    def _refresh(self, refresh_digest: str) -> str:
        return f"{self.prefix}oauth:refresh:{refresh_digest}"

    def _holders(self, client_id: str) -> str:
        return f"{self.prefix}oauth:app:{client_id}:holders"

    def grants_key(self, player_id: str) -> str:
        return f"{player_key(self.prefix, player_id)}:grants"

    # --- apps ----------------------------------------------------------------------------------
    def add_app(self, app: App) -> None:
        self.redis.hset(self._apps(), app.client_id, json.dumps({**asdict(app)}, separators=(",", ":")))

    def app(self, client_id: str) -> App | None:
        text = self.redis.hget(self._apps(), client_id)
        return None if text is None else App.of(_text(text))

    def apps(self) -> list[App]:
        return sorted((App.of(_text(text)) for text in self.redis.hvals(self._apps())), key=lambda app: app.created_at)

    def remove_app(self, client_id: str) -> bool:
        return bool(self.redis.hdel(self._apps(), client_id))

    def holders(self, client_id: str) -> list[str]:
        """The players who were granted tokens for the app (some may hold none any more)."""
        return sorted(_text(member) for member in self.redis.smembers(self._holders(client_id)))

    def forget_holders(self, client_id: str, player_ids: list[str]) -> None:
        """``player_ids`` swept (their grants to the app revoked): off the app's list; one granted since stays."""
        if player_ids:
            self.redis.srem(self._holders(client_id), *player_ids)

    # --- codes ---------------------------------------------------------------------------------
    def put_code(self, code: str, grant: CodeGrant) -> None:
        self.redis.set(self._code(code), json.dumps(asdict(grant), separators=(",", ":")), ex=CODE_SECONDS)

    def redeem_code(self, code: str) -> tuple[CodeGrant, bool] | None:
        """The code's grant marked used by a new family in the same transaction (``used`` on the answer: that
        family), and ``True``; a code redeemed before comes back with the family its first redemption made, and
        ``False``; ``None``: no such code, or expired."""
        key = self._code(code)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                    text = pipe.get(key)
                    if text is None:
                        return None
                    data = json.loads(_text(text))
                    data["scopes"] = tuple(data["scopes"])
                    found = CodeGrant(**data)
                    if found.used is not None:
                        return found, False
                    family = secrets.token_hex(8)
                    pipe.multi()
                    pipe.set(key, json.dumps({**data, "used": family}), keepttl=True)
                    pipe.execute()
                    return CodeGrant(**{**data, "used": family}), True
                except redis.WatchError:
                    continue

    # --- grants and refresh tokens ---------------------------------------------------------------
    def grant(self, player_id: str, client_id: str) -> StoredGrant | None:
        text = self.redis.hget(self.grants_key(player_id), client_id)
        return None if text is None else StoredGrant.of(_text(text))

    def grants(self, player_id: str) -> list[StoredGrant]:
        return [StoredGrant.of(_text(text)) for text in self.redis.hvals(self.grants_key(player_id))]

    def put_grant(self, player_id: str, grant: StoredGrant, refresh_token: str) -> None:
        """The player on the app's list of holders, the grant (replacing the app's former one), then its refresh
        token's key: a crash between leaves a holder without a grant, or a grant whose refresh token never reached
        anyone; never a grant that removing the app would not find."""
        self.redis.sadd(self._holders(grant.client_id), player_id)
        self.redis.hset(self.grants_key(player_id), grant.client_id, grant.text())
        self._put_refresh(player_id, grant, refresh_token)

    def _put_refresh(self, player_id: str, grant: StoredGrant, refresh_token: str) -> None:
        record = {"player_id": player_id, "client_id": grant.client_id, "family": grant.family}
        self.redis.set(self._refresh(digest(refresh_token)), json.dumps(record), ex=REFRESH_SECONDS)

    def refresh_owner(self, refresh_token: str) -> tuple[str, str, str] | None:
        """Whose refresh token this is: (player id, client id, family), used or not; ``None``: unknown or expired."""
        text = self.redis.get(self._refresh(digest(refresh_token)))
        if text is None:
            return None
        data = json.loads(_text(text))
        return data["player_id"], data["client_id"], data["family"]

    def rotate(self, player_id: str, old: StoredGrant, new: StoredGrant, refresh_token: str | None) -> bool:
        """Replace the grant ``old`` by ``new`` if it is still ``old`` (compare and set on the player's slot): two
        uses of one refresh token at once cannot both rotate it; ``False``: it changed meanwhile."""
        key = self.grants_key(player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(key)  # type: ignore[no-untyped-call]
                current = pipe.hget(key, old.client_id)
                if current is None or StoredGrant.of(_text(current)) != old:
                    return False
                pipe.multi()
                pipe.hset(key, new.client_id, new.text())
                pipe.execute()
            except redis.WatchError:
                return False
        if refresh_token is not None:
            self._put_refresh(player_id, new, refresh_token)
        return True

    def delete_grant(self, player_id: str, client_id: str) -> StoredGrant | None:
        """The grant removed (its refresh tokens stop working with it: they name a family no grant holds)."""
        key = self.grants_key(player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(key, client_id)
            pipe.hdel(key, client_id)
            text, _ = pipe.execute()
        return None if text is None else StoredGrant.of(_text(text))

    def forget(self, player_id: str) -> list[StoredGrant]:
        """Every grant of the player, removed (their account is deleted)."""
        grants = self.grants(player_id)
        self.redis.delete(self.grants_key(player_id))
        return grants
