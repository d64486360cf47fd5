"""What callers hand the application layer and get back: new games, seat requests, outcomes, pages of games.

A request that may be retried comes with its :class:`Idempotency` (who asks, their key, what they ask): the
store keeps its record, so the type is storage's, handed on from here to the entry points that build one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from engine import (
    Card,
    Variant,
)
from service.domain.game import Game
from service.storage.events import Idempotency as Idempotency  # re-exported: what an entry point builds for a retry
from service.storage.events import Replayed

log = logging.getLogger("red7.games")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class SeatRequest:
    kind: str
    level: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    seats: Sequence[SeatRequest]
    variant: Variant = Variant.ADVANCED
    action_rules: bool = False
    seed: int | None = None
    deck: Sequence[Card] | None = None
    turn_timeout: int | None = None
    timeout_action: str = "fold"
    listed: bool = False
    rated: bool = False
    #: A correspondence game: each turn may take this many days (then ``turn_timeout`` is ignored).
    days_per_turn: int | None = None
    origin: str = "direct"
    rematch_of: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A write's result: the game after it, or (a retried request) what the first one made."""

    game: Game | None = None
    replayed: Replayed | None = None


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[Game]
    next_cursor: str | None


#: Where a page of a player's games starts: among the games in play after the sort key
