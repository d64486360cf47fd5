"""What the seat knows about the cards it cannot see, and the check that it was told no more.

Why it exists.  The expert may plan only from its seat's view and redacted
history (:func:`check_inputs` refuses anything else), yet a fair deal of the
unseen cards must respect everything that history makes public: the cards a 1
or a 7 put on top of the deck and who drew them, and the cards that left the
round with an eliminated player.  :func:`read_belief` rebuilds that knowledge
once per decision; :mod:`engine.expert.sampling` deals from it every sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import FULL_MASK, Card, iter_cards, mask_of
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Destination,
    Event,
    GameStarted,
    PlayerEliminated,
    RoundDealt,
)
from engine.state import HAND_SIZE, Phase
from engine.views import View


@dataclass(frozen=True, slots=True)
class Belief:
    """What the seat knows about the cards it cannot see, beyond its view.

    ``deck`` lists the deck bottom first, with the cards publicly put on top
    by a 1 or a 7 and ``None`` for every card the seat has not seen.
    ``known`` holds, per seat, the cards known to be in that (other) hand:
    the public deck cards it drew.  ``unseen`` are the cards to deal at random
    and ``gone`` how many of them left the round in eliminated hands.
    """

    deck: tuple[Card | None, ...]
    known: tuple[int, ...]
    unseen: tuple[Card, ...]
    gone: int


class HistoryMismatch(ValueError):
    """The history does not lead to the view it came with."""


def check_inputs(seen: object, history: Sequence[object]) -> None:
    """Refuse anything but the seat's own view and its redacted history.

    A ``GameState``, a spectator's view, or an event showing a card the seat
    may not see (another hand, the deck order, another player's draw, the
    seed) is a ``TypeError``/``ValueError``: the bot must be honest by
    construction, not by the caller's care.
    """
    if not isinstance(seen, View):
        raise TypeError(f"the expert plans from a View (engine.projection.view), not {type(seen).__name__}")
    if seen.viewer is None or seen.hand is None:
        raise ValueError("the expert needs a player's view, not a spectator's")
    if seen.phase is not Phase.TURN or seen.turn is None or seen.turn.seat != seen.viewer:
        raise ValueError(f"it is not seat {seen.viewer}'s turn")
    if not seen.seats[seen.viewer].in_round:
        raise ValueError(f"seat {seen.viewer} is out of the round")
    me = seen.viewer
    for event in history:
        if not isinstance(event, Event):
            raise TypeError(f"the history holds events, not {type(event).__name__}")
        if isinstance(event, GameStarted) and (event.seed is not None or event.deck is not None):
            raise ValueError("the history is not redacted: GameStarted shows the seed or the deck")
        if isinstance(event, RoundDealt) and (
            event.deck is not None or any(hand is not None for s, hand in enumerate(event.hands) if s != me)
        ):
            raise ValueError(f"the history is not redacted for seat {me}: a deal shows the deck or another hand")
        if isinstance(event, CardDrawn) and event.seat != me and event.card is not None:
            raise ValueError(f"the history is not redacted for seat {me}: it shows seat {event.seat}'s draw")


def read_belief(seen: View, history: Sequence[Event]) -> Belief:
    """The seat's knowledge of the hidden cards; the view alone if the history does not fit it."""
    try:
        return _belief_from_history(seen, history)
    except HistoryMismatch:
        return _belief_from_view(seen, (None,) * seen.deck_size, (0,) * seen.players, 0, None)


def _belief_from_history(seen: View, history: Sequence[Event]) -> Belief:
    start = max((i for i, e in enumerate(history) if isinstance(e, RoundDealt)), default=None)
    if start is None:
        raise HistoryMismatch("no deal in the history")
    deal = history[start]
    assert isinstance(deal, RoundDealt)
    n = seen.players
    if len(deal.palettes) != n or deal.round != seen.round:
        raise HistoryMismatch("the last deal is not this round's")
    me = seen.viewer
    assert me is not None
    palettes = [1 << c for c in deal.palettes]
    sizes = [HAND_SIZE] * n
    known = [0] * n
    in_round = [True] * n
    deck: list[Card | None] = [None] * deal.deck_size
    gone_known = 0
    gone = 0
    for event in history[start + 1 :]:
        if isinstance(event, CardPlayed):
            palettes[event.seat] |= 1 << event.card
            sizes[event.seat] -= 1
            known[event.seat] &= ~(1 << event.card)
        elif isinstance(event, CardDiscarded):
            sizes[event.seat] -= 1
            known[event.seat] &= ~(1 << event.card)
        elif isinstance(event, CardDrawn):
            if not deck:
                raise HistoryMismatch("a draw from an empty deck")
            top = deck.pop()
            sizes[event.seat] += 1
            if top is not None and event.seat != me:
                known[event.seat] |= 1 << top
        elif isinstance(event, CardTaken):
            palettes[event.from_seat] &= ~(1 << event.card)
            deck.append(event.card)
        elif isinstance(event, CardPlaced):
            palettes[event.seat] &= ~(1 << event.card)
            if event.to is Destination.DECK:
                deck.append(event.card)
        elif isinstance(event, PlayerEliminated):
            seat = event.seat
            in_round[seat] = False
            gone_known |= palettes[seat] | known[seat]
            if seat != me:
                gone += sizes[seat] - known[seat].bit_count()
            palettes[seat] = known[seat] = sizes[seat] = 0
    for seat, info in enumerate(seen.seats):
        if info.in_round != in_round[seat] or (
            info.in_round and (mask_of(info.palette) != palettes[seat] or info.hand_size != sizes[seat])
        ):
            raise HistoryMismatch(f"seat {seat} does not match the view")
    if len(deck) != seen.deck_size:
        raise HistoryMismatch("the deck size does not match the view")
    return _belief_from_view(seen, tuple(deck), tuple(known), gone, gone_known)


def _belief_from_view(
    seen: View, deck: tuple[Card | None, ...], known: tuple[int, ...], gone: int, gone_known: int | None
) -> Belief:
    """The unseen cards: everything not in the seat's hand, on a palette, the canvas, a score pile or known elsewhere."""
    me = seen.viewer
    assert me is not None and seen.hand is not None
    seen_mask = mask_of(seen.hand) | mask_of(seen.canvas)
    for info in seen.seats:
        seen_mask |= mask_of(info.palette) | mask_of(info.scored)
    for card in deck:
        if card is not None:
            seen_mask |= 1 << card
    for mask in known:
        seen_mask |= mask
    unseen_mask = FULL_MASK & ~seen_mask & ~(gone_known or 0)
    unknown_places = sum(
        info.hand_size - known[info.seat].bit_count() for info in seen.seats if info.seat != me and info.in_round
    ) + sum(1 for card in deck if card is None)
    if gone_known is None:  # the view alone: whatever is not in a hand or the deck left the round
        gone = unseen_mask.bit_count() - unknown_places
    if gone < 0 or unknown_places + gone != unseen_mask.bit_count():
        if gone_known is not None:
            raise HistoryMismatch("the history's hidden cards do not add up")
        raise ValueError("the view's card counts do not add up")
    unseen = tuple(sorted(iter_cards(unseen_mask)))
    return Belief(deck, known, unseen, gone)
