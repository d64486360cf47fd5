"""The web client /play in Polish and in Russian in a real headless Chromium: sign up, a game against two greedy AIs
played out by clicking, its end; every word from the catalogs and none left in English but names.  The language
switch reloads the page in the language chosen and is remembered: in the browser, and as the player's setting, which
a page opened without a language follows.

Screenshots go to ``tmp_path`` (and to ``$RED7_SCREENSHOTS`` when it names a folder, to look at them).
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.common.texts import LANGUAGE_NAMES, MESSAGES
from service.http.routes.play import WORDS
from tests.harness.browser import phone_chromium, settled, skip_without_chromium
from tests.service.browser.test_play_browser import (
    Server,
    console_problems,
    fresh_page,
    new_game_against_two_greedy_ais,
    play_out,
    serving,
    sign_up,
    stored_player,
    table,
    wait_for,
)

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

#: A word: letters (a token with a digit is a card, a number, an id or Red7, never a word of a language).
WORD = re.compile(r"[^\W_]+")
#: Every English word the page can say (its messages as written), less those that are Polish words too.
ENGLISH = {word for code in WORDS for word in WORD.findall(MESSAGES[code].singular) if not any(c.isdigit() for c in word)}
POLISH_TOO = {
    "s",
    "d",
    "n",
    "a",
    "i",
    "A",
    "I",
    "go",
    "to",
    "do",
    "token",
    "link",
    "same",
    "webhook",
}  # placeholders' letters, and Polish words
#: What a page may show in Latin letters whatever its language: the brand, each language's own name in the switch,
#: the cards' letters (R5 is shown as a 5 with a small R), and the example name in the sign-up fields.
ALWAYS = {"Red7", "API", "Ana", "ana", *"ROYGBIV", *(word for name in LANGUAGE_NAMES.values() for word in name.split())}


def words_of(text: str) -> set[str]:
    return {word for word in WORD.findall(text) if not any(c.isdigit() for c in word)}


def text_of(driver: Any) -> str:
    """Everything the page shows or says to assistive technology: its text, titles, labels, placeholders, its title."""
    return driver.execute_script(
        """
        const parts = [document.title, document.body.innerText];
        for (const node of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
          for (const name of ["title", "aria-label", "placeholder"]) {
            if (node.getAttribute(name)) parts.push(node.getAttribute(name));
          }
        }
        for (const node of document.querySelectorAll(".sr-only")) parts.push(node.textContent);
        return parts.join("\\n");
        """
    )


def english_left(driver: Any, language: str, names: set[str]) -> list[str]:
    """The words of the page that are English and no name."""
    words = words_of(text_of(driver)) - ALWAYS - names
    if language == "ru":  # no Latin word at all
        return sorted(word for word in words if re.fullmatch(r"[A-Za-z]+", word))
    return sorted(word for word in words & ENGLISH if word not in POLISH_TOO)


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    driver.execute_script("scrollTo(0, 0)")
    driver.save_screenshot(str(tmp_path / f"{name}.png"))
    folder = os.environ.get("RED7_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


def problem_in(server: Server, language: str, body: dict[str, Any]) -> dict[str, Any]:
    """The problem ``POST /v1/players`` answers ``body`` with, asked in ``language``."""
    request = urllib.request.Request(
        f"{server.base}/v1/players?lang={language}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as refused:
        return dict(json.loads(refused.read()))
    raise AssertionError("the body was accepted")


@pytest.mark.parametrize(
    ("language", "title", "status_words"),
    [("pl", "Graj w Red7", ("Twoja tura", "Koniec gry")), ("ru", "Играть в Red7", ("Ваш ход", "Игра окончена"))],
)
def test_a_game_played_in_polish_and_in_russian_has_no_english_word_left(
    server: Server, browser: Any, tmp_path: Path, language: str, title: str, status_words: tuple[str, str]
) -> None:
    fresh_page(browser, f"{server.base}/play?lang={language}")
    browser.get_log("browser")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
    assert browser.execute_script("return document.documentElement.lang") == language
    assert browser.title == title
    assert english_left(browser, language, set()) == []
    shot(browser, tmp_path, f"play-{language}-signup")

    # A refused handle: the problem the page shows is the server's, in the page's language (API calls go in it).
    browser.find_element(By.ID, "signup-name").send_keys("Ana")
    browser.find_element(By.ID, "signup-handle").send_keys("x")
    browser.find_element(By.ID, "signup-submit").click()
    error = browser.find_element(By.ID, "signup-handle-error")
    WebDriverWait(browser, 10).until(lambda d: error.is_displayed() and error.text)
    expected = problem_in(server, language, {"name": "Ana", "handle": "x"})
    assert error.text == (expected["detail"] or expected["title"]), (error.text, expected)
    browser.find_element(By.ID, "signup-handle").clear()
    browser.get_log("browser")  # that 422 is logged as a failed load: the log from here on must be clean

    sign_up(browser, "Ana")
    assert english_left(browser, language, {"Ana"}) == []
    shot(browser, tmp_path, f"play-{language}-home")

    game_id, shown = new_game_against_two_greedy_ais(browser)
    names = {word for seat in shown["seats"] for word in words_of(seat["name"])}  # "AI 1 (greedy)": the server's names
    turn = wait_for(browser, lambda t: t["your_turn"] and t["steps"] and not any(s["disabled"] for s in t["steps"]), 20)
    assert turn["status"].startswith(status_words[0]), turn["status"]
    assert turn["overflow"] <= 0, "the longer words still fit a phone's screen"
    assert english_left(browser, language, names) == []
    shot(browser, tmp_path, f"play-{language}-turn")

    play_out(browser)
    settled(browser)  # the last moves' cards have landed
    end = table(browser)
    assert end["outcome_shown"] and end["status"].startswith(status_words[1]), end["status"]
    assert end["overflow"] <= 0
    assert english_left(browser, language, names) == []
    shot(browser, tmp_path, f"play-{language}-end")
    assert browser.find_element(By.ID, "replay-link").get_attribute("href").endswith(f"/replay/view?lang={language}")

    # The other screens: the lobby (quick match, challenges, players, open tables, the handle), a ladder, a profile.
    # Bo challenges Ana and sets a table up in the lobby, so that the lobby has lines to say.
    player_id = stored_player(browser)["id"]
    bo = server.client.call("POST", "/v1/players", json={"name": "Bo"}).get_json()
    assert server.client.call("POST", "/v1/challenges", bo["token"], json={"players": [player_id]}).status_code == 201
    server.client.game(bo["token"], [{"kind": "human"}] * 3, variant="basic", listed=True)
    names |= {"Bo"}
    drawn = {  # each screen, once what it reads is in
        "lobby": "return document.querySelector('#received li') && document.querySelector('#tables li')",
        "ladder": "return document.querySelector('#board-rows').children.length || !document.querySelector('#board-none').hidden",
        "profile": "return !document.querySelector('#profile-facts').hidden",
    }
    for name, address in (("lobby", "#lobby"), ("ladder", "#ladder=basic"), ("profile", f"#player={player_id}")):
        browser.get(f"{server.base}/play?lang={language}{address}")
        WebDriverWait(browser, 10).until(lambda d, name=name: d.execute_script("return document.body.dataset.screen") == name)
        WebDriverWait(browser, 10).until(lambda d, name=name: d.execute_script(drawn[name]))
        if name == "lobby":  # and a quick match asked for: its ticket waits (four players only: nobody matches it here)
            for count in ("2", "3"):
                browser.find_element(By.CSS_SELECTOR, f'input[name="qm-count"][value="{count}"]').click()
            browser.find_element(By.ID, "qm-submit").click()
            WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#qm-tickets li"))
        assert english_left(browser, language, names) == [], name
        shot(browser, tmp_path, f"play-{language}-{name}")
    assert game_id and console_problems(browser) == []


def test_the_switch_is_remembered_in_the_browser_and_as_the_players_setting(server: Server, browser: Any) -> None:
    fresh_page(browser, f"{server.base}/play")
    sign_up(browser, "Ola")
    token = stored_player(browser)["token"]
    switch = Select(browser.find_element(By.ID, "lang"))
    assert [option.get_attribute("value") for option in switch.options] == list(LANGUAGE_NAMES)
    assert switch.first_selected_option.text == "English"
    switch.select_by_value("pl")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.documentElement.lang") == "pl")
    assert "lang=pl" in browser.current_url
    assert browser.execute_script("return localStorage.getItem('red7.lang')") == "pl"
    assert server.client.call("GET", "/v1/players/me", token).get_json()["language"] == "pl"

    browser.get(f"{server.base}/play")  # no language asked: the one chosen in this browser
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.documentElement.lang") == "pl")
    assert "lang=pl" in browser.current_url

    # Another browser of the player's (nothing remembered in it): the player's setting.
    server.client.call("PATCH", "/v1/players/me", token, json={"language": "ru"})
    browser.execute_script("localStorage.removeItem('red7.lang')")
    browser.get(f"{server.base}/play#lobby")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.documentElement.lang") == "ru")
    assert "lang=ru" in browser.current_url and browser.current_url.endswith("#lobby")

    # A player who signs up in a browser that remembers a language chosen takes it as their setting.
    browser.execute_script("localStorage.removeItem('red7.player'); localStorage.setItem('red7.lang', 'pl')")
    browser.get(f"{server.base}/play")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.documentElement.lang") == "pl")
    sign_up(browser, "Ula")
    ula = stored_player(browser)["token"]
    WebDriverWait(browser, 10).until(lambda d: server.client.call("GET", "/v1/players/me", ula).get_json()["language"] == "pl")
    assert console_problems(browser) == []
