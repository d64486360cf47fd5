"""Deliveries by channel and outcome (``red7_deliveries_total``, issue 41): each webhook and push attempt counted once
by what it met; a delivery handed to its line untried, and a retry given up on, counted too."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from service.application.followups import Due
from service.application.push import new_vapid_key, public_key_of
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import Api, settings_for
from tests.workers.push_service import PushService
from tests.workers.test_jobs import Receiver, receiver  # noqa: F401 (fixture)
from tests.workers.test_notices import hooked, run_one
from workers import context, notices


def counted(channel: str, outcome: str) -> float:
    return REGISTRY.get_sample_value("red7_deliveries_total", {"channel": channel, "outcome": outcome}) or 0.0


def counts(channel: str) -> dict[str, float]:
    outcomes = ("delivered", "failed", "refused", "unregistered", "handed_over", "gave_up")
    return {outcome: counted(channel, outcome) for outcome in outcomes}


def moved(before: dict[str, float], channel: str) -> dict[str, float]:
    """What the counts of ``channel`` moved by since ``before`` (only those that moved)."""
    return {k: v - before[k] for k, v in counts(channel).items() if v != before[k]}


pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def test_webhook_deliveries_are_counted_by_outcome(api, receiver):  # noqa: F811 (the fixture)
    ana = hooked(api, receiver)
    dispatcher = api.runtime.dispatcher
    before = counts("webhook")
    dispatcher.notify([Due("notify", "g_a", 1, (ana["id"], "your_turn"))])
    run_one(api)
    assert moved(before, "webhook") == {"delivered": 1}

    before = counts("webhook")
    Receiver.status = 503
    dispatcher.notify([Due("notify", "g_a", 2, (ana["id"], "your_turn"))])
    run_one(api)  # fails, is handed to its line, and the receiver is troubled
    dispatcher.notify([Due("notify", "g_a", 3, (ana["id"], "your_turn"))])
    run_one(api)  # the retry of version 2 fails again (RQ retries it later)
    run_one(api)  # the notices of version 3: handed over untried
    assert moved(before, "webhook") == {"failed": 2, "handed_over": 1}

    before = counts("webhook")
    Receiver.status = 410  # refused for good: the delivery of version 3, in its line, is given up
    run_one(api)  # (version 2's retry waits out RQ's pause)
    assert moved(before, "webhook") == {"refused": 1, "gave_up": 1}
    assert api.runtime.webhook_queue.failed_job_registry.count == 1


@pytest.fixture
def pushing(redis_pair, key_prefix):
    key = new_vapid_key()
    runtime = build_runtime(settings_for(key_prefix, vapid_private_key=key), clients=redis_pair)
    service = PushService(public_key_of(key))
    context.install(runtime)
    try:
        yield Api(create_app(runtime), runtime), service
    finally:
        service.close()


def test_web_push_deliveries_are_counted_by_outcome_a_gone_subscription_as_unregistered(pushing):
    api, service = pushing
    ana = api.player("Ana")
    laptop_token = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "laptop"}).get_json()["token"]
    for token, device in ((ana["token"], "phone"), (laptop_token, "laptop")):
        made = api.call("POST", "/v1/players/me/push-subscription", token, json=service.device(device).subscription())
        assert made.status_code == 201
    service.answers["laptop"] = 410  # the laptop's browser dropped its subscription
    before = counts("web_push")
    said = notices.push("g_a", 1, ana["id"], "round_over")
    assert said.startswith("pushed to 1 device(s), 1 subscription(s) gone"), said
    assert moved(before, "web_push") == {"delivered": 1, "unregistered": 1}
    service.answers["phone"] = 503  # the push service is down: worth a retry
    before = counts("web_push")
    with pytest.raises(RuntimeError):
        notices.push("g_a", 2, ana["id"], "round_over")
    assert moved(before, "web_push") == {"failed": 1}
