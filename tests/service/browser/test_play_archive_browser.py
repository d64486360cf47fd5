"""A player's archive (``#archive=``, listPlayerGames) and the live games (``#watch``, listLiveGames) in /play, in a real
headless Chromium at a phone's (390x844) and a desktop's size: reached from a profile and from your games, paged by the
cursor, filtered as the API filters, each game linking to its replay in the viewer; the live games with their watcher
counts, one opened as a spectator; both screens' modules fetched only when first opened; the words in Polish too.

The finished games are stored as the archive's tests store them (``tests/harness/archive.py``: bots' games appended
and listed as finished), the game in play is made through the API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from engine import Variant
from tests.harness.archive import START_MS, payloads, store_finished
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

from tests.service.browser.test_play_browser import Server, console_problems, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, click, go, signed_in, unique  # noqa: E402

SIZES = {"phone": phone_chromium, "desktop": desktop_chromium}
GAMES = 25  # more than a page (20: PAGE in service/webclient/play/archive.js)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def world(server: Server) -> dict[str, Any]:
    """Ana with a handle and 25 finished games against Bo and AIs; a game of hers in play at her turn; Cy to watch."""
    ana = api_player(server, "Ana", f"ana_{unique()}")
    bo = api_player(server, "Bo", f"bo_{unique()}")
    cy = api_player(server, "Cy", f"cy_{unique()}")
    for n in range(GAMES):
        seats: list[tuple[str, str] | str] = [(ana["id"], "Ana"), (bo["id"], "Bo"), *(["greedy"] * (n % 3))]
        envelopes = payloads(
            seats, variant=Variant(("basic", "advanced")[n % 2]), action_rules=n % 4 > 1, rated=False, seed=400 + n,
            at_ms=START_MS + n * 3_600_000,
        )  # fmt: skip
        store_finished(server.runtime, f"g_brarch{n:03d}_{unique()}", envelopes)
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
    playing = server.client.game(ana["token"], seats, variant="basic", turn_timeout=600)
    deadline = time.monotonic() + 20
    while not server.client.view(playing["id"], ana["token"])["legal_steps"]:
        assert time.monotonic() < deadline, "the player's turn never came"
        time.sleep(0.05)
    return {"ana": ana, "bo": bo, "cy": cy, "playing": playing["id"]}


ARCHIVE = """
const q = (s) => document.querySelector(s);
const list = q("#archive-games");
return {
  screen: document.body.dataset.screen, heading: q("#archive-h") ? q("#archive-h").textContent : null,
  loaded: list ? Number(list.dataset.loaded || 0) : 0,
  games: list ? Array.from(list.querySelectorAll(":scope > li")).map((li) => ({
    game: li.dataset.game, result: li.dataset.result, link: li.querySelector("a.replay").getAttribute("href"),
    seats: li.querySelectorAll(".seats li").length,
  })) : [],
  more: !!q("#archive-more") && !q("#archive-more").hidden,
  none: !!q("#archive-none") && !q("#archive-none").hidden,
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  modules: performance.getEntriesByType("resource").map((e) => e.name).filter((n) => /play\\/(archive|watch)\\.js$/.test(n)),
};
"""

WATCH = """
const q = (s) => document.querySelector(s);
const list = q("#watch-games");
return {
  screen: document.body.dataset.screen, heading: q("#watch-h") ? q("#watch-h").textContent : null,
  loaded: list ? Number(list.dataset.loaded || 0) : 0,
  games: list ? Array.from(list.querySelectorAll(":scope > li")).map((li) => ({
    game: li.dataset.game, watchers: Number(li.dataset.watchers), said: li.querySelector(".watchers").textContent,
  })) : [],
  problem: q("#problem").hidden ? null : q("#problem").textContent,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


def read(driver: Any, script: str) -> dict[str, Any]:
    return driver.execute_script(script)


def until(driver: Any, script: str, condition: Any, seconds: float = 10) -> dict[str, Any]:
    WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(read(d, script)))
    return read(driver, script)


def archive_ids(server: Server, ref: str, **query: str) -> list[str]:
    """Every game id listPlayerGames lists for ``query``, page after page."""
    ids, cursor = [], None
    while True:
        params = {**query, "limit": "100", **({"cursor": cursor} if cursor else {})}
        body = server.client.call("GET", f"/v1/players/{ref}/archive", query_string=params).get_json()
        ids += [g["game_id"] for g in body["games"]]
        cursor = body["next_cursor"]
        if cursor is None:
            return ids


