"""Building game situations for tests, written the way the rulebook writes them.

``table(...)`` lays out a state directly — palettes, hands, canvas, deck —
so a test reads like a rulebook example::

    state = table(palettes=["R5 Y6 B2", "O7 G2 I2"], hands=["B3", "G4"], canvas="G3")

``dealt(...)`` starts a real game from an explicit 49-card order instead,
filling the cards a test does not care about.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import (
    ALL_CARDS,
    Card,
    Color,
    Event,
    GameState,
    Options,
    Phase,
    Start,
    Step,
    Turn,
    Variant,
    cards_in,
    decide,
    fold,
    mask_of,
    parse_cards,
)
from engine.events import Effect


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def table(
    *,
    palettes: Sequence[str],
    hands: Sequence[str] | None = None,
    canvas: str = "",
    deck: str = "",
    turn: int = 0,
    played: bool = False,
    pending: Effect | None = None,
    out: Sequence[int] = (),
    variant: Variant = Variant.ADVANCED,
    action_rules: bool = False,
    scored: Sequence[str] | None = None,
) -> GameState:
    """A state in the middle of a round.  ``deck`` lists the top card first; ``out`` seats are eliminated."""
    players = len(palettes)
    hands = hands or [""] * players
    state = GameState(
        options=Options(players, variant, action_rules),
        seed=0,
        phase=Phase.TURN,
        round=1,
        hands=[mask_of(cards(h)) for h in hands],
        palettes=[mask_of(cards(p)) for p in palettes],
        out=[0] * players,
        scored=[mask_of(cards(s)) for s in scored] if scored else [0] * players,
        in_round=[s not in out for s in range(players)],
        canvas=cards(canvas),
        deck=list(reversed(cards(deck))),
        turn=Turn(turn, played, pending),
        first_seat=0,
    )
    for seat in out:
        state.out[seat] = state.hands[seat] | state.palettes[seat]
        state.hands[seat] = state.palettes[seat] = 0
    return state


def order(hands: Sequence[str], palettes: Sequence[str], deck: str = "") -> tuple[Card, ...]:
    """A full 49-card order for ``Start(deck=...)``: hands are topped up with unused cards, deck last."""
    used = {c for text in (*hands, *palettes, deck) for c in cards(text)}
    spare = [c for c in ALL_CARDS if c not in used]
    out: list[Card] = []
    for text in hands:
        hand = cards(text)
        while len(hand) < 7:
            hand.append(spare.pop(0))
        out.extend(hand)
    out.extend(c for text in palettes for c in cards(text))
    out.extend(cards(deck))
    out.extend(spare)
    assert len(out) == 49 and len(set(out)) == 49, "the layout repeats a card"
    return tuple(out)


def dealt(
    hands: Sequence[str],
    palettes: Sequence[str],
    deck: str = "",
    *,
    variant: Variant = Variant.ADVANCED,
    action_rules: bool = False,
    seed: int = 7,
) -> tuple[GameState, list[Event]]:
    """A game started from an explicit deal; returns the state and its events."""
    events = decide(GameState(), Start(len(palettes), variant, action_rules, seed, order(hands, palettes, deck)))
    return fold(events), events


def step(state: GameState, command: Step, seat: int | None = None) -> tuple[GameState, list[Event]]:
    """Apply one step for the seat to move (or ``seat``); returns the new state and the events."""
    if seat is None and state.turn is not None:
        seat = state.turn.seat
    events = decide(state, command, seat)
    return fold(events, state), events


def hand(state: GameState, seat: int) -> list[str]:
    return [str(c) for c in cards_in(state.hands[seat])]


def palette(state: GameState, seat: int) -> list[str]:
    return [str(c) for c in cards_in(state.palettes[seat])]


RED, ORANGE, YELLOW, GREEN, BLUE, INDIGO, VIOLET = (
    Color.RED,
    Color.ORANGE,
    Color.YELLOW,
    Color.GREEN,
    Color.BLUE,
    Color.INDIGO,
    Color.VIOLET,
)
