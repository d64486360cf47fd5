"""What the event store is asked and answers: an idempotent request, the outcomes of an append, a stored event,
and the refusals (a version conflict, an idempotency key reused, replicas that did not confirm in time)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any


class VersionConflict(Exception):
    """The stream moved on since the writer read it, or (``diverged``) holds other events than the writer folded."""

    def __init__(self, expected: int, current: int, *, diverged: bool = False) -> None:
        what = "other events than the writer read" if diverged else f"version {current}"
        super().__init__(f"expected version {expected}, the stream holds {what}")
        self.expected = expected
        self.current = current
        self.diverged = diverged


class NotReplicated(Exception):
    """An append that Redis stored but fewer replicas than asked for acknowledged in time.

    The events are on the primary (and in the stream); they may be lost if
    the primary fails before its replicas catch up.
    """

    def __init__(self, version: int | None, replicas: int, wanted: int) -> None:
        super().__init__(f"{'version ' + str(version) if version else 'the append'} reached {replicas} of {wanted} replicas")
        self.version = version
        self.replicas = replicas
        self.wanted = wanted


class IdempotencyMismatch(Exception):
    """An idempotency key was used before with a different request."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An idempotent write: who asked (``scope``), their key, and what they asked (``fingerprint``)."""

    scope: str
    key: str
    fingerprint: str
    ttl: int = 24 * 3600
    #: Fingerprints the same request had in records written before (what a fingerprint covers changed once).
    earlier: tuple[str, ...] = ()

    def same_request(self, recorded: str) -> bool:
        """Whether a record's fingerprint (whole, or the first 128 bits a record keeps) is this request's."""
        return any(recorded in (mine, short_fingerprint(mine)) for mine in (self.fingerprint, *self.earlier))

    @staticmethod
    def fingerprint_of(method: str, path: str, body: Any) -> str:
        canonical = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Appended:
    version: int


@dataclass(frozen=True, slots=True)
class Replayed:
    """A retried idempotent write: nothing was appended; the first one made ``version``."""

    version: int


@dataclass(frozen=True, slots=True)
class StoredEvent:
    number: int
    payload: str


def short_fingerprint(fingerprint: str) -> str:
    """What a record keeps of a request's fingerprint (a SHA-256 in hex): its first 128 bits."""
    return fingerprint[:32]
