"""Who may play rated games (issue 34): accounts with some history, and a suspension for aborting too many rated
games; the rules pure (``suspensions``), then through the API with their problem codes."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.application.rated_play import (
    ESCALATION,
    LONGEST_SUSPENSION,
    RatedPlayRules,
    suspended_until,
    suspensions,
)
from service.common.config import Settings
from tests.harness.support import HUMAN, ai, settings_for

RULES = RatedPlayRules()  # the defaults: a day and 3 games; 3 aborts a day, an hour's suspension
HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS


# --- the suspension, pure ------------------------------------------------------------------------------------------


def test_three_aborts_a_day_are_allowed_and_the_fourth_suspends_for_an_hour():
    assert suspensions([0, HOUR_MS, 2 * HOUR_MS], RULES) == []
    assert suspensions([0, HOUR_MS, 2 * HOUR_MS, 3 * HOUR_MS], RULES) == [(3 * HOUR_MS, 4 * HOUR_MS)]
    assert suspended_until([0, 1, 2, 3], 3, RULES) == 3 + HOUR_MS
    assert suspended_until([0, 1, 2, 3], 3 + HOUR_MS, RULES) is None, "over at its end"
    spread = [n * (DAY_MS // 3 + 1) for n in range(12)]  # three a day, every day
    assert suspensions(spread, RULES) == [], "no more than three in any 24 hours"


def test_a_suspension_soon_after_another_is_twice_as_long_up_to_three_days():
    burst = [0, 1, 2, 3]
    first, second = suspensions([*burst, *(HOUR_MS + b for b in burst)], RULES)
    assert first == (3, 3 + HOUR_MS) and second[1] - second[0] == 2 * HOUR_MS, "the aborts before the first count no more"
    many = [day * 10 * HOUR_MS + b for day in range(12) for b in burst]
    lengths = [end - start for start, end in suspensions(many, RULES)]
    assert lengths[:4] == [HOUR_MS, 2 * HOUR_MS, 4 * HOUR_MS, 8 * HOUR_MS]
    assert max(lengths) == LONGEST_SUSPENSION * 1000
    week_later = suspensions([*burst, *(ESCALATION * 1000 + 10 + b for b in burst)], RULES)
    assert [end - start for start, end in week_later] == [HOUR_MS, HOUR_MS], "a week on, it starts over"


def test_no_limit_or_no_suspension_never_suspends():
    aborts = list(range(50))
    assert suspensions(aborts, RatedPlayRules(abort_limit=0)) == [] == suspensions(aborts, RatedPlayRules(suspension=0))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10 * DAY_MS), max_size=40), st.randoms(use_true_random=False))
def test_suspensions_start_at_an_abort_past_the_limit_whatever_order_the_aborts_are_read_in(aborts, rng):
    made = suspensions(aborts, RULES)
    shuffled = list(aborts)
    rng.shuffle(shuffled)
    assert suspensions(shuffled, RULES) == made
    for start, end in made:
        assert start in aborts and HOUR_MS <= end - start <= LONGEST_SUSPENSION * 1000
        assert sum(1 for t in aborts if start - DAY_MS < t <= start) > RULES.abort_limit
    for earlier, next_one in itertools.pairwise(made):
        assert next_one[0] > earlier[0]
    if all(sum(1 for t in aborts if s - DAY_MS < t <= s) <= RULES.abort_limit for s in aborts):
        assert made == [], "never more than the limit in a window: never suspended"


# --- through the API ---------------------------------------------------------------------------------------------


@pytest.fixture
def settings(key_prefix) -> Settings:
    """The service's defaults for rated play (tests/harness/support.py turns the history off for the other tests)."""
    defaults = Settings()
    return settings_for(
        key_prefix, rated_min_account_age=defaults.rated_min_account_age, rated_min_games=defaults.rated_min_games
    )


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def later(api, seconds: float) -> datetime:
    """Rated play's clock moved ``seconds`` past now (accounts sign up now): what it reads from then on."""
    moment = datetime.now(UTC) + timedelta(seconds=seconds)
    api.runtime.games.rated_play.clock = lambda: iso(moment)
    return moment


def finish_unrated_games(api, token: str, count: int) -> None:
    """``count`` unrated games against an AI, resigned at once (the AI plays them out): finished games for the record."""
    for _ in range(count):
        game = api.game(token, [HUMAN, ai("random")])
        assert api.call("POST", f"/v1/games/{game['id']}/leave", token, json={}).status_code == 200
    api.run_jobs()


