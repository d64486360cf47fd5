"""Event feeds: paged, redacted per caller, long-polled, and as Server-Sent Events."""

from __future__ import annotations

import json
import threading
import time

from tests.harness.support import HUMAN, ai
from tests.service.http.test_api_games import DECK, two_humans


def feed(api, game_id, token=None, **query):
    params = "&".join(f"{k}={v}" for k, v in query.items())
    response = api.call("GET", f"/v1/games/{game_id}/events?{params}", token)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def sse(api, game_id, token=None, headers=None, query=""):
    response = api.call("GET", f"/v1/games/{game_id}/stream{query}", token, headers=headers or {})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "data" in fields and fields.get("event") != "end":
            events.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
    return events, response.get_data(as_text=True)


def test_the_feed_pages_through_every_event(api):
    ana, _, game = two_humans(api)
    first = feed(api, game["id"], ana["token"], limit=2)
    assert [e["n"] for e in first["events"]] == [1, 2] and first["next"] == 2 and not first["finished"]
    rest = feed(api, game["id"], ana["token"], after=first["next"])
    assert [e["type"] for e in first["events"] + rest["events"]] == [
        "game_created",
        "seat_taken",
        "seat_taken",
        "game_started",
        "round_dealt",
    ]
    assert rest["version"] == game["version"] == rest["next"]
    assert all({"n", "type", "at", "by", "v"} <= set(e) for e in first["events"] + rest["events"])


def test_the_deal_shows_each_seat_only_its_own_hand_and_nobody_the_deck_or_seed(api):
    ana, bo, game = two_humans(api, seed=99)
    for token, seat in ((ana["token"], 0), (bo["token"], 1), (None, None)):
        events = {e["type"]: e for e in feed(api, game["id"], token)["events"]}
        dealt = events["round_dealt"]
        assert dealt["deck"] is None and dealt["deck_size"] == 33
        assert [h is not None for h in dealt["hands"]] == [seat == 0, seat == 1]
        assert events["game_started"]["seed"] is None and "seed" not in events["game_created"]
        assert ("join_code" in events["game_created"]) == (seat == 0)


def test_other_players_draws_are_hidden(api):
    ana, bo, game = two_humans(api, deck=DECK)
    api.act(game["id"], ana["token"], [{"type": "discard", "card": "G4"}])  # 4 > 1 palette card: draws
    mine = [e for e in feed(api, game["id"], ana["token"])["events"] if e["type"] == "card_drawn"]
    theirs = [e for e in feed(api, game["id"], bo["token"])["events"] if e["type"] == "card_drawn"]
    assert mine[0]["card"] is not None and theirs[0]["card"] is None and theirs[0]["seat"] == 0


def test_everything_is_revealed_once_the_game_is_over(api):
    ana, bo, game = two_humans(api, variant="basic", seed=3)
    mover = api.view(game["id"], ana["token"])["turn"]["seat"]
    api.act(game["id"], [ana, bo][mover]["token"], [{"type": "fold"}])
    events = {e["type"]: e for e in feed(api, game["id"])["events"]}
    assert events["game_finished"]["winner"] == 1 - mover
    assert events["game_started"]["seed"] == 3 and events["game_created"]["seed"] == 3
    assert all(hand is not None for hand in events["round_dealt"]["hands"]) and events["round_dealt"]["deck"]


def test_a_finished_game_is_not_waited_on_and_next_never_runs_past_its_events(api):
    ana, bo, game = two_humans(api, variant="basic", seed=3)
    mover = api.view(game["id"], ana["token"])["turn"]["seat"]
    api.act(game["id"], [ana, bo][mover]["token"], [{"type": "fold"}])
    version = api.view(game["id"], ana["token"])["version"]
    started = time.monotonic()
    page = feed(api, game["id"], ana["token"], after=version, wait=5)
    assert time.monotonic() - started < 1 and page["finished"] and page["events"] == []
    beyond = feed(api, game["id"], ana["token"], after=version + 1000)
    assert beyond["next"] == version  # a client that keeps next misses nothing


def test_long_poll_waits_for_the_next_event(api):
    ana, _, game = two_humans(api, deck=DECK)
    version = game["version"]
    started = time.monotonic()
    assert feed(api, game["id"], ana["token"], after=version, wait=0.3)["events"] == []
    assert time.monotonic() - started >= 0.25

    def move() -> None:
        time.sleep(0.3)
        api.runtime.games.act(game["id"], api.runtime.players.by_token(ana["token"]), [_fold()])

    mover = threading.Thread(target=move)
    mover.start()
    started = time.monotonic()
    page = feed(api, game["id"], ana["token"], after=version, wait=5)
    mover.join()
    assert page["events"] and page["events"][0]["n"] == version + 1
    assert time.monotonic() - started < 4


def _fold():
    from engine import Fold

    return Fold()


def test_the_stream_sends_every_event_and_ends_with_the_game(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("random")], variant="basic")
    api.run_jobs()
    events, raw = sse(api, game["id"], token)
    assert raw.startswith("retry: ") and "event: end" in raw
    final = api.view(game["id"], token)
    assert [n for n, _, _ in events] == list(range(1, final["version"] + 1))
    assert events[-1][1] == "game_finished"


def test_the_stream_resumes_after_last_event_id(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("random")], variant="basic")
    api.run_jobs()
    events, _ = sse(api, game["id"], token, headers={"Last-Event-ID": "3"})
    assert events[0][0] == 4
    from_query, _ = sse(api, game["id"], token, query="?after=5")
    assert from_query[0][0] == 6


def test_a_live_stream_keeps_the_connection_with_heartbeats_and_gives_up_after_its_time(api):
    ana, _, game = two_humans(api)
    started = time.monotonic()
    _, raw = sse(api, game["id"], ana["token"])  # the game is not over: the stream ends at stream_max_seconds
    assert ": keep-alive" in raw and time.monotonic() - started >= api.runtime.settings.stream_max_seconds - 0.5


def test_feed_queries_are_validated(api):
    ana, _, game = two_humans(api)
    for query in ("after=-1", "limit=0", "limit=501", "wait=61", "after=x"):
        response = api.call("GET", f"/v1/games/{game['id']}/events?{query}", ana["token"])
        assert response.status_code == 422 and response.get_json()["errors"][0]["location"] == "query"


def test_a_human_game_with_one_seat_waiting_for_a_spectator(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    spectator = feed(api, game["id"])
    assert spectator["events"][-1]["type"] == "round_dealt" and all(h is None for h in spectator["events"][-1]["hands"])
