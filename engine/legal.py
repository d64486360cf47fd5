"""What the seat to move may do next, and where each choice can lead.

One search serves three masters: :func:`engine.decision.decide` (to refuse a 1
or 7 that cannot end well, docs/rules.md 31), :func:`legal_steps` (the list a
client shows, each step flagged), and the bots (every full turn that keeps
them in the round).  It runs on a :class:`Position` — masks and a rule, no
event history — so that a hypothetical step costs a few integer operations
instead of a state copy.  It is the hottest code in the project, which is
why positions are tuples built positionally and why the search carries the
opponents' best strength per rule (``bars``) down the tree instead of asking
for it at every leaf.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import NamedTuple

from engine.cards import ALL_CARDS, Card, Color, iter_cards, mask_of
from engine.events import Destination, Effect, Variant
from engine.rules import strength, strengths
from engine.state import GameState, Phase
from engine.steps import Discard, EndTurn, Fold, Place, Play, Step, Take
from engine.views import LegalStep as LegalStep  # re-exported: it was defined here once
from engine.views import View

_NOTHING = (0,) * 7
_COLOR_RANGE = range(7)
_COLOR_BAND = tuple(sum(1 << (7 * n + c) for n in range(7)) for c in range(7))  # the cards of each colour


class Position(NamedTuple):
    """The seat to move and what its turn can touch — nothing it may not see."""

    seat: int
    hand: int
    palettes: tuple[int, ...]
    in_round: tuple[bool, ...]
    rule: Color
    deck_size: int
    action_rules: bool
    advanced: bool
    played: bool = False
    pending: Effect | None = None  # DRAW marks a 3 whose card is not known yet


def position_of(state: GameState) -> Position:
    """The search position of the seat to move; only valid while a turn is on."""
    turn = state.turn
    assert turn is not None and state.options is not None
    return Position(
        turn.seat,
        state.hands[turn.seat],
        tuple(state.palettes),
        tuple(state.in_round),
        state.rule,
        len(state.deck),
        state.options.action_rules,
        state.options.advanced,
        turn.played,
        turn.pending,
    )


def position_from_view(seen: View) -> Position:
    """The search position of the viewer, from nothing but what the viewer may see."""
    assert seen.turn is not None and seen.hand is not None and seen.viewer is not None
    return Position(
        seen.viewer,
        mask_of(seen.hand),
        tuple(mask_of(s.palette) for s in seen.seats),
        tuple(s.in_round for s in seen.seats),
        seen.rule,
        seen.deck_size,
        seen.action_rules,
        seen.variant is Variant.ADVANCED,
        seen.turn.played,
        seen.turn.pending,
    )


# --- evaluation ------------------------------------------------------------------


def bars(pos: Position, palettes: Sequence[int] | None = None) -> tuple[int, ...]:
    """The strength to beat under each rule: the best of the other players still in the round."""
    palettes = pos.palettes if palettes is None else palettes
    others = [strengths(p) for s, p in enumerate(palettes) if s != pos.seat and pos.in_round[s]]
    if len(others) == 1:
        return others[0]
    return tuple(map(max, *others)) if others else _NOTHING


def winning(pos: Position, rule: Color | None = None, palettes: Sequence[int] | None = None) -> bool:
    """docs/rules.md 10 for the seat to move, under ``rule`` (default: the current one)."""
    rule = pos.rule if rule is None else rule
    palettes = pos.palettes if palettes is None else palettes
    seat, in_round = pos.seat, pos.in_round
    mine = strength(palettes[seat], rule)
    return mine > 0 and all(strength(p, rule) < mine for s, p in enumerate(palettes) if s != seat and in_round[s])


def grants_draw(pos: Position, card: Card) -> bool:
    """docs/rules.md 22: the discard's number beats the palette size, and there is a card to draw."""
    return pos.advanced and pos.deck_size > 0 and card // 7 + 1 > pos.palettes[pos.seat].bit_count()


def take_targets(pos: Position) -> list[int]:
    """docs/rules.md 27: other seats in the round with at least as many palette cards as the mover."""
    mine = pos.palettes[pos.seat].bit_count()
    return [s for s, palette in enumerate(pos.palettes) if s != pos.seat and pos.in_round[s] and palette.bit_count() >= mine]


