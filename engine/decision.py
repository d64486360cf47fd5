"""Deciding: a state and a step in, the events it produces out — or a refusal.

``decide`` never changes the state it is given.  It builds its events on a
scratch copy, folding each one as it is emitted, so that whatever follows
(the 3's draw, the end of the turn, the next player's empty hand, the round
win) is decided on exactly the state the fold will produce.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import FULL_MASK, Card, Color, cards_in, format_cards
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Destination,
    DrawCause,
    Effect,
    Elimination,
    Event,
    Finish,
    GameFinished,
    GameStarted,
    PlayerEliminated,
    RoundDealt,
    RoundScored,
    RoundWon,
    TurnStarted,
    Variant,
)
from engine.legal import (
    Position,
    after_play,
    grants_draw,
    place_on_canvas_allowed,
    play_allowed,
    position_of,
    take_targets,
    winning,
)
from engine.rules import qualifying_mask, strength
from engine.shuffle import deal, first_seat, shuffled
from engine.state import CARDS_PER_PLAYER, GameState, Phase, apply_in_place, next_seat_in_round
from engine.steps import Command, DealRound, Discard, EndTurn, Fold, Place, Play, ScoreRound, Start, Step, Take


class RuleViolation(Exception):
    """A step the rules do not allow now.

    ``code`` is stable and machine-readable; ``message`` is a sentence for
    the player; ``details`` holds the facts behind it (cards, seats).
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


class _Decision:
    """A scratch copy of the state plus the events emitted onto it so far."""

    def __init__(self, state: GameState) -> None:
        self.state = state.copy()
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        apply_in_place(self.state, event)
        self.events.append(event)


def decide(state: GameState, command: Step | Command, seat: int | None = None) -> list[Event]:
    """The events ``command`` produces on ``state``; :class:`RuleViolation` if it may not happen.

    Turn steps need the acting ``seat``; the service commands (``Start``,
    ``ScoreRound``, ``DealRound``) take none.
    """
    return decide_and_fold(state, command, seat)[0]


def decide_and_fold(state: GameState, command: Step | Command, seat: int | None = None) -> tuple[list[Event], GameState]:
    """The events and the state after them (``fold(events, state)``), which deciding builds anyway."""
    if isinstance(command, Start):
        d = _start(state, command)
    elif isinstance(command, ScoreRound):
        d = _score(state)
    elif isinstance(command, DealRound):
        d = _deal(state)
    else:
        d = _Decision(state)
        _turn_step(d, command, seat)
    return d.events, d.state


def decide_steps(state: GameState, steps: Sequence[Step], seat: int) -> tuple[list[Event], GameState]:
    """Several steps of one seat, all or nothing: each is decided on the state the previous ones left.

    A refusal of any step refuses them all; its ``details["step"]`` is the
    index of the step refused.  No step may follow a draw: the player must
    see the card first, and a batch that went on after it would tell, by
    how a later step is refused, what the drawn card is without drawing it.
    """
    d = _Decision(state)
    last = len(steps) - 1
    for index, step in enumerate(steps):
        drawn_before = len(d.events)
        try:
            _turn_step(d, step, seat)
        except RuleViolation as refusal:
            refusal.details["step"] = index
            raise
        if index < last and any(type(e) is CardDrawn for e in d.events[drawn_before:]):
            raise RuleViolation(
                "step_after_draw",
                "This step comes after a draw: send it once you have seen the card you drew.",
                step=index + 1,
            )
    return d.events, d.state


# --- the service's commands ----------------------------------------------------------


def _start(state: GameState, command: Start) -> _Decision:
    if state.phase is not Phase.NOT_STARTED:
        raise RuleViolation("game_already_started", "This game has already started.")
    if not 2 <= command.players <= 4:
        raise RuleViolation("bad_player_count", f"Red7 is played by 2 to 4 players, not {command.players}.")
    deck = command.deck
    if deck is not None and (len(deck) != 49 or len(set(deck)) != 49):
        raise RuleViolation("bad_deck", "A custom deck must list each of the 49 cards exactly once.")
    d = _Decision(state)
    d.emit(GameStarted(command.players, Variant(command.variant), command.action_rules, command.seed, deck, deck is not None))
    order = deck if deck is not None else shuffled(list(Card(r) for r in range(49)), command.seed, 1)
    _emit_deal(d, 1, order)
    return d


def _emit_deal(d: _Decision, round_number: int, order: list[Card] | tuple[Card, ...]) -> None:
    hands, palettes, deck = deal(order, d.state.players)
    d.emit(RoundDealt(round_number, hands, palettes, deck, len(deck), first_seat(palettes)))


