"""Ratings in /play, in a real headless Chromium at a phone's size and a desktop's: each seat's rating at a rated table
(and whether it is provisional), each player's change at a rated game's end once its ladder has it, the ladders'
leaderboards (the top, and the page around you), and the ratings on a profile.

The app is served as ``red7 serve --embedded`` serves it (``serving`` of test_play_browser.py: the jobs, the ``rate``
job among them, in threads of this process, on a free loopback port).  Games the test does not click through are
played through the API, as any other client's would be.  Each test saves screenshots in its tmp dir (``phone-*.png``,
``desktop-*.png``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium
from tests.harness.support import HUMAN, ai

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import (  # noqa: E402
    GAME_SECONDS,
    Server,
    console_problems,
    first_screen,
    fresh_page,
    inside,
    play_out,
    screenshot,
    serving,
    sign_up,
    stored_player,
    wait_for,
)
from tests.service.browser.test_play_lobby_browser import api_player, game_on, play_to_the_end, signed_in, unique  # noqa: E402

#: How long a finished rated game may take to be on its ladder (the rate job), and the page to show it (every 2 s).
APPLIED = 20


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def desktop() -> Iterator[Any]:
    with desktop_chromium() as driver:
        yield driver


RATED = """
const q = (s) => document.querySelector(s);
return {
  badges: Array.from(document.querySelectorAll("#seats [data-seat]")).map((s) => {
    const b = s.querySelector(".badge.rating");
    return b && { seat: Number(s.dataset.seat), rating: Number(b.dataset.rating), provisional: b.dataset.provisional === "true",
      text: b.textContent };
  }),
  lines: Array.from(document.querySelectorAll("#final-scores li")).map((li) => {
    const r = li.querySelector(".rating-line");
    return {
      seat: Number(li.dataset.seat), change: r ? Number(r.dataset.change) : null, before: r ? Number(r.dataset.before) : null,
      counted: r ? r.dataset.counted === "true" : null, text: r ? r.textContent : null,
    };
  }),
  state: q("#ratings-state").hidden ? null
    : { applied: q("#ratings-state").dataset.applied === "true", text: q("#ratings-state").textContent },
};
"""

BOARD = """
const q = (s) => document.querySelector(s);
const current = q("#ladder .tabs a[aria-current]");
return {
  screen: document.body.dataset.screen,
  ladder: q("#board").dataset.ladder || null, mode: q("#board").dataset.mode || null,
  loaded: Number(q("#board").dataset.loaded || 0),
  rows: Array.from(document.querySelectorAll("#board-rows tr")).map((tr) => ({
    player: tr.dataset.player, rank: Number(tr.dataset.rank), rating: Number(tr.dataset.rating), you: tr.dataset.you === "true",
    text: tr.textContent, link: tr.querySelector("a") ? tr.querySelector("a").getAttribute("href") : null,
  })),
  none: q("#board-none").hidden ? null : q("#board-none").textContent,
  more: !q("#board-more").hidden, tab: current ? current.dataset.ladder : null,
  around_shown: !q("#board-modes").hidden && !q("#board-around").hidden,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def rated(driver: Any) -> dict[str, Any]:
    return driver.execute_script(RATED)


def board(driver: Any) -> dict[str, Any]:
    return driver.execute_script(BOARD)


def until_board(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(board(d)))
    return board(driver)


def signed(change: int) -> str:
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "\u00b10"


def leaderboard(server: Server, ladder: str, **query: Any) -> dict[str, Any]:
    response = server.client.call("GET", f"/v1/ladders/{ladder}/leaderboard", query_string={"limit": 20, **query})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def finished(server: Server, game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + GAME_SECONDS
    while (view := server.client.view(game_id))["status"] != "finished":
        assert time.monotonic() < deadline, f"game {game_id} did not finish in {GAME_SECONDS} s"
        time.sleep(0.2)
    return view


def applied(server: Server, game_id: str) -> dict[str, Any]:
    """The game's view once its ladder has it."""
    deadline = time.monotonic() + APPLIED
    while not (view := server.client.view(game_id))["ratings"]["applied"]:
        assert time.monotonic() < deadline, f"game {game_id} is not on its ladder after {APPLIED} s"
        time.sleep(0.2)
    return view


# --- the tests ---------------------------------------------------------------------------------


def test_a_rated_game_shows_each_seats_rating_and_at_its_end_each_players_change(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    fresh_page(browser, f"{server.base}/play")
    browser.get_log("browser")
    sign_up(browser, "Fay")
    fay = stored_player(browser)
    # A rated basic game against a greedy AI, from the home screen's form.
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    browser.find_element(By.CSS_SELECTOR, 'input[name="variant"][value="basic"]').click()
    browser.find_element(By.ID, "rated").click()
    browser.find_element(By.ID, "create").click()
    wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn")
    game_id = game_on(browser)
    view = server.client.view(game_id, fay["token"])
    assert view["rated"] and view["ratings"] and not view["ratings"]["applied"]

    # Each seat's rating, and "provisional" (a new player's is 1000, provisional).
    shown = rated(browser)
    assert [(b["seat"], b["rating"], b["provisional"]) for b in shown["badges"]] == [
        (s["seat"], s["rating"], s["provisional"]) for s in view["ratings"]["seats"]
    ]
    assert shown["badges"][0]["rating"] == 1000 and shown["badges"][0]["provisional"]
    assert all(b["text"] == f"rating {b['rating']}" + (" provisional" if b["provisional"] else "") for b in shown["badges"])
    assert shown["state"] is None, "nothing to say of the ratings before the end"

    # The badges keep the palettes and the first step on a phone's first screen.
    wait_for(browser, lambda t: t["your_turn"] and t["steps"] and not any(s["disabled"] for s in t["steps"]), 20)
    screen = first_screen(browser)
    assert inside(screen["seats"], screen["viewport"]) and inside(screen["step"], screen["viewport"]), screen
    screenshot(browser, tmp_path / "phone-rated-turn.png")

    # Played to the end by clicking: each player's change shows once the ladder has the game.
    play_out(browser)
    WebDriverWait(browser, APPLIED, poll_frequency=0.2).until(lambda d: (rated(d)["state"] or {}).get("applied"))
    end = rated(browser)
    view = server.client.view(game_id, fay["token"])
    assert view["ratings"]["applied"] and "rating before it and after it, on the basic ladder" in end["state"]["text"]
    by_seat = {s["seat"]: s for s in view["ratings"]["seats"]}
    assert sorted(line["seat"] for line in end["lines"]) == [0, 1]
    for line in end["lines"]:
        seat = by_seat[line["seat"]]
        assert (line["before"], line["change"], line["counted"]) == (seat["rating"], seat["change"], seat["counted"])
        said = f"Rating {seat['rating']} → {seat['rating'] + seat['change']} ({signed(seat['change'])})"
        if seat["counted"]:
            assert line["text"] == said
        else:  # a newcomer's result does not move an AI level (an anchor): said so, and why
            assert line["text"].startswith(said + " not counted") and "no opponent with an established rating" in line["text"]
    fays, ais = by_seat[0], by_seat[1]
    assert fays["counted"] and (fays["change"] > 0) == (view["winner"] == 0), "an AI level counts for a newcomer"
    assert not ais["counted"] and ais["change"] == 0, "a provisional player does not move an AI level"
    screenshot(browser, tmp_path / "phone-rated-end.png")
    assert console_problems(browser) == []


def test_the_ladder_lists_the_players_top_and_around_me_and_a_profile_shows_their_ratings(
    server: Server, browser: Any, desktop: Any, tmp_path: Path
) -> None:
    # Rated games between the AI levels, as on a live service: the anchors the basic ladder ranks (from their first
    # game) get their ratings.  Then Gil's rated games against two of them: they count for him, but two games are not
    # enough for his rating to be ranked.
    gil = api_player(server, "Gil", f"gil_{unique()}")
    among_ais = []
    for _ in range(20):
        seats = [ai("random"), ai("greedy"), ai("random"), ai("greedy")]
        among_ais.append(server.client.game(gil["token"], seats, variant="basic", rated=True)["id"])
    for game_id in among_ais:
        finished(server, game_id)
    games = []
    for level in ("random", "greedy"):
        game = server.client.game(gil["token"], [HUMAN, ai(level)], variant="basic", rated=True)
        play_to_the_end(server, game["id"], gil["token"])
        games.append(game["id"])
    for game_id in (*among_ais, *games):
        applied(server, game_id)

    # At a desktop, Gil opens the basic ladder: the top of it, as getLeaderboard gives it: the AI levels, not him.
    signed_in(desktop, server.base, gil, "ladder=basic")
    desktop.get_log("browser")
    top = until_board(desktop, lambda b: b["screen"] == "ladder" and b["ladder"] == "basic" and b["mode"] == "top")
    expected = leaderboard(server, "basic")
    assert [(r["player"], r["rank"], r["rating"]) for r in top["rows"]] == [
        (p["player_id"], p["rank"], p["rating"]) for p in expected["players"]
    ]
    assert {r["player"] for r in top["rows"]} == {"ai:random", "ai:greedy"}, "established ratings only"
    assert all(r["link"] is None and "an AI level" in r["text"] for r in top["rows"])
    assert not any(r["you"] for r in top["rows"]) and "provisional" not in " ".join(r["text"] for r in top["rows"])
    assert top["tab"] == "basic" and top["around_shown"] and not top["more"]
    screenshot(desktop, tmp_path / "desktop-ladder.png")

    # The page around him: he is not ranked yet, and is told when he will be.
    desktop.find_element(By.ID, "board-around").click()
    around = until_board(desktop, lambda b: b["mode"] == "around" and b["loaded"] > top["loaded"] and b["none"])
    assert around["rows"] == [] and "not ranked on the basic ladder yet" in around["none"] and "twenty" in around["none"]

    # The advanced ladder ranks nobody: said so, around him and at its top.
    desktop.find_element(By.CSS_SELECTOR, '#ladder .tabs a[data-ladder="advanced"]').click()
    none = until_board(desktop, lambda b: b["ladder"] == "advanced" and b["none"])
    assert none["tab"] == "advanced" and none["rows"] == [] and "not ranked on the advanced ladder yet" in none["none"]
    desktop.find_element(By.ID, "board-top").click()
    until_board(desktop, lambda b: b["mode"] == "top" and b["none"] and "Nobody has an established rating" in b["none"])

    # His profile: each ladder's rating (provisional), "not ranked yet" for a rank, his record and his last changes.
    desktop.get(f"{server.base}/play#player={gil['id']}")
    WebDriverWait(desktop, 10).until(lambda d: d.find_element(By.ID, "profile-ratings").is_displayed())
    profile = server.client.call("GET", f"/v1/players/{gil['id']}").get_json()["ratings"]["basic"]
    assert profile["provisional"] and profile["rank"] is None and profile["counted"] == profile["played"] == 2
    article = desktop.find_element(By.CSS_SELECTOR, '#profile-ladders article[data-ladder="basic"]')
    assert article.get_attribute("data-rating") == str(profile["rating"]) and article.get_attribute("data-rank") is None
    said = article.get_attribute("textContent")
    assert f"Rating{profile['rating']}provisional" in said and "not ranked yet (provisional)" in said and "Rated games2" in said
    changes = [
        (li.get_attribute("data-game"), int(li.get_attribute("data-change")), li.get_attribute("data-counted"))
        for li in article.find_elements(By.CSS_SELECTOR, "ul.history li")
    ]
    assert changes == [(c["game_id"], c["change"], "true") for c in profile["history"]] and {g for g, *_ in changes} == set(games)
    assert not desktop.find_elements(By.CSS_SELECTOR, '#profile-ladders article[data-ladder="advanced"]')
    screenshot(desktop, tmp_path / "desktop-profile-ratings.png")
    # The only complaints: the 404 player_not_rated that told the page Gil is on neither ladder's leaderboard.
    problems = console_problems(desktop)
    assert len(problems) == 2 and all("/leaderboard?" in p["message"] and "404" in p["message"] for p in problems), problems

    # On a phone, signed out: the ladder is public (no "around me" without a player), and fits the screen.
    fresh_page(browser, f"{server.base}/play#ladder=basic")
    browser.get_log("browser")
    phone = until_board(browser, lambda b: b["screen"] == "ladder" and b["rows"])
    assert [r["player"] for r in phone["rows"]] == [p["player_id"] for p in leaderboard(server, "basic")["players"]]
    assert not phone["around_shown"] and not any(r["you"] for r in phone["rows"]) and phone["overflow"] <= 0
    screenshot(browser, tmp_path / "phone-ladder.png")
    assert console_problems(browser) == []
