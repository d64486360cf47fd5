"""The lobby of /play in a real headless Chromium, two players at once (one at a phone's size, the other at a
desktop's): a handle chosen at sign-up, a player found by handle and challenged, the challenge declined with a reason
and then accepted, the game opening on both pages; a listed table found through the filters and pages of the open
tables and joined in a click; a rematch offered by both at a short game's end, the next game opening on both pages,
and aborted there; a profile; an account deleted.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py: the jobs in threads of
this process, on a free loopback port).  A second player's moves, where the test does not click them, go through the
API as any other client's would.  Each test saves screenshots in its tmp dir (``phone-*.png``, ``desktop-*.png``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import (  # noqa: E402
    GAME_SECONDS,
    Server,
    choose,
    console_problems,
    fresh_page,
    screenshot,
    serving,
    sign_up,
    stored_player,
    table,
    wait_for,
)

#: How long a page may take to notice what another player did: it reads its challenges, or a finished game's
#: rematch, every 4 s.
NOTICED = 15


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


LOBBY = """
const q = (s) => document.querySelector(s);
const items = (list) => Array.from(document.querySelectorAll(list + " > li")).map((li) => ({
  id: li.dataset.challenge || li.dataset.table || li.dataset.player, status: li.dataset.status || null,
  text: li.textContent, buttons: Array.from(li.querySelectorAll("button")).map((b) => b.textContent),
}));
return {
  screen: document.body.dataset.screen,
  hash: location.hash,
  received: items("#received"), sent: items("#sent"), tables: items("#tables"), found: items("#found"),
  tables_loaded: Number(q("#tables").dataset.loaded || 0),
  more_tables: !q("#more-tables").hidden, no_tables: !q("#no-tables").hidden,
  chips: Array.from(document.querySelectorAll("#challenge-who li")).map((li) => li.dataset.handle),
  me_line: q("#me-line").textContent,
  who_handle: q("#who-handle").hidden ? null : q("#who-handle").textContent,
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def lobby(driver: Any) -> dict[str, Any]:
    return driver.execute_script(LOBBY)


def until(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    """Wait until the lobby satisfies ``condition``; the lobby then."""
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(lobby(d)))
    return lobby(driver)


def go(driver: Any, fragment: str) -> None:
    """Follow a link of the page's own (a change of its address's fragment, as a click on one does)."""
    driver.execute_script("location.hash = arguments[0]", fragment)


def game_on(driver: Any) -> str | None:
    """The game the page shows, from its address (``#game=<id>``)."""
    return parse_qs(urlsplit(driver.current_url).fragment).get("game", [None])[0]


def click(driver: Any, css: str) -> None:
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, css).is_displayed())
    driver.find_element(By.CSS_SELECTOR, css).click()


def confirm(driver: Any, yes: bool = True) -> None:
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
    driver.find_element(By.ID, "confirm-yes" if yes else "confirm-no").click()


def field_error(driver: Any, field: str) -> tuple[str | None, str]:
    """The refusal said under a field: its code and words (``None`` while none is shown)."""
    said = driver.find_element(By.ID, f"{field}-error")
    return (said.get_attribute("data-code") if said.is_displayed() else None), said.text


def signed_in(driver: Any, base: str, player: dict[str, Any], fragment: str) -> None:
    """Open the page at ``fragment`` as ``player`` (made through the API): its token in the browser's storage."""
    fresh_page(driver, f"{base}/play#play")
    stored = {"id": player["id"], "name": player["name"], "handle": player.get("handle"), "token": player["token"]}
    driver.execute_script("localStorage.setItem('red7.player', JSON.stringify(arguments[0]))", stored)
    driver.get(f"{base}/play#{fragment}")
    driver.refresh()


def api_player(server: Server, name: str, handle: str) -> dict[str, Any]:
    response = server.client.call("POST", "/v1/players", json={"name": name, "handle": handle})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def shot(driver: Any, path: Path, element: str) -> None:
    """A PNG of the viewport with ``element`` (an id) at its top, for a person to look at."""
    driver.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'start'})", element)
    assert driver.save_screenshot(str(path)), path


