"""Players' web push subscriptions in Redis: one per token (a device), on the player's slot.

``<prefix>player:{<id>}:push`` a hash: the token's digest (the SHA-256 a token is known by,
:func:`service.storage.players.hash_token`) -> JSON of the subscription (``endpoint``, ``p256dh``, ``auth``,
``created_at``).  A device that subscribes again replaces its subscription; a push service that answers 404 or 410
for an endpoint has dropped it for good, and so does this store (:meth:`PushSubscriptions.drop_endpoint`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

from service.storage.players.keys import player_key


def push_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:push"


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription (the Push API's ``PushSubscription.toJSON()``), and when it was made."""

    endpoint: str
    p256dh: str
    auth: str
    created_at: str

    def info(self) -> dict[str, object]:
        """As pywebpush takes it (``subscription_info``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class PushSubscriptions:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def put(self, player_id: str, device: str, subscription: Subscription) -> None:
        """The subscription of the device (a token's digest), replacing the one it had."""
        self.redis.hset(push_key(self.prefix, player_id), device, json.dumps(asdict(subscription), separators=(",", ":")))

    def get(self, player_id: str, device: str) -> Subscription | None:
        stored = self.redis.hget(push_key(self.prefix, player_id), device)
        return None if stored is None else Subscription(**json.loads(_text(stored)))

    def of(self, player_id: str) -> dict[str, Subscription]:
        """Every device's subscription, by device."""
        stored = self.redis.hgetall(push_key(self.prefix, player_id))
        return {_text(device): Subscription(**json.loads(_text(value))) for device, value in stored.items()}

    def count(self, player_id: str) -> int:
        return int(self.redis.hlen(push_key(self.prefix, player_id)))

    def delete(self, player_id: str, device: str) -> bool:
        return bool(self.redis.hdel(push_key(self.prefix, player_id), device))

    def drop_endpoint(self, player_id: str, endpoint: str) -> int:
        """Forget every subscription with this endpoint (its push service said it is gone); how many there were."""
        gone = [device for device, sub in self.of(player_id).items() if sub.endpoint == endpoint]
        return int(self.redis.hdel(push_key(self.prefix, player_id), *gone)) if gone else 0

    def forget(self, player_id: str) -> None:
        self.redis.delete(push_key(self.prefix, player_id))
