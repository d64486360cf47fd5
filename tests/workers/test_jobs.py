"""Each job on its own: it acts once for the version it was queued for, and never twice."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import ClassVar

import pytest

from service.application.followups import play_on_levels
from service.application.loading import FINISHED_SNAPSHOT_TTL
from service.application.turns import AI_TURNS_PER_JOB
from service.common.config import Settings
from service.domain.game import decode
from service.domain.lobby import LOBBY_TYPES
from service.jobqueue.dispatch import RECHECK_AFTER
from service.jobqueue.retries import fail_fast_on_permanent_errors
from tests.harness.loopback import serving
from tests.harness.support import HUMAN, ai
from tests.service.http.test_api_games import two_humans
from workers import context, jobs

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def stored(api, game_id):
    return [decode(e.payload) for e in api.runtime.store.read(game_id)]


def test_ai_turn_plays_once_for_its_version(api):
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), HUMAN], seed=1)
    assert game["turn"]["seat"] == 0, "with this seed the AI moves first"
    version = game["version"]
    assert jobs.ai_turn(game["id"], version) == "played 1 turn(s)"  # then the human is to move: the job ends
    after = api.runtime.games.load(game["id"])
    assert after.version > version and (after.seat_to_move() == 1 or after.status != "active")
    length = len(stored(api, game["id"]))
    assert jobs.ai_turn(game["id"], version).startswith("nothing to do")  # the same job again
    assert len(stored(api, game["id"])) == length


def test_one_job_plays_ais_that_move_one_after_another_up_to_its_bound(api):
    """Three AIs in a row are one job, not three (RQ's bookkeeping of a job costs Redis more than a turn); an all-AI
    table still queues a new job every few turns, so that it shares the workers with everyone else."""
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("greedy"), ai("random")], seed=3)
    queue = api.runtime.queue
    assert queue.count == 1
    version = game["version"]
    assert jobs.ai_turn(game["id"], version) == f"played {AI_TURNS_PER_JOB} turn(s)"
    by = [e["by"] for e in stored(api, game["id"]) if e["by"].startswith("ai:")]
    assert len(by) >= AI_TURNS_PER_JOB and len(set(by)) == AI_TURNS_PER_JOB, by
    queued = [job for job in queue.jobs if job.id.endswith(f"-{api.runtime.games.load(game['id']).version}")]
    assert len(queued) == 1, "the next AI turn is queued for the game as it is now, once"


def counting_appends(api, monkeypatch) -> list[list[str]]:
    """Every append the store is asked for from now on: each its events' authors, in order."""
    store, appends = api.runtime.store, []
    append = store.append

    def counted(stream, expected_version, payloads, **kwargs):
        appends.append([decode(payload)["by"] for payload in payloads])
        return append(stream, expected_version, payloads, **kwargs)

    monkeypatch.setattr(store, "append", counted)
    return appends


def test_quick_ais_that_move_one_after_another_are_one_append_each_event_by_its_seat(api, monkeypatch):
    """A greedy and a random AI before the human: one job, one append (one write, one wake of those waiting), in
    which each turn's events are still its own seat's; then it is the human's turn."""
    token = api.player()["token"]
    for seed in range(1, 40):
        game = api.game(token, [ai("greedy"), ai("random"), HUMAN], seed=seed)
        if game["turn"]["seat"] == 0:
            break
    assert game["turn"]["seat"] == 0, "a seed where the greedy AI moves first"
    appends = counting_appends(api, monkeypatch)
    assert jobs.ai_turn(game["id"], game["version"]) == "played 2 turn(s)"
    assert len(appends) == 1, appends
    (authors,) = appends
    assert authors[0] == "ai:0" and authors[-1] == "ai:1" and authors == sorted(authors), authors
    after = api.runtime.games.load(game["id"])
    assert after.seat_to_move() == 2 or after.seat_to_move() is None, "the human's turn (or the round was won)"
    by = [e["by"] for e in stored(api, game["id"])][-len(authors) :]
    assert by == authors, "what is stored says who made each event"


def test_a_chain_of_quick_ais_leaves_the_job_a_turn_to_play_on_and_queues_the_rest(api, monkeypatch):
    """Four quick AIs in a row: the first append holds two turns, the job's last turn is an append alone, and the
    fourth AI's turn is queued (the job's bound holds, and nothing is left unqueued)."""
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("greedy"), ai("random")], seed=3)
    appends = counting_appends(api, monkeypatch)
    assert jobs.ai_turn(game["id"], game["version"]) == f"played {AI_TURNS_PER_JOB} turn(s)"
    seats = [sorted(set(authors)) for authors in appends]
    assert len(appends) == 2 and [len(s) for s in seats] == [2, 1], seats
    now = api.runtime.games.load(game["id"])
    assert now.seat_to_move() is not None, "with this seed the fourth AI is to move (every seat is an AI's)"
    assert any(job.id.endswith(f"-{now.version}") for job in api.runtime.queue.jobs), "its turn is queued"


