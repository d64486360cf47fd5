"""The web client at /play in a real headless Chromium, at a phone's size and a desktop's: whole games against AIs,
by clicking.

The app is served as ``red7 serve --embedded`` serves it (the in-memory store, the jobs run in threads of
this process) on a free localhost port; the browser knows nothing but the page's address.  The AI level
is greedy and the variant basic (one round, whoever wins it wins the game), so a game is over in seconds.
The page follows the game through the ticketed stream; a server that answers the ticket route with a 404
(an older one, played by a switch in front of the app) makes it long-poll instead.  At the table the palettes and
the steps are on the first screen (element rectangles, no scrolling), what the others did since the player's last
turn is marked (checked against the server's own event feed), and the end lists the players by place.  Each test
saves screenshots in its tmp dir (``phone-*.png``, ``desktop-*.png``) for a person to look at.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (``.ci/run`` installs
them); without them the tests are skipped with the reason.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from tests.harness.browser import (
    DESKTOP,
    PHONE,
    desktop_chromium,
    network_requests,
    phone_chromium,
    served,
    settled,
    skip_without_chromium,
)
from tests.harness.support import Api, settings_for
from workers.runner import start_embedded

skip_without_chromium()
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402 (after the skip)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GAME_SECONDS = 90  # a basic game against two greedy AIs takes a few seconds of clicking; this is the bound


@dataclass
class Seen:
    """A request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    if_match: str | None
    idempotency_key: str | None
    authorized: bool


@dataclass
class Server:
    base: str
    runtime: Runtime
    client: Api
    requests: list[Seen] = field(default_factory=list)
    #: Answer POST .../stream-tickets as a server that has no such route does (404 not_found).
    without_tickets: bool = False


NO_ROUTE = json.dumps(
    {"type": "/v1/problems#not_found", "title": "Not found", "status": 404, "code": "not_found", "detail": "Nothing here."}
).encode()


@contextmanager
def serving(**settings: Any) -> Iterator[Server]:
    """The app with its jobs in threads of this process, on a free loopback port, logging what it is asked."""
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:", **settings))
    app = create_app(runtime)
    seen: list[Seen] = []
    switches = {"without_tickets": lambda: False}

    def logged(environ: dict[str, Any], start_response: Callable) -> Any:
        if switches["without_tickets"]() and environ.get("PATH_INFO", "").endswith("/stream-tickets"):
            start_response("404 NOT FOUND", [("Content-Type", "application/problem+json")])
            return [NO_ROUTE]
        seen.append(
            Seen(
                environ["REQUEST_METHOD"],
                environ.get("PATH_INFO", ""),
                parse_qs(environ.get("QUERY_STRING", "")),
                environ.get("HTTP_IF_MATCH"),
                environ.get("HTTP_IDEMPOTENCY_KEY"),
                "HTTP_AUTHORIZATION" in environ,
            )
        )
        return app(environ, start_response)

    stop = start_embedded(runtime)  # AI seats and the deal are jobs: run them here, as `red7 serve --embedded` does
    try:
        with served(logged, "play-test-server") as base:
            state = Server(base, runtime, Api(app, runtime), seen)
            switches["without_tickets"] = lambda: state.without_tickets
            yield state
    finally:
        stop.set()


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


# --- what the page shows, read in one round trip -----------------------------------------------

