"""/play's words in a real headless Chromium (issue 38): an explicit ?lang= wins for the whole visit; the AI seats and
a new card said in the page's language; and, in English, Polish and Russian on a phone and a desktop, no labelled
control of the home, lobby or table screens whose text is cut or overflows (the Polish filters' "Dowolne" was cut).

Screenshots go to ``tmp_path`` and to ``$RED7_SCREENSHOTS`` when it names a folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium
from tests.harness.fit import overflowing

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

from tests.service.browser.test_play_browser import (  # noqa: E402
    Server,
    console_problems,
    fresh_page,
    new_game_against_two_greedy_ais,
    serving,
    sign_up,
    stored_player,
    table,
)
from tests.service.browser.test_play_lobby_browser import api_player, unique  # noqa: E402

#: /play's labelled controls, and the boxes that hold words in a fixed shape.
CONTROLS = "button, a, select, input, summary, label, .badge, .status, .seat-name"
SIZES = {"phone": phone_chromium, "desktop": desktop_chromium}
#: An AI seat's name as each language says it (the new-game form's level words).
AI_1 = {"en": "AI 1 (greedy)", "pl": "SI 1 (chciwa)", "ru": "ИИ 1 (жадный)"}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


def keep(driver: Any, tmp_path: Path, name: str, at: str | None = None) -> None:
    """A PNG of the viewport (from the top, or with the element ``at`` names at its top), for a person to look at."""
    driver.execute_script("arguments[0] ? document.querySelector(arguments[0]).scrollIntoView() : scrollTo(0, 0)", at)
    for folder in (tmp_path, os.environ.get("RED7_SCREENSHOTS")):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def screen_is(driver: Any, name: str) -> None:
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == name)


def page_language(driver: Any) -> str:
    language: str = driver.execute_script("return document.documentElement.lang")
    return language


def test_an_explicit_language_wins_for_the_visit(server: Server) -> None:
    """Signing up replaced the address with its bare path, so the lobby (which reads the player again) switched to the
    player's saved language: /play?lang=en bounced to Polish."""
    with phone_chromium() as driver:
        fresh_page(driver, f"{server.base}/play?lang=en")
        sign_up(driver, "Ana")
        token = stored_player(driver)["token"]
        answer = server.client.call("PATCH", "/v1/players/me", token, json={"language": "pl"})
        assert answer.status_code == 200, answer.get_json()
        assert driver.execute_script("return localStorage.getItem('red7.lang')") is None
        driver.execute_script("location.hash = '#lobby'")
        screen_is(driver, "lobby")
        WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.getElementById('who-name').textContent"))
        driver.execute_script("location.hash = '#play'")
        screen_is(driver, "home")
        assert page_language(driver) == "en" and "lang=en" in driver.current_url, driver.current_url
        driver.get(f"{server.base}/play#lobby")  # the visit goes on at an address without ?lang=
        screen_is(driver, "lobby")
        assert page_language(driver) == "en"
        assert console_problems(driver) == []


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", ["en", "pl", "ru"])
def test_the_screens_words_fit_and_ai_seats_are_in_the_pages_language(
    server: Server, tmp_path: Path, language: str, size: str
) -> None:
    player = api_player(server, "Ana", f"ana_{unique()}")
    with SIZES[size]() as driver:
        fresh_page(driver, f"{server.base}/play?lang={language}")
        stored = {"id": player["id"], "name": player["name"], "handle": player.get("handle"), "token": player["token"]}
        driver.execute_script("localStorage.setItem('red7.player', arguments[0])", json.dumps(stored))
        driver.get(f"{server.base}/play?lang={language}#lobby")
        driver.refresh()
        screen_is(driver, "lobby")
        assert page_language(driver) == language
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.querySelector('#f-time option') !== null"))
        lobby = overflowing(driver, CONTROLS)
        filters = overflowing(driver, "#table-filters select")
        keep(driver, tmp_path, f"play-lobby-{language}-{size}", "#tables-panel")
        driver.execute_script("location.hash = '#play'")
        screen_is(driver, "home")
        home = overflowing(driver, CONTROLS)
        keep(driver, tmp_path, f"play-home-{language}-{size}")
        new_game_against_two_greedy_ais(driver)
        WebDriverWait(driver, 10).until(lambda d: len(table(d)["seats"]) == 3)
        names = [seat["name"] for seat in table(driver)["seats"]]
        game = overflowing(driver, CONTROLS)
        keep(driver, tmp_path, f"play-table-{language}-{size}")
        assert console_problems(driver) == []

    assert filters["checked"] == 5 and filters["out"] == [], filters  # "Dowolne" whole
    for seen in (lobby, home, game):
        assert seen["checked"] > 5 and seen["out"] == [] and not seen["sideways"], seen
    assert AI_1[language] in names, names
    assert "Ana" in names
