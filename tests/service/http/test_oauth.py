"""Sign in with Red7 (issue 37 item 4): the authorization-code flow with PKCE, driven by a real OAuth client library
(Authlib's OAuth2Session) as the app, and each refusal the RFCs ask for."""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from requests.adapters import BaseAdapter

from service.application.oauth import ACCESS_SECONDS
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import Api, settings_for

pytestmark = pytest.mark.every_store

BASE = "http://red7.test"
REDIRECT = "https://app.example/callback"


class FlaskAdapter(BaseAdapter):  # type: ignore[misc]
    """requests' transport to the Flask app in the test: the client library speaks HTTP as it would to a server."""

    def __init__(self, client: Any) -> None:
        super().__init__()
        self.client = client

    def send(self, request: requests.PreparedRequest, **_: Any) -> requests.Response:
        url = urlsplit(request.url)
        answer = self.client.open(
            url.path, method=request.method, query_string=url.query, headers=dict(request.headers), data=request.body
        )
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers.update(dict(answer.headers))
        response.raw = io.BytesIO(answer.get_data())
        response.url = request.url
        response.request = request
        return response

    def close(self) -> None:
        pass


@pytest.fixture
def api(redis_pair, key_prefix) -> Api:
    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    return Api(create_app(runtime), runtime)


@pytest.fixture
def app_(api):
    """An app the operator registered (``red7 apps add``), allowed two scopes."""
    assert api.runtime.oauth is not None
    return api.runtime.oauth.register("Score Sheet", [REDIRECT], ["play", "profile:read"])


def raw(api: Api, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
    """A call to /oauth/*, whose errors are OAuth's JSON (RFC 6749 §5.2) or a page, not problem+json."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = api.client.open(path, method=method, headers=headers, **kwargs)
    assert answer.status_code < 500, answer.get_data(as_text=True)
    return answer


def session(api: Api, client_id: str, scope: str = "profile:read") -> OAuth2Session:
    client = OAuth2Session(
        client_id, redirect_uri=REDIRECT, scope=scope, code_challenge_method="S256", token_endpoint_auth_method="none"
    )
    client.mount(BASE, FlaskAdapter(api.client))
    return client


def authorize(api: Api, client: OAuth2Session, token: str, verifier: str) -> tuple[str, str]:
    """The browser's part: open the consent page, approve with the player's token; the app's callback URL."""
    url, state = client.create_authorization_url(f"{BASE}/oauth/authorize", code_verifier=verifier)
    path = url.removeprefix(BASE)
    page = raw(api, "GET", path)
    assert page.status_code == 200 and "Score Sheet" in page.get_data(as_text=True)
    approved = raw(api, "POST", path, token, data={"decision": "allow"})
    assert approved.status_code == 200, approved.get_data(as_text=True)
    callback = approved.get_json()["redirect_to"]
    assert callback.startswith(REDIRECT + "?") and parse_qs(urlsplit(callback).query)["state"] == [state]
    return callback, state


def test_the_whole_flow_gives_a_token_holding_only_the_granted_scopes(api, app_):
    ana = api.player("Ana")
    client = session(api, app_.client_id)
    verifier = generate_token(48)
    callback, _ = authorize(api, client, ana["token"], verifier)
    token = client.fetch_token(f"{BASE}/oauth/token", authorization_response=callback, code_verifier=verifier)
    assert token["token_type"].lower() == "bearer" and token["expires_in"] == ACCESS_SECONDS
    assert token["scope"] == "profile:read" and token["refresh_token"]
    lookup = f"{api.runtime.settings.key_prefix}token:{hashlib.sha256(token['access_token'].encode()).hexdigest()}"
    assert ACCESS_SECONDS - 5 <= api.runtime.redis.ttl(lookup) <= ACCESS_SECONDS  # it expires: Redis forgets it
    me = client.get(f"{BASE}/v1/players/me")
    assert me.status_code == 200 and me.json()["id"] == ana["id"]
    assert me.headers["X-OAuth-Scopes"] == "profile:read"
    refused = client.get(f"{BASE}/v1/players/me/tokens")  # tokens: not granted
    assert refused.status_code == 403 and 'error="insufficient_scope"' in refused.headers["WWW-Authenticate"]
    refused = client.post(f"{BASE}/v1/games", json={"seats": [{"type": "player"}, {"type": "ai"}]})
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope_play"
    # the player sees the app's grant among their tokens, and revoking it ends the app's access and its refresh token
    listed = api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"]
    apps = [entry for entry in listed if entry.get("app")]
    assert [(entry["app"]["name"], entry["scopes"]) for entry in apps] == [("Score Sheet", ["profile:read"])]
    assert api.call("DELETE", f"/v1/players/me/tokens/{apps[0]['id']}", ana["token"]).status_code == 204
    assert client.get(f"{BASE}/v1/players/me").status_code == 401
    again = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, token["refresh_token"]))
    assert again.status_code == 400 and again.get_json()["error"] == "invalid_grant"