def _with_palette(palettes: tuple[int, ...], seat: int, mask: int) -> tuple[int, ...]:
    return palettes[:seat] + (mask,) + palettes[seat + 1 :]  # noqa: RUF005 (the faster spelling)


def _moved(pos: Position, hand: int, palettes: tuple[int, ...], rule: Color, played: bool, pending: Effect | None) -> Position:
    return Position(pos.seat, hand, palettes, pos.in_round, rule, pos.deck_size, pos.action_rules, pos.advanced, played, pending)


def after_play(pos: Position, card: Card) -> Position:
    """The position right after ``card`` went from hand to palette, with its effect pending."""
    bit = 1 << card
    hand, palettes = pos.hand ^ bit, _with_palette(pos.palettes, pos.seat, pos.palettes[pos.seat] | bit)
    moved = _moved(pos, hand, palettes, pos.rule, True, None)
    effect = effect_of(moved, card)
    return moved if effect is None else _moved(pos, hand, palettes, pos.rule, True, effect)  # not _replace: slower


def effect_of(moved: Position, card: Card) -> Effect | None:
    """Which action fires for ``card`` just played (docs/rules.md 26-29); ``None`` if it cannot."""
    if not moved.action_rules:
        return None
    number = card // 7 + 1
    if number == 1:
        return Effect.TAKE if take_targets(moved) else None
    if number == 3:
        return Effect.DRAW if moved.deck_size > 0 else None
    if number == 5:
        probe = moved._replace(pending=Effect.PLAY)
        return Effect.PLAY if any(play_allowed(probe, c) for c in iter_cards(moved.hand)) else None
    if number == 7:
        return Effect.PLACE
    return None


def play_allowed(pos: Position, card: Card) -> bool:
    """docs/rules.md 31: a 1 or 7 only if some way of finishing the turn keeps the player winning."""
    if not pos.action_rules or card // 7 + 1 not in (1, 7):
        return True
    return can_finish_winning(after_play(pos, card))


def place_on_canvas_allowed(pos: Position, card: Card) -> bool:
    """docs/rules.md 30: the 7 may put a card on the canvas only if that keeps the player winning."""
    palettes = _with_palette(pos.palettes, pos.seat, pos.palettes[pos.seat] ^ (1 << card))
    return winning(pos, card.color, palettes)


def can_finish_winning(pos: Position) -> bool:
    """Whether some way of finishing the turn from ``pos`` leaves the player winning.

    Unknown draws (a 3) are counted as drawing nothing useful.
    """
    try:
        _search(pos, bars(pos), (), _stop_at_win, False, False)
    except _Found:
        return True
    return False


# --- the search ------------------------------------------------------------------


class Outcome(Enum):
    WIN = "win"  # the turn ends with the player still in the round
    LOSE = "lose"  # the turn ends with the player out
    UNKNOWN = "unknown"  # a 3 draws a card first: the rest of the turn cannot be planned yet


class Plan(NamedTuple):
    """A way to play out the turn: its steps, how it ends, and the position before its last step.

    (The position *before* the last step, because building the final one for
    every leaf of the search would cost more than the search; :func:`finish`
    builds it for the plans a caller actually looks at.)
    """

    steps: tuple[Step, ...]
    outcome: Outcome
    before_last: Position


def finish(plan: Plan) -> Position:
    """The position at the end of ``plan`` (a discard's draw is not known, so not in the hand)."""
    last, pos = plan.steps[-1], plan.before_last
    if isinstance(last, Discard):
        return pos._replace(hand=pos.hand ^ (1 << last.card), rule=last.card.color)
    return pos


def walk(pos: Position, *, losing: bool = False, draw_choices: bool = False) -> list[Plan]:
    """Every way to play out the turn from ``pos``.

    Turns that end with the player out are left out unless ``losing``.  A
    discard that grants the advanced draw appears once (drawing) unless
    ``draw_choices``, which adds the turn that declines the draw.  A turn
    that plays a 3 onto a non-empty deck stops there with ``UNKNOWN``.
    """
    plans: list[Plan] = []
    _search(pos, bars(pos), (), plans.append, losing, draw_choices)
    return plans


