"""Moves you watch on /play, in a real headless Chromium at a phone's size: while the player's own moves go through the
API, the page shows the AIs' cards travelling to their palettes (Web Animations the page starts, counted by a hook
DevTools puts in before the page's scripts), the round's end in a banner naming its winner; with
``prefers-reduced-motion: reduce`` (DevTools' ``Emulation.setEmulatedMedia``) nothing moves, and the marks and the
banner still say what happened.  The sound switch is off by default; turned on, a tone sounds when the player's turn
comes (an oscillator the page starts, counted by the same hook)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import GAME_SECONDS, Server, choose, console_problems, serving, table  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, signed_in, unique  # noqa: E402

#: Counts the animations the page starts, by id (put in before any script of the page runs).
HOOK = """
window.red7Animations = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  window.red7Animations.push(options && options.id ? options.id : "");
  return animate.call(this, frames, options);
};
window.red7Tones = 0;
const oscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.red7Tones += 1; return oscillator.call(this); };
"""
SEEN = """
const banner = document.querySelector("#round-banner");
return {
  animations: window.red7Animations || [], motion: document.querySelector("#table").dataset.motion || null,
  banner: banner.hidden ? null : banner.textContent, sound: document.querySelector("#sound").getAttribute("aria-pressed"),
  marked: document.querySelectorAll('#seats [data-new="true"]').length, tones: window.red7Tones,
  stored: localStorage.getItem("red7.sound"),
};
"""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / f"{name}.png"))
    folder = os.environ.get("RED7_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_others_moves_travel_and_a_rounds_end_shows_its_winner(server: Server, tmp_path: Path, motion: str) -> None:
    player = api_player(server, "Ana", f"ana_{unique()}")
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "greedy"}]
    game = server.client.game(player["token"], seats, variant="basic")
    with phone_chromium() as driver:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": motion}]})
        signed_in(driver, server.base, player, f"game={game['id']}")
        WebDriverWait(driver, 10).until(lambda d: table(d)["phase"] in ("turn", "finished"))
        assert driver.execute_script(SEEN)["sound"] == "false", "the sound is off unless the player turns it on"
        if motion == "no-preference":  # turned on with a tap: a tone each time the player's turn comes
            driver.find_element(By.ID, "sound").click()
            assert driver.execute_script(SEEN)["sound"] == "true" and driver.execute_script(SEEN)["stored"] == "on"
        marked = acted = 0
        banner = None
        deadline = time.monotonic() + GAME_SECONDS
        while banner is None:
            assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s"
            seen = driver.execute_script(SEEN)
            banner = seen["banner"]
            marked = max(marked, seen["marked"])
            view = server.client.view(game["id"], player["token"])
            if view["legal_steps"] and view["version"] == table(driver)["version"]:
                step = choose([{**s, "index": n} for n, s in enumerate(view["legal_steps"])])
                sent: dict[str, Any] = {k: step[k] for k in ("type", "card", "draw", "seat", "to") if k in step}
                server.client.act(game["id"], player["token"], [sent], headers={"If-Match": f'"{view["version"]}"'})
                acted += 1
            time.sleep(0.05)
        end = server.client.view(game["id"], player["token"])
        assert end["status"] == "finished"
        winner = "you" if end["winner"] == 0 else end["seats"][end["winner"]]["name"]
        assert winner in banner, banner
        shot(driver, tmp_path, f"phone-motion-{motion}-end")
        seen = driver.execute_script(SEEN)
        assert marked >= 1, "the AIs' cards were marked as new (with or without motion)"
        if motion == "reduce":
            assert seen["motion"] == "reduced" and seen["animations"] == [], seen
            assert seen["tones"] == 0, "no tone while the sound is off"
        else:
            assert seen["motion"] == "full", seen
            assert seen["animations"].count("travel-palette") >= 1 and "round" in seen["animations"], seen
            # The first turn may have come before the switch was on; every one after it comes with a tone.
            assert seen["tones"] >= 1 or acted < 2, ("the player's turn came with a tone", acted)
        assert not console_problems(driver)