def _refresh_form(client_id: str, refresh_token: str) -> dict[str, str]:
    return {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_whole_grant(api, app_):
    ana = api.player("Ana")
    client = session(api, app_.client_id, "play profile:read")
    verifier = generate_token(48)
    callback, _ = authorize(api, client, ana["token"], verifier)
    first = client.fetch_token(f"{BASE}/oauth/token", authorization_response=callback, code_verifier=verifier)
    second = client.refresh_token(f"{BASE}/oauth/token", refresh_token=first["refresh_token"])
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    assert second["scope"] == "play profile:read"
    old = api.call("GET", "/v1/players/me", first["access_token"])
    assert old.status_code == 401  # the access token it replaced is revoked
    assert api.call("GET", "/v1/players/me", second["access_token"]).status_code == 200
    reused = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, first["refresh_token"]))
    assert reused.status_code == 400 and reused.get_json()["error"] == "invalid_grant"
    assert api.call("GET", "/v1/players/me", second["access_token"]).status_code == 401  # the whole grant went
    later = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, second["refresh_token"]))
    assert later.status_code == 400 and later.get_json()["error"] == "invalid_grant"
    assert api.runtime.oauth.grants(ana["id"]) == []


def _code(api: Api, client_id: str, token: str, verifier: str, **extra: str) -> str:
    client = session(api, client_id)
    callback, _ = authorize(api, client, token, verifier)
    return parse_qs(urlsplit(callback).query)["code"][0]


def _redeem(api: Api, client_id: str, code: str, verifier: str, redirect: str = REDIRECT) -> Any:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": client_id}
    return raw(api, "POST", "/oauth/token", data={**form, "code_verifier": verifier})


def test_a_wrong_verifier_is_invalid_grant_and_the_code_is_spent(api, app_):
    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    wrong = _redeem(api, app_.client_id, code, generate_token(48))
    assert wrong.status_code == 400 and wrong.get_json()["error"] == "invalid_grant"
    assert wrong.headers["Cache-Control"] == "no-store"
    assert _redeem(api, app_.client_id, code, verifier).get_json()["error"] == "invalid_grant"


def test_a_reused_code_is_refused_and_revokes_what_it_gave(api, app_):
    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    first = _redeem(api, app_.client_id, code, verifier)
    assert first.status_code == 200
    access = first.get_json()["access_token"]
    assert api.call("GET", "/v1/players/me", access).status_code == 200
    second = _redeem(api, app_.client_id, code, verifier)
    assert second.status_code == 400 and second.get_json()["error"] == "invalid_grant"
    assert api.call("GET", "/v1/players/me", access).status_code == 401  # RFC 6749 §4.1.2: revoked


def test_a_redirect_uri_not_registered_is_never_redirected_to(api, app_):
    query = {
        "response_type": "code",
        "client_id": app_.client_id,
        "redirect_uri": "https://evil.example/callback",
        "state": "s1",
        "code_challenge": _s256(generate_token(48)),
        "code_challenge_method": "S256",
    }
    page = raw(api, "GET", "/oauth/authorize", query_string=query)
    assert page.status_code == 400 and "Location" not in page.headers
    for near in (REDIRECT + "/", REDIRECT + "?x=1", REDIRECT.upper()):  # exact match: no prefix, no case folding
        assert raw(api, "GET", "/oauth/authorize", query_string={**query, "redirect_uri": near}).status_code == 400
    # and the code is bound to its redirect URI: redeemed with another, refused
    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    other = _redeem(api, app_.client_id, code, verifier, "https://evil.example/callback")
    assert other.status_code == 400 and other.get_json()["error"] == "invalid_grant"


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


