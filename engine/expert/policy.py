"""The rollout policy: the greedy bot's one-turn heuristic, computed on bare card masks.

Why it exists.  Every search iteration plays each candidate turn and then the
rest of the round for every seat, so the model of the other players (and of
the seat itself later in the round) must be sensible and very cheap.  The
greedy bot (:class:`engine.bots.GreedyBot`) is a good model of a sensible
opponent, but it plans through :func:`engine.legal.walk`; the functions here
make its choices directly on masks — over a legal subset of the turns when
the action rules are on — and return them packed in ints so that the rollout
can memoise them.  :func:`plan_value` is the same heuristic on a
:class:`~engine.legal.Plan`: the ranking the search starts from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from operator import gt

from engine.expert.odds import _COLORS, _sum_numbers
from engine.legal import Outcome, Plan, bars, finish, grants_draw
from engine.rules import qualifying_mask, strengths
from engine.steps import Discard

_COLOR_BAND = tuple(sum(1 << (7 * n + c) for n in range(7)) for c in range(7))  # the cards of each colour
_ODD = sum(1 << (7 * (n - 1) + c) for n in (1, 3, 5, 7) for c in range(7))  # the cards whose play fires an action

# The one-turn heuristic of engine.bots.GreedyBot, repeated here so that the rollout policy
# plays like the greedy bot (a good model of a sensible opponent) without importing it.
_HAND = 10.0
_RULES = 4.0
_POINTS = 0.5
_DRAW = 6.0


@lru_cache(maxsize=1 << 16)
def _points(palette: int, color: int) -> int:
    """What ``palette`` would score under ``color``: the sum of its qualifying numbers."""
    return _sum_numbers(qualifying_mask(palette, _COLORS[color]))


@lru_cache(maxsize=1 << 16)
def _points_all(palette: int) -> tuple[float, ...]:
    """The greedy heuristic's points term under each rule: ``_POINTS`` times :func:`_points`.

    One pass over the number bands, as :func:`engine.rules.strengths` does, because
    the rollout asks it for every hypothetical palette.
    """
    if not palette:
        return _NO_POINTS
    bands = [(palette >> (7 * n)) & 0x7F for n in range(7)]
    counts = [band.bit_count() for band in bands]
    # Orange: the biggest number group, the higher number on ties.
    best_n, best_count = 0, 0
    for n in range(7):
        if counts[n] >= best_count:
            best_n, best_count = n, counts[n]
    orange = best_count * (best_n + 1)
    # Yellow: the biggest colour group, the one holding the higher card on ties.
    yellow_key, yellow = 0, 0
    blue = 0
    for band in _COLOR_BAND:
        group = palette & band
        if group:
            key = group.bit_count() << 6 | group.bit_length()
            if key > yellow_key:
                yellow_key, yellow = key, _sum_numbers(group)
            blue += (group.bit_length() - 1) // 7 + 1  # the number of the colour's top card
    green = 2 * counts[1] + 4 * counts[3] + 6 * counts[5]
    violet = counts[0] + 2 * counts[1] + 3 * counts[2]
    # Indigo: the longest run of numbers present, the higher run on ties.
    run_len, best_len, best_top = 0, 0, 0
    for n in range(6, -1, -1):
        if counts[n]:
            run_len += 1
            if run_len > best_len:
                best_len, best_top = run_len, n + run_len  # numbers n+1 .. n+run_len
        else:
            run_len = 0
    indigo = best_len * (2 * best_top - best_len + 1) // 2
    red = (palette.bit_length() - 1) // 7 + 1
    return tuple(_POINTS * p for p in (violet, indigo, blue, green, yellow, orange, red))


_NO_POINTS = (0.0,) * 7


def plan_value(plan: Plan) -> float:
    """The greedy bot's one-turn value of a full turn: the ranking the search starts from."""
    end = finish(plan)
    mine = end.palettes[end.seat]
    bar = bars(end)
    own = strengths(mine)
    value = _HAND * end.hand.bit_count() + _RULES * sum(1 for k in range(7) if own[k] > bar[k])
    last = plan.steps[-1]
    if plan.outcome is Outcome.UNKNOWN:
        value -= _HAND
    elif isinstance(last, Discard) and last.draw and grants_draw(plan.before_last, last.card):
        value += _DRAW
    if end.advanced:
        value += _POINTS * _points(mine, end.rule)
    return value + own[end.rule] / 1000.0


_NONE_LEFT = -3  # no turn keeps the player in


