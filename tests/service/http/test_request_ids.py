"""Request ids (issue 41, item 2): each request's id in its answer's header, in a problem's body, in its log lines and
in those of the jobs it causes; and no secret in any log line of a session, text or JSON."""

from __future__ import annotations

import json
import logging

import pytest

from service.application.push import new_vapid_key, public_key_of
from service.common.logformat import JsonFormatter, TextFormatter
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for
from tests.workers.push_service import PushService
from tests.workers.test_jobs import Receiver, receiver  # noqa: F401 (fixture)


def test_a_safe_incoming_id_is_honoured_and_any_other_replaced(api):
    kept = api.call("GET", "/healthz", headers={"X-Request-Id": "lb-7f3a.2_x"})
    assert kept.headers["X-Request-Id"] == "lb-7f3a.2_x"
    made = [api.call("GET", "/healthz").headers["X-Request-Id"] for _ in range(2)]
    assert made[0] != made[1] and all(len(rid) == 16 for rid in made)
    for unsafe in ("a" * 65, "two words", "line\nbreak", "", "é"):
        try:
            answer = api.call("GET", "/healthz", headers={"X-Request-Id": unsafe})
        except ValueError:  # werkzeug's client refuses a newline in a header before it is sent
            continue
        rid = answer.headers["X-Request-Id"]
        assert rid != unsafe and len(rid) == 16, (unsafe, rid)


def test_a_problem_carries_the_request_id_of_its_header(api):
    token = api.player()["token"]
    refused = api.call("GET", "/v1/games/g_nope", token, headers={"X-Request-Id": "trace-404"})
    assert refused.status_code == 404
    assert refused.get_json()["request_id"] == refused.headers["X-Request-Id"] == "trace-404"
    invalid = api.call("POST", "/v1/games", token, json={"seats": "many"})
    assert invalid.status_code == 422 and invalid.get_json()["request_id"] == invalid.headers["X-Request-Id"]


def test_a_request_id_flows_from_a_move_into_the_ai_job_it_causes(api, caplog, monkeypatch):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    api.run_jobs()  # the AI may lead
    caplog.set_level(logging.INFO)
    for name in ("red7", "red7.worker"):  # whatever an earlier test's process set on our loggers
        caplog.set_level(logging.INFO, logger=name)
        monkeypatch.setattr(logging.getLogger(name), "disabled", False)
        monkeypatch.setattr(logging.getLogger(name), "propagate", True)
    caplog.clear()
    view = api.view(game["id"], token)
    while view["legal_steps"]:  # the steps of a turn, each its own request, until the AI is to play
        steps = [s for s in view["legal_steps"] if s["type"] != "fold"] or view["legal_steps"]
        step = {k: steps[0][k] for k in ("type", "card", "seat", "to") if k in steps[0]}
        moved = api.act(game["id"], token, [step], headers={"X-Request-Id": "move-1234", "If-Match": f'"{view["version"]}"'})
        assert moved.status_code == 200, moved.get_json()
        view = moved.get_json()
    api.run_jobs()
    jobs = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == "red7.worker"]
    ai_turns = [line for line in jobs if line.get("job") == "ai_turn"]
    assert ai_turns, jobs
    caused = [line for line in ai_turns if line.get("request_id") == "move-1234"]  # (a look may queue one unasked)
    assert caused, ai_turns
    assert caused[0]["message"].startswith("job ai_turn ran on ")
    ends = [TextFormatter().format(r) for r in caplog.records if r.name == "red7.worker"]
    assert any(line.endswith("[move-1234]") for line in ends), ends


def test_a_requests_log_line_says_its_id_route_and_player(api, caplog):
    ana = api.player()
    caplog.set_level(logging.INFO)
    log = logging.getLogger("red7.test")
    app = create_app(api.runtime)

    @app.after_request
    def say(response):  # after the route: the player is known
        log.info("answered")
        return response

    app.test_client().get("/v1/players/me", headers={"X-Request-Id": "who-am-i", "Authorization": f"Bearer {ana['token']}"})
    line = json.loads(JsonFormatter().format(next(r for r in caplog.records if r.name == "red7.test")))
    assert line["request_id"] == "who-am-i" and line["route"] == "GET /v1/players/me" and line["player_id"] == ana["id"]
    assert {"time", "level", "logger", "message"} <= set(line)


@pytest.fixture
def pushing_api(redis_pair, key_prefix):
    key = new_vapid_key()
    runtime = build_runtime(settings_for(key_prefix, vapid_private_key=key), clients=redis_pair)
    service = PushService(public_key_of(key))
    try:
        yield Api(create_app(runtime), runtime), service
    finally:
        service.close()


def test_no_secret_is_in_any_log_line_of_a_session(pushing_api, receiver, caplog):  # noqa: F811 (fixture)
    """Tokens, a webhook's secret, push keys and stream tickets, each used in a session of calls and jobs: none of them
    in any line logged, formatted as text or as JSON (a line's arguments included)."""
    api, push = pushing_api
    caplog.set_level(logging.DEBUG)
    ana, bo = api.player("Ana"), api.player("Bo")
    secrets = [ana["token"], bo["token"]]
    issued = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()
    secrets.append(issued["token"])
    me = api.call("PATCH", "/v1/players/me", ana["token"], json={"webhook_url": receiver}).get_json()
    secrets.append(me["webhook_secret"])
    phone = push.device("phone")
    subscription = phone.subscription()
    assert api.call("POST", "/v1/players/me/push-subscription", bo["token"], json=subscription).status_code == 201
    secrets += list(subscription["keys"].values())
    game = api.game(ana["token"], [HUMAN, HUMAN])
    secrets.append(game["join_code"])
    assert api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]}).status_code == 200
    ticket = api.call("POST", f"/v1/games/{game['id']}/stream-tickets", ana["token"]).get_json()["ticket"]
    secrets.append(ticket)
    api.call("GET", f"/v1/games/{game['id']}/stream?ticket={ticket}")
    api.call("GET", "/v1/games/g_nope", f"{ana['token']}x")  # a token refused
    api.run_jobs()
    assert Receiver.received or push.received, "the session delivered nothing: it proves nothing about deliveries"
    lines = [f(r) for r in caplog.records for f in (JsonFormatter().format, TextFormatter().format)]
    assert len(lines) > 2
    leaks = [(secret[:6], line) for line in lines for secret in secrets if secret in line]
    assert leaks == []


def test_a_jobs_line_keeps_its_own_id_when_rq_still_names_another_job(api, caplog, monkeypatch):
    """A stale current job (RQ's) once stamped the line first, and logging refused the job's own fields (KeyError):
    the line was lost. The job's own fields win now."""
    import rq

    from service.common import logformat
    from service.jobqueue import logcontext

    stale = type("Stale", (), {"func_name": "stale", "meta": {"request_id": "stale-id"}})()
    monkeypatch.setattr(logcontext, "get_current_job", lambda: stale)
    logformat.add_context(logcontext.job_context)
    assert rq.__version__
    test_a_request_id_flows_from_a_move_into_the_ai_job_it_causes(api, caplog, monkeypatch)
