"""The replay viewer's decision analysis in a real headless Chromium: the win-chance chart, accuracy, labels (issue 23).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package, as the viewer's other browser tests.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import chromium, skip_without_chromium
from tests.harness.browser import served as served_on_loopback
from tests.harness.support import Api, ai, settings_for

skip_without_chromium()
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402 (after the skip)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def analysed() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """A finished 3-player advanced game of AIs, analysed: the server's base URL, the game id and its replay."""
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))
    app = create_app(runtime)
    client = Api(app, runtime)
    token = client.player("Ana")["token"]
    game = client.game(token, [ai("random"), ai("greedy"), ai("random")], seed=3)
    client.run_jobs()
    assert client.call("POST", f"/v1/games/{game['id']}/analysis", token).status_code == 202
    client.run_jobs()
    document = client.call("GET", f"/v1/games/{game['id']}/replay").get_json()
    assert document["analysis"]["decisions"]
    with served_on_loopback(app, "viewer-analysis-server") as base:
        yield base, game["id"], document


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


#: The chart's margins (service/webclient/viewer/chart.js, MARGIN), which hold the axes' labels.
MARGIN_LEFT, MARGIN_RIGHT = 46, 14

READ = """
const lines = Array.from(document.querySelectorAll("#analysis polyline.win-line"));
return {
  shown: !document.querySelector("#analysis").hidden,
  lines: lines.map((l) => ({ seat: Number(l.dataset.seat), points: Number(l.dataset.points) })),
  rounds: document.querySelectorAll("#analysis .round-line").length,
  accuracy: Array.from(document.querySelectorAll("#accuracy li")).map((li) => li.dataset.accuracy),
  seat_accuracy: Array.from(document.querySelectorAll("#seats .seat-accuracy")).map((d) => d.textContent),
  verdicts: Array.from(document.querySelectorAll("#step-list .verdict")).map((v) => ({
    step: Number(v.closest("button").dataset.step), label: v.dataset.label })),
  now: Number(document.querySelector("#analysis .now-line").dataset.step),
};
"""


def test_the_viewer_charts_each_players_win_chance_with_labels_and_accuracy(analysed, browser) -> None:
    base, game_id, document = analysed
    analysis = document["analysis"]
    browser.get(f"{base}/v1/games/{game_id}/replay/view")
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "step-counter").text.startswith("Step 0"))
    page = browser.execute_script(READ)
    assert page["shown"]
    per_seat = {seat: sum(1 for d in analysis["decisions"] if d["seat"] == seat) for seat in range(3)}
    assert page["lines"] == [{"seat": seat, "points": n} for seat, n in per_seat.items() if n]
    assert page["rounds"] == len(analysis["rounds"]) >= 2  # an advanced game of several rounds
    assert [float(a) for a in page["accuracy"]] == [p["accuracy"] for p in analysis["players"]]  # JS says 91.0 as "91"
    assert len(page["seat_accuracy"]) == 3 and all(text.startswith("Accuracy ") for text in page["seat_accuracy"])
    labelled = [{"step": d["step"], "label": d["label"]} for d in analysis["decisions"] if d["label"]]
    assert page["verdicts"] == labelled
    assert labelled, "random players' games have labelled decisions"
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []

    # Click to seek: the step under the pointer is shown, and the chart marks it.
    total = len(document["steps"])
    target = labelled[len(labelled) // 2]["step"]
    chart = browser.find_element(By.CSS_SELECTOR, "#analysis svg")
    width = chart.size["width"]
    plot = width - MARGIN_LEFT - MARGIN_RIGHT  # the plot between the axes' labels
    x = MARGIN_LEFT + plot * target / total
    ActionChains(browser).move_to_element_with_offset(chart, int(x - width / 2), 0).click().perform()
    WebDriverWait(browser, 5).until(
        lambda d: abs(int(d.find_element(By.ID, "step-counter").text.split()[1]) - target) <= max(1, total // width + 1)
    )
    shown = int(browser.find_element(By.ID, "step-counter").text.split()[1])
    assert browser.execute_script(READ)["now"] == shown