TABLE = """
const q = (s) => document.querySelector(s);
const table = q("#table");
return {
  screen: document.body.dataset.screen,
  version: Number(table.dataset.version || -1),
  phase: table.dataset.phase || null,
  live: table.dataset.live,
  your_turn: table.dataset.yourTurn === "true",
  status: q("#status").textContent,
  rule: q("#rule").dataset.rule,
  leader: q("#leader").textContent,
  hand: Array.from(document.querySelectorAll("#hand [data-card]")).map((c) => c.dataset.card),
  seats: Array.from(document.querySelectorAll("#seats [data-seat]")).map((s) => ({
    seat: Number(s.dataset.seat),
    name: s.querySelector(".seat-name").textContent,
    palette: Array.from(s.querySelectorAll("[data-card]")).map((c) => c.dataset.card),
    turn: s.dataset.turn === "true",
    leader: s.dataset.leader === "true",
    marked: Array.from(s.querySelectorAll('[data-card][data-new="true"]')).map((c) => c.dataset.card),
    marked_said: Array.from(s.querySelectorAll('[data-card][data-new="true"] .sr-only')).map((c) => c.textContent),
    recent: s.querySelector(".seat-recent") ? s.querySelector(".seat-recent").textContent : null,
  })),
  rule_new: q("#rule-new") && !q("#rule-new").hidden ? q("#rule-new").textContent : null,
  steps: Array.from(document.querySelectorAll("#steps button")).map((b) => ({
    index: Number(b.dataset.index), type: b.dataset.type, card: b.dataset.card || null, text: b.textContent,
    eliminates: b.dataset.eliminates === "true", can_win: b.dataset.canWin === "true", ends_turn: b.dataset.endsTurn === "true",
    disabled: b.disabled,
  })),
  dialog_open: q("#confirm").open,
  outcome_shown: !q("#outcome").hidden,
  winner: q("#winner").textContent,
  scores: Array.from(document.querySelectorAll("#final-scores li")).map((li) => li.textContent),
  places: Array.from(document.querySelectorAll("#final-scores li"))
    .map((li) => [Number(li.dataset.seat), Number(li.dataset.place)]),
  scores_shown: !q("#final-scores").hidden,
  replay: q("#replay-link").getAttribute("href"),
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  news: document.querySelectorAll("#news li").length,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def table(driver: Any) -> dict[str, Any]:
    return driver.execute_script(TABLE)


SCREEN = """
const box = (el) => {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
};
const q = (s) => document.querySelector(s);
return {
  viewport: [innerWidth, innerHeight], scrolled: [scrollX, scrollY],
  status: box(q("#status-panel")), seats: box(q("#seats")), move: box(q("#move")), step: box(q("#steps button")),
  hand: box(q("#hand-panel")), news: box(q("#news-panel")),
};
"""


def first_screen(driver: Any) -> dict[str, Any]:
    """Where the table's parts are, scrolled to the top as a page opens: their rectangles in the viewport."""
    driver.execute_script("scrollTo(0, 0)")
    return driver.execute_script(SCREEN)


def inside(box: dict[str, float] | None, viewport: list[int]) -> bool:
    if box is None:
        return False
    return box["top"] >= 0 and box["left"] >= 0 and box["bottom"] <= viewport[1] and box["right"] <= viewport[0]


def screenshot(driver: Any, path: Any) -> None:
    """A PNG of the viewport, for a person to look at (the test's tmp dir keeps it)."""
    driver.execute_script("scrollTo(0, 0)")
    assert driver.save_screenshot(str(path)), path


def feed(server: Server, game_id: str, token: str) -> list[dict[str, Any]]:
    """The player's own events, as the server gives them (redacted for that player)."""
    response = server.client.call("GET", f"/v1/games/{game_id}/events?after=0&limit=500", token)
    assert response.status_code == 200
    return response.get_json()["events"]


MOVES = {
    "card_played",
    "card_discarded",
    "card_drawn",
    "card_taken",
    "card_placed",
    "player_eliminated",
    "turn_timed_out",
    "seat_resigned",
}


def since_last_turn(events: list[dict[str, Any]], mine: int) -> list[dict[str, Any]]:
    """On the player's turn: the others' moves since the player's last turn (after its last move, or the deal)."""
    i = len(events) - 1
    while i >= 0 and events[i]["type"] != "round_dealt" and (events[i]["type"], events[i]["seat"]) != ("turn_started", mine):
        i -= 1
    if i < 0 or events[i]["type"] == "round_dealt":
        return []  # the player leads the round: nobody moved yet
    moves = []
    for event in reversed(events[:i]):
        if event["type"] == "round_dealt" or (event["type"] in MOVES and event["seat"] == mine):
            break
        if event["type"] in MOVES:
            moves.append(event)
    return moves[::-1]


