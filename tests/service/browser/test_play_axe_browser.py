"""Every screen of /play and the replay viewer checked by axe-core (tests/harness/accessibility.py), in English, Polish
and Russian, at a phone's size and a desktop's: no serious or critical violation, and no control shown whose text is
wider than its box (``scrollWidth <= clientWidth``). The test prints the counts by impact for each screen, language and
size.

The screens: sign-up (signed out); your games and a new game; the lobby; a profile; a ladder; your mistakes; a
player's statistics and everyone's; a game in play at your turn, and with a card of the hand chosen; a finished game's
end; a table with another person and its talk (a held message among it), and the report dialog open on one of their
messages; the moderation screen (the player is a moderator, a report waits); a player's archive and the live games
to watch; the replay viewer of that game. The player's language is set through the API (``PATCH /v1/players/me``) as
the page's language switch sets it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.accessibility import axe_source, by_impact, violations
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

from tests.service.browser.test_play_browser import Server, fresh_page, serving  # noqa: E402
from tests.service.browser.test_play_lobby_browser import api_player, play_to_the_end, signed_in, unique  # noqa: E402

LANGUAGES = ("en", "pl", "ru")
SIZES: dict[str, Callable[[], Any]] = {"phone": phone_chromium, "desktop": desktop_chromium}
SETTLE = 0.6  # a screen's reads answer in milliseconds here; this lets them land before axe looks


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def games(server: Server) -> dict[str, Any]:
    """A player with a handle, one game of theirs finished (against an AI) and one in play at their turn."""
    player = api_player(server, "Ana", f"ana_{unique()}")
    ai = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
    finished = server.client.game(player["token"], ai, variant="basic")
    play_to_the_end(server, finished["id"], player["token"])
    playing = server.client.game(player["token"], [*ai, {"kind": "ai", "level": "random"}], variant="basic", turn_timeout=600)
    deadline = time.monotonic() + 20
    while not server.client.view(playing["id"], player["token"])["legal_steps"]:
        assert time.monotonic() < deadline, "the player's turn never came"
        time.sleep(0.05)
    # A table with another person, who talks; the player's own text held back; a report of theirs for the moderators.
    bo = api_player(server, "Bo", f"bo_{unique()}")
    talking = server.client.game(player["token"], [{"kind": "human"}] * 2, variant="basic", turn_timeout=600)
    server.client.call("POST", f"/v1/games/{talking['id']}/join", bo["token"], json={"code": talking["join_code"]})
    said = [
        server.client.call("POST", f"/v1/games/{talking['id']}/talk", token, json=body).get_json()
        for token, body in (
            (bo["token"], {"phrase": "good_luck"}),
            (player["token"], {"text": "c4zz0"}),
            (bo["token"], {"text": "hurry up"}),
        )
    ]
    report = {
        "player": bo["id"],
        "reason": "harassment",
        "game_id": talking["id"],
        "message_id": said[2]["id"],
        "comment": "rude",
    }
    assert server.client.call("POST", "/v1/reports", player["token"], json=report).status_code == 201
    assert server.runtime.safety is not None
    server.runtime.safety.moderation.set_role(server.runtime.accounts.find(player["id"]), True)
    return {"player": player, "finished": finished["id"], "playing": playing["id"], "talking": talking["id"]}


def screens(base: str, games: dict[str, Any], language: str) -> list[tuple[str, str, str]]:
    """(name, address, what the page's body says it shows) for each screen, each address in ``language`` as the
    page's own links keep it (one without ?lang= opens in English, then goes to the visit's language: a page that
    shows a screen before that switch lands is not the one to check)."""
    play, handle = f"{base}/play?lang={language}", games["player"]["handle"]
    return [
        ("home", f"{play}#play", "home"),
        ("lobby", f"{play}#lobby", "lobby"),
        ("profile", f"{play}#player={handle}", "profile"),
        ("ladder", f"{play}#ladder=basic", "ladder"),
        ("mistakes", f"{play}#mistakes", "mistakes"),
        ("stats", f"{play}#stats={handle}", "stats"),
        ("everyone's stats", f"{play}#stats", "stats"),
        ("table", f"{play}#game={games['playing']}", "table"),
        ("end", f"{play}#game={games['finished']}", "table"),
        ("talk", f"{play}#game={games['talking']}", "table"),
        ("moderation", f"{play}#moderation", "moderation"),
        ("archive", f"{play}#archive={handle}", "archive"),
        ("watch", f"{play}#watch", "watch"),
    ]


#: What says a screen is drawn, for those that read more than the page's first answers.
READY = {
    "moderation": "return !document.getElementById('mod-body').hidden",
    "archive": "const l = document.getElementById('archive-games'); return !!l && !!l.dataset.loaded",
    "watch": "const l = document.getElementById('watch-games'); return !!l && !!l.dataset.loaded",
    "stats": "return Number(document.getElementById('stats').dataset.loaded || 0) > 0",
    "everyone's stats": "return Number(document.getElementById('stats').dataset.loaded || 0) > 0",
}

#: The controls shown whose text is wider than their box (cut off, or spilling out), as "tag#id: text"; a label only
#: for screen readers (.sr-only: one pixel wide on purpose) is no control shown.
CLIPPED = """
const shown = (el) => (el.offsetParent !== null || getComputedStyle(el).position === "fixed") && !el.closest(".sr-only");
return Array.from(document.querySelectorAll("button, a[href], label, select, summary, .clock"))
  .filter((el) => shown(el) && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
  .map((el) => `${el.tagName.toLowerCase()}#${el.id}: ${el.textContent.trim().slice(0, 40)}`);
"""


def check(driver: Any, source: str, where: str, counts: dict[str, dict[str, int]], failures: list[str]) -> None:
    """axe's look at the screen shown (and its picture in ``$RED7_SCREENSHOTS``, when that names a folder)."""
    folder = os.environ.get("RED7_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{where.replace(' ', '-')}.png"))
    found = violations(driver, source)
    counts[where] = by_impact(found)
    failures += [f"{where}: clipped {clipped}" for clipped in driver.execute_script(CLIPPED)]
    for violation in found:
        if violation["impact"] in ("serious", "critical"):
            targets = "; ".join(n["target"] for n in violation["nodes"][:4])
            failures.append(f"{where}: {violation['impact']} {violation['id']} ({violation['help']}): {targets}")


