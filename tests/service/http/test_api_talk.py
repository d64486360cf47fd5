"""Table talk: said by seated players, read through each reader's mutes, blocks and reach, held back by the filter,
never part of the game (its events and version stay as they were)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from redis.crc import key_slot

from service.domain.talk import MAX_TEXT
from tests.harness.support import HUMAN, Api, ai

#: Every test here runs on fakeredis and the real Redis too: the talk's store and the reads over it.
pytestmark = pytest.mark.every_store

#: A word the tests' filter holds (added as the operator does).
RUDE = "snorklewacker"


def signed_up(api: Api, name: str, handle: str) -> dict[str, Any]:
    answer = api.call("POST", "/v1/players", json={"name": name, "handle": handle})
    assert answer.status_code == 201
    return answer.get_json()


@pytest.fixture
def table(api: Api) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Ana and Bo seated at one game with Cy, and an AI seat."""
    assert api.runtime.safety is not None
    api.runtime.safety.screen.change_words([RUDE], add=True)
    ana, bo, cy = signed_up(api, "Ana", "ana_a"), signed_up(api, "Bo", "bo_b"), signed_up(api, "Cy", "cy_c")
    game = api.game(ana["token"], [HUMAN, HUMAN, HUMAN, ai()], listed=True)
    for player in (bo, cy):
        assert api.call("POST", f"/v1/games/{game['id']}/join", player["token"], json={}).status_code == 200
    return game, ana, bo, cy


def say(api: Api, game: dict[str, Any], player: dict[str, Any], **body: Any) -> Any:
    return api.call("POST", f"/v1/games/{game['id']}/talk", player["token"], json=body, headers=body.pop("headers", None))


def heard(api: Api, game: dict[str, Any], player: dict[str, Any], **query: Any) -> list[dict[str, Any]]:
    answer = api.call("GET", f"/v1/games/{game['id']}/talk", player["token"], query_string=query)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["messages"]


def test_talk_is_no_part_of_the_game(api, table):
    game, ana, bo, _ = table
    before = api.view(game["id"], ana["token"])
    events = [e.payload for e in api.runtime.store.read(game["id"], 0, before["version"])]
    assert say(api, game, ana, phrase="good_luck").status_code == 200
    assert say(api, game, bo, text="and to you").status_code == 200
    after = api.view(game["id"], ana["token"])
    assert after["version"] == before["version"]
    assert [e.payload for e in api.runtime.store.read(game["id"], 0, after["version"])] == events
    prefix = api.runtime.settings.key_prefix
    talk_keys = set(api.runtime.redis.scan_iter(match=f"{prefix}talk:*"))
    assert talk_keys == {f"{prefix}talk:{{{game['id']}}}:messages"}
    assert key_slot(next(iter(talk_keys)).encode()) == key_slot(f"{prefix}game:{{{game['id']}}}:events".encode())


def test_phrases_read_in_each_readers_language(api, table):
    game, ana, bo, _ = table
    say(api, game, ana, phrase="well_played")
    english = heard(api, game, bo)
    assert [(m["phrase"], m["words"], m["author_id"], m["seat"]) for m in english] == [
        ("well_played", "Well played!", ana["id"], 0)
    ]
    german = api.call("GET", f"/v1/games/{game['id']}/talk", bo["token"], headers={"Accept-Language": "de"}).get_json()
    assert german["messages"][0]["words"] != "Well played!"


