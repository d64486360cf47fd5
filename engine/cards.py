"""The 49 cards, the seven colours, and card sets as bit masks.

A card *is* its rank: an ``int`` from 0 (V1) to 48 (R7), so that comparing two
cards with ``<`` compares them exactly as docs/rules.md 2 says (number first, then
colour).  Sets of cards (a hand, a palette, a score pile) are stored as 49-bit
masks, which makes the rule evaluations that bots and legal-step searches run
thousands of times per turn a handful of integer operations.

>>> Card.parse("R7") > Card.parse("O7") > Card.parse("V6")
True
>>> str(Card.of(3, Color.GREEN))
'G3'
>>> [str(c) for c in cards_in(mask_of([Card.parse("B2"), Card.parse("R5")]))]
['R5', 'B2']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum


class Color(IntEnum):
    """The seven colours; the value is the colour's strength (docs/rules.md 1)."""

    VIOLET = 0
    INDIGO = 1
    BLUE = 2
    GREEN = 3
    YELLOW = 4
    ORANGE = 5
    RED = 6

    # Hash as the plain int does (C speed, and equal to the int it equals): colours key
    # the rule caches that every search hits thousands of times a second.
    __hash__ = int.__hash__

    @property
    def letter(self) -> str:
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Color:
        """A colour from its letter (``"R"``) or its name (``"red"``)."""
        key = text.strip().upper()
        if len(key) == 1 and key in _BY_LETTER:
            return _BY_LETTER[key]
        try:
            return cls[key]
        except KeyError:
            raise ValueError(f"unknown colour {text!r}; use one of {', '.join(_LETTERS.values())}") from None

    def __str__(self) -> str:
        return self.name.lower()


_LETTERS = {
    Color.RED: "R",
    Color.ORANGE: "O",
    Color.YELLOW: "Y",
    Color.GREEN: "G",
    Color.BLUE: "B",
    Color.INDIGO: "I",
    Color.VIOLET: "V",
}
_BY_LETTER = {letter: color for color, letter in _LETTERS.items()}

#: The colours from strongest to weakest, as the rulebook lists them.
COLORS_HIGH_TO_LOW: tuple[Color, ...] = tuple(sorted(Color, reverse=True))


class Card(int):
    """One of the 49 cards; an ``int`` rank so that cards order as docs/rules.md 2 says.

    Every card exists once: ``Card(48) is Card.parse("R7")``.
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            return cls.parse(value)
        try:
            return _ALL[value] if value >= 0 else _bad_rank(value)
        except (IndexError, TypeError):
            return _bad_rank(value)

    @classmethod
    def of(cls, number: int, color: Color) -> Card:
        if not 1 <= number <= 7:
            raise ValueError(f"card numbers run from 1 to 7, not {number}")
        return _ALL[(number - 1) * 7 + color]

    @classmethod
    def parse(cls, text: str) -> Card:
        """A card from its notation: colour letter and number, e.g. ``"R7"``."""
        card = _BY_NAME.get(text.strip().upper()) if isinstance(text, str) else None
        if card is None:
            raise ValueError(f"{text!r} is not a card; write a colour letter (ROYGBIV) and a number 1-7, e.g. R7")
        return card

    @property
    def number(self) -> int:
        return self // 7 + 1

    @property
    def color(self) -> Color:
        return _COLOR_OF[self]

    @property
    def bit(self) -> int:
        return 1 << self

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{_NAMES[self]}')"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


def _bad_rank(value: object) -> Card:
    raise ValueError(f"a card rank runs from 0 (V1) to 48 (R7), not {value!r}")


_ALL: tuple[Card, ...] = tuple(int.__new__(Card, rank) for rank in range(49))
_COLOR_OF: tuple[Color, ...] = tuple(Color(rank % 7) for rank in range(49))
_NAMES: tuple[str, ...] = tuple(f"{_LETTERS[Color(r % 7)]}{r // 7 + 1}" for r in range(49))
_BY_NAME: dict[str, Card] = {name: _ALL[rank] for rank, name in enumerate(_NAMES)}

#: Every card, lowest (V1) first.
ALL_CARDS: tuple[Card, ...] = _ALL
FULL_MASK = (1 << 49) - 1


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask holding ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: int) -> list[Card]:
    """The cards of a mask, highest first."""
    out = []
    while mask:
        top = mask.bit_length() - 1
        out.append(_ALL[top])
        mask ^= 1 << top
    return out


def card_names(mask: int) -> list[str]:
    """The notation of a mask's cards, highest first.

    The same walk as :func:`cards_in`, written out: replays print every
    palette and hand after every event, and building the ``Card`` list
    first costs them measurably (callgrind: 3.5% more instructions).
    """
    out = []
    while mask:
        top = mask.bit_length() - 1
        out.append(_NAMES[top])
        mask ^= 1 << top
    return out


def iter_cards(mask: int) -> Iterator[Card]:
    """The cards of a mask, highest first, lazily."""
    while mask:
        top = mask.bit_length() - 1
        yield _ALL[top]
        mask ^= 1 << top


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Cards from ``"R5 Y6 B2"`` or ``["R5", "Y6", "B2"]``, order kept."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(item) for item in items]


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(_NAMES[c] for c in cards)
