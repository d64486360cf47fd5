"""Open tables: a listed game is found through ``GET /v1/games`` (filters, newest first, a cursor) and joined without a
code, until its last seat is taken, it is called off or aborted; the index heals as it is read; the caps hold."""

from __future__ import annotations

import time

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


def open_ids(api, token: str, query: str = "") -> list[str]:
    response = api.call("GET", f"/v1/games?{query}", token)
    assert response.status_code == 200, response.get_json()
    return [game["id"] for game in response.get_json()["games"]]


def index(api):
    return api.runtime.games.tables.index


def test_a_listed_game_is_an_open_table_joined_without_a_code_until_its_last_seat_is_taken(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    game = api.game(ana["token"], [HUMAN, HUMAN, HUMAN, ai()], listed=True, variant="basic")
    assert (game["listed"], game["origin"], game["rematch_of"], game["rematch"]) == (True, "open_table", None, None)
    listed = api.call("GET", "/v1/games", bo["token"]).get_json()
    assert listed["next_cursor"] is None and [g["id"] for g in listed["games"]] == [game["id"]]
    line = listed["games"][0]
    assert line["creator"] == "Ana" and line["open_seats"] == [1, 2] and line["seats"] == ["Ana", None, None, "AI 3 (greedy)"]
    assert (line["players"], line["variant"], line["rating"], line["your_seat"]) == (4, "basic", 1000, None)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={})
    assert joined.status_code == 200 and joined.get_json()["you"]["seat"] == 1
    assert [g["open_seats"] for g in api.call("GET", "/v1/games", cy["token"]).get_json()["games"]] == [[2]]
    assert api.call("POST", f"/v1/games/{game['id']}/join", cy["token"], json={}).get_json()["status"] == "active"
    assert open_ids(api, cy["token"]) == [] and not index(api).listed(game["id"])


def test_an_unlisted_game_is_no_open_table_and_takes_its_code(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN])
    assert game["listed"] is False and game["origin"] == "direct" and open_ids(api, bo["token"]) == []
    refused = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={})
    assert refused.status_code == 403 and refused.get_json()["code"] == "bad_join_code"


def test_a_called_off_table_leaves_the_list(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], listed=True)
    assert open_ids(api, bo["token"]) == [game["id"]]
    assert api.call("DELETE", f"/v1/games/{game['id']}", ana["token"]).status_code == 200
    assert open_ids(api, bo["token"]) == [] and not index(api).listed(game["id"])


def test_the_open_tables_are_filtered_by_what_a_player_looks_for(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    made = {
        "basic2": api.game(ana["token"], [HUMAN, HUMAN], listed=True, variant="basic"),
        "actions3": api.game(ana["token"], [HUMAN, HUMAN, ai()], listed=True, action_rules=True),
        "live60": api.game(ana["token"], [HUMAN, HUMAN], listed=True, turn_timeout=60),
        "days3": api.game(ana["token"], [HUMAN, HUMAN, HUMAN, HUMAN], listed=True, days_per_turn=3),
        "rated": api.game(ana["token"], [HUMAN, HUMAN], listed=True, rated=True),
    }
    ids = {name: game["id"] for name, game in made.items()}
    assert made["days3"]["days_per_turn"] == 3 and made["days3"]["turn_timeout"] == 3 * 24 * 3600

    def found(query: str) -> set[str]:
        return {name for name, game_id in ids.items() if game_id in open_ids(api, bo["token"], query)}

    assert found("") == set(ids)
    assert found("variant=basic") == {"basic2"}
    assert found("action_rules=true") == {"actions3"}
    assert found("players=4") == {"days3"}
    assert found("players=2&variant=advanced") == {"live60", "rated"}
    assert found("turn_timeout=60") == {"live60"}
    assert found("turn_timeout=259200") == set()  # a live limit: not the correspondence game with as many seconds
    assert found("days_per_turn=3") == {"days3"}
    assert found("rated=true") == {"rated"} and found("rated=false") == set(ids) - {"rated"}
    assert found("min_rating=900&max_rating=1100") == set(ids)  # nobody has played a rated game: all new players
    assert found("min_rating=1001") == set() and found("max_rating=999") == set()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("players=5", "players"),
        ("days_per_turn=4", "days_per_turn"),
        ("days_per_turn=3&turn_timeout=60", "days_per_turn"),
        ("min_rating=1600&max_rating=1400", "min_rating"),
        ("variant=chess", "variant"),
        ("limit=0", "limit"),
        ("cursor=nonsense", "cursor"),
    ],
)
def test_open_table_filters_are_validated(api, query, field):
    token = api.player()["token"]
    response = api.call("GET", f"/v1/games?{query}", token)
    assert response.status_code == 422 and field in {e["field"] for e in response.get_json()["errors"]}


