"""Moderation: the role checked on every call, decisions on reports, actions on players and what they do (tokens
refused, tickets, challenges and tables closed, seats to an AI, off the leaderboards), the audit log and notices,
and the same actions from the CLI."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.domain.reports import Evidence, Report, report_id
from service.processes import mod_cli
from tests.harness.support import HUMAN, Api, ai
from tests.service.http.test_api_reports import grant, signed_up

MODERATOR_CALLS = [
    ("GET", "/v1/reports", None),
    ("GET", "/v1/reports/r_0000000000000000", None),
    ("POST", "/v1/reports/r_0000000000000000/decision", {"action": "dismiss", "reason": "x"}),
    ("POST", "/v1/players/bo_b/moderation", {"action": "warn", "reason": "x"}),
    ("GET", "/v1/moderation/log", None),
]


def cli(runtime: Any, *words: str, **options: Any) -> int:
    action, *rest = words
    values: dict[str, Any] = {"mod_action": action, "reason": "by the operator", "seconds": None, **options}
    if action in ("grant", "revoke", *mod_cli.PLAYER_ACTIONS):
        values["player"] = rest[0]
    if action == "decide":
        values["report"], values["action"] = rest
    return mod_cli.run(argparse.Namespace(**values), runtime)


def report(api: Api, token: str, player: str, reason: str = "harassment", **more: Any) -> dict[str, Any]:
    made = api.call("POST", "/v1/reports", token, json={"player": player, "reason": reason, **more})
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_only_moderators_may_read_reports_and_act(api, capsys):
    signed_up(api, "Bo", "bo_b")
    mo = signed_up(api, "Mo", "mo_m")
    for method, path, body in MODERATOR_CALLS:
        refused = api.call(method, path, mo["token"], json=body)
        assert (refused.status_code, refused.get_json()["code"]) == (403, "not_a_moderator"), path
    assert cli(api.runtime, "grant", "mo_m") == 0
    assert api.call("GET", "/v1/reports", mo["token"]).status_code == 200
    assert api.call("GET", "/v1/moderation/log", mo["token"]).status_code == 200
    assert cli(api.runtime, "revoke", mo["id"]) == 0
    assert api.call("GET", "/v1/reports", mo["token"]).get_json()["code"] == "not_a_moderator"
    assert cli(api.runtime, "grant", "nobody_here") == 2
    actions = [entry.action for entry in api.runtime.safety.moderation.log_page(None, 10)[0]]
    assert actions == ["grant", "revoke"]


def test_a_report_is_decided_once_and_the_reporter_is_told(api):
    ana, bo, mo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b"), api.player("Mo")
    grant(api, mo["token"])
    first, second = report(api, ana["token"], "bo_b"), report(api, ana["token"], "bo_b", "offensive_name")
    queue = api.call("GET", "/v1/reports", mo["token"]).get_json()["reports"]
    assert [r["id"] for r in queue] == [first["id"], second["id"]], "oldest first"
    decided = api.call("POST", f"/v1/reports/{first['id']}/decision", mo["token"], json={"action": "dismiss", "reason": "banter"})
    assert decided.status_code == 200 and decided.get_json()["status"] == "decided"
    assert decided.get_json()["decision"]["by"] == mo["id"] and decided.get_json()["decision"]["action"] == "dismiss"
    again = api.call("POST", f"/v1/reports/{first['id']}/decision", mo["token"], json={"action": "ban", "reason": "x"})
    assert (again.status_code, again.get_json()["code"]) == (409, "report_already_decided")
    assert [r["id"] for r in api.call("GET", "/v1/reports", mo["token"]).get_json()["reports"]] == [second["id"]]
    notices = api.call("GET", "/v1/players/me/notices?lang=de", ana["token"]).get_json()["notices"]
    assert notices[0]["code"] == "notice.report_handled" and "Meldung" in notices[0]["text"]
    assert api.call("GET", "/v1/players/me/notices", bo["token"]).get_json()["notices"] == []
    log = api.call("GET", "/v1/moderation/log", mo["token"]).get_json()["entries"]
    assert log[-1] | {"id": "", "at": ""} == {
        "id": "",
        "at": "",
        "by": mo["id"],
        "by_name": "Mo",
        "player_id": bo["id"],
        "player_name": "Bo",
        "action": "dismiss",
        "reason": "banter",
        "report_id": first["id"],
        "until": None,
    }


def test_the_queue_says_which_reports_are_past_the_24_hour_target(api):
    ana, mo = signed_up(api, "Ana", "ana_a"), api.player("Mo")
    signed_up(api, "Bo", "bo_b")
    grant(api, mo["token"])
    api.runtime.safety.reports.clock = lambda: "2026-01-01T00:00:00.000Z"
    old = report(api, ana["token"], "bo_b")
    listed = api.call("GET", "/v1/reports", mo["token"]).get_json()["reports"]
    assert listed[0]["id"] == old["id"] and listed[0]["overdue"] is True and listed[0]["age_seconds"] > 86400


def test_a_warning_and_a_rename_are_told_and_a_rename_takes_name_and_handle(api):
    bo, mo = signed_up(api, "Bo", "bo_b"), api.player("Mo")
    grant(api, mo["token"])
    warned = api.call("POST", "/v1/players/bo_b/moderation", mo["token"], json={"action": "warn", "reason": "spam"})
    assert warned.status_code == 200 and warned.get_json()["action"] == "warn"
    renamed = api.call("POST", f"/v1/players/{bo['id']}/moderation", mo["token"], json={"action": "rename", "reason": "slur"})
    assert renamed.status_code == 200
    me = api.call("GET", "/v1/players/me", bo["token"]).get_json()
    assert me["name"] == f"Player {bo['id'][-6:]}" and me["handle"] is None
    codes = [n["code"] for n in api.call("GET", "/v1/players/me/notices", bo["token"]).get_json()["notices"]]
    assert codes == ["notice.renamed", "notice.warned"]
    timed = api.call("POST", "/v1/players/bo_b/moderation", mo["token"], json={"action": "mute", "reason": "x"})
    assert timed.status_code == 404, "the handle was given up"
    timed = api.call("POST", f"/v1/players/{bo['id']}/moderation", mo["token"], json={"action": "mute", "reason": "x"})
    assert (timed.status_code, timed.get_json()["code"]) == (422, "invalid_request"), "a mute lasts a period"


def test_a_suspension_refuses_every_token_until_it_ends(api):
    bo, mo = signed_up(api, "Bo", "bo_b"), api.player("Mo")
    grant(api, mo["token"])
    body = {"action": "suspend", "reason": "stalling", "seconds": 3600}
    entry = api.call("POST", "/v1/players/bo_b/moderation", mo["token"], json=body).get_json()
    for method, path in (("GET", "/v1/players/me"), ("POST", "/v1/games")):
        refused = api.call(method, path, bo["token"], json={"seats": [HUMAN, ai()]} if method == "POST" else None)
        assert (refused.status_code, refused.get_json()["code"]) == (403, "player_suspended")
        assert refused.get_json()["until"] == entry["until"] and int(refused.headers["Retry-After"]) > 3500
    gate = api.runtime.safety.gate
    gate.now = lambda: datetime.now(UTC) + timedelta(seconds=3601)
    gate.forget(bo["id"])
    assert api.call("GET", "/v1/players/me", bo["token"]).status_code == 200


def test_a_ban_closes_what_is_open_seats_an_ai_and_takes_the_player_off_the_ladders(api):
    ana, bo, mo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b"), api.player("Mo")
    grant(api, mo["token"])
    rated = api.game(bo["token"], [HUMAN, ai("random")], variant="basic", rated=True)
    api.call("POST", f"/v1/games/{rated['id']}/leave", bo["token"], json={})
    api.run_jobs()
    assert api.runtime.ratings.hidden_because(bo["id"]) == ()
    listed = api.game(bo["token"], [HUMAN, HUMAN], listed=True)
    in_play = api.game(bo["token"], [HUMAN, ai()], variant="basic")
    ticket = api.call("POST", "/v1/match-tickets", bo["token"], json={"player_counts": [2]}).get_json()
    sent = api.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]]}).get_json()
    made = report(api, ana["token"], "bo_b")
    banned = api.call("POST", f"/v1/reports/{made['id']}/decision", mo["token"], json={"action": "ban", "reason": "abuse"})
    assert banned.status_code == 200 and banned.get_json()["decision"]["until"] is None

    refused = api.call("GET", "/v1/players/me", bo["token"])
    assert (refused.status_code, refused.get_json()["code"], refused.get_json()["until"]) == (403, "player_banned", None)
    assert api.view(listed["id"], mo["token"])["status"] == "cancelled"
    assert api.call("GET", f"/v1/challenges/{sent['id']}", ana["token"]).get_json()["status"] == "cancelled"
    player = api.runtime.players.get(bo["id"])
    assert api.runtime.matches.get(player, ticket["id"]).status == "cancelled"
    api.run_jobs()
    view = api.view(in_play["id"])
    assert view["seats"][0]["resigned"] is True or view["status"] == "finished"
    assert api.runtime.ratings.hidden_because(bo["id"]) == ("banned",), "off every leaderboard"
    assert api.runtime.ratings.rebuild().identical, "ladders equal their rebuild"
    codes = [n["code"] for n in api.call("GET", "/v1/players/me/notices", ana["token"]).get_json()["notices"]]
    assert codes == ["notice.report_handled"]

    assert cli(api.runtime, "unban", "bo_b", reason="appeal granted") == 0
    assert api.call("GET", "/v1/players/me", bo["token"]).status_code == 200
    assert api.runtime.ratings.hidden_because(bo["id"]) == ()
    assert api.runtime.ratings.rebuild().identical
    actions = [(e["action"], e["by"]) for e in api.call("GET", "/v1/moderation/log", mo["token"]).get_json()["entries"]]
    assert actions[-2:] == [("ban", mo["id"]), ("unban", "operator")]


def test_a_banned_or_suspended_player_may_still_delete_their_account(api):
    """Leaving for good is not taken away by a sanction; the audit keeps the decision under the pseudonymous id."""
    bo, cy, mo = signed_up(api, "Bo", "bo_b"), signed_up(api, "Cy", "cy_c"), api.player("Mo")
    grant(api, mo["token"])
    for handle, action in (("bo_b", "ban"), ("cy_c", "suspend")):
        body = {"action": action, "reason": "abuse", **({"seconds": 3600} if action == "suspend" else {})}
        assert api.call("POST", f"/v1/players/{handle}/moderation", mo["token"], json=body).status_code == 200
    for player in (bo, cy):
        assert api.call("GET", "/v1/players/me", player["token"]).status_code == 403
        assert api.call("DELETE", "/v1/players/me", player["token"]).status_code == 204
        assert api.call("GET", "/v1/players/me", player["token"]).get_json()["code"] == "invalid_token"
    log = api.call("GET", "/v1/moderation/log", mo["token"]).get_json()["entries"]
    assert [(e["action"], e["player_id"]) for e in log[-2:]] == [("ban", bo["id"]), ("suspend", cy["id"])]


def test_the_operator_acts_from_the_cli(api, capsys):
    ana, bo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b")
    made = report(api, ana["token"], "bo_b", "cheating")
    assert cli(api.runtime, "reports") == 0
    assert made["id"] in capsys.readouterr().out
    assert cli(api.runtime, "decide", made["id"], "suspend", seconds=600) == 0
    assert api.call("GET", "/v1/players/me", bo["token"]).get_json()["code"] == "player_suspended"
    assert cli(api.runtime, "decide", made["id"], "ban") == 2, "decided once"
    assert cli(api.runtime, "log") == 0
    assert '"action": "suspend"' in capsys.readouterr().out


def test_the_queue_and_the_log_name_the_players_as_they_are_now(api, capsys):
    """Names beside ids: the reporter's and reported player's in the queue, the moderator's and player's in the log;
    a rename shows at once (the evidence keeps the name as it was), a deleted account's name is gone."""
    ana, bo, mo = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b"), signed_up(api, "Mo", "mo_m")
    grant(api, mo["token"])
    made = report(api, ana["token"], "bo_b")
    assert (made["reporter_name"], made["reported_name"]) == ("Ana", "Bo")
    api.call("PATCH", "/v1/players/me", bo["token"], json={"name": "Bob"})
    queued = api.call("GET", "/v1/reports", mo["token"]).get_json()["reports"][0]
    assert (queued["reporter_name"], queued["reported_name"], queued["evidence"]["name"]) == ("Ana", "Bob", "Bo")
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    got = api.call("GET", f"/v1/reports/{made['id']}", mo["token"]).get_json()
    assert (got["reporter_id"], got["reporter_name"], got["reported_name"]) == (ana["id"], None, "Bob")
    decided = api.call("POST", f"/v1/reports/{made['id']}/decision", mo["token"], json={"action": "warn", "reason": "rude"})
    assert decided.status_code == 200
    assert cli(api.runtime, "warn", "bo_b") == 0
    capsys.readouterr()
    entries = api.call("GET", "/v1/moderation/log", mo["token"]).get_json()["entries"]
    named = [(e["action"], e["by"], e["by_name"], e["player_name"]) for e in entries]
    assert named[-2:] == [("warn", mo["id"], "Mo", "Bob"), ("warn", "operator", None, "Bob")]
    assert named[0] == ("grant", "operator", None, "Mo")


