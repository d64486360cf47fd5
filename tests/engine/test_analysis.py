"""The decision analysis (engine/analysis/): honest, deterministic, labels where they are due."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis import (
    DEFAULT_BUDGET,
    Budget,
    Evaluation,
    analyse,
    decision_points,
    evaluate,
    game_accuracy,
    move_accuracy,
    place_share,
    summarise,
    win_chance,
)
from engine.bots import GreedyBot, RandomBot
from engine.cards import FULL_MASK, Card, iter_cards
from engine.events import Event, RoundDealt, Variant
from engine.expert import ExpertBot
from engine.legal import Outcome, Position, walk
from engine.projection import redact, visible_cards
from engine.selfplay import play_game
from engine.state import fold
from engine.steps import EndTurn, Fold, Step

#: The tests' budget: small, and refining a close call at most 4 times (the default's 64 is the bench's business).
SMALL = Budget(worlds=8, candidates=3, refine=4)


def _game(players: int, seed: int, *, action_rules: bool = True, variant: Variant = Variant.ADVANCED) -> list[Event]:
    rng = random.Random(seed)
    record = play_game([GreedyBot(rng) for _ in range(players)], variant=variant, action_rules=action_rules, seed=seed)
    return record.events


def test_the_same_events_and_seed_give_byte_identical_results() -> None:
    events = _game(3, 11)
    first = json.dumps(analyse(events, 5, SMALL).to_dict(), sort_keys=True)
    second = json.dumps(analyse(list(events), 5, SMALL).to_dict(), sort_keys=True)
    assert first == second
    assert json.loads(first)["decisions"], "a whole game has decisions to judge"


def test_every_turn_of_a_game_is_found_with_the_steps_played() -> None:
    events = _game(2, 3, action_rules=False, variant=Variant.BASIC)
    points = decision_points(events)
    assert points
    for point in points:
        assert point.seen.viewer == point.seat and point.seen.turn is not None and point.seen.turn.seat == point.seat
        made = events[point.event : point.event + point.events]
        assert all(getattr(e, "seat", point.seat) == point.seat for e in made[:1])
        # The history is what the mover may see: redacted for its seat.
        assert list(point.history) == [redact(e, point.seat) for e in events[: point.event]]


# --- honesty ------------------------------------------------------------------------------


def _swap(value: object, a: Card, b: Card) -> object:
    if isinstance(value, Card):
        return Card(b) if value == a else Card(a) if value == b else value
    if isinstance(value, tuple):
        return tuple(_swap(item, a, b) for item in value)
    return value


def _swapped(event: Event, a: Card, b: Card) -> Event:
    changes = {name: _swap(getattr(event, name), a, b) for name in event.__dataclass_fields__ if name != "type"}
    return dataclasses.replace(event, **changes)


def _unseen_by(events: Sequence[Event], seat: int, end: int) -> list[Card]:
    """The cards ``seat`` has not seen in ``events[:end]`` (nor in its hand when the round was dealt)."""
    seen: set[Card] = set()
    for event in events[:end]:
        seen |= visible_cards(redact(event, seat))
    return [card for card in iter_cards(FULL_MASK) if card not in seen]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 10_000), which=st.randoms(use_true_random=False))
def test_a_decision_is_judged_the_same_when_cards_its_mover_had_not_seen_change(
    seed: int, pick: int, which: random.Random
) -> None:
    """Honest: a copy of the game with other cards where its mover could not see gives the same evaluation."""
    events = _game(3, seed)
    points = decision_points(events)
    point = points[pick % len(points)]
    end = point.event + point.events
    unseen = _unseen_by(events, point.seat, end)
    if len(unseen) < 2:
        return
    a, b = which.sample(unseen, 2)
    deal = max(i for i, e in enumerate(events[: point.event]) if isinstance(e, RoundDealt))
    copy = list(events[:deal]) + [_swapped(e, a, b) for e in events[deal:end]]
    assert copy != list(events[:end]), "the copy has other hidden cards"
    fold(copy)  # the copy is a game the engine accepts
    original = evaluate(decision_points(events[:end])[point.number], 9, SMALL)
    changed = evaluate(decision_points(copy)[point.number], 9, SMALL)
    assert original == changed


# --- labels ------------------------------------------------------------------------------


class WentOut:
    """A greedy player that, on one chosen turn, ends it out of the round although a turn staying in existed."""

    def __init__(self, rng: random.Random, on_turn: int) -> None:
        self.greedy = GreedyBot(rng)
        self.turns = 0
        self.on_turn = on_turn
        self.planted = 0

    def plan(self, pos: Position) -> Sequence[Step]:
        self.turns += 1
        if self.turns >= self.on_turn and not self.planted and not pos.played:
            plans = walk(pos, losing=True)
            if any(p.outcome is Outcome.WIN for p in plans):
                self.planted += 1
                # Ending the turn not winning (docs/rules.md 17), else folding (docs/rules.md 15).
                ends = [p.steps for p in plans if p.outcome is Outcome.LOSE and isinstance(p.steps[-1], EndTurn)]
                return ends[0] if ends and self.turns % 2 else (Fold(),)
        return self.greedy.plan(pos)


def test_every_planted_went_out_turn_is_labelled_a_blunder() -> None:
    planted = 0
    for seed in range(4):
        rng = random.Random(seed)
        bots = [WentOut(rng, on_turn=2 + seed), GreedyBot(rng), GreedyBot(rng)]
        record = play_game(bots, action_rules=seed % 2 == 0, seed=seed)
        analysis = analyse(record.events, 1, SMALL)
        outs = [d for d in analysis.decisions if d.went_out]
        assert len(outs) == bots[0].planted
        assert all(d.label == "blunder" and d.seat == 0 for d in outs)
        planted += bots[0].planted
    assert planted >= 3


def test_a_random_player_is_labelled_more_often_than_a_greedy_one() -> None:
    rng = random.Random(4)
    record = play_game([RandomBot(rng), GreedyBot(rng)], action_rules=True, seed=4)
    analysis = analyse(record.events, 2, Budget(worlds=16, candidates=4, refine=4))
    random_seat, greedy_seat = analysis.summaries
    assert sum(random_seat.counts.values()) > sum(greedy_seat.counts.values())
    assert random_seat.accuracy is not None and greedy_seat.accuracy is not None
    assert random_seat.accuracy < greedy_seat.accuracy


def test_labels_agree_across_two_analysis_seeds() -> None:
    """A regression guard on one expert game; bench/analysis_bench.py measures the 95% target over many."""
    bots = [ExpertBot(random.Random(seat), iterations=10) for seat in range(2)]
    events = play_game(bots, action_rules=True, seed=23).events
    one = analyse(events, 1, DEFAULT_BUDGET)
    two = analyse(events, 2, DEFAULT_BUDGET)
    same = sum(a.label == b.label for a, b in zip(one.decisions, two.decisions, strict=True))
    assert same >= 0.9 * len(one.decisions)


def test_a_label_needs_the_drop_and_twice_its_standard_error() -> None:
    events = _game(3, 5)
    for d in analyse(events, 3, SMALL).decisions:
        if d.went_out:
            continue
        if d.label is None:
            assert d.delta < 5 or d.delta <= 2 * d.se
        else:
            assert d.delta > 2 * d.se
            assert d.delta >= {"inaccuracy": 5, "mistake": 10, "blunder": 15}[d.label]


# --- numbers -----------------------------------------------------------------------------


@given(st.floats(0, 100), st.floats(0, 100))
def test_move_accuracy_falls_with_the_drop_and_stays_within_0_and_100(x: float, y: float) -> None:
    low, high = sorted((x, y))
    assert 0 <= move_accuracy(high) <= move_accuracy(low) <= 100
    assert move_accuracy(0) == 100


def test_move_accuracy_is_lichess_formula() -> None:
    assert abs(move_accuracy(10) - (103.1668 * 2.718281828459045 ** (-0.4354) - 3.1669)) < 1e-9
    assert move_accuracy(-3) == 100
    assert move_accuracy(90) == 0


def test_game_accuracy_is_100_for_no_drops_and_lower_with_one() -> None:
    wins = [50.0, 55.0, 40.0, 60.0, 45.0]
    assert game_accuracy(wins, [0, 0, 0, 0]) == 100
    accuracy = game_accuracy(wins, [0, 30, 0, 0])
    assert accuracy is not None and accuracy < 100
    assert game_accuracy([50.0], []) is None


def _round_end(players: int, data: st.DataObject, most: int = 6) -> tuple[int, int, list[int], list[int]]:
    """A round's end drawn by hypothesis: its winner, the final rule, the palettes and the score piles before it."""
    cards = data.draw(st.permutations(list(iter_cards(FULL_MASK))))
    scored = [0] * players
    at = 0
    for seat in range(players):
        take = data.draw(st.integers(0, most))
        for card in cards[at : at + take]:
            scored[seat] |= 1 << card
        at += take
    palettes = [1 << cards[at + seat] for seat in range(players)]
    return data.draw(st.integers(0, players - 1)), data.draw(st.integers(0, 6)), palettes, scored


