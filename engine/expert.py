"""The expert bot: determinized Monte Carlo search over full turns, from the seat's own view.

Why this shape.  Red7 is a game of hidden hands, so a search that looked at the
true state would cheat and a search on the visible state alone cannot look
ahead.  The expert therefore plays *determinizations*: it deals the cards it
cannot see at random, consistently with everything its seat knows, and plays
each candidate turn forward on those deals.  The turn with the best average
outcome over many deals is the one it sends.

Inputs.  :meth:`ExpertBot.plan_view` receives only what the seat may see: its
:class:`~engine.projection.View` and the seat's redacted event history
(:func:`engine.projection.redact`).  It refuses anything else — a
``GameState`` or an unredacted event — so that honesty is enforced at the
interface, not promised by the caller.

Sampling (:func:`read_belief`, :func:`sample_state`).  From the history of the
current round the bot rebuilds what is public beyond the view: which cards a 1
or a 7 put on top of the deck and who drew them afterwards (so that seat is
known to hold them), and which cards left the round with an eliminated player
(the palette is public, the hand is not).  Every card it has not seen is then
dealt uniformly at random to the unknown places: the other hands (by their
public sizes), the unknown deck positions, and the hands that left the round.
A sample is a full :class:`~engine.state.GameState` whose view for the seat is
exactly the view the bot was given.

Search (:meth:`ExpertBot.plan_view`).  The candidates are the full turns of
:func:`engine.legal.walk` from the real position (so only legal steps are ever
returned), ranked by the greedy bot's one-turn heuristic and cut to the best
``candidates``.  Every iteration draws one sample and plays *every* surviving
candidate on it (common random numbers: the candidates are compared on the
same deals, which removes most of the noise from the comparison), then lets a
fast greedy rollout policy play the round to its end.  Candidates that are
behind the leader by a clear margin on the paired differences are dropped,
so the budget goes to the turns that are close.  The search stops at the time
budget (measured only with the injected clock) or after ``iterations``
samples, in which case it is fully deterministic for a given ``rng``.

Objective (:func:`round_value`).  Winning the game is what counts, not winning
rounds.  In the basic variant the round is the game (1 or 0).  In the advanced
variant a finished round is valued by the probability of going on to win the
game from the scores it leaves: a table computed once from a simple model
(each later round is won by either player with equal chance, worth a number
of points drawn from the distribution seen in self-play).  So a big round is
worth more than a small one, a round that reaches the target is worth the
game, and a round an opponent wins costs more the closer it takes them to the
target.  With three or four players the odds against each opponent are
multiplied.  The rule-book endings (target reached, deck exhausted) are
scored exactly.  Half the round's point margin (over the target) is added:
the odds model is coarse, and in head-to-head tests the margin alone played
as well as the odds alone, the sum at least as well as either.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import gt

from engine.cards import FULL_MASK, Card, Color, iter_cards, mask_of
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
    Variant,
)
from engine.legal import Outcome, Plan, bars, finish, grants_draw, position_from_view, walk
from engine.projection import View
from engine.rules import qualifying_mask, strengths
from engine.state import CARDS_PER_PLAYER, HAND_SIZE, TARGET_SCORE, GameState, Options, Phase, Turn
from engine.steps import Discard, EndTurn, Fold, Place, Play, Step, Take

_COLOR_BAND = tuple(sum(1 << (7 * n + c) for n in range(7)) for c in range(7))  # the cards of each colour
_COLORS = tuple(Color(c) for c in range(7))
_ODD = sum(1 << (7 * (n - 1) + c) for n in (1, 3, 5, 7) for c in range(7))  # the cards whose play fires an action

#: How many points the winner of an advanced round scored, for 1..37 points, pooled over
#: 900 greedy self-play games (2-4 players, with and without the action rules).  Only
#: its shape matters: it feeds the game-odds table behind the advanced objective.
_ROUND_POINTS = (9, 49, 131, 110, 120, 275, 608, 249, 208, 310, 131, 351, 239, 358, 149, 139, 75, 259, 82,
                 115, 114, 162, 63, 63, 81, 53, 35, 31, 20, 9, 13, 7, 6, 3, 2, 1, 1)

# The one-turn heuristic of engine.bots.GreedyBot, repeated here so that the rollout policy
# plays like the greedy bot (a good model of a sensible opponent) without importing it.
_HAND = 10.0
_RULES = 4.0
_POINTS = 0.5
_DRAW = 6.0

#: Safety stop for a clock that never advances.
_MAX_TIMED_ITERATIONS = 100_000
#: Prune only after this many samples, then every few samples.
_PRUNE_FROM = 8
_PRUNE_EVERY = 4
#: How many standard errors behind the leader a candidate must be to be dropped.
_PRUNE_Z = 2.5


def _sum_numbers(mask: int) -> int:
    """The sum of the numbers of the cards in ``mask``: what they score (RULES.md 23)."""
    total = 0
    while mask:
        top = mask.bit_length() - 1
        total += top // 7 + 1
        mask ^= 1 << top
    return total


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


@lru_cache(maxsize=8)
def game_odds(target: int) -> tuple[tuple[float, ...], ...]:
    """``odds[a][b]``: the chance to win a two-sided race to ``target`` from scores ``a`` and ``b``.

    The model is deliberately simple — each round is won by either side with
    equal chance and is worth points drawn from :data:`_ROUND_POINTS` — because
    all the search needs from it is the *shape*: how much a given number of
    points is worth at a given score, for the scorer and for the other side.
    """
    total = sum(_ROUND_POINTS)
    dist = [(x + 1, weight / total) for x, weight in enumerate(_ROUND_POINTS) if weight]
    odds = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        row = odds[a]
        for b in range(target - 1, -1, -1):
            mine = sum(p * (1.0 if a + x >= target else odds[a + x][b]) for x, p in dist)
            theirs = sum(p * (0.0 if b + x >= target else row[b + x]) for x, p in dist)
            row[b] = 0.5 * (mine + theirs)
    return tuple(tuple(row) for row in odds)


#: Weight of the round's point margin (in targets) next to the game odds; see :func:`round_value`.
MARGIN_WEIGHT = 0.5


def round_value(me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
    """How good a finished round is for ``me``: mainly the chance to win the game from there.

    ``palettes`` are the palettes at the end of the round and ``scored`` the
    score piles before it.  Basic variant: the round winner wins the game
    (RULES.md 20).  Advanced: the winner scores (RULES.md 23), the game ends
    if the target is reached or too few cards are left (RULES.md 24) and is
    then decided by RULES.md 25 (1 or 0); otherwise the game-odds table values
    the scores against every opponent.  To that is added the round's point
    margin, ``MARGIN_WEIGHT`` times the points won (or conceded to the winner)
    over the target: the odds table is only a coarse model and flat where a
    game is nearly decided, and in head-to-head tests the pure odds were no
    stronger than the plain margin while the sum of the two was at least as
    strong as either.
    """
    if not advanced:
        return 1.0 if winner == me else 0.0
    piles = list(scored)
    won = qualifying_mask(palettes[winner], _COLORS[rule])
    piles[winner] |= won
    players = len(piles)
    scores = [_sum_numbers(pile) for pile in piles]
    target = TARGET_SCORE[players]
    margin = MARGIN_WEIGHT * _sum_numbers(won) / target * (1.0 if winner == me else -1.0)
    left = (FULL_MASK & ~sum(piles)).bit_count()
    if max(scores) >= target or left < CARDS_PER_PLAYER * players:
        leader = max(range(players), key=lambda s: (scores[s], piles[s].bit_length()))
        return (1.0 if leader == me else 0.0) + margin
    odds = game_odds(target)
    mine = odds[scores[me]]
    value = 1.0
    for seat in range(players):
        if seat != me:
            value *= mine[scores[seat]]
    return value + margin


#: The signature of an objective: how good a finished round is for a seat (see :func:`round_value`).
RoundValue = Callable[[int, int, int, Sequence[int], Sequence[int], bool], float]


# --- what the seat knows -----------------------------------------------------------------


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
        if info.in_round != in_round[seat] or (info.in_round and (
            mask_of(info.palette) != palettes[seat] or info.hand_size != sizes[seat]
        )):
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


def sample_state(seen: View, belief: Belief, rng: random.Random) -> GameState:
    """One full game state the seat cannot tell from the real one, its hidden cards dealt at random."""
    me = seen.viewer
    assert me is not None and seen.hand is not None and seen.turn is not None
    pool = list(belief.unseen)
    rng.shuffle(pool)
    hands = []
    for info in seen.seats:
        if info.seat == me:
            hands.append(mask_of(seen.hand))
        elif info.in_round:
            mask = belief.known[info.seat]
            for _ in range(info.hand_size - mask.bit_count()):
                mask |= 1 << pool.pop()
            hands.append(mask)
        else:
            hands.append(0)
    deck = [card if card is not None else pool.pop() for card in belief.deck]
    n = seen.players
    return GameState(
        options=Options(n, seen.variant, seen.action_rules),
        seed=None,
        custom_deck=None,
        phase=Phase.TURN,
        round=seen.round,
        hands=hands,
        palettes=[mask_of(info.palette) for info in seen.seats],
        out=[0] * n,
        scored=[mask_of(info.scored) for info in seen.seats],
        in_round=[info.in_round for info in seen.seats],
        canvas=list(seen.canvas),
        deck=deck,
        turn=Turn(seen.turn.seat, seen.turn.played, seen.turn.pending),
        first_seat=None,
    )


# --- the rollout ------------------------------------------------------------------------------


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
                sim.eliminate(seat)  # RULES.md 18
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
                if self.action_rules and step.card // 7 == 2 and deck:  # a 3 draws at once (RULES.md 28)
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
    (RULES.md 31 holds because only turns that end winning are chosen), and
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
            value = (_HAND * (rest.bit_count() - 1) + _RULES * sum(map(gt, own, bar)) + own[rule] / 1000.0
                     + (_points_all(after)[rule] if advanced else 0.0))
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
                    value = (_HAND * (rest2.bit_count() - 1) + _RULES * sum(map(gt, own, bar)) + own[rule] / 1000.0
                             + (_points_all(after2)[rule] if advanced else 0.0))
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


# --- the bot --------------------------------------------------------------------------------------


@dataclass(slots=True)
class SearchReport:
    """What the last decision did; for benchmarks and curious callers, never for the decision itself."""

    candidates: int = 0
    iterations: int = 0
    rollouts: int = 0
    chosen_mean: float | None = None


class ExpertBot:
    """A determinized Monte Carlo search over full turns, planning from the seat's view alone."""

    name = "expert"

    def __init__(
        self,
        rng: random.Random,
        *,
        seconds: float = 1.0,
        iterations: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        candidates: int = 24,
        objective: RoundValue = round_value,
    ) -> None:
        if iterations is not None and iterations < 0:
            raise ValueError("iterations must be 0 or more")
        if candidates < 1:
            raise ValueError("at least one candidate turn must be searched")
        self.rng = rng
        self.seconds = seconds
        self.iterations = iterations
        self.clock = clock
        self.candidates = candidates
        self.objective = objective
        self.report = SearchReport()

    def plan_view(self, seen: View, history: Sequence[Event]) -> Sequence[Step]:
        """The steps to take now: a full turn, or the part of it up to a 3's draw.

        ``seen`` must be ``engine.projection.view(state, seat)`` on the seat's
        turn and ``history`` the seat's redacted events (``redact(e, seat)``).
        """
        check_inputs(seen, history)
        # The budget covers the whole decision, from here: a caller waits for all of it.
        deadline = self.clock() + self.seconds if self.iterations is None else None
        pos = position_from_view(seen)
        plans = [plan for plan in walk(pos, draw_choices=True) if plan.outcome is not Outcome.LOSE]
        self.report = SearchReport(candidates=len(plans))
        if not plans:
            return (Fold(),)
        if len(plans) == 1:
            return plans[0].steps
        ranked = sorted(plans, key=plan_value, reverse=True)[: self.candidates]
        if self.iterations == 0:
            return ranked[0].steps
        return ranked[self._search(seen, history, ranked, deadline)].steps

    def _search(self, seen: View, history: Sequence[Event], plans: list[Plan], deadline: float | None) -> int:
        """The index of the plan with the best mean over the samples; see the module docstring."""
        belief = read_belief(seen, history)
        me = seen.viewer
        assert me is not None
        rollout = _Rollout(
            me, seen.players, seen.variant is Variant.ADVANCED, seen.action_rules, [mask_of(s.scored) for s in seen.seats],
            self.objective,
        )
        timed = deadline is not None  # with an iteration budget the clock is never read: deterministic
        end = math.inf if deadline is None else deadline
        limit = _MAX_TIMED_ITERATIONS if self.iterations is None else self.iterations
        clock = self.clock
        alive = list(range(len(plans)))
        values: list[list[float]] = [[] for _ in plans]
        done = rollouts = 0
        while done < limit and len(alive) > 1:
            if timed and clock() >= end:
                break
            base = _Sim.of(sample_state(seen, belief, self.rng))
            row = []
            for index in alive:
                row.append(rollout.evaluate(base, plans[index]))
                rollouts += 1
                if timed and len(row) < len(alive) and clock() >= end:
                    break
            if len(row) < len(alive):
                break  # out of time mid-sample: keep the comparison on equal samples
            for index, value in zip(alive, row, strict=True):
                values[index].append(value)
            done += 1
            if done >= _PRUNE_FROM and (done - _PRUNE_FROM) % _PRUNE_EVERY == 0:
                alive = _prune(alive, values)
        self.report.iterations = done
        self.report.rollouts = rollouts
        if done == 0:
            return 0
        best = max(alive, key=lambda i: (sum(values[i]), -i))
        self.report.chosen_mean = sum(values[best]) / done
        return best


def _prune(alive: list[int], values: list[list[float]]) -> list[int]:
    """Drop the candidates clearly behind the leader on paired differences (same samples)."""
    leader = max(alive, key=lambda i: (sum(values[i]), -i))
    ahead = values[leader]
    m = len(ahead)
    kept = []
    for index in alive:
        if index == leader:
            kept.append(index)
            continue
        diffs = [a - b for a, b in zip(ahead, values[index], strict=True)]
        mean = sum(diffs) / m
        var = sum((d - mean) ** 2 for d in diffs) / (m - 1)
        if mean <= 0 or mean * math.sqrt(m) <= _PRUNE_Z * math.sqrt(var):
            kept.append(index)
    return kept
