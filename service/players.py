"""Players and their bearer tokens.

A token is shown once, at creation; only its SHA-256 is kept (a token is 256
random bits, so a fast hash is enough: there is nothing to brute-force).
Keys: ``<prefix>player:<id>`` (a hash), ``<prefix>token:<sha256>`` (the id),
``<prefix>player:<id>:games`` (the ids of the player's games).
"""

from __future__ import annotations

import hashlib
import secrets
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
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

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

    def by_token(self, token: str) -> Player | None:
        player_id = self.redis.get(self._token_key(hash_token(token)))
        return self.get(player_id) if player_id else None

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