def _score(state: GameState) -> _Decision:
    if state.phase is not Phase.ROUND_WON or state.round_winner is None:
        raise RuleViolation("nothing_to_score", "There is no won round waiting to be scored.")
    d = _Decision(state)
    seat = state.round_winner
    cards = tuple(cards_in(qualifying_mask(state.palettes[seat], state.rule)))
    d.emit(RoundScored(seat, cards, sum(c.number for c in cards)))
    s = d.state
    assert s.options is not None
    leader = game_leader(s)
    if any(s.score(p) >= s.options.target for p in range(s.players)):
        d.emit(GameFinished(leader, Finish.TARGET_REACHED))
    elif (FULL_MASK & ~sum(s.scored)).bit_count() < CARDS_PER_PLAYER * s.players:
        d.emit(GameFinished(leader, Finish.DECK_EXHAUSTED))
    return d


def game_leader(state: GameState) -> int:
    """docs/rules.md 25: the highest score; on equal scores, the highest scored card."""
    return max(range(state.players), key=lambda p: (state.score(p), state.scored[p].bit_length()))


def _deal(state: GameState) -> _Decision:
    if state.phase is not Phase.ROUND_SCORED:
        raise RuleViolation("no_deal_due", "A new round is dealt only after the last one was scored.")
    assert state.seed is not None
    remaining = FULL_MASK & ~sum(state.scored)
    d = _Decision(state)
    _emit_deal(d, state.round + 1, shuffled(cards_in(remaining), state.seed, state.round + 1))
    return d


# --- turn steps ------------------------------------------------------------------------


def _turn_step(d: _Decision, step: Step, seat: int | None) -> None:
    _check_turn(d.state, seat)
    pos = position_of(d.state)
    me = pos.seat
    if isinstance(step, Play):
        _check_play(pos, step.card)
        after = after_play(pos, step.card)
        d.emit(CardPlayed(me, step.card, after.pending))
        if after.pending is Effect.DRAW:
            d.emit(CardDrawn(me, d.state.deck[-1], DrawCause.THREE))
    elif isinstance(step, Discard):
        _check_no_pending(pos, "discarding")
        _check_in_hand(pos, step.card)
        if not winning(pos, step.card.color):
            what = f"Discarding {step.card} would make {_rule(step.card.color)} the rule"
            raise _not_winning("discard_not_winning", what, pos, step.card.color, pos.palettes)
        draw = step.draw and grants_draw(pos, step.card)
        d.emit(CardDiscarded(me, step.card))
        if draw:
            d.emit(CardDrawn(me, d.state.deck[-1], DrawCause.DISCARD))
        _pass_turn(d, me)
    elif isinstance(step, Take):
        _check_take(pos, step)
        d.emit(CardTaken(me, step.seat, step.card))
    elif isinstance(step, Place):
        _check_place(pos, step)
        d.emit(CardPlaced(me, step.card, step.to))
    elif isinstance(step, EndTurn):
        _check_no_pending(pos, "ending the turn")
        if not pos.played:
            raise RuleViolation("nothing_played", "You have not done anything this turn yet: play, discard, or fold.")
        if not winning(pos):
            d.emit(PlayerEliminated(me, Elimination.NOT_WINNING))
        _pass_turn(d, me)
    elif isinstance(step, Fold):
        d.emit(PlayerEliminated(me, Elimination.FOLDED))
        _pass_turn(d, me)
    else:
        raise RuleViolation("unknown_step", f"{step!r} is not a step of a Red7 turn.")


def _pass_turn(d: _Decision, seat: int) -> None:
    """End ``seat``'s turn: the round winner (docs/rules.md 19) or the next seat's turn (docs/rules.md 18)."""
    s = d.state
    while True:
        if s.in_round.count(True) == 1:
            last = s.in_round.index(True)
            d.emit(RoundWon(last, s.rule))
            assert s.options is not None
            if not s.options.advanced:
                d.emit(GameFinished(last, Finish.ROUND_WON))
            return
        nxt = next_seat_in_round(s, seat)
        assert nxt is not None
        if s.hands[nxt] == 0:
            d.emit(PlayerEliminated(nxt, Elimination.EMPTY_HAND))
            seat = nxt
            continue
        d.emit(TurnStarted(nxt))
        return


# --- checks ------------------------------------------------------------------------------