def _greedy_choice(
    hand: int, mine: int, bar: tuple[int, ...], rule: int, advanced: bool, can_draw: bool, played: bool, action_rules: bool
) -> tuple[int, int]:
    """``(play, discard)`` of the greedy turn without actions: -1 for no play, -2 for ending the turn without a discard.

    The values are :func:`plan_value`'s (the greedy bot's), computed directly on masks.
    Of the cards of one colour it discards the lowest that earns the advanced draw, else the
    lowest: low cards are the least useful on a later palette, and the draw is worth a card.
    """
    draw_from = 7 * mine.bit_count() if can_draw else 99
    held = hand.bit_count()
    colors = [(k, hand & band) for k, band in enumerate(_COLOR_BAND) if hand & band]
    own = strengths(mine)
    points = _points_all(mine) if advanced else _NO_POINTS
    best = -1e18
    play, discard = _NONE_LEFT, -1
    hold = _HAND * (held - 1) + _RULES * sum(map(gt, own, bar))
    for k, group in colors:
        if own[k] > bar[k]:
            drawing = group >> draw_from << draw_from if draw_from < 49 else 0
            low = (drawing or group) & -(drawing or group)
            value = hold + (_DRAW if drawing else 0.0) + own[k] / 1000.0 + points[k]
            if value > best:
                best, play, discard = value, -1, low.bit_length() - 1
    if played:
        if own[rule] > bar[rule]:
            value = hold + _HAND + own[rule] / 1000.0 + points[rule]
            if value > best:
                play, discard = -1, -2
        return play, discard
    cards = hand & ~_ODD if action_rules else hand
    draw_after = draw_from + 7 if can_draw else 99
    while cards:
        card = cards.bit_length() - 1
        bit = 1 << card
        cards ^= bit
        after = mine | bit
        theirs = strengths(after)
        points = _points_all(after) if advanced else _NO_POINTS
        wins = _RULES * sum(map(gt, theirs, bar))
        if theirs[rule] > bar[rule]:
            value = _HAND * (held - 1) + wins + theirs[rule] / 1000.0 + points[rule]
            if value > best:
                best, play, discard = value, card, -2
        base = _HAND * (held - 2) + wins
        for k, group in colors:
            if theirs[k] > bar[k]:
                group &= ~bit
                if group:
                    drawing = group >> draw_after << draw_after if draw_after < 49 else 0
                    low = (drawing or group) & -(drawing or group)
                    value = base + (_DRAW if drawing else 0.0) + theirs[k] / 1000.0 + points[k]
                    if value > best:
                        best, play, discard = value, card, low.bit_length() - 1
    return play, discard


# What happens between the play and the finish in an action turn (see _action_choice).
_PLAIN, _TAKE, _PLACE_DECK, _PLACE_CANVAS, _THREE, _EXTRA = range(6)
_END = -2  # finish by ending the turn (no discard)
_EVEN = sum(1 << (7 * (n - 1) + c) for n in (2, 4, 6) for c in range(7))
_THREE_CARDS = 0x7F << 14


def _bar_of(palettes: Sequence[int], seat: int) -> tuple[int, ...]:
    """The strength to beat under each rule; eliminated seats have empty palettes and never count."""
    best: tuple[int, ...] | None = None
    for other, palette in enumerate(palettes):
        if other != seat:
            theirs = strengths(palette)
            best = theirs if best is None else tuple(map(max, best, theirs))
    return best if best is not None else (0,) * 7


def _best_finish(mine: int, bar: tuple[int, ...], rest: int, rule: int, advanced: bool, can_draw: bool) -> tuple[float, int]:
    """The best way to end a turn whose play is done: a winning discard, or ending it if winning already.

    Returns the greedy value of the turn and the discard (``_END``: none); ``-inf`` if none keeps
    the player in.
    """
    own = strengths(mine)
    points = _points_all(mine) if advanced else _NO_POINTS
    left = rest.bit_count()
    best, discard = -1e18, _NONE_LEFT
    if own[rule] > bar[rule]:
        best, discard = _HAND * left + own[rule] / 1000.0 + points[rule], _END
    draw_from = 7 * mine.bit_count() if can_draw else 99
    for k in range(7):
        if own[k] > bar[k]:
            group = rest & _COLOR_BAND[k]
            if group:
                drawing = group >> draw_from << draw_from if draw_from < 49 else 0
                low = (drawing or group) & -(drawing or group)
                value = _HAND * (left - 1) + (_DRAW if drawing else 0.0) + own[k] / 1000.0 + points[k]
                if value > best:
                    best, discard = value, low.bit_length() - 1
    if discard == _NONE_LEFT:
        return -math.inf, discard
    return best + _RULES * sum(map(gt, own, bar)), discard