def check_marks(server: Server, game_id: str, token: str, now: dict[str, Any]) -> int:
    """The page marks what the others did since the player's last turn, as the server's feed tells it: the cards they
    played (still on a palette) carry the mark, with words for screen readers; a line per seat names each card moved;
    the rule says who changed it.  How many cards were marked."""
    events = [e for e in feed(server, game_id, token) if e["n"] <= now["version"]]
    moves = since_last_turn(events, 0)
    on_palettes = {card for seat in now["seats"] for card in seat["palette"]}
    for seat in now["seats"]:
        theirs = [e for e in moves if e["seat"] == seat["seat"]]
        played = sorted(e["card"] for e in theirs if e["type"] == "card_played" and e["card"] in on_palettes)
        assert sorted(seat["marked"]) == played, (seat, theirs)
        assert all("new since your last turn" in said for said in seat["marked_said"]), seat["marked_said"]
        if theirs:
            assert seat["recent"] and seat["recent"].startswith(seat["name"] + " "), (seat, theirs)
            for event in theirs:
                assert event.get("card") is None or event["card"] in seat["recent"], (seat["recent"], event)
        else:
            assert seat["recent"] is None, seat
    rule_changes = [e for e in moves if e["type"] == "card_discarded" or (e["type"] == "card_placed" and e["to"] == "canvas")]
    if rule_changes:
        assert now["rule_new"] == f"new: set by {now['seats'][rule_changes[-1]['seat']]['name']}", now["rule_new"]
    else:
        assert now["rule_new"] is None
    return sum(len(seat["marked"]) for seat in now["seats"])


def check_places(view: dict[str, Any], end: dict[str, Any]) -> None:
    """The end lists the players by place, as the view's standing gives them, never by seat."""
    assert view["standing"] and sorted(view["standing"]) == list(range(len(view["seats"])))
    assert [seat for seat, _ in end["places"]] == view["standing"], (end["places"], view["standing"])
    assert end["places"][0][1] == 1 and view["seats"][view["standing"][0]]["name"] in end["scores"][0]
    assert "winner" in end["scores"][0]


def wait_for(driver: Any, condition: Callable[[dict[str, Any]], Any], seconds: float = 10) -> dict[str, Any]:
    """Wait until the table satisfies ``condition``; the table then."""
    WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(table(d)))
    return table(driver)


def stored_player(driver: Any) -> dict[str, Any]:
    return json.loads(driver.execute_script("return localStorage.getItem('red7.player')") or "null")


def console_problems(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


def fresh_page(driver: Any, url: str) -> None:
    """Load ``url`` as a new document (not a jump within the page already open) in a browser that stores nothing for it."""
    driver.get("about:blank")
    origin = urlsplit(url)._replace(path="", query="", fragment="").geturl()
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "local_storage"})
    driver.get(url)


def sign_up(driver: Any, name: str) -> None:
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
    field_ = driver.find_element(By.ID, "signup-name")
    field_.clear()
    field_.send_keys(name)
    driver.find_element(By.ID, "signup-submit").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "who-name").text == name)


