"""A player's own feed and inbox through the API: one feed opened once carries every notice of a correspondence
game, its rematch, a challenge and a quick match, in order; resumed with Last-Event-ID it misses and repeats nothing;
the long-poll, NDJSON and ticket forms; the inbox's pages and read state; no card ever in a feed."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest

from service.storage.players.keys import feed_key, feed_read_key
from tests.harness.support import HUMAN, Api, settings_for
from tests.service.http.test_api_abort_rematch import DECK, DISCARD_G4, FOLD

FEED = "/v1/players/me/events"
INBOX = "/v1/players/me/notifications"
CARD = re.compile(r'"([ROYGBIV][1-7])"')


@pytest.fixture
def settings(key_prefix):
    return settings_for(key_prefix, stream_heartbeat=0.2)  # a keep-alive soon: a follower told to stop stops soon


class Follower:
    """A client holding one feed open (``Accept``: its form), reading it in a thread as it comes."""

    def __init__(self, api: Api, token: str, accept: str = "text/event-stream", headers: dict[str, str] | None = None):
        self.headers = {"Authorization": f"Bearer {token}", "Accept": accept, **(headers or {})}
        self.api, self.text, self.response = api, "", None
        self._opened, self._stop = threading.Event(), threading.Event()
        # Opened in the thread that reads it: a streamed answer keeps its request's contexts pushed in the thread that
        # made the request, and the test client's next requests there would find its app context (and its caller).
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        assert self._opened.wait(5) and self.response is not None
        assert self.response.status_code == 200, self.response.get_data(as_text=True)

    def _read(self) -> None:
        self.response = self.api.client.get(FEED, headers=self.headers, buffered=False)
        self._opened.set()
        if self.response.status_code != 200:
            return
        for chunk in self.response.response:
            self.text += chunk.decode() if isinstance(chunk, bytes) else chunk
            if self._stop.is_set():
                break
        self.response.close()

    def frames(self) -> list[tuple[str | None, str, dict[str, Any]]]:
        found = []
        for block in self.text.split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
            if "event" in fields:
                found.append((fields.get("id"), fields["event"], json.loads(fields["data"])))
        return found

    def notices(self) -> list[dict[str, Any]]:
        return [data for _, event, data in self.frames() if event == "notice"]

    def until(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The notices once ``count`` have come (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while len(self.notices()) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.notices()) >= count, (count, self.text)
        return self.notices()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        assert not self._thread.is_alive()


def inbox(api: Api, token: str) -> list[dict[str, Any]]:
    """Every notice of the player's inbox, newest first (page after page)."""
    found: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = api.call("GET", f"{INBOX}?limit=3{cursor}", token).get_json()
        found += page["notifications"]
        if page["next_cursor"] is None:
            return found
        cursor = f"&cursor={page['next_cursor']}"


def correspondence_game(api: Api, ana: dict, bo: dict) -> str:
    """Ana and Bo's correspondence game: Ana moves, Bo folds, Ana wins."""
    game = api.game(ana["token"], [HUMAN, HUMAN], deck=DECK, variant="basic", days_per_turn=3)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    assert api.act(game["id"], ana["token"], [DISCARD_G4]).status_code == 200
    assert api.act(game["id"], bo["token"], [FOLD]).status_code == 200
    return game["id"]


def rematch(api: Api, ana: dict, bo: dict, game_id: str) -> None:
    assert api.call("POST", f"/v1/games/{game_id}/rematch", bo["token"]).status_code == 200
    assert api.call("POST", f"/v1/games/{game_id}/rematch", ana["token"]).get_json()["rematch"]


def challenge(api: Api, ana: dict, bo: dict) -> None:
    made = api.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]], "days_per_turn": 3})
    assert made.status_code == 201, made.get_json()
    assert api.call("POST", f"/v1/challenges/{made.get_json()['id']}/accept", ana["token"]).status_code == 200


def quick_match(api: Api, ana: dict, bo: dict) -> None:
    for player in (ana, bo):
        assert api.call("POST", "/v1/match-tickets", player["token"], json={"player_counts": [2]}).status_code == 201
    api.runtime.matches.match_pass()


def in_order(kinds: list[str], *expected: str) -> bool:
    at = [kinds.index(kind) for kind in expected]
    return at == sorted(at)