def _action_choice(seat: int, hand: int, palettes: Sequence[int], rule: int, advanced: bool, has_deck: bool) -> int:
    """The greedy turn with the action rules, over a legal subset of the turns, packed in an int.

    The subset: no play, or one play — an even card; a 3 (valued as the
    greedy bot values the gamble); a 1 and any take; a 7 and any place; a 5
    and an extra even card or 3 — then the best finish.  Chains of actions
    after a 5 are left out: leaving turns out keeps every choice legal
    (docs/rules.md 31 holds because only turns that end winning are chosen), and
    those chains are rare enough that a rollout may ignore them.  The packing
    is ``play, kind, a, b, discard`` in bytes (see :meth:`_Rollout.action_turn`).
    """
    mine = palettes[seat]
    bar = _bar_of(palettes, seat)
    best, code = -1e18, (_NONE_LEFT, _PLAIN, 0, 0, 0)
    value, discard = _best_finish(mine, bar, hand, rule, advanced, advanced and has_deck)
    if discard != _END and value > best:  # with nothing played, ending the turn is folding
        best, code = value, (-1, _PLAIN, 0, 0, discard)
    cards = hand
    while cards:
        card = cards.bit_length() - 1
        bit = 1 << card
        cards ^= bit
        after, rest = mine | bit, hand ^ bit
        number = card // 7 + 1
        if number == 3 and has_deck:
            own = strengths(after)
            value = (
                _HAND * (rest.bit_count() - 1)
                + _RULES * sum(map(gt, own, bar))
                + own[rule] / 1000.0
                + (_points_all(after)[rule] if advanced else 0.0)
            )
            if value > best:
                best, code = value, (card, _THREE, 0, 0, 0)
            continue
        if number == 1:
            size = after.bit_count()
            targets = [t for t, palette in enumerate(palettes) if t != seat and palette.bit_count() >= size]
            if targets:
                for target in targets:
                    taken = palettes[target]
                    while taken:
                        x = taken.bit_length() - 1
                        taken ^= 1 << x
                        changed = list(palettes)
                        changed[target] ^= 1 << x
                        value, discard = _best_finish(after, _bar_of(changed, seat), rest, rule, advanced, advanced)
                        if value > best:
                            best, code = value, (card, _TAKE, target, x, discard)
                continue
        elif number == 7:
            placed = after
            while placed:
                x = placed.bit_length() - 1
                placed ^= 1 << x
                left = after ^ (1 << x)
                value, discard = _best_finish(left, bar, rest, rule, advanced, advanced)
                if value > best:
                    best, code = value, (card, _PLACE_DECK, x, 0, discard)
                color = x % 7
                if strengths(left)[color] > bar[color]:
                    value, discard = _best_finish(left, bar, rest, color, advanced, advanced and has_deck)
                    if value > best:
                        best, code = value, (card, _PLACE_CANVAS, x, 0, discard)
            continue
        elif number == 5 and rest:
            # The effect fires (an even card or a 3 can always be played) and the extra play is one of
            # those; with none in hand the 5 is left out of the subset.
            extras = rest & (_EVEN | _THREE_CARDS)
            while extras:
                x = extras.bit_length() - 1
                extras ^= 1 << x
                after2, rest2 = after | 1 << x, rest ^ 1 << x
                if x // 7 == 2 and has_deck:
                    own = strengths(after2)
                    value = (
                        _HAND * (rest2.bit_count() - 1)
                        + _RULES * sum(map(gt, own, bar))
                        + own[rule] / 1000.0
                        + (_points_all(after2)[rule] if advanced else 0.0)
                    )
                    discard = 0
                else:
                    value, discard = _best_finish(after2, bar, rest2, rule, advanced, advanced and has_deck)
                if value > best:
                    best, code = value, (card, _EXTRA, x, 0, discard)
            continue
        value, discard = _best_finish(after, bar, rest, rule, advanced, advanced and has_deck)
        if value > best:
            best, code = value, (card, _PLAIN, 0, 0, discard)
    play, kind, a, b, discard = code
    return (play + 8) << 32 | kind << 24 | a << 16 | b << 8 | (discard + 8)
