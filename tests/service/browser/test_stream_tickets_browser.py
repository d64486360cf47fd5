"""A page on another origin follows its own game live in headless Chromium, as browsers must: EventSource + a ticket.

``EventSource`` cannot send ``Authorization``: without a ticket a page got the
spectator's feed (its own hand ``null``).  Here the page (served from one
port) trades its token for a ticket from the API (another port, so another
origin, allowed by CORS), follows the stream, is cut off by the server and
reconnects by itself with ``Last-Event-ID``, and sees the game end.  A bad
ticket errors and closes the EventSource; it never gets the spectator's feed.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.faults.players import pick
from tests.harness.browser import chromium, served, skip_without_chromium
from tests.harness.documents import section
from tests.harness.support import Api, settings_for

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

#: Every event type of docs/api.md's table, each a named SSE event a page listens for (plus the stream's own two).
EVENT_TYPES = [*re.findall(r"^\| `([a-z_]+)` \|", section("docs/api.md", "Events"), flags=re.M), "end", "reset"]

PAGE = """<!doctype html>
<meta charset="utf-8"><title>follows a game</title>
<script>
const [api, game, token, ticketOverride] = JSON.parse(decodeURIComponent(location.hash.slice(1)));
window.seen = []; window.errors = []; window.opened = 0; window.ended = false; window.gaveUp = false;
async function follow() {
  let ticket = ticketOverride;
  if (!ticket) {
    const answer = await fetch(`${api}/v1/games/${game}/stream-tickets`, {
      method: "POST", headers: {Authorization: `Bearer ${token}`},
    });
    window.ticketStatus = answer.status;
    ticket = (await answer.json()).ticket;
  }
  const source = new EventSource(`${api}/v1/games/${game}/stream?ticket=${encodeURIComponent(ticket)}`);
  source.onopen = () => { window.opened += 1; };
  source.onerror = () => {
    window.errors.push(source.readyState);
    if (source.readyState === EventSource.CLOSED) window.gaveUp = true;
  };
  for (const type of TYPES) {
    source.addEventListener(type, (event) => {
      if (type === "end") { window.ended = true; source.close(); return; }
      window.seen.push({id: event.lastEventId, type, data: JSON.parse(event.data)});
    });
  }
}
follow().catch((error) => { window.failure = String(error); });
</script>
"""


def page_app(types: list[str]) -> Any:
    body = PAGE.replace("TYPES", json.dumps(types)).encode()

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))])
        return [body]

    return app


@pytest.fixture
def deployment():
    """The API on one origin (the embedded store, streams cut after 2 s so that the page must reconnect) and a
    page on another, allowed by CORS; every stream request the API saw, with its Last-Event-ID."""
    with served(page_app(EVENT_TYPES), "page-origin") as page_origin:
        settings = settings_for(
            f"red7-test:{uuid.uuid4().hex[:12]}:", cors_origins=(page_origin,), stream_max_seconds=2.0, stream_heartbeat=0.5
        )
        runtime = build_runtime(settings)
        app = create_app(runtime)
        streams: list[dict[str, str | None]] = []

        def recorded(environ: dict[str, Any], start_response: Any) -> Any:
            if environ["PATH_INFO"].endswith("/stream"):
                streams.append({"query": environ.get("QUERY_STRING"), "last_event_id": environ.get("HTTP_LAST_EVENT_ID")})
            return app(environ, start_response)

        with served(recorded, "api-origin") as api_origin:
            yield {"page": page_origin, "api": api_origin, "client": Api(app, runtime), "streams": streams}


def open_page(driver: Any, deployment: dict[str, Any], game_id: str, token: str, ticket: str = "") -> None:
    state = json.dumps([deployment["api"], game_id, token, ticket])
    driver.get(f"{deployment['page']}/#{state}")


def play_out(client: Api, game_id: str, tokens: list[str]) -> None:
    """Both humans play their turns through the API until the game is over (bounded)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for token in tokens:
            view = client.view(game_id, token)
            if view["status"] == "finished":
                return
            if view["legal_steps"]:
                headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
                answer = client.act(game_id, token, [pick(view["legal_steps"])], headers=headers)
                assert answer.status_code == 200, answer.get_json()
    raise AssertionError("the game did not finish in 60 s")


def test_a_page_on_another_origin_follows_its_own_hand_reconnects_and_sees_the_end(deployment):
    client: Api = deployment["client"]
    ana, bo = client.player("Ana"), client.player("Bo")
    game = client.game(ana["token"], [{"kind": "human"}, {"kind": "human"}], variant="basic")
    joined = client.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200
    with chromium() as driver:
        open_page(driver, deployment, game["id"], ana["token"])
        wait = WebDriverWait(driver, 20, poll_frequency=0.1)
        wait.until(lambda d: any(e["type"] == "round_dealt" for e in d.execute_script("return window.seen")))
        assert driver.execute_script("return window.ticketStatus") == 201

        # The server ends every stream after 2 s: the page's EventSource reconnects by itself, saying where it was.
        wait.until(lambda d: any(s["last_event_id"] for s in deployment["streams"]))
        play_out(client, game["id"], [ana["token"], bo["token"]])
        wait.until(lambda d: d.execute_script("return window.ended"))
        seen = driver.execute_script("return window.seen")
        opened = driver.execute_script("return window.opened")
        failure = driver.execute_script("return window.failure || null")

    assert failure is None
    final = client.view(game["id"], ana["token"])
    assert final["status"] == "finished"
    assert [int(e["id"]) for e in seen] == list(range(1, final["version"] + 1)), "every event once, in order"
    assert [e["data"]["n"] for e in seen] == [int(e["id"]) for e in seen]
    assert opened >= 2 and len(deployment["streams"]) >= 2
    resumed = [s for s in deployment["streams"] if s["last_event_id"]]
    assert resumed and all("ticket=st_" in (s["query"] or "") for s in deployment["streams"])

    dealt = next(e["data"] for e in seen if e["type"] == "round_dealt")
    assert dealt["hands"][0] is not None and len(dealt["hands"][0]) == 7, "Ana's own hand"
    assert dealt["hands"][1] is None, "never Bo's, before the end"
    anas_draws = [e["data"] for e in seen if e["type"] == "card_drawn" and e["data"]["seat"] == 0]
    assert all(draw["card"] is not None for draw in anas_draws)


def test_a_bad_ticket_closes_the_event_source_and_never_shows_the_spectators_feed(deployment):
    client: Api = deployment["client"]
    ana = client.player("Ana")
    game = client.game(ana["token"], [{"kind": "human"}, {"kind": "ai", "level": "random"}])
    with chromium() as driver:
        open_page(driver, deployment, game["id"], ana["token"], ticket="st_" + "0" * 32)
        WebDriverWait(driver, 10, poll_frequency=0.1).until(lambda d: d.execute_script("return window.gaveUp"))
        time.sleep(3)  # an EventSource that was answered 401 does not try again
        assert driver.execute_script("return window.seen") == []
        assert driver.execute_script("return window.opened") == 0
    assert len(deployment["streams"]) == 1