def test_the_filter_holds_a_message_back_and_queues_it(api, table):
    game, ana, bo, cy = table
    answer = say(api, game, bo, text=f"you {RUDE.upper()}")
    assert answer.status_code == 200 and answer.get_json()["held"] is True
    assert [m["held"] for m in heard(api, game, bo)] == [True]
    for reader in (ana, cy):
        assert heard(api, game, reader) == []
        for path in (f"/v1/games/{game['id']}", f"/v1/games/{game['id']}/events?talk_after=0"):
            raw = json.dumps(api.call("GET", path, reader["token"]).get_json())
            assert RUDE not in raw.lower()  # no other seat's view or feed holds the held text
    moderator = signed_up(api, "Mo", "mo_m")
    assert api.runtime.safety is not None
    api.runtime.safety.moderation.set_role(api.runtime.accounts.by_token(moderator["token"]), True)
    queued = api.call("GET", "/v1/reports", moderator["token"]).get_json()["reports"]
    assert [(r["reported_id"], r["reporter_id"]) for r in queued] == [(bo["id"], "filter")]
    assert queued[0]["evidence"]["messages"][0]["text"] == f"you {RUDE.upper()}"
    decided = api.call(
        "POST", f"/v1/reports/{queued[0]['id']}/decision", moderator["token"], json={"action": "warn", "reason": "a slur"}
    )
    assert decided.status_code == 200, decided.get_json()
    prefix = api.runtime.settings.key_prefix
    assert not list(api.runtime.redis.scan_iter(match=f"{prefix}player:{{filter}}*"))  # the filter is nobody to tell


def test_mutes_blocks_and_reach_hide_talk_at_once(api, table):
    game, ana, bo, cy = table
    say(api, game, bo, phrase="your_move")
    assert len(heard(api, game, ana)) == 1
    assert api.call("PUT", "/v1/players/me/mutes/bo_b", ana["token"]).status_code == 200
    assert heard(api, game, ana) == [] and len(heard(api, game, cy)) == 1
    api.call("DELETE", "/v1/players/me/mutes/bo_b", ana["token"])
    assert api.call("PUT", "/v1/players/me/blocks/ana_a", bo["token"]).status_code == 200
    assert heard(api, game, ana) == []  # blocked by the author: neither hears the other
    assert api.call("PATCH", "/v1/players/me", cy["token"], json={"talk_from": "nobody"}).status_code == 200
    assert heard(api, game, cy) == []
    say(api, game, cy, phrase="thinking")
    assert [m["phrase"] for m in heard(api, game, cy)] == ["thinking"]  # their own, always


def test_spectators_and_strangers_are_refused(api, table):
    game, ana, _, _ = table
    stranger = signed_up(api, "Zed", "zed_z")
    for method in ("GET", "POST"):
        answer = api.call(
            method, f"/v1/games/{game['id']}/talk", stranger["token"], json={"phrase": "good_luck"} if method == "POST" else None
        )
        assert (answer.status_code, answer.get_json()["code"]) == (403, "not_a_player")
    answer = api.call("GET", "/v1/games/g_0000000000000000/talk", ana["token"])
    assert (answer.status_code, answer.get_json()["code"]) == (404, "game_not_found")
    assert api.call("GET", f"/v1/games/{game['id']}/talk").status_code == 401


def test_bounds_and_shapes_are_422(api, table):
    game, ana, _, _ = table
    for body in ({"text": "x" * (MAX_TEXT + 1)}, {"phrase": "hello"}, {}, {"phrase": "good_luck", "text": "hi"}):
        answer = say(api, game, ana, **body)
        assert (answer.status_code, answer.get_json()["code"]) == (422, "invalid_request"), body
    assert say(api, game, ana, text="x" * MAX_TEXT).status_code == 200


def test_ai_only_tables_have_no_talk(api):
    ana = signed_up(api, "Ana", "ana_a")
    game = api.game(ana["token"], [HUMAN, ai()])
    answer = say(api, game, ana, phrase="good_luck")
    assert (answer.status_code, answer.get_json()["code"]) == (409, "table_talk_off")


def test_a_retry_says_nothing_twice(api, table):
    game, ana, bo, _ = table
    key = {"Idempotency-Key": "talk-1"}
    first = say(api, game, ana, text="hello", headers=key)
    again = say(api, game, ana, text="hello", headers=key)
    assert first.status_code == again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json() == again.get_json()
    assert len(heard(api, game, bo)) == 1
    other = say(api, game, ana, text="bye", headers=key)
    assert (other.status_code, other.get_json()["code"]) == (422, "idempotency_key_reused")


def test_pages_follow_on(api, table):
    game, ana, bo, _ = table
    for n in range(5):
        say(api, game, ana, text=f"m{n}")
    first = api.call("GET", f"/v1/games/{game['id']}/talk", bo["token"], query_string={"limit": 3}).get_json()
    rest = heard(api, game, bo, after=first["next_cursor"])
    assert [m["text"] for m in first["messages"] + rest] == [f"m{n}" for n in range(5)]


