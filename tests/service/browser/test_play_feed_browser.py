"""/play follows the player's own feed (followMyEvents) in a real headless Chromium, and polls nothing: over a stretch of
more than 15 s a challenge arrives, a match is found for a ticket, and a rematch is offered, each shown in the page as
its notice comes, while the browser's own network log (the DevTools performance log) shows not one request to the
challenges, the match tickets or a finished game's view after the feed opened, and the feed opened once.  On a server
without stream tickets the same feed is long-polled instead, and a challenge still shows.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py); the other players act
through the API, as any other client would.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.harness.browser import network_requests, phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import Server, console_problems, screenshot, serving, wait_for  # noqa: E402
from tests.service.browser.test_play_lobby_browser import (  # noqa: E402
    api_player,
    game_on,
    go,
    lobby,
    play_to_the_end,
    signed_in,
    unique,
    until,
)
from tests.service.browser.test_play_quick_match_browser import ask_for_a_match  # noqa: E402

#: The stretch watched (s): the old page read the challenges and a finished game's view every 4 s, a ticket every 1 s.
STRETCH = 15
#: How long a notice may take to show (the feed carries it at once; a loaded machine is slow).
SHOWN = 10


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """Streams kept open longer than the stretch (the tests' settings end them every 1.5 s, and the browser's
    EventSource then resumes with Last-Event-ID: test_play_lobby_browser.py and the others run so)."""
    with serving(stream_max_seconds=120.0, stream_heartbeat=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


def feed_mode(driver: Any) -> str | None:
    return driver.execute_script("return document.body.dataset.feed || null")


def paths(urls: list[str]) -> list[str]:
    """The paths of the page's requests, with their queries (``/v1/challenges?limit=30``)."""
    return [urlsplit(url).path + ("?" + urlsplit(url).query if urlsplit(url).query else "") for url in urls]


def finished_game(server: Server, ana: dict[str, Any], bo: dict[str, Any]) -> str:
    created = server.client.game(ana["token"], [{"kind": "human"}] * 2, variant="basic")
    joined = server.client.call("POST", f"/v1/games/{created['id']}/join", bo["token"], json={"code": created["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    play_to_the_end(server, created["id"], ana["token"], bo["token"])
    return str(created["id"])


def test_a_challenge_a_match_found_and_a_rematch_come_by_the_feed_with_no_polling(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    tag = unique()
    ana, bo, cy = (api_player(server, name, f"{name.lower()}_{tag}") for name in ("Ana", "Bo", "Cy"))
    over = finished_game(server, ana, bo)
    signed_in(browser, server.base, ana, "lobby")
    browser.get_log("browser")
    until(browser, lambda s: s["screen"] == "lobby")
    WebDriverWait(browser, SHOWN).until(lambda d: feed_mode(d) == "stream")
    network_requests(browser)  # what the page asked for until its feed opened: not counted
    started = time.monotonic()

    # A challenge arrives: it shows in the lobby, with its buttons.
    sent = server.client.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]]})
    assert sent.status_code == 201, sent.get_json()
    shown = until(browser, lambda s: s["received"] and s["received"][0]["status"] == "open", SHOWN)
    assert shown["received"][0]["id"] == sent.get_json()["id"] and "Bo challenges you" in shown["received"][0]["text"]
    screenshot(browser, tmp_path / "phone-feed-challenge.png")

    # A quick match: Ana's ticket waits; Cy's meets it, and the game opens on Ana's page.
    ask_for_a_match(browser, counts=(2,), time_control="t:30")
    WebDriverWait(browser, SHOWN).until(
        lambda d: d.execute_script("return document.querySelector('#qm-tickets li[data-status=\"waiting\"]') !== null")
    )
    time.sleep(2)  # a waiting ticket, watched: the old page read it each second
    body = {"player_counts": [2], "variant": "basic", "turn_seconds": 30}
    opened = server.client.call("POST", "/v1/match-tickets", cy["token"], json=body)
    assert opened.status_code == 201, opened.get_json()
    wait_for(browser, lambda t: t["screen"] == "table", SHOWN + 5)
    matched = game_on(browser)
    assert matched and {s["player_id"] for s in server.client.view(matched)["seats"]} == {ana["id"], cy["id"]}

    # Ana looks at a game she finished with Bo: Bo offers a rematch, and her page says so.
    go(browser, f"game={over}")
    WebDriverWait(browser, SHOWN).until(lambda d: d.find_element(By.ID, "rematch-offer").is_displayed())
    offered = server.client.call("POST", f"/v1/games/{over}/rematch", bo["token"])
    assert offered.status_code == 200, offered.get_json()
    WebDriverWait(browser, SHOWN).until(lambda d: d.find_element(By.ID, "rematch-state").text == "Bo wants a rematch.")
    assert browser.find_element(By.ID, "rematch-offer").text == "Accept the rematch"
    screenshot(browser, tmp_path / "phone-feed-rematch.png")
    before_quiet = paths(network_requests(browser))
    time.sleep(max(6.0, STRETCH - (time.monotonic() - started)))  # the stretch, and a quiet end longer than 4 s
    quiet = paths(network_requests(browser))

    asked = before_quiet + quiet
    assert time.monotonic() - started >= STRETCH
    polled = [p for p in asked if p.startswith(("/v1/challenges?", "/v1/match-tickets/")) or p == "/v1/challenges"]
    assert polled == [], f"requests for the challenges or the tickets after the feed opened: {polled}"
    view = f"/v1/games/{over}"
    assert [p for p in quiet if p.startswith(view)] == [], "the finished game's view was read again and again"
    reopened = [p for p in asked if p.startswith("/v1/players/me/events")]
    assert reopened == [], f"the feed opened once, and stayed open: {reopened}, {asked}"
    assert feed_mode(browser) == "stream"
    assert console_problems(browser) == []


def test_on_a_server_without_stream_tickets_the_feed_is_long_polled(server: Server, browser: Any) -> None:
    tag = unique()
    di, eve = api_player(server, "Di", f"di_{tag}"), api_player(server, "Eve", f"eve_{tag}")
    server.without_tickets = True
    try:
        signed_in(browser, server.base, di, "lobby")
        WebDriverWait(browser, SHOWN).until(lambda d: feed_mode(d) == "poll")
        sent = server.client.call("POST", "/v1/challenges", eve["token"], json={"players": [di["id"]]})
        assert sent.status_code == 201, sent.get_json()
        shown = until(browser, lambda s: s["received"] and s["received"][0]["status"] == "open", SHOWN)
        assert shown["received"][0]["id"] == sent.get_json()["id"]
        assert not [p for p in paths(network_requests(browser)) if p.startswith("/v1/challenges?")]
    finally:
        server.without_tickets = False
    assert lobby(browser)["screen"] == "lobby"
