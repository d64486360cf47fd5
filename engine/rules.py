"""The seven canvas rules (docs/rules.md 3-9) and who is winning (docs/rules.md 10).

Everything here works on card masks (see :mod:`engine.cards`) because these
functions sit under every legal-step search and every bot decision; the
``Card``-level helpers at the bottom are the readable face of the same code.

A palette's *strength* under a rule is one integer, ``count << 6 | top + 1``:
more qualifying cards win, and on equal counts the higher top qualifying
card wins.  Zero means "no qualifying card", which is never winning.

>>> from engine.cards import parse_cards
>>> [str(c) for c in qualifying_cards(parse_cards("R5 Y6 B2"), Color.GREEN)]
['Y6', 'B2']
>>> leader({0: parse_cards("R7 O7 I1"), 1: parse_cards("G7 B7 Y4")}, Color.BLUE)
0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

from engine.cards import Card, Color, cards_in, mask_of

_NUMBER_BAND = [0x7F << (7 * n) for n in range(7)]  # index 0 holds the 1s
_COLOR_BAND = [sum(1 << (7 * n + c) for n in range(7)) for c in range(7)]  # index = Color value
_EVEN = _NUMBER_BAND[1] | _NUMBER_BAND[3] | _NUMBER_BAND[5]
_LOW = _NUMBER_BAND[0] | _NUMBER_BAND[1] | _NUMBER_BAND[2]


def _best_group(groups: Iterable[int]) -> int:
    """The largest group; on equal sizes the one holding the highest card."""
    best = 0
    best_key = 0
    for group in groups:
        if group:
            key = group.bit_count() << 6 | group.bit_length()
            if key > best_key:
                best, best_key = group, key
    return best


def _red(mask: int) -> int:
    return 1 << (mask.bit_length() - 1) if mask else 0


def _orange(mask: int) -> int:
    return _best_group(mask & band for band in _NUMBER_BAND)


def _yellow(mask: int) -> int:
    return _best_group(mask & band for band in _COLOR_BAND)


def _green(mask: int) -> int:
    return mask & _EVEN


def _blue(mask: int) -> int:
    out = 0
    for band in _COLOR_BAND:
        group = mask & band
        if group:
            out |= 1 << (group.bit_length() - 1)
    return out


def _indigo(mask: int) -> int:
    # The highest card of each number present, then the longest run of
    # consecutive numbers; scanning from 7 down keeps the higher run on ties.
    best = 0
    best_len = 0
    run = 0
    run_len = 0
    for n in range(6, -1, -1):
        group = mask & _NUMBER_BAND[n]
        if group:
            run |= 1 << (group.bit_length() - 1)
            run_len += 1
            if run_len > best_len:
                best, best_len = run, run_len
        else:
            run, run_len = 0, 0
    return best


def _violet(mask: int) -> int:
    return mask & _LOW


# Indexed by colour value (VIOLET = 0 ... RED = 6).
_BY_COLOR = (_violet, _indigo, _blue, _green, _yellow, _orange, _red)


@lru_cache(maxsize=1 << 16)
def qualifying_mask(palette: int, color: Color) -> int:
    """The qualifying cards of ``palette`` under the rule of ``color``, as a mask."""
    return _BY_COLOR[color](palette)


def strength(palette: int, color: Color) -> int:
    """How good ``palette`` is under ``color``; compare with ``>``, 0 is never winning."""
    return strengths(palette)[color]


@lru_cache(maxsize=1 << 16)
def strengths(palette: int) -> tuple[int, ...]:
    """The palette's strength under every rule, indexed by colour value.

    Equal to ``strength(palette, color)`` for each colour, but computed in one
    pass from counts and top cards without building the qualifying sets:
    this is what the searches call for every hypothetical palette.
    """
    if not palette:
        return _NONE
    top = palette.bit_length()
    bands = [(palette >> shift) & 0x7F for shift in _SHIFTS]
    # Orange: the biggest number group, the higher number on ties.
    best_n, best_count = 0, 0
    for n in range(7):
        count = bands[n].bit_count()
        if count >= best_count:
            best_n, best_count = n, count
    orange = best_count << 6 | (7 * best_n + bands[best_n].bit_length())
    # Yellow: the biggest colour group; ties go to the group holding the higher card.
    yellow = 0
    for band in _COLOR_BAND:
        group = palette & band
        if group:
            key = group.bit_count() << 6 | group.bit_length()
            if key > yellow:
                yellow = key
    green = palette & _EVEN
    violet = palette & _LOW
    colors = bands[0] | bands[1] | bands[2] | bands[3] | bands[4] | bands[5] | bands[6]
    # Indigo: the longest run of numbers present, the higher run on ties.
    run_top, run_len, best_len, best_top = 0, 0, 0, 0
    for n in range(6, -1, -1):
        if bands[n]:
            if run_len == 0:
                run_top = 7 * n + bands[n].bit_length()
            run_len += 1
            if run_len > best_len:
                best_len, best_top = run_len, run_top
        else:
            run_len = 0
    return (
        violet.bit_count() << 6 | violet.bit_length(),
        best_len << 6 | best_top,
        colors.bit_count() << 6 | top,
        green.bit_count() << 6 | green.bit_length(),
        yellow,
        orange,
        1 << 6 | top,
    )


_SHIFTS = tuple(7 * n for n in range(7))
_NONE = (0,) * 7


def leading_seat(palettes: Sequence[int], in_round: Sequence[bool], color: Color) -> int | None:
    """The seat that is winning under ``color``, or ``None``."""
    best_seat, best, second = None, 0, 0
    for seat, palette in enumerate(palettes):
        if in_round[seat]:
            value = strength(palette, color)
            if value > best:
                best_seat, best, second = seat, value, best
            elif value > second:
                second = value
    return best_seat if best > second else None


# --- the readable face -------------------------------------------------------

Seat = TypeVar("Seat")


def qualifying_cards(cards: Iterable[Card], color: Color) -> list[Card]:
    """The cards of a palette that count under ``color``'s rule, highest first."""
    return cards_in(qualifying_mask(mask_of(cards), Color(color)))


def leader(palettes: Mapping[Seat, Iterable[Card]], color: Color) -> Seat | None:
    """The seat that is winning under ``color`` among ``palettes``, or ``None``."""
    best_seat, best, second = None, 0, 0
    for seat, cards in palettes.items():
        value = strength(mask_of(cards), Color(color))
        if value > best:
            best_seat, best, second = seat, value, best
        elif value > second:
            second = value
    return best_seat if best > second else None
