"""A smoke test per family of routes on the real Redis (and on fakeredis): the suites above the stores run on
fakeredis only (tests/conftest.py), so these make sure each family also works against a real server — its Lua,
its blocking reads and its replies as redis-py parses them.
"""

from __future__ import annotations

import json

import pytest

from tests.harness.support import HUMAN, ai, play_out

pytestmark = pytest.mark.every_store


def test_players_and_their_tokens(api, backend):
    ana = api.player("Ana")
    me = api.call("GET", "/v1/players/me", ana["token"]).get_json()
    assert me["id"] == ana["id"]
    renamed = api.call("PATCH", "/v1/players/me", ana["token"], json={"name": "Ana B"})
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Ana B"
    issued = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}, headers={"Idempotency-Key": "k1"})
    again = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}, headers={"Idempotency-Key": "k1"})
    assert issued.status_code == again.status_code == 201 and issued.get_json()["token"] == again.get_json()["token"]
    listed = api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"]
    assert len(listed) == 2
    revoked = api.call("DELETE", f"/v1/players/me/tokens/{issued.get_json()['id']}", ana["token"])
    assert revoked.status_code == 204
    assert api.call("GET", "/v1/players/me", issued.get_json()["token"]).status_code == 401


def test_a_game_from_creation_to_its_end_with_joins_actions_and_the_jobs(api, backend):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN, ai("greedy")], seed=11, variant="basic")
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200 and joined.get_json()["status"] == "active"
    play_out(api, game["id"], ana["token"], bo["token"])  # with If-Match on every action
    assert api.view(game["id"], ana["token"])["status"] == "finished"
    mine = api.call("GET", "/v1/players/me/games?status=finished", ana["token"]).get_json()["games"]
    assert [g["id"] for g in mine] == [game["id"]]


def test_the_feeds_a_long_poll_and_a_ticketed_stream(api, backend):
    ana = api.player("Ana")
    game = api.game(ana["token"], [ai("random"), ai("random")], variant="basic", seed=3)
    api.run_jobs()
    events = api.call("GET", f"/v1/games/{game['id']}/events?after=0&wait=1", ana["token"]).get_json()
    assert events["events"][0]["type"] == "game_created"
    version = api.view(game["id"], ana["token"])["version"]
    waited = api.call("GET", f"/v1/games/{game['id']}/events?after={version}&wait=1", ana["token"]).get_json()
    assert waited["events"] == []  # nothing new within the wait: a blocking read on the server that timed out
    ticket = api.call("POST", f"/v1/games/{game['id']}/stream-tickets", ana["token"]).get_json()["ticket"]
    stream = api.call("GET", f"/v1/games/{game['id']}/stream?ticket={ticket}&after={version - 2}")
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    assert "event: " in stream.get_data(as_text=True)


def test_a_finished_games_replay_exported_and_imported(api, backend):
    ana = api.player("Ana")
    game = api.game(ana["token"], [ai("random"), ai("greedy")], variant="basic", seed=8)
    api.run_jobs()
    assert api.view(game["id"], ana["token"])["status"] == "finished"
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export", ana["token"])
    document = exported.get_json()
    assert api.call("GET", f"/v1/games/{game['id']}/replay?at=1", ana["token"]).status_code == 200
    imported = api.call("POST", "/v1/replays", ana["token"], data=json.dumps(document), content_type="application/json")
    assert imported.status_code == 201, imported.get_json()
    read = api.call("GET", imported.get_json()["url"], ana["token"]).get_json()
    assert read["hash"] == document["hash"] and len(read["steps"]) == len(document["steps"])


def test_a_players_archive_listed_exported_and_hidden(api, backend):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("random")], variant="basic", seed=8)
    assert play_out(api, game["id"], ana["token"])["status"] == "finished"
    listed = api.call("GET", f"/v1/players/{ana['id']}/archive").get_json()
    assert [g["game_id"] for g in listed["games"]] == [game["id"]] and listed["next_cursor"] is None
    lines = api.call("GET", f"/v1/players/{ana['id']}/archive/export").get_data(as_text=True).splitlines()
    assert [json.loads(line)["game_id"] for line in lines] == [game["id"]]
    api.call("PATCH", "/v1/players/me", ana["token"], json={"archive_hidden": True})
    assert api.call("GET", f"/v1/players/{ana['id']}/archive").get_json()["games"] == []
    assert len(api.call("GET", f"/v1/players/{ana['id']}/archive", ana["token"]).get_json()["games"]) == 1
    assert api.runtime.archive.rebuild().identical


def test_the_service_answers_its_health_and_its_problems(api, backend):
    assert api.call("GET", "/readyz").status_code == 200
    assert any(p["code"] == "version_conflict" for p in api.call("GET", "/v1/problems").get_json()["problems"])


def test_live_games_their_watchers_and_an_embed(api, backend):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy")], variant="basic")["id"]
    api.run_jobs()
    api.call("GET", f"/v1/games/{game}/events?after=0&limit=1")  # a spectator's poll
    stream = api.call("GET", f"/v1/games/{game}/stream")  # and a spectator's stream
    api.runtime.live.forget()
    found = {g["id"]: g for g in api.call("GET", "/v1/live-games").get_json()["games"]}
    assert found[game]["watchers"] == 2
    stream.close()
    api.runtime.live.forget()
    assert api.call("GET", "/v1/live-games").get_json()["games"][0]["watchers"] == 1
    url = f"http://localhost/v1/games/{game}/replay/view"
    embed = api.call("GET", "/v1/oembed", query_string={"url": url}).get_json()
    assert embed["type"] == "rich" and "?embed=1" in embed["html"]
