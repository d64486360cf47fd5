"""The two rating farms of issue 34 replayed through the service, before the rules (the same games folded with every
result counting and shown as μ − 3σ) and with them.

1. One account fed by 10 new accounts that fold at once, 30 rated games: 2272, rank 1, before.  Now new accounts
   are refused rated games, and accounts old enough to play feed nobody: a newcomer's result moves no rating.
2. An account playing at the random AI's strength against ``ai:random``, 30 rated games: 1000 to 1360 before (13
   wins of 30), as σ shrank.  Now the rating shown is μ, which play alone does not lift: it ends within two of its
   own standard deviations (80 σ points) of ``ai:random``'s rating — where a player of the random AI's strength
   belongs — however many games are played.
"""

from __future__ import annotations

import random
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine import Variant
from service.application.commands import NewGame, SeatRequest
from service.common.config import Settings
from service.domain.ai import choose_steps
from service.domain.ratings import EVERY_RESULT, Applied, Rating, fold
from tests.harness.support import HUMAN, ai, settings_for


@pytest.fixture
def settings(key_prefix) -> Settings:
    """The service's defaults for rated play (tests/harness/support.py turns the history off for the other tests)."""
    defaults = Settings()
    return settings_for(
        key_prefix, rated_min_account_age=defaults.rated_min_account_age, rated_min_games=defaults.rated_min_games
    )


def old_display(rating: Rating) -> int:
    """The rating shown before issue 34: the conservative μ − 3σ on the chess scale."""
    return 1000 + round(40 * (rating.mu - 3 * rating.sigma))


def before_the_rules(runtime, ladder: str = "basic") -> dict[str, Rating]:
    """The ladder's games folded as before the rules: every result counting (what the farms were fed by)."""
    stored = runtime.ratings.store.export(ladder)["games"]
    results = [Applied.from_text(game_id, ladder, text).result for game_id, text in stored.items()]
    return {player: record.rating for player, record in fold(results, EVERY_RESULT)[ladder].records.items()}


def a_day_later(runtime) -> None:
    """Rated play's clock a day and a minute on: the accounts signed up so far are old enough."""
    moment = datetime.now(UTC) + timedelta(days=1, minutes=1)
    runtime.games.rated_play.clock = lambda: moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def with_finished_games(api, name: str) -> dict[str, Any]:
    """An account with the 3 finished games rated play asks for: unrated games against an AI, resigned at once."""
    player = api.player(name)
    for _ in range(3):
        game = api.game(player["token"], [HUMAN, ai("random")])
        api.call("POST", f"/v1/games/{game['id']}/leave", player["token"], json={})
    api.run_jobs()
    return player


