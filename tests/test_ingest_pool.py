"""The ingest's worker pool: every worker starts with ``pipeline.init_worker``; no more
workers than the cores or the work."""

from __future__ import annotations

import gc
import importlib
import multiprocessing
from collections.abc import Callable
from multiprocessing.pool import Pool
from pathlib import Path

import pytest

from analytics.warehouse import ingest
from analytics.warehouse.pipeline import work as pipeline
from analytics.warehouse.pipeline.run import capped_workers, machine_cores
from tests.test_warehouse_data import simulated_text, write

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


def test_workers_are_capped_at_the_cores_and_the_work(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``ingest -j 100000 one_file.phhs`` started a worker per requested slot and was
    killed for lack of memory: the pool now has no more workers than the cores, nor than
    the units of work (here one file: one worker)."""
    started: list[int] = []
    start_pool: Callable[..., Pool] = ingest_module._start_pool

    def recorded(workers: int, context: multiprocessing.context.BaseContext) -> Pool:
        started.append(workers)
        assert workers <= machine_cores(), "one worker per requested slot"
        return start_pool(workers, context)

    monkeypatch.setattr(ingest_module, "_start_pool", recorded)
    source = write(tmp_path / "one.phhs", simulated_text("bigtwo", 3))
    summary = ingest([source], tmp_path / "w.duckdb", workers=100_000)
    assert (summary.loaded, summary.exit_code, started) == (3, 0, [1])
    assert capped_workers(100_000, 1) == 1
    assert capped_workers(100_000, 10**6) == machine_cores()
    assert capped_workers(0, 5) == capped_workers(4, 0) == 0