def greedy_then_expert(api) -> tuple[str, dict]:
    token = api.player()["token"]
    for seed in range(1, 40):
        game = api.game(token, [ai("greedy"), ai("expert")], seed=seed)
        if game["turn"]["seat"] == 0:
            break
    assert game["turn"]["seat"] == 0, "a seed where the greedy AI moves first"
    return token, game


def test_an_expert_that_thinks_long_gets_a_job_of_its_own(api):
    """An expert that thinks for more than half the agenda's look after an append (RED7_EXPERT_SECONDS): a job never
    plays on into its turn, it queues it."""
    api.runtime.dispatcher.play_on_levels = play_on_levels(RECHECK_AFTER, RECHECK_AFTER)  # thinks 3 s
    _, game = greedy_then_expert(api)
    assert jobs.ai_turn(game["id"], game["version"]) == "played 1 turn(s)"
    after = api.runtime.games.load(game["id"])
    assert after.seat_to_move() == 1, "the expert is to move"
    assert any(job.id.endswith(f"-{after.version}") for job in api.runtime.queue.jobs), "the expert's turn is queued"


def test_a_job_plays_on_into_an_expert_that_thinks_briefly(api, monkeypatch):
    """By default an expert thinks a second, well within the agenda's look: the job that played before it plays its
    turn too (one job, not two), and queues nothing for it."""
    assert api.runtime.settings.expert_seconds * 2 <= RECHECK_AFTER
    assert "expert" in api.runtime.dispatcher.play_on_levels
    _, game = greedy_then_expert(api)

    def queued_for(version: int) -> str:
        return f"{api.runtime.dispatcher.namespace}-ai_turn-{game['id']}-{version}"

    appends = counting_appends(api, monkeypatch)
    played = jobs.ai_turn(game["id"], game["version"])
    assert played != "played 1 turn(s)", played
    assert [sorted(set(authors)) for authors in appends[:2]] == [["ai:0"], ["ai:1"]], "the expert's move is an append of its own"
    by = [e["by"] for e in stored(api, game["id"]) if e["by"].startswith("ai:")]
    assert "ai:1" in by, "the expert moved in the same job"
    after = api.runtime.games.load(game["id"])
    queued = [job.id for job in api.runtime.queue.jobs if f"-ai_turn-{game['id']}-" in job.id]
    # the turn queued with the game (run by hand above), perhaps the next after the job; none for the expert's turn
    assert set(queued) <= {queued_for(game["version"]), queued_for(after.version)}, queued


def test_ai_turn_does_nothing_when_a_human_is_to_move(api):
    _, _, game = two_humans(api)
    assert jobs.ai_turn(game["id"], game["version"]).startswith("nothing to do")


@pytest.mark.parametrize("level", ["random", "greedy", "expert"])
def test_every_level_plays_a_whole_game_with_the_action_rules(api, level):
    token = api.player()["token"]
    game = api.game(token, [ai(level), ai("random"), ai("greedy")], action_rules=True, seed=5)
    api.run_jobs()
    final = api.view(game["id"], token)
    assert final["status"] == "finished"
    assert any(e["by"] == "ai:0" for e in stored(api, game["id"]))


def test_a_finished_game_keeps_for_good_only_its_stream_of_compact_events_and_its_version(api):
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("greedy")], action_rules=True, seed=11)
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    store = api.runtime.store
    kept = {key: store.redis.ttl(key) for key in store.redis.scan_iter(match=f"*{{{game['id']}}}*")}
    forever = sorted(key.rsplit(":", 1)[-1] for key, ttl in kept.items() if ttl == -1)
    assert forever == ["events", "export", "version"]  # its export line is kept with it (service/storage/export_lines.py)
    assert 0 < kept[store._key(game["id"], "snapshot")] <= FINISHED_SNAPSHOT_TTL, "a snapshot is kept a day, then refolded"
    payloads = [e.payload for e in store.read(game["id"])]
    engine = [p for p in payloads if decode(p)["type"] not in LOBBY_TYPES]
    assert engine and all(p.startswith("[") for p in engine), "engine events are stored in the compact form"
    store.redis.delete(store._key(game["id"], "snapshot"))  # the day is over
    api.runtime.games.loader.forget(game["id"])
    assert api.view(game["id"], token)["status"] == "finished", "folded again from its stream"


