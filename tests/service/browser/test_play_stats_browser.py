"""Statistics in /play (``#stats``, ``#stats=<handle>``), in a real headless Chromium at a phone's size (390 x 844)
and a desktop's: a player's, opened from their profile, and everyone's, from the menu; each chart plain SVG drawn at
the width it is shown (its text at its own size, nothing wider than the screen), with its axis, its ticks in
percentages, a label and a share on every bar; the numbers those of the API; the accuracy trend a dot per analysed
game in time order; the words in the page's language (English and Polish); the module loaded when the screen is
first opened, not before.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py).  The games are played
through the API; two of them get an analysis stored as the analysts store one (its players' accuracies), since the
screen reads only those.  Screenshots are kept in the test's tmp dir (``phone-*.png``, ``desktop-*.png``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.analysis import VERSION
from service.storage.analyses import AnalysisStore
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium
from tests.harness.support import HUMAN, ai

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

from tests.service.browser.test_play_browser import Server, console_problems, screenshot, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, play_to_the_end, signed_in, unique  # noqa: E402

SIZES: dict[str, Callable[[], Any]] = {"phone": phone_chromium, "desktop": desktop_chromium}
ACCURACIES = (61.5, 88.0)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def player(server: Server) -> dict[str, Any]:
    """A player with a handle and three finished games against an AI, the first two analysed (oldest first)."""
    ana = api_player(server, "Ana", f"ana_{unique()}")
    analyses = AnalysisStore(server.runtime.redis, server.runtime.settings.key_prefix)
    ana["games"] = []
    for n in range(3):
        game = server.client.game(ana["token"], [HUMAN, ai("random")], variant="basic", seed=100 + n)
        play_to_the_end(server, game["id"], ana["token"])
        ana["games"].append(game["id"])
        if n < len(ACCURACIES):
            analyses.claim(game["id"], VERSION, 0, 1)
            analyses.finish(game["id"], {"players": [{"seat": 0, "accuracy": ACCURACIES[n]}, {"seat": 1, "accuracy": 50.0}]})
    return ana


STATS = """
const q = (s) => document.querySelector(s);
const shown = (el) => {
  const r = el.getBoundingClientRect();
  return { width: r.width, height: r.height, left: r.left, right: r.right };
};
return {
  screen: document.body.dataset.screen,
  loaded: Number(q("#stats").dataset.loaded || 0),
  heading: q("#stats-h").textContent,
  figures: Array.from(document.querySelectorAll("#stats-body figure")).map((f) => {
    const svg = f.querySelector("svg");
    return {
      id: f.id, caption: f.querySelector("figcaption").textContent,
      role: svg.getAttribute("role"), name: svg.getAttribute("aria-label"),
      drawn: Number(svg.getAttribute("width")), box: shown(svg),
      ticks: Array.from(svg.querySelectorAll(".tick")).map((t) => t.textContent),
      tick_height: svg.querySelector(".tick") ? shown(svg.querySelector(".tick")).height : 0,
      bars: Array.from(svg.querySelectorAll("g.bar")).map((g) => ({
        label: g.querySelector(".label").textContent, value: g.querySelector(".value").textContent,
        percent: Number(g.dataset.percent), count: Number(g.dataset.count),
        right: shown(g.querySelector(".value")).right, left: shown(g.querySelector(".label")).left - shown(svg).left,
      })),
      dots: Array.from(svg.querySelectorAll("circle.dot")).map((c) => Number(c.dataset.value)),
      line: !!svg.querySelector("polyline.line"), axes: svg.querySelectorAll(".axis").length,
    };
  }),
  facts: Array.from(document.querySelectorAll("#stats-body dl dd")).map((d) => d.textContent),
  none: Array.from(document.querySelectorAll("#stats-body p.none")).map((p) => p.textContent),
  choice: !q("#stats-choice").hidden,
  pressed: Array.from(document.querySelectorAll("#stats-choice [aria-pressed=true]")).map((b) => b.id),
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  width: document.documentElement.clientWidth,
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  modules: performance.getEntriesByType("resource").map((e) => e.name)
    .filter((n) => /\\/play\\/(stats|charts)\\.js$/.test(n)).length,
};
"""


def stats(driver: Any) -> dict[str, Any]:
    return driver.execute_script(STATS)


def until(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(stats(d)))
    return stats(driver)


def readable(figure: dict[str, Any], width: int) -> None:
    """A chart drawn at the width it is shown (so its 13 px text is 13 px), within the screen, with its axis."""
    assert figure["role"] == "img" and figure["name"] == figure["caption"], figure["id"]
    assert abs(figure["box"]["width"] - figure["drawn"]) < 1.5, (figure["id"], figure["box"], figure["drawn"])
    assert figure["box"]["right"] <= width + 0.5, figure["id"]
    assert figure["tick_height"] >= 12, figure["id"]
    assert figure["axes"] >= 2, figure["id"]
    for bar in figure["bars"]:
        assert bar["right"] <= width + 0.5, (figure["id"], bar)  # the share after a full bar still on the screen
        assert bar["left"] >= -0.5, (figure["id"], bar)  # the label whole, inside the chart


@pytest.mark.parametrize("size", list(SIZES))
def test_a_players_statistics_and_everyones_as_charts(server: Server, player: dict[str, Any], size: str, tmp_path: Path) -> None:
    api = server.client
    mine = api.call("GET", f"/v1/players/{player['handle']}/statistics").get_json()
    everyone = api.call("GET", "/v1/statistics").get_json()
    with SIZES[size]() as driver:
        signed_in(driver, server.base, player, f"player={player['handle']}")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return !document.getElementById('profile-stats').hidden"))
        assert stats(driver)["modules"] == 0, "the statistics' modules are not loaded before the screen is opened"
        driver.execute_script("document.getElementById('profile-stats').click()")
        seen = until(driver, lambda s: s["screen"] == "stats" and s["loaded"] > 0 and s["figures"])
        screenshot(driver, tmp_path / f"{size}-player.png")
        assert seen["modules"] == 2 and seen["problem"] is None
        assert seen["heading"] == f"Statistics of @{player['handle']}" and not seen["choice"]
        assert seen["overflow"] <= 0, seen["overflow"]
        figures = {f["id"]: f for f in seen["figures"]}
        assert list(figures) == [f"stats-{n}" for n in ("places", "seats", "tables", "rules", "palette", "canvas", "accuracy")]
        for figure in seen["figures"]:
            readable(figure, seen["width"])
        bars = figures["stats-places"]["bars"]
        assert [b["label"] for b in bars] == ["1st", "2nd", "3rd", "4th"]
        assert [(b["percent"], b["count"]) for b in bars] == [(p["percent"], p["count"]) for p in mine["places"]]
        quarters = ["0%", "25%", "50%", "75%", "100%"]  # where their numbers fit side by side, else the halves
        assert figures["stats-places"]["ticks"] in (quarters, quarters[::2])
        assert size == "phone" or figures["stats-places"]["ticks"] == quarters
        assert [b["label"] for b in figures["stats-rules"]["bars"]] == [
            "Red",
            "Orange",
            "Yellow",
            "Green",
            "Blue",
            "Indigo",
            "Violet",
        ]
        assert [b["percent"] for b in figures["stats-rules"]["bars"]] == [r["percent"] for r in mine["rounds_won_by_rule"]]
        assert all(b["value"].endswith(f"({b['count']})") and "%" in b["value"] for b in figures["stats-palette"]["bars"])
        assert figures["stats-tables"]["bars"][0]["label"] == "2 players" and mine["games"] == 3
        assert figures["stats-accuracy"]["dots"] == list(ACCURACIES) and figures["stats-accuracy"]["line"]
        assert seen["facts"][0] == "3"

        driver.execute_script("location.hash = '#stats'")  # everyone's, as the menu opens it
        seen = until(driver, lambda s: s["heading"] == "Everyone's statistics" and s["figures"])
        assert seen["choice"] and seen["pressed"] == ["stats-variant-basic", "stats-players-2"]
        group = next(g for g in everyone["groups"] if g["variant"] == "basic" and g["players"] == 2)
        figures = {f["id"]: f for f in seen["figures"]}
        assert [b["percent"] for b in figures["stats-rules"]["bars"]] == [r["percent"] for r in group["rules"]]
        assert [b["count"] for b in figures["stats-cards"]["bars"]] == [c["count"] for c in group["cards"]]
        assert all(
            b["label"].split()[0] in {"Red", "Orange", "Yellow", "Green", "Blue", "Indigo", "Violet"}
            for b in figures["stats-cards"]["bars"]
        )
        for figure in seen["figures"]:
            readable(figure, seen["width"])
        screenshot(driver, tmp_path / f"{size}-everyone.png")
        driver.execute_script("document.getElementById('stats-players-3').click()")
        seen = until(driver, lambda s: s["pressed"] == ["stats-variant-basic", "stats-players-3"])
        assert seen["none"] == ["No finished game yet."] and seen["facts"] == ["0", "0"]
        assert console_problems(driver) == []


#: Per language: a chart's caption, the heading's start, the red rule's name, the places' labels.
SAID = {
    "pl": ("Wygrane rundy, według obowiązującej reguły", "Statystyki: @", "Czerwona", ["1.", "2.", "3.", "4."]),
    "ru": ("Выигранные раунды по действующему правилу", "Статистика: @", None, ["1.", "2.", "3.", "4."]),
}


@pytest.mark.parametrize("language", sorted(SAID))
def test_the_statistics_speak_the_pages_language(server: Server, player: dict[str, Any], language: str, tmp_path: Path) -> None:
    caption, heading, red, places = SAID[language]
    with phone_chromium() as driver:
        signed_in(driver, server.base, player, f"stats={player['handle']}")
        driver.get(f"{server.base}/play?lang={language}#stats={player['handle']}")
        driver.refresh()
        seen = until(driver, lambda s: s["screen"] == "stats" and s["figures"])
        screenshot(driver, tmp_path / f"phone-{language}.png")
        assert caption in [f["caption"] for f in seen["figures"]]
        assert seen["heading"] == f"{heading}{player['handle']}"
        rules = next(f for f in seen["figures"] if f["id"] == "stats-rules")
        assert red is None or rules["bars"][0]["label"] == red
        assert rules["bars"][0]["label"] != "Red" and rules["ticks"][-1].startswith("100")
        assert [b["label"] for b in seen["figures"][0]["bars"]] == places
        for figure in seen["figures"]:
            readable(figure, seen["width"])
        assert seen["overflow"] <= 0