class _Found(Exception):
    """Unwinds the search at the first winning finish."""


def _stop_at_win(plan: Plan) -> None:
    if plan.outcome is Outcome.WIN:
        raise _Found


def _search(
    pos: Position,
    bar: tuple[int, ...],
    prefix: tuple[Step, ...],
    emit: Callable[[Plan], None],
    losing: bool,
    draw_choices: bool,
) -> None:
    """Depth-first over the rest of the turn, calling ``emit`` for every finished plan.

    (A callback rather than a generator: nested ``yield from`` costs a frame
    hop per level for every leaf, and this runs for every bot move.)
    """
    seat, pending = pos.seat, pos.pending
    if pending is Effect.TAKE:
        for target in take_targets(pos):
            for card in iter_cards(pos.palettes[target]):
                palettes = _with_palette(pos.palettes, target, pos.palettes[target] ^ (1 << card))
                after = _moved(pos, pos.hand, palettes, pos.rule, True, None)
                _search(after, bars(after), (*prefix, Take(target, card)), emit, losing, draw_choices)
        return
    if pending is Effect.PLACE:
        for card in iter_cards(pos.palettes[seat]):
            palettes = _with_palette(pos.palettes, seat, pos.palettes[seat] ^ (1 << card))
            base = _moved(pos, pos.hand, palettes, pos.rule, True, None)
            _search(base, bar, (*prefix, Place(card, Destination.DECK)), emit, losing, draw_choices)
            color = card.color
            if strength(palettes[seat], color) > bar[color]:
                canvas = _moved(pos, pos.hand, palettes, color, True, None)
                _search(canvas, bar, (*prefix, Place(card, Destination.CANVAS)), emit, losing, draw_choices)
        return
    hand = pos.hand
    if pending is Effect.PLAY or not pos.played:
        checked = pos.action_rules  # a 1 or a 7 is played only if the turn can still end winning (play_allowed)
        for card in iter_cards(hand):
            after = after_play(pos, card)
            if checked and card // 7 in (0, 6) and not can_finish_winning(after):
                continue
            if after.pending is Effect.DRAW:
                emit(Plan((*prefix, _PLAYS[card]), Outcome.UNKNOWN, after))
            else:
                _search(after, bar, (*prefix, _PLAYS[card]), emit, losing, draw_choices)
        if pending is Effect.PLAY:
            return
    # The leaves: every discard, then ending the turn.  The steps are the shared ones of _DISCARDS (steps are
    # frozen values), and what grants_draw asks of each card is asked once: this loop runs for every leaf.
    own = strengths(pos.palettes[seat])
    drawn_from = 7 * pos.palettes[seat].bit_count() if draw_choices and pos.advanced and pos.deck_size > 0 else _NO_DRAW
    while hand:
        top = hand.bit_length() - 1
        hand ^= 1 << top
        hue = top % 7
        if own[hue] > bar[hue]:
            emit(Plan((*prefix, _DISCARDS[top]), Outcome.WIN, pos))
            if top >= drawn_from:
                emit(Plan((*prefix, _DISCARDS_NO_DRAW[top]), Outcome.WIN, pos))
        elif losing:
            emit(Plan((*prefix, _DISCARDS[top]), Outcome.LOSE, pos))
    if pos.played:
        if own[pos.rule] > bar[pos.rule]:
            emit(Plan((*prefix, _END_TURN), Outcome.WIN, pos))
        elif losing:
            emit(Plan((*prefix, _END_TURN), Outcome.LOSE, pos))


_PLAYS = tuple(Play(card) for card in ALL_CARDS)
_DISCARDS = tuple(Discard(card) for card in ALL_CARDS)
_DISCARDS_NO_DRAW = tuple(Discard(card, draw=False) for card in ALL_CARDS)
_END_TURN = EndTurn()
_NO_DRAW = 49  # above every card: no discard grants the draw


# --- legal steps -------------------------------------------------------------------


