"""An imported replay's viewer asks for its decision analysis, in a real headless Chromium: the player /play keeps in the
browser presses "Analyse the decisions", sees the progress, then the page with the analysis; a visitor without a player
is told where to become one; a token that no longer works is said in words.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of tests/service/browser/test_play_browser.py: the jobs in
threads of this process, the analyses by its analysts, each computing in a child process of its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.browser import chromium, skip_without_chromium
from tests.harness.support import HUMAN, ai

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import Server, console_problems, fresh_page, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import play_to_the_end, signed_in  # noqa: E402

#: How long one basic game's analysis may take on the embedded workers (as test_play_mistakes_browser.py allows).
ANALYSED = 90


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving() as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


PAGE = """
const q = (s) => document.querySelector(s);
return {
  counter: q("#step-counter").textContent,
  ask: !q("#analyse").hidden,
  button: !q("#analyse-ask").hidden ? q("#analyse-button").textContent : null,
  disabled: q("#analyse-button").disabled,
  sign_in: q("#analyse-sign-in").hidden ? null : q("#analyse-sign-in").textContent.trim(),
  link: q("#analyse-play").getAttribute("href"),
  state: q("#analyse-state").textContent,
  live: q("#analyse-state").getAttribute("aria-live"),
  problem: q("#analyse-problem").hidden ? null : q("#analyse-problem").textContent,
  problem_status: q("#analyse-problem").dataset.status || null,
  analysis: !q("#analysis").hidden,
  lines: document.querySelectorAll("#analysis polyline.win-line").length,
  accuracy: document.querySelectorAll("#accuracy li").length,
  said: JSON.parse(sessionStorage.getItem("said") || "[]"),
};
"""

#: Keeps each thing the progress line says in sessionStorage: what it said survives the reload that shows the analysis.
LISTEN = """
const state = document.querySelector("#analyse-state");
new MutationObserver(() => {
  const said = JSON.parse(sessionStorage.getItem("said") || "[]");
  said.push(state.textContent);
  sessionStorage.setItem("said", JSON.stringify(said));
}).observe(state, { childList: true, characterData: true, subtree: true });
"""


def page(driver: Any) -> dict[str, Any]:
    return driver.execute_script(PAGE)


def until(driver: Any, condition: Any, seconds: float = 10) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(page(d)))
    return page(driver)


def imported_replay(server: Server) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ana's player and her import of a finished game's export (as someone sent a replay file does)."""
    ana = server.client.player("Ana")
    game = server.client.game(ana["token"], [HUMAN, ai("greedy")], variant="basic", seed=5)
    play_to_the_end(server, game["id"], ana["token"])
    exported = server.client.call("GET", f"/v1/games/{game['id']}/replay/export", ana["token"])
    assert exported.status_code == 200, exported.get_json()
    imported = server.client.call("POST", "/v1/replays", ana["token"], json=exported.get_json())
    assert imported.status_code == 201, imported.get_json()
    return ana, imported.get_json()


def test_a_player_asks_for_an_imported_replays_analysis_and_a_visitor_is_told_to_play_first(server: Server, browser: Any) -> None:
    ana, imported = imported_replay(server)
    view = f"{server.base}{imported['view_url']}"
    analysis = imported["url"] + "/analysis"

    # A visitor: no player in this browser, so no button but where to get one.
    fresh_page(browser, view)
    visitor = until(browser, lambda p: p["counter"].startswith("Step 0") and p["ask"])
    assert visitor["button"] is None and not visitor["analysis"]
    assert visitor["sign_in"] == "Only a player can ask for one: play in this browser first. Play Red7"
    assert visitor["link"] == "/play"
    browser.find_element(By.ID, "analyse-play").click()
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return location.pathname") == "/play")

    # A token the server no longer knows: the refusal in words, and the way to a player again.
    browser.execute_script("localStorage.setItem('red7.player', JSON.stringify({id: 'p_x', name: 'X', token: 'nope'}))")
    browser.get(view)
    until(browser, lambda p: p["button"] == "Analyse the decisions")
    browser.find_element(By.ID, "analyse-button").click()
    refused = until(browser, lambda p: p["problem"])
    assert refused["problem_status"] == "401" and refused["sign_in"] and refused["button"] is None
    assert server.client.call("GET", analysis).status_code == 404, "nothing was asked for"

    # The player /play keeps: the button asks, the progress is said (politely, to a screen reader), then the analysis.
    signed_in(browser, server.base, ana, "play")
    browser.get(view + "#step=3")
    ready = until(browser, lambda p: p["button"] == "Analyse the decisions" and p["sign_in"] is None)
    assert ready["live"] == "polite" and ready["problem"] is None and not ready["analysis"]
    browser.execute_script("sessionStorage.removeItem('said')")
    browser.execute_script(LISTEN)
    seen_before = len(server.requests)
    browser.find_element(By.ID, "analyse-button").click()
    shown = until(browser, lambda p: p["analysis"], seconds=ANALYSED)
    assert not shown["ask"] and shown["lines"] == 2 and shown["accuracy"] == 2
    assert shown["counter"].startswith("Step 3 "), "the step kept across the reload"
    said = shown["said"]
    assert said[0] == "Analysing the decisions…", said
    assert said[-1] == "The analysis is ready: the replay shows it.", said
    assert all(s.startswith("Analysing the decisions") for s in said[:-1] if s), said
    asked = [(r.method, r.authorized) for r in server.requests[seen_before:] if r.path == analysis]
    assert len(asked) >= 2, "asked, then polled: the POST answers queued"
    assert asked[0] == ("POST", True) and all(a == ("GET", False) for a in asked[1:]), "only the request carries the token"
    assert server.client.call("GET", analysis).get_json()["status"] == "done"
    complaints = [e for e in console_problems(browser) if "401" not in e["message"]]
    assert complaints == []
