"""The replay viewer in a real headless Chromium: served by the app with its CSP, stepped with buttons and keys.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``, ``/usr/bin/chromedriver``)
and the ``selenium`` package; nothing is downloaded at test time.  Without them the tests are skipped
with the reason.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import chromium, network_requests, phone_chromium, skip_without_chromium
from tests.harness.browser import served as served_on_loopback
from tests.harness.support import Api, ai, settings_for

CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# Everything the page shows for one step, read in one round trip.
SNAPSHOT = """
const q = (s) => document.querySelector(s);
const cards = (root, s) => Array.from(root.querySelectorAll(s + " .card[data-card]")).map((c) => c.dataset.card);
return {
  counter: q("#step-counter").textContent,
  explanation: q("#explanation").textContent,
  round: q("#round").textContent,
  rule: q("#rule").dataset.rule,
  rule_name: q("#rule").textContent,
  canvas_top: q("#canvas-top").dataset.card,
  deck: q("#deck-size").textContent,
  turn: q("#turn").textContent,
  outcome_shown: !q("#outcome").hidden,
  winner: q("#winner").textContent,
  hash: location.hash,
  seats: Array.from(document.querySelectorAll("#seats [data-seat]")).map((s) => ({
    seat: Number(s.dataset.seat),
    name: s.querySelector(".seat-name").textContent,
    palette: cards(s, ".palette"),
    hand: cards(s, ".hand"),
    hand_hidden: s.querySelector(".hand").dataset.hidden === "true",
    score: s.querySelector(".score").textContent,
    in_round: s.dataset.inRound === "true",
    turn: s.dataset.turn === "true",
    winner: s.dataset.winner === "true",
  })),
};
"""


@dataclass
class Served:
    """The app on a localhost port, a finished game on it, and every request the server saw."""

    base: str
    game_id: str
    document: dict[str, Any]
    requests: list[str] = field(default_factory=list)
    #: A rated game between two AI levels, finished and on its ladder, and its replay (with the seats' ratings).
    rated_id: str = ""
    rated_document: dict[str, Any] = field(default_factory=dict)

    @property
    def view_url(self) -> str:
        return f"{self.base}/v1/games/{self.game_id}/replay/view"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))  # the embedded in-memory store
    app = create_app(runtime)
    client = Api(app, runtime)  # the same runtime as the server: one store
    token = client.player("Ana")["token"]
    game = client.game(token, [ai("random"), ai("greedy")])
    client.run_jobs()
    replay = client.call("GET", f"/v1/games/{game['id']}/replay")
    assert replay.status_code == 200
    document = replay.get_json()
    assert document["outcome"] is not None and document["complete"]
    rated = client.game(token, [ai("random"), ai("greedy")], variant="basic", rated=True)
    client.run_jobs()  # the AIs' turns, then the rate job
    rated_document = client.call("GET", f"/v1/games/{rated['id']}/replay").get_json()
    assert rated_document["outcome"] is not None and rated_document["ratings"]["applied"]

    seen: list[str] = []

    def logged(environ: dict[str, Any], start_response: Callable) -> Any:
        seen.append(environ["REQUEST_METHOD"] + " " + environ.get("PATH_INFO", ""))
        return app(environ, start_response)

    with served_on_loopback(logged, "viewer-test-server") as base:
        yield Served(base, game["id"], document, seen, rated["id"], rated_document)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def expected(document: dict[str, Any], index: int) -> dict[str, Any]:
    """What the page must show at step ``index``, from the replay JSON alone."""
    steps = document["steps"]
    names = [seat["name"] for seat in document["seats"]]
    at_end = index == len(steps)
    outcome = document["outcome"] if at_end else None
    if index == 0:
        return {
            "counter": f"Step 0 / {len(steps)}",
            "explanation": "Before the first step.",
            "round": "—",
            "rule": "red",
            "deck": "—",
            "turn": None,
            "outcome_shown": False,
            "seats": [{"name": name, "palette": [], "hand": [], "score": "0", "winner": False} for name in names],
        }
    step = steps[index - 1]
    state = step["state"]
    return {
        "counter": f"Step {index} / {len(steps)}",
        "explanation": step["text"],
        "round": str(state["round"]) if state["round"] else "—",
        "rule": state["rule"],
        "canvas_top": state["canvas"][-1] if state["canvas"] else "",
        "deck": str(state["deck_size"]),
        "turn": None if state["turn"] is None else names[state["turn"]],
        "outcome_shown": at_end,
        "winner": names[outcome["winner"]] if outcome else None,
        "seats": [
            {
                "name": names[n],
                "palette": seat["palette"],
                "hand": seat["hand"],
                "score": str(seat["score"]),
                "in_round": seat["in_round"],
                "turn": state["turn"] == n,
                "winner": bool(outcome) and outcome["winner"] == n,
            }
            for n, seat in enumerate(state["seats"])
        ],
    }


def shows(driver: Any, want: dict[str, Any]) -> dict[str, Any]:
    """Wait for the page to show ``want``'s step, then check every field against it; the snapshot."""
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "step-counter").text == want["counter"])
    page = driver.execute_script(SNAPSHOT)
    for key in ("counter", "explanation", "round", "rule", "deck", "outcome_shown"):
        assert page[key] == want[key], (key, page[key], want[key])
    if "canvas_top" in want:
        assert page["canvas_top"] == want["canvas_top"]
    if want["turn"] is None:
        assert page["turn"] == "—"
    else:
        assert page["turn"].startswith(want["turn"])
    if want.get("winner"):
        assert page["winner"] == want["winner"]
    assert page["rule_name"] == want["rule"].capitalize()
    assert page["hash"] == "#step=" + want["counter"].split()[1]
    assert len(page["seats"]) == len(want["seats"])
    for shown, seat in zip(page["seats"], want["seats"], strict=True):
        for key, value in seat.items():
            assert shown[key] == value, (shown["seat"], key, shown[key], value)
        assert not shown["hand_hidden"], "a finished game's replay reveals every hand"
    return page