@pytest.mark.parametrize("size", list(SIZES))
def test_a_players_archive_from_their_profile_paged_filtered_and_linking_to_replays(
    server: Server, world: dict[str, Any], size: str
) -> None:
    ana, cy = world["ana"], world["cy"]
    everything = archive_ids(server, ana["handle"])
    assert len(everything) == GAMES
    with SIZES[size]() as driver:
        signed_in(driver, server.base, cy, f"player={ana['handle']}")
        until(driver, ARCHIVE, lambda s: s["screen"] == "profile")
        assert read(driver, ARCHIVE)["modules"] == []  # not fetched before the screen is first opened
        click(driver, "#profile-archive")
        first = until(driver, ARCHIVE, lambda s: s["screen"] == "archive" and s["loaded"] > 0)
        assert first["heading"] == f"Finished games of @{ana['handle']}" and first["problem"] is None
        assert [g["game"] for g in first["games"]] == everything[:20] and first["more"]
        assert all(g["link"] == f"/v1/games/{g['game']}/replay/view" and g["seats"] >= 2 for g in first["games"])
        assert len(first["modules"]) == 1 and first["overflow"] <= 0, first
        click(driver, "#archive-more")
        paged = until(driver, ARCHIVE, lambda s: len(s["games"]) == GAMES)
        assert [g["game"] for g in paged["games"]] == everything and not paged["more"]
        # Filters, as the API takes them: the games won, advanced, with card actions; then none at all.
        driver.execute_script(
            "const f = document.getElementById('archive-filters');"
            "f.result.value = 'won'; f.variant.value = 'advanced'; f.action_rules.value = 'true';"
            "f.requestSubmit();"
        )
        wanted = archive_ids(server, ana["handle"], result="won", variant="advanced", action_rules="true")
        filtered = until(driver, ARCHIVE, lambda s: s["loaded"] > paged["loaded"])
        assert [g["game"] for g in filtered["games"]] == wanted
        assert all(g["result"] == "won" for g in filtered["games"]) and filtered["none"] == (not wanted)
        driver.execute_script(
            "const f = document.getElementById('archive-filters'); f.since.value = '2030-01-01'; f.requestSubmit();"
        )
        empty = until(driver, ARCHIVE, lambda s: s["loaded"] > filtered["loaded"])
        assert empty["games"] == [] and empty["none"] and not empty["more"]
        # A game's link opens its replay in the viewer.
        driver.execute_script("const f = document.getElementById('archive-filters'); f.reset(); f.requestSubmit();")
        until(driver, ARCHIVE, lambda s: len(s["games"]) == 20)
        click(driver, f"#archive-games li[data-game='{everything[0]}'] a.replay")
        WebDriverWait(driver, 10).until(lambda d: f"/v1/games/{everything[0]}/replay/view" in d.current_url)
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        assert everything[0] in driver.title
        assert console_problems(driver) == []


@pytest.mark.parametrize("size", list(SIZES))
def test_your_own_archive_from_your_games_in_polish(server: Server, world: dict[str, Any], size: str) -> None:
    ana = world["ana"]
    with SIZES[size]() as driver:
        signed_in(driver, server.base, ana, "play")
        driver.get(f"{server.base}/play?lang=pl#play")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "home")
        click(driver, "#home-archive")
        shown = until(driver, ARCHIVE, lambda s: s["screen"] == "archive" and s["loaded"] > 0)
        assert shown["heading"] == "Twoje zakończone gry" and len(shown["games"]) == 20 and shown["overflow"] <= 0
        assert driver.execute_script("return document.querySelector('#archive-more').textContent") == "Pokaż więcej"
        assert console_problems(driver) == []


@pytest.mark.parametrize("size", list(SIZES))
def test_the_live_games_with_their_watchers_and_one_watched_as_a_spectator(
    server: Server, world: dict[str, Any], size: str
) -> None:
    cy, playing = world["cy"], world["playing"]
    with SIZES[size]() as driver:
        signed_in(driver, server.base, cy, "play")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "home")
        click(driver, "#nav a[data-nav='watch']")
        listed = until(driver, WATCH, lambda s: s["screen"] == "watch" and s["loaded"] > 0)
        assert listed["heading"] == "Live games to watch" and listed["problem"] is None and listed["overflow"] <= 0
        api = server.client.call("GET", "/v1/live-games", query_string={"limit": "50"}).get_json()["games"]
        assert playing in [g["game"] for g in listed["games"]]
        assert {g["game"] for g in listed["games"]} == {g["id"] for g in api}
        for game in listed["games"]:
            assert game["said"] == f"Watching: {game['watchers']}"
        click(driver, f"#watch-{playing}")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "table")
        deadline = time.monotonic() + 15
        while True:  # the spectator's feed counts them among the game's watchers
            api = server.client.call("GET", "/v1/live-games", query_string={"limit": "50"}).get_json()["games"]
            watchers = next(g["watchers"] for g in api if g["id"] == playing)
            if watchers >= 1:
                break
            assert time.monotonic() < deadline, "the spectator was never counted"
            time.sleep(0.2)
        assert driver.execute_script("return document.querySelectorAll('#hand [data-tappable=\"true\"]').length") == 0
        go(driver, "watch")
        again = until(driver, WATCH, lambda s: s["screen"] == "watch" and s["loaded"] > listed["loaded"])
        # Back on the list, the spectator has left the table: whether their lease has ended yet is the server's timing
        # (a closed feed ends it at once, a dropped one when it runs out), so the list is read again, not counted on.
        shown = next(g for g in again["games"] if g["game"] == playing)
        assert shown["said"] == f"Watching: {shown['watchers']}"
        assert console_problems(driver) == []
