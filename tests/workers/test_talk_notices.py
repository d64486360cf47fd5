"""Table talk's notices by webhook: the other seated players who receive a message are told (their mutes, blocks
and reach honoured), never what was said, and a held message tells nobody."""

from __future__ import annotations

import json

import pytest

from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def hooked(api, name: str, url: str) -> dict:
    player = api.player(name)
    me = api.call("PATCH", "/v1/players/me", player["token"], json={"webhook_url": url}).get_json()
    return {**player, "secret": me["webhook_secret"]}


def test_the_other_seated_players_who_receive_a_message_are_told(api, receiver):  # noqa: F811 (the fixture)
    ana, bo, cy = hooked(api, "Ana", receiver), hooked(api, "Bo", receiver), hooked(api, "Cy", receiver)
    game = api.game(ana["token"], [{"kind": "human"}] * 3, listed=True)
    for player in (bo, cy):
        assert api.call("POST", f"/v1/games/{game['id']}/join", player["token"], json={}).status_code == 200
    api.run_jobs()
    Receiver.received.clear()
    api.call("PUT", f"/v1/players/me/mutes/{ana['id']}", cy["token"])  # Cy muted Ana: not told
    said = api.call("POST", f"/v1/games/{game['id']}/talk", ana["token"], json={"text": "a secret plan"})
    assert said.status_code == 200
    api.run_jobs()
    told = [json.loads(body) for _, body in Receiver.received]
    assert [(t["player_id"], t["event"], t["game_id"]) for t in told] == [(bo["id"], "table_talk", game["id"])]
    assert verify(bo["secret"], *Receiver.received[0])
    assert "secret plan" not in json.dumps(told)  # the player reads it with listTableTalk
    assert told[0]["title_code"] == "push.table_talk.title"
    Receiver.received.clear()
    assert api.runtime.safety is not None
    api.runtime.safety.screen.change_words(["snorklewacker"], add=True)
    api.call("POST", f"/v1/games/{game['id']}/talk", ana["token"], json={"text": "snorklewacker"})
    api.run_jobs()
    assert Receiver.received == []  # held back: nobody is told
