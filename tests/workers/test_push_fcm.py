"""Native push through FCM, with the workers running in this process, against the tests' own FCM
(``tests/harness/fcm.py``: it checks the OAuth2 assertion on its token endpoint and each message's shape)."""

from __future__ import annotations

import time

import pytest

from service.application.push import new_vapid_key, public_key_of
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.deployment import wait_until
from tests.harness.fcm import FakeFcm
from tests.harness.support import HUMAN, Api, ai, settings_for
from tests.workers.push_service import PushService
from workers.runner import start_embedded

pytestmark = pytest.mark.every_store

TOKEN = "fcm-phone-1:APA91bHabc_def-123"
GONE = "fcm-tablet-2:APA91bHold"


@pytest.fixture
def fcm_pushing(redis_pair, key_prefix, tmp_path):
    """An app whose runtime sends native pushes to a fake FCM, with workers running; no VAPID key (no web push)."""
    fake = FakeFcm()
    settings = settings_for(key_prefix, fcm_credentials=str(fake.write_credentials(tmp_path)), fcm_endpoint=fake.base)
    runtime = build_runtime(settings, clients=redis_pair)
    stop = start_embedded(runtime, idle=1)
    try:
        yield Api(create_app(runtime), runtime), fake
    finally:
        stop.set()
        fake.close()
        time.sleep(1.2)  # the runners look at their stop event between waits


def test_a_move_notifies_the_device_with_the_games_collapse_key_ttl_and_priority(fcm_pushing):
    api, fake = fcm_pushing
    ana = api.player("Ana")
    assert api.call("PATCH", "/v1/players/me", ana["token"], json={"language": "ru"}).status_code == 200
    made = api.call("POST", "/v1/players/me/push-devices", ana["token"], json={"platform": "fcm", "token": TOKEN})
    assert made.status_code == 201, made.get_json()
    device = made.get_json()
    assert device["platform"] == "fcm" and made.headers["Location"] == f"/v1/players/me/push-devices/{device['id']}"
    assert TOKEN not in made.get_data(as_text=True)  # the token is never sent back
    game = api.game(ana["token"], [HUMAN, ai("greedy")], seed=3, turn_timeout=600)  # ten minutes to act

    def pushed() -> list:
        return [s for s in fake.sent if s.message["data"]["event"] == "your_turn" and s.message["data"]["game_id"] == game["id"]]

    sent = wait_until(pushed, 10, "a your-turn notice reaches the phone through FCM")[0]
    assert not fake.refused, fake.refused
    assert fake.assertions >= 1  # an access token from a signed assertion, checked by the fake
    message = sent.message
    assert sent.token == TOKEN
    collapse = game["id"].replace("_", "-")
    assert message["android"]["collapse_key"] == collapse and message["apns"]["headers"]["apns-collapse-id"] == collapse
    ttl = int(message["android"]["ttl"].rstrip("s"))
    assert 0 < ttl <= 600
    expires = int(message["apns"]["headers"]["apns-expiration"])
    assert sent.at - 5 < expires - ttl <= sent.at + 1  # the same lifetime, as a moment
    assert message["android"]["priority"] == "HIGH" and message["apns"]["headers"]["apns-priority"] == "10"  # < 1 hour
    assert (message["notification"]["title"], message["data"]["lang"]) == ("Ваш ход", "ru")
    assert message["data"]["title_code"] == "push.your_turn.title"
    assert message["data"]["notification_id"] in {n["notification_id"] for n in inbox(api, ana["token"])}
    assert message["data"]["url"] == f"/play#game={game['id']}"


