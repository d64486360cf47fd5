"""A ``red7 worker``'s process settings (``workers/runner.py``)."""

from __future__ import annotations

import gc

from workers.runner import GC_YOUNG, settle_heap


def test_a_worker_freezes_its_start_out_of_the_collectors_sight_and_collects_the_young_less_often():
    before = gc.get_threshold()
    kept = [object()]  # a start's object (tracked by the collector), alive as long as the process
    try:
        settle_heap()
        assert gc.get_freeze_count() > 0 and gc.get_threshold() == (GC_YOUNG, *before[1:])
        assert gc.is_tracked(kept) and not any(o is kept for o in gc.get_objects()), "frozen: no collection walks it"
        made = [[]]  # what a job makes after start is collected as before
        assert gc.is_tracked(made) and any(o is made for o in gc.get_objects())
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
