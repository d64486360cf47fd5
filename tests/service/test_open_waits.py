"""Caps on open waits: a token, and an address, hold only so many long-polls and streams open at once."""

from __future__ import annotations

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.service.conftest import HUMAN, Api, settings_for


@pytest.fixture
def capped(redis_pair, key_prefix):
    settings = settings_for(key_prefix, max_waits_per_token=1, max_waits_per_address=2, long_poll_max=0.2)
    runtime = build_runtime(settings, clients=redis_pair)
    return Api(create_app(runtime), runtime)


def open_stream(api: Api, game_id: str, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.client.get(f"/v1/games/{game_id}/stream", headers=headers, buffered=False)


def test_a_token_holds_only_so_many_waits_and_gets_them_back_when_they_end(capped):
    api = capped
    ana = api.player("Ana")["token"]
    game = api.game(ana, [HUMAN, HUMAN])
    first = open_stream(api, game["id"], ana)
    assert first.status_code == 200
    refused = open_stream(api, game["id"], ana)
    problem = refused.get_json()
    assert refused.status_code == 429 and problem["code"] == "too_many_waits" and refused.headers["Retry-After"] == "1"
    auth = {"Authorization": f"Bearer {ana}"}
    poll = api.client.get(f"/v1/games/{game['id']}/events?after={game['version']}&wait=1", headers=auth)
    assert poll.status_code == 429  # a long-poll that would wait counts too
    assert api.call("GET", f"/v1/games/{game['id']}/events?after=0", ana).status_code == 200  # a page that waits not
    first.close()  # the client went away
    second = open_stream(api, game["id"], ana)
    assert second.status_code == 200
    second.close()


def test_an_address_holds_only_so_many_waits(capped):
    api = capped
    game = api.game(api.player("Ana")["token"], [HUMAN, HUMAN])
    streams = [open_stream(api, game["id"]) for _ in range(2)]
    assert [s.status_code for s in streams] == [200, 200]
    assert open_stream(api, game["id"]).status_code == 429
    for stream in reversed(streams):  # in one thread (the test client's), streams end in the order they began
        stream.close()
    assert api.call("GET", f"/v1/games/{game['id']}/events?after={game['version']}&wait=0.1").status_code == 200
