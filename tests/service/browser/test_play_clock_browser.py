"""The turn's clock on /play in a real headless Chromium: a short live turn (a 10 s turn limit, set for the game
through the API as any client may) is seen falling second by second beside "Your turn" and beside the player's name,
and turning urgent in its last fifth; a correspondence game's deadline is said in the player's own time zone (the
browser's, set through DevTools' ``Emulation.setTimezoneOverride``) on hover and on a tap.  Screenshots go to the
test's tmp dir (and to ``$RED7_SCREENSHOTS`` when it names a folder)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.harness.browser import phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import Server, console_problems, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, signed_in, unique  # noqa: E402

TURN_SECONDS = 10  # the shortest turn the API takes is 5 s; 10 leaves the page time to be read every quarter second
ZONE = "Asia/Tokyo"  # nine hours from UTC, no daylight saving: a deadline there is never the server's (UTC) time

CLOCKS = """
return Array.from(document.querySelectorAll("#table [data-clock]")).map((c) => ({
  where: c.dataset.clock, text: c.querySelector(".clock-face").textContent, urgent: c.dataset.urgent === "true",
  label: c.getAttribute("aria-label"), title: c.getAttribute("title"), tag: c.tagName.toLowerCase(),
  seat: c.closest("[data-seat]") ? Number(c.closest("[data-seat]").dataset.seat) : null,
  your_turn: document.querySelector("#table").dataset.yourTurn === "true",
}));
"""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    driver.execute_script("scrollTo(0, 0)")
    driver.save_screenshot(str(tmp_path / f"{name}.png"))
    folder = os.environ.get("RED7_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def seconds(text: str) -> int:
    minutes, secs = text.split(":")[-2:]
    return int(minutes) * 60 + int(secs)


def my_turn_clocks(driver: Any, seconds_: float = 20) -> list[dict[str, Any]]:
    WebDriverWait(driver, seconds_, poll_frequency=0.05).until(
        lambda d: any(c["your_turn"] and c["where"] == "status" for c in d.execute_script(CLOCKS))
    )
    clocks: list[dict[str, Any]] = driver.execute_script(CLOCKS)
    return clocks


def test_a_short_live_turn_counts_down_and_turns_urgent(server: Server, browser: Any, tmp_path: Path) -> None:
    player = api_player(server, "Ana", f"ana_{unique()}")
    game = server.client.game(player["token"], [{"kind": "human"}, {"kind": "ai", "level": "greedy"}], turn_timeout=TURN_SECONDS)
    signed_in(browser, server.base, player, f"game={game['id']}")
    clocks = my_turn_clocks(browser)
    assert {c["where"] for c in clocks} == {"status", "seat"}, clocks
    assert [c["seat"] for c in clocks if c["where"] == "seat"] == [0], "beside the name of the seat to play: yours"
    assert all(c["tag"] == "span" and c["label"] == f"Time left: {c['text']}" for c in clocks), clocks
    seen: list[tuple[int, bool]] = []
    shot_calm = shot_urgent = False
    deadline = time.monotonic() + TURN_SECONDS + 5
    while time.monotonic() < deadline:
        now = [c for c in browser.execute_script(CLOCKS) if c["where"] == "status"]
        if not now or not now[0]["your_turn"]:
            break  # the turn timed out: the clock went with it
        left, urgent = seconds(now[0]["text"]), now[0]["urgent"]
        if seen and left > seen[-1][0]:
            break  # the turn timed out and the next one began: this turn is seen whole
        if not seen or seen[-1] != (left, urgent):
            seen.append((left, urgent))
        if not shot_calm and not urgent:
            shot(browser, tmp_path, "phone-clock-live")
            shot_calm = True
        if not shot_urgent and urgent:
            shot(browser, tmp_path, "phone-clock-urgent")
            shot_urgent = True
        time.sleep(0.1)
    lefts = [left for left, _ in seen]
    assert lefts == sorted(lefts, reverse=True) and len(set(lefts)) >= TURN_SECONDS - 3, seen
    assert lefts[0] >= TURN_SECONDS - 3, seen
    # Urgent in the last fifth (2 s of 10) and not before.
    assert all(urgent == (left <= TURN_SECONDS // 5) for left, urgent in seen), seen
    assert any(urgent for _, urgent in seen), seen
    assert not [p for p in console_problems(browser) if "favicon" not in p["message"]]


def test_a_correspondence_deadline_is_said_in_the_players_time_zone(server: Server, browser: Any, tmp_path: Path) -> None:
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    try:
        player = api_player(server, "Bo", f"bo_{unique()}")
        game = server.client.game(player["token"], [{"kind": "human"}, {"kind": "ai", "level": "greedy"}], days_per_turn=3)
        signed_in(browser, server.base, player, f"game={game['id']}")
        clocks = my_turn_clocks(browser)
        view = server.client.view(game["id"], player["token"])
        due = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
        there = f"{due.strftime('%a, %b')} {due.day}, {due.hour % 12 or 12}:{due.minute:02d} {due.strftime('%p')} GMT+9"
        status = next(c for c in clocks if c["where"] == "status")
        assert status["tag"] == "button" and status["title"] == f"Ends {there}", (status, there)
        assert status["text"] in ("2 d 23 h", "3 d 0 h"), status  # days and hours, not a ticking clock
        assert not status["urgent"]
        # A tap opens the deadline in words beside the clock (a phone has no hover).
        button = browser.find_element(By.CSS_SELECTOR, '#turn-clock button[data-clock="status"]')
        assert button.get_attribute("aria-expanded") == "false"
        button.click()
        said = browser.find_element(By.CSS_SELECTOR, "#turn-clock .clock-deadline")
        assert said.is_displayed() and said.text == f"Ends {there}" and button.get_attribute("aria-expanded") == "true"
        overflow = browser.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, "the deadline fits a phone's width"
        shot(browser, tmp_path, "phone-clock-correspondence")
    finally:
        browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
