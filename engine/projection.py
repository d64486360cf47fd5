"""What one seat may see: of the state (:func:`view`) and of each event (:func:`redact`).

Hidden until the game is over: other players' hands, every card drawn by
someone else, the deck order, and the seed (which would give away every
shuffle).  A spectator (``seat=None``) sees what every player sees and no
hand at all.  Everything else — palettes, the canvas, score piles, hand and
deck sizes — is public in the physical game and public here.
"""

from __future__ import annotations

from dataclasses import replace

from engine.cards import Card, cards_in
from engine.events import CardDrawn, Event, GameStarted, RoundDealt
from engine.legal import legal_steps
from engine.state import GameState, Phase
from engine.views import LegalStep as LegalStep  # the view's types live in engine.views, below engine.legal
from engine.views import SeatView as SeatView
from engine.views import TurnView as TurnView
from engine.views import View as View


def view(state: GameState, seat: int | None, *, legal: bool = True) -> View:
    """What ``seat`` (``None``: a spectator) may see of ``state``.

    ``legal=False``: without the steps the seat may take (``View.legal`` empty), for a bot that searches its own
    turns from the view (``engine.legal.position_from_view``): flagged, they cost more than the rest of the view."""
    options = state.options
    if options is None:
        raise ValueError("a game that has not started has no view")
    seats = tuple(
        SeatView(
            seat=s,
            in_round=state.in_round[s],
            palette=tuple(cards_in(state.palettes[s])),
            hand_size=state.hands[s].bit_count(),
            score=state.score(s),
            scored=tuple(cards_in(state.scored[s])),
        )
        for s in range(options.players)
    )
    turn = state.turn
    mine = seat is not None and turn is not None and turn.seat == seat and state.phase is Phase.TURN
    return View(
        viewer=seat,
        phase=state.phase,
        players=options.players,
        variant=options.variant,
        action_rules=options.action_rules,
        custom_deal=state.custom_deck is not None,
        target=options.target if options.advanced else None,
        round=state.round,
        rule=state.rule,
        canvas=tuple(state.canvas),
        deck_size=len(state.deck),
        seats=seats,
        hand=tuple(cards_in(state.hands[seat])) if seat is not None else None,
        turn=TurnView(turn.seat, turn.played, turn.pending) if turn is not None else None,
        legal=tuple(legal_steps(state)) if mine and legal else (),
        round_winner=state.round_winner,
        winner=state.winner,
        finish=state.finish,
    )


def redact(event: Event, seat: int | None, *, game_over: bool = False) -> Event:
    """``event`` as ``seat`` may see it; everything is revealed once ``game_over``."""
    if game_over:
        return event
    if isinstance(event, CardDrawn):
        return event if event.seat == seat or event.card is None else replace(event, card=None)
    if isinstance(event, RoundDealt):
        hands = tuple(hand if s == seat else None for s, hand in enumerate(event.hands))
        return replace(event, hands=hands, deck=None)
    if isinstance(event, GameStarted):
        return replace(event, seed=None, deck=None)
    return event


def visible_cards(event: Event) -> set[Card]:
    """Every card an event shows; what leak tests scan."""
    found: set[Card] = set()

    def collect(value: object) -> None:
        if isinstance(value, Card):
            found.add(value)
        elif isinstance(value, tuple):
            for item in value:
                collect(item)

    for name in event.__dataclass_fields__:
        collect(getattr(event, name))
    return found
