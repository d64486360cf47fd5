"""Cards you touch, and the keyboard, on /play in a real headless Chromium: a whole game at a phone's size (390×844)
played by tapping cards only — a card of the hand, then the glowing place it goes (your palette, the canvas), a glowing
card of another's palette to take, the buttons beside the hand to end the turn — never a step button; and a whole
game at a desktop's size with the keyboard only (Tab to a step, Enter; the question before going out answered by
keys).  The step each turn is chosen from the server's own view (``choose`` of test_play_browser.py), then done on
the page as a player would.  Screenshots go to the test's tmp dir (and to ``$RED7_SCREENSHOTS`` when it names one)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import desktop_chromium, phone_chromium, settled, skip_without_chromium

skip_without_chromium()
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402 (after the skip)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import GAME_SECONDS, Server, choose, console_problems, serving, table  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, signed_in, unique  # noqa: E402

TOUCH = """
const q = (s) => document.querySelector(s);
return {
  tappable: Array.from(document.querySelectorAll('#table [data-tappable="true"]')).map((c) => c.dataset.card),
  yours: q("#table").dataset.yourTurn,
  selected: Array.from(document.querySelectorAll('#table [data-selected="true"]')).map((c) => c.dataset.card),
  menu: q("#card-menu").hidden ? null
    : Array.from(document.querySelectorAll("#card-choices button")).map((b) => Number(b.dataset.index)),
  targets: Array.from(document.querySelectorAll("#table [data-target]"))
    .map((n) => [n.id || n.dataset.seat || n.dataset.card, n.dataset.target]),
  turn_bar: Array.from(document.querySelectorAll("#turn-bar button")).map((b) => b.dataset.type),
};
"""

#: Counts the clicks on the step buttons (there must be none).
COUNT_STEP_CLICKS = """
document.querySelector("#steps").addEventListener("click", () => { window.stepClicks = (window.stepClicks || 0) + 1; }, true);
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