def test_a_correspondence_turn_is_normal_priority_with_a_day_to_live(fcm_pushing):
    api, fake = fcm_pushing
    ana, bo = api.player("Ana"), api.player("Bo")
    api.call("POST", "/v1/players/me/push-devices", ana["token"], json={"platform": "fcm", "token": TOKEN})
    game = api.game(bo["token"], [HUMAN, HUMAN], days_per_turn=2, seed=5)
    api.call("POST", f"/v1/games/{game['id']}/join", ana["token"], json={"code": game["join_code"]})

    def anas_turn() -> list:
        """Ana's your-turn notices of this game (Bo plays his turn, step by step, while it is his)."""
        seen = api.view(game["id"], bo["token"])
        if seen["turn"] and seen["turn"]["seat"] == 0 and seen["legal_steps"]:
            step = next(s for s in seen["legal_steps"] if s["type"] != "fold")
            api.act(game["id"], bo["token"], [{k: step[k] for k in ("type", "card", "seat", "to") if k in step}])
        return [s for s in fake.sent if s.message["data"]["event"] == "your_turn" and s.message["data"]["game_id"] == game["id"]]

    message = wait_until(anas_turn, 10, "Ana's turn reaches her phone")[0].message
    assert not fake.refused, fake.refused
    assert 24 * 3600 < int(message["android"]["ttl"].rstrip("s")) <= 2 * 24 * 3600  # two days to act
    assert message["android"]["priority"] == "NORMAL" and message["apns"]["headers"]["apns-priority"] == "5"
    assert message["data"]["deadline"].endswith("Z")


def test_an_unregistered_token_is_forgotten(fcm_pushing):
    api, fake = fcm_pushing
    ana = api.player("Ana")
    kept = api.call("POST", "/v1/players/me/push-devices", ana["token"], json={"platform": "fcm", "token": TOKEN})
    dropped = api.call("POST", "/v1/players/me/push-devices", ana["token"], json={"platform": "fcm", "token": GONE})
    assert kept.status_code == dropped.status_code == 201
    fake.answers[GONE] = "UNREGISTERED"  # the app was removed from the tablet
    native = api.runtime.push.native
    assert native is not None and {d.token for d in native.devices(ana["id"])} == {TOKEN, GONE}
    api.game(ana["token"], [HUMAN, ai("greedy")], seed=3, turn_timeout=600)
    wait_until(lambda: [d.token for d in native.devices(ana["id"])] == [TOKEN], 10, "the unregistered token is forgotten")
    assert [s.token for s in fake.sent] and {s.token for s in fake.sent} == {TOKEN}
    gone_id = dropped.get_json()["id"]
    assert api.call("DELETE", f"/v1/players/me/push-devices/{gone_id}", ana["token"]).status_code == 404  # gone already


def test_a_hanging_fcm_delays_no_web_push(redis_pair, key_prefix, tmp_path):
    """Ana has a browser (web push) and a phone whose FCM hangs: the browser hears of her turn within the notices
    job's budget, as if the phone were not there; the phone's delivery waits out its own budget and is handed over."""
    key = new_vapid_key()
    fake, browsers = FakeFcm(), PushService(public_key_of(key))
    settings = settings_for(
        key_prefix, vapid_private_key=key, fcm_credentials=str(fake.write_credentials(tmp_path)), fcm_endpoint=fake.base
    )
    runtime = build_runtime(settings, clients=redis_pair)
    stop = start_embedded(runtime, idle=1)
    try:
        api = Api(create_app(runtime), runtime)
        ana = api.player("Ana")
        laptop = browsers.device("laptop")
        assert api.call("POST", "/v1/players/me/push-subscription", ana["token"], json=laptop.subscription()).status_code == 201
        assert (
            api.call("POST", "/v1/players/me/push-devices", ana["token"], json={"platform": "fcm", "token": TOKEN}).status_code
            == 201
        )
        fake.answers[TOKEN] = None  # FCM hangs
        began = time.time()
        game = api.game(ana["token"], [HUMAN, ai("greedy")], seed=3, turn_timeout=600)

        def pushed() -> list:
            return [r for r in browsers.received if r.message["event"] == "your_turn" and r.message["game_id"] == game["id"]]

        arrived = wait_until(pushed, 10, "the browser hears of Ana's turn")[0]
        assert arrived.at - began < 3.0, arrived.at - began  # a move's budget (1 s) at most, and the AI's turn
        assert not browsers.refused and not fake.sent
    finally:
        stop.set()
        fake.close()
        browsers.close()
        time.sleep(1.2)


def inbox(api, token: str) -> list:
    return api.call("GET", "/v1/players/me/notifications?limit=200", token).get_json()["notifications"]
