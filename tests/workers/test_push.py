"""Web push and reminders, with the workers running in this process (the embedded server's supervisor).

The push service is the tests' own (``tests/workers/push_service.py``): it checks each message's VAPID signature and
decrypts it with the subscription's keys, as a browser's would.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from service.application.push import new_vapid_key, public_key_of
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.deployment import wait_until
from tests.harness.support import HUMAN, Api, ai, settings_for
from tests.workers.push_service import Device, PushService
from workers.runner import start_embedded

#: How late a reminder may fire after its time (seconds): the ticker's tick, a queued job, a push.
LATE_BOUND = 2.0


@pytest.fixture
def pushing(redis_pair, key_prefix):
    """An app with a VAPID key and workers running, on a clock ``offset[0]`` seconds ahead; a push service."""
    key = new_vapid_key()
    offset = [0.0]
    runtime = build_runtime(
        settings_for(key_prefix, vapid_private_key=key),
        clients=redis_pair,
        clock=lambda: datetime.now(UTC) + timedelta(seconds=offset[0]),
    )
    service = PushService(public_key_of(key))
    stop = start_embedded(runtime, idle=1)
    try:
        yield Api(create_app(runtime), runtime), service, offset
    finally:
        stop.set()
        service.close()
        time.sleep(1.2)  # the runners look at their stop event between waits


def test_your_turn_arrives_encrypted_and_signed_and_a_410_removes_the_subscription(pushing):
    api, service, _ = pushing
    ana = api.player("Ana")
    assert api.call("GET", "/v1/push/key").get_json() == {"public_key": service.server_key}
    page = api.client.get("/play").get_data(as_text=True)  # the web client gets the same key in its page
    assert f'<meta name="red7-push-key" content="{service.server_key}">' in page
    phone, laptop = service.device("phone"), service.device("laptop")
    made = api.call("POST", "/v1/players/me/push-subscription", ana["token"], json=phone.subscription())
    assert made.status_code == 201 and made.get_json()["endpoint"] == phone.endpoint
    second = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "laptop"}).get_json()["token"]
    assert api.call("POST", "/v1/players/me/push-subscription", second, json=laptop.subscription()).status_code == 201
    service.answers["laptop"] = 410  # the laptop's browser dropped its subscription
    game = api.game(ana["token"], [HUMAN, ai("greedy")], seed=3, turn_timeout=600)

    def pushed() -> list:
        return [r for r in service.received if r.message["event"] == "your_turn" and r.message["game_id"] == game["id"]]

    arrived = wait_until(pushed, 10, "a your-turn push reaches the phone")[0]
    assert not service.refused, service.refused
    assert arrived.device == "phone" and arrived.headers["topic"] == game["id"].replace("_", "-")
    assert 0 < int(arrived.headers["ttl"]) <= 600 and arrived.headers["urgency"] == "high"  # ten minutes to act
    assert arrived.message["title"] == "Your turn" and arrived.message["url"] == f"/play#game={game['id']}"
    wait_until(lambda: api.runtime.push.store.count(ana["id"]) == 1, 10, "the laptop's subscription is forgotten (410)")
    assert api.call("DELETE", "/v1/players/me/push-subscription", second).status_code == 404  # gone already
    assert api.call("DELETE", "/v1/players/me/push-subscription", ana["token"]).status_code == 204
    assert api.runtime.push.store.count(ana["id"]) == 0


def test_a_push_is_said_in_the_receiving_players_language(pushing):
    api, service, _ = pushing
    ana = api.player("Ana")
    assert api.call("PATCH", "/v1/players/me", ana["token"], json={"language": "ru"}).status_code == 200
    phone = service.device("phone")
    assert api.call("POST", "/v1/players/me/push-subscription", ana["token"], json=phone.subscription()).status_code == 201
    game = api.game(ana["token"], [HUMAN, ai("greedy")], seed=3, turn_timeout=600)  # made in whatever language

    def pushed() -> list:
        return [r for r in service.received if r.message["event"] == "your_turn" and r.message["game_id"] == game["id"]]

    message = wait_until(pushed, 10, "a your-turn push reaches the phone")[0].message
    assert (message["lang"], message["title"], message["body"]) == ("ru", "Ваш ход", "Ваш ход.")
    assert (message["title_code"], message["body_code"]) == ("push.your_turn.title", "push.your_turn.body")
    feed = api.call("GET", "/v1/players/me/notifications", ana["token"]).get_json()["notifications"]
    mine = [n for n in feed if n["notification_id"] == message["notification_id"]]  # the same notice in her inbox
    assert [(n["event"], n["game_id"], n["version"], n["title"]) for n in mine] == [
        ("your_turn", game["id"], message["version"], message["title"])
    ]


def test_a_push_endpoint_must_be_public_where_private_hosts_are_not_allowed(redis_pair, key_prefix):
    runtime = build_runtime(
        settings_for(key_prefix, vapid_private_key=new_vapid_key(), webhook_private_hosts=False), clients=redis_pair
    )
    api = Api(create_app(runtime), runtime)
    ana = api.player("Ana")
    for endpoint in ("http://push.example/abc", "https://127.0.0.1/abc", "https://localhost/abc", "https://[::1]/x"):
        body = Device(endpoint).subscription()
        refused = api.call("POST", "/v1/players/me/push-subscription", ana["token"], json=body)
        assert refused.status_code == 422 and refused.get_json()["code"] == "push_endpoint_refused", endpoint


def test_reminders_fire_on_time_once_each(pushing):
    """A correspondence turn of one day: a fifth of it left (4.8 hours) and one hour left each push a reminder once, at
    most two seconds after its time (the clock jumps to a few seconds before each)."""
    api, service, offset = pushing
    ana, bo = api.player("Ana"), api.player("Bo")
    phone = service.device("phone")
    api.call("POST", "/v1/players/me/push-subscription", ana["token"], json=phone.subscription())
    game = api.game(bo["token"], [HUMAN, HUMAN], days_per_turn=1, seed=5)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", ana["token"], json={"code": game["join_code"]}).get_json()
    assert joined["status"] == "active"

    def anas_turn() -> dict | None:
        """Ana's view once it is her turn (Bo plays his, if it is his)."""
        seen = api.view(game["id"], bo["token"])
        if seen["turn"] and seen["turn"]["seat"] == 0 and seen["legal_steps"]:
            step = next(s for s in seen["legal_steps"] if s["type"] != "fold")
            api.act(game["id"], bo["token"], [{k: step[k] for k in ("type", "card", "seat", "to") if k in step}])
        mine = api.view(game["id"], ana["token"])
        return mine if mine["turn"] and mine["turn"]["seat"] == 1 else None

    view = wait_until(anas_turn, 10, "Ana's turn")
    deadline = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00"))
    late: dict[str, float] = {}
    times = (("turn_reminder", deadline - timedelta(hours=24 * 0.2)), ("last_hour_reminder", deadline - timedelta(hours=1)))
    for kind, at in times:
        offset[0] = (at - datetime.now(UTC)).total_seconds() - 3  # three seconds before it, on the game's clock

        def reminded(kind: str = kind) -> list:
            return [r for r in service.received if r.message["event"] == kind]

        arrived = wait_until(reminded, 10, f"the {kind} arrives")[0]
        late[kind] = arrived.at + offset[0] - at.timestamp()
        assert arrived.message["deadline"] == view["turn"]["deadline"]
        assert arrived.headers["urgency"] == ("high" if kind == "last_hour_reminder" else "normal")
    time.sleep(1.5)  # the ticker looks again: nothing is sent twice
    kinds = [r.message["event"] for r in service.received if r.message["event"].endswith("reminder")]
    print(f"\nreminders late by {', '.join(f'{k} {v:.2f} s' for k, v in late.items())}")
    assert kinds == ["turn_reminder", "last_hour_reminder"]
    assert all(0 <= v <= LATE_BOUND for v in late.values()), late
    assert not service.refused
