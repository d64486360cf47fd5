"""Safety in /play, in a real headless Chromium: from another player's profile, block and mute them and lift both
(the buttons say where they stand, after a reload too), their challenge refused meanwhile; on your own profile, who
may challenge you and talk to you, saved and shown again.  Served as ``red7 serve --embedded`` serves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.browser import phone_chromium, skip_without_chromium

skip_without_chromium()

from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import (  # noqa: E402
    Server,
    console_problems,
    fresh_page,
    screenshot,
    serving,
    sign_up,
    stored_player,
)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving() as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


def shown(driver: Any, element: str) -> bool:
    return bool(driver.execute_script(f"const e = document.getElementById('{element}'); return e && !e.hidden"))


def text_of(driver: Any, element: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('{element}').textContent"))


def test_block_and_mute_from_a_profile_and_say_who_may_reach_you(server: Server, browser: Any, tmp_path):
    fresh_page(browser, f"{server.base}/play")
    sign_up(browser, "Ana")
    ana = stored_player(browser)
    bo = server.client.call("POST", "/v1/players", json={"name": "Bo", "handle": "bo_safety"}).get_json()

    browser.get(f"{server.base}/play#player=bo_safety")
    WebDriverWait(browser, 10).until(lambda d: shown(d, "profile-safety"))
    assert text_of(browser, "profile-block") == "Block" and text_of(browser, "profile-mute") == "Mute"
    assert not shown(browser, "profile-reach") and not shown(browser, "profile-blocked-note")
    browser.find_element(By.ID, "profile-block").click()
    WebDriverWait(browser, 10).until(lambda d: text_of(d, "profile-block") == "Unblock")
    assert shown(browser, "profile-blocked-note")
    browser.find_element(By.ID, "profile-mute").click()
    WebDriverWait(browser, 10).until(lambda d: text_of(d, "profile-mute") == "Unmute")
    screenshot(browser, tmp_path / "phone-profile-blocked.png")
    refused = server.client.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]]})
    assert refused.status_code == 403 and refused.get_json()["code"] == "challenge_refused"

    browser.refresh()  # where they stand is read again
    WebDriverWait(browser, 10).until(lambda d: shown(d, "profile-safety") and text_of(d, "profile-block") == "Unblock")
    assert text_of(browser, "profile-mute") == "Unmute"
    browser.find_element(By.ID, "profile-block").click()
    WebDriverWait(browser, 10).until(lambda d: text_of(d, "profile-block") == "Block")
    browser.find_element(By.ID, "profile-mute").click()
    WebDriverWait(browser, 10).until(lambda d: text_of(d, "profile-mute") == "Mute")
    assert server.client.call("GET", "/v1/players/me/blocks", ana["token"]).get_json()["players"] == []

    browser.get(f"{server.base}/play#player={ana['id']}")  # your own profile: who may reach you
    WebDriverWait(browser, 10).until(lambda d: shown(d, "profile-reach"))
    assert not shown(browser, "profile-safety")
    challenge, talk = Select(browser.find_element(By.ID, "reach-challenge")), Select(browser.find_element(By.ID, "reach-talk"))
    assert (challenge.first_selected_option.get_attribute("value"), talk.first_selected_option.get_attribute("value")) == (
        "everyone",
        "opponents",
    )
    challenge.select_by_value("nobody")
    talk.select_by_value("everyone")
    browser.find_element(By.CSS_SELECTOR, "#profile-reach button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda d: shown(d, "reach-saved"))
    me = server.client.call("GET", "/v1/players/me", ana["token"]).get_json()
    assert (me["challenge_from"], me["talk_from"]) == ("nobody", "everyone")
    screenshot(browser, tmp_path / "phone-profile-reach.png")
    assert not console_problems(browser)