def press(driver: Any, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def click(driver: Any, element_id: str) -> None:
    driver.find_element(By.ID, element_id).click()


def test_the_viewer_steps_through_a_finished_game(served: Served, browser: Any) -> None:
    document = served.document
    last = len(document["steps"])
    browser.get_log("browser")  # start both logs empty
    network_requests(browser)
    served.requests.clear()
    browser.get(served.view_url)

    assert browser.title == f"Red7 replay {served.game_id}"
    page = shows(browser, expected(document, 0))
    assert [seat["name"] for seat in page["seats"]] == [seat["name"] for seat in document["seats"]]
    assert browser.find_element(By.ID, "explanation").get_attribute("aria-live") == "polite"
    assert browser.find_element(By.ID, "prev").get_attribute("aria-disabled") == "true"

    click(browser, "next")  # the button
    shows(browser, expected(document, 1))
    press(browser, Keys.ARROW_RIGHT)  # the keyboard
    dealt = shows(browser, expected(document, 2))
    assert document["steps"][1]["type"] == "round_dealt"
    assert all(len(seat["palette"]) == 1 and len(seat["hand"]) == 7 for seat in dealt["seats"]), "the deal is shown"
    press(browser, Keys.ARROW_RIGHT)
    third = shows(browser, expected(document, 3))
    assert third["explanation"] != dealt["explanation"]

    click(browser, "prev")  # back, by the button and by the key, to where it started
    shows(browser, expected(document, 2))
    press(browser, Keys.ARROW_LEFT)
    press(browser, Keys.ARROW_LEFT)
    shows(browser, expected(document, 0))
    press(browser, Keys.ARROW_LEFT)  # nothing before the start
    shows(browser, expected(document, 0))

    click(browser, "last")
    end = shows(browser, expected(document, last))
    winner = document["seats"][document["outcome"]["winner"]]["name"]
    assert end["winner"] == winner
    outcome = browser.find_element(By.ID, "outcome")
    assert outcome.is_displayed() and winner in outcome.text
    for n, points in enumerate(document["outcome"]["scores"]):
        assert f"{document['seats'][n]['name']}: {points} point" in outcome.text
    final = document["steps"][-1]["state"]["seats"]
    assert [seat["hand"] for seat in end["seats"]] == [seat["hand"] for seat in final]
    assert browser.find_element(By.ID, "next").get_attribute("aria-disabled") == "true"
    press(browser, Keys.ARROW_RIGHT)  # nothing after the end
    shows(browser, expected(document, last))

    press(browser, Keys.HOME)
    shows(browser, expected(document, 0))
    press(browser, Keys.END)
    shows(browser, expected(document, last))
    click(browser, "first")
    shows(browser, expected(document, 0))
    browser.find_element(By.CSS_SELECTOR, '#step-list button[data-step="5"]').click()  # the step list
    shows(browser, expected(document, 5))

    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == [], errors
    assert {urldefrag(url).url for url in network_requests(browser)} == {served.view_url}
    assert served.requests == [f"GET /v1/games/{served.game_id}/replay/view"]


def test_a_step_in_the_address_opens_there_and_the_page_keeps_the_csp(served: Served, browser: Any) -> None:
    document = served.document
    browser.get("about:blank")  # a new load, not a jump within the page already open
    browser.execute_cdp_cmd("Network.clearBrowserCache", {})  # nor an answer the cache kept (a finished game's: 5 min)
    browser.get_log("browser")
    network_requests(browser)
    served.requests.clear()
    last = len(document["steps"])
    middle = last // 2
    browser.get(f"{served.view_url}#step={middle}")
    shows(browser, expected(document, middle))
    slider = browser.find_element(By.ID, "slider")
    slider.send_keys(Keys.ARROW_RIGHT)  # the slider moves one step, and only one
    shows(browser, expected(document, middle + 1))

    click(browser, "play")  # plays on by itself until paused
    assert browser.find_element(By.ID, "play").get_attribute("aria-label") == "Pause"
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "step-counter").text != f"Step {middle + 1} / {last}")
    click(browser, "play")
    assert browser.find_element(By.ID, "play").get_attribute("aria-label") == "Play"
    paused = int(browser.find_element(By.ID, "step-counter").text.split()[1])
    assert paused > middle + 1
    time.sleep(1.2)
    shows(browser, expected(document, paused))
    assert [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")] == []

    # The CSP the server sent is in force: the inline script runs, but nothing may be fetched.
    blocked = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        document.addEventListener("securitypolicyviolation", (e) => done(e.effectiveDirective), {once: true});
        const img = new Image();
        img.src = "/favicon.ico";
        setTimeout(() => done(null), 2000);
        """
    )
    assert blocked == "img-src"
    refused = browser.get_log("browser")
    assert refused and all("Content Security Policy" in entry["message"] for entry in refused), refused
    assert served.requests == [f"GET /v1/games/{served.game_id}/replay/view"]


RATINGS = """
return {
  seats: Array.from(document.querySelectorAll("#seats [data-seat]")).map((s) => {
    const r = s.querySelector(".seat-rating");
    return r && {
      seat: Number(s.dataset.seat), rating: Number(r.dataset.rating), change: Number(r.dataset.change), text: r.textContent,
    };
  }),
  options: Array.from(document.querySelectorAll("#options [data-option]"))
    .map((o) => [o.dataset.option, o.querySelector("dd").textContent]),
  outcome: Array.from(document.querySelectorAll("#final-scores li")).map((li) => li.textContent),
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def signed(change: int) -> str:
    """A rating change as the viewer writes it: +12, \u221273 (a minus sign), \u00b10."""
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "\u00b10"


def test_a_rated_games_viewer_shows_each_seats_rating_before_the_game_and_the_change(served: Served, tmp_path: Any) -> None:
    document = served.rated_document
    ratings = {seat["seat"]: seat for seat in document["ratings"]["seats"]}
    names = [seat["name"] for seat in document["seats"]]
    with phone_chromium() as phone:
        phone.get(f"{served.base}/v1/games/{served.rated_id}/replay/view")
        WebDriverWait(phone, 5).until(lambda d: d.find_element(By.ID, "step-counter").text.startswith("Step 0"))
        shown = phone.execute_script(RATINGS)
        assert [(s["seat"], s["rating"], s["change"]) for s in shown["seats"]] == [
            (n, ratings[n]["rating"], ratings[n]["change"]) for n in range(len(names))
        ]
        for seat in shown["seats"]:
            rating = ratings[seat["seat"]]
            words = f"Rating {rating['rating']} before the game" + (" (provisional)" if rating["provisional"] else "")
            assert seat["text"] == f"{words}, {rating['rating'] + rating['change']} after it ({signed(rating['change'])})", seat
        assert ["rated", "yes, basic ladder"] in shown["options"]
        assert shown["overflow"] <= 0
        phone.execute_script("document.getElementById('seats').scrollIntoView()")
        assert phone.save_screenshot(str(tmp_path / "phone-viewer-ratings.png"))

        # At the end, each seat's line says the change too.
        phone.find_element(By.ID, "last").click()
        WebDriverWait(phone, 5).until(lambda d: d.find_element(By.ID, "outcome").is_displayed())
        end = phone.execute_script(RATINGS)
        for n, line in enumerate(end["outcome"]):
            rating, change = ratings[n], ratings[n]["change"]
            assert f"{names[n]}: " in line
            assert line.endswith(f" · rating {rating['rating']} \u2192 {rating['rating'] + change} ({signed(change)})"), line
        phone.execute_script("document.getElementById('outcome').scrollIntoView()")
        assert phone.save_screenshot(str(tmp_path / "phone-viewer-ratings-end.png"))
        assert [e for e in phone.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []

        # A game that is not rated shows no rating at all.
        phone.get(served.view_url)
        WebDriverWait(phone, 5).until(lambda d: d.find_element(By.ID, "step-counter").text.startswith("Step 0"))
        unrated = phone.execute_script(RATINGS)
        assert unrated["seats"] == [None] * len(served.document["seats"]) and "rated" not in dict(unrated["options"])
