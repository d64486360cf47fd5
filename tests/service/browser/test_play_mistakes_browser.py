"""Your mistakes across games in /play (``#mistakes``, listMyMistakes), in a real headless Chromium at a phone's size:
the decisions of yours the analysis labelled, each with what you played, what was best and a link to the replay viewer at
that step; the least label shown; the next games' page; and a game not analysed yet, asked for from there.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py: the jobs in threads of
this process, the analyses by its analysts, each computing in a child process of its own).  The games are played through
the API, as any other client's would be.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import phone_chromium, skip_without_chromium
from tests.harness.support import HUMAN, ai

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import Server, console_problems, screenshot, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, click, go, play_to_the_end, signed_in, unique  # noqa: E402

#: How long one basic game's analysis may take on the embedded analysts (on the CPU the browser and the server leave).
ANALYSED = 90
#: The finished games a page of the list looks at (SLIPS_GAMES in service/webclient/play/mistakes.js).
PAGE = 5


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


SLIPS = """
const q = (s) => document.querySelector(s);
const current = q("#mistakes .tabs a[aria-current]");
return {
  screen: document.body.dataset.screen,
  label: q("#slips").dataset.label || null, loaded: Number(q("#slips").dataset.loaded || 0),
  slips: Array.from(document.querySelectorAll("#slips > li")).map((li) => ({
    game: li.dataset.game, step: Number(li.dataset.step), label: li.dataset.label, delta: Number(li.dataset.delta),
    heading: li.querySelector("h3").textContent, verdict: li.querySelector(".verdict").textContent,
    played: li.querySelector(".played").textContent, best: li.querySelector(".best").textContent,
    link: li.querySelector("a.replay").getAttribute("href"), link_text: li.querySelector("a.replay").textContent,
  })),
  none: q("#slips-none").hidden ? null : q("#slips-none").textContent,
  unanalysed: q("#unanalysed").hidden ? []
    : Array.from(document.querySelectorAll("#unanalysed-games li")).map((li) => li.dataset.game),
  more: !q("#slips-more").hidden, tab: current ? current.dataset.label : null,
  state: q("#mistakes-state").textContent,
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def slips(driver: Any) -> dict[str, Any]:
    return driver.execute_script(SLIPS)


def until(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(slips(d)))
    return slips(driver)


def finished_game(server: Server, token: str, seed: int) -> str:
    game = server.client.game(token, [HUMAN, ai("greedy")], variant="basic", seed=seed)
    play_to_the_end(server, game["id"], token)
    return game["id"]


def analysed(server: Server, game_id: str, token: str) -> None:
    path = f"/v1/games/{game_id}/analysis"
    assert server.client.call("POST", path, token).status_code == 202
    deadline = time.monotonic() + ANALYSED
    while server.client.call("GET", path).get_json()["status"] != "done":
        assert time.monotonic() < deadline, f"game {game_id} is not analysed after {ANALYSED} s"
        time.sleep(0.3)


def mistakes(server: Server, token: str, **query: Any) -> dict[str, Any]:
    response = server.client.call("GET", "/v1/players/me/mistakes", token, query_string={"games": PAGE, **query})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_your_mistakes_are_listed_with_their_replay_step_filtered_by_label_and_paged_by_games(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    ana = api_player(server, "Ana", f"ana_{unique()}")
    played = [finished_game(server, ana["token"], seed) for seed in range(1, PAGE + 2)]
    newest = played[::-1]
    analysed(server, newest[0], ana["token"])
    analysed(server, newest[1], ana["token"])
    expected = mistakes(server, ana["token"], label="inaccuracy")
    assert expected["mistakes"], "two analysed games of a player who takes the first winning step have an inaccuracy at least"

    # The least label shown: inaccuracies and worse, each decision with its replay step.
    signed_in(browser, server.base, ana, "mistakes=inaccuracy")
    shown = until(browser, lambda s: s["screen"] == "mistakes" and s["loaded"])
    assert shown["tab"] == "inaccuracy" and shown["label"] == "inaccuracy" and shown["problem"] is None
    assert [(s["game"], s["step"], s["label"]) for s in shown["slips"]] == [
        (m["game_id"], m["decision"]["step"], m["decision"]["label"]) for m in expected["mistakes"]
    ]
    for slip, mistake in zip(shown["slips"], expected["mistakes"], strict=True):
        decision = mistake["decision"]
        assert slip["link"] == mistake["view_url"] == f"/v1/games/{mistake['game_id']}/replay/view#step={decision['step']}"
        assert slip["link_text"] == "See it in the replay"
        assert slip["heading"].endswith(f", round {decision['round']}")
        assert f"{decision['delta']:.1f} points of win chance lost" in slip["verdict"]
        assert slip["verdict"].startswith(decision["label"])
        assert slip["played"] and slip["best"] and slip["played"] != slip["best"]
    assert all(s["game"] in newest[:2] for s in shown["slips"])
    first = shown["slips"][0]
    assert any(word in first["played"] for word in ("Play ", "Discard ", "End your turn", "Fold")), first
    # The page's other games have no analysis: listed with a button each, the next games a click away.
    assert shown["unanalysed"] == newest[2:PAGE] and shown["more"]
    assert shown["overflow"] <= 0, "nothing wider than a phone"
    screenshot(browser, tmp_path / "phone-mistakes.png")

    # Show more: the games after those, the oldest one not analysed; no page after it.
    loaded = shown["loaded"]
    click(browser, "#slips-more")
    more = until(browser, lambda s: s["loaded"] > loaded)
    assert more["unanalysed"] == newest[2:] and not more["more"]
    assert len(more["slips"]) == len(shown["slips"]), "the older games add no decision: none is analysed"

    # The link goes to the replay viewer at that step.
    href = browser.find_element(By.CSS_SELECTOR, "#slips > li a.replay").get_attribute("href")
    assert href == f"{server.base}{first['link']}"

    # Blunders only, from the filter: the list as the API gives it at that label.
    click(browser, '#mistakes .tabs a[data-label="blunder"]')
    blunders = until(browser, lambda s: s["tab"] == "blunder" and s["label"] == "blunder")
    wanted = mistakes(server, ana["token"], label="blunder")["mistakes"]
    assert [(s["game"], s["step"]) for s in blunders["slips"]] == [(m["game_id"], m["decision"]["step"]) for m in wanted]
    assert all(s["label"] == "blunder" for s in blunders["slips"])
    if not wanted:
        assert blunders["none"] and "Finish a game and have it analysed" in blunders["none"]
    assert console_problems(browser) == []


def test_without_an_analysed_game_the_page_says_what_to_do_and_asks_for_an_analysis_from_there(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    bo = api_player(server, "Bo", f"bo_{unique()}")
    # Nothing played yet: the list says what to do, and there is nothing to ask for.
    signed_in(browser, server.base, bo, "mistakes")
    empty = until(browser, lambda s: s["screen"] == "mistakes" and s["loaded"])
    assert empty["tab"] == "mistake", "mistakes and worse unless asked otherwise"
    assert empty["slips"] == [] and empty["unanalysed"] == [] and not empty["more"]
    assert empty["none"] == (
        "None yet. Finish a game and have it analysed (at its end, or below): its decisions at this label show here."
    )
    nav = browser.find_element(By.CSS_SELECTOR, '#nav a[data-nav="mistakes"]')
    assert nav.get_attribute("aria-current") == "page" and nav.get_attribute("href").endswith("#mistakes")

    # A finished game, reached from its end's "your mistakes across games".
    game_id = finished_game(server, bo["token"], 3)
    go(browser, f"game={game_id}")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "outcome").is_displayed())
    link = browser.find_element(By.ID, "mistakes-link")
    assert link.text == "Your mistakes across games"
    link.click()
    waiting = until(browser, lambda s: s["screen"] == "mistakes" and s["unanalysed"])
    assert waiting["unanalysed"] == [game_id] and waiting["slips"] == [] and waiting["none"]
    screenshot(browser, tmp_path / "phone-mistakes-unanalysed.png")

    # Its analysis asked for from the list: its progress said (aria-live), then the list read again.
    loaded = waiting["loaded"]
    button = browser.find_element(By.CSS_SELECTOR, f'#unanalysed-games li[data-game="{game_id}"] button')
    assert button.text == "Analyse the decisions" and button.get_attribute("aria-describedby") == f"unanalysed-{game_id}"
    button.click()
    until(browser, lambda s: s["state"].startswith(f"Game {game_id}: Analysing") or s["loaded"] > loaded)
    done = until(browser, lambda s: s["loaded"] > loaded, ANALYSED)
    assert done["state"] == f"Game {game_id} is analysed: the list is up to date."
    assert done["unanalysed"] == [] and done["problem"] is None
    assert server.client.call("GET", f"/v1/games/{game_id}/analysis").get_json()["status"] == "done"
    listed = mistakes(server, bo["token"])["mistakes"]
    assert [(s["game"], s["step"]) for s in done["slips"]] == [(m["game_id"], m["decision"]["step"]) for m in listed]
    assert (done["none"] is None) == bool(listed)
    assert console_problems(browser) == []
