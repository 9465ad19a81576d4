"""The ingest's worker pool: forked workers start with the inherited objects frozen."""

from __future__ import annotations

import gc
import importlib
import multiprocessing
import sys

import pytest

ingest_module = importlib.import_module("analytics.warehouse.ingest")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="only forked workers inherit the frozen objects")
def test_forked_workers_inherit_frozen_objects_and_this_process_unfreezes() -> None:
    assert gc.get_freeze_count() == 0
    pool = ingest_module._start_pool(2, multiprocessing.get_context("fork"))
    try:
        assert gc.get_freeze_count() == 0  # this process collects everything as before
        counts = [pool.apply_async(gc.get_freeze_count) for _ in range(4)]
        # Every object alive at the fork (this test's modules among them) is frozen there.
        assert all(result.get(timeout=60) > 1_000 for result in counts)
        assert pool.apply_async(sum, ([1, 2, 3],)).get(timeout=60) == 6  # they still work
        thresholds = pool.apply_async(gc.get_threshold).get(timeout=60)
        assert thresholds == ingest_module.WORKER_GC_THRESHOLD != gc.get_threshold()
    finally:
        pool.terminate()
        pool.join()


@pytest.mark.skipif(sys.platform != "linux", reason="spawn is slow; one platform is enough")
def test_spawned_workers_freeze_nothing_here() -> None:
    pool = ingest_module._start_pool(1, multiprocessing.get_context("spawn"))
    try:
        assert gc.get_freeze_count() == 0
        assert pool.apply_async(gc.get_freeze_count).get(timeout=120) == 0
    finally:
        pool.terminate()
        pool.join()