def veteran(api, name: str) -> dict[str, Any]:
    """A player who may play rated games: 3 finished games, and (once ``later`` moved the clock a day) old enough."""
    player = api.player(name)
    finish_unrated_games(api, player["token"], 3)
    return player


def rated_game(api, token: str, **options: Any) -> Any:
    return api.call("POST", "/v1/games", token, json={"seats": [HUMAN, ai("random")], "rated": True, **options})


def test_a_new_account_is_refused_rated_games_saying_what_it_lacks_and_plays_unrated_ones(api):
    ana = api.player("Ana")
    refused = rated_game(api, ana["token"])
    body = refused.get_json()
    assert refused.status_code == 403 and body["code"] == "rated_play_needs_history"
    assert (body["min_account_age"], body["min_games"], body["games"]) == (86400, 3, 0) and body["account_age"] < 60
    assert "until" not in body and "Retry-After" not in refused.headers, "games are missing too: no time says when"
    assert "at least 24 hours old" in body["detail"] and "finished 3 games" in body["detail"]
    german = api.call("POST", "/v1/games?lang=de", ana["token"], json={"seats": [HUMAN, ai("random")], "rated": True})
    assert german.get_json()["detail"] != body["detail"] and "24" in german.get_json()["detail"], "in the reader's language"
    assert api.call("POST", "/v1/games", ana["token"], json={"seats": [HUMAN, ai("random")]}).status_code == 201
    everyone_ai = api.call("POST", "/v1/games", ana["token"], json={"seats": [ai("random"), ai("greedy")], "rated": True})
    assert everyone_ai.status_code == 201, "an all-AI game seats nobody: anyone may watch one rated"


def test_with_its_games_finished_an_account_is_told_when_it_is_old_enough_then_plays(api):
    bo = veteran(api, "Bo")
    refused = rated_game(api, bo["token"])
    body = refused.get_json()
    assert body["code"] == "rated_play_needs_history" and body["games"] == 3
    created = datetime.fromisoformat(api.call("GET", "/v1/players/me", bo["token"]).get_json()["created_at"])
    assert abs(datetime.fromisoformat(body["until"]) - (created + timedelta(days=1))) < timedelta(seconds=1)
    assert 86000 < int(refused.headers["Retry-After"]) <= 86400 and body["retry_after"] == int(refused.headers["Retry-After"])
    later(api, 86400 + 5)
    assert rated_game(api, bo["token"]).status_code == 201


def test_every_way_into_a_rated_game_asks_the_same(api):
    ana, bo = veteran(api, "Ana"), api.player("Bo")  # Bo is new
    later(api, 86400 + 5)
    table = rated_game(api, ana["token"], seats=[HUMAN, HUMAN]).get_json()
    joined = api.call("POST", f"/v1/games/{table['id']}/join", bo["token"], json={"code": table["join_code"]})
    assert joined.status_code == 403 and joined.get_json()["code"] == "rated_play_needs_history"
    unrated = api.game(ana["token"], [HUMAN, HUMAN])
    assert (
        api.call("POST", f"/v1/games/{unrated['id']}/join", bo["token"], json={"code": unrated["join_code"]}).status_code == 200
    )
    ticket = {"player_counts": [2], "variant": "basic", "rated": True}
    opened = api.call("POST", "/v1/match-tickets", bo["token"], json=ticket)
    assert opened.status_code == 403 and opened.get_json()["code"] == "rated_play_needs_history"
    assert api.call("POST", "/v1/match-tickets", ana["token"], json=ticket).status_code == 201
    challenge = {"players": [bo["id"]], "seats": [HUMAN, HUMAN], "rated": True}
    sent = api.call("POST", "/v1/challenges", bo["token"], json={**challenge, "players": [ana["id"]]})
    assert sent.status_code == 403 and sent.get_json()["code"] == "rated_play_needs_history"
    made = api.call("POST", "/v1/challenges", ana["token"], json=challenge)
    assert made.status_code == 201
    accepted = api.call("POST", f"/v1/challenges/{made.get_json()['id']}/accept", bo["token"], json={})
    assert accepted.status_code == 403 and accepted.get_json()["code"] == "rated_play_needs_history"


def abort_rated_game(api, token: str) -> None:
    game = rated_game(api, token)
    assert game.status_code == 201, game.get_json()
    aborted = api.call("POST", f"/v1/games/{game.get_json()['id']}/abort", token, json={})
    assert aborted.status_code == 200 and aborted.get_json()["status"] == "aborted"