_PENDING_TEXT = {
    Effect.TAKE: "your 1 must first take a card from another palette (a take step)",
    Effect.PLAY: "your 5 lets you play one more card first (a play step)",
    Effect.PLACE: "your 7 must first move one of your palette cards (a place step)",
}


def _check_turn(state: GameState, seat: int | None) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleViolation("game_not_started", "The game has not started yet.")
    if state.phase is Phase.FINISHED:
        raise RuleViolation("game_over", "The game is over.")
    if state.phase is not Phase.TURN or state.turn is None:
        raise RuleViolation("round_over", "The round is over; the next one has not been dealt yet.")
    if seat != state.turn.seat:
        raise RuleViolation("not_your_turn", f"It is seat {state.turn.seat}'s turn, not yours.", turn=state.turn.seat)


def _check_in_hand(pos: Position, card: Card) -> None:
    if not pos.hand & (1 << card):
        raise RuleViolation("card_not_in_hand", f"{card} is not in your hand.", card=str(card))


def _check_no_pending(pos: Position, doing: str) -> None:
    if pos.pending in _PENDING_TEXT:
        raise RuleViolation("effect_pending", f"Before {doing}, {_PENDING_TEXT[pos.pending]}.", effect=str(pos.pending))


def _check_play(pos: Position, card: Card) -> None:
    if pos.pending in (Effect.TAKE, Effect.PLACE):
        _check_no_pending(pos, "playing again")
    if pos.played and pos.pending is not Effect.PLAY:
        raise RuleViolation("already_played", "You have already played a card this turn; discard a card or end the turn.")
    _check_in_hand(pos, card)
    if not play_allowed(pos, card):
        raise RuleViolation(
            "play_cannot_win",
            f"You may play a {card.number} only if some way of finishing the turn keeps you winning, "
            "and none does (docs/rules.md 31).",
            card=str(card),
        )


def _check_take(pos: Position, step: Take) -> None:
    if pos.pending is not Effect.TAKE:
        raise RuleViolation("no_effect_pending", "There is no 1 waiting for a take.")
    targets = take_targets(pos)
    if step.seat not in targets:
        mine = pos.palettes[pos.seat].bit_count()
        raise RuleViolation(
            "take_not_allowed",
            f"Your 1 can take only from another player still in the round whose palette has at least {mine} cards"
            + (f" (seats {', '.join(map(str, targets))})." if targets else "."),
            targets=targets,
        )
    if not pos.palettes[step.seat] & (1 << step.card):
        raise RuleViolation("card_not_on_palette", f"{step.card} is not on seat {step.seat}'s palette.", card=str(step.card))


def _check_place(pos: Position, step: Place) -> None:
    if pos.pending is not Effect.PLACE:
        raise RuleViolation("no_effect_pending", "There is no 7 waiting for a place.")
    if not pos.palettes[pos.seat] & (1 << step.card):
        raise RuleViolation("card_not_on_palette", f"{step.card} is not on your palette.", card=str(step.card))
    if step.to is Destination.CANVAS and not place_on_canvas_allowed(pos, step.card):
        palettes = list(pos.palettes)
        palettes[pos.seat] ^= 1 << step.card
        what = f"Putting {step.card} on the canvas would make {_rule(step.card.color)} the rule"
        raise _not_winning("place_not_winning", what, pos, step.card.color, palettes)


# --- explanations --------------------------------------------------------------------------


def _rule(color: Color) -> str:
    return color.name.capitalize()


def _showing(mask: int, color: Color) -> str:
    q = qualifying_mask(mask, color)
    return f"{format_cards(cards_in(q))} ({q.bit_count()} card{'s' if q.bit_count() != 1 else ''})" if q else "no qualifying card"


def _not_winning(code: str, what: str, pos: Position, color: Color, palettes: list[int] | tuple[int, ...]) -> RuleViolation:
    """A refusal that says why: both sides' qualifying cards under the new rule (docs/rules.md 10, 16)."""
    mine = palettes[pos.seat]
    rivals = [s for s in range(len(palettes)) if s != pos.seat and pos.in_round[s]]
    best = max(rivals, key=lambda s: strength(palettes[s], color))
    return RuleViolation(
        code,
        f"{what}, and you would not be winning: under {_rule(color)} you have {_showing(mine, color)}, "
        f"seat {best} has {_showing(palettes[best], color)}.",
        rule=str(color),
        yours=[str(c) for c in cards_in(qualifying_mask(mine, color))],
        leader=best,
        theirs=[str(c) for c in cards_in(qualifying_mask(palettes[best], color))],
    )