def choose(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A sensible step: one that keeps the player winning, the turn's end first; one that puts them out only as a last resort."""
    staying = [s for s in steps if not s["eliminates"]]
    for wanted in (
        [s for s in staying if s["can_win"] and s["ends_turn"]],
        [s for s in staying if s["can_win"]],
        staying,
        [s for s in steps if s["type"] == "end_turn"],
        steps,
    ):
        if wanted:
            return wanted[0]
    raise AssertionError("no legal step to take")


def click_step(driver: Any, step: dict[str, Any]) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#steps button[data-index="{step["index"]}"]').click()


def new_game_against_two_greedy_ais(driver: Any) -> tuple[str, dict[str, Any]]:
    """From the home screen: 3 players (the default), both others greedy AIs (the default level), the basic variant."""
    assert driver.find_element(By.ID, "players").get_attribute("value") == "3"
    assert [s.get_attribute("value") for s in driver.find_elements(By.CSS_SELECTOR, "#seat-choices select")] == [
        "ai:greedy",
        "ai:greedy",
    ]
    driver.find_element(By.CSS_SELECTOR, 'input[name="variant"][value="basic"]').click()
    driver.find_element(By.ID, "create").click()
    shown = wait_for(driver, lambda t: t["screen"] == "table" and t["phase"] == "turn")
    return parse_qs(urlsplit(driver.current_url).fragment)["game"][0], shown


def play_out(driver: Any, on_turn: Callable[[dict[str, Any]], Any] | None = None) -> tuple[int, int, set[str]]:
    """Click legal steps until the end shows: the clicks, the eliminations confirmed, the live modes seen.

    ``on_turn`` is shown the table once at each of the player's turns, before the click."""
    clicks = confirmed = 0
    modes = set()
    deadline = time.monotonic() + GAME_SECONDS
    shown = -1
    while True:
        assert time.monotonic() < deadline, f"the game did not finish in {GAME_SECONDS} s: {table(driver)}"
        now = table(driver)
        assert now["problem"] is None, now["problem"]
        modes.add(now["live"])
        if now["outcome_shown"]:
            return clicks, confirmed, modes
        if not now["your_turn"] or not now["steps"] or any(s["disabled"] for s in now["steps"]):
            time.sleep(0.05)
            continue
        if on_turn is not None and now["version"] != shown:
            shown = now["version"]
            # The view may come before the stream's last events (the page reloads it on the first AI's move, and the
            # second AI's is already in it): the marks follow when those events are in.  Look until they are.
            settle = time.monotonic() + 5
            while True:
                try:
                    on_turn(table(driver))
                    break
                except AssertionError:
                    if time.monotonic() > settle:
                        raise
                    time.sleep(0.1)
            continue
        step = choose(now["steps"])
        try:
            click_step(driver, step)
        except StaleElementReferenceException:  # the view changed under the click: look again
            continue
        clicks += 1
        if step["eliminates"]:
            WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
            driver.find_element(By.ID, "confirm-yes").click()
            confirmed += 1
        acted_on = now["version"]
        WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda d, acted_on=acted_on: table(d)["version"] > acted_on)


# --- the tests ---------------------------------------------------------------------------------