def test_score_round_scores_and_deals_once(api):
    ana, bo, game = two_humans(api, seed=21)
    mover = api.view(game["id"], ana["token"])["turn"]["seat"]
    api.act(game["id"], [ana, bo][mover]["token"], [{"type": "fold"}])
    loaded = api.runtime.games.load(game["id"])
    assert loaded.state.phase.value == "round_won"
    assert jobs.score_round(game["id"], loaded.version) == "scored"
    types = [e["type"] for e in stored(api, game["id"])]
    assert types[-2:] == ["round_scored", "round_dealt"]
    assert jobs.score_round(game["id"], loaded.version).startswith("nothing to do")
    assert [e["type"] for e in stored(api, game["id"])] == types
    assert api.view(game["id"], ana["token"])["round"] == 2


def _late(monkeypatch, seconds: float) -> list[float]:
    """Make the deadline check believe ``seconds`` have passed; a job's sleep moves this clock on.

    Returns the list of the sleeps the job took.
    """
    offset = [seconds]
    slept: list[float] = []

    def sleep(duration: float) -> None:
        slept.append(duration)
        offset[0] += duration

    monkeypatch.setattr(context.runtime(), "clock", lambda: datetime.now(UTC) + timedelta(seconds=offset[0]))
    monkeypatch.setattr(jobs.time, "sleep", sleep)
    return slept


def test_turn_deadline_folds_the_stalled_seat_once(api, monkeypatch):
    _, _, game = two_humans(api, turn_timeout=30, seed=2)
    version = game["version"]
    slept = _late(monkeypatch, 31)
    mover = game["turn"]["seat"]
    assert jobs.turn_deadline(game["id"], version) == f"seat {mover} timed out (fold)"
    assert slept == []
    events = stored(api, game["id"])
    assert [e["type"] for e in events[version:]][:2] == ["turn_timed_out", "player_eliminated"]
    assert events[version + 1]["reason"] == "folded"
    assert jobs.turn_deadline(game["id"], version).startswith("nothing to do")


def test_a_deadline_job_run_well_before_its_deadline_puts_the_game_back_on_the_agenda_and_changes_nothing(api):
    """Its deadline moved later (a vacation declared since it was queued, time given): the agenda looks at the game
    again at the deadline as it is now, and no retry is spent waiting for it."""
    _, _, game = two_humans(api, turn_timeout=30, seed=2)
    api.runtime.dispatcher.agenda.forget(game["id"])
    assert jobs.turn_deadline(game["id"], game["version"]).startswith("not yet due")
    assert len(stored(api, game["id"])) == game["version"]
    deadline = datetime.fromisoformat(game["turn"]["deadline"].replace("Z", "+00:00"))
    assert api.runtime.dispatcher.agenda.when(game["id"]) == int(deadline.timestamp() * 1000)


def test_a_deadline_job_run_just_before_its_deadline_waits_for_it(api, monkeypatch):
    """RQ schedules in whole seconds, and hosts' clocks differ: an early job must not drop the deadline."""
    _, _, game = two_humans(api, turn_timeout=30, seed=2)
    deadline = datetime.fromisoformat(game["turn"]["deadline"].replace("Z", "+00:00"))
    # 0.8 s before the deadline from now, whatever the game's setup took on a busy machine.
    slept = _late(monkeypatch, (deadline - datetime.now(UTC)).total_seconds() - 0.8)
    mover = game["turn"]["seat"]
    assert jobs.turn_deadline(game["id"], game["version"]) == f"seat {mover} timed out (fold)"
    assert len(slept) == 1 and 0.7 < slept[0] <= 0.8


def test_turn_deadline_after_the_move_does_nothing(api, monkeypatch):
    ana, bo, game = two_humans(api, turn_timeout=30, seed=2)
    mover = game["turn"]["seat"]
    api.act(game["id"], [ana, bo][mover]["token"], [{"type": "fold"}])
    _late(monkeypatch, 31)
    assert jobs.turn_deadline(game["id"], game["version"]).startswith("nothing to do")