@given(players=st.integers(2, 4), data=st.data())
def test_the_win_chances_of_all_seats_sum_to_one(players: int, data: st.DataObject) -> None:
    winner, rule, palettes, scored = _round_end(players, data)
    total = sum(win_chance(me, winner, rule, palettes, scored, True) for me in range(players))
    assert abs(total - 1) < 1e-9


@given(players=st.integers(2, 4), most=st.sampled_from((6, 12)), data=st.data())
def test_place_shares_are_a_standing_every_pair_of_seats_splits(players: int, most: int, data: st.DataObject) -> None:
    """Each pair of seats shares one "finished ahead": the shares lie in [0, 1] and sum to half the seats."""
    winner, rule, palettes, scored = _round_end(players, data, most)
    shares = [place_share(me, winner, rule, palettes, scored, True) for me in range(players)]
    assert all(-1e-9 <= share <= 1 + 1e-9 for share in shares)
    assert abs(sum(shares) - players / 2) < 1e-9


@given(data=st.data(), advanced=st.booleans())
def test_with_two_players_the_place_share_is_the_win_chance(data: st.DataObject, advanced: bool) -> None:
    winner, rule, palettes, scored = _round_end(2, data, 12)
    for me in range(2):
        share = place_share(me, winner, rule, palettes, scored, advanced)
        assert abs(share - win_chance(me, winner, rule, palettes, scored, advanced)) < 1e-9