def test_a_fourth_rated_abort_in_a_day_suspends_rated_play_for_an_hour_saying_until_when(api):
    """Issue 34: rated games aborted right after the deal without limit (6 of 6, no consequence)."""
    ana = veteran(api, "Ana")
    moment = later(api, 86400 + 5)
    for _ in range(3):
        abort_rated_game(api, ana["token"])
    unrated = api.game(ana["token"], [HUMAN, ai("random")])
    assert api.call("POST", f"/v1/games/{unrated['id']}/abort", ana["token"], json={}).status_code == 200
    abort_rated_game(api, ana["token"])  # the fourth rated one: the abort itself goes through
    refused = rated_game(api, ana["token"])
    body = refused.get_json()
    assert refused.status_code == 403 and body["code"] == "rated_play_suspended"
    assert abs(datetime.fromisoformat(body["until"]) - (moment + timedelta(hours=1))) < timedelta(seconds=1)
    assert refused.headers["Retry-After"] == "3600" == str(body["retry_after"])
    assert (body["abort_limit"], body["abort_window"]) == (3, 86400)
    assert body["until"] in body["detail"] and "4 rated games" in body["detail"]
    problems = {p["code"]: p["status"] for p in api.call("GET", "/v1/problems").get_json()["problems"]}
    assert problems["rated_play_suspended"] == problems["rated_play_needs_history"] == 403
    assert api.call("POST", "/v1/games", ana["token"], json={"seats": [HUMAN, ai("random")]}).status_code == 201
    ticket = api.call("POST", "/v1/match-tickets", ana["token"], json={"player_counts": [2], "rated": True})
    assert ticket.status_code == 403 and ticket.get_json()["code"] == "rated_play_suspended"
    later(api, 86400 + 5 + 3600 + 1)
    assert rated_game(api, ana["token"]).status_code == 201, "an hour on, rated games again"


def test_a_suspension_soon_after_another_lasts_twice_as_long_and_aborts_by_others_count_for_them_alone(api):
    ana, bo = veteran(api, "Ana"), veteran(api, "Bo")
    start = later(api, 86400 + 5)
    for _ in range(4):
        abort_rated_game(api, ana["token"])
    later(api, 86400 + 5 + 3600 + 1)
    for _ in range(4):  # aborts made before the first suspension began count no more: four more for a second one
        abort_rated_game(api, ana["token"])
    body = rated_game(api, ana["token"]).get_json()
    assert body["code"] == "rated_play_suspended" and body["retry_after"] == 7200
    assert datetime.fromisoformat(body["until"]) > start + timedelta(hours=3)
    # Bo's games that Ana aborted are no aborts of Bo's.
    for _ in range(4):
        table = rated_game(api, bo["token"], seats=[HUMAN, HUMAN]).get_json()
        later(api, 86400 + 5 + 3 * 3600 + 10)  # Ana may join again
        assert (
            api.call("POST", f"/v1/games/{table['id']}/join", ana["token"], json={"code": table["join_code"]}).status_code == 200
        )
        assert api.call("POST", f"/v1/games/{table['id']}/abort", ana["token"], json={}).status_code == 200
    assert rated_game(api, bo["token"]).status_code == 201
    assert rated_game(api, ana["token"]).get_json()["code"] == "rated_play_suspended"


def test_a_rated_rematch_is_offered_only_by_a_player_who_may_play_rated_games(api):
    from tests.harness.support import play_out

    ana, bo = veteran(api, "Ana"), veteran(api, "Bo")
    later(api, 86400 + 5)
    table = rated_game(api, ana["token"], seats=[HUMAN, HUMAN]).get_json()
    api.call("POST", f"/v1/games/{table['id']}/join", bo["token"], json={"code": table["join_code"]})
    play_out(api, table["id"], ana["token"], bo["token"])
    for _ in range(4):
        abort_rated_game(api, bo["token"])
    offered = api.call("POST", f"/v1/games/{table['id']}/rematch", ana["token"], json={})
    assert offered.status_code == 200, "Ana may: her offer stands"
    answered = api.call("POST", f"/v1/games/{table['id']}/rematch", bo["token"], json={})
    assert answered.status_code == 403 and answered.get_json()["code"] == "rated_play_suspended"
    assert answered.get_json()["player_id"] == bo["id"]


def test_a_deleted_accounts_aborts_go_with_it(api):
    ana = veteran(api, "Ana")
    later(api, 86400 + 5)
    abort_rated_game(api, ana["token"])
    aborts = api.runtime.games.rated_play.aborts
    assert aborts.since(ana["id"], 0)
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert aborts.since(ana["id"], 0) == []