#: A unique tag's letters: no vowel, no digit (a digit reads as the letter it looks like) and no ``t``, so that no
#: name + tag reads as a word a handle may not pose as (``bo`` + ``7…`` was ``bot…``: CI refused ``bo765a3f`` once).
TAG_LETTERS = "bcdfghjklmnpqrsvwxz"


def unique() -> str:
    """A tag for a test's handles and ids: ``q`` (which ends any word a name began) and six letters."""
    return "q" + "".join(secrets.choice(TAG_LETTERS) for _ in range(6))


def console_problems_but(driver: Any, path: str, *statuses: int) -> list[dict[str, Any]]:
    """The console's complaints, but the refusals the test asked for: the browser logs each answer of ``statuses`` to a
    request of ``path`` (and the test checks the page said them)."""
    said = [f"{path} - Failed to load resource: the server responded with a status of {status}" for status in statuses]
    return [entry for entry in console_problems(driver) if not any(s in entry["message"] for s in said)]


# --- the tests ---------------------------------------------------------------------------------


def test_a_handle_at_sign_up_a_player_found_by_it_challenged_and_the_game_opening_for_both(
    server: Server, browser: Any, desktop: Any, tmp_path: Path
) -> None:
    tag = unique()
    # Bo, at a desktop, signs up with a handle.
    fresh_page(desktop, f"{server.base}/play")
    desktop.get_log("browser")
    desktop.find_element(By.ID, "signup-handle").send_keys(f"Bo_{tag}")
    sign_up(desktop, "Bo")
    bo = stored_player(desktop)
    assert bo["handle"] == f"Bo_{tag}"

    # Ana, on a phone: the handles the API refuses are said under the field, and nobody is made.
    fresh_page(browser, f"{server.base}/play")
    browser.get_log("browser")
    browser.find_element(By.ID, "signup-name").send_keys("Ana")
    for handle, code in (("admin", "handle_reserved"), ("a!", "handle_invalid"), (f"bo_{tag}", "handle_taken")):
        box = browser.find_element(By.ID, "signup-handle")
        box.clear()
        box.send_keys(handle)
        browser.find_element(By.ID, "signup-submit").click()
        WebDriverWait(browser, 10).until(lambda d, code=code: field_error(d, "signup-handle")[0] == code)
        assert stored_player(browser) is None and browser.find_element(By.ID, "signup-handle").get_attribute("aria-invalid")
        assert browser.execute_script("return document.body.dataset.screen") == "signup"
    screenshot(browser, tmp_path / "phone-signup-handle-taken.png")
    box = browser.find_element(By.ID, "signup-handle")
    box.clear()
    box.send_keys(f"ana_{tag}")
    sign_up(browser, "Ana")
    ana = stored_player(browser)
    assert ana["handle"] == f"ana_{tag}" and field_error(browser, "signup-handle")[0] is None

    # The lobby, through the header's link; Ana finds Bo by the start of his handle, whatever its case.
    browser.find_element(By.CSS_SELECTOR, '#nav a[href="#lobby"]').click()
    shown = until(browser, lambda s: s["screen"] == "lobby" and s["tables_loaded"])
    assert shown["who_handle"] == f"@ana_{tag}" and f"@ana_{tag}" in shown["me_line"]
    assert shown["overflow"] <= 0
    screenshot(browser, tmp_path / "phone-lobby.png")
    search = browser.find_element(By.ID, "search-handle")
    search.send_keys(f"BO_{tag[:3]}")
    browser.find_element(By.ID, "search-submit").click()
    found = until(browser, lambda s: s["found"])
    assert [p["id"] for p in found["found"]] == [f"Bo_{tag}"]

    # A challenge to Bo: Bo declines it, with a reason Ana reads.
    click(browser, f'#found button[data-challenge="Bo_{tag}"]')
    assert lobby(browser)["chips"] == [f"Bo_{tag}"]
    shot(browser, tmp_path / "phone-lobby-challenge.png", "players-panel")
    click(browser, "#challenge-send")
    sent = until(browser, lambda s: s["sent"] and s["sent"][0]["status"] == "open" and not s["chips"])
    assert "You challenged Bo" in sent["sent"][0]["text"] and sent["sent"][0]["buttons"] == ["Cancel"]
    go(desktop, "lobby")
    inbox = until(desktop, lambda s: s["received"] and s["received"][0]["status"] == "open", NOTICED)
    assert "Ana challenges you" in inbox["received"][0]["text"] and "basic" in inbox["received"][0]["text"]
    screenshot(desktop, tmp_path / "desktop-lobby-challenged.png")
    shot(browser, tmp_path / "phone-lobby-sent.png", "inbox")
    Select(desktop.find_element(By.CSS_SELECTOR, "#received .decline-reason")).select_by_value("later")
    click(desktop, '#received button[data-act="decline"]')
    declined = until(browser, lambda s: s["sent"][0]["status"] == "declined", NOTICED)
    assert "Bo declined: “This is not the right time for me, please ask again later.”" in declined["sent"][0]["text"]

    # Challenged again, from Bo's profile this time: Bo accepts, and the game opens on both pages.
    go(browser, f"player=bo_{tag}")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "profile-challenge").is_displayed())
    assert browser.find_element(By.ID, "profile-name").text == "Bo"
    browser.find_element(By.ID, "profile-challenge").click()
    ready = until(browser, lambda s: s["screen"] == "lobby" and s["chips"] == [f"Bo_{tag}"] and s["sent"])
    assert ready["sent"][0]["status"] == "declined"
    click(browser, "#challenge-send")
    until(browser, lambda s: s["sent"][0]["status"] == "open")
    challenge = until(desktop, lambda s: s["received"][0]["status"] == "open", NOTICED)["received"][0]["id"]
    click(desktop, '#received button[data-act="accept"]')
    started = wait_for(desktop, lambda t: t["screen"] == "table" and t["phase"] == "turn", 15)
    game_id = game_on(desktop)
    answer = server.client.call("GET", f"/v1/challenges/{challenge}", ana["token"]).get_json()
    assert answer["status"] == "started" and answer["game_id"] == game_id
    assert [s["name"] for s in started["seats"]] == ["Ana", "Bo"], "the challenger sits first"
    on_phone = wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn", NOTICED)
    assert game_on(browser) == game_id and [s["name"] for s in on_phone["seats"]] == ["Ana", "Bo"]
    assert on_phone["overflow"] <= 0
    screenshot(browser, tmp_path / "phone-challenge-game.png")
    screenshot(desktop, tmp_path / "desktop-challenge-game.png")
    assert console_problems_but(browser, "/v1/players", 409, 422) == [] and console_problems(desktop) == []