def test_a_whole_game_against_two_greedy_ais_by_clicking(server: Server, browser: Any, tmp_path: Path) -> None:
    started = time.monotonic()
    fresh_page(browser, f"{server.base}/play")
    browser.get_log("browser")  # start both logs empty
    network_requests(browser)
    server.requests.clear()
    assert browser.execute_script("return [innerWidth, innerHeight]") == list(PHONE)

    sign_up(browser, "Ana")
    player = stored_player(browser)
    assert player["name"] == "Ana" and player["token"], "the token is kept in the browser"
    assert browser.execute_script("return document.body.dataset.screen") == "home"

    game_id, shown = new_game_against_two_greedy_ais(browser)
    assert [s["name"] for s in shown["seats"]] == ["Ana", "AI 1 (greedy)", "AI 2 (greedy)"]
    assert all(len(s["palette"]) >= 1 for s in shown["seats"]), "every palette is dealt a card"
    assert shown["rule"] in ("red", "orange", "yellow", "green", "blue", "indigo", "violet") and shown["leader"] != "—"
    assert shown["overflow"] <= 0, "nothing is wider than a phone's screen"

    # The warning before a step that puts you out: cancelled, nothing is sent.
    first = wait_for(browser, lambda t: t["your_turn"] and t["steps"] and not any(s["disabled"] for s in t["steps"]), 20)
    assert len(first["hand"]) >= 6, first["hand"]

    # On a phone the palettes come first and the steps right under them, all on the first screen; the hand below.
    screen = first_screen(browser)
    assert screen["viewport"] == list(PHONE) and screen["scrolled"] == [0, 0]
    assert inside(screen["seats"], screen["viewport"]) and inside(screen["step"], screen["viewport"]), screen
    assert screen["status"]["bottom"] <= screen["seats"]["top"] <= screen["seats"]["bottom"] <= screen["move"]["top"], screen
    assert screen["hand"]["top"] >= screen["move"]["bottom"], screen
    screenshot(browser, tmp_path / "phone-turn.png")
    fold = next(s for s in first["steps"] if s["type"] == "fold")
    assert fold["eliminates"] and "out of this round" in fold["text"]
    posts = len([r for r in server.requests if r.method == "POST"])
    click_step(browser, fold)
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
    assert "out of this round" in browser.find_element(By.ID, "confirm-title").text
    browser.find_element(By.ID, "confirm-no").click()
    assert not table(browser)["dialog_open"]
    assert len([r for r in server.requests if r.method == "POST"]) == posts, "a cancelled step sends nothing"

    # Play the game out by clicking legal steps, until the end shows; at each turn, what the AIs did is marked.
    marked: list[int] = []
    clicks, confirmed, modes = play_out(browser, lambda now: marked.append(check_marks(server, game_id, player["token"], now)))
    assert clicks >= 1 and confirmed <= 1, "one round: the player goes out at most once"
    assert any(marked), f"no AI card was ever marked in {len(marked)} turns: the check proves nothing"

    settled(browser)  # the last moves' cards have landed
    end = table(browser)
    view = server.client.view(game_id, player["token"])
    assert view["status"] == "finished" and view["phase"] == "finished"
    assert end["phase"] == "finished" and end["version"] == view["version"]
    winner = view["seats"][view["winner"]]["name"]
    assert winner in end["winner"] or (view["winner"] == 0 and end["winner"].startswith("You "))
    assert len(end["scores"]) == 3 and winner in next(s for s in end["scores"] if "winner" in s)
    assert end["scores_shown"]
    check_places(view, end)
    assert "the last one out" in end["scores"][1] and "the first one out" in end["scores"][2], end["scores"]
    screenshot(browser, tmp_path / "phone-end.png")
    assert end["status"] == ("Game over: you won!" if view["winner"] == 0 else f"Game over: {winner} won.")
    assert end["news"] > 0, "the moves were told as they came"
    assert end["overflow"] <= 0

    # Every action went with the view's version and a fresh idempotency key.
    actions = [r for r in server.requests if r.method == "POST" and r.path == f"/v1/games/{game_id}/actions"]
    assert len(actions) == clicks
    assert all(r.if_match and r.if_match.strip('"').isdigit() for r in actions)
    keys = [r.idempotency_key for r in actions]
    assert all(keys) and len(set(keys)) == len(keys)
    api_calls = [r for r in server.requests if r.path.startswith("/v1/") and r.path != "/v1/players"]
    streams = [r for r in api_calls if r.path.endswith("/stream") or r.path == "/v1/players/me/events"]
    assert all("ticket" in r.query and not r.authorized for r in streams), "a stream goes with a ticket, never the token"
    assert all(r.authorized for r in api_calls if r not in streams), "the token goes with every call but the streams"

    # Live updates: the ticketed stream, which EventSource reads without the token (never the long-poll).
    feeds = [r for r in server.requests if r.path.startswith(f"/v1/games/{game_id}/")]
    tickets = [r for r in feeds if r.path.endswith("/stream-tickets")]
    streams = [r for r in feeds if r.path.endswith("/stream")]
    assert tickets and all(r.method == "POST" and r.authorized for r in tickets)
    assert streams and all(r.query.get("ticket") and r.query.get("after") and not r.authorized for r in streams)
    assert len(streams) <= len(tickets), "each connection with a ticket of its own"
    assert not any(r.path.endswith("/events") for r in feeds)
    # The server ends each stream after stream_max_seconds (5 s here): the page renews it quietly, never showing
    # "Reconnecting…" in a healthy game; the game's end event turns the feed off (it may come just after the outcome).
    assert "stream" in modes and not {"poll", "slow", "retry"} & modes, modes
    wait_for(browser, lambda t: t["live"] == "over", 5)

    assert console_problems(browser) == []
    origins = {urlsplit(url)._replace(path="", query="", fragment="").geturl() for url in network_requests(browser)}
    assert origins == {server.base}, "the page loads nothing from anywhere else"

    # The decisions analysed (requestAnalysis: the workers' own queue), with the player's token; then the link to them.
    browser.find_element(By.ID, "analysis-button").click()
    WebDriverWait(browser, 60).until(lambda d: d.find_element(By.ID, "analysis-link").is_displayed())
    assert browser.find_element(By.ID, "analysis-state").text == "The analysis is ready: the replay shows it."
    asked = [r for r in server.requests if r.path == f"/v1/games/{game_id}/analysis"]
    assert asked[0].method == "POST" and asked[0].authorized

    # The replay of the game, from the link at the end: with the analysis' chart.
    browser.find_element(By.ID, "replay-link").click()
    WebDriverWait(browser, 10).until(lambda d: d.title == f"Red7 replay {game_id}")
    assert urlsplit(browser.current_url)._replace(fragment="").geturl() == f"{server.base}/v1/games/{game_id}/replay/view"
    browser.find_element(By.ID, "last").click()
    outcome = browser.find_element(By.ID, "outcome")
    assert outcome.is_displayed() and winner in outcome.text
    assert browser.find_element(By.ID, "analysis").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#accuracy li")) == 3
    assert console_problems(browser) == []
    assert time.monotonic() - started < 120