def test_the_open_tables_need_a_token(api):
    assert api.call("GET", "/v1/games").get_json()["code"] == "token_required"


def test_open_tables_come_newest_first_a_page_at_a_time(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    made = []
    for _ in range(5):
        made.append(api.game(ana["token"], [HUMAN, HUMAN], listed=True)["id"])
        time.sleep(0.002)  # listed at different milliseconds (equal ones are ordered by id)
    pages, cursor = [], None
    while True:
        query = "limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = api.call("GET", f"/v1/games?{query}", bo["token"]).get_json()
        pages.append([g["id"] for g in page["games"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == [made[::-1][0:2], made[::-1][2:4], made[::-1][4:]]


def test_a_lost_unlisting_heals_when_the_list_is_read(api, monkeypatch):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], listed=True)

    def lost(game_id: str) -> None:
        raise ConnectionError("the index's Redis went away after the append")

    monkeypatch.setattr(api.runtime.games.tables, "leave", lost)
    assert api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={}).status_code == 200  # the write stands
    monkeypatch.undo()
    assert index(api).listed(game["id"])  # the entry outlived its table ...
    assert open_ids(api, bo["token"]) == []  # ... is not shown ...
    assert not index(api).listed(game["id"])  # ... and is dropped as it is read


def test_an_entry_for_a_game_never_made_is_dropped_once_its_append_cannot_be_on_its_way(api):
    token = api.player()["token"]
    facts = {
        "variant": "advanced",
        "action_rules": False,
        "players": 2,
        "turn_timeout": None,
        "days_per_turn": None,
        "rated": False,
    }
    now = int(time.time() * 1000)
    index(api).enter("g_stopped", now - 120_000, facts)  # its create stopped before the append, two minutes ago
    index(api).enter("g_coming", now, facts)  # its append may be on its way
    assert open_ids(api, token) == []
    assert not index(api).listed("g_stopped") and index(api).listed("g_coming")


@pytest.fixture
def capped(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, max_listed_tables=2, max_games_in_play=3), clients=redis_pair)
    return Api(create_app(runtime), runtime)


def test_a_player_lists_as_many_tables_as_allowed_and_no_more(capped):
    api = capped
    ana = api.player("Ana")["token"]
    first = api.game(ana, [HUMAN, HUMAN], listed=True)
    api.game(ana, [HUMAN, HUMAN], listed=True)
    refused = api.call("POST", "/v1/games", ana, json={"seats": [HUMAN, HUMAN], "listed": True})
    assert refused.status_code == 409 and refused.get_json()["code"] == "listed_table_limit_reached"
    assert refused.get_json()["limit"] == 2
    api.game(ana, [HUMAN, HUMAN])  # an unlisted game is no listed table
    assert api.call("DELETE", f"/v1/games/{first['id']}", ana).status_code == 200
    assert api.call("POST", "/v1/games", ana, json={"seats": [HUMAN, HUMAN], "listed": True}).status_code == 201


def test_joining_an_open_table_respects_the_games_in_play_cap(capped):
    api = capped
    ana, bo = api.player("Ana")["token"], api.player("Bo")["token"]
    for _ in range(3):
        api.game(bo, [HUMAN, HUMAN])
    table = api.game(ana, [HUMAN, HUMAN], listed=True)
    refused = api.call("POST", f"/v1/games/{table['id']}/join", bo, json={})
    assert refused.status_code == 409 and refused.get_json()["code"] == "game_limit_reached"
    assert refused.get_json()["limit"] == 3


@pytest.mark.parametrize(
    ("good", "bad", "field"),
    [
        ({"days_per_turn": 14}, {"days_per_turn": 4}, "days_per_turn"),
        ({"days_per_turn": 3}, {"days_per_turn": 3, "turn_timeout": 60}, "days_per_turn"),
        ({"rated": True}, {"rated": True, "seed": 5}, "rated"),
        ({"listed": True}, {"listed": "yes"}, "listed"),
    ],
)
def test_the_new_game_options_are_taken_and_validated(api, good, bad, field):
    token = api.player()["token"]
    made = api.call("POST", "/v1/games", token, json={"seats": [HUMAN, HUMAN], **good})
    assert made.status_code == 201 and all(made.get_json()[name] == value for name, value in good.items())
    response = api.call("POST", "/v1/games", token, json={"seats": [HUMAN, HUMAN], **bad})
    assert response.status_code == 422 and field in {e["field"] for e in response.get_json()["errors"]}
