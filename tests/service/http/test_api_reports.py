"""Reports: made by a player with their evidence as it was, once however often they are sent, budgeted per token."""

from __future__ import annotations

from typing import Any

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


def grant(api: Api, token: str) -> None:
    player = api.runtime.accounts.by_token(token)
    assert player is not None and api.runtime.safety is not None
    api.runtime.safety.moderation.set_role(player, True)


def signed_up(api: Api, name: str, handle: str) -> dict[str, Any]:
    answer = api.call("POST", "/v1/players", json={"name": name, "handle": handle})
    assert answer.status_code == 201
    return answer.get_json()


def test_a_report_keeps_its_evidence_as_it_was(api):
    ana, bo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b")
    game = api.game(bo["token"], [HUMAN, HUMAN, ai()], listed=True)
    assert api.call("POST", f"/v1/games/{game['id']}/join", ana["token"], json={}).status_code == 200
    made = api.call("POST", "/v1/reports", ana["token"], json={"player": "bo_b", "reason": "harassment", "game_id": game["id"]})
    assert made.status_code == 201, made.get_json()
    report = made.get_json()
    assert report["status"] == "open" and report["reported_id"] == bo["id"] and report["reporter_id"] == ana["id"]
    version = api.view(game["id"], ana["token"])["version"]
    assert report["evidence"] == {"name": "Bo", "handle": "bo_b", "game_id": game["id"], "game_version": version, "messages": []}
    api.call("PATCH", "/v1/players/me", bo["token"], json={"name": "Bob", "handle": "bob_b"})
    moderator = api.player("Mo")
    grant(api, moderator["token"])
    kept = api.call("GET", f"/v1/reports/{report['id']}", moderator["token"]).get_json()
    assert kept["evidence"]["name"] == "Bo" and kept["evidence"]["handle"] == "bo_b"
    assert kept["target_seconds"] == 86400 and kept["overdue"] is False and kept["age_seconds"] >= 0


def test_the_same_report_twice_is_one(api):
    ana, bo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b")
    first = api.call("POST", "/v1/reports", ana["token"], json={"player": "bo_b", "reason": "offensive_name"})
    again = api.call("POST", "/v1/reports", ana["token"], json={"player": bo["id"], "reason": "offensive_name"})
    assert first.status_code == 201 and again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json()["id"] == again.get_json()["id"]
    other = api.call("POST", "/v1/reports", ana["token"], json={"player": "bo_b", "reason": "cheating"})
    assert other.status_code == 201 and other.get_json()["id"] != first.get_json()["id"]
    moderator = api.player("Mo")
    grant(api, moderator["token"])
    assert len(api.call("GET", "/v1/reports", moderator["token"]).get_json()["reports"]) == 2


def test_what_cannot_be_reported_is_refused(api):
    ana, bo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b")
    game = api.game(ana["token"], [HUMAN, ai()])
    cases = [
        ({"player": "ana_a", "reason": "other"}, 422, "cannot_report_yourself"),
        ({"player": "nobody", "reason": "other"}, 404, "player_not_found"),
        ({"player": "bo_b", "reason": "rude"}, 422, "invalid_request"),
        ({"player": "bo_b", "reason": "stalling", "game_id": game["id"]}, 422, "player_not_in_game"),
        ({"player": "bo_b", "reason": "stalling", "game_id": "g_0000000000000000"}, 404, "game_not_found"),
    ]
    for body, status, code in cases:
        answer = api.call("POST", "/v1/reports", ana["token"], json=body)
        assert (answer.status_code, answer.get_json()["code"]) == (status, code), body
    assert api.call("POST", "/v1/reports", json={"player": "bo_b", "reason": "other"}).status_code == 401
    assert bo


def test_a_flood_of_reports_is_refused_past_the_budget_and_the_queue_stays_usable(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_report="3 per hour"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    flooder = api.player("Flo")
    targets = [signed_up(api, f"T{n}", f"target{n}") for n in range(6)]
    answers = [
        api.call("POST", "/v1/reports", flooder["token"], json={"player": t["id"], "reason": "other"}).status_code
        for t in targets
    ]
    assert answers[:3] == [201, 201, 201] and set(answers[3:]) == {429}
    honest = api.player("Ana")
    assert api.call("POST", "/v1/reports", honest["token"], json={"player": "target5", "reason": "other"}).status_code == 201
    moderator = api.player("Mo")
    grant(api, moderator["token"])
    queue = api.call("GET", "/v1/reports", moderator["token"])
    assert queue.status_code == 200 and len(queue.get_json()["reports"]) == 4


def test_get_me_says_whether_the_caller_is_a_moderator(api):
    """A client shows its moderation screen by getMe's ``moderator``; the role is read afresh on each call."""
    ana = signed_up(api, "Ana", "ana_role")
    assert api.call("GET", "/v1/players/me", ana["token"]).get_json()["moderator"] is False
    grant(api, ana["token"])
    assert api.call("GET", "/v1/players/me", ana["token"]).get_json()["moderator"] is True
    player = api.runtime.accounts.by_token(ana["token"])
    assert player is not None and api.runtime.safety is not None
    api.runtime.safety.moderation.set_role(player, False)
    assert api.call("GET", "/v1/players/me", ana["token"]).get_json()["moderator"] is False