def test_turn_deadline_can_let_an_ai_play_the_turn(api, monkeypatch):
    _, _, game = two_humans(api, turn_timeout=30, timeout_action="ai", seed=2)
    _late(monkeypatch, 31)
    assert jobs.turn_deadline(game["id"], game["version"]).endswith("(ai)")
    events = stored(api, game["id"])[game["version"] :]
    assert events[0]["type"] == "turn_timed_out" and events[0]["action"] == "ai"
    turn_events = {"card_played", "card_discarded", "card_drawn", "card_taken", "card_placed"}
    assert {e["type"] for e in events[1:]} - LOBBY_TYPES <= turn_events | {"turn_started", "player_eliminated", "round_won"}
    assert all(e["by"] == "system:deadline" for e in events)


class Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[dict[str, str], bytes]]] = []
    status = 204

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Receiver.received.append((dict(self.headers), body))
        self.send_response(Receiver.status)
        if 300 <= Receiver.status < 400:
            self.send_header("Location", "/elsewhere")
        self.end_headers()

    def do_GET(self) -> None:  # only a followed redirect would come here
        Receiver.received.append((dict(self.headers), b"GET"))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def receiver():
    Receiver.received = []
    Receiver.status = 204
    with serving(Receiver, "receiver") as server:
        yield f"{server.base}/hook"


def verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """What a receiver does (as docs/live-feeds.md documents; tests/test_doc_blocks.py runs its own code)."""
    timestamp = headers["X-Red7-Timestamp"]
    expected = "v1=" + hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    fresh = abs(datetime.now(UTC).timestamp() - int(timestamp)) < 300
    return fresh and hmac.compare_digest(expected, headers["X-Red7-Signature"])


def test_notify_posts_a_signed_event_the_receiver_can_verify(api, receiver):
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    game = api.game(token, [HUMAN, ai()])
    assert jobs.notify(game["id"], game["version"], me["id"], "your_turn").startswith("delivered")
    headers, body = Receiver.received[-1]
    assert verify(me["webhook_secret"], headers, body)
    assert not verify("another secret", headers, body)
    event = json.loads(body)
    assert event["event"] == "your_turn" and event["game_id"] == game["id"] and event["player_id"] == me["id"]
    assert event["game_url"] == f"/v1/games/{game['id']}"  # no RED7_PUBLIC_URL: the path only


def test_webhooks_link_to_the_game_on_the_public_url(api, runtime, receiver, monkeypatch):
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    game = api.game(token, [HUMAN, ai()])
    public = Settings.from_env({"RED7_PUBLIC_URL": "https://red7.example.com/"}).public_url
    monkeypatch.setattr(runtime, "settings", replace(runtime.settings, public_url=public))
    assert jobs.notify(game["id"], game["version"], me["id"], "your_turn").startswith("delivered")
    assert json.loads(Receiver.received[-1][1])["game_url"] == f"https://red7.example.com/v1/games/{game['id']}"


def test_notify_without_a_webhook_does_nothing(api):
    player = api.player()
    game = api.game(player["token"], [HUMAN, ai()])
    assert jobs.notify(game["id"], game["version"], player["id"], "your_turn") == "no webhook"


def test_a_refusing_webhook_is_a_permanent_failure_and_a_down_one_is_retried(api, receiver):
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    Receiver.status = 410
    with pytest.raises(jobs.PermanentJobError):
        jobs.notify("g_x", 1, me["id"], "your_turn")
    Receiver.status = 503
    with pytest.raises(OSError):
        jobs.notify("g_x", 1, me["id"], "your_turn")


def test_a_redirecting_webhook_is_not_followed(api, receiver):
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    Receiver.status = 302
    with pytest.raises(jobs.PermanentJobError, match="redirects are not followed"):
        jobs.notify("g_x", 1, me["id"], "your_turn")
    assert len(Receiver.received) == 1 and Receiver.received[0][1] != b"GET"


def test_webhooks_to_private_addresses_are_refused_unless_allowed(api, runtime, receiver, monkeypatch):
    """A player's URL must not make the workers call the deployment's internal services (SSRF)."""
    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    monkeypatch.setattr(runtime, "settings", replace(runtime.settings, webhook_private_hosts=False))
    with pytest.raises(jobs.PermanentJobError, match="not a public address"):
        jobs.notify("g_x", 1, me["id"], "your_turn")
    assert Receiver.received == []


