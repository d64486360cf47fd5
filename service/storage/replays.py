"""Imported replays: what an import keeps, under an id made of its content hash, for a while.

One key per replay, ``<prefix>replay:<id>``, holding the text the application keeps (the verified facts,
:mod:`service.application.imports`; an import made before that kept the whole document, read for good).
It is written with its expiry in one command, so no key is ever left without one; importing the same
content again writes it again, the same bytes, and keeps it that long from then on.
"""

from __future__ import annotations

from typing import Any

import redis


class ReplayStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def _key(self, replay_id: str) -> str:
        return f"{self.prefix}replay:{replay_id}"

    @staticmethod
    def id_for(document: dict[str, Any]) -> str:
        digest: str = document["hash"]
        return "r_" + digest.removeprefix("sha256:")[:24]

    def save(self, replay_id: str, kept: str, ttl: int) -> bool:
        """Keep ``kept`` for ``ttl`` seconds from now (0: for good); whether it is new (``False``: imported before).

        One transaction on one key: whether it was there, and the write with its expiry (``SET … EX``).
        """
        key = self._key(replay_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.set(key, kept, ex=ttl if ttl > 0 else None)
            existed, _ = pipe.execute()
        return not existed

    def get(self, replay_id: str) -> str | None:
        """What an import keeps, while it is kept."""
        stored = self.redis.get(self._key(replay_id))
        return None if stored is None else stored.decode() if isinstance(stored, bytes) else str(stored)

    def seconds_left(self, replay_id: str) -> int | None:
        """How long an import is kept from now (``None``: for good, or not kept at all)."""
        left = int(self.redis.ttl(self._key(replay_id)))
        return left if left >= 0 else None

    def exists(self, replay_id: str) -> bool:
        return bool(self.redis.exists(self._key(replay_id)))