def my_turn(server: Server, driver: Any, game_id: str, token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The server's view and the page's table when both show the player's turn at the same version (None: not now)."""
    now = table(driver)
    assert now["problem"] is None, now["problem"]
    if not now["your_turn"] or not now["steps"] or any(s["disabled"] for s in now["steps"]):
        return None
    view = server.client.view(game_id, token)
    if view["version"] != now["version"] or not view["legal_steps"]:
        return None
    return view, now


def chosen(view: dict[str, Any]) -> dict[str, Any]:
    return choose([{**step, "index": n} for n, step in enumerate(view["legal_steps"])])


def answer_out(driver: Any, step: dict[str, Any], keys: bool = False) -> None:
    """The question before a step that puts the player out: answered yes (by keys: from "Cancel", back to the yes)."""
    if not step["eliminates"]:
        return
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
    if keys:
        assert driver.execute_script("return document.activeElement.id") == "confirm-no", "the safe answer has the focus"
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        assert driver.execute_script("return document.activeElement.id") == "confirm-yes"
        ActionChains(driver).send_keys(Keys.ENTER).perform()
    else:
        driver.find_element(By.ID, "confirm-yes").click()


def tap(driver: Any, css: str) -> None:
    driver.find_element(By.CSS_SELECTOR, css).click()


def tap_step(driver: Any, view: dict[str, Any], step: dict[str, Any], tmp_path: Path, shots: set[str]) -> None:
    """Do ``step`` by taps on the table: a card and where it goes, a card to take, or a button beside the hand."""
    mine = view["you"]["seat"]
    if step["type"] in ("end_turn", "fold"):
        tap(driver, f'#turn-bar button[data-index="{step["index"]}"]')
        return
    if step["type"] == "take":
        touch = driver.execute_script(TOUCH)
        assert [str(step["seat"]), "take"] in touch["targets"] and [step["card"], "take"] in touch["targets"], touch
        if "take" not in shots:
            shots.add("take")
            shot(driver, tmp_path, "phone-touch-take")
        tap(driver, f'#seats [data-seat="{step["seat"]}"] [data-card="{step["card"]}"]')
        return
    if step["type"] == "place":  # a 7: a card of the player's own palette, onto the deck or the canvas
        tap(driver, f'#seats [data-seat="{mine}"] [data-card="{step["card"]}"]')
    else:
        tap(driver, f'#hand [data-card="{step["card"]}"]')
    touch = driver.execute_script(TOUCH)
    assert touch["selected"] == [step["card"]] and step["index"] in (touch["menu"] or []), (touch, step)
    where = {"play": "palette", "discard": "canvas"}.get(step["type"]) or ("canvas" if step.get("to") == "canvas" else "deck")
    place = {"palette": f'#seats [data-seat="{mine}"]', "canvas": "#rule-box", "deck": "#deck"}[where]
    target = {"palette": str(mine), "canvas": "rule-box", "deck": "deck"}[where]
    assert [target, where] in touch["targets"], (touch, step)
    if where not in shots:
        shots.add(where)
        shot(driver, tmp_path, f"phone-touch-{where}")
    key = (step["card"], step["type"], step.get("to"))
    same_place = [s for s in view["legal_steps"] if (s.get("card"), s["type"], s.get("to")) == key]
    if len(same_place) == 1:
        tap(driver, place)  # the place itself: one step lands there
    else:
        tap(driver, f'#card-choices button[data-index="{step["index"]}"]')  # with or without a draw: the card's list


def test_a_whole_game_at_a_phones_size_by_tapping_cards_only(server: Server, tmp_path: Path) -> None:
    player = api_player(server, "Ana", f"ana_{unique()}")
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "greedy"}]
    game = server.client.game(player["token"], seats, variant="basic", action_rules=True)
    with phone_chromium() as driver:
        signed_in(driver, server.base, player, f"game={game['id']}")
        driver.execute_script(COUNT_STEP_CLICKS)
        deadline = time.monotonic() + GAME_SECONDS
        taps, kinds, shots = 0, set[str](), set[str]()
        while not table(driver)["outcome_shown"]:
            assert time.monotonic() < deadline, f"the game did not finish in {GAME_SECONDS} s: {table(driver)}"
            turn = my_turn(server, driver, game["id"], player["token"])
            if turn is None:
                time.sleep(0.05)
                continue
            view, now = turn
            step = chosen(view)
            try:
                tap_step(driver, view, step, tmp_path, shots)
            except StaleElementReferenceException:
                continue  # the table was drawn again under the tap: look again
            answer_out(driver, step)
            taps += 1
            kinds.add(step["type"])
            WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda d, v=now["version"]: table(d)["version"] > v)
        assert taps >= 2 and {"play"} <= kinds, (taps, kinds)
        assert driver.execute_script("return window.stepClicks || 0") == 0, "no step button was pressed"
        actions = [r for r in server.requests if r.method == "POST" and r.path == f"/v1/games/{game['id']}/actions"]
        assert len(actions) == taps and all(r.if_match and r.idempotency_key for r in actions)
        assert server.client.view(game["id"], player["token"])["status"] == "finished"
        settled(driver)  # the last moves' cards have landed
        end = table(driver)
        assert end["overflow"] <= 0
        assert not console_problems(driver)
        shot(driver, tmp_path, "phone-touch-end")


def test_a_whole_game_at_a_desktops_size_with_the_keyboard_only(server: Server, tmp_path: Path) -> None:
    player = api_player(server, "Bo", f"bo_{unique()}")
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
    game = server.client.game(player["token"], seats, variant="basic")
    with desktop_chromium() as driver:
        signed_in(driver, server.base, player, f"game={game['id']}")
        driver.execute_script("addEventListener('pointerdown', () => { window.pointed = (window.pointed || 0) + 1; }, true)")
        deadline = time.monotonic() + GAME_SECONDS
        steps = 0
        while not table(driver)["outcome_shown"]:
            assert time.monotonic() < deadline, f"the game did not finish in {GAME_SECONDS} s: {table(driver)}"
            turn = my_turn(server, driver, game["id"], player["token"])
            if turn is None:
                time.sleep(0.05)
                continue
            view, now = turn
            step = chosen(view)
            # Tab through the page to the step's button (the way a keyboard goes), then Enter.
            for _ in range(120):
                focused = driver.execute_script(
                    "const a = document.activeElement; return a && a.closest('#steps') ? Number(a.dataset.index) : null"
                )
                if focused == step["index"]:
                    break
                ActionChains(driver).send_keys(Keys.TAB).perform()
            else:
                raise AssertionError(f"Tab never reached the step {step}")
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            answer_out(driver, step, keys=True)
            steps += 1
            WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda d, v=now["version"]: table(d)["version"] > v)
        assert steps >= 1
        assert driver.execute_script("return window.pointed || 0") == 0, "nothing was pointed at"
        assert server.client.view(game["id"], player["token"])["status"] == "finished"
        assert not console_problems(driver)
        shot(driver, tmp_path, "desktop-keyboard-end")