def test_permanent_errors_skip_the_retries():
    class FakeJob:
        retries_left = 3

    job = FakeJob()
    fail_fast_on_permanent_errors(job, ValueError, ValueError(), None)
    assert job.retries_left == 3
    fail_fast_on_permanent_errors(job, jobs.PermanentJobError, jobs.PermanentJobError(), None)
    assert job.retries_left == 0


def test_jobs_are_queued_with_retries_and_json(api):
    token = api.player()["token"]
    api.game(token, [ai("random"), ai("greedy")])
    job = api.runtime.queue.jobs[0]
    assert job.retries_left == 4 and job.retry_intervals == [1, 3, 10, 30]
    raw = api.runtime.raw_redis.hget(f"rq:job:{job.id}", "data")
    assert json.loads(zlib.decompress(raw))[0] == "ai_turn"  # JSON (zlib-compressed by RQ), not pickle


def test_the_expert_job_hands_the_ai_only_its_seats_projection_and_redacted_history(api, monkeypatch):
    from engine import CardDrawn, GameStarted, GameState, RoundDealt, View
    from engine.expert import ExpertBot

    seen_calls = []
    real = ExpertBot.plan_view

    def spy(self, seen, history):
        seen_calls.append((seen, list(history)))
        return real(self, seen, history)

    monkeypatch.setattr(ExpertBot, "plan_view", spy)
    token = api.player()["token"]
    game = api.game(token, [ai("expert"), ai("random"), ai("random")], action_rules=True, seed=8)
    for _ in range(30):
        loaded = api.runtime.games.load(game["id"])
        if loaded.status != "active":
            break
        seat = loaded.seat_to_move()
        if seat is not None:
            jobs.ai_turn(game["id"], loaded.version)
        else:
            jobs.score_round(game["id"], loaded.version)
    assert seen_calls, "the expert never moved"
    for seen, history in seen_calls:
        assert isinstance(seen, View) and not isinstance(seen, GameState) and seen.viewer == 0
        for event in history:
            if isinstance(event, GameStarted):
                assert event.seed is None and event.deck is None
            if isinstance(event, RoundDealt):
                assert event.deck is None and all(hand is None for s, hand in enumerate(event.hands) if s != 0)
            if isinstance(event, CardDrawn) and event.seat != 0:
                assert event.card is None


def notify_through_the_queue(api, receiver: str, status: int) -> None:
    """A player with a webhook that answers ``status``, notified by a queued job run by a worker."""
    from service.application.followups import Due

    token = api.player()["token"]
    me = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
    Receiver.status = status
    assert api.runtime.dispatcher.enqueue(Due("notify", "g_x", 1, (me["id"], "your_turn")))
    api.run_jobs()


def test_a_permanent_failure_lands_in_the_failed_registry_with_its_reason(api, receiver):
    notify_through_the_queue(api, receiver, 410)
    failed = api.runtime.webhook_queue.failed_job_registry
    assert failed.count == 1
    job = api.runtime.webhook_queue.fetch_job(failed.get_job_ids()[0])
    assert job.retries_left == 0 and "the webhook refused the event with 410" in job.latest_result().exc_string


def test_a_transient_failure_is_retried_later(api, receiver):
    notify_through_the_queue(api, receiver, 503)
    scheduled = api.runtime.webhook_queue.scheduled_job_registry
    assert scheduled.count == 1 and api.runtime.webhook_queue.failed_job_registry.count == 0
    job = api.runtime.webhook_queue.fetch_job(scheduled.get_job_ids()[0])
    # One of four retries used, the next after the backoff: or two, as RQ rounds the 1 s retry's time
    # down to a whole second, which the drain may already find due.
    assert job.retries_left in (2, 3)


def _listening(api, url: str) -> str:
    """A new player whose webhook is ``url``: their id."""
    token = api.player()["token"]
    return api.call("PATCH", "/v1/players/me", token, json={"webhook_url": url}).get_json()["id"]


def _statuses(api, items) -> list[str]:
    from rq.job import Job

    queue, namespace = api.runtime.webhook_queue, api.runtime.dispatcher.namespace
    return [
        Job.fetch(item.job_id(namespace), connection=queue.connection, serializer=queue.serializer).get_status() for item in items
    ]


