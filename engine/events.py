"""The facts a game is made of.  ``fold(events)`` of these *is* the game state.

Events are immutable and carry everything needed to rebuild the state without
re-running any decision: a deal records the cards dealt, a draw the card
drawn.  Fields that a projection may hide are ``Optional``: a redacted event
is the same class with those fields set to ``None`` (see
:mod:`engine.projection`).

Every event serialises to a plain JSON-able dict with a ``type`` key and cards
in notation (``"R7"``), via :func:`event_to_dict` / :func:`event_from_dict`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, ClassVar, get_type_hints

from engine.cards import Card, Color


class Variant(StrEnum):
    BASIC = "basic"
    ADVANCED = "advanced"


class Effect(StrEnum):
    """What an odd card does when played to the palette with the action rules (docs/rules.md 27-30)."""

    TAKE = "take"  # 1: take a card from a bigger-or-equal palette onto the deck
    DRAW = "draw"  # 3: draw the top card of the deck
    PLAY = "play"  # 5: play one more card
    PLACE = "place"  # 7: move an own palette card to the deck or the canvas


class Destination(StrEnum):
    """Where the 7's effect puts a palette card."""

    DECK = "deck"
    CANVAS = "canvas"


class Elimination(StrEnum):
    NOT_WINNING = "not_winning"  # docs/rules.md 17: the turn ended without winning
    FOLDED = "folded"  # docs/rules.md 15: did nothing / gave up
    EMPTY_HAND = "empty_hand"  # docs/rules.md 18: no hand card at the start of the turn


class DrawCause(StrEnum):
    THREE = "three"  # the 3's action (docs/rules.md 28)
    DISCARD = "discard"  # the advanced draw after a discard (docs/rules.md 22)


class Finish(StrEnum):
    ROUND_WON = "round_won"  # basic variant: the round's winner wins the game
    TARGET_REACHED = "target_reached"  # docs/rules.md 24
    DECK_EXHAUSTED = "deck_exhausted"  # docs/rules.md 24: fewer than 8 cards per player left


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str]


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The options, and where the shuffles come from.

    ``seed`` drives every shuffle; ``deck`` (top card first) replaces the
    first round's shuffle when a game is custom-dealt.  Both are secret until
    the game is over: anyone knowing the seed could compute every deal.
    """

    type: ClassVar[str] = "game_started"
    players: int
    variant: Variant
    action_rules: bool
    seed: int | None
    deck: tuple[Card, ...] | None = None
    custom_deal: bool = False


@dataclass(frozen=True, slots=True)
class RoundDealt(Event):
    """A round's deal.  ``hands[s]`` is ``None`` where redacted; ``deck`` is top card first."""

    type: ClassVar[str] = "round_dealt"
    round: int
    hands: tuple[tuple[Card, ...] | None, ...]
    palettes: tuple[Card, ...]
    deck: tuple[Card, ...] | None
    deck_size: int
    first_seat: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    seat: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """Hand to palette; ``effect`` is the action that fires, if any (decided, so folding needs no search)."""

    type: ClassVar[str] = "card_played"
    seat: int
    card: Card
    effect: Effect | None = None


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """Deck to hand; ``card`` is ``None`` for everyone but the drawer until the game is over."""

    type: ClassVar[str] = "card_drawn"
    seat: int
    card: Card | None
    cause: DrawCause


@dataclass(frozen=True, slots=True)
class CardTaken(Event):
    """The 1's action: a card from ``from_seat``'s palette onto the top of the deck."""

    type: ClassVar[str] = "card_taken"
    seat: int
    from_seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardPlaced(Event):
    """The 7's action: an own palette card onto the deck or the canvas."""

    type: ClassVar[str] = "card_placed"
    seat: int
    card: Card
    to: Destination


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    """Hand to canvas: the card's colour is the new rule."""

    type: ClassVar[str] = "card_discarded"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    type: ClassVar[str] = "player_eliminated"
    seat: int
    reason: Elimination


@dataclass(frozen=True, slots=True)
class RoundWon(Event):
    type: ClassVar[str] = "round_won"
    seat: int
    rule: Color


@dataclass(frozen=True, slots=True)
class RoundScored(Event):
    """docs/rules.md 23: the winner's qualifying cards go to their score pile."""

    type: ClassVar[str] = "round_scored"
    seat: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class GameFinished(Event):
    type: ClassVar[str] = "game_finished"
    winner: int
    reason: Finish


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        GameStarted,
        RoundDealt,
        TurnStarted,
        CardPlayed,
        CardDrawn,
        CardTaken,
        CardPlaced,
        CardDiscarded,
        PlayerEliminated,
        RoundWon,
        RoundScored,
        GameFinished,
    )
}

#: Bumped when an event's serialised shape changes; readers upcast older ones.
EVENT_SCHEMA_VERSION = 1


# --- serialisation -----------------------------------------------------------


def _dump(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Color):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_dump(v) for v in value]
    return value


#: Each event type's fields, in order, once: ``dataclasses.fields`` sifts them anew at each call (every event stored).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-able dict: ``{"type": ..., field: value, ...}`` with cards as ``"R7"``."""
    names = _FIELD_NAMES.get(type(event))
    if names is None:
        names = _FIELD_NAMES[type(event)] = tuple(field.name for field in dataclasses.fields(event))
    out: dict[str, Any] = {"type": event.type}
    for name in names:
        out[name] = _dump(getattr(event, name))
    return out


class EventFormatError(ValueError):
    """A stored event does not have the shape of any known event."""


def _loader(hint: Any) -> Any:
    """A function turning JSON back into the field type ``hint``."""
    import types
    import typing

    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        load = _loader(inner[0])
        return lambda v: None if v is None else load(v)
    if origin is tuple:
        load = _loader(typing.get_args(hint)[0])
        return lambda v: tuple(load(x) for x in v)
    if hint is Card:
        return Card.parse
    if hint is Color:
        return Color.parse
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if hint is bool:
        return lambda v: v if isinstance(v, bool) else _bad(v, "a boolean")
    if hint is int:
        return lambda v: v if isinstance(v, int) and not isinstance(v, bool) else _bad(v, "an integer")
    raise TypeError(f"no loader for {hint!r}")


def _bad(value: Any, wanted: str) -> Any:
    raise EventFormatError(f"{value!r} is not {wanted}")


_LOADERS: dict[str, dict[str, Any]] = {
    name: {field: _loader(hint) for field, hint in get_type_hints(cls).items() if field != "type"}
    for name, cls in EVENT_TYPES.items()
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of :func:`event_to_dict`; raises :class:`EventFormatError` on anything else."""
    try:
        cls = EVENT_TYPES[data["type"]]
        loaders = _LOADERS[cls.type]
        return cls(**{name: load(data[name]) for name, load in loaders.items() if name in data})
    except EventFormatError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise EventFormatError(f"not a valid event: {data!r} ({exc})") from None
