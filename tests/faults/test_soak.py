"""A short soak (issue 42): the production shape under the mixed load and the seeded nemesis for a few minutes, then
the history checker, which must find nothing; then the same history tampered with, which it must find.

Bounded: the soak runs :data:`CI_MINUTES` of load, then at most ``bench.soak.run.SETTLE`` seconds of settling, and
stops every process it started (checked here from ``/proc``).  The hour is ``python -m bench.soak --minutes 60``.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

from bench.soak import checker
from bench.soak.nemesis import KINDS
from bench.soak.run import SETTLE, soak, summary

CI_SEED = 1
CI_MINUTES = 3.0
#: The whole test's bound (s): the load, the settle period, starting and stopping, the snapshot, on a busy machine.
BOUND = CI_MINUTES * 60 + SETTLE + 240


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its parent to reap it does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_short_soak_under_the_nemesis_finds_no_anomaly_and_the_checker_finds_a_planted_one(tmp_path):
    began = time.monotonic()
    soaked = soak(CI_MINUTES, CI_SEED, tmp_path)
    took = time.monotonic() - began
    print("\n" + "\n".join(summary(soaked)) + f"\nin {took:.0f} s")
    assert not soaked.failures, soaked.failures
    assert soaked.report.total == 0, soaked.report.lines()
    counts = soaked.history["counts"]
    assert {kind for kind in KINDS if counts.get(f"nemesis {kind}")} == set(KINDS), "every kind of fault came"
    assert counts["actions acknowledged"] > 100 and counts["games finished"] > 5 and soaked.history["stores"]["matches"]
    assert not [pid for pid in soaked.history["pids"] if alive(pid)], "a process of the soak outlived it"
    assert took < BOUND

    # The proof that the checker can fail: an acknowledged action taken out of its stream, and an acknowledgement
    # of an action that was never appended.
    tampered = copy.deepcopy(soaked.history)
    games = tampered["stores"]["games"]
    ack = next(a for a in tampered["acks"] if len(games[a["game"]]["events"]) > a["version"])  # not its stream's last
    stream = games[ack["game"]]["events"]
    stream[:] = [event for event in stream if event["n"] != ack["version"]]
    found = checker.check(tampered).anomalies
    assert found["lost"] >= 1 and found["gap"] >= 1, found
    tampered = copy.deepcopy(soaked.history)
    last = tampered["acks"][-1]
    end = len(tampered["stores"]["games"][last["game"]]["events"])
    tampered["acks"].append({**last, "before": end, "version": end + 1, "t": last["t"] + 1, "key": "never-appended"})
    assert checker.check(tampered).anomalies["lost"] == 1