def test_a_report_names_a_message_and_keeps_it(api, table):
    game, ana, bo, _ = table
    said = say(api, game, bo, text="rude but not listed").get_json()
    made = api.call(
        "POST",
        "/v1/reports",
        ana["token"],
        json={"player": "bo_b", "reason": "harassment", "game_id": game["id"], "message_id": said["id"]},
    )
    assert made.status_code == 201, made.get_json()
    report = made.get_json()
    assert report["message_id"] == said["id"] and report["evidence"]["messages"][0]["text"] == "rude but not listed"
    wrong = api.call(
        "POST",
        "/v1/reports",
        ana["token"],
        json={"player": "bo_b", "reason": "other", "game_id": game["id"], "message_id": "1-0"},
    )
    assert (wrong.status_code, wrong.get_json()["code"]) == (404, "message_not_found")


def stream_blocks(api: Api, game: dict[str, Any], token: str | None) -> list[dict[str, str]]:
    """The SSE stream of ``game`` as ``token`` reads it until it gives up (the tests' stream_max_seconds)."""
    response = api.call("GET", f"/v1/games/{game['id']}/stream", token)
    assert response.status_code == 200
    blocks = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            blocks.append(fields)
    return blocks


def test_the_live_stream_brings_talk_to_those_who_receive_it(api, table):
    game, ana, bo, cy = table
    say(api, game, bo, text="said before the stream")  # the stream brings what is new; the page what was before
    assert api.call("PUT", "/v1/players/me/mutes/bo_b", cy["token"]).status_code == 200

    def talk_later() -> None:
        say(api, game, bo, text=f"later, {RUDE}")
        say(api, game, bo, phrase="your_move")

    later = threading.Timer(0.4, talk_later)
    later.start()
    seen: dict[str, list[dict[str, str]]] = {}
    readers = {"ana": ana["token"], "cy": cy["token"], "spectator": None}
    threads = [
        threading.Thread(target=lambda n=n, t=t: seen.__setitem__(n, stream_blocks(api, game, t))) for n, t in readers.items()
    ]
    for thread in threads:
        thread.start()
    for thread in [*threads, later]:
        thread.join()
    talk = [json.loads(b["data"]) for b in seen["ana"] if b["event"] == "talk"]
    assert [(m["phrase"], m["held"]) for m in talk] == [("your_move", False)]  # held back, and nothing from before
    assert all("id" not in b for b in seen["ana"] if b["event"] == "talk")  # Last-Event-ID stays an event number
    assert not [b for b in seen["cy"] + seen["spectator"] if b["event"] == "talk"]  # muted; a spectator hears nothing
    assert RUDE not in json.dumps(seen).lower()  # the held text reached no other seat's stream


def test_a_long_poll_following_the_talk_ends_with_a_message(api, table):
    game, ana, bo, _ = table
    say(api, game, bo, text="before")
    version = api.view(game["id"], ana["token"])["version"]
    base = f"/v1/games/{game['id']}/events"
    first = api.call("GET", base, ana["token"], query_string={"after": version, "talk_after": "0"}).get_json()
    assert [m["text"] for m in first["talk"]] == ["before"] and first["events"] == [] and first["version"] == version
    later = threading.Timer(0.3, lambda: say(api, game, bo, phrase="thinking"))
    later.start()
    query = {"after": version, "talk_after": first["talk_next"], "wait": 20}
    started = time.monotonic()
    page = api.call("GET", base, ana["token"], query_string=query).get_json()
    later.join()
    assert time.monotonic() - started < 10  # the message ended the wait, not the wait's end
    assert [m["phrase"] for m in page["talk"]] == ["thinking"] and page["version"] == version
    spectator = api.call("GET", base, query_string={"talk_after": "0"}).get_json()
    assert spectator["talk"] == []
    assert "talk" not in api.call("GET", base, ana["token"]).get_json()  # not asked: the page as before
    bad = api.call("GET", base, ana["token"], query_string={"talk_after": "x"})
    assert (bad.status_code, bad.get_json()["code"]) == (422, "invalid_request")
