"""``red7 admin`` (issue 41): a game's state and owed jobs, a stuck game offered again, the queues' health, failed jobs
listed and retried, a player shown and a token revoked; what changes something logged with who ran it."""

from __future__ import annotations

import argparse
import json
import logging

import pytest

from service.application.followups import Due
from service.processes import admin_cli
from tests.harness.support import HUMAN, ai
from tests.workers.test_jobs import Receiver, receiver  # noqa: F401 (fixture)
from tests.workers.test_notices import run_one

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def admin(api, capsys, *argv: str) -> tuple[int, object]:
    """Run ``red7 admin --json --by alice ARGV`` on the test's runtime: its exit status and the JSON it printed."""
    parser = argparse.ArgumentParser()
    admin_cli.add_parser(parser.add_subparsers())
    capsys.readouterr()
    status = admin_cli.run(parser.parse_args(["admin", "--json", "--by", "alice", *argv]), api.runtime)
    out = capsys.readouterr().out
    return status, json.loads(out) if out.strip() else None


def ai_leads(api, token: str) -> dict:
    for seed in range(1, 40):
        game = api.game(token, [ai("greedy"), HUMAN], seed=seed)
        if game["turn"]["seat"] == 0:
            return game
    raise AssertionError("no deal where the AI leads")


def test_a_game_shows_its_state_and_the_job_it_is_owed_and_a_stuck_one_is_offered_again(api, capsys, caplog):
    token = api.player()["token"]
    game = ai_leads(api, token)
    status, shown = admin(api, capsys, "game", game["id"])
    assert status == 0 and shown["id"] == game["id"] and shown["version"] == game["version"] and shown["shard"] == 0
    assert [s["kind"] for s in shown["seats"]] == ["ai", "human"] and shown["seat_to_move"] == 0
    assert [(o["job"], o["status"]) for o in shown["owed"]] == [("ai_turn", "queued")]

    dispatcher = api.runtime.dispatcher  # the job lost with its marker (a queue's Redis that lost its data)
    owed = Due("ai_turn", game["id"], game["version"])
    api.runtime.queue.empty()
    api.runtime.raw_redis.delete(dispatcher._marker(owed, owed.job_id(dispatcher.namespace)))
    assert [o["status"] for o in admin(api, capsys, "game", game["id"])[1]["owed"]] == ["none"]
    caplog.set_level(logging.INFO, logger="red7.admin")
    status, done = admin(api, capsys, "reoffer", game["id"])
    assert status == 0 and done == {"game": game["id"], "queued": True}
    assert [o["status"] for o in admin(api, capsys, "game", game["id"])[1]["owed"]] == ["queued"]
    said = [r.getMessage() for r in caplog.records if r.name == "red7.admin"]
    assert said == [f"admin reoffer of game {game['id']} by alice: queued"]
    assert admin(api, capsys, "game", "g_nope")[0] == 1


def test_queues_show_a_failed_job_which_is_listed_and_retried(api, capsys, caplog, receiver):  # noqa: F811 (fixture)
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    Receiver.status = 410  # refused for good: the job fails at once, with no retry
    api.runtime.dispatcher.enqueue(Due("notify", "g_a", 1, (me["id"], "your_turn")), request_id="move-9")
    run_one(api)
    _, health = admin(api, capsys, "queues")
    webhooks = next(q for q in health if q["queue"] == "webhooks" and q["shard"] == 0)
    assert webhooks["failed"] == 1 and webhooks["depth"] == 0 and webhooks["oldest_seconds"] is None
    _, failed = admin(api, capsys, "failed")
    assert [(f["kind"], f["queue"], f["request_id"]) for f in failed] == [("notify", "webhooks", "move-9")]
    assert failed[0]["args"][:3] == ["g_a", 1, me["id"]] and "410" in failed[0]["error"]
    caplog.set_level(logging.INFO, logger="red7.admin")
    assert admin(api, capsys, "retry", "no-such-job") == (1, {"retried": []})
    assert admin(api, capsys, "retry", failed[0]["id"]) == (0, {"retried": [failed[0]["id"]]})
    _, health = admin(api, capsys, "queues")
    webhooks = next(q for q in health if q["queue"] == "webhooks" and q["shard"] == 0)
    assert webhooks["failed"] == 0 and webhooks["depth"] == 1 and webhooks["oldest_seconds"] >= 0
    assert f"admin retry by alice: {failed[0]['id']}" in [r.getMessage() for r in caplog.records]


def test_a_player_is_shown_with_tokens_by_label_and_a_token_is_revoked(api, capsys, caplog):
    ana = api.player("Ana")
    phone = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()
    game = api.game(ana["token"], [HUMAN, ai()])
    status, shown = admin(api, capsys, "player", ana["id"])
    assert status == 0 and shown["id"] == ana["id"] and shown["name"] == "Ana"
    assert "phone" in [t["label"] for t in shown["tokens"]] and game["id"] in shown["games_in_play"]
    assert phone["token"] not in json.dumps(shown) and ana["token"] not in json.dumps(shown), "no token shown"
    caplog.set_level(logging.INFO, logger="red7.admin")
    token_id = next(t["id"] for t in shown["tokens"] if t["label"] == "phone")
    assert admin(api, capsys, "revoke", ana["id"], token_id) == (0, {"player": ana["id"], "revoked": token_id})
    assert "phone" not in [t["label"] for t in admin(api, capsys, "player", ana["id"])[1]["tokens"]]
    assert api.call("GET", "/v1/players/me", phone["token"]).status_code == 401
    assert f"admin revoke of token {token_id} of player {ana['id']} by alice" in [r.getMessage() for r in caplog.records]
    assert admin(api, capsys, "player", "p_nobody")[0] == 1
