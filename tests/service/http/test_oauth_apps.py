"""``red7 apps``: the operator registers, lists and removes the apps that may ask players to sign in with Red7, and
what a registration may hold (exact redirect URIs of the kinds RFC 8252 allows, known scopes)."""

from __future__ import annotations

import argparse
import json

import pytest

from service.common.errors import Refused
from service.processes import apps_cli
from service.processes.cli import main

pytestmark = pytest.mark.every_store


def test_apps_add_list_remove(runtime, capsys):
    add = argparse.Namespace(
        apps_action="add",
        name="Score Sheet",
        redirect_uris=["https://a.example/cb", "com.example.sheet:/cb"],
        scopes="profile:read, play",
    )
    assert apps_cli.run(add, runtime) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["scopes"] == ["play", "profile:read"] and made["client_id"].startswith("app_")
    assert made["redirect_uris"] == ["https://a.example/cb", "com.example.sheet:/cb"]
    assert apps_cli.run(argparse.Namespace(apps_action="list"), runtime) == 0
    assert [json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()] == ["Score Sheet"]
    remove = argparse.Namespace(apps_action="remove", client_id=made["client_id"])
    assert apps_cli.run(remove, runtime) == 0
    assert apps_cli.run(remove, runtime) == 2  # gone already
    assert runtime.oauth.apps() == []


@pytest.mark.parametrize(
    ("uris", "scopes"),
    [
        (["http://a.example/cb"], ["play"]),  # plain http off the loopback
        (["https://a.example/cb#frag"], ["play"]),  # a fragment (RFC 6749 §3.1.2)
        (["javascript:alert(1)"], ["play"]),  # not a reverse-domain scheme
        ([], ["play"]),
        (["https://a.example/cb"], ["everything"]),  # no such scope
        (["https://a.example/cb"], []),
    ],
)
def test_a_registration_that_cannot_be_safe_is_refused(runtime, uris, scopes):
    with pytest.raises(Refused):
        runtime.oauth.register("App", uris, scopes)
    assert runtime.oauth.apps() == []


def test_loopback_http_is_allowed_for_native_apps(runtime):
    app = runtime.oauth.register("Desk", ["http://127.0.0.1:8765/cb", "http://[::1]/cb"], ["lobby"])
    assert app.redirect_uris == ("http://127.0.0.1:8765/cb", "http://[::1]/cb")


def test_red7_apps_needs_redis_url(monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["apps", "list"]) == 2
    assert "REDIS_URL" in capsys.readouterr().err
