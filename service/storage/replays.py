"""Imported replays: verified documents kept under their content hash (importing twice is harmless)."""

from __future__ import annotations

import json
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

    def save(self, document: dict[str, Any]) -> tuple[str, bool]:
        """The replay's id, and whether this stored it (``False``: the same content was imported before, and stays)."""
        replay_id = self.id_for(document)
        created = self.redis.set(self._key(replay_id), json.dumps(document, separators=(",", ":")), nx=True)
        return replay_id, bool(created)

    def get(self, replay_id: str) -> dict[str, Any] | None:
        stored = self.redis.get(self._key(replay_id))
        return None if stored is None else json.loads(stored)