def test_a_receiver_s_deliveries_wait_in_its_line_and_no_other_receiver_s_do(api, receiver):
    """One delivery to a receiver (host and port) on its way at a time, whoever it is for: the rest wait in its line,
    and each that ends hands its place to the next; another receiver's delivery is queued at once."""
    from service.jobqueue.dispatch import Due
    from workers.runner import thread_worker

    port = receiver.split(":")[2].split("/")[0]
    ana, bo = _listening(api, receiver), _listening(api, receiver.replace("/hook", "/bo"))  # one host and port
    cy = _listening(api, f"http://127.0.0.2:{port}/hook")  # another receiver (nobody listens there)
    items = [
        Due("notify", "g_a", 1, (ana, "your_turn")),
        Due("notify", "g_a", 2, (ana, "round_over")),
        Due("notify", "g_b", 3, (bo, "your_turn")),
        Due("notify", "g_c", 4, (cy, "your_turn")),
    ]
    dispatcher, queue = api.runtime.dispatcher, api.runtime.webhook_queue
    assert all(dispatcher.enqueue(item) for item in items)
    assert _statuses(api, items) == ["queued", "rate_limited", "rate_limited", "queued"]
    assert queue.job_ids == [items[0].job_id(dispatcher.namespace), items[3].job_id(dispatcher.namespace)]
    assert not dispatcher.enqueue(items[1]), "a delivery waiting in its line is on its way: not queued twice"

    thread_worker(api.runtime, [queue]).work(burst=True, max_jobs=1, logging_level="WARNING")
    assert [json.loads(body)["version"] for _, body in Receiver.received] == [1]
    assert _statuses(api, items[1:3]) == ["queued", "rate_limited"], "the first delivery handed its place on"
    api.run_jobs()
    assert [json.loads(body)["version"] for _, body in Receiver.received] == [1, 2, 3]


def test_a_delivery_waiting_out_a_retry_leaves_its_place_and_comes_back_to_the_end_of_the_line(api, receiver):
    from service.jobqueue.dispatch import Due
    from workers.runner import thread_worker
    from workers.ticker import Ticker

    ana = _listening(api, receiver)
    first, second = Due("notify", "g_a", 1, (ana, "your_turn")), Due("notify", "g_a", 2, (ana, "your_turn"))
    dispatcher, queue = api.runtime.dispatcher, api.runtime.webhook_queue
    assert dispatcher.enqueue(first) and dispatcher.enqueue(second)
    Receiver.status = 503
    thread_worker(api.runtime, [queue]).work(burst=True, max_jobs=1, logging_level="CRITICAL")
    assert _statuses(api, [first, second]) == ["scheduled", "queued"], "the failed one left its place to the next"
    ticker = Ticker(api.runtime, "test-ticker")
    deadline = time.monotonic() + 5
    while _statuses(api, [first])[0] == "scheduled" and time.monotonic() < deadline:
        ticker.enqueue_scheduled()  # RQ's retry, due after its pause (whole seconds)
        time.sleep(0.1)
    assert _statuses(api, [first, second]) == ["rate_limited", "queued"], "back, at the end of its receiver's line"
    Receiver.status = 204
    api.run_jobs()
    assert [json.loads(body)["version"] for _, body in Receiver.received] == [1, 2, 1]


def test_a_rematch_offer_reaches_the_other_players_webhook_and_its_job_makes_the_rematch_once(api, receiver):
    from tests.service.http.test_api_abort_rematch import finished

    ana, bo, game_id = finished(api)
    hooked = api.call("PATCH", "/v1/players/me", bo["token"], json={"webhook_url": receiver}).get_json()
    api.call("POST", f"/v1/games/{game_id}/rematch", ana["token"])
    api.run_jobs()
    offers = [json.loads(body) for _, body in Receiver.received if json.loads(body)["event"] == "rematch_offered"]
    assert [(o["game_id"], o["player_id"]) for o in offers] == [(game_id, bo["id"])]
    assert verify(hooked["webhook_secret"], *Receiver.received[-1])
    rematch = api.call("POST", f"/v1/games/{game_id}/rematch", bo["token"]).get_json()["rematch"]
    version = api.runtime.games.load(game_id).version
    assert jobs.start_rematch(game_id, version).startswith("rematch")  # made already by the offer: nothing twice
    assert api.runtime.games.load(game_id).version == version and api.runtime.store.version(rematch) > 0
