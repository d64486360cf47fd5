"""createPushDevice / deletePushDevice: FCM's registration tokens, bounded and validated, kept per player, capped."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.application.push_devices import MAX_DEVICES
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.fcm import FakeFcm
from tests.harness.support import Api, settings_for

pytestmark = pytest.mark.every_store

DEVICES = "/v1/players/me/push-devices"


@pytest.fixture
def fake_fcm():
    with FakeFcm() as fake:
        yield fake


@pytest.fixture
def api(redis_pair, key_prefix, tmp_path: Path, fake_fcm: FakeFcm) -> Api:
    settings = settings_for(key_prefix, fcm_credentials=str(fake_fcm.write_credentials(tmp_path)), fcm_endpoint=fake_fcm.base)
    runtime = build_runtime(settings, clients=redis_pair)
    return Api(create_app(runtime), runtime)


def test_without_fcm_settings_create_push_device_says_so(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    ana = api.player("Ana")
    refused = api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "abc:def"})
    assert refused.status_code == 404 and refused.get_json()["code"] == "fcm_not_configured"
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert not runtime.push.has(ana["id"])


def test_the_devices_are_each_players_own(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    anas = api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "ana-phone:1"}).get_json()
    api.call("POST", DEVICES, bo["token"], json={"platform": "fcm", "token": "bo-phone:1"})
    native = api.runtime.push.native
    assert [d.token for d in native.devices(ana["id"])] == ["ana-phone:1"]
    assert [d.token for d in native.devices(bo["id"])] == ["bo-phone:1"]
    refused = api.call("DELETE", f"{DEVICES}/{anas['id']}", bo["token"])  # Bo cannot reach Ana's device
    assert refused.status_code == 404 and refused.get_json()["code"] == "push_device_not_found"
    assert [d.token for d in native.devices(ana["id"])] == ["ana-phone:1"]
    assert api.call("DELETE", f"{DEVICES}/{anas['id']}", ana["token"]).status_code == 204
    assert native.devices(ana["id"]) == [] and len(native.devices(bo["id"])) == 1
    assert api.call("DELETE", f"{DEVICES}/{anas['id']}", None).status_code == 401


def test_registering_again_replaces_and_the_cap_holds(api):
    ana = api.player("Ana")
    first = api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "same:1"}).get_json()
    again = api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "same:1"}).get_json()
    assert first["id"] == again["id"] and api.runtime.push.native.store.count(ana["id"]) == 1
    for n in range(2, MAX_DEVICES + 1):
        assert api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": f"t:{n}"}).status_code == 201
    over = api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "one:too:many"})
    assert over.status_code == 409 and over.get_json()["code"] == "push_device_limit_reached"
    assert api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "same:1"}).status_code == 201  # a known one


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.one_of(
        st.fixed_dictionaries({"platform": st.text(max_size=8).filter(lambda p: p != "fcm"), "token": st.just("ok:1")}),
        st.fixed_dictionaries(
            {"platform": st.just("fcm"), "token": st.text(max_size=40).filter(lambda t: not t.isascii() or not t or " " in t)}
        ),
        st.fixed_dictionaries({"platform": st.just("fcm"), "token": st.just("x" * 4097)}),
        st.fixed_dictionaries({"platform": st.just("fcm")}),
        st.fixed_dictionaries({"platform": st.just("fcm"), "token": st.just("ok:1"), "extra": st.integers()}),
    )
)
def test_a_bad_registration_is_a_problem_never_a_500(api, body):
    ana = api.player("Ana")
    refused = api.call("POST", DEVICES, ana["token"], json=body)
    assert refused.status_code == 422 and refused.get_json()["code"], (body, refused.get_json())
    assert api.runtime.push.native.store.count(ana["id"]) == 0


def test_a_deleted_account_leaves_no_device(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    api.call("POST", DEVICES, ana["token"], json={"platform": "fcm", "token": "ana-phone:1"})
    api.call("POST", DEVICES, bo["token"], json={"platform": "fcm", "token": "bo-phone:1"})
    assert api.runtime.push.has(ana["id"])
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    native = api.runtime.push.native
    assert native.store.count(ana["id"]) == 0 and not api.runtime.push.has(ana["id"])
    assert native.store.count(bo["id"]) == 1