@pytest.mark.parametrize("size", list(SIZES))
def test_every_screen_has_no_serious_or_critical_violation(server: Server, games: dict[str, Any], size: str) -> None:
    source = axe_source()
    counts: dict[str, dict[str, int]] = {}
    failures: list[str] = []
    player = games["player"]
    with SIZES[size]() as driver:
        for language in LANGUAGES:
            server.client.call("PATCH", "/v1/players/me", player["token"], json={"language": language})
            fresh_page(driver, f"{server.base}/play?lang={language}")  # signed out: the sign-up screen
            WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
            check(driver, source, f"{size} {language} signup", counts, failures)
            signed_in(driver, server.base, player, "play")
            for name, address, shown in screens(server.base, games, language):
                driver.get("about:blank")  # each screen a page of its own, not a jump within the one open
                driver.get(address)
                WebDriverWait(driver, 10).until(lambda d, s=shown: d.execute_script("return document.body.dataset.screen") == s)
                time.sleep(SETTLE)
                if name in READY:  # a screen of a few reads: drawn once they answered
                    WebDriverWait(driver, 10).until(lambda d, r=READY[name]: d.execute_script(r))
                assert driver.execute_script("return document.documentElement.lang") == language, (name, language)
                check(driver, source, f"{size} {language} {name}", counts, failures)
                if name == "table":  # a card of the hand chosen: its choices listed, the places it goes glowing
                    driver.execute_script("document.querySelector('#hand [data-tappable=\"true\"]').click()")
                    menu = "return !document.querySelector('#card-menu').hidden"
                    WebDriverWait(driver, 5).until(lambda d, m=menu: d.execute_script(m))
                    check(driver, source, f"{size} {language} table-card", counts, failures)
                if name == "talk":  # the talk drawn, then the report dialog open on the other player's message
                    talk = "return document.querySelectorAll('#talk-list li').length === 3"
                    WebDriverWait(driver, 10).until(lambda d, m=talk: d.execute_script(m))
                    check(driver, source, f"{size} {language} talk-drawn", counts, failures)
                    driver.execute_script("document.querySelector('#talk-list [data-report]').click()")
                    WebDriverWait(driver, 5).until(
                        lambda d: d.execute_script("return document.getElementById('report-dialog').open")
                    )
                    check(driver, source, f"{size} {language} report", counts, failures)
                    driver.execute_script("document.getElementById('report-cancel').click()")
            driver.get(f"{server.base}/v1/games/{games['finished']}/replay/view?lang={language}")
            time.sleep(SETTLE)
            check(driver, source, f"{size} {language} viewer", counts, failures)
    print(f"\naxe-core violations (elements) by impact, {size}:")
    for where, count in counts.items():
        print(f"  {where:<26} " + "  ".join(f"{impact} {n}" for impact, n in count.items()))
    assert len(counts) == len(LANGUAGES) * 18
    assert not failures, "\n".join(failures)