@pytest.mark.parametrize(
    "pkce",
    [
        {"code_challenge": "x" * 43, "code_challenge_method": "plain"},
        {"code_challenge": "x" * 43},  # no method: plain (RFC 7636 §4.3)
        {},  # no PKCE at all
    ],
)
def test_plain_or_missing_pkce_goes_back_to_the_app_as_invalid_request(api, app_, pkce):
    query = {"response_type": "code", "client_id": app_.client_id, "redirect_uri": REDIRECT, "state": "s2", **pkce}
    answer = raw(api, "GET", "/oauth/authorize", query_string=query)
    assert answer.status_code == 302
    back = parse_qs(urlsplit(answer.headers["Location"]).query)
    assert back["error"] == ["invalid_request"] and back["state"] == ["s2"]


def test_implicit_grant_and_scopes_beyond_the_app_are_refused(api, app_):
    base = {"client_id": app_.client_id, "redirect_uri": REDIRECT, "state": "s3", "code_challenge_method": "S256"}
    base["code_challenge"] = _s256(generate_token(48))
    implicit = raw(api, "GET", "/oauth/authorize", query_string={**base, "response_type": "token"})
    assert parse_qs(urlsplit(implicit.headers["Location"]).query)["error"] == ["unsupported_response_type"]
    wider = raw(api, "GET", "/oauth/authorize", query_string={**base, "response_type": "code", "scope": "account:delete"})
    assert parse_qs(urlsplit(wider.headers["Location"]).query)["error"] == ["invalid_scope"]


def test_denied_goes_back_as_access_denied_and_a_narrow_token_cannot_approve(api, app_):
    ana = api.player("Ana")
    client = session(api, app_.client_id)
    url, _ = client.create_authorization_url(f"{BASE}/oauth/authorize", code_verifier=generate_token(48))
    path = url.removeprefix(BASE)
    denied = raw(api, "POST", path, data={"decision": "deny"}).get_json()["redirect_to"]
    assert parse_qs(urlsplit(denied).query)["error"] == ["access_denied"]
    narrow = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"scopes": ["profile:read"]})
    refused = raw(api, "POST", path, narrow.get_json()["token"], data={"decision": "allow"})
    assert refused.status_code == 403 and refused.get_json()["code"] == "insufficient_scope_tokens"
    assert raw(api, "POST", path, None, data={"decision": "allow"}).status_code == 401


def test_revocation_rfc7009_ends_the_grant_and_answers_200_for_anything(api, app_):
    ana = api.player("Ana")
    client = session(api, app_.client_id)
    verifier = generate_token(48)
    callback, _ = authorize(api, client, ana["token"], verifier)
    token = client.fetch_token(f"{BASE}/oauth/token", authorization_response=callback, code_verifier=verifier)
    assert client.revoke_token(f"{BASE}/oauth/revoke", token["access_token"]).status_code == 200
    assert api.call("GET", "/v1/players/me", token["access_token"]).status_code == 401
    gone = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, token["refresh_token"]))
    assert gone.get_json()["error"] == "invalid_grant"
    unknown = raw(api, "POST", "/oauth/revoke", data={"token": "nonsense", "client_id": app_.client_id})
    assert unknown.status_code == 200


def test_the_consent_page_speaks_the_readers_language_and_cannot_be_framed(api, app_):
    client = session(api, app_.client_id, "play profile:read")
    url, _ = client.create_authorization_url(f"{BASE}/oauth/authorize", code_verifier=generate_token(48))
    page = raw(api, "GET", url.removeprefix(BASE) + "&lang=pl")
    text = page.get_data(as_text=True)
    assert 'lang="pl"' in text and "Score Sheet" in text and 'data-scope="play"' in text
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    english = raw(api, "GET", url.removeprefix(BASE)).get_data(as_text=True)
    assert text.count("<li") == english.count("<li") == 2 and text != english


def test_the_openapi_oauth2_scheme_names_these_endpoints(api):
    flow = api.call("GET", "/v1/openapi.json").get_json()["components"]["securitySchemes"]["oauth2"]["flows"]
    code = flow["authorizationCode"]
    assert (code["authorizationUrl"], code["tokenUrl"], code["refreshUrl"]) == (
        "/oauth/authorize",
        "/oauth/token",
        "/oauth/token",
    )
    rules: dict[str, set[str]] = {}
    for rule in api.client.application.url_map.iter_rules():
        rules.setdefault(rule.rule, set()).update(rule.methods or ())
    assert "GET" in rules[code["authorizationUrl"]] and "POST" in rules[code["tokenUrl"]] and "POST" in rules["/oauth/revoke"]
    assert "implicit" not in flow and "password" not in flow


