"""What a player (or the service) asks the engine to do.

A turn is a sequence of *steps* (docs/rules.md 15, 32): an optional ``Play`` (with
its effect choices ``Take`` for a 1 and ``Place`` for a 7, and the extra
``Play`` of a 5), then either a ``Discard`` — which ends the turn — or
``EndTurn``.  ``Fold`` gives up the round at any point of one's own turn.

``Start``, ``ScoreRound`` and ``DealRound`` are the service's commands: they
are kept apart from the turn steps so that a background worker can run them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.events import Destination, Variant


@dataclass(frozen=True, slots=True)
class Play:
    """Hand to palette: the turn's play, or the extra play a 5 grants."""

    card: Card
    type = "play"


@dataclass(frozen=True, slots=True)
class Discard:
    """Hand to canvas (the new rule), ending the turn.

    ``draw`` is the docs/rules.md 22 choice; it only matters when the discard
    grants the advanced draw, and the default is to draw.
    """

    card: Card
    draw: bool = True
    type = "discard"


@dataclass(frozen=True, slots=True)
class Take:
    """The 1's choice: which card of which player's palette goes on top of the deck."""

    seat: int
    card: Card
    type = "take"


@dataclass(frozen=True, slots=True)
class Place:
    """The 7's choice: which own palette card, and whether to the deck or the canvas."""

    card: Card
    to: Destination
    type = "place"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn after a play without discarding."""

    type = "end_turn"


@dataclass(frozen=True, slots=True)
class Fold:
    """Give up the round (docs/rules.md 15)."""

    type = "fold"


Step = Play | Discard | Take | Place | EndTurn | Fold
STEP_TYPES: dict[str, type] = {cls.type: cls for cls in (Play, Discard, Take, Place, EndTurn, Fold)}


@dataclass(frozen=True, slots=True)
class Start:
    """Begin a game: options plus the source of every shuffle (see ``GameStarted``)."""

    players: int
    variant: Variant = Variant.ADVANCED
    action_rules: bool = False
    seed: int = 0
    deck: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class ScoreRound:
    """Score a won round (advanced) and finish the game if it is over."""


@dataclass(frozen=True, slots=True)
class DealRound:
    """Shuffle what is left and deal the next round (docs/rules.md 24)."""


Command = Start | ScoreRound | DealRound


def step_to_dict(step: Step) -> dict[str, Any]:
    """A JSON-able dict in the API's shape, e.g. ``{"type": "play", "card": "R5"}``."""
    out: dict[str, Any] = {"type": step.type}
    if isinstance(step, Play | Discard | Take | Place):
        out["card"] = str(step.card)
    if isinstance(step, Take):
        out["seat"] = step.seat
    if isinstance(step, Place):
        out["to"] = step.to.value
    if isinstance(step, Discard):
        out["draw"] = step.draw
    return out


def step_from_dict(data: dict[str, Any]) -> Step:
    """The inverse of :func:`step_to_dict`; ``ValueError`` on anything else."""
    kind = data.get("type")
    if kind not in STEP_TYPES:
        raise ValueError(f"unknown step type {kind!r}; expected one of {', '.join(STEP_TYPES)}")
    if kind == "end_turn":
        return EndTurn()
    if kind == "fold":
        return Fold()
    card = Card.parse(data["card"])
    if kind == "play":
        return Play(card)
    if kind == "discard":
        return Discard(card, bool(data.get("draw", True)))
    if kind == "take":
        return Take(int(data["seat"]), card)
    return Place(card, Destination(data["to"]))


def describe_step(step: Step) -> str:
    """A short human phrase: ``"play R5"``, ``"take G4 from seat 2"``."""
    if isinstance(step, Play):
        return f"play {step.card}"
    if isinstance(step, Discard):
        return f"discard {step.card}" + ("" if step.draw else " (no draw)")
    if isinstance(step, Take):
        return f"take {step.card} from seat {step.seat}"
    if isinstance(step, Place):
        return f"place {step.card} on the {step.to.value}"
    if isinstance(step, EndTurn):
        return "end the turn"
    return "fold"