def test_a_listed_table_found_through_the_filters_and_pages_and_joined_in_a_click(
    server: Server, browser: Any, desktop: Any, tmp_path: Path
) -> None:
    # Twelve tables of three seats that others listed, so that the list has a second page.
    for n in range(3):
        token = api_player(server, f"Host {n}", f"host{n}_{unique()}")["token"]
        for _ in range(4):
            server.client.game(token, [{"kind": "human"}] * 3, variant="basic", listed=True)

    # Ana, at a desktop, sets up a two-seat table and lists it.
    fresh_page(desktop, f"{server.base}/play")
    desktop.get_log("browser")
    sign_up(desktop, "Ana")
    Select(desktop.find_element(By.ID, "players")).select_by_value("2")
    Select(desktop.find_element(By.ID, "seat-1")).select_by_value("human")
    desktop.find_element(By.CSS_SELECTOR, 'input[name="variant"][value="basic"]').click()
    Select(desktop.find_element(By.ID, "time-control")).select_by_value("d:3")
    desktop.find_element(By.ID, "listed").click()
    desktop.find_element(By.ID, "create").click()
    wait_for(desktop, lambda t: t["screen"] == "table" and t["phase"] == "waiting")
    game_id = game_on(desktop)
    view = server.client.view(game_id, stored_player(desktop)["token"])
    assert view["listed"] and view["days_per_turn"] == 3 and view["origin"] == "open_table"

    # Bo, on a phone, in the lobby: three-seat tables fill a page and the next; two-seat basic ones show Ana's.
    fresh_page(browser, f"{server.base}/play#lobby")
    browser.get_log("browser")
    sign_up(browser, "Bo")
    until(browser, lambda s: s["screen"] == "lobby" and s["tables_loaded"])
    Select(browser.find_element(By.ID, "f-players")).select_by_value("3")
    # The unfiltered first page has ten tables and more too: wait for the filtered one, not just any full page.
    first = until(
        browser, lambda s: len(s["tables"]) == 10 and s["more_tables"] and all("3 players" in t["text"] for t in s["tables"])
    )
    assert all("3 players" in t["text"] for t in first["tables"])
    browser.find_element(By.ID, "more-tables").click()
    both = until(browser, lambda s: len(s["tables"]) >= 12)
    assert len({t["id"] for t in both["tables"]}) == len(both["tables"]) and game_id not in {t["id"] for t in both["tables"]}
    Select(browser.find_element(By.ID, "f-time")).select_by_value("d:3")
    Select(browser.find_element(By.ID, "f-players")).select_by_value("2")
    Select(browser.find_element(By.ID, "f-variant")).select_by_value("basic")
    listed = until(browser, lambda s: [t["id"] for t in s["tables"]] == [game_id])
    assert "Ana's table" in listed["tables"][0]["text"] and "3 days a turn" in listed["tables"][0]["text"]
    assert listed["overflow"] <= 0
    shot(browser, tmp_path / "phone-open-tables.png", "tables-panel")
    Select(browser.find_element(By.ID, "f-rated")).select_by_value("true")
    assert until(browser, lambda s: s["no_tables"])["tables"] == [], "Ana's table is not rated"
    Select(browser.find_element(By.ID, "f-rated")).select_by_value("")
    until(browser, lambda s: [t["id"] for t in s["tables"]] == [game_id])

    # One click, and Bo is at the table; the game starts on Ana's page too.
    click(browser, f'#tables button[data-join="{game_id}"]')
    seated = wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn", 15)
    assert game_on(browser) == game_id and [s["name"] for s in seated["seats"]] == ["Ana", "Bo"]
    wait_for(desktop, lambda t: t["phase"] == "turn", 15)
    screenshot(desktop, tmp_path / "desktop-open-table-started.png")
    assert server.client.view(game_id)["status"] == "active"
    assert console_problems(browser) == [] and console_problems(desktop) == []