def test_the_share_link_seats_a_friend_and_signing_out_revokes_the_token(server: Server, browser: Any) -> None:
    fresh_page(browser, f"{server.base}/play")
    browser.get_log("browser")
    sign_up(browser, "Ana")
    ana = stored_player(browser)

    # A game with a friend: the second seat open.
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    Select(browser.find_element(By.ID, "seat-1")).select_by_value("human")
    browser.find_element(By.ID, "create").click()
    waiting = wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "waiting")
    assert waiting["status"] == "Waiting for 1 more player to join."
    game_id = parse_qs(urlsplit(browser.current_url).fragment)["game"][0]
    link = browser.find_element(By.ID, "share-link").get_attribute("value")
    code = server.client.view(game_id, ana["token"])["join_code"]
    assert link == f"{server.base}/play#join={game_id}:{code}"

    # A friend opens the link in a browser that knows no player: sign up, and the seat is theirs.
    fresh_page(browser, link)
    assert browser.find_element(By.ID, "signup-invite").is_displayed()
    sign_up(browser, "Bo")
    started = wait_for(browser, lambda t: t["screen"] == "table" and t["phase"] == "turn")
    assert [s["name"] for s in started["seats"]] == ["Ana", "Bo"]
    assert urlsplit(browser.current_url).fragment == f"game={game_id}", "the join code leaves the address bar"
    bo = stored_player(browser)
    view = server.client.view(game_id, ana["token"])
    assert view["status"] == "active" and view["seats"][1]["player_id"] == bo["id"]
    assert len(started["hand"]) == 7

    # Your games, then signing out: the token is revoked on the server, and forgotten here.
    browser.find_element(By.ID, "back").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#games li[data-game="{game_id}"]'))
    browser.find_element(By.ID, "sign-out").click()
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
    browser.find_element(By.ID, "confirm-yes").click()
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
    assert stored_player(browser) is None
    assert server.client.call("GET", "/v1/players/me", bo["token"]).status_code == 401
    assert console_problems(browser) == []


def test_on_a_server_without_stream_tickets_the_page_long_polls(server: Server, browser: Any) -> None:
    fresh_page(browser, f"{server.base}/play")
    browser.get_log("browser")
    server.without_tickets = True
    try:
        sign_up(browser, "Cy")
        server.requests.clear()
        game_id, _ = new_game_against_two_greedy_ais(browser)
        clicks, _, modes = play_out(browser)
    finally:
        server.without_tickets = False
    assert clicks >= 1
    assert "poll" in modes and "stream" not in modes, modes
    feeds = [r for r in server.requests if r.path.startswith(f"/v1/games/{game_id}/")]
    polls = [r for r in feeds if r.path.endswith("/events")]
    assert polls and all(r.authorized and r.query.get("wait") == ["25"] for r in polls)
    assert not any(r.path.endswith("/stream") for r in feeds)
    wait_for(browser, lambda t: t["live"] == "over", 5)  # the poll that reads the end may answer after the outcome
    # The one complaint: the 404 that told the page there are no tickets.
    problems = console_problems(browser)
    assert problems and all("/stream-tickets" in entry["message"] and "404" in entry["message"] for entry in problems)