@pytest.mark.every_store  # on fakeredis and the real Redis
def test_a_feed_opened_once_carries_every_notice_in_order_and_no_card(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    follower = Follower(api, ana["token"])
    try:
        game_id = correspondence_game(api, ana, bo)
        rematch(api, ana, bo, game_id)
        challenge(api, ana, bo)
        quick_match(api, ana, bo)
        told = list(reversed(inbox(api, ana["token"])))  # every notice written to Ana's feed, oldest first
        carried = follower.until(len(told))
    finally:
        follower.close()
    assert carried == told
    kinds = [n["event"] for n in carried]
    expected = ("your_turn", "game_finished", "rematch_offered", "rematch_started", "challenge_received", "match_found")
    assert in_order(kinds, *expected)
    assert len({n["notification_id"] for n in carried}) == len(carried)
    frames = follower.frames()
    assert frames[0][1] == "state" and frames[0][0] is None  # the state has no id: Last-Event-ID stays a notice's
    assert frames[0][2] == {"your_turn": [], "challenges": [], "tickets": [], "rematch_offers": [], "unread": 0}
    assert all(ident == data["notification_id"] for ident, event, data in frames if event == "notice")
    assert not CARD.findall(follower.text)  # a feed shows no card, let alone another player's hand


@pytest.mark.every_store  # on fakeredis and the real Redis
def test_a_feed_resumed_with_last_event_id_misses_nothing_and_repeats_nothing(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    first = Follower(api, ana["token"])
    try:
        game_id = correspondence_game(api, ana, bo)
        before = first.until(len(inbox(api, ana["token"])))
    finally:
        first.close()  # the client drops; meanwhile the rematch, a challenge and a match happen
    rematch(api, ana, bo, game_id)
    challenge(api, ana, bo)
    quick_match(api, ana, bo)
    told = list(reversed(inbox(api, ana["token"])))
    second = Follower(api, ana["token"], headers={"Last-Event-ID": before[-1]["notification_id"]})
    try:
        after = second.until(len(told) - len(before))
        time.sleep(0.3)  # a keep-alive or two: nothing more comes
    finally:
        second.close()
    assert second.notices() == after
    assert before + after == told
    assert next(event for _, event, _ in second.frames()) == "notice"  # resumed: no state again


def test_the_long_poll_waits_for_the_next_notice_and_answers_when_it_comes(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    opened = api.call("GET", FEED, ana["token"]).get_json()
    assert opened["state"]["unread"] == 0 and opened["notices"] == [] and opened["next"] == "0-0"
    started = time.monotonic()
    empty = api.call("GET", f"{FEED}?after={opened['next']}&wait=0.3", ana["token"]).get_json()
    assert empty["notices"] == [] and time.monotonic() - started >= 0.25 and "state" not in empty
    threading.Timer(0.3, lambda: challenge(api, ana, bo)).start()
    started = time.monotonic()
    page = api.call("GET", f"{FEED}?after={opened['next']}&wait=10", ana["token"]).get_json()
    assert time.monotonic() - started < 5
    assert page["notices"][0]["event"] == "challenge_received" and page["next"] == page["notices"][-1]["notification_id"]
    assert page["notices"][0]["challenge_id"] and page["unread"] >= 1


def test_the_feed_opens_with_what_stands_and_reads_in_the_players_language(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game_id = correspondence_game(api, ana, bo)
    assert api.call("POST", f"/v1/games/{game_id}/rematch", bo["token"]).status_code == 200
    made = api.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]], "days_per_turn": 3}).get_json()
    mine = api.game(ana["token"], [HUMAN, HUMAN], days_per_turn=3)
    api.call("POST", f"/v1/games/{mine['id']}/join", bo["token"], json={"code": mine["join_code"]})
    assert api.call("POST", "/v1/match-tickets", ana["token"], json={"player_counts": [3]}).status_code == 201
    api.call("PATCH", "/v1/players/me", ana["token"], json={"language": "de"})
    page = api.call("GET", FEED, ana["token"]).get_json()
    state = page["state"]
    your_turn = [g["id"] for g in state["your_turn"]]
    assert (mine["id"] in your_turn) == (api.view(mine["id"], ana["token"])["turn"]["seat"] == 0)
    assert [c["id"] for c in state["challenges"]] == [made["id"]] and state["challenges"][0]["role"] == "challenged"
    assert [t["status"] for t in state["tickets"]] == ["waiting"]
    assert state["rematch_offers"] == [{"game_id": game_id, "offered_by": [1]}]
    assert state["unread"] == page["unread"] == len(inbox(api, ana["token"])) > 0
    notices = api.call("GET", f"{FEED}?after=0-0", ana["token"]).get_json()["notices"]
    assert notices[0]["lang"] == "de" and notices[0]["title"] != "Your turn" and notices[0]["title_code"]
    assert api.call("GET", "/v1/players/me", ana["token"]).get_json()["unread_notifications"] == state["unread"]