def play_to_the_end(server: Server, game_id: str, *tokens: str) -> dict[str, Any]:
    """Both players' moves through the API (the AIs' and the deal are the embedded worker's); the last view."""
    deadline = time.monotonic() + GAME_SECONDS
    while True:
        assert time.monotonic() < deadline, f"game {game_id} did not finish in {GAME_SECONDS} s"
        for token in tokens:
            view = server.client.view(game_id, token)
            if view["status"] == "finished":
                return view
            if view["legal_steps"]:
                step = choose([{**s, "index": i} for i, s in enumerate(view["legal_steps"])])
                sent = {k: step[k] for k in ("type", "card", "seat", "to") if k in step}
                server.client.act(game_id, token, [sent], headers={"If-Match": f'"{view["version"]}"'})
        time.sleep(0.05)


def test_a_rematch_offered_by_both_starts_the_next_game_on_both_pages_and_it_can_be_aborted(
    server: Server, browser: Any, desktop: Any, tmp_path: Path
) -> None:
    tag = unique()
    ana, bo = api_player(server, "Ana", f"ana_{tag}"), api_player(server, "Bo", f"bo_{tag}")
    created = server.client.game(ana["token"], [{"kind": "human"}] * 2, variant="basic")
    game_id = created["id"]
    joined = server.client.call("POST", f"/v1/games/{game_id}/join", bo["token"], json={"code": created["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    signed_in(browser, server.base, ana, f"game={game_id}")
    signed_in(desktop, server.base, bo, f"game={game_id}")
    browser.get_log("browser")
    desktop.get_log("browser")
    wait_for(browser, lambda t: t["phase"] in ("turn", "finished"))
    end = play_to_the_end(server, game_id, ana["token"], bo["token"])

    # The end on both pages: a rematch to offer, or to decline.
    for driver in (browser, desktop):
        wait_for(driver, lambda t: t["outcome_shown"], 15)
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "rematch-offer").is_displayed())
        assert driver.find_element(By.ID, "rematch-offer").text == "Offer a rematch"
        assert driver.find_element(By.ID, "rematch-decline").is_displayed()
    browser.find_element(By.ID, "rematch-offer").click()
    WebDriverWait(browser, 10).until(lambda d: "waiting for Bo" in d.find_element(By.ID, "rematch-state").text)
    assert not browser.find_element(By.ID, "rematch-offer").is_displayed()
    WebDriverWait(desktop, NOTICED).until(lambda d: d.find_element(By.ID, "rematch-state").text == "Ana wants a rematch.")
    assert desktop.find_element(By.ID, "rematch-offer").text == "Accept the rematch"
    screenshot(browser, tmp_path / "phone-rematch-offered.png")
    screenshot(desktop, tmp_path / "desktop-rematch-offered.png")

    # Bo accepts: the rematch opens on his page at once, and on Ana's as her page reads the game again.
    desktop.find_element(By.ID, "rematch-offer").click()
    WebDriverWait(desktop, 15).until(lambda d: game_on(d) not in (None, game_id))
    rematch = game_on(desktop)
    assert server.client.view(game_id)["rematch"] == rematch
    WebDriverWait(browser, NOTICED).until(lambda d: game_on(d) == rematch)
    new = server.client.view(rematch, ana["token"])
    assert new["rematch_of"] == game_id and [s["player_id"] for s in new["seats"]] == [bo["id"], ana["id"]]
    for driver in (browser, desktop):
        shown = wait_for(driver, lambda t: t["screen"] == "table" and t["phase"] == "turn", 15)
        assert [s["name"] for s in shown["seats"]] == ["Bo", "Ana"], "everyone moved one seat round"

    # Nobody has moved yet: Ana may abort it; both pages then say so, with nothing left to do.
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "abort").is_displayed())
    browser.find_element(By.ID, "abort").click()
    confirm(browser)
    for driver, by in ((browser, "by you"), (desktop, "by Ana")):
        aborted = wait_for(driver, lambda t: t["phase"] == "aborted" and "aborted by" in t["status"], 15)
        assert aborted["status"] == f"This game was aborted {by}: no winner, and it counts for nobody."
        assert not aborted["steps"] and not aborted["outcome_shown"]
        assert not driver.find_element(By.ID, "abort").is_displayed()
        assert not driver.find_element(By.ID, "hand-panel").is_displayed()
        assert all(not s["turn"] for s in aborted["seats"])
    WebDriverWait(desktop, 10).until(lambda d: table(d)["live"] == "over")
    assert server.client.view(rematch)["status"] == "aborted"
    screenshot(browser, tmp_path / "phone-aborted.png")

    # Bo's profile, from Ana's page: the first game counts, the aborted one does not.
    go(browser, f"player=BO_{tag}")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "profile-facts").is_displayed())
    assert browser.find_element(By.ID, "profile-h").text == f"@bo_{tag}"
    assert browser.find_element(By.ID, "profile-name").text == "Bo"
    assert browser.find_element(By.ID, "profile-played").text == "1"
    assert browser.find_element(By.ID, "profile-won").text == ("1" if end["winner"] == 1 else "0")
    assert browser.find_element(By.ID, "profile-since").text
    screenshot(browser, tmp_path / "phone-profile.png")
    assert console_problems(browser) == [] and console_problems(desktop) == []