def test_a_deleted_account_takes_its_grants_with_it(api, app_):
    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    issued = _redeem(api, app_.client_id, code, verifier).get_json()
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert api.runtime.oauth.grants(ana["id"]) == []
    gone = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, issued["refresh_token"]))
    assert gone.get_json()["error"] == "invalid_grant"


def test_two_uses_of_one_refresh_token_at_once_revoke_the_grant(api, app_):
    """Both pass the check before either rotates: the compare-and-set lets one win, and the loser revokes the grant
    (one of the two holders was not the app)."""
    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    issued = _redeem(api, app_.client_id, code, verifier).get_json()
    oauth = api.runtime.oauth
    first = oauth.refreshable(issued["refresh_token"], app_.client_id)
    second = oauth.refreshable(issued["refresh_token"], app_.client_id)
    assert first is not None and second is not None
    won = oauth.renew(*first)
    assert won is not None
    assert oauth.renew(*second) is None
    assert oauth.grants(ana["id"]) == []
    assert api.call("GET", "/v1/players/me", won.access_token).status_code == 401
    assert oauth.refreshable(won.refresh_token, app_.client_id) is None


def test_removing_the_app_ends_every_token_it_holds_at_once(api, app_):
    """``red7 apps remove``: the access tokens issued through the flow answer 401 right after (not at the end of their
    hour), for every player who approved the app, and their refresh tokens renew nothing."""
    from service.processes import apps_cli

    issued = {}
    for name in ("Ana", "Bo"):
        player = api.player(name)
        verifier = generate_token(48)
        code = _code(api, app_.client_id, player["token"], verifier)
        issued[name] = (player, _redeem(api, app_.client_id, code, verifier).get_json())
        assert api.call("GET", "/v1/players/me", issued[name][1]["access_token"]).status_code == 200
    other = api.runtime.oauth.register("Score Sheet Pro", [REDIRECT], ["profile:read"])
    verifier = generate_token(48)
    kept = _redeem(api, other.client_id, _code(api, other.client_id, issued["Ana"][0]["token"], verifier), verifier)
    assert apps_cli.run(argparse.Namespace(apps_action="remove", client_id=app_.client_id), api.runtime) == 0
    for player, tokens in issued.values():
        assert api.call("GET", "/v1/players/me", tokens["access_token"]).status_code == 401
        refreshed = raw(api, "POST", "/oauth/token", data=_refresh_form(app_.client_id, tokens["refresh_token"]))
        assert refreshed.status_code in (400, 401) and refreshed.get_json()["error"] in ("invalid_grant", "invalid_client")
        listed = api.call("GET", "/v1/players/me/tokens", player["token"]).get_json()["tokens"]
        assert [entry["app"]["client_id"] for entry in listed if entry.get("app")] == (
            [other.client_id] if player is issued["Ana"][0] else []
        )
        assert api.call("GET", "/v1/players/me", player["token"]).status_code == 200  # their own token is theirs
    assert api.call("GET", "/v1/players/me", kept.get_json()["access_token"]).status_code == 200  # another app's stays
    assert api.runtime.oauth.store.holders(app_.client_id) == []


def test_a_token_issued_while_its_app_is_removed_is_revoked_as_it_is_stored(api, app_):
    """The sweep read the app's holders before this grant was written: the grant finds its app gone and ends itself,
    so the token endpoint answers invalid_grant and the player holds nothing for the app."""
    from service.common.errors import Refused

    ana = api.player("Ana")
    verifier = generate_token(48)
    code = _code(api, app_.client_id, ana["token"], verifier)
    redeemed = api.runtime.oauth.redeem(code, app_.client_id)
    assert redeemed is not None
    assert api.runtime.oauth.remove(app_.client_id)
    with pytest.raises(Refused) as refused:
        api.runtime.oauth.grant_tokens(redeemed)
    assert refused.value.code == "app_removed"
    assert api.runtime.oauth.grants(ana["id"]) == []
    listed = api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"]
    assert [entry for entry in listed if entry.get("app")] == []
