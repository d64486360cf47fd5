"""Replay imports (issue 18, item 1): what an import keeps is bounded by its file, and it expires as configured."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from replays.verify import verify_replay
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.deployment import NO_REDIS_SERVER, REDIS_SERVER, Client, processes, redis_server, wait_until
from tests.harness.support import Api, settings_for
from tests.replays.files import crafted, genuine, played_game, replay_keys, upload

#: The issue's file: one seat's name of ~700 KB (each sentence about the seat names it).
LONG_NAME = "N" * 700_000
#: The longest name a player may have, of the characters that JSON (\ud83d\ude00: 12 bytes) and the viewer write longest.
WORST_NAMES = ("\U0001f600" * 40, "<" * 40)
#: The page around the viewer's replay (replays/viewer.html), whatever the replay.
VIEWER_PAGE = 32 * 1024


def test_the_issues_file_a_700_kb_name_is_refused_naming_the_field_and_nothing_is_kept(api):
    token, document = played_game(api)
    forged = crafted(document, LONG_NAME)
    assert sum(LONG_NAME in step["text"] for step in crafted(document, "Ana")["steps"]) == 0  # (blank, as the issue's)
    refused, body = upload(api, token, forged)
    assert len(body) > 700_000 and refused.status_code == 422, refused.get_json()
    problem = refused.get_json()
    assert problem["code"] == "invalid_replay"
    index = next(i for i, event in enumerate(forged["events"]) if event["type"] == "seat_taken")
    assert {"field": f"events.{index}.name", "location": "json"}.items() <= problem["errors"][0].items()
    assert "must be 1 to 40 characters long, not 700000" in problem["errors"][0]["message"]
    assert len(refused.get_data()) < 4096, "a refusal is no echo of the file"
    assert replay_keys(api) == []


@pytest.mark.parametrize("name", WORST_NAMES, ids=["emoji", "angle-brackets"])
@pytest.mark.every_store  # MEMORY USAGE: only a real server tells
def test_an_import_keeps_fewer_bytes_than_its_file_and_serves_at_most_three_times_them(api, backend, name):
    """The bound docs/replays.md states: Redis keeps at most the file's bytes (STRLEN; MEMORY USAGE on a real Redis), and every
    form of the replay served (JSON, NDJSON, the viewer less its page) is at most 3x the file, for the issue's recipe
    with the longest name a player may have."""
    token, document = played_game(api)
    imported, body = upload(api, token, crafted(document, name))
    assert imported.status_code == 201, imported.get_json()
    (key,) = replay_keys(api)
    stored = api.runtime.redis.strlen(key)
    assert stored <= len(body) // 4, (stored, len(body))  # the events alone: ~5% of a file with its steps
    if backend == "real":
        assert api.runtime.redis.memory_usage(key) <= len(body) // 2, "what Redis holds for it, allocation included"
    url = imported.get_json()["url"]
    served = api.call("GET", url)
    assert served.status_code == 200 and len(served.get_data()) <= 3 * len(body)
    assert name in json.dumps(served.get_json()["steps"], ensure_ascii=False), "the sentences name the seat again"
    lines = api.call("GET", url, headers={"Accept": "application/x-ndjson"})
    assert lines.status_code == 200 and len(lines.get_data()) <= 3 * len(body)
    page = api.call("GET", imported.get_json()["view_url"])
    assert page.status_code == 200 and len(page.get_data()) <= 3 * len(body) + VIEWER_PAGE
    assert verify_replay(served.get_json()).ok, "what is served is the replay the file proved, in today's words"


def test_an_import_is_kept_as_long_as_configured_and_says_until_when(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, imported_replay_ttl=2), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token, document = played_game(api)
    before = time.time()
    imported = api.call("POST", "/v1/replays", token, json=document)
    assert imported.status_code == 201, imported.get_json()
    body = imported.get_json()
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00")).timestamp()
    assert before + 1 <= expires <= time.time() + 2
    (key,) = replay_keys(api)
    assert 0 < runtime.redis.pttl(key) <= 2000, "written with its expiry"
    assert api.call("GET", body["url"]).status_code == 200 and api.call("GET", body["view_url"]).status_code == 200
    time.sleep(1.2)
    again = api.call("POST", "/v1/replays", token, json=document)  # the same content: kept 2 s from now on
    assert again.status_code == 200 and again.get_json()["id"] == body["id"]
    assert again.get_json()["expires_at"] >= body["expires_at"]
    assert runtime.redis.pttl(key) > 1000
    time.sleep(2.2)
    for url in (body["url"], f"{body['url']}?at=1", body["view_url"]):
        gone = api.call("GET", url)
        assert gone.status_code == 404 and gone.get_json()["code"] == "not_found", url
    assert replay_keys(api) == []


def test_an_import_is_kept_thirty_days_by_default(api):
    token, document = played_game(api)
    body = api.call("POST", "/v1/replays", token, json=document).get_json()
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert abs((expires - datetime.now(UTC)).total_seconds() - 30 * 24 * 3600) < 60
    assert 30 * 24 * 3600 - 60 < api.runtime.redis.ttl(replay_keys(api)[0]) <= 30 * 24 * 3600


def test_imports_draw_on_a_budget_of_their_own_per_token(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_import="2 per day"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token, document = played_game(api)
    statuses = [api.call("POST", "/v1/replays", token, json=document).status_code for _ in range(3)]
    assert statuses == [201, 200, 429]
    limited = api.responses[-1][1]
    assert limited.get_json()["code"] == "rate_limited" and "2 per 1 day" in limited.get_json()["detail"]
    assert api.call("GET", "/v1/players/me", token).status_code == 200, "the rest of the API is not this budget"
    other = api.player("Bo")["token"]
    assert api.call("POST", "/v1/replays", other, json=document).status_code == 200


@pytest.mark.slow
@pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)
def test_through_gunicorn_an_import_keeps_less_than_its_file_on_redis_and_is_gone_when_it_expires(tmp_path):
    """As users run it: gunicorn (RED7_IMPORTED_REPLAY_TTL=3) on a redis-server of the test's own, the files over HTTP."""
    document = genuine()
    (tmp_path / "redis").mkdir()
    with (
        redis_server(tmp_path / "redis", appendfsync="no") as server,
        processes(tmp_path, server.url, RED7_IMPORTED_REPLAY_TTL="3") as deployment,
    ):
        ana = Client(deployment.api(workers=1)).sign_up("Ana")
        json_body = {"Content-Type": "application/json"}
        issue = json.dumps(crafted(document, LONG_NAME), separators=(",", ":")).encode()
        refused = ana.call("POST", "/replays", data=issue, headers=json_body)
        assert refused is not None and refused.status_code == 422 and refused.json()["code"] == "invalid_replay"
        body = json.dumps(crafted(document, WORST_NAMES[0]), ensure_ascii=False, separators=(",", ":")).encode()
        imported = ana.call("POST", "/replays", data=body, headers=json_body)
        assert imported is not None and imported.status_code == 201, imported.text
        with server.client() as store:
            key = f"{deployment.prefix}replay:{imported.json()['id']}"
            assert store.memory_usage(key) <= len(body) // 2 and 0 < store.ttl(key) <= 3
        served = ana.call("GET", imported.json()["url"].removeprefix("/v1"))
        assert served is not None and served.status_code == 200 and len(served.content) <= 3 * len(body)

        def gone() -> bool:
            answer = ana.call("GET", imported.json()["url"].removeprefix("/v1"))
            return answer is not None and answer.status_code == 404

        wait_until(gone, 10, "the import is gone once it expires", every=0.5)
        assert not ana.server_errors()