def test_with_two_players_the_drop_in_place_share_is_the_drop_in_win_chance() -> None:
    analysis = analyse(_game(2, 8), 4, SMALL)
    assert analysis.decisions
    for d in analysis.decisions:
        assert abs(d.place_delta - d.delta) < 1e-9 and abs(d.place_se - d.se) < 1e-9
    assert all(s.accuracy == s.win_accuracy for s in analysis.summaries)


def test_a_three_player_game_measures_drops_in_place_share() -> None:
    analysis = analyse(_game(3, 12), 4, SMALL)
    assert all(d.place_delta >= 0 and d.place_se >= 0 for d in analysis.decisions)
    assert any(d.place_delta > 0 for d in analysis.decisions)
    assert all(d.loss == d.place_delta for d in analysis.decisions)


def test_accuracy_counts_a_drop_in_place_share_where_the_win_chance_hardly_moves() -> None:
    """A seat that can no longer win still plays for its place: throwing that away costs accuracy."""
    seat = 1
    flat = [Evaluation(n, n, seat, 1, (Fold(),), (Fold(),), 0.01, 0.01, 0.0, 0.0, None, False, 3, False) for n in range(6)]
    careless = [dataclasses.replace(d, place_delta=20.0, place_se=2.0) if d.number % 2 else d for d in flat]
    assert summarise(3, None, flat)[seat].accuracy == 100
    careless_accuracy = summarise(3, None, careless)[seat].accuracy
    assert careless_accuracy is not None and careless_accuracy < 80
    assert summarise(3, None, careless)[seat].win_accuracy == 100, "of winning it gave away nothing"
    assert summarise(3, None, careless)[seat].counts == dict.fromkeys(("inaccuracy", "mistake", "blunder"), 0)
