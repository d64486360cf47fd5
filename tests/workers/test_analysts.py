"""Analysts: analyses computed in a child process at the lowest CPU priority, taken from the fair queue (issue 34).

The child gives byte for byte what the analysis gives in-process; a stop or a lost lease kills it and gives the
analysis back; its death fails the analysis without killing the analyst, whose next analysis starts a new child.
What this does to AI turns on the production shape is ``tests/faults/test_analysis_queue.py`` and
``bench/analysis_flood_bench.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from replays.analysis import analyse_document
from service.application.analysis import AnalysisInterrupted
from service.jobqueue.analysis_queue import Taken
from tests.harness.support import HUMAN, ai, play_out
from workers.analyst import (
    STEP_ASIDE,
    STEP_ASIDE_MOST,
    AnalysisFailed,
    Analyst,
    Interrupted,
    Pacer,
    busy_at,
    runnable_besides_me,
    step_aside,
)
from workers.analysts import AnalysisRunner

ROOT = Path(__file__).resolve().parents[2]


def finished(api: Any, seed: int = 5) -> tuple[dict[str, Any], dict[str, Any]]:
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy")], variant="basic", seed=seed)
    play_out(api, game["id"], ana["token"])
    return ana, game


def document(runtime: Any, game_id: str) -> dict[str, Any]:
    return runtime.games.replay(runtime.games.load(game_id), None)


def wait_for(check: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")
@pytest.mark.every_store
def test_the_child_computes_at_the_lowest_priority(api, runtime):
    """Only the priority: at SCHED_IDLE a whole analysis can take minutes on a busy CI host, so the test stops it once
    the child has begun (the next test computes whole analyses at the priority of the rest)."""
    _, game = finished(api)
    replay = document(runtime, game["id"])
    analyst = Analyst("test-analyst")
    seen: list[int] = []

    def look() -> bool:
        if analyst.process is not None:
            seen.append(os.sched_getscheduler(analyst.process.pid))
        return not seen

    try:
        with pytest.raises(Interrupted):
            analyst.analyse(replay, lambda done, total: None, keep_going=look)
    finally:
        analyst.close()
    assert seen == [os.SCHED_IDLE]


@pytest.mark.every_store
def test_the_child_gives_what_the_analysis_gives_in_process(api, runtime):
    _, game = finished(api)
    replay = document(runtime, game["id"])
    analyst = Analyst("test-analyst", paced=False, lowest=False)
    told: list[tuple[int, int]] = []
    try:
        result = analyst.analyse(replay, lambda done, total: told.append((done, total)))
        again = analyst.analyse(replay, lambda done, total: None)  # the same child, a second task
    finally:
        analyst.close()
    expected = json.dumps(analyse_document(replay), sort_keys=True)
    assert json.dumps(result, sort_keys=True) == expected == json.dumps(again, sort_keys=True)
    total = len(result["decisions"])
    assert told == [(n, total) for n in range(1, total + 1)]


@pytest.mark.every_store
def test_a_stop_kills_the_child_and_its_death_fails_the_analysis_not_the_analyst(api, runtime):
    _, game = finished(api)
    replay = document(runtime, game["id"])
    analyst = Analyst("test-analyst", paced=False, lowest=False)
    try:
        with pytest.raises(Interrupted):
            analyst.analyse(replay, lambda done, total: None, keep_going=lambda: False)
        assert analyst.process is None
        started: list[int] = []

        def kill_it(done: int, total: int) -> None:
            if not started:
                started.append(analyst.process.pid)
                os.kill(analyst.process.pid, signal.SIGKILL)

        with pytest.raises(AnalysisFailed, match="ended"):
            analyst.analyse(replay, kill_it)
        with pytest.raises(AnalysisFailed, match="ValueError"):
            analyst.analyse({**replay, "complete": False}, lambda done, total: None)
        assert analyst.analyse(replay, lambda done, total: None)["decisions"], "a new child for the next"
        assert analyst.process.pid != started[0]
    finally:
        analyst.close()


@pytest.mark.every_store
def test_an_analyst_takes_each_players_turn_and_keeps_the_result(api, runtime):
    ana, game = finished(api, seed=5)
    bo = api.player("Bo")
    later = api.game(bo["token"], [HUMAN, ai("random")], variant="basic", seed=6)
    play_out(api, later["id"], bo["token"])
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", ana["token"]).status_code == 202
    assert api.call("POST", f"/v1/games/{later['id']}/analysis", bo["token"]).status_code == 202
    stop = threading.Event()
    runner = AnalysisRunner(runtime, stop, "test-analyst")
    try:
        for game_id in (game["id"], later["id"]):
            wait_for(lambda g=game_id: runtime.analyses.done(g), 60, f"the analysis of {game_id}")
        assert runtime.shards[0].analyses.waiting() == [] and runtime.shards[0].analyses.running() == {}
        assert list(runtime.analyses.pending()) == [], "out of the index of analyses asked for"
    finally:
        stop.set()
        runner.finish(time.monotonic() + 10)
    assert not runner.thread.is_alive() and runner.analyst.process is None


@pytest.mark.every_store
def test_a_stopping_analyst_gives_its_analysis_back_for_another(api, runtime):
    ana, game = finished(api)
    queue = runtime.shards[0].analyses
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", ana["token"]).status_code == 202
    slow = threading.Event()
    stop = threading.Event()
    runner = AnalysisRunner(runtime, stop, "stops")
    original = runner.analyst.analyse

    def analyse_until_stopped(*args: Any, **kwargs: Any) -> dict[str, Any]:
        slow.set()
        keep_going = kwargs["keep_going"]
        while keep_going():  # as the child's wait does, without its result coming
            time.sleep(0.05)
        raise Interrupted("stopped")

    runner.analyst.analyse = analyse_until_stopped  # type: ignore[method-assign]
    try:
        slow.wait(30)
        assert queue.running() == {f"game:{game['id']}": ana["id"]}
        assert runtime.analyses.get(game["id"]).status == "running"
    finally:
        stop.set()
        runner.finish(time.monotonic() + 10)
    assert queue.running() == {} and queue.waiting() == [(ana["id"], f"game:{game['id']}")], "given back, not failed"
    assert runtime.analyses.get(game["id"]).status == "running"
    runner.analyst.analyse = original  # type: ignore[method-assign]
    api.run_jobs()  # another analyst (here: the tests' drain) takes it
    assert runtime.analyses.done(game["id"])


@pytest.mark.every_store
def test_an_interrupted_analysis_is_neither_done_nor_failed(api, runtime):
    ana, game = finished(api)
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", ana["token"]).status_code == 202

    def interrupted(document: dict[str, Any], progress: Any) -> dict[str, Any]:
        raise AnalysisInterrupted("its lease went to another analyst")

    with pytest.raises(AnalysisInterrupted):
        runtime.analyses.run(game["id"], interrupted)
    assert runtime.analyses.get(game["id"]).status == "running"
    assert [subject for subject, _, _ in runtime.analyses.pending()] == [game["id"]], "still asked for"


@pytest.mark.every_store
def test_an_analysis_whose_analyst_died_is_taken_over_once_its_lease_lapses(api, runtime):
    ana, game = finished(api)
    queue = runtime.shards[0].analyses
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", ana["token"]).status_code == 202
    taken = queue.take("dead-one", 0)  # taken long ago by an analyst that died: its lease lapsed
    assert taken == Taken(f"game:{game['id']}", ana["id"])
    stop = threading.Event()
    runner = AnalysisRunner(runtime, stop, "lives")
    try:
        wait_for(lambda: runtime.analyses.done(game["id"]), 60, "the analysis, taken over")
        assert queue.running() == {} and queue.waiting() == []
    finally:
        stop.set()
        runner.finish(time.monotonic() + 10)


# --- stepping aside -----------------------------------------------------------------------------------------------------


def test_the_child_steps_aside_while_others_would_leave_no_cpu_spare(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3 4\nprocs_running 5\nprocs_blocked 0\n")
    assert runnable_besides_me(str(stat)) == 4, "itself not counted"
    assert runnable_besides_me(str(tmp_path / "none")) is None
    assert [busy_at(2, 1), busy_at(8, 1), busy_at(1, 1), busy_at(2, 0), busy_at(4, 2)] == [1, 7, 1, 2, 2]
    busy = iter([3, 2, 1, 0, 0])  # others runnable at each look, on 2 CPUs with one left spare: busy at 1
    slept: list[float] = []
    assert step_aside(lambda: next(busy), busy_at(2, 1), slept.append) == pytest.approx(3 * STEP_ASIDE)
    assert len(slept) == 3, "it sleeps while another wants a CPU, and goes on once both would be free"
    assert step_aside(lambda: 9, 2, slept.append) == pytest.approx(STEP_ASIDE_MOST, abs=STEP_ASIDE), "then looks again"
    assert step_aside(lambda: None, 2, slept.append) == 0, "where the host does not say, it never waits"


def test_a_look_at_the_host_is_never_started_inside_another():
    """The profiling timer fires while the handler looks (a look costs CPU too): on a host busy for long, each firing
    began a look inside the last, until the stack overflowed.  A firing during a look is passed over."""
    looks = 0
    pacer: Pacer

    def others() -> int:
        nonlocal looks
        looks += 1
        if looks < 2000:  # the timer fires again while the host is looked at, far more often than the stack allows
            pacer()
        return 9 if looks < 3 else 0

    slept: list[float] = []
    pacer = Pacer(others, busy_at(2, 1), slept.append)
    pacer()
    assert looks == 3, "each firing during the look was passed over; the look went on to its end"
    assert len(slept) == 2
    pacer()
    assert looks == 4, "and the next firing after it looks again"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE and /proc/stat are Linux's")
def test_the_child_says_it_is_at_the_lowest_priority_and_paced():
    ended = subprocess.run(
        [sys.executable, "-m", "workers.analyst"], input=b"", capture_output=True, timeout=60, cwd=ROOT, check=True
    )
    assert b"at SCHED_IDLE, stepping aside while fewer than 1 CPU(s) would be left idle" in ended.stderr
    unpaced = subprocess.run(
        [sys.executable, "-m", "workers.analyst", "--unpaced"], input=b"", capture_output=True, timeout=60, cwd=ROOT
    )
    assert unpaced.returncode == 0 and b"stepping aside" not in unpaced.stderr


@pytest.mark.every_store
def test_an_analysis_a_redis_failed_under_is_given_back_not_failed(api, runtime, monkeypatch):
    ana, game = finished(api)
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", ana["token"]).status_code == 202
    queue = runtime.shards[0].analyses
    failed = threading.Event()
    run = runtime.analyses.run

    def away_once(subject_id: str, analyse: Any) -> str:
        if not failed.is_set():
            failed.set()
            raise redis.ConnectionError("the stores' Redis went away")
        return run(subject_id, analyse)

    monkeypatch.setattr(runtime.analyses, "run", away_once)
    stop = threading.Event()
    runner = AnalysisRunner(runtime, stop, "analyst")
    try:
        wait_for(lambda: runtime.analyses.done(game["id"]), 60, "the analysis, given back and taken again")
    finally:
        stop.set()
        runner.finish(time.monotonic() + 10)
    assert failed.is_set() and queue.waiting() == [] and queue.running() == {}
