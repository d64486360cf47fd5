"""A move's notices in one job (``workers/notices.py``): delivered at once, each that fails handed to its own line."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from service.application.followups import Due
from service.jobqueue.dispatch import receiver as receiver_of
from tests.harness.loopback import LoopbackServer
from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)
from workers import notices
from workers.runner import thread_worker

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def hooked(api, url: str) -> dict:
    """A new player whose webhook is ``url``."""
    token = api.player()["token"]
    return api.call("PATCH", "/v1/players/me", token, json={"webhook_url": url}).get_json()


def run_one(api) -> None:
    """Run the first job of the webhook queue (and no other)."""
    thread_worker(api.runtime, [api.runtime.webhook_queue]).work(burst=True, max_jobs=1, logging_level="CRITICAL")


def queued(api) -> list[str]:
    """The names of the jobs on the webhook queue."""
    return [job.func_name for job in api.runtime.webhook_queue.jobs]


def bodies() -> list[dict]:
    return [json.loads(body) for _, body in Receiver.received]


def test_the_notices_of_one_move_are_one_job_that_tells_everyone(api, receiver):  # noqa: F811 (the fixture)
    ana, bo = hooked(api, receiver), hooked(api, receiver.replace("/hook", "/bo"))
    dispatcher = api.runtime.dispatcher
    dispatcher.notify([Due("notify", "g_a", 7, (ana["id"], "your_turn")), Due("notify", "g_a", 7, (bo["id"], "round_over"))])
    assert queued(api) == ["notices"], "one job for the move, in no receiver's line"
    dispatcher.notify([Due("notify", "g_a", 7, (ana["id"], "your_turn")), Due("notify", "g_a", 7, (bo["id"], "round_over"))])
    assert queued(api) == ["notices"], "the same notices queued again are the same job"
    run_one(api)
    assert sorted((b["player_id"], b["event"], b["version"]) for b in bodies()) == sorted(
        [(ana["id"], "your_turn", 7), (bo["id"], "round_over", 7)]
    )
    in_order = sorted(Receiver.received, key=_whose(ana))
    assert all(verify(p["webhook_secret"], *r) for p, r in zip([ana, bo], in_order, strict=True)), "each signed for its player"
    assert queued(api) == [] and api.runtime.webhook_queue.failed_job_registry.count == 0


def _whose(first: dict):
    return lambda received: json.loads(received[1])["player_id"] != first["id"]


def test_a_failed_delivery_is_handed_to_its_receivers_line_and_the_next_moves_go_there_at_once(api, receiver):  # noqa: F811
    ana = hooked(api, receiver)
    dispatcher = api.runtime.dispatcher
    Receiver.status = 503
    dispatcher.notify([Due("notify", "g_a", 1, (ana["id"], "your_turn"))])
    run_one(api)
    assert len(Receiver.received) == 1
    retry = Due("notify", "g_a", 1, (ana["id"], "your_turn")).job_id(dispatcher.namespace)
    assert api.runtime.webhook_queue.job_ids == [retry], "its own job, in its receiver's line"
    assert notices.receivers.troubled(receiver_of(receiver))

    dispatcher.notify([Due("notify", "g_a", 2, (ana["id"], "your_turn"))])
    run_one(api)  # the retry of version 1: the receiver still answers 503 (RQ retries it later)
    run_one(api)  # the notices job of version 2: its receiver is troubled, so it is handed over without a try
    assert len(Receiver.received) == 2
    later = Due("notify", "g_a", 2, (ana["id"], "your_turn")).job_id(dispatcher.namespace)
    assert later in api.runtime.webhook_queue.job_ids

    Receiver.status = 204
    run_one(api)  # the line's delivery gets through: the receiver is well again
    assert not notices.receivers.troubled(receiver_of(receiver))
    assert [b["version"] for b in bodies()] == [1, 1, 2]


def test_a_refusal_no_retry_mends_is_not_handed_over(api, receiver):  # noqa: F811 (the fixture)
    ana = hooked(api, receiver)
    Receiver.status = 410
    api.runtime.dispatcher.notify([Due("notify", "g_a", 1, (ana["id"], "your_turn"))])
    run_one(api)
    assert len(Receiver.received) == 1 and queued(api) == []
    assert not notices.receivers.troubled(receiver_of(receiver))


def test_a_hanging_receiver_costs_one_budget_and_delays_no_other(api, receiver, monkeypatch):  # noqa: F811
    """Bo's receiver hears of the move while Ana's hangs; Ana's delivery goes to her line after the budget."""
    monkeypatch.setattr(notices, "NOTICE_BUDGET", 0.5)
    release = threading.Event()
    tried: list[float] = []  # when the hanging receiver was called

    class Hanging(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            tried.append(time.monotonic())
            self.rfile.read(int(self.headers["Content-Length"]))
            release.wait(10)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hanging = LoopbackServer(Hanging, "hanging-receiver")
    try:
        url = f"{hanging.base}/hook"
        ana, bo = hooked(api, url), hooked(api, receiver)
        dispatcher = api.runtime.dispatcher
        finished = [Due("notify", "g_a", 1, (p["id"], "game_finished")) for p in (ana, bo)]
        dispatcher.notify(finished)
        started = time.monotonic()
        run_one(api)
        took = time.monotonic() - started
        assert [b["player_id"] for b in bodies()] == [bo["id"]]
        assert took < 0.5 + 1.0, f"the job waited {took:.1f} s"
        handed = Due("notify", "g_a", 1, (ana["id"], "game_finished")).job_id(dispatcher.namespace)
        assert api.runtime.webhook_queue.job_ids == [handed] and notices.receivers.troubled(receiver_of(url))

        dispatcher.notify([Due("notify", "g_a", 2, (ana["id"], "your_turn")), Due("notify", "g_a", 2, (bo["id"], "round_over"))])
        started = time.monotonic()
        jobs = api.runtime.webhook_queue.job_ids
        api.runtime.webhook_queue.remove(handed)  # leave the hanging line's job be: run the move's notices alone
        run_one(api)
        # A troubled receiver is not tried: nothing waited for (counted, not timed: a starved machine is slow anyway).
        assert len(tried) == 1, f"the hanging receiver was tried {len(tried)} times"
        assert time.monotonic() - started < 0.5 + 1.0
        assert [b["event"] for b in bodies()] == ["game_finished", "round_over"]
        assert len(jobs) == 2
    finally:
        release.set()
        hanging.close()


def test_a_receiver_with_a_delivery_under_way_too_long_is_passed_over(monkeypatch):
    """The moves that come while a first delivery to a hanging receiver waits out its budget are handed to its line."""
    monkeypatch.setattr(notices.receivers, "slow_after", 1.0)  # long enough that the look just after it began is "a moment"
    started, release = threading.Event(), threading.Event()

    def hangs() -> str:
        started.set()
        release.wait(5)
        return "late"

    hanging = frozenset({"hangs.example:443"})
    attempt = threading.Thread(target=notices.receivers.attempt, args=(hanging, hangs, notices.receivers.claim(hanging)))
    attempt.start()
    try:
        assert started.wait(5)
        assert not notices.receivers.troubled("hangs.example:443"), "under way a moment: not yet passed over"
        quick = frozenset({"quick.example:443"})
        assert notices.receivers.attempt(quick, lambda: "ok", notices.receivers.claim(quick)) == "ok"
        time.sleep(1.1)
        assert notices.receivers.troubled("hangs.example:443") and not notices.receivers.troubled("quick.example:443")
    finally:
        release.set()
        attempt.join(5)
    assert not notices.receivers.troubled("hangs.example:443"), "no longer under way"


# --- a receiver never heard from takes one delivery at a time ------------------------------------------------------


def _deliveries(count: int, send) -> list:
    """``count`` deliveries to one receiver, each sent by ``send``."""
    to = frozenset({"hooks.example:443"})
    return [notices._Delivery(to, send, Due("notify", "g_a", n, ("p_1", "your_turn"))) for n in range(count)]


class _Sends:
    """A receiver's deliveries: how many were sent, and how many at most were under way at once."""

    def __init__(self, takes: float, release: threading.Event | None = None) -> None:
        self.takes, self.release = takes, release
        self.sent = self.now = self.most = 0
        self.lock = threading.Lock()

    def __call__(self) -> str:
        with self.lock:
            self.sent += 1
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            if self.release is not None:
                self.release.wait(5)
            else:
                time.sleep(self.takes)
        finally:
            with self.lock:
                self.now -= 1
        return "ok"


def test_a_burst_to_a_receiver_never_heard_from_sends_it_one_delivery_and_hands_the_rest_over_soon():
    """Four moves' notices to a receiver that hangs, at once (a worker starting with a backlog): one delivery learns
    that it hangs; the other jobs wait for it no longer than SLOW_AFTER, then hand theirs to its line, and free their
    runner threads for the other players' notices (they all waited out a budget each)."""
    release = threading.Event()
    hangs = _Sends(0, release)
    outcomes: list[tuple[int, int, float]] = []
    probes: list = []  # the attempts started, waited for at the end: one ending later would mark the receiver as heard

    def job() -> None:
        began = time.monotonic()
        started, handed = notices._take_turns(_deliveries(1, hangs))
        outcomes.append((len(started), len(handed), time.monotonic() - began))
        probes.extend(started)

    jobs = [threading.Thread(target=job) for _ in range(4)]
    try:
        for thread in jobs:
            thread.start()
        for thread in jobs:
            thread.join(5)
        assert hangs.sent == 1, f"{hangs.sent} deliveries sent to a receiver not heard from"
        assert sorted((s, h) for s, h, _ in outcomes) == [(0, 1), (0, 1), (0, 1), (1, 0)]
        assert max(took for _, _, took in outcomes) < notices.SLOW_AFTER + 0.5
    finally:
        release.set()
        for probe in probes:
            probe.result(5)


def test_a_receiver_heard_from_lately_takes_a_move_s_deliveries_all_at_once():
    """A receiver that answered takes any number at once (a frontend's one server for all its players' webhooks)."""
    quick = _Sends(0.1)  # well under SLOW_AFTER
    started, handed = notices._take_turns(_deliveries(1, quick))
    for future in started:
        future.result(5)
    started, handed = notices._take_turns(_deliveries(6, quick))
    for future in started:
        future.result(5)
    assert len(started) == 6 and handed == []
    assert quick.most == 6, f"at most {quick.most} under way at once"


def test_a_receiver_never_heard_from_that_answers_gets_every_delivery_after_its_first():
    quick = _Sends(0.01)
    began = time.monotonic()
    started, handed = notices._take_turns(_deliveries(5, quick))
    for future in started:
        future.result(5)
    assert len(started) == 5 and handed == [] and quick.sent == 5
    assert time.monotonic() - began < notices.SLOW_AFTER + 0.5, "the others went as soon as the first answered"