def test_a_rematch_declined_is_said_on_the_other_page(server: Server, browser: Any, desktop: Any) -> None:
    tag = unique()
    ana, bo = api_player(server, "Ana", f"ana_{tag}"), api_player(server, "Bo", f"bo_{tag}")
    created = server.client.game(ana["token"], [{"kind": "human"}] * 2, variant="basic")
    server.client.call("POST", f"/v1/games/{created['id']}/join", bo["token"], json={"code": created["join_code"]})
    play_to_the_end(server, created["id"], ana["token"], bo["token"])
    signed_in(browser, server.base, ana, f"game={created['id']}")
    signed_in(desktop, server.base, bo, f"game={created['id']}")
    WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "rematch-offer").is_displayed())
    browser.find_element(By.ID, "rematch-offer").click()
    WebDriverWait(desktop, NOTICED).until(lambda d: d.find_element(By.ID, "rematch-state").text == "Ana wants a rematch.")
    desktop.find_element(By.ID, "rematch-decline").click()
    WebDriverWait(desktop, 10).until(lambda d: d.find_element(By.ID, "rematch-state").text == "You declined a rematch.")
    WebDriverWait(browser, NOTICED).until(lambda d: d.find_element(By.ID, "rematch-state").text == "Bo declined a rematch.")
    for driver in (browser, desktop):
        assert not driver.find_element(By.ID, "rematch-offer").is_displayed()
        assert not driver.find_element(By.ID, "rematch-decline").is_displayed()
    assert game_on(browser) == created["id"] and server.client.view(created["id"])["rematch"] is None


