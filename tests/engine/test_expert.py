"""The expert bot: honest inputs, legal output, reproducible with an iteration budget, on time with a clock.

The expert must decide from its seat's view and redacted history alone.  The
strongest check of that is behavioural: two different true games that look
the same to the seat (one hidden card of an opponent's hand exchanged with a
hidden deck card from the deal on) must get the same plan from the same seed.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections.abc import Iterator

import pytest

from engine import (
    CardDrawn,
    CorruptHistory,
    DrawCause,
    Event,
    Fold,
    GameState,
    Phase,
    Play,
    RoundDealt,
    TurnStarted,
    Variant,
    decide_steps,
    fold,
    redact,
    view,
)
from engine.bots import BOTS, GreedyBot, RandomBot
from engine.expert import ExpertBot, read_belief, sample_state
from engine.legal import Outcome, position_of, walk
from engine.projection import View
from engine.selfplay import play_game
from engine.state import apply_in_place
from tests.engine.tables import dealt

CONFIGS = [(n, variant, actions) for n in (2, 3, 4) for variant in Variant for actions in (False, True)]

Moment = tuple[GameState, list[Event]]


def decision_points(players: int, variant: Variant, action_rules: bool, seed: int) -> Iterator[Moment]:
    """(state, events so far) wherever a seat is about to decide, along a game between random bots."""
    rng = random.Random(seed)
    record = play_game([RandomBot(rng) for _ in range(players)], variant=variant, action_rules=action_rules, seed=seed)
    state = GameState()
    for index, event in enumerate(record.events):
        apply_in_place(state, event)
        deciding = isinstance(event, TurnStarted | RoundDealt) or (
            isinstance(event, CardDrawn) and event.cause is DrawCause.THREE
        )
        if deciding and state.phase is Phase.TURN:
            yield state.copy(), record.events[: index + 1]


def seat_inputs(state: GameState, events: list[Event]) -> tuple[View, list[Event]]:
    seat = state.turn.seat  # type: ignore[union-attr]
    return view(state, seat), [redact(e, seat) for e in events]


def spread(moments: list[Moment], count: int) -> list[Moment]:
    step = max(1, len(moments) // count)
    return moments[::step][:count]


# --- (a) honesty ----------------------------------------------------------------------------------


def look_alike(state: GameState, events: list[Event]) -> tuple[GameState, list[Event]] | None:
    """The same game with a card of another hand and an unseen deck card exchanged in the deal.

    The exchanged hand card was dealt and never left the hand; the deck card is
    the original bottom card, still in the deck.  ``None`` where no such pair exists.
    """
    seat = state.turn.seat  # type: ignore[union-attr]
    start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    deal = events[start]
    assert isinstance(deal, RoundDealt) and deal.deck is not None
    if not state.deck or not deal.deck or state.deck[0] != deal.deck[-1]:
        return None
    bottom = state.deck[0]
    for other in range(state.players):
        hand = deal.hands[other]
        assert hand is not None
        if other == seat or not state.in_round[other]:
            continue
        for card in hand:
            if state.hands[other] & (1 << card):
                hands = list(deal.hands)
                hands[other] = tuple(bottom if c == card else c for c in hand)
                deck = tuple(card if c == bottom else c for c in deal.deck)
                changed = [*events[:start], dataclasses.replace(deal, hands=tuple(hands), deck=deck), *events[start + 1 :]]
                try:
                    return fold(changed), changed
                except CorruptHistory:
                    continue  # the card went through public hands: not a hidden difference
    return None


@pytest.mark.parametrize(
    ("players", "variant", "actions"),
    [(2, Variant.ADVANCED, False), (3, Variant.ADVANCED, True), (2, Variant.BASIC, True), (4, Variant.BASIC, False)],
)
def test_same_view_same_plan(players: int, variant: Variant, actions: bool) -> None:
    compared = 0
    for state, events in spread(list(decision_points(players, variant, actions, seed=11)), 6):
        other = look_alike(state, events)
        if other is None:
            continue
        twin, twin_events = other
        seat = state.turn.seat  # type: ignore[union-attr]
        assert twin.hands != state.hands and twin.deck != state.deck  # two different true games ...
        seen, history = seat_inputs(state, events)
        twin_seen, twin_history = seat_inputs(twin, twin_events)
        assert (twin_seen, twin_history) == (seen, history)  # ... that the seat cannot tell apart
        plan = ExpertBot(random.Random(3), iterations=3).plan_view(seen, history)
        twin_plan = ExpertBot(random.Random(3), iterations=3).plan_view(twin_seen, twin_history)
        assert twin_plan == plan, f"seat {seat} planned differently in two games it cannot tell apart"
        compared += 1
    assert compared >= 2


def test_exchange_in_a_custom_deal_gives_the_same_plan() -> None:
    # Seat 1 holds I3, the deck's bottom card is G5; the twin deal swaps them.  Seat 0 (first: seat 1
    # has the higher palette card) sees neither.
    hands = ["R6 O4 Y2 G7 B3 I1 V5", "I3 R1 O2 Y4 G6 B7 V2"]
    a, a_events = dealt(hands, ["B2", "O3"], deck="R2 O6 Y5 B4 G5", action_rules=True)
    b, b_events = dealt([hands[0], "G5 R1 O2 Y4 G6 B7 V2"], ["B2", "O3"], deck="R2 O6 Y5 B4 I3", action_rules=True)
    assert a.turn == b.turn == a.turn._replace(seat=0)  # type: ignore[union-attr]
    assert a.hands[1] != b.hands[1]
    seen, history = seat_inputs(a, a_events)
    assert seat_inputs(b, b_events) == (seen, history)
    plan = ExpertBot(random.Random(1), iterations=4).plan_view(seen, history)
    assert ExpertBot(random.Random(1), iterations=4).plan_view(*seat_inputs(b, b_events)) == plan


def test_the_planning_call_takes_only_a_view_and_events() -> None:
    signature = inspect.signature(ExpertBot.plan_view)
    assert list(signature.parameters) == ["self", "seen", "history"]
    assert signature.parameters["seen"].annotation == "View"
    assert signature.parameters["history"].annotation == "Sequence[Event]"
    assert not hasattr(ExpertBot, "plan")  # no door for a Position or a state


def test_a_game_state_or_unredacted_history_is_refused() -> None:
    state, events = next(decision_points(2, Variant.ADVANCED, False, seed=5))
    seen, history = seat_inputs(state, events)
    bot = ExpertBot(random.Random(0), iterations=1)
    with pytest.raises(TypeError):
        bot.plan_view(state, history)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not redacted"):
        bot.plan_view(seen, events)  # the raw deal shows every hand
    with pytest.raises(ValueError, match="spectator"):
        bot.plan_view(view(state, None), history)
    other = 1 - state.turn.seat  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="turn"):
        bot.plan_view(view(state, other), [redact(e, other) for e in events])
    with pytest.raises(TypeError):
        bot.plan_view(seen, [*history, "R7"])  # type: ignore[list-item]


def test_self_play_hands_the_expert_only_its_view_and_redacted_events() -> None:
    calls: list[tuple[View, tuple[Event, ...]]] = []

    class Spy(ExpertBot):
        def plan_view(self, seen, history):  # type: ignore[no-untyped-def]
            calls.append((seen, tuple(history)))
            return super().plan_view(seen, history)

    rng = random.Random(4)
    play_game([GreedyBot(rng), Spy(rng, iterations=1)], variant=Variant.BASIC, action_rules=True, seed=8)
    assert calls
    for seen, history in calls:
        assert isinstance(seen, View) and seen.viewer == 1
        assert all(isinstance(e, Event) and redact(e, 1) == e for e in history)
        assert all(not isinstance(e, RoundDealt) or (e.deck is None and e.hands[0] is None) for e in history)


def test_samples_are_states_the_seat_cannot_tell_from_the_real_one() -> None:
    rng = random.Random(2)
    checked = known = 0
    for players, variant, actions in CONFIGS:
        for state, events in spread(list(decision_points(players, variant, actions, seed=players)), 8):
            seen, history = seat_inputs(state, events)
            belief = read_belief(seen, history)
            for slot, card in zip(belief.deck, state.deck, strict=True):  # what is known of the deck is true
                assert slot is None or slot == card
                known += slot is not None
            for seat, mask in enumerate(belief.known):
                assert state.hands[seat] & mask == mask
            sample = sample_state(seen, belief, rng)
            assert dataclasses.replace(view(sample, seen.viewer), custom_deal=seen.custom_deal) == seen
            assert sample.hands[seen.viewer] == state.hands[seen.viewer]
            assert sample.palettes == state.palettes and sample.canvas == state.canvas
            checked += 1
    assert checked >= 50 and known > 0


# --- (b) legal steps only ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "variant", "actions"), CONFIGS)
def test_only_legal_steps(players: int, variant: Variant, actions: bool) -> None:
    bot = ExpertBot(random.Random(players), iterations=2)
    for state, events in spread(list(decision_points(players, variant, actions, seed=100 + players)), 5):
        seat = state.turn.seat  # type: ignore[union-attr]
        steps = bot.plan_view(*seat_inputs(state, events))
        _, after = decide_steps(state, list(steps), seat)  # raises RuleViolation on anything illegal
        keeps_in = [p for p in walk(position_of(state)) if p.outcome is not Outcome.LOSE]
        if steps == (Fold(),):
            assert not keeps_in  # it folds only when every turn loses
        elif not (isinstance(steps[-1], Play) and after.turn is not None and after.turn.seat == seat):
            assert after.in_round[seat] or after.round_winner == seat  # a full turn never knocks itself out


@pytest.mark.parametrize(
    ("players", "variant", "actions"), [(2, Variant.ADVANCED, True), (3, Variant.BASIC, True), (4, Variant.BASIC, False)]
)
def test_whole_games_through_self_play(players: int, variant: Variant, actions: bool) -> None:
    rng = random.Random(players)
    bots = [ExpertBot(rng, iterations=1), *[GreedyBot(rng) for _ in range(players - 1)]]
    record = play_game(bots, variant=variant, action_rules=actions, seed=21)
    assert record.final is not None and record.final.phase is Phase.FINISHED


def test_registered_and_runs_from_the_simulate_command(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.simulate import main

    assert BOTS["expert"] is ExpertBot
    main(["--bots", "expert,greedy", "--players", "2", "--games", "1", "--variant", "basic", "--expert-seconds", "0.005"])
    assert "bots expert,greedy" in capsys.readouterr().out


# --- (c) determinism ---------------------------------------------------------------------------------


def test_an_iteration_budget_is_deterministic() -> None:
    moments = spread(list(decision_points(3, Variant.ADVANCED, True, seed=9)), 4)
    for state, events in moments:
        seen, history = seat_inputs(state, events)
        first = ExpertBot(random.Random(12), iterations=5).plan_view(seen, history)
        assert ExpertBot(random.Random(12), iterations=5).plan_view(seen, history) == first

    def game() -> list[Event]:
        rng = random.Random(6)
        return play_game([ExpertBot(rng, iterations=2), RandomBot(rng)], variant=Variant.BASIC, action_rules=True, seed=3).events

    assert game() == game()


def test_an_iteration_budget_never_reads_the_clock() -> None:
    def clock() -> float:
        raise AssertionError("the clock was read")

    state, events = spread(list(decision_points(2, Variant.ADVANCED, False, seed=4)), 3)[1]
    ExpertBot(random.Random(0), iterations=3, clock=clock).plan_view(*seat_inputs(state, events))


# --- (d) the time budget ---------------------------------------------------------------------------------


class FakeClock:
    """Time that moves one tick per reading: the bot's work is measured in readings."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def busy_moment() -> tuple[View, list[Event]]:
    """A decision with many candidate turns, so that the search does not end early."""
    for state, events in decision_points(2, Variant.ADVANCED, False, seed=13):
        if len(walk(position_of(state))) >= 20:
            return seat_inputs(state, events)
    raise AssertionError("no busy decision in the game")


def test_stops_at_the_time_budget() -> None:
    seen, history = busy_moment()
    iterations = []
    for seconds in (0.05, 0.2):
        clock = FakeClock(0.001)
        bot = ExpertBot(random.Random(0), seconds=seconds, clock=clock)
        bot.plan_view(seen, history)
        # One reading starts the budget; the search stops at the first reading past it.
        assert seconds <= clock.now <= seconds + 2 * clock.tick
        iterations.append(bot.report.iterations)
    assert 1 <= iterations[0] < iterations[1]


def test_an_exhausted_budget_still_returns_a_legal_turn() -> None:
    seen, history = busy_moment()
    bot = ExpertBot(random.Random(0), seconds=0.0, clock=FakeClock(1.0))
    steps = bot.plan_view(seen, history)
    assert bot.report.iterations == 0 and steps and steps != (Fold(),)


def test_real_time_budget_roughly_kept() -> None:
    import time

    seen, history = busy_moment()
    started = time.monotonic()
    ExpertBot(random.Random(0), seconds=0.1).plan_view(seen, history)
    assert time.monotonic() - started < 0.6
