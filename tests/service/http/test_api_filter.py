"""The word filter at the door: a name or handle with a listed word is refused with a stable code, at sign-up and on
a rename; an operator's words (the setting, ``red7 mod words add``) are refused too."""

from __future__ import annotations

import argparse

import pytest

from service.processes import mod_cli


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "F.u.c.k"}, "name_not_allowed"),
        ({"name": "kurwą"}, "name_not_allowed"),
        ({"name": "Ana", "handle": "bob_cazzo"}, "handle_not_allowed"),
        ({"name": "Ana", "handle": "arschloch99"}, "handle_not_allowed"),
    ],
)
def test_a_sign_up_with_a_listed_word_is_refused_and_makes_nothing(api, body, code):
    answer = api.call("POST", "/v1/players", json=body)
    assert answer.status_code == 422 and answer.get_json()["code"] == code
    field = "handle" if code.startswith("handle") else "name"
    assert answer.get_json()["errors"][0]["field"] == field
    assert api.call("POST", "/v1/players", json={"name": "Ana", "handle": "ana_b"}).status_code == 201


def test_a_rename_with_a_listed_word_is_refused_and_changes_nothing(api):
    ana = api.player("Ana")
    refused = api.call("PATCH", "/v1/players/me", ana["token"], json={"name": "Ана бл@дь"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "name_not_allowed"
    refused = api.call("PATCH", "/v1/players/me", ana["token"], json={"handle": "c-a-z-z-o"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "handle_not_allowed"
    me = api.call("GET", "/v1/players/me", ana["token"]).get_json()
    assert me["name"] == "Ana" and not me.get("handle")


def test_the_refusal_reads_in_the_players_language(api):
    answer = api.call("POST", "/v1/players?lang=pl", json={"name": "merde"})
    assert answer.get_json()["title"] == "Ta nazwa zawiera niedozwolone słowo"
    assert "obraźliwe" in answer.get_json()["detail"]


def test_an_operators_words_are_refused_at_once(api, runtime, capsys):
    assert api.call("POST", "/v1/players", json={"name": "Grumpkin"}).status_code == 201
    args = argparse.Namespace(mod_action="words", change="add", words=["grumpkin"])
    assert mod_cli.run(args, runtime) == 0
    refused = api.call("POST", "/v1/players", json={"name": "g.r.u.m.p.k.i.n"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "name_not_allowed"
    assert mod_cli.run(argparse.Namespace(mod_action="words", change="list", words=[]), runtime) == 0
    assert "grumpkin" in capsys.readouterr().out
    assert mod_cli.run(argparse.Namespace(mod_action="words", change="remove", words=["grumpkin"]), runtime) == 0
    assert api.call("POST", "/v1/players", json={"name": "Grumpkin"}).status_code == 201


def test_the_settings_words_are_refused(redis_pair, key_prefix):
    from service.http.app import create_app
    from service.runtime import build_runtime
    from tests.harness.support import Api, settings_for

    runtime = build_runtime(settings_for(key_prefix, filter_words=("snorklewacker",)), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    assert api.call("POST", "/v1/players", json={"name": "Snorkle_Wacker"}).get_json()["code"] == "name_not_allowed"
