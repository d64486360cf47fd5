"""The replay viewer as a reviewer's tool (issue 38) in a real headless Chromium, in English, Polish and Russian, on a
phone and a desktop: the win-chance chart with its axes and percentages and nothing clipped, a current-step mark unlike
every seat's colour, the verdict badges in their step's row and drawn whole, the luck figure in words, the table first
on a phone with the game's details folded, links back to /play and to the player's mistakes, and no labelled control
whose text is cut or overflows.

Screenshots go to ``tmp_path`` and to ``$RED7_SCREENSHOTS`` when it names a folder, to look at them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium
from tests.harness.browser import served as served_on_loopback
from tests.harness.fit import overflowing
from tests.harness.support import Api, ai, settings_for

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

#: The viewer's labelled controls, and the boxes that hold words in a fixed shape.
CONTROLS = "button, a, select, input, summary, .verdict, .start-card, .status, #step-counter"
SIZES = {"phone": phone_chromium, "desktop": desktop_chromium}
LANGUAGES = ("en", "pl", "ru")


@pytest.fixture(scope="module")
def analysed() -> Iterator[tuple[str, str]]:
    """A finished 3-player advanced game of AIs, analysed: the server's base URL and the game id."""
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))
    app = create_app(runtime)
    client = Api(app, runtime)
    token = client.player("Ana")["token"]
    game = client.game(token, [ai("random"), ai("greedy"), ai("random")], seed=3)
    client.run_jobs()
    assert client.call("POST", f"/v1/games/{game['id']}/analysis", token).status_code == 202
    client.run_jobs()
    with served_on_loopback(app, "viewer-review-server") as base:
        yield base, game["id"]


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    """The whole page as a PNG (the viewport made as tall as the page), for a person to look at."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return window.innerWidth")
    mobile = width < 500
    metrics = {"width": width, "height": min(height, 3600), "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    for folder in (tmp_path, os.environ.get("RED7_SCREENSHOTS")):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(Path(folder) / f"{name}.png"))


READ = """
const q = (s) => document.querySelector(s);
const box = (node) => {
  const r = node.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
};
const svg = q("#analysis svg");
const view = svg.viewBox.baseVal;
const inside = (node) => {
  const b = node.getBBox();
  return b.x >= 0 && b.y >= 0 && b.x + b.width <= view.width && b.y + b.height <= view.height;
};
const drawn = Array.from(svg.querySelectorAll("text, circle, polyline, .now-line, .now-head"));
return {
  y_ticks: Array.from(svg.querySelectorAll(".y-tick")).map((t) => t.textContent),
  x_ticks: Array.from(svg.querySelectorAll(".x-tick")).map((t) => t.textContent),
  clipped: drawn.filter((node) => !inside(node)).map((node) => node.outerHTML.slice(0, 80)),
  now: getComputedStyle(q("#analysis .now-line")).stroke,
  now_step: Number(q("#analysis .now-line").dataset.step),
  seat_colours: Array.from(svg.querySelectorAll(".win-line")).map((l) => getComputedStyle(l).stroke),
  badges: Array.from(document.querySelectorAll("#step-list .verdict")).map((v) => {
    const button = v.closest("button");
    const inner = box(v), outer = box(button), text = box(button.querySelector(".txt"));
    return { step: Number(button.dataset.step), in_row: inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1,
             in_text: inner.left >= text.left - 1 && inner.right <= text.right + 1, whole: v.scrollWidth <= v.clientWidth,
             display: getComputedStyle(v).display };
  }),
  luck: q("#luck-note").textContent,
  details_open: q("#about").open,
  links: q("#links").hidden ? null : { play: q("#to-play").getAttribute("href"), mistakes: q("#to-mistakes").getAttribute("href"),
           mistakes_shown: !q("#to-mistakes").hidden, top: box(q("#to-play")).top },
  table_top: box(q(".panel.table")).top, seats_top: box(q("#seats")).top, chart_top: box(q("#analysis")).top,
  meta_shown: q("#game-meta").checkVisibility(),
};
"""


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_viewer_reviews_a_game_with_nothing_clipped(analysed, tmp_path: Path, language: str, size: str) -> None:
    base, game_id = analysed
    with SIZES[size]() as driver:
        driver.get(f"{base}/v1/games/{game_id}/replay/view?lang={language}")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.querySelector('#analysis svg') !== null"))
        start = overflowing(driver, CONTROLS)  # step 0: the canvas is the start card ("Karta startowa" in Polish)
        assert start["out"] == [] and not start["sideways"], start
        assert driver.execute_script("return document.querySelector('.start-card') !== null")
        driver.execute_script("location.hash = '#step=20'")
        WebDriverWait(driver, 5).until(lambda d: d.execute_script(READ)["now_step"] == 20)
        page = driver.execute_script(READ)
        fit = overflowing(driver, CONTROLS)
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        shot(driver, tmp_path, f"viewer-{language}-{size}")

    # The chart: five percentages up the side, the first and the last step along the bottom, nothing drawn outside.
    assert len(page["y_ticks"]) == 5 and all("%" in tick for tick in page["y_ticks"]), page["y_ticks"]
    assert page["y_ticks"][0].startswith("0") and page["y_ticks"][-1].startswith("100"), page["y_ticks"]
    assert page["x_ticks"][0] == "0" and int(page["x_ticks"][-1]) > 20
    assert page["clipped"] == [], page["clipped"]
    # The mark of the step shown is the page's ink, none of the seats' colours.
    assert page["seat_colours"] and page["now"] not in page["seat_colours"], (page["now"], page["seat_colours"])
    # Each badge in its step's own row, in its text, drawn whole (its background around all of it).
    assert page["badges"], "random players' games have labelled decisions"
    badly = [b for b in page["badges"] if not (b["in_row"] and b["in_text"] and b["whole"] and b["display"] == "inline-block")]
    assert badly == [], badly
    assert len(page["luck"]) > 60 and "+" in page["luck"] and "−" in page["luck"]
    # The way back: /play (in the page's language) and the player's mistakes, at the top.
    query = "" if language == "en" else f"?lang={language}"
    assert page["links"] == {"play": f"/play{query}", "mistakes": f"/play{query}#mistakes=mistake", "mistakes_shown": True,
                             "top": pytest.approx(page["links"]["top"])}  # fmt: skip
    if size == "phone":  # the table first: the game's details folded, the seats before the chart
        assert not page["details_open"] and not page["meta_shown"]
        assert page["table_top"] < page["seats_top"] < page["chart_top"]
    else:
        assert page["details_open"] and page["meta_shown"]
    assert fit["checked"] > 30 and fit["out"] == [] and not fit["sideways"], fit
    assert errors == [], errors