def legal_steps(state: GameState) -> list[LegalStep]:
    """Every step the seat to move may take now; empty when no turn is on."""
    if state.phase is not Phase.TURN or state.turn is None:
        return []
    pos = position_of(state)
    out: list[LegalStep] = []
    pending = pos.pending
    if pending is Effect.TAKE:
        for seat in take_targets(pos):
            for card in iter_cards(pos.palettes[seat]):
                palettes = _with_palette(pos.palettes, seat, pos.palettes[seat] ^ (1 << card))
                out.append(LegalStep(Take(seat, card), can_finish_winning(_moved(pos, pos.hand, palettes, pos.rule, True, None))))
    elif pending is Effect.PLACE:
        for card in iter_cards(pos.palettes[pos.seat]):
            palettes = _with_palette(pos.palettes, pos.seat, pos.palettes[pos.seat] ^ (1 << card))
            base = _moved(pos, pos.hand, palettes, pos.rule, True, None)
            out.append(LegalStep(Place(card, Destination.DECK), can_finish_winning(base)))
            if winning(base, card.color):
                out.append(LegalStep(Place(card, Destination.CANVAS), True))
    else:
        if pending is Effect.PLAY or not pos.played:
            for card in iter_cards(pos.hand):
                if play_allowed(pos, card):
                    after = after_play(pos, card)
                    out.append(LegalStep(Play(card), can_finish_winning(after), draws=after.pending is Effect.DRAW))
        if pending is None:
            for card in iter_cards(pos.hand):
                if winning(pos, card.color):
                    draw = grants_draw(pos, card)
                    out.append(LegalStep(Discard(card), True, grants_draw=draw, ends_turn=True, draws=draw))
            if pos.played:
                stays = winning(pos)
                out.append(LegalStep(EndTurn(), stays, eliminates=not stays, ends_turn=True))
    out.append(LegalStep(Fold(), False, eliminates=True, ends_turn=True))
    return out


# --- the fast path for turns without action effects -------------------------------------

#: The compact form of a full turn: (card played or ``None``, card discarded or ``None`` for
#: ending the turn, whether to take the advanced draw).
CompactTurn = tuple[int | None, int | None, bool]


def simple_turns(pos: Position, *, draw_choices: bool = True) -> list[CompactTurn] | None:
    """The full turns that keep the player in, for a position where no action can fire.

    The same set as :func:`walk` (``draw_choices`` alike) in a compact form,
    or ``None`` where actions make it a job for :func:`walk`.  It exists for
    speed alone — the random bot asks this at every turn of every self-play
    game — and a property test holds it equal to :func:`walk`.
    """
    if pos.action_rules or pos.pending is not None:
        return None
    bar = bars(pos)
    seat, hand, rule = pos.seat, pos.hand, pos.rule
    palette = pos.palettes[seat]
    draws = draw_choices and pos.advanced and pos.deck_size > 0
    out: list[CompactTurn] = []

    def discards(played: int | None, mask: int, rest: int) -> None:
        wins = strengths(mask)
        if played is not None and wins[rule] > bar[rule]:
            out.append((played, None, False))
        drawn_from = 7 * mask.bit_count()  # cards numbered above the palette size grant the draw
        for color in _COLOR_RANGE:
            if wins[color] > bar[color]:
                group = rest & _COLOR_BAND[color]
                while group:
                    card = group.bit_length() - 1
                    group ^= 1 << card
                    out.append((played, card, True))
                    if draws and card >= drawn_from:
                        out.append((played, card, False))

    if pos.played:
        discards(None, palette, hand)
        if strength(palette, rule) > bar[rule]:
            out.append((None, None, False))
        return out
    discards(None, palette, hand)
    rest = hand
    while rest:
        card = rest.bit_length() - 1
        rest ^= 1 << card
        discards(card, palette | 1 << card, hand ^ 1 << card)
    return out


def turn_steps(turn: CompactTurn) -> tuple[Step, ...]:
    """The steps of a compact turn."""
    played, discarded, draw = turn
    steps: list[Step] = [] if played is None else [Play(Card(played))]
    steps.append(EndTurn() if discarded is None else Discard(Card(discarded), draw))
    return tuple(steps)
