"""Quick match in the lobby of /play, in a real headless Chromium at a phone's size and a desktop's: two players' live
tickets meeting and the game opening on both pages; a ticket that takes AI seats after its ``ai_fill_after``; an
asynchronous player's ticket, kept by id in the browser, found again with its fate after the player left; a ticket
cancelled, one already open elsewhere adopted, one expired looked for again; and a waiting ticket not read again and
again (the player's feed says when it is matched).

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py: the jobs and the
matchmaker in threads of this process, on a free loopback port).  A player who is not at a browser opens their ticket
through the API, as any other client would.  Each test saves screenshots in its tmp dir (``phone-*.png``,
``desktop-*.png``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium

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
    wait_for,
)
from tests.service.browser.test_play_lobby_browser import api_player, console_problems_but, game_on, unique  # noqa: E402
from tests.service.browser.test_play_lobby_browser import shot as shot_at  # noqa: E402

#: How long two compatible live tickets may take to become one game and open on a page: the matchmaker passes every
#: 250 ms and the page reads a waiting live ticket every second.
MATCHED = 10


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The first player's browser, at a phone's size."""
    with phone_chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def desktop() -> Iterator[Any]:
    """The second player's, at a desktop's."""
    with desktop_chromium() as driver:
        yield driver


QUICK = """
const q = (s) => document.querySelector(s);
const text = (li, s) => (li.querySelector(s) ? li.querySelector(s).textContent : null);
return {
  screen: document.body.dataset.screen,
  tickets: Array.from(document.querySelectorAll("#qm-tickets > li")).map((li) => ({
    id: li.dataset.ticket, status: li.dataset.status, game: li.dataset.game || null,
    waited: li.dataset.waited === undefined ? null : Number(li.dataset.waited),
    clock: text(li, ".qm-clock"), range: text(li, ".qm-range"), text: li.textContent,
    acts: Array.from(li.querySelectorAll("[data-act]")).map((b) => b.dataset.act),
  })),
  form_shown: !q("#qm-form").hidden, another_shown: !q("#qm-another").hidden,
  stored: JSON.parse(localStorage.getItem("red7.tickets") || "null"),
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def quick(driver: Any) -> dict[str, Any]:
    return driver.execute_script(QUICK)


def until(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    """Wait until the quick-match panel satisfies ``condition``; the panel then."""
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(quick(d)))
    return quick(driver)


def ask_for_a_match(
    driver: Any,
    *,
    counts: tuple[int, ...],
    variant: str = "basic",
    time_control: str = "t:60",
    ai_after: str = "",
    ai_level: str | None = None,
    rated: bool = False,
) -> None:
    """Fill the quick-match form as a player does, and send it."""
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "qm-submit").is_displayed())
    for box in driver.find_elements(By.CSS_SELECTOR, 'input[name="qm-count"]'):
        if box.is_selected() != (int(box.get_attribute("value")) in counts):
            box.click()
    Select(driver.find_element(By.ID, "qm-variant")).select_by_value(variant)
    Select(driver.find_element(By.ID, "qm-time")).select_by_value(time_control)
    Select(driver.find_element(By.ID, "qm-ai-after")).select_by_value(ai_after)
    if driver.find_element(By.ID, "qm-rated").is_selected() != rated:
        driver.find_element(By.ID, "qm-rated").click()
    if ai_level is not None:
        if not driver.find_element(By.ID, "qm-more").get_attribute("open"):
            driver.find_element(By.CSS_SELECTOR, "#qm-more summary").click()
        Select(driver.find_element(By.ID, "qm-ai-level")).select_by_value(ai_level)
    driver.find_element(By.ID, "qm-submit").click()


def ticket(server: Server, token: str, ticket_id: str) -> dict[str, Any]:
    response = server.client.call("GET", f"/v1/match-tickets/{ticket_id}", token)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def reads_of(server: Server, ticket_id: str) -> int:
    """How many times the server was asked for the ticket."""
    return len([r for r in server.requests if r.method == "GET" and r.path == f"/v1/match-tickets/{ticket_id}"])


def shot(driver: Any, path: Path, element: str) -> None:
    """A PNG with ``element`` at the top, the passing word that floats over the page ("You are looking ...") gone."""
    driver.execute_script("document.getElementById('notice').textContent = ''")
    shot_at(driver, path, element)


def seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


# --- the tests ---------------------------------------------------------------------------------


def test_two_players_live_tickets_meet_and_both_pages_open_the_same_game(
    server: Server, browser: Any, desktop: Any, tmp_path: Path
) -> None:
    # Ana, on a phone, asks for a live game of two players (basic, 30 seconds a turn): her ticket waits.
    fresh_page(browser, f"{server.base}/play#lobby")
    browser.get_log("browser")
    sign_up(browser, "Ana")
    ana = stored_player(browser)
    shown = until(browser, lambda s: s["screen"] == "lobby" and s["form_shown"])
    assert shown["tickets"] == [] and shown["stored"] is None
    shot(browser, tmp_path / "phone-quick-match-form.png", "quick-match")
    ask_for_a_match(browser, counts=(2,), time_control="t:30")
    waiting = until(browser, lambda s: s["tickets"] and s["tickets"][0]["status"] == "waiting")
    ticket_id = waiting["tickets"][0]["id"]
    assert waiting["stored"] == {"player": ana["id"], "ids": [ticket_id]}, "the ticket's id is kept in the browser"
    asked = ticket(server, ana["token"], ticket_id)
    assert (asked["status"], asked["player_counts"], asked["variant"], asked["turn_seconds"], asked["rated"]) == (
        "waiting",
        [2],
        "basic",
        30,
        False,
    )
    assert asked["ai_fill_after"] is None and asked["rating"] == 1000
    assert "2 players, basic, 30 seconds a turn, casual" in waiting["tickets"][0]["text"]
    assert waiting["tickets"][0]["acts"] == ["cancel"]
    assert not waiting["form_shown"] and waiting["another_shown"], "one ticket at a time, unless the player wants another"

    # The waiting state: how long it has waited, ticking, and the ratings it takes now (widening round hers).
    later = until(browser, lambda s: s["tickets"][0]["waited"] >= 3, 8)["tickets"][0]
    assert later["clock"] == f"0:{later['waited']:02d}", later  # the clock says what it waited, in the same tick
    low, high = (int(n) for n in later["range"].split("–"))
    assert low + high == 2 * asked["rating"] and asked["rating"] - 500 <= low <= asked["rating"] - 100, later["range"]
    assert waiting["overflow"] <= 0, "nothing is wider than a phone's screen"
    shot(browser, tmp_path / "phone-quick-match-waiting.png", "quick-match")

    # The page reads the ticket no more while it waits: the player's feed is open, and will say when it is matched.
    assert browser.execute_script("return document.body.dataset.feed") == "stream"
    before = reads_of(server, ticket_id)
    time.sleep(3)
    assert reads_of(server, ticket_id) == before, "a waiting ticket is not read again and again"

    # Bo, at a desktop, asks for the same kind of game: one game, opening on both pages.
    fresh_page(desktop, f"{server.base}/play#lobby")
    desktop.get_log("browser")
    sign_up(desktop, "Bo")
    bo = stored_player(desktop)
    until(desktop, lambda s: s["screen"] == "lobby" and s["form_shown"])
    ask_for_a_match(desktop, counts=(2, 3), time_control="t:30")
    on_desktop = wait_for(desktop, lambda t: t["screen"] == "table" and t["phase"] == "turn", MATCHED)
    on_phone = wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn", MATCHED)
    game_id = game_on(browser)
    assert game_id and game_on(desktop) == game_id, "both pages open the same game"
    assert sorted(s["name"] for s in on_phone["seats"]) == sorted(s["name"] for s in on_desktop["seats"]) == ["Ana", "Bo"]
    matched = ticket(server, ana["token"], ticket_id)
    assert matched["status"] == "matched" and matched["game_id"] == game_id
    view = server.client.view(game_id, bo["token"])
    assert view["origin"] == "quick_match" and view["turn_timeout"] == 30 and view["variant"] == "basic"
    assert {s["player_id"] for s in view["seats"]} == {ana["id"], bo["id"]}
    assert stored_player(browser)["id"] == ana["id"] and quick(browser)["stored"] is None, "a ticket whose game opened is done"
    assert on_phone["overflow"] <= 0
    screenshot(browser, tmp_path / "phone-quick-match-game.png")
    screenshot(desktop, tmp_path / "desktop-quick-match-game.png")
    assert console_problems(browser) == [] and console_problems(desktop) == []


def test_a_ticket_with_ai_fill_after_gets_its_game_with_ai_seats(server: Server, desktop: Any, tmp_path: Path) -> None:
    fresh_page(desktop, f"{server.base}/play#lobby")
    desktop.get_log("browser")
    sign_up(desktop, "Cy")
    cy = stored_player(desktop)
    until(desktop, lambda s: s["screen"] == "lobby" and s["form_shown"])
    # Three players, the advanced rules, AI seats (random) after 10 s if nobody came: nobody else wants that here.
    ask_for_a_match(desktop, counts=(3,), variant="advanced", ai_after="10", ai_level="random")
    waiting = until(desktop, lambda s: s["tickets"] and s["tickets"][0]["status"] == "waiting")
    assert "AI seats (random) after 10 s" in waiting["tickets"][0]["text"], waiting["tickets"][0]["text"]
    ticket_id = waiting["tickets"][0]["id"]
    screenshot(desktop, tmp_path / "desktop-quick-match-ai-fill-waiting.png")

    shown = wait_for(desktop, lambda t: t["screen"] == "table" and t["phase"] in ("turn", "finished"), 10 + MATCHED)
    game_id = game_on(desktop)
    over = ticket(server, cy["token"], ticket_id)
    assert over["status"] == "matched" and over["game_id"] == game_id
    assert 10 <= seconds_between(over["created_at"], over["closed_at"]) < 12, (over["created_at"], over["closed_at"])
    view = server.client.view(game_id, cy["token"])
    assert view["origin"] == "quick_match" and view["variant"] == "advanced"
    assert [(s["kind"], s["level"]) for s in view["seats"] if s["player_id"] != cy["id"]] == [("ai", "random")] * 2
    assert [s["player_id"] for s in view["seats"]].count(cy["id"]) == 1 and len(shown["seats"]) == 3
    screenshot(desktop, tmp_path / "desktop-quick-match-ai-fill-game.png")
    assert console_problems(desktop) == []


def test_an_asynchronous_players_ticket_is_found_again_with_its_fate(server: Server, browser: Any, tmp_path: Path) -> None:
    # Di asks for a correspondence game (3 days a turn): such a ticket waits a week unless told otherwise.
    fresh_page(browser, f"{server.base}/play#lobby")
    browser.get_log("browser")
    sign_up(browser, "Di")
    di = stored_player(browser)
    until(browser, lambda s: s["screen"] == "lobby" and s["form_shown"])
    Select(browser.find_element(By.ID, "qm-time")).select_by_value("d:3")
    assert browser.find_element(By.ID, "qm-expires").get_attribute("value") == str(7 * 86400)
    ask_for_a_match(browser, counts=(2,), time_control="d:3", rated=True)
    waiting = until(browser, lambda s: s["tickets"] and s["tickets"][0]["status"] == "waiting")
    first = waiting["tickets"][0]["id"]
    asked = ticket(server, di["token"], first)
    assert asked["days_per_turn"] == 3 and asked["rated"]
    assert seconds_between(asked["created_at"], asked["expires_at"]) == 7 * 86400, "a correspondence ticket waits a week"
    assert "2 players, basic, 3 days a turn, rated" in waiting["tickets"][0]["text"]

    # Di leaves.  An opponent who wants the same comes later (through the API): the matchmaker seats them both.
    browser.get("about:blank")
    eve = api_player(server, "Eve", f"eve_{unique()}")
    body = {"player_counts": [2, 3], "variant": "basic", "days_per_turn": 3, "rated": True}
    opened = server.client.call("POST", "/v1/match-tickets", eve["token"], json=body)
    assert opened.status_code == 201, opened.get_json()
    deadline = time.monotonic() + MATCHED
    while (found := ticket(server, di["token"], first))["status"] == "waiting":
        assert time.monotonic() < deadline, "the matchmaker did not seat two compatible correspondence tickets"
        time.sleep(0.2)
    assert found["status"] == "matched"

    # Di comes back to the lobby: the ticket is there with its fate, and the game waits for her to open it.
    browser.get(f"{server.base}/play#lobby")
    back = until(browser, lambda s: s["screen"] == "lobby" and s["tickets"])
    assert [(t["id"], t["status"], t["game"]) for t in back["tickets"]] == [(first, "matched", found["game_id"])]
    assert back["tickets"][0]["acts"] == ["open", "dismiss"] and "Matched: your game is ready." in back["tickets"][0]["text"]
    assert back["form_shown"] and back["overflow"] <= 0
    shot(browser, tmp_path / "phone-quick-match-found-again.png", "quick-match")
    time.sleep(1.5)
    assert quick(browser)["screen"] == "lobby", "a game found while the player was away is shown, not opened for them"
    browser.find_element(By.CSS_SELECTOR, f'#qm-tickets li[data-ticket="{first}"] [data-act="open"]').click()
    wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn", 10)
    assert game_on(browser) == found["game_id"] and quick(browser)["stored"] is None

    # A live ticket, then not wanted after all: it is cancelled, and the page forgets it.
    browser.get(f"{server.base}/play#lobby")
    until(browser, lambda s: s["screen"] == "lobby" and s["form_shown"])
    ask_for_a_match(browser, counts=(4,), time_control="t:120")
    second = until(browser, lambda s: s["tickets"] and s["tickets"][0]["status"] == "waiting")["tickets"][0]["id"]
    browser.find_element(By.ID, "qm-another").click()  # the form again, for another kind of game beside this one
    assert until(browser, lambda s: s["form_shown"] and not s["another_shown"])["tickets"][0]["id"] == second
    browser.find_element(By.CSS_SELECTOR, f'#qm-tickets li[data-ticket="{second}"] [data-act="cancel"]').click()
    gone = until(browser, lambda s: not s["tickets"])
    assert gone["stored"] is None and gone["form_shown"] and ticket(server, di["token"], second)["status"] == "cancelled"

    # A ticket Di opened elsewhere (another device of hers, through the API): asking for that kind here finds it.
    elsewhere = server.client.call("POST", "/v1/match-tickets", di["token"], json={"player_counts": [3], "turn_seconds": 300})
    assert elsewhere.status_code == 201, elsewhere.get_json()
    ask_for_a_match(browser, counts=(3, 4), variant="advanced", time_control="t:300")
    adopted = until(browser, lambda s: s["tickets"] and s["tickets"][0]["status"] == "waiting")
    assert [t["id"] for t in adopted["tickets"]] == [elsewhere.get_json()["id"]] and adopted["problem"] is None
    browser.find_element(By.CSS_SELECTOR, '#qm-tickets [data-act="cancel"]').click()
    until(browser, lambda s: not s["tickets"])

    # A ticket that expired while Di was away says so, and is looked for again in a click.
    short = {"player_counts": [2], "variant": "advanced", "action_rules": True, "turn_seconds": 60, "expires_in": 2}
    expiring = server.client.call("POST", "/v1/match-tickets", di["token"], json=short).get_json()
    kept = {"player": di["id"], "ids": [expiring["id"]]}  # as the page that opened it keeps it
    browser.execute_script("localStorage.setItem('red7.tickets', JSON.stringify(arguments[0]))", kept)
    time.sleep(2.2)
    browser.get(f"{server.base}/play#play")
    browser.get(f"{server.base}/play#lobby")
    expired = until(browser, lambda s: s["tickets"] and s["tickets"][0]["status"] == "expired")
    assert expired["tickets"][0]["acts"] == ["again", "dismiss"] and "the ticket expired" in expired["tickets"][0]["text"]
    shot(browser, tmp_path / "phone-quick-match-expired.png", "quick-match")
    browser.find_element(By.CSS_SELECTOR, '#qm-tickets [data-act="again"]').click()
    again = until(browser, lambda s: s["tickets"] and s["tickets"][0]["id"] != expiring["id"])
    anew = ticket(server, di["token"], again["tickets"][0]["id"])
    same = ("player_counts", "variant", "action_rules", "turn_seconds", "rated", "ai_fill_after", "ai_level")
    assert {k: anew[k] for k in same} == {k: expiring[k] for k in same}
    assert again["stored"]["ids"] == [anew["id"]], "the expired ticket is forgotten, the new one kept"
    until(browser, lambda s: s["tickets"][0]["status"] == "expired", 5)  # it waits as long as the first did: 2 s
    browser.find_element(By.CSS_SELECTOR, '#qm-tickets [data-act="dismiss"]').click()
    assert until(browser, lambda s: not s["tickets"])["stored"] is None
    assert console_problems_but(browser, "/v1/match-tickets", 409) == []
    assert json.loads(browser.execute_script("return localStorage.getItem('red7.player')"))["id"] == di["id"]
