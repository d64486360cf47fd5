"""Sign in with Red7 through the consent page in a real headless Chromium (issue 37 item 4): a player signed in at
/play approves an app, and the app (Authlib's OAuth2Session, over real HTTP) completes the PKCE flow and gets a token
holding only the approved scopes.  Skipped without Chromium, like every browser test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import desktop_chromium, served, skip_without_chromium
from tests.harness.oauth_app import app_listener
from tests.harness.support import settings_for

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, Any]]:
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))
    with served(create_app(runtime), "oauth-consent-server") as base:
        yield base, runtime


def sign_up(driver: Any, base: str, name: str) -> dict[str, Any]:
    driver.get(f"{base}/play?lang=en")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
    driver.find_element(By.ID, "signup-name").send_keys(name)
    driver.find_element(By.ID, "signup-submit").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "who-name").text == name)
    stored: dict[str, Any] = driver.execute_script("return JSON.parse(localStorage.getItem('red7.player'))")
    return stored


def test_the_consent_page_signs_an_app_in_with_only_the_approved_scopes(site):
    base, runtime = site
    with app_listener() as callback:  # the app's own loopback listener: the code never reaches our server's log
        signed_in_with_only_the_approved_scopes(base, runtime, callback)


def signed_in_with_only_the_approved_scopes(base: str, runtime: Any, callback: str) -> None:
    app = runtime.oauth.register("Score Sheet", [callback], ["play", "profile:read"])
    client = OAuth2Session(
        app.client_id,
        redirect_uri=callback,
        scope="profile:read",
        code_challenge_method="S256",
        token_endpoint_auth_method="none",
    )
    verifier = generate_token(48)
    url, state = client.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier, lang="pl")
    with desktop_chromium() as driver:
        player = sign_up(driver, base, "Ana")
        driver.get(url)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "allow").is_enabled())
        assert "Score Sheet" in driver.find_element(By.ID, "title").text
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pl"
        items = driver.find_elements(By.CSS_SELECTOR, "#scopes li")
        assert [item.get_attribute("data-scope") for item in items] == ["profile:read"]
        assert driver.find_element(By.ID, "allow").text == "Zezwól"
        driver.find_element(By.ID, "allow").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback + "?"))
        back = driver.current_url
    assert parse_qs(urlsplit(back).query)["state"] == [state]
    token = client.fetch_token(f"{base}/oauth/token", authorization_response=back, code_verifier=verifier)
    assert token["scope"] == "profile:read"
    me = client.get(f"{base}/v1/players/me")
    assert me.status_code == 200 and me.json()["id"] == player["id"]
    assert client.get(f"{base}/v1/players/me/tokens").status_code == 403


def test_without_a_player_in_the_browser_the_page_says_to_sign_in_and_deny_goes_back(site):
    base, runtime = site
    callback = f"{base}/app/other"
    app = runtime.oauth.register("Pinger", [callback], ["notifications"])
    client = OAuth2Session(app.client_id, redirect_uri=callback, code_challenge_method="S256")
    url, state = client.create_authorization_url(f"{base}/oauth/authorize", code_verifier=generate_token(48))
    with desktop_chromium() as driver:
        driver.get(url)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "status").text != "")
        assert "/play" in driver.find_element(By.ID, "status").text
        assert not driver.find_element(By.ID, "allow").is_enabled()
        driver.find_element(By.ID, "deny").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback + "?"))
        back = parse_qs(urlsplit(driver.current_url).query)
    assert back["error"] == ["access_denied"] and back["state"] == [state]