def test_a_handle_chosen_later_a_challenge_cancelled_and_the_account_deleted_after_a_question(
    server: Server, browser: Any
) -> None:
    tag = unique()
    other = api_player(server, "Other", f"cy_{tag}")
    fresh_page(browser, f"{server.base}/play#lobby")
    browser.get_log("browser")
    sign_up(browser, "Cy")
    shown = until(browser, lambda s: s["screen"] == "lobby")
    assert "no handle yet" in shown["me_line"] and shown["who_handle"] is None
    box = browser.find_element(By.ID, "handle-input")
    for handle, code in ((f"CY_{tag}", "handle_taken"), ("me", "handle_reserved"), ("c y", "handle_invalid")):
        box.clear()
        box.send_keys(handle)
        browser.find_element(By.ID, "handle-save").click()
        WebDriverWait(browser, 10).until(lambda d, code=code: field_error(d, "handle-input")[0] == code)
    box.clear()
    box.send_keys(f"cy2_{tag}")
    browser.find_element(By.ID, "handle-save").click()
    until(browser, lambda s: s["who_handle"] == f"@cy2_{tag}")
    cy = stored_player(browser)
    assert cy["handle"] == f"cy2_{tag}" and field_error(browser, "handle-input")[0] is None

    # A challenge sent, then cancelled (after a question): the player challenged finds it so in their inbox.
    browser.find_element(By.ID, "search-handle").send_keys(f"cy_{tag}")
    browser.find_element(By.ID, "search-submit").click()
    click(browser, f'#found button[data-challenge="cy_{tag}"]')
    Select(browser.find_element(By.ID, "c-time-control")).select_by_value("d:7")
    browser.find_element(By.ID, "c-rated").click()
    click(browser, "#challenge-send")
    sent = until(browser, lambda s: s["sent"] and s["sent"][0]["status"] == "open")["sent"][0]
    assert "basic, 7 days a turn, rated" in sent["text"]
    click(browser, '#sent button[data-act="cancel"]')
    confirm(browser)
    until(browser, lambda s: s["sent"][0]["status"] == "cancelled")
    inbox = server.client.call("GET", "/v1/challenges", other["token"]).get_json()["challenges"]
    assert [(c["id"], c["status"], c["days_per_turn"], c["rated"]) for c in inbox] == [(sent["id"], "cancelled", 7, True)]

    # Deleting asks first: "Cancel" keeps everything.
    browser.find_element(By.ID, "delete-account").click()
    confirm(browser, yes=False)
    assert server.client.call("GET", "/v1/players/me", cy["token"]).status_code == 200
    browser.find_element(By.ID, "delete-account").click()
    confirm(browser)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
    assert stored_player(browser) is None
    assert server.client.call("GET", "/v1/players/me", cy["token"]).status_code == 401
    assert server.client.call("GET", f"/v1/players/cy2_{tag}").status_code == 404
    assert console_problems_but(browser, "/v1/players/me", 409, 422) == []