def farmed_game(api, farmer: dict[str, Any], puppet: dict[str, Any]) -> str:
    """A rated basic game of the farmer against a puppet that folds at its first turn; the farmer wins it."""
    table = api.call(
        "POST", "/v1/games", farmer["token"], json={"seats": [HUMAN, HUMAN], "rated": True, "variant": "basic"}
    ).get_json()
    joined = api.call("POST", f"/v1/games/{table['id']}/join", puppet["token"], json={"code": table["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    for _ in range(20):
        farmer_view, puppet_view = (api.view(table["id"], p["token"]) for p in (farmer, puppet))
        if farmer_view["status"] == "finished":
            assert farmer_view["winner"] == farmer_view["you"]["seat"]
            return table["id"]
        if puppet_view["legal_steps"]:
            acted = api.act(table["id"], puppet["token"], [{"type": "fold"}])
        elif farmer_view["legal_steps"]:
            step = next(s for s in farmer_view["legal_steps"] if s["can_win"] and s["type"] != "fold")
            acted = api.act(table["id"], farmer["token"], [{k: step[k] for k in ("type", "card", "seat", "to") if k in step}])
        else:
            acted = None
        assert acted is None or acted.status_code == 200, acted.get_json()
        api.run_jobs()
    raise AssertionError(f"game {table['id']} did not finish")


def test_ten_new_accounts_that_fold_at_once_are_refused_and_once_old_enough_feed_nobody(api):
    runtime = api.runtime
    farmer = with_finished_games(api, "Farmer")
    a_day_later(runtime)  # the farmer's account is old enough; the puppets below are new
    puppets = [api.player(f"Puppet{n}") for n in range(10)]
    table = api.call(
        "POST", "/v1/games", farmer["token"], json={"seats": [HUMAN, HUMAN], "rated": True, "variant": "basic"}
    ).get_json()
    for puppet in puppets:
        refused = api.call("POST", f"/v1/games/{table['id']}/join", puppet["token"], json={"code": table["join_code"]})
        assert refused.status_code == 403 and refused.get_json()["code"] == "rated_play_needs_history"
    # A patient farmer: puppets a day old with their 3 finished games each.
    puppets = [with_finished_games(api, f"Aged{n}") for n in range(10)]
    a_day_later(runtime)
    games = [farmed_game(api, farmer, puppets[n % 10]) for n in range(30)]
    api.run_jobs()
    store = runtime.ratings.store
    assert all(runtime.ratings.applied(runtime.games.load(g)) for g in games)

    old = before_the_rules(runtime)
    farmed = old_display(old[farmer["id"]])
    assert farmed > 2000, f"before the rules the farm fed {farmed}"  # issue 34 reported 2272
    old_board = sorted(old, key=lambda p: -old[p].mu + 3 * old[p].sigma)
    assert old_board[0] == farmer["id"], "rank 1 before"

    record = store.records("basic", [farmer["id"]])[farmer["id"]]
    assert record.played == record.won == 30 and record.counted == 0, "played and won, and moved by none of them"
    assert record.rating.shown == 1000 and not record.form.established()
    for puppet in puppets:
        assert store.records("basic", [puppet["id"]])[puppet["id"]].rating.shown == 1000
    board = api.call("GET", "/v1/ladders/basic/leaderboard").get_json()
    assert farmer["id"] not in {line["player_id"] for line in board["players"]} and board["ranked"] == 0
    around = api.call("GET", f"/v1/ladders/basic/leaderboard?around={farmer['id']}")
    assert around.status_code == 404 and around.get_json()["code"] == "player_not_rated"
    history = api.call("GET", f"/v1/players/{farmer['id']}").get_json()["ratings"]["basic"]["history"]
    assert {(h["counted"], h["not_counted"], h["change"]) for h in history} == {(False, "no_established_opponent", 0)}
    print(f"\nfarm of 10 fed accounts, 30 games: before {farmed} (rank 1); now {record.rating.shown}, provisional, unranked")


def test_play_at_the_random_ais_strength_against_it_stays_within_two_sigma_of_its_rating(api, monkeypatch):
    runtime = api.runtime
    rng = random.Random(34)  # every seed and id from it: the same 30 games each run
    monkeypatch.setattr(secrets, "randbits", rng.getrandbits)
    monkeypatch.setattr(secrets, "token_hex", lambda n=8: rng.randbytes(n).hex())
    rand = with_finished_games(api, "Rand")
    a_day_later(runtime)
    player = runtime.accounts.by_token(rand["token"])
    assert player is not None
    # As on a live service, ai:random has a rating from many games first: rated games between AI levels.
    for _ in range(30):
        seats = [SeatRequest("ai", "random"), SeatRequest("ai", "greedy")]
        runtime.games.create(player, NewGame(seats, variant=Variant.BASIC, rated=True))
    api.run_jobs()
    store = runtime.ratings.store
    wins, shown, established_before = 0, [], []
    for _ in range(30):
        was = store.records("basic", [player.id]).get(player.id)
        established_before.append(was is not None and was.form.established())
        request = NewGame([SeatRequest("human"), SeatRequest("ai", "random")], variant=Variant.BASIC, rated=True)
        game = runtime.games.create(player, request).game
        for _ in range(200):
            api.run_jobs()
            game = runtime.games.load(game.id)
            if game.status == "finished":
                break
            seat = game.seat_of(player.id)
            if game.seat_to_move() == seat:  # the random AI's own choice, for the human seat
                runtime.games.act(game.id, player, choose_steps(game, seat, "random", []))
        assert game.status == "finished"
        api.run_jobs()
        wins += game.state.winner == game.seat_of(player.id)
        mine, anchor = (store.records("basic", [p])[p] for p in (player.id, "ai:random"))
        shown.append(mine.rating.shown)
        bound = anchor.rating.shown + round(2 * 40 * mine.rating.sigma)
        assert mine.rating.shown <= bound, "never above ai:random's rating and two of its own σ"
    assert anchor.counted == 30 + sum(established_before), "a provisional player did not move the anchor"
    assert mine.counted == 30 and mine.rating.shown <= anchor.rating.shown + round(2 * 40 * mine.rating.sigma)
    old = old_display(before_the_rules(runtime)[player.id])
    assert old > mine.rating.shown, "the climb as σ shrank is gone"
    standing = runtime.ratings.ratings_of(player.id)["ladders"]["basic"]
    print(
        f"\nrandom-AI strength against ai:random, {wins} wins of 30: before {old}; now {mine.rating.shown} "
        f"(sigma {mine.rating.sigma:.2f}, {'established, rank ' + str(standing['rank']) if standing['rank'] else 'provisional'}"
        f" of {standing['ranked']}; ai:random {anchor.rating.shown}); shown after each game {shown}"
    )