@pytest.mark.every_store
def test_the_queue_pages_past_a_hundred_with_none_missed_or_repeated(api):
    """250 open reports (made within the same few milliseconds), read a page at a time by ``next_cursor`` while the
    moderator decides some already read: each report still open is read once, oldest first."""
    mo = api.player("Mo")
    grant(api, mo["token"])
    reporters = [api.player(f"R{n}") for n in range(5)]
    bo = signed_up(api, "Bo", "bo_b")
    store = api.runtime.safety.reports.store
    made = []
    for n in range(250):
        reporter = reporters[n % 5]
        evidence = Evidence("Bo", "bo_b", f"g_{n:016x}", 1)
        at = f"2026-11-28T10:00:00.{n // 4:03d}Z"  # four reports a millisecond
        made.append(
            Report(
                report_id(reporter["id"], bo["id"], "other", f"g_{n:016x}", None),
                reporter["id"],
                bo["id"],
                "other",
                "",
                at,
                evidence,
            )
        )
        store.create(made[-1])
    order = [r.id for r in sorted(made, key=lambda r: (r.created_at, r.id))]
    seen: list[str] = []
    cursor, pages = None, 0
    while True:
        query = "?limit=100" + (f"&cursor={cursor}" if cursor else "")
        page = api.call("GET", f"/v1/reports{query}", mo["token"])
        assert page.status_code == 200, page.get_json()
        body = page.get_json()
        seen.extend(r["id"] for r in body["reports"])
        assert all(r["reported_name"] == "Bo" and r["reporter_name"].startswith("R") for r in body["reports"])
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
        first = body["reports"][0]["id"]  # decided once read: the queue shrinks behind the cursor
        decided = api.call("POST", f"/v1/reports/{first}/decision", mo["token"], json={"action": "dismiss", "reason": "ok"})
        assert decided.status_code == 200
    assert pages == 3 and len(seen) == len(set(seen)) == 250 and seen == order
    bad = api.call("GET", "/v1/reports?cursor=not-a-cursor", mo["token"])
    assert (bad.status_code, bad.get_json()["code"]) == (422, "invalid_request")
