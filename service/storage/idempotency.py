"""Idempotency records of the creates that are not one append to a game: a sign-up, a token, a game, a replay import.

An action, a join or a leave is one append to its game, and its record goes into the game's hash of records in
that same script (:mod:`service.storage.events`).  A create has no game to hold its record yet (a retry does not
know the id it made), so its record lives on the caller's slot:

- ``<prefix>player:{<id>}:idem`` a hash: for each key the player sent, ``<sha256 of the key, 16 hex>`` → the record
- ``<prefix>signup:{<sha256 of the address, 16 hex>}:idem`` the same for the sign-ups from one address (there is no
  player yet)

A record is JSON: ``f``, the first 128 bits of the request's fingerprint, and ``made``, everything the create
decided (the ids it gave, its time, the token it issued).  It is *claimed* (``HSETNX``) before the create's writes,
which a retry then performs again if the first attempt stopped before them: they write what the record says, so the
same thing twice, and a second attempt running beside the first makes nothing new either.  Where the create is one
write on the caller's slot (a token's listing), the record goes into that same transaction.

A hash lives until a TTL after its last record (each write sets the TTL again): each record is kept at least its TTL.

A token is never kept in clear (only its SHA-256 is): the one an answer holds is kept *sealed* with the client's
own key, which a retry sends again (:func:`seal`).  Only the key's SHA-256 (64 bits of it) names the record, so a
client that wants the sealed token to stay sealed in a copy of the store uses a random key, as it should anyway.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from typing import Any

import redis

from service.storage.events import Idempotency, IdempotencyMismatch, short_fingerprint

#: What a create decided: JSON-able fields (ids, a time, a sealed token ...).
Made = dict[str, Any]


def signup_records_key(prefix: str, address: str) -> str:
    return f"{prefix}signup:{{{hashlib.sha256(address.encode()).hexdigest()[:16]}}}:idem"


def record_field(idempotency: Idempotency) -> str:
    return hashlib.sha256(idempotency.key.encode()).hexdigest()[:16]


def record_text(idempotency: Idempotency, made: Made) -> str:
    return json.dumps({"f": short_fingerprint(idempotency.fingerprint), "made": made}, separators=(",", ":"))


def made_by(stored: str, idempotency: Idempotency) -> Made:
    """What the request recorded in ``stored`` made; :class:`IdempotencyMismatch` if it was another request."""
    record = json.loads(stored)
    if not idempotency.same_request(record["f"]):
        raise IdempotencyMismatch("this Idempotency-Key was already used for a different request")
    made: Made = record["made"]
    return made


def seal(secret: str, idempotency: Idempotency) -> str:
    """``secret`` encrypted with a keystream drawn from the client's key (SHAKE-256 of it and its scope).

    Each (key, scope) seals one secret once, the one its record keeps, so the keystream is never used twice.
    """
    data = secret.encode()
    return base64.urlsafe_b64encode(_xor(data, _keystream(idempotency, len(data)))).decode()


def unseal(sealed: str, idempotency: Idempotency) -> str:
    data = base64.urlsafe_b64decode(sealed.encode())
    return _xor(data, _keystream(idempotency, len(data))).decode()


def _keystream(idempotency: Idempotency, size: int) -> bytes:
    material = b"red7 sealed answer\0" + idempotency.scope.encode() + b"\0" + idempotency.key.encode()
    return hashlib.shake_256(material).digest(size)


def _xor(data: bytes, stream: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


class CreateRecords:
    """Claim and read the records of creates, in the hash ``key`` of the caller (a player's ``records_key``, or
    :func:`signup_records_key`)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def find(self, key: str, idempotency: Idempotency) -> Made | None:
        """What the first request with this key made, if there was one (:class:`IdempotencyMismatch`: another request)."""
        stored = self.redis.hget(key, record_field(idempotency))
        return None if stored is None else made_by(_text(stored), idempotency)

    def claim(
        self, key: str, idempotency: Idempotency, made: Made, *, also: Callable[[redis.client.Pipeline], object] | None = None
    ) -> Made | None:
        """Record ``made`` as what this request decides, with ``also``'s writes (on the same slot) in one transaction.

        ``None``: claimed.  Else the key was claimed first (a retry, or an attempt running beside this one), and what
        that request made comes back instead (:class:`IdempotencyMismatch`: it was another request).
        """
        field = record_field(idempotency)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(key, field, record_text(idempotency, made))
            pipe.hget(key, field)
            pipe.expire(key, idempotency.ttl)
            if also is not None:
                also(pipe)
            claimed, stored, *_ = pipe.execute()
        return None if claimed else made_by(_text(stored), idempotency)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
