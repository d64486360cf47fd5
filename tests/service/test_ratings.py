"""The ratings' model, pure (no Redis): the standing of a finished game, the update, and a ladder as a fold."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Event, Variant
from engine.bots import GreedyBot, RandomBot
from engine.selfplay import play_game
from service.game import Game, decode, event_envelope, load
from service.lobby import GameCreated, LobbyEvent, SeatResigned, SeatSpec, SeatTaken, TurnTimedOut
from service.lobby import event_to_dict as lobby_event_to_dict
from service.ratings import (
    NEW,
    PROVISIONAL_SIGMA,
    Applied,
    Ladder,
    Placing,
    Rating,
    Record,
    Result,
    apply,
    exact,
    fold,
    insert,
    is_rated,
    rate,
    result_of,
    standing,
)

AT = "2026-05-01T12:00:00.000Z"


def played(
    seats: list[SeatSpec], *, variant: Variant, seed: int, rated: bool = True, dealing: str = "random"
) -> tuple[Game, list[dict]]:
    """A finished game folded as the service folds it, and its history as decoded envelopes (bots play every seat)."""
    created = GameCreated("p_creator", tuple(seats), variant.value, False, None, "fold", dealing, seed, None, "", rated=rated)
    lobby: list[LobbyEvent] = [created]
    lobby += [SeatTaken(n, f"p_{n}", f"P{n}") for n, s in enumerate(seats) if s.kind == "human"]
    rng = random.Random(seed)
    bots = [GreedyBot(rng) if (s.level or "greedy") == "greedy" else RandomBot(rng) for s in seats]
    record = play_game(bots, variant=variant, seed=seed)
    events: list[LobbyEvent | Event] = [*lobby, *record.events]
    payloads = [(n + 1, event_envelope(e, at=AT, by="test")) for n, e in enumerate(events)]
    return load("g_test", payloads), [decode(p) for _, p in payloads]


def result(game_id: str, at_ms: int, *places: tuple[str, int]) -> Result:
    at = datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    names = (f"{p.upper()} in {game_id}" for p, _ in places)  # a player's name may change from game to game
    return Result(
        game_id,
        "advanced",
        at,
        tuple(Placing(n, p, name, place) for n, ((p, place), name) in enumerate(zip(places, names, strict=True))),
    )


# --- the standing ----------------------------------------------------------------------------------------------


def test_the_basic_game_places_the_winner_then_who_stayed_in_the_round_longest():
    game, history = played([SeatSpec("human")] * 4, variant=Variant.BASIC, seed=11)
    out = [e["seat"] for e in history if e["type"] == "player_eliminated"]
    assert len(out) == 3
    places = [place for place, _ in standing(game, history)]
    assert places[game.state.winner] == 1
    assert [places[seat] for seat in reversed(out)] == [2, 3, 4], "the last one out is second, the first one out last"


def test_the_advanced_game_places_by_points_then_the_highest_scored_card():
    for seed in range(8):
        game, history = played([SeatSpec("human")] * 3, variant=Variant.ADVANCED, seed=seed)
        state = game.state
        keys = [(state.score(s), state.scored[s].bit_length()) for s in range(3)]
        places = [place for place, _ in standing(game, history)]
        assert places[state.winner] == 1, "the engine's winner is first"
        for a in range(3):
            for b in range(3):
                if keys[a] > keys[b]:
                    assert places[a] < places[b]
                if keys[a] == keys[b]:
                    assert places[a] == places[b], "only players who scored nothing tie (rule 25 breaks the others)"


def test_resigning_or_timing_out_places_you_last_and_such_players_share_the_place():
    game, history = played([SeatSpec("human")] * 4, variant=Variant.BASIC, seed=5)
    forfeits = [lobby_event_to_dict(SeatResigned(0, "greedy")), lobby_event_to_dict(TurnTimedOut(2, "fold"))]
    places = standing(game, [*history[:6], *forfeits, *history[6:]])
    assert places[0] == places[2] == (3, True), "both last, sharing the place"
    assert sorted(p for p, _ in places) == [1, 2, 3, 3]
    assert not places[1][1] and not places[3][1]


def test_only_finished_rated_randomly_dealt_games_count():
    seats = [SeatSpec("ai", "greedy"), SeatSpec("ai", "random")]
    game, history = played(seats, variant=Variant.BASIC, seed=3)
    assert is_rated(game) and result_of(game, history) is not None
    unrated, history = played(seats, variant=Variant.BASIC, seed=3, rated=False)
    assert not is_rated(unrated) and result_of(unrated, history) is None
    seeded, history = played(seats, variant=Variant.BASIC, seed=3, dealing="seeded")
    assert not is_rated(seeded), "a creator who chose the seed could know every hand"
    one_level, history = played([SeatSpec("ai", "greedy")] * 2, variant=Variant.BASIC, seed=3)
    assert result_of(one_level, history) is None, "a level against itself rates nobody"


def test_a_result_names_ai_seats_by_level_and_humans_by_id():
    game, history = played([SeatSpec("human"), SeatSpec("ai", "greedy"), SeatSpec("ai", "random")], variant=Variant.BASIC, seed=2)
    found = result_of(game, history)
    assert found is not None and found.ladder == "basic"
    assert [p.player for p in found.seats] == ["p_0", "ai:greedy", "ai:random"]


# --- the update ------------------------------------------------------------------------------------------------

ratings = st.builds(lambda mu, sigma: Rating(exact(mu), exact(sigma)), st.floats(5, 45), st.floats(0.5, 8.5))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "ai:greedy"]), st.integers(1, 4)), min_size=2, max_size=4),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d", "ai:greedy"]), ratings),
    st.randoms(use_true_random=False),
)
def test_the_order_of_the_seats_never_matters_beyond_their_places(places, before, rng):
    if len({p for p, _ in places}) < 2:
        return
    shuffled = list(places)
    rng.shuffle(shuffled)
    assert rate(places, before) == rate(shuffled, before)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 4), st.data())
def test_equal_players_who_tie_move_together(players, data):
    tied = data.draw(st.integers(2, players))
    places = [(f"p{n}", 1 if n < tied else n + 1) for n in range(players)]
    after = rate(places, {})
    assert len({after[f"p{n}"] for n in range(tied)}) == 1, "tied players with equal ratings end equal"
    if tied < players:
        assert after["p0"].mu > after[f"p{players - 1}"].mu


def test_a_win_raises_and_a_loss_lowers_and_every_number_is_exact():
    after = rate([("a", 1), ("b", 2)], {})
    assert after["a"].mu > NEW.mu > after["b"].mu
    for rating in after.values():
        assert rating.mu == exact(rating.mu) and rating.sigma == exact(rating.sigma)
        assert float(f"{rating.mu:.6f}") == rating.mu


def test_an_ai_level_seated_twice_takes_both_seats_changes():
    after = rate([("ai:greedy", 1), ("ai:random", 2), ("ai:greedy", 3)], {})
    alone = rate([("ai:greedy", 1), ("ai:random", 2)], {})
    assert after["ai:greedy"].sigma < NEW.sigma
    assert abs(after["ai:greedy"].mu - NEW.mu) < abs(alone["ai:greedy"].mu - NEW.mu), "a first and a last place: nearly even"


def test_a_rating_is_provisional_for_about_twenty_games_of_two_and_thirty_of_four():
    """The threshold documented in service/ratings.py: how many games of equal players bring σ below it."""
    for players, low, high in ((2, 15, 30), (4, 20, 45)):
        rng = random.Random(players)
        ladder: dict[str, Rating] = {}
        games = 0
        while games == 0 or ladder["p0"].provisional:
            places = list(range(1, players + 1))
            rng.shuffle(places)
            ladder.update(rate([(f"p{n}", place) for n, place in enumerate(places)], ladder))
            games += 1
        assert low <= games <= high, (players, games)
        assert ladder["p0"].sigma < PROVISIONAL_SIGMA
    assert NEW.provisional and NEW.shown == 1000


# --- a ladder as a fold ----------------------------------------------------------------------------------------


def results_strategy() -> st.SearchStrategy[list[Result]]:
    game = st.tuples(
        st.integers(0, 40),  # when it finished (ms): equal times are ordered by game id
        st.lists(
            st.tuples(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(1, 4)),
            min_size=2,
            max_size=4,
            unique_by=lambda t: t[0],
        ),
    )
    return st.lists(game, min_size=1, max_size=12).map(
        lambda games: [result(f"g{n:02d}", ms, *places) for n, (ms, places) in enumerate(games)]
    )


@settings(max_examples=80, deadline=None)
@given(results_strategy(), st.randoms(use_true_random=False))
def test_a_ladder_is_the_fold_in_finish_order_whatever_order_games_arrive_in(results, rng):
    """What the projection does when a game that finished earlier is applied after later ones (insert rewinds them)."""
    expected = fold(results)["advanced"].stored()
    arrived = list(results)
    rng.shuffle(arrived)
    ladder = Ladder("advanced")
    for item in arrived:
        ladder.add(item)
    assert ladder.stored() == expected
    assert fold([*arrived, *arrived])["advanced"].stored() == expected, "a game folded twice counts once"


def test_the_stored_forms_read_back_as_they_were():
    applied = apply(result("g1", 5, ("a", 1), ("b", 2), ("a", 3)), {"a": Rating(30.5, 4.25)})
    assert Applied.from_text("g1", "advanced", applied.to_text()) == applied
    record = Record("Ana", Rating(26.1, 7.7), 3, 1, 6, {2: [1, 1, 1], 3: [2, 0, 5]})
    assert Record.from_text(record.to_text()).to_text() == record.to_text()


def test_insert_returns_the_later_games_applied_again_on_the_new_one():
    first, second = result("g1", 10, ("a", 1), ("b", 2)), result("g2", 20, ("a", 2), ("c", 1))
    ladder = Ladder("advanced")
    ladder.add(second)
    games, records = insert(first, ladder.records, [ladder.games["g2"]])
    assert [g.result.game_id for g in games] == ["g1", "g2"]
    assert games[1].before["a"] == games[0].after["a"], "g2 starts from what g1 left"
    assert records["a"].played == 2 and records["b"].played == 1 and records["c"].played == 1