def test_the_ndjson_form_opens_with_the_state_then_carries_the_notices(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    follower = Follower(api, ana["token"], accept="application/x-ndjson")
    try:
        challenge(api, ana, bo)
        deadline = time.monotonic() + 10
        while '"type":"unread"' not in follower.text and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        follower.close()
    lines = [json.loads(line) for line in follower.text.splitlines() if line.strip()]
    assert lines[0]["type"] == "state" and lines[0]["unread"] == 0
    notices = [line for line in lines if line["type"] == "notice"]
    assert notices and notices[0]["event"] == "challenge_received"
    told = [n["notification_id"] for n in reversed(inbox(api, ana["token"]))]
    assert [n["notification_id"] for n in notices] == told[: len(notices)]


def test_a_stream_ticket_reads_the_players_own_feed_only(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    issued = api.call("POST", "/v1/players/me/stream-tickets", ana["token"])
    assert issued.status_code == 201 and issued.headers["Location"] == f"{FEED}?ticket={issued.get_json()['ticket']}"
    challenge(api, ana, bo)
    page = api.call("GET", f"{FEED}?after=0-0&ticket={issued.get_json()['ticket']}").get_json()
    assert page["notices"][0]["event"] == "challenge_received"
    game = api.game(ana["token"], [HUMAN, HUMAN])
    for_game = api.call("POST", f"/v1/games/{game['id']}/stream-tickets", ana["token"]).get_json()["ticket"]
    refused = api.call("GET", f"{FEED}?ticket={for_game}")
    assert refused.status_code == 401 and refused.get_json()["code"] == "invalid_ticket"
    mine = issued.get_json()["ticket"]
    assert api.call("GET", f"/v1/games/{game['id']}/events?ticket={mine}").status_code == 401
    assert api.call("GET", FEED).status_code == 401


def test_the_inbox_pages_newest_first_and_read_state_is_the_players_on_every_device(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    correspondence_game(api, ana, bo)
    challenge(api, ana, bo)
    phone = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()["token"]
    every = inbox(api, ana["token"])
    ids = [n["notification_id"] for n in every]
    assert len(ids) >= 3 and ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))), reverse=True)
    marked = api.call("POST", f"{INBOX}/read", phone, json={"up_to": ids[1]})
    assert marked.status_code == 200 and marked.get_json() == {"read_up_to": ids[1], "unread": 1}
    back = api.call("POST", f"{INBOX}/read", ana["token"], json={"up_to": ids[-1]}).get_json()
    assert back == {"read_up_to": ids[1], "unread": 1}  # never back
    page = api.call("GET", f"{INBOX}?limit=1", ana["token"]).get_json()
    assert page["read_up_to"] == ids[1] and page["unread"] == 1 and page["next_cursor"] == ids[0]
    assert api.call("GET", "/v1/players/me", phone).get_json()["unread_notifications"] == 1
    assert api.call("POST", f"{INBOX}/read", phone, json={"up_to": "9999999999999-9"}).get_json()["unread"] == 0


@pytest.mark.parametrize("bad", ["7", "x-1", "1-2-3"])
def test_a_cursor_that_is_no_notice_id_is_refused_naming_it(api, bad):
    token = api.player()["token"]
    for response in (
        api.call("GET", f"{FEED}?after={bad}", token),
        api.call("GET", f"{INBOX}?cursor={bad}", token),
        api.call("POST", f"{INBOX}/read", token, json={"up_to": bad}),
        api.call("GET", FEED, token, headers={"Last-Event-ID": bad, "Accept": "text/event-stream"}),
    ):
        assert response.status_code == 422 and response.get_json()["code"] in ("invalid_request", "validation_failed")


def test_a_deleted_accounts_feed_and_read_state_go_with_it(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    challenge(api, ana, bo)
    newest = inbox(api, ana["token"])[0]["notification_id"]
    api.call("POST", f"{INBOX}/read", ana["token"], json={"up_to": newest})
    prefix = api.runtime.settings.key_prefix
    keys = [feed_key(prefix, ana["id"]), feed_read_key(prefix, ana["id"])]
    assert api.runtime.redis.exists(*keys) == 2
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert api.runtime.redis.exists(*keys) == 0
