"""Playing a sampled round to its end: where the expert spends its thinking time.

Why it exists.  A candidate turn is judged by playing it on a sample and
letting every seat play on until one player is left.  :class:`_Sim` keeps only
the parts of a state that a rollout changes, as bare lists, so that a copy per
candidate and sample is cheap; :class:`_Rollout` carries out the candidate's
steps as :mod:`engine.decision` would, then the policy's turns
(:mod:`engine.expert.policy`, memoised per position), and values the end of
the round with the objective (:mod:`engine.expert.odds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import mask_of
from engine.events import Destination, Variant
from engine.expert.odds import RoundValue, round_value
from engine.expert.policy import (
    _EXTRA,
    _NONE_LEFT,
    _ODD,
    _PLACE_CANVAS,
    _PLACE_DECK,
    _TAKE,
    _THREE,
    _action_choice,
    _bar_of,
    _greedy_choice,
)
from engine.legal import Outcome, Plan
from engine.rules import strengths
from engine.state import GameState
from engine.steps import Discard, EndTurn, Place, Play, Step, Take
from engine.views import View


class _Sim:
    """The part of a state a rollout changes, as bare lists: copied once per candidate and sample."""

    __slots__ = ("alive", "deck", "hands", "in_round", "palettes", "rule")

    def __init__(self, hands: list[int], palettes: list[int], in_round: list[bool], deck: list[int], rule: int) -> None:
        self.hands = hands
        self.palettes = palettes
        self.in_round = in_round
        self.deck = deck  # deck[-1] is the top
        self.rule = rule
        self.alive = in_round.count(True)

    @classmethod
    def of(cls, state: GameState) -> _Sim:
        return cls(list(state.hands), list(state.palettes), list(state.in_round), [int(c) for c in state.deck], int(state.rule))

    def copy(self) -> _Sim:
        return _Sim(self.hands.copy(), self.palettes.copy(), self.in_round.copy(), self.deck.copy(), self.rule)

    def eliminate(self, seat: int) -> None:
        self.in_round[seat] = False
        self.hands[seat] = self.palettes[seat] = 0
        self.alive -= 1


class _Rollout:
    """Plays a sampled round to its end with a fast greedy policy for every seat."""

    def __init__(
        self, me: int, players: int, advanced: bool, action_rules: bool, scored: Sequence[int], value: RoundValue = round_value
    ) -> None:
        self.value = value
        self.me = me
        self.players = players
        self.advanced = advanced
        self.action_rules = action_rules
        self.scored = tuple(scored)
        # Keys and values are plain ints, not tuples: a dict of ints is invisible to the garbage
        # collector, whose full passes over a dict of tuples stalled decisions by 0.1 s.
        self.memo: dict[int, int] = {}
        self.action_memo: dict[int, int] = {}

    @classmethod
    def of_view(cls, seen: View, me: int, value: RoundValue = round_value) -> _Rollout:
        """The rollout of ``me``'s round as its view shows the game: the seats, the variant, the action rules and
        what each seat has scored (what the expert's search and the analysis both start from)."""
        return cls(
            me,
            seen.players,
            seen.variant is Variant.ADVANCED,
            seen.action_rules,
            [mask_of(s.scored) for s in seen.seats],
            value,
        )

    # -- outcome --

    def evaluate(self, base: _Sim, plan: Plan) -> float:
        """Play ``plan`` for the seat on a copy of ``base``, then the rest of the round."""
        sim = base.copy()
        me = self.me
        self.apply(sim, me, plan.steps)
        if plan.outcome is Outcome.UNKNOWN and sim.in_round[me]:
            self.fast_turn(sim, me, played=True)
        return self.play_out(sim, me)

    def play_out(self, sim: _Sim, seat: int) -> float:
        """Pass the turn on from ``seat`` until one player is left; the round's value for the seat."""
        me = self.me
        advanced = self.advanced
        in_round, hands = sim.in_round, sim.hands
        n = self.players
        while True:
            if sim.alive <= 1:
                break
            if not advanced and not in_round[me]:
                return 0.0  # basic: once out, the game is lost whatever the others do
            nxt = seat
            for step in range(1, n):
                candidate = (seat + step) % n
                if in_round[candidate]:
                    nxt = candidate
                    break
            seat = nxt
            if not hands[seat]:
                sim.eliminate(seat)  # docs/rules.md 18
                continue
            if self.action_rules and hands[seat] & _ODD:
                self.action_turn(sim, seat)
            else:
                self.fast_turn(sim, seat, played=False)
        winner = in_round.index(True)
        return self.value(me, winner, sim.rule, sim.palettes, self.scored, advanced)

    # -- moves --

    def apply(self, sim: _Sim, seat: int, steps: Sequence[Step]) -> None:
        """Carry out a turn's steps as ``engine.decision`` would (already known to be legal)."""
        hands, palettes, deck = sim.hands, sim.palettes, sim.deck
        for step in steps:
            if isinstance(step, Play):
                bit = 1 << step.card
                hands[seat] ^= bit
                palettes[seat] |= bit
                if self.action_rules and step.card // 7 == 2 and deck:  # a 3 draws at once (docs/rules.md 28)
                    hands[seat] |= 1 << deck.pop()
            elif isinstance(step, Discard):
                size = palettes[seat].bit_count()
                hands[seat] ^= 1 << step.card
                sim.rule = step.card % 7
                if self.advanced and step.draw and deck and step.card // 7 + 1 > size:
                    hands[seat] |= 1 << deck.pop()
            elif isinstance(step, Take):
                palettes[step.seat] ^= 1 << step.card
                deck.append(step.card)
            elif isinstance(step, Place):
                palettes[seat] ^= 1 << step.card
                if step.to is Destination.CANVAS:
                    sim.rule = step.card % 7
                else:
                    deck.append(step.card)
            elif isinstance(step, EndTurn):
                if not self.winning(sim, seat):
                    sim.eliminate(seat)
            else:
                sim.eliminate(seat)

    @staticmethod
    def winning(sim: _Sim, seat: int) -> bool:
        rule = sim.rule
        return strengths(sim.palettes[seat])[rule] > _bar_of(sim.palettes, seat)[rule]

    def fast_turn(self, sim: _Sim, seat: int, *, played: bool) -> None:
        """The greedy turn among those that fire no action: play one card and/or discard one.

        With the action rules this is used only when the hand holds no odd card
        (no action can fire) or after a 3's draw (``played``: only a discard or
        ending the turn is left).  The choice is a pure function of the cards
        involved, so it is memoised: the candidates of one decision replay many
        of the same positions on the same sample.
        """
        hands, palettes, deck = sim.hands, sim.palettes, sim.deck
        hand = hands[seat]
        can_draw = self.advanced and bool(deck)
        # Eliminated seats have empty palettes, which never raise the bar: the palettes are the key.
        key = hand << 8 | sim.rule << 5 | seat << 2 | can_draw << 1 | played
        for palette in palettes:
            key = key << 49 | palette
        choice = self.memo.get(key)
        if choice is None:
            play, discard = _greedy_choice(
                hand, palettes[seat], _bar_of(palettes, seat), sim.rule, self.advanced, can_draw, played, self.action_rules
            )
            self.memo[key] = (play + 8) << 8 | (discard + 8)
        else:
            play, discard = (choice >> 8) - 8, (choice & 0xFF) - 8
        if play == _NONE_LEFT:
            sim.eliminate(seat)
            return
        if play >= 0:
            hands[seat] ^= 1 << play
            palettes[seat] |= 1 << play
        if discard >= 0:
            size = palettes[seat].bit_count()
            hands[seat] ^= 1 << discard
            sim.rule = discard % 7
            if can_draw and discard // 7 + 1 > size:
                hands[seat] |= 1 << deck.pop()

    def action_turn(self, sim: _Sim, seat: int) -> None:
        """The greedy turn for a hand that can fire an action (see :func:`_action_choice`)."""
        hands, palettes, deck = sim.hands, sim.palettes, sim.deck
        hand = hands[seat]
        key = hand << 8 | sim.rule << 5 | seat << 2 | bool(deck) << 1 | 1
        for palette in palettes:
            key = key << 49 | palette
        code = self.action_memo.get(key)
        if code is None:
            code = _action_choice(seat, hand, palettes, sim.rule, self.advanced, bool(deck))
            self.action_memo[key] = code
        play, kind, a, b, discard = (code >> 32) - 8, code >> 24 & 0xFF, code >> 16 & 0xFF, code >> 8 & 0xFF, (code & 0xFF) - 8
        if play == _NONE_LEFT:
            sim.eliminate(seat)
            return
        if play >= 0:
            hands[seat] ^= 1 << play
            palettes[seat] |= 1 << play
        if kind == _TAKE:
            palettes[a] ^= 1 << b
            deck.append(b)
        elif kind == _PLACE_DECK:
            palettes[seat] ^= 1 << a
            deck.append(a)
        elif kind == _PLACE_CANVAS:
            palettes[seat] ^= 1 << a
            sim.rule = a % 7
        elif kind == _EXTRA:
            hands[seat] ^= 1 << a
            palettes[seat] |= 1 << a
        if kind == _THREE or (kind == _EXTRA and a // 7 == 2 and deck):
            hands[seat] |= 1 << deck.pop()  # the 3's draw; the rest of the turn is chosen seeing the card
            self.fast_turn(sim, seat, played=True)
            return
        if discard >= 0:
            size = palettes[seat].bit_count()
            hands[seat] ^= 1 << discard
            sim.rule = discard % 7
            if self.advanced and deck and discard // 7 + 1 > size:
                hands[seat] |= 1 << deck.pop()
