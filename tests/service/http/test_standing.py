"""A finished game's standing: every seat in place order, as the rules give it (docs/rules.md 20 and 25).

The game keeps the order in which seats left the round (the engine's state says who is out, not when); the
view of a finished game lists the seats in place order (``standing``).  Checked against what the events say, on
games the engine's bots play out, and through the API; a snapshot written before games kept that order is folded
again from the stream, never read as a game whose eliminations were all forgotten.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest

from engine import Event, GameFinished, PlayerEliminated, RoundDealt, Variant
from engine.bots import GreedyBot, RandomBot
from engine.selfplay import play_game
from service.application.loading import GameLoader
from service.domain.game import Game, apply_event
from service.domain.lobby import Seat
from tests.harness.support import HUMAN, ai, play_out

AT = "2026-11-26T12:00:00.000Z"


def expected_standing(events: Sequence[Event], players: int, variant: Variant) -> list[int]:
    """The places as the events tell them, worked out apart from the game's own fold."""
    finished = next(e for e in events if isinstance(e, GameFinished))
    if variant is Variant.ADVANCED:
        points = [0] * players
        best = [-1] * players  # the highest scored card, as a rank
        for event in events:
            if event.type == "round_scored":
                points[event.seat] += event.points
                best[event.seat] = max([best[event.seat], *(int(card) for card in event.cards)])
        others = sorted((s for s in range(players) if s != finished.winner), key=lambda s: (-points[s], -best[s], s))
        return [finished.winner, *others]
    out: list[int] = []
    for event in events:
        if isinstance(event, RoundDealt):
            out = []
        elif isinstance(event, PlayerEliminated):
            out.append(event.seat)
    assert sorted([finished.winner, *out]) == list(range(players)), "one round: everyone but the winner went out"
    return [finished.winner, *reversed(out)]


def folded(events: Sequence[Event], players: int, variant: Variant, action_rules: bool, seed: int) -> Game:
    game = Game(
        "g_standing",
        seats=[Seat("ai", "random") for _ in range(players)],
        variant=variant,
        action_rules=action_rules,
        dealing="seeded",
        seed=seed,
    )
    for number, event in enumerate(events, start=1):
        assert game.standing() is None, "no standing before the end"
        apply_event(game, number, event, AT)
    return game


@pytest.mark.parametrize("variant", [Variant.BASIC, Variant.ADVANCED])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_standing_is_the_rules_order_of_places(variant: Variant, players: int) -> None:
    not_seat_order = 0
    for seed in range(12):
        rng = random.Random(seed)
        bots = [GreedyBot(rng) if (seed + s) % 2 else RandomBot(rng) for s in range(players)]
        action_rules = seed % 3 == 0
        record = play_game(bots, variant=variant, action_rules=action_rules, seed=seed)
        game = folded(record.events, players, variant, action_rules, seed)
        standing = game.standing()
        assert standing == expected_standing(record.events, players, variant), (seed, record.events[-3:])
        assert standing[0] == game.state.winner and sorted(standing) == list(range(players))
        not_seat_order += standing != list(range(players))
        # A snapshot keeps the order: a game read back from one stands the same.
        assert Game.from_dict(json.loads(json.dumps(game.to_dict()))).standing() == standing
    assert not_seat_order > 0, "the games ranked players in seat order every time: the check proves nothing"


def test_advanced_equal_points_go_to_the_highest_scored_card_and_nothing_scored_follows_in_seat_order() -> None:
    """docs/rules.md 25, on a finished state set by hand: the piles decide between equal scores."""
    from engine.cards import mask_of, parse_cards
    from engine.state import Phase

    game = Game("g_ties", seats=[Seat("ai", "random") for _ in range(4)], variant=Variant.ADVANCED)
    state = game.state
    state.phase, state.winner = Phase.FINISHED, 2
    # Seat 2: R7 (7 points, the winner); seat 3: Y6 + V1 = 7 points, its best card below R7; seats 0 and 1: nothing.
    state.scored = [0, 0, mask_of(parse_cards("R7")), mask_of(parse_cards("Y6 V1"))]
    assert [state.score(s) for s in range(4)] == [0, 0, 7, 7]
    assert game.standing() == [2, 3, 0, 1]


def _feed(api, game_id: str, token: str) -> list[dict]:
    response = api.call("GET", f"/v1/games/{game_id}/events?after=0&limit=500", token)
    assert response.status_code == 200
    return response.get_json()["events"]


def test_a_finished_games_view_lists_its_seats_in_place_order(api) -> None:
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy"), ai("random"), ai("greedy")], variant="basic", seed=3)
    assert api.view(game["id"], ana["token"])["standing"] is None, "no standing while the game is on"
    view = play_out(api, game["id"], ana["token"])
    events = _feed(api, game["id"], ana["token"])
    out = [e["seat"] for e in events if e["type"] == "player_eliminated"]
    assert view["standing"] == [view["winner"], *reversed(out)]
    assert api.view(game["id"])["standing"] == view["standing"], "a spectator sees the same places"

    advanced = api.game(ana["token"], [HUMAN, ai("greedy"), ai("random")], variant="advanced", seed=5)
    view = play_out(api, advanced["id"], ana["token"], moves=2000)
    scores = {seat["seat"]: seat["score"] for seat in view["seats"]}
    assert view["standing"][0] == view["winner"]
    assert [scores[s] for s in view["standing"][1:]] == sorted((scores[s] for s in view["standing"][1:]), reverse=True)


def test_a_snapshot_from_before_games_kept_who_left_when_is_folded_again(api, runtime) -> None:
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy"), ai("greedy")], variant="basic", seed=9)
    view = play_out(api, game["id"], ana["token"])
    stored = runtime.games.load(game["id"]).to_dict()
    assert stored["left_round"], "a finished basic game: seats left the round"
    older = {key: value for key, value in stored.items() if key != "left_round"}  # as the version before wrote it
    runtime.store.drop_snapshot(game["id"])
    runtime.store.save_snapshot(game["id"], stored["version"], json.dumps(older), ttl=60)

    cold = GameLoader(runtime.store)  # another process: nothing cached
    assert cold.load(game["id"]).standing() == view["standing"]
    kept = runtime.store.snapshot(game["id"])
    assert kept is not None and "left_round" in json.loads(kept[1]), "the old snapshot gave way to a readable one"
