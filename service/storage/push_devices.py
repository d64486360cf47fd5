"""Players' native push devices (Firebase Cloud Messaging registration tokens) in Redis, on the player's slot.

``<prefix>player:{<id>}:devices`` a hash: the device's id (the first 32 hex digits of the SHA-256 of its registration
token, so the token itself is never a key, a URL or a log line) -> JSON of the device (``platform``, ``token``,
``created_at``).  One entry per registration token: an app that registers again replaces its entry.  How many a player
may have is the application's rule (:mod:`service.application.push_devices`); FCM answering UNREGISTERED (or 404) for a
token has dropped it for good, and so does this store (:meth:`PushDevices.delete`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

import redis

from service.storage.players.keys import player_key

__all__ = ["Device", "PushDevices", "device_id", "devices_key"]


def devices_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:devices"


def device_id(token: str) -> str:
    """A device's id: the registration token's SHA-256, shortened (the id may be shown and logged; the token not)."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Device:
    """A native app's registration with a push platform (``fcm``), and when it was made."""

    platform: str
    token: str
    created_at: str

    @property
    def id(self) -> str:
        return device_id(self.token)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class PushDevices:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def put(self, player_id: str, device: Device) -> None:
        """The device, replacing the entry of the same registration token."""
        self.redis.hset(devices_key(self.prefix, player_id), device.id, json.dumps(asdict(device), separators=(",", ":")))

    def of(self, player_id: str) -> dict[str, Device]:
        """Every device of the player, by id."""
        stored = self.redis.hgetall(devices_key(self.prefix, player_id))
        return {_text(key): Device(**json.loads(_text(value))) for key, value in stored.items()}

    def count(self, player_id: str) -> int:
        return int(self.redis.hlen(devices_key(self.prefix, player_id)))

    def has(self, player_id: str, id_: str) -> bool:
        return bool(self.redis.hexists(devices_key(self.prefix, player_id), id_))

    def delete(self, player_id: str, id_: str) -> bool:
        return bool(self.redis.hdel(devices_key(self.prefix, player_id), id_))

    def forget(self, player_id: str) -> None:
        self.redis.delete(devices_key(self.prefix, player_id))
