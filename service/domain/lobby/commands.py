"""What may be asked of a table: the lobby's commands, as the application builds them from a request or a job.

Each is decided by :func:`service.domain.lobby.decision.decide`; what a command carries is all a decision reads
besides the table, so that anything random (a seed, a join code, a rematch's id) is chosen once, by the caller, and
recorded in the events it makes.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Card, Variant
from service.domain.lobby.terms import SeatSpec


@dataclass(frozen=True, slots=True)
class SetUp:
    """Set a new table up; its creator takes the first human seat.  The seed and join code come from the caller."""

    creator_id: str
    creator_name: str
    seats: tuple[SeatSpec, ...]
    variant: Variant
    action_rules: bool
    turn_timeout: int | None
    timeout_action: str
    seed: int
    join_code: str
    dealing: str = "random"
    deck: tuple[Card, ...] | None = None
    listed: bool = False
    rated: bool = False
    days_per_turn: int | None = None
    origin: str = "direct"
    rematch_of: str | None = None
    #: More players seated at once (a match, an accepted challenge, a rematch): ``(seat, player id, name)``, each
    #: on a human seat other than the creator's.
    seated: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Join:
    """Take an open human seat (the first one, or ``seat``), with the game's join code (a listed game needs none)."""

    player_id: str
    name: str
    code: str
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Give a seat up: before the start it opens again; in play an AI of ``level`` takes it."""

    player_id: str
    level: str = "greedy"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Call off a game that has not started (its creator only)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class Abort:
    """Call off a game in play before every seat has moved once (any seated player); it ends with no winner."""

    player_id: str


@dataclass(frozen=True, slots=True)
class OfferRematch:
    """Offer (or accept) a rematch of a finished game.  ``rematch_id``, chosen by the caller (the lobby draws no
    random numbers), is the new game's id if this offer is the last one wanted."""

    player_id: str
    rematch_id: str


@dataclass(frozen=True, slots=True)
class DeclineRematch:
    """Want no rematch of a finished game (an offer made before is withdrawn with it): there will be none."""

    player_id: str


@dataclass(frozen=True, slots=True)
class GiveTime:
    """Give ``seconds`` to the turn of the seat to move (another player's): see :func:`max_gift` for the limit."""

    player_id: str
    seconds: int


LobbyCommand = SetUp | Join | Leave | Cancel | Abort | OfferRematch | DeclineRematch | GiveTime
