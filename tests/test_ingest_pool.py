"""The ingest's worker pool: every worker starts with ``pipeline.init_worker``."""

from __future__ import annotations

import gc
import importlib
import multiprocessing

import pytest

from analytics.warehouse.pipeline import work as pipeline

ingest_module = importlib.import_module("analytics.warehouse.pipeline.run")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="only forked workers inherit this process's objects")
def test_forked_workers_freeze_what_they_inherit_and_this_process_is_untouched() -> None:
    before = (gc.get_freeze_count(), gc.get_threshold())
    pool = ingest_module._start_pool(2, multiprocessing.get_context("fork"))
    try:
        assert (gc.get_freeze_count(), gc.get_threshold()) == before
        counts = [pool.apply_async(gc.get_freeze_count) for _ in range(4)]
        # Every object alive at the fork (this test's modules among them) is frozen there.
        assert all(result.get(timeout=60) > 1_000 for result in counts)
        assert pool.apply_async(sum, ([1, 2, 3],)).get(timeout=60) == 6  # they still work
        threshold = pool.apply_async(gc.get_threshold).get(timeout=60)[0]
        assert threshold == pipeline._YOUNG_THRESHOLD != gc.get_threshold()[0]
    finally:
        pool.terminate()
        pool.join()
