"""Invariants over random games in every variant and player count (hypothesis).

Each example plays a whole game with uniformly random legal steps, checking
at every step: all 49 cards are accounted for; the fold of the events so far
equals the state reached step by step; every listed step is accepted and
unlisted ones are refused; no seat's view or event feed shows a card it may
not see.  And every game ends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_CARDS,
    CardDrawn,
    CardPlaced,
    CardTaken,
    DealRound,
    Destination,
    Discard,
    DrawCause,
    EndTurn,
    Event,
    Fold,
    GameState,
    Phase,
    Place,
    Play,
    RuleViolation,
    ScoreRound,
    Start,
    Take,
    Variant,
    decide,
    decide_steps,
    event_from_dict,
    event_to_dict,
    fold,
    legal_steps,
    redact,
    view,
    visible_cards,
)
from engine.cards import FULL_MASK, mask_of
from engine.legal import position_from_view, position_of, simple_turns, turn_steps, walk
from engine.rules import qualifying_mask, strength, strengths
from engine.steps import Step

games = st.tuples(
    st.integers(2, 4),
    st.sampled_from(list(Variant)),
    st.booleans(),
    st.integers(0, 2**32),
)
GAME_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


Moment = tuple[GameState, list[Event], list[Event]]


def random_game(players: int, variant: Variant, action_rules: bool, seed: int) -> Iterator[Moment]:
    """Yield (state, all events so far, the events of the last step) along a random game."""
    rng = random.Random(seed)
    events = decide(GameState(), Start(players, variant, action_rules, seed))
    state = fold(events)
    yield state, events, events
    for _ in range(5000):
        if state.phase is Phase.FINISHED:
            return
        if state.phase is Phase.ROUND_WON:
            new = decide(state, ScoreRound())
        elif state.phase is Phase.ROUND_SCORED:
            new = decide(state, DealRound())
        else:
            options = legal_steps(state)
            # Folding is always listed; pick it rarely so that rounds run their course.
            choices = [o.step for o in options if not isinstance(o.step, Fold)] or [Fold()]
            new = decide(state, rng.choice(choices), state.turn.seat)
        state = fold(new, state)
        events = events + new
        yield state, events, new
    raise AssertionError("the game did not end within 5000 decisions")


def accounted(state: GameState) -> None:
    masks = [*state.hands, *state.palettes, *state.out, *state.scored, mask_of(state.canvas), mask_of(state.deck)]
    total = sum(m.bit_count() for m in masks)
    union = 0
    for m in masks:
        union |= m
    assert union == FULL_MASK and total == 49, "cards are missing or duplicated"
    assert len(state.canvas) + len(state.deck) == mask_of(state.canvas).bit_count() + mask_of(state.deck).bit_count()


@GAME_SETTINGS
@given(games)
def test_every_card_is_accounted_for_and_games_end(game):
    last = None
    for state, _, _ in random_game(*game):
        accounted(state)
        last = state
    assert last is not None and last.phase is Phase.FINISHED and last.winner is not None


@GAME_SETTINGS
@given(games)
def test_fold_of_a_prefix_is_the_state_reached_step_by_step(game):
    for state, events, _ in random_game(*game):
        assert fold(events) == state


def candidate_steps(state: GameState) -> list[Step]:
    """Plenty of steps, legal or not, for the seat to move."""
    out: list[Step] = [EndTurn(), Fold()]
    for card in ALL_CARDS:
        out += [Play(card), Discard(card), Place(card, Destination.DECK), Place(card, Destination.CANVAS)]
        out += [Take(seat, card) for seat in range(state.players)]
    return out


def same_step(a: Step, b: Step) -> bool:
    """A discard is the same step whether or not it takes the draw (``draw`` is a choice, not a step)."""
    if isinstance(a, Discard) and isinstance(b, Discard):
        return a.card == b.card
    return a == b


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_listed_steps_are_accepted_and_the_rest_refused(game):
    rng = random.Random(game[3])
    for state, _, _ in random_game(*game):
        if state.phase is not Phase.TURN:
            continue
        seat = state.turn.seat
        listed = [o.step for o in legal_steps(state)]
        for listed_step in listed:
            decide(state, listed_step, seat)  # must not raise
        unlisted = [c for c in candidate_steps(state) if not any(same_step(c, s) for s in listed)]
        for wrong in rng.sample(unlisted, min(25, len(unlisted))):
            try:
                decide(state, wrong, seat)
            except RuleViolation:
                pass
            else:
                raise AssertionError(f"{wrong} is not listed but was accepted")
        other = (seat + 1) % state.players
        try:
            decide(state, listed[0], other)
        except RuleViolation as refusal:
            assert refusal.code == "not_your_turn"
        else:
            raise AssertionError("a step out of turn was accepted")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_the_draws_flag_says_exactly_which_steps_end_a_batch(game):
    """A listed step flagged ``draws`` draws a card, and then no step may follow it; one not flagged never draws."""
    for state, _, _ in random_game(*game):
        if state.phase is not Phase.TURN:
            continue
        seat = state.turn.seat
        for option in legal_steps(state):
            events = decide(state, option.step, seat)
            assert any(isinstance(e, CardDrawn) for e in events) == option.draws, option
            if option.draws and not option.ends_turn:
                try:
                    decide_steps(state, [option.step, Fold()], seat)
                except RuleViolation as refusal:
                    assert refusal.code == "step_after_draw" and refusal.details["step"] == 1
                else:
                    raise AssertionError(f"a step was accepted after {option.step}, which draws")


def secrets_of(state: GameState, seat: int | None) -> set:
    """Cards ``seat`` may not see right now: other hands, the deck, cards folded face down."""
    hidden = 0
    for other in range(state.players):
        if other != seat:
            hidden |= state.hands[other]
        hidden |= state.out[other]
    hidden |= mask_of(state.deck)
    return {c for c in ALL_CARDS if hidden >> c & 1}


def view_cards(v) -> set:
    found = set(v.canvas)
    for s in v.seats:
        found |= set(s.palette) | set(s.scored)
    if v.hand:
        found |= set(v.hand)
    for option in v.legal:
        card = getattr(option.step, "card", None)
        if card is not None:
            found.add(card)
    return found


@GAME_SETTINGS
@given(games)
def test_views_and_redacted_events_never_show_a_secret(game):
    for state, _, new in random_game(*game):
        if state.phase is Phase.FINISHED:
            return
        for seat in [*range(state.players), None]:
            secret = secrets_of(state, seat)
            assert not view_cards(view(state, seat)) & secret
            for event in new:
                if isinstance(event, CardTaken | CardPlaced):
                    continue  # the card was on a palette, in plain sight, when it moved
                shown = visible_cards(redact(event, seat))
                assert not shown & secret, f"{event} shows {shown & secret} to seat {seat}"


@GAME_SETTINGS
@given(games)
def test_a_view_without_legal_steps_is_the_view_less_them_and_the_bots_search_the_same_position(game):
    for state, _, _ in random_game(*game):
        if state.phase is not Phase.TURN:
            continue
        seat = state.turn.seat
        full, bare = view(state, seat), view(state, seat, legal=False)
        assert bare.legal == () and replace(full, legal=()) == bare
        assert position_from_view(bare) == position_from_view(full) == position_of(state)


@GAME_SETTINGS
@given(games)
def test_events_survive_serialisation(game):
    for _, _, new in random_game(*game):
        for event in new:
            assert event_from_dict(event_to_dict(event)) == event
            for seat in (0, None):
                hidden = redact(event, seat)
                assert event_from_dict(event_to_dict(hidden)) == hidden


@settings(max_examples=10, deadline=None)
@given(games)
def test_the_fast_turn_list_equals_the_full_search(game):
    players, variant, _, seed = game
    for state, _, _ in random_game(players, variant, False, seed):
        if state.phase is Phase.TURN:
            pos = position_of(state)
            fast = sorted(repr(turn_steps(t)) for t in simple_turns(pos))
            full = sorted(repr(p.steps) for p in walk(pos, draw_choices=True))
            assert fast == full


palettes = st.sets(st.sampled_from(ALL_CARDS), max_size=14).map(mask_of)


@given(palettes)
def test_one_pass_strengths_equal_the_qualifying_sets(mask):
    for color in range(7):
        q = qualifying_mask(mask, color)
        assert strengths(mask)[color] == (q.bit_count() << 6 | q.bit_length()) == strength(mask, color)


@given(palettes, st.integers(0, 6))
def test_qualifying_cards_are_a_subset_of_the_palette(mask, color):
    q = qualifying_mask(mask, color)
    assert q & mask == q
    assert (q == 0) == (strength(mask, color) == 0)


def test_drawn_cards_stay_hidden_from_everyone_else():
    event = CardDrawn(1, ALL_CARDS[5], DrawCause.THREE)
    assert redact(event, 0).card is None and redact(event, None).card is None
    assert redact(event, 1).card == ALL_CARDS[5]
    assert redact(event, 0, game_over=True).card == ALL_CARDS[5]
