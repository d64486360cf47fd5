"""Quick match in Redis: each pool's stream, the round of pools, and each player's tickets.

Keys (each script and transaction on one Redis Cluster slot):

- ``<prefix>pool:{<kind>}:events``, ``:version``, ``:snapshot``, ``:idem``: a pool's stream, kept exactly as a game's
  is (:class:`~service.storage.events.EventStore`'s append script: the expected version and head, all or nothing),
  its kind (``advanced-plain-casual-60s``, :class:`service.domain.matchmaking.Kind`) for its hash tag
- ``<prefix>match:pools`` a set: the kind of every pool a ticket was ever opened in, the matchmaker's round (the
  kinds are few: variants, rules, rated or not, time controls)
- ``<prefix>player:{<id>}:match-tickets`` a hash on the player's slot: for each ticket of theirs, JSON with its pool,
  the pool's version before it was opened (where its history starts), when it was opened, and once it is over,
  ``closed``: what became of it (a cache of the pool's stream, which says so for good).  A player's open tickets are
  found here without a scan; the entry is written *before* the ticket's append, so a crash between the two leaves
  an entry whose ticket is nowhere (readers find no history for it, and drop it), never a ticket nobody lists.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from service.storage.events import EventStore, Idempotency
from service.storage.idempotency import Made, made_by, record_field, record_text
from service.storage.players.keys import player_key, records_key


class PoolStreams(EventStore):
    """The pools' streams: an :class:`EventStore` under keys of their own (``pool:{<kind>}:...``)."""

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}pool:{{{stream}}}:{part}"


class TooManyTickets(Exception):
    """The player holds as many open tickets as a player may."""


def tickets_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:match-tickets"


class TicketIndex:
    """Each player's tickets, and the round of pools."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    @property
    def pools_key(self) -> str:
        return f"{self.prefix}match:pools"

    def add_pool(self, kind: str) -> None:
        self.redis.sadd(self.pools_key, kind)

    def pools(self) -> list[str]:
        return sorted(_text(kind) for kind in self.redis.smembers(self.pools_key))

    def entries(self, player_id: str) -> dict[str, dict[str, Any]]:
        return {_text(k): json.loads(v) for k, v in self.redis.hgetall(tickets_key(self.prefix, player_id)).items()}

    def entry(self, player_id: str, ticket_id: str) -> dict[str, Any] | None:
        found = self.redis.hget(tickets_key(self.prefix, player_id), ticket_id)
        return None if found is None else dict(json.loads(found))

    def put(self, player_id: str, ticket_id: str, entry: dict[str, Any]) -> None:
        self.redis.hset(tickets_key(self.prefix, player_id), ticket_id, json.dumps(entry, separators=(",", ":")))

    def drop(self, player_id: str, *ticket_ids: str) -> None:
        if ticket_ids:
            self.redis.hdel(tickets_key(self.prefix, player_id), *ticket_ids)

    def claim(
        self,
        player_id: str,
        ticket_id: str,
        entry: dict[str, Any],
        *,
        limit: int,
        idempotency: Idempotency | None = None,
        made: Made | None = None,
    ) -> Made | None:
        """List a new ticket unless the player holds ``limit`` open ones already (:class:`TooManyTickets`; 0: no limit).

        With ``idempotency``, the create's record (``made``) goes down in the same transaction: ``None`` when it did,
        else what the request with that key made first (:class:`IdempotencyMismatch` if it was another request).
        An entry with no ``closed`` counts as open: the caller first closes those it knows are over.
        """
        key, records = tickets_key(self.prefix, player_id), records_key(self.prefix, player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key, records)  # type: ignore[no-untyped-call]  # (redis-py leaves it unannotated)
                    if idempotency is not None and (stored := pipe.hget(records, record_field(idempotency))) is not None:
                        return made_by(_text(stored), idempotency)
                    held = sum(1 for text in pipe.hvals(key) if "closed" not in json.loads(text))
                    if limit and held >= limit:
                        raise TooManyTickets(held)
                    pipe.multi()
                    pipe.hset(key, ticket_id, json.dumps(entry, separators=(",", ":")))
                    if idempotency is not None:
                        pipe.hset(records, record_field(idempotency), record_text(idempotency, made or {}))
                        pipe.expire(records, idempotency.ttl)
                    pipe.execute()
                    return None
                except redis.WatchError:
                    continue


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