def four_player_game(driver: Any) -> str:
    """From the home screen: a basic game against three greedy AIs; its id once the player's turn shows."""
    Select(driver.find_element(By.ID, "players")).select_by_value("4")
    driver.find_element(By.CSS_SELECTOR, 'input[name="variant"][value="basic"]').click()
    driver.find_element(By.ID, "create").click()
    ready = lambda t: t["screen"] == "table" and t["your_turn"] and t["steps"] and not any(s["disabled"] for s in t["steps"])  # noqa: E731
    wait_for(driver, ready, 20)
    return parse_qs(urlsplit(driver.current_url).fragment)["game"][0]


def test_four_players_on_a_phone_still_see_the_palettes_and_the_first_step_without_scrolling(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    fresh_page(browser, f"{server.base}/play")
    sign_up(browser, "Di")
    four_player_game(browser)
    screen = first_screen(browser)
    assert screen["viewport"] == list(PHONE)
    assert inside(screen["seats"], screen["viewport"]) and inside(screen["step"], screen["viewport"]), screen
    assert screen["seats"]["bottom"] <= screen["step"]["top"], "the steps come under the palettes"
    assert table(browser)["overflow"] <= 0
    screenshot(browser, tmp_path / "phone-four-players.png")
    dark = {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", dark)
    try:
        screenshot(browser, tmp_path / "phone-four-players-dark.png")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_on_a_desktop_the_table_is_side_by_side_and_the_end_ranks_by_place(server: Server, desktop: Any, tmp_path: Path) -> None:
    fresh_page(desktop, f"{server.base}/play")
    desktop.get_log("browser")
    sign_up(desktop, "Eve")
    game_id = four_player_game(desktop)
    eve = stored_player(desktop)
    screen = first_screen(desktop)
    assert screen["viewport"] == list(DESKTOP)
    assert inside(screen["seats"], screen["viewport"]) and inside(screen["step"], screen["viewport"]), screen
    assert screen["move"]["left"] >= screen["seats"]["right"], "the steps beside the palettes, not under them"
    assert screen["move"]["top"] <= screen["seats"]["top"] and screen["hand"]["left"] >= screen["seats"]["right"]
    screenshot(desktop, tmp_path / "desktop-turn.png")

    marked: list[int] = []
    play_out(desktop, lambda now: marked.append(check_marks(server, game_id, eve["token"], now)))
    end = table(desktop)
    view = server.client.view(game_id, eve["token"])
    check_places(view, end)
    assert len(end["places"]) == 4 and [place for _, place in end["places"]] == [1, 2, 3, 4]
    assert table(desktop)["overflow"] <= 0
    screenshot(desktop, tmp_path / "desktop-end.png")
    assert console_problems(desktop) == []


def test_the_end_of_an_advanced_game_ranks_by_points_not_by_seat(server: Server, browser: Any, tmp_path: Path) -> None:
    """A game of four random AIs (advanced: scored rounds), watched to its end by a player who holds no seat."""
    owner = server.client.player("Fay")["token"]
    for _ in range(5):  # the places of four random AIs are in seat order once in 24 games or so: then another
        game_id = server.client.game(owner, [{"kind": "ai", "level": "random"}] * 4, variant="advanced")["id"]
        deadline = time.monotonic() + GAME_SECONDS
        while (view := server.client.view(game_id))["status"] != "finished":
            assert time.monotonic() < deadline, f"the AIs did not finish game {game_id} in {GAME_SECONDS} s"
            time.sleep(0.2)
        if view["standing"] != [0, 1, 2, 3]:
            break
    assert view["standing"] != [0, 1, 2, 3], "five games all ended in seat order"

    fresh_page(browser, f"{server.base}/play")
    sign_up(browser, "Gus")
    browser.get(f"{server.base}/play#game={game_id}")
    end = wait_for(browser, lambda t: t["screen"] == "table" and t["outcome_shown"])
    check_places(view, end)
    scores = [view["seats"][seat]["score"] for seat in view["standing"]]
    assert scores == sorted(scores, reverse=True)
    for index, ((seat, place), text) in enumerate(zip(end["places"], end["scores"], strict=True)):
        points = view["seats"][seat]["score"]
        assert f"{points} point" in text, text
        before = view["seats"][end["places"][index - 1][0]]["score"] if index > 1 else None
        # Players who scored nothing are equal under docs/rules.md 25: they share a place.
        assert place == (end["places"][index - 1][1] if points == 0 and before == 0 else index + 1), end["places"]
    screenshot(browser, tmp_path / "phone-end-advanced.png")


def test_a_stream_another_tab_took_over_falls_back_to_a_slow_poll_instead_of_a_reconnection_loop(browser: Any) -> None:
    """A player may hold two waits open here (RED7_MAX_WAITS_PER_TOKEN=2): what one tab of /play holds, its player
    feed and its game's stream.  A second tab's two take the first tab's slots, whichever of them opens first, and
    the first is told `event: replaced`.  Reconnecting would take the second's slot back, and so on for ever: the
    first tab reads the feed now and then without waiting instead (a plain read holds no slot), and keeps up.

    (With one slot, a tab's own feed and game stream took it from each other in the order they happened to open: the
    newer tab kept its stream or fell to slow reads by chance, which CI's loaded host once showed.)"""
    # Streams last longer than the test (two slow reads 10 s apart and more): a renewal would count as a third stream.
    with serving(stream_max_seconds=120.0, max_waits_per_token=2) as server:
        fresh_page(browser, f"{server.base}/play")
        sign_up(browser, "Hal")
        hal = stored_player(browser)
        Select(browser.find_element(By.ID, "players")).select_by_value("2")
        browser.find_element(By.CSS_SELECTOR, 'input[name="variant"][value="basic"]').click()
        browser.find_element(By.ID, "create").click()
        wait_for(browser, lambda t: t["screen"] == "table" and t["live"] == "stream" and t["your_turn"], 20)
        game_id = parse_qs(urlsplit(browser.current_url).fragment)["game"][0]
        first_tab = browser.current_window_handle
        streams = lambda: [r for r in server.requests if r.path == f"/v1/games/{game_id}/stream"]  # noqa: E731
        slow_polls = lambda: [r for r in server.requests if r.path == f"/v1/games/{game_id}/events" and "wait" not in r.query]  # noqa: E731
        WebDriverWait(browser, 10, poll_frequency=0.05).until(lambda d: len(streams()) == 1)

        # The same player opens the game in a second tab: its feed and its stream take both slots.
        browser.switch_to.new_window("tab")
        try:
            browser.get(f"{server.base}/play#game={game_id}")
            wait_for(browser, lambda t: t["screen"] == "table" and t["live"] == "stream")
            time.sleep(3)  # a loop would have reconnected several times by now (each after half a second)
            assert len(streams()) == 2, f"{len(streams())} streams: the tabs took the slot from each other"
            assert slow_polls(), "the first tab reads the feed without waiting"
            assert table(browser)["live"] == "stream", "the newer tab keeps its stream"

            # The game moves on (the player plays from elsewhere, the AI answers): the first tab reads it in.
            view = server.client.view(game_id, hal["token"])
            step = choose([{**s, "index": i} for i, s in enumerate(view["legal_steps"])])
            sent = {k: step[k] for k in ("type", "card", "seat", "to") if k in step}
            acted = server.client.act(game_id, hal["token"], [sent], headers={"If-Match": f'"{view["version"]}"'})
            assert acted.status_code == 200, acted.get_json()
            deadline = time.monotonic() + 10
            while (moved := server.client.view(game_id, hal["token"]))["status"] == "active" and not moved["legal_steps"]:
                assert time.monotonic() < deadline, "the AI did not answer"
                time.sleep(0.1)
            wait_for(browser, lambda t: t["version"] == moved["version"], 10)  # the second tab, live
            WebDriverWait(browser, 35, poll_frequency=0.2).until(  # two reads 10 s apart: the one that takes it in, the next
                lambda d: any(int(r.query["after"][0]) >= moved["version"] for r in slow_polls())
            )
            assert len(streams()) == 2
        finally:
            browser.close()
            browser.switch_to.window(first_tab)
        # Back in the first tab, shown again: it caught up, and it is live again (the other tab is gone).
        caught_up = wait_for(browser, lambda t: t["version"] >= moved["version"], 10)
        assert caught_up["problem"] is None
        assert console_problems(browser) == []
