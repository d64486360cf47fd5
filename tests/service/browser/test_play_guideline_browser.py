"""App Store Review Guideline 1.2 (user-generated content) walked in /play as a reviewer walks it, in a real headless
Chromium (issue 36): sign up accepting the terms; a name with an offensive word refused; at a table with another
person, a message with one held back (its author sees it marked, the other player never gets it); a message of the
other player reported, with a reason and a comment, and confirmed; its author blocked from the message, their
messages gone at once; a moderator (granted as ``red7 mod grant`` grants it) sees the report with its evidence on the
moderation screen and bans the author; the author's token answers the ban's problem, an AI plays their seat, the
audit log shows the ban, and the reporter is told; then the moderator lifts the ban.  Also: table talk is off (no panel) at
an AI-only table and under your own "nobody" setting, and the long-poll brings it where the server has no stream.
Served as ``red7 serve --embedded`` serves it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.browser import phone_chromium, skip_without_chromium

skip_without_chromium()

from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.service.browser.test_play_browser import (  # noqa: E402
    Server,
    fresh_page,
    screenshot,
    serving,
    stored_player,
)
from tests.service.browser.test_play_lobby_browser import console_problems_but, signed_in, unique  # noqa: E402

TERMS = "2026-11"
WAIT = 30  # seconds: the machine running the tests may be busy; each step takes well under one


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(terms_version=TERMS, stream_max_seconds=5.0) as state:
        yield state


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with phone_chromium() as driver:
        yield driver


def js(driver: Any, script: str) -> Any:
    return driver.execute_script(script)


def until(driver: Any, script: str) -> Any:
    """Wait until ``script`` (a JS expression) is truthy, and return it."""
    return WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(f"return {script}"))


def problem_title(driver: Any) -> str:
    until(driver, "!document.getElementById('problem').hidden")
    return str(js(driver, "return document.getElementById('problem-title').textContent"))


def api_player(server: Server, name: str) -> dict[str, Any]:
    body = {"name": name, "handle": f"{name.lower()}_{unique()}", "accept_terms": TERMS}
    made = server.client.call("POST", "/v1/players", json=body)
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def talk_of(driver: Any) -> list[dict[str, Any]]:
    return list(
        js(
            driver,
            """return Array.from(document.querySelectorAll('#talk-list li')).map((li) => ({
                 id: li.dataset.id, author: li.dataset.author, held: li.dataset.held === 'true',
                 words: li.querySelector('.words').textContent }))""",
        )
    )


def test_a_reviewer_walks_guideline_1_2(server: Server, browser: Any, tmp_path: Path) -> None:
    # Sign up: the terms must be accepted, and a name with an offensive word is refused.
    fresh_page(browser, f"{server.base}/play?lang=en")
    until(browser, "document.body.dataset.screen === 'signup' && !document.getElementById('signup-terms').hidden")
    browser.find_element(By.ID, "signup-terms-accept").click()
    name = browser.find_element(By.ID, "signup-name")
    name.send_keys("F.u.c.k")
    browser.find_element(By.ID, "signup-submit").click()
    assert problem_title(browser) == "This name holds a word that is not allowed"
    browser.find_element(By.ID, "problem-close").click()
    name.clear()
    name.send_keys("Ana")
    browser.find_element(By.ID, "signup-submit").click()
    until(browser, "document.getElementById('who-name').textContent === 'Ana'")
    ana = stored_player(browser)
    assert server.runtime.safety.moderation.store.standing(ana["id"]).terms == TERMS

    # A table with another person: the talk is on, its phrases in the reader's language.
    bo = api_player(server, "Bo")
    game = server.client.game(ana["token"], [{"kind": "human"}] * 2, variant="basic", turn_timeout=600)
    joined = server.client.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    browser.get(f"{server.base}/play#game={game['id']}")
    until(browser, "!document.getElementById('talk-panel').hidden && !document.getElementById('talk-on').hidden")
    until(browser, "document.getElementById('table').dataset.live === 'stream'")
    phrases = js(browser, "return Array.from(document.querySelectorAll('#talk-phrases button')).map((b) => b.textContent)")
    assert phrases == ["Good luck!", "Well played!", "Your move.", "Thinking…"]
    assert js(browser, "return document.getElementById('talk-text').maxLength") == 200

    # Ana says a phrase and a text the filter holds back: she sees it marked held; Bo never gets it.
    browser.find_element(By.CSS_SELECTOR, "#talk-phrases [data-phrase=good_luck]").click()
    until(browser, "document.querySelectorAll('#talk-list li').length === 1")
    browser.find_element(By.ID, "talk-text").send_keys("you play like a c4zz0")
    browser.find_element(By.CSS_SELECTOR, "#talk-form button[type=submit]").click()
    until(browser, "document.querySelectorAll('#talk-list li[data-held]').length === 1")
    assert [m["words"] for m in talk_of(browser)] == ["Good luck!", "you play like a c4zz0"]
    heard = server.client.call("GET", f"/v1/games/{game['id']}/talk", bo["token"]).get_json()["messages"]
    assert [m["words"] for m in heard] == ["Good luck!"]

    # Bo talks: his messages come live; Ana reports one, with a reason and a comment, and is told it was sent.
    for body in ({"text": "you are pathetic, quit now"}, {"phrase": "your_move"}):
        said = server.client.call("POST", f"/v1/games/{game['id']}/talk", bo["token"], json=body)
        assert said.status_code == 200, said.get_json()
    until(browser, f"document.querySelectorAll('#talk-list li[data-author=\"{bo['id']}\"]').length === 2")
    insult = next(m for m in talk_of(browser) if m["words"] == "you are pathetic, quit now")
    screenshot(browser, tmp_path / "phone-table-talk.png")
    assert js(browser, "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    browser.find_element(By.CSS_SELECTOR, f"#talk-list [data-report='{insult['id']}']").click()
    until(browser, "document.getElementById('report-dialog').open")
    assert js(browser, "return document.getElementById('report-quote').textContent") == insult["words"]
    Select(browser.find_element(By.ID, "report-reason")).select_by_value("harassment")
    browser.find_element(By.ID, "report-comment").send_keys("insults at the table")
    browser.find_element(By.ID, "report-send").click()
    until(browser, "!document.getElementById('report-done').hidden")
    assert "A moderator looks at it within 24 hours" in js(browser, "return document.getElementById('notice').textContent")
    browser.find_element(By.ID, "report-ok").click()
    until(browser, "!document.getElementById('report-dialog').open")

    # Ana blocks Bo from his message: his messages go at once, and the server no longer gives them to her.
    browser.find_element(By.CSS_SELECTOR, f"#talk-list [data-block='{bo['id']}']").click()
    until(browser, f"document.querySelectorAll('#talk-list li[data-author=\"{bo['id']}\"]').length === 0")
    assert [m["author"] for m in talk_of(browser)] == [ana["id"], ana["id"]]
    kept = server.client.call("GET", f"/v1/games/{game['id']}/talk", ana["token"]).get_json()["messages"]
    assert {m["author_id"] for m in kept} == {ana["id"]}

    # A moderator, granted as the operator's CLI grants it, sees the report with its evidence and bans Bo.
    assert server.runtime.ratings.hidden_because(bo["id"]) == (), "Bo is on the leaderboards before the ban"
    cy = api_player(server, "Cy")
    server.runtime.safety.moderation.set_role(server.runtime.accounts.find(cy["id"]), True)
    signed_in(browser, server.base, cy, "play")
    until(browser, "!document.getElementById('nav-moderation').hidden")
    browser.find_element(By.ID, "nav-moderation").click()
    until(browser, "document.body.dataset.screen === 'moderation' && !document.getElementById('mod-body').hidden")
    reports = server.client.call("GET", "/v1/reports", cy["token"]).get_json()["reports"]
    mine = next(r for r in reports if r["reported_id"] == bo["id"])
    item = f"#mod-queue > li[data-report='{mine['id']}']"
    text = js(browser, f'return document.querySelector("{item}").textContent')
    assert "Harassment" in text and f"reported: Bo (@{bo['handle']})" in text and "waiting 0 minutes" in text
    assert "you are pathetic, quit now" in text and "insults at the table" in text
    held = [r for r in reports if r["reported_id"] == ana["id"]]  # the held message waits for review too
    assert held and js(browser, f"return !!document.querySelector(\"#mod-queue > li[data-report='{held[0]['id']}']\")")
    screenshot(browser, tmp_path / "phone-moderation.png")
    Select(browser.find_element(By.ID, f"mod-action-{mine['id']}")).select_by_value("ban")
    browser.find_element(By.ID, f"mod-why-{mine['id']}").send_keys("insults after a warning")
    browser.find_element(By.CSS_SELECTOR, f"{item} button[type=submit]").click()
    until(browser, "document.getElementById('confirm').open")
    browser.find_element(By.ID, "confirm-yes").click()
    until(browser, f"!document.querySelector(\"{item}\") && !!document.querySelector('#mod-log tr[data-action=ban]')")
    row = js(browser, "return document.querySelector('#mod-log tr[data-action=ban]').textContent")
    assert "Ban" in row and "Bo" in row and "insults after a warning" in row and "Cy" in row  # names, their ids beside
    ids = js(
        browser, "return Array.from(document.querySelectorAll('#mod-log tr[data-action=ban] td[data-id]')).map((td) => td.title)"
    )
    assert ids == [cy["id"], bo["id"]]

    # Bo's token answers the ban's problem, he is off every leaderboard, an AI plays his seat, and Ana hears that her
    # report was handled.
    banned = server.client.call("GET", "/v1/players/me", bo["token"])
    assert banned.status_code == 403 and banned.get_json()["code"] == "player_banned"
    assert server.runtime.ratings.hidden_because(bo["id"]) == ("banned",), "off every leaderboard"
    deadline = time.monotonic() + WAIT
    while not server.client.view(game["id"], ana["token"])["seats"][1]["resigned"]:
        assert time.monotonic() < deadline, "no AI took the banned player's seat"
        time.sleep(0.1)
    notices = server.client.call("GET", "/v1/players/me/notices", ana["token"]).get_json()["notices"]
    assert [n["code"] for n in notices] == ["notice.report_handled"]
    signed_in(browser, server.base, ana, "play")  # Ana reads it on her games' screen
    until(browser, "!document.getElementById('notices-panel').hidden")
    told = js(browser, "return document.querySelector('#notices li[data-code=\"notice.report_handled\"]').textContent")
    assert "A moderator handled your report" in told

    # The moderator lifts the ban from the screen's "act on a player" form: Bo's token works again, his ratings shown.
    signed_in(browser, server.base, cy, "moderation")
    until(browser, "!document.getElementById('mod-body').hidden")
    browser.find_element(By.ID, "mod-act-player").send_keys(bo["handle"])
    Select(browser.find_element(By.ID, "mod-act-action")).select_by_value("unban")
    browser.find_element(By.ID, "mod-act-why").send_keys("appeal accepted")
    browser.find_element(By.CSS_SELECTOR, "#mod-act button[type=submit]").click()
    until(browser, "document.getElementById('confirm').open")
    browser.find_element(By.ID, "confirm-yes").click()
    until(browser, "!!document.querySelector('#mod-log tr[data-action=unban]')")
    assert server.client.call("GET", "/v1/players/me", bo["token"]).status_code == 200
    assert server.runtime.ratings.hidden_because(bo["id"]) == (), "back on the leaderboards"
    assert not console_problems_but(browser, "/v1/players", 422)  # the refused name


def test_a_challenge_received_blocks_its_challenger_and_is_gone_at_once(server: Server, browser: Any) -> None:
    """From the inbox, as from a message or a seat: "Block" on a challenge received blocks its challenger, and the
    challenge leaves the inbox at once (the server declines it, as any decline); they cannot challenge again."""
    jo, kim, lu = api_player(server, "Jo"), api_player(server, "Kim"), api_player(server, "Lu")
    for challenger in (jo, lu):
        made = server.client.call("POST", "/v1/challenges", challenger["token"], json={"players": [kim["id"]]})
        assert made.status_code == 201, made.get_json()
    signed_in(browser, server.base, kim, "lobby")
    until(browser, "document.querySelectorAll('#received li[data-status=open]').length === 2")
    button = f"#received button[data-act=block][data-block='{jo['id']}']"
    assert js(browser, f'return document.querySelector("{button}").getAttribute("aria-label")') == "Block Jo"
    browser.find_element(By.CSS_SELECTOR, button).click()
    until(browser, "document.querySelectorAll('#received li').length === 1")
    left = js(browser, "return document.querySelector('#received li').textContent")
    assert "Lu challenges you" in left and "Jo" not in left
    assert (
        js(browser, "return document.getElementById('notice').textContent")
        == "Blocked: their challenge is gone. They are not told."
    )
    blocks = server.client.call("GET", "/v1/players/me/blocks", kim["token"]).get_json()
    assert [b["id"] for b in blocks["players"]] == [jo["id"]]
    theirs = server.client.call("GET", "/v1/challenges", jo["token"]).get_json()["challenges"]
    assert [c["status"] for c in theirs] == ["declined"], "declined, as any decline"
    again = server.client.call("POST", "/v1/challenges", jo["token"], json={"players": [kim["id"]]})
    assert (again.status_code, again.get_json()["code"]) == (403, "challenge_refused")
    time.sleep(3)  # the inbox is read again every few seconds: the declined challenge stays out of it
    assert js(browser, "return document.querySelectorAll('#received li').length") == 1


def test_the_moderation_screen_names_the_players_and_pages_the_queue(server: Server, browser: Any) -> None:
    """The queue names the reporter and the reported player as they are now (the evidence's name beside), the log its
    moderators and players; the queue comes a page at a time, "More reports" bringing the next."""
    from service.domain.reports import Evidence, Report, report_id

    mo, ned = api_player(server, "Mo"), api_player(server, "Ned")
    server.runtime.safety.moderation.set_role(server.runtime.accounts.find(mo["id"]), True)
    reporters = [api_player(server, f"Rep{n}") for n in range(3)]
    store = server.runtime.safety.reports.store
    for report in server.runtime.safety.reports.open_page(None, 100)[0]:  # earlier tests' reports: decided, out of the way
        server.runtime.safety.moderation.decide("operator", report.id, "dismiss", "another test's")
    made = []
    for n in range(60):  # past a page (50)
        reporter = reporters[n % 3]
        game = f"g_{unique()}{n:04x}"[:18]
        at = f"2026-11-28T10:00:{n:02d}.000Z"
        made.append(Report(report_id(reporter["id"], ned["id"], "other", game, None), reporter["id"], ned["id"], "other", "", at,
                           Evidence("Ned", ned["handle"], game, 1)))  # fmt: skip
        store.create(made[-1])
    assert server.client.call("PATCH", "/v1/players/me", ned["token"], json={"name": "Nedward"}).status_code == 200
    signed_in(browser, server.base, mo, "moderation")
    until(browser, "!document.getElementById('mod-body').hidden")
    assert js(browser, "return document.querySelectorAll('#mod-queue > li').length") == 50
    assert not js(browser, "return document.getElementById('mod-more').hidden")
    first = js(browser, f"return document.querySelector(\"#mod-queue > li[data-report='{made[0].id}']\").textContent")
    assert f"reported: Ned (@{ned['handle']})" in first and "(now Nedward)" in first and "reported by Rep0" in first
    browser.find_element(By.ID, "mod-more").click()
    until(browser, "document.querySelectorAll('#mod-queue > li').length === 60 && document.getElementById('mod-more').hidden")
    shown = js(browser, "return Array.from(document.querySelectorAll('#mod-queue > li')).map((li) => li.dataset.report)")
    assert shown == [r.id for r in made], "each once, oldest first"
    item = f"#mod-queue > li[data-report='{made[59].id}']"
    Select(browser.find_element(By.ID, f"mod-action-{made[59].id}")).select_by_value("warn")
    browser.find_element(By.ID, f"mod-why-{made[59].id}").send_keys("mind your words")
    browser.find_element(By.CSS_SELECTOR, f"{item} button[type=submit]").click()
    until(browser, "document.getElementById('confirm').open")
    browser.find_element(By.ID, "confirm-yes").click()
    until(browser, "!!document.querySelector('#mod-log tr[data-action=warn]')")
    cells = js(
        browser, "return Array.from(document.querySelectorAll('#mod-log tr[data-action=warn] td')).map((td) => td.textContent)"
    )
    assert cells[1:5] == ["Mo", "Warn", "Nedward", "mind your words"]
    for report in made[:59]:
        server.runtime.safety.moderation.decide("operator", report.id, "dismiss", "done")


def test_table_talk_is_off_at_an_ai_only_table_and_the_moderation_screen_refuses_a_player(server: Server, browser: Any) -> None:
    dee = api_player(server, "Dee")
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
    game = server.client.game(dee["token"], seats, variant="basic", turn_timeout=600)
    signed_in(browser, server.base, dee, f"game={game['id']}")
    until(browser, "document.getElementById('table').dataset.version !== undefined && !!document.querySelector('#seats .seat')")
    time.sleep(1)  # the table drew its view, with no talk panel: nobody else there reads talk
    assert js(browser, "return document.getElementById('talk-panel').hidden")
    time.sleep(0.5)  # the page's check of the role has answered by now
    assert js(browser, "return document.getElementById('nav-moderation').hidden")
    browser.get(f"{server.base}/play#moderation")
    until(browser, "!document.getElementById('mod-denied').hidden")
    assert js(browser, "return document.getElementById('mod-body').hidden")


def test_your_own_talk_off_setting_turns_the_talk_off_at_your_tables(server: Server, browser: Any) -> None:
    gil, hal = api_player(server, "Gil"), api_player(server, "Hal")
    game = server.client.game(gil["token"], [{"kind": "human"}] * 2, variant="basic", turn_timeout=600)
    server.client.call("POST", f"/v1/games/{game['id']}/join", hal["token"], json={"code": game["join_code"]})
    server.client.call("POST", f"/v1/games/{game['id']}/talk", hal["token"], json={"phrase": "good_luck"})
    assert server.client.call("PATCH", "/v1/players/me", gil["token"], json={"talk_from": "nobody"}).status_code == 200
    signed_in(browser, server.base, gil, f"game={game['id']}")
    until(browser, "!document.getElementById('talk-panel').hidden && !document.getElementById('talk-off').hidden")
    off = js(browser, "return document.getElementById('talk-off').textContent")
    assert off == "Table talk is off for you: your setting says nobody may talk to you."
    assert js(browser, "return document.getElementById('talk-on').hidden")
    assert js(browser, "return document.getElementById('talk-off-link').getAttribute('href')") == f"#player={gil['id']}"


def test_the_long_poll_brings_the_talk_where_the_server_has_no_stream(server: Server, browser: Any) -> None:
    eve, fay = api_player(server, "Eve"), api_player(server, "Fay")
    game = server.client.game(eve["token"], [{"kind": "human"}] * 2, variant="basic", turn_timeout=600)
    server.client.call("POST", f"/v1/games/{game['id']}/join", fay["token"], json={"code": game["join_code"]})
    server.without_tickets = True
    try:
        signed_in(browser, server.base, eve, f"game={game['id']}")
        until(browser, "document.getElementById('table').dataset.live === 'poll' && !document.getElementById('talk-on').hidden")
        said = server.client.call("POST", f"/v1/games/{game['id']}/talk", fay["token"], json={"phrase": "thinking"})
        assert said.status_code == 200, said.get_json()
        until(browser, f"document.querySelectorAll('#talk-list li[data-author=\"{fay['id']}\"]').length === 1")
        assert [m["words"] for m in talk_of(browser)] == ["Thinking…"]
    finally:
        server.without_tickets = False
