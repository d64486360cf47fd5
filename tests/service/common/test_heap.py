"""The collector's settings of a long-lived process (``service/common/heap.py``): a ``red7 worker`` and a gunicorn worker."""

from __future__ import annotations

import gc

from service.common.heap import GC_YOUNG, settle_heap
from service.processes import gunicorn_config
from workers import runner


def test_a_process_freezes_its_start_out_of_the_collectors_sight_and_collects_the_young_less_often():
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


def test_both_kinds_of_process_settle_their_heap_once_started():
    assert runner.settle_heap is settle_heap, "red7 worker, before its runners start"
    before = gc.get_threshold()
    try:
        gunicorn_config.post_worker_init(object())  # gunicorn calls it in each worker once the app is loaded
        assert gc.get_freeze_count() > 0 and gc.get_threshold() == (GC_YOUNG, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
