"""The checker proven able to fail on the running service (issue 42): a short soak, the nemesis and the load as in
tests/faults/test_soak.py, with a defect planted in the service's processes (:mod:`bench.soak.plants`: a monkeypatch
loaded through a ``sitecustomize.py`` of the soak's own, no switch in the service); the checker must report the
plant's anomaly kind, and no kind that does not follow from it.

Bounded: :data:`PLANT_MINUTES` of load, at most ``bench.soak.run.SETTLE`` s of settling, every process stopped.
"""

from __future__ import annotations

import time

from bench.soak import plants
from bench.soak.run import SETTLE, soak, summary
from tests.faults.test_soak import alive

PLANT_SEED = 3
PLANT_MINUTES = 1.5
BOUND = PLANT_MINUTES * 60 + SETTLE + 240


def test_a_short_soak_with_acknowledgements_for_appends_never_made_reports_them_lost(tmp_path) -> None:
    began = time.monotonic()
    soaked = soak(PLANT_MINUTES, PLANT_SEED, tmp_path, plant="drop_ack")
    took = time.monotonic() - began
    print("\n" + "\n".join(summary(soaked)) + f"\nin {took:.0f} s")
    logs = "\n".join(path.read_text(errors="replace") for path in (tmp_path / "run").glob("*.log"))
    dropped = logs.count("answered, not written")
    assert dropped >= 2, "the plant dropped appends (the soak's load made enough players' actions)"
    assert not soaked.failures, soaked.failures
    anomalies = soaked.report.anomalies
    assert plants.judged("drop_ack", anomalies) is None, soaked.report.lines()
    assert 1 <= anomalies["lost"] <= dropped, (dropped, soaked.report.lines())  # each found lost is one it dropped
    assert not [pid for pid in soaked.history["pids"] if alive(pid)], "a process of the soak outlived it"
    assert took < BOUND
