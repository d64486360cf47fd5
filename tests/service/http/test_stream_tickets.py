"""Stream tickets: a browser's way to its own live feed (EventSource cannot send Authorization).

A ticket reads one game's feeds as its player, for a minute, and does nothing
else; a bad one is a 401 problem, never the spectator's feed.  The browser side
(EventSource across origins, reconnection, the end of the game) is in
``test_stream_tickets_browser.py``.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

import pytest

from service.http.logs import TicketRedaction, redact_tickets
from tests.harness.support import settings_for
from tests.service.http.test_api_feeds import sse
from tests.service.http.test_api_games import two_humans


def ticket_for(api, game_id: str, token: str) -> dict:
    response = api.call("POST", f"/v1/games/{game_id}/stream-tickets", token)
    assert response.status_code == 201, response.get_json()
    assert response.headers["Cache-Control"] == "no-store"
    ticket = response.get_json()["ticket"]
    assert response.headers["Location"] == f"/v1/games/{game_id}/stream?ticket={ticket}"
    return response.get_json()


def dealt_hands(events) -> list:
    return next(data for _, kind, data in events if kind == "round_dealt")["hands"]


def test_a_ticket_follows_its_players_own_hand_on_the_stream_and_the_events(api):
    ana, _, game = two_humans(api, seed=5)
    issued = ticket_for(api, game["id"], ana["token"])
    assert issued["ticket"].startswith("st_") and len(issued["ticket"]) >= 30
    left = datetime.fromisoformat(issued["expires_at"].replace("Z", "+00:00")).timestamp() - time.time()
    assert 55 <= left <= 61

    events, _ = sse(api, game["id"], query=f"?ticket={issued['ticket']}")
    hands = dealt_hands(events)
    assert hands[0] is not None and hands[1] is None  # Ana's own hand, not Bo's

    page = api.call("GET", f"/v1/games/{game['id']}/events?ticket={issued['ticket']}").get_json()
    hands = next(e for e in page["events"] if e["type"] == "round_dealt")["hands"]
    assert hands[0] is not None and hands[1] is None

    spectator, _ = sse(api, game["id"])  # without a ticket or token: the spectator's feed, as before
    assert dealt_hands(spectator) == [None, None]


def test_a_ticket_is_good_for_reconnecting_while_it_lives(api):
    ana, _, game = two_humans(api)
    ticket = ticket_for(api, game["id"], ana["token"])["ticket"]
    first, _ = sse(api, game["id"], query=f"?ticket={ticket}")
    again, _ = sse(api, game["id"], headers={"Last-Event-ID": str(first[1][0])}, query=f"?ticket={ticket}")
    assert [n for n, _, _ in again] == [n for n, _, _ in first[2:]]


@pytest.mark.parametrize("feed", ["stream", "events"])
def test_a_bad_ticket_is_a_401_problem_never_the_spectators_feed(api, feed):
    ana, _, game = two_humans(api)
    other = api.game(ana["token"], [{"kind": "human"}, {"kind": "ai", "level": "random"}])
    for_other_game = ticket_for(api, other["id"], ana["token"])["ticket"]
    for ticket in ("st_unknown", "nonsense", for_other_game, "st_" + "x" * 200):
        response = api.call("GET", f"/v1/games/{game['id']}/{feed}?ticket={ticket}")
        assert response.status_code in (401, 422), (ticket, response.get_json())
        if response.status_code == 401:
            assert response.get_json()["code"] == "invalid_ticket"
    both = api.call("GET", f"/v1/games/{game['id']}/{feed}?ticket={for_other_game}", ana["token"])
    assert both.status_code == 422 and "not both" in both.get_json()["detail"]


def test_a_ticket_expires(redis_pair, key_prefix):
    from service.http.app import create_app
    from service.runtime import build_runtime
    from tests.harness.support import Api

    runtime = build_runtime(settings_for(key_prefix, stream_ticket_seconds=1), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    ana, _, game = two_humans(api)
    ticket = ticket_for(api, game["id"], ana["token"])["ticket"]
    assert api.call("GET", f"/v1/games/{game['id']}/events?ticket={ticket}").status_code == 200
    time.sleep(1.6)
    expired = api.call("GET", f"/v1/games/{game['id']}/events?ticket={ticket}")
    assert expired.status_code == 401 and expired.get_json()["code"] == "invalid_ticket"


def test_revoking_the_token_ends_its_tickets(api):
    ana, _, game = two_humans(api)
    ticket = ticket_for(api, game["id"], ana["token"])["ticket"]
    mine = api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"]
    assert api.call("DELETE", f"/v1/players/me/tokens/{mine[0]['id']}", ana["token"]).status_code == 204
    gone = api.call("GET", f"/v1/games/{game['id']}/stream?ticket={ticket}")
    assert gone.status_code == 401 and gone.get_json()["code"] == "invalid_ticket"


def test_a_ticket_writes_nothing_and_opens_nothing_else(api):
    ana, _, game = two_humans(api)
    ticket = ticket_for(api, game["id"], ana["token"])["ticket"]
    writes = [
        ("POST", f"/v1/games/{game['id']}/actions", {"steps": [{"type": "end_turn"}]}),
        ("POST", f"/v1/games/{game['id']}/leave", None),
        ("POST", f"/v1/games/{game['id']}/stream-tickets", None),
        ("GET", "/v1/players/me", None),
        ("GET", "/v1/players/me/games", None),
    ]
    for method, path, body in writes:
        response = api.call(method, f"{path}?ticket={ticket}", json=body)
        assert response.status_code == 401 and response.get_json()["code"] == "token_required", (path, response.get_json())
    view = api.call("GET", f"/v1/games/{game['id']}?ticket={ticket}").get_json()  # the spectator's view: no hand
    assert view.get("you") is None


def test_tickets_need_a_token_and_a_game(api):
    ana, _, game = two_humans(api)
    anonymous = api.call("POST", f"/v1/games/{game['id']}/stream-tickets")
    assert anonymous.status_code == 401 and anonymous.get_json()["code"] == "token_required"
    missing = api.call("POST", "/v1/games/g_nosuchgame/stream-tickets", ana["token"])
    assert missing.status_code == 404


def test_access_logs_never_hold_a_ticket_in_full(api, caplog):
    ana, _, game = two_humans(api)
    ticket = ticket_for(api, game["id"], ana["token"])["ticket"]
    line = f'127.0.0.1 - - "GET /v1/games/{game["id"]}/stream?after=3&ticket={ticket} HTTP/1.1" 200 -'
    assert ticket not in redact_tickets(line) and f"ticket={ticket[:8]}…" in redact_tickets(line)
    for name in ("werkzeug", "gunicorn.access"):  # the filter sits on both access loggers once an app exists
        logger = logging.getLogger(name)
        assert any(isinstance(f, TicketRedaction) for f in logger.filters)
        with caplog.at_level(logging.INFO, logger=name):
            logger.info('%s - - "%s" %s -', "127.0.0.1", f"GET /v1/games/x/stream?ticket={ticket} HTTP/1.1", 200)
        assert ticket not in caplog.text and "ticket=st_" in caplog.text
        caplog.clear()


def test_a_ticket_is_asked_for_without_an_idempotency_key(api):
    """Every POST honours the header or refuses it, never ignores it: asking for a ticket again is as safe as once."""
    ana, _, game = two_humans(api)
    path = f"/v1/games/{game['id']}/stream-tickets"
    refused = api.call("POST", path, ana["token"], headers={"Idempotency-Key": "ticket-1"})
    assert refused.status_code == 400 and refused.get_json()["code"] == "idempotency_key_not_supported"
    assert api.call("POST", path, ana["token"]).status_code == 201
