"""Tournaments in /play, in a real headless Chromium at a phone's size and a desktop's: the list (listTournaments), a
tournament entered from its screen (joinTournament), the standings (getTournamentStandings), your game of the round
once it starts (getTournamentRound's ``your_game``) opening its table, and a withdrawal (withdrawFromTournament);
no serious or critical violation of axe-core's on either screen, nothing wider than the screen.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py).  The tournament is made
and entered by the other players through the application, as any other client's would be.  Screenshots are saved in
the test's tmp dir (``phone-*.png``, ``desktop-*.png``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.domain import tournaments as rules
from tests.harness.accessibility import axe_source, violations
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import Server, console_problems, screenshot, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, signed_in, unique  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


SHOWN = """
const q = (s) => document.querySelector(s);
return {
  screen: document.body.dataset.screen,
  listed: Array.from(document.querySelectorAll("#tournament-rows tr")).map((tr) => ({ id: tr.dataset.tournament,
    status: tr.dataset.status, text: tr.textContent })),
  loaded: Number(q("#tournament").dataset.loaded || 0), title: q("#tournament-h").textContent,
  about: q("#tournament-about").textContent,
  join: !q("#tournament-join").hidden, entered: !q("#tournament-entered").hidden, withdraw: !q("#tournament-withdraw").hidden,
  game: q("#tournament-game").hidden ? null : q("#tournament-game").getAttribute("href"),
  standings: Array.from(document.querySelectorAll("#standings-rows tr")).map((tr) => ({ player: tr.dataset.player,
    you: tr.dataset.you === "true", text: tr.textContent })),
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def shown(driver: Any) -> dict[str, Any]:
    return driver.execute_script(SHOWN)


def until(driver: Any, condition: Any, seconds: float = 15) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(shown(d)))
    return shown(driver)


def serious(driver: Any) -> list[str]:
    """axe-core's serious and critical violations on the screen shown."""
    found = violations(driver, axe_source())
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]


def iso(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_tournament_listed_entered_its_standings_and_your_game_shown(server: Server, tmp_path: Path, size: str) -> None:
    runtime = server.runtime
    service = runtime.tournaments
    assert service is not None
    tag = unique()
    organiser, bo, cy, ann = (api_player(server, name, f"{name.lower()}{tag}") for name in ("Org", "Bo", "Cy", "Ann"))
    closing = datetime.now(UTC) + timedelta(seconds=12)
    settings = rules.Settings(
        format="swiss",
        table_size=3,
        rounds=1,
        entries_open=iso(datetime.now(UTC) - timedelta(minutes=1)),
        entries_close=iso(closing),
        min_players=3,
        max_players=8,
    )
    made, _ = service.create(runtime.players.get(organiser["id"]), f"Cup {tag}", settings)
    for player in (bo, cy):
        service.join(made.id, runtime.players.get(player["id"]))
    with phone_chromium() if size == "phone" else desktop_chromium() as driver:
        signed_in(driver, server.base, ann, "tournaments")
        listed = until(driver, lambda s: any(x["id"] == made.id for x in s["listed"]))
        assert listed["screen"] == "tournaments" and listed["overflow"] <= 0
        row = next(x for x in listed["listed"] if x["id"] == made.id)
        assert row["status"] == "entering" and f"Cup {tag}" in row["text"] and "2 / 8" in row["text"]
        screenshot(driver, tmp_path / f"{size}-list.png")
        assert serious(driver) == []
        driver.find_element(By.CSS_SELECTOR, f'#tournament-rows tr[data-tournament="{made.id}"] a').click()
        before = until(driver, lambda s: s["screen"] == "tournament" and s["loaded"] and s["join"])
        assert before["title"] == f"Cup {tag}" and not before["entered"] and len(before["standings"]) == 2
        driver.find_element(By.ID, "tournament-join").click()
        entered = until(driver, lambda s: s["entered"] and len(s["standings"]) == 3)
        assert entered["withdraw"] and not entered["join"] and [r["you"] for r in entered["standings"]].count(True) == 1
        assert ann["id"] in service.load(made.id).entrants
        time.sleep(max(0.0, (closing - datetime.now(UTC)).total_seconds()) + 0.2)
        driver.refresh()  # a read of the tournament starts round 1, its entries closed
        playing = until(driver, lambda s: s["game"] is not None)
        table = service.load(made.id).rounds[0].tables[0]
        assert playing["game"] == f"#game={table.game_id}" and "1" in playing["about"]
        assert playing["overflow"] <= 0
        screenshot(driver, tmp_path / f"{size}-tournament.png")
        assert serious(driver) == []
        driver.find_element(By.ID, "tournament-withdraw").click()
        gone = until(driver, lambda s: not s["entered"] and not s["withdraw"])
        assert service.load(made.id).entrants[ann["id"]].withdrawn == "choice"
        assert any(r["you"] for r in gone["standings"]), "a withdrawn player keeps their line"
        driver.get(f"{server.base}/play#game={table.game_id}")
        WebDriverWait(driver, 15).until(lambda d: d.execute_script("return document.body.dataset.screen") == "table")
        assert console_problems(driver) == []
