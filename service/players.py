"""Players and their bearer tokens.

A token is shown once, at creation; only its SHA-256 is kept (a token is 256
random bits, so a fast hash is enough: there is nothing to brute-force).
Keys: ``<prefix>player:<id>`` (a hash), ``<prefix>token:<sha256>`` (the id),
``<prefix>player:<id>:games`` (the ids of the player's games).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass

import redis

TOKEN_PREFIX = "r7_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(kind: str) -> str:
    return f"{kind}_{secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    created_at: str
    webhook_url: str | None = None
    webhook_secret: str | None = None


class PlayerStore:
    """Players in Redis, with a short-lived per-process cache of token lookups.

    Every request starts by resolving its token; the cache spares it two round
    trips.  A change made here drops the player from this process's cache; other
    processes see it when their entry expires (``cache_seconds``).
    """

    def __init__(self, client: redis.Redis, prefix: str = "red7:", cache_seconds: float = 10.0) -> None:
        self.redis = client
        self.prefix = prefix
        self.cache_seconds = cache_seconds
        self._by_token: dict[str, tuple[float, Player]] = {}
        self._webhooks: dict[str, tuple[float, bool]] = {}
        self._lock = threading.Lock()

    def _player_key(self, player_id: str) -> str:
        return f"{self.prefix}player:{player_id}"

    def _token_key(self, token_hash: str) -> str:
        return f"{self.prefix}token:{token_hash}"

    def _games_key(self, player_id: str) -> str:
        return f"{self.prefix}player:{player_id}:games"

    def create(self, name: str, created_at: str) -> tuple[Player, str]:
        """A new player and its token (the only time the token exists in clear)."""
        player = Player(new_id("p"), name, created_at)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self.redis.pipeline(transaction=True) as pipe:
            fields = {"name": name, "created_at": created_at, "token_hash": hash_token(token)}
            pipe.hset(self._player_key(player.id), mapping=fields)
            pipe.set(self._token_key(hash_token(token)), player.id)
            pipe.execute()
        return player, token

    def get(self, player_id: str) -> Player | None:
        data = self.redis.hgetall(self._player_key(player_id))
        if not data:
            return None
        return Player(
            player_id,
            data["name"],
            data["created_at"],
            data.get("webhook_url") or None,
            data.get("webhook_secret") or None,
        )

    def has_webhook(self, player_id: str) -> bool:
        """Whether the player wants notifications (cached like token lookups)."""
        now = time.monotonic()
        with self._lock:
            hit = self._webhooks.get(player_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        wanted = bool(self.redis.hget(self._player_key(player_id), "webhook_url"))
        with self._lock:
            if len(self._webhooks) > 50_000:
                self._webhooks.clear()
            self._webhooks[player_id] = (now + self.cache_seconds, wanted)
        return wanted

    def by_token(self, token: str) -> Player | None:
        digest = hash_token(token)
        now = time.monotonic()
        with self._lock:
            hit = self._by_token.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        player_id = self.redis.get(self._token_key(digest))
        player = self.get(player_id) if player_id else None
        if player is not None:
            with self._lock:
                if len(self._by_token) > 50_000:
                    self._by_token.clear()
                self._by_token[digest] = (now + self.cache_seconds, player)
        return player

    def update(self, player_id: str, *, name: str | None = None, webhook_url: str | None = None) -> Player:
        """Change the name or the webhook; a new webhook gets a new signing secret (returned once)."""
        mapping: dict[str, str] = {}
        if name is not None:
            mapping["name"] = name
        if webhook_url is not None:
            mapping["webhook_url"] = webhook_url
            mapping["webhook_secret"] = secrets.token_urlsafe(32) if webhook_url else ""
        if mapping:
            self.redis.hset(self._player_key(player_id), mapping=mapping)
            with self._lock:
                self._by_token = {k: v for k, v in self._by_token.items() if v[1].id != player_id}
                self._webhooks.pop(player_id, None)
        player = self.get(player_id)
        assert player is not None
        return player

    def add_game(self, player_id: str, game_id: str) -> None:
        """Index a game under a player *before* the game records the seat.

        Games live on their own cluster slots, so this cannot be atomic with
        the append; written first, a failed append leaves a harmless extra
        entry that readers drop (they check the seat in the game itself).
        """
        self.redis.sadd(self._games_key(player_id), game_id)

    def game_ids(self, player_id: str) -> set[str]:
        return set(self.redis.smembers(self._games_key(player_id)))
