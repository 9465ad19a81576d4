"""A worker process's start-up (:func:`analytics.warehouse.pipeline.work.init_worker`)."""

from __future__ import annotations

import gc
import multiprocessing
import signal
import sys

import pytest

from analytics.warehouse.pipeline import work as pipeline


def _started_worker() -> tuple[int, int, bool, bool]:
    from analytics.warehouse.pipeline.work import init_worker

    init_worker()
    return (gc.get_threshold()[0], gc.get_freeze_count(),
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
            signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)


def test_a_worker_collects_less_and_leaves_ctrl_c_to_the_parent() -> None:
    # In a child of its own: init_worker changes the process it runs in.  The parent has a
    # SIGTERM handler of its own (as a process that ran ``handlab serve`` had): a worker
    # that inherited it ignored its pool's terminate, and the pool waited for ever.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        with multiprocessing.get_context(method).Pool(1) as pool:
            threshold, frozen, ignores_ctrl_c, ends_on_term = pool.apply(_started_worker)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert threshold == pipeline._YOUNG_THRESHOLD
    assert frozen > 0  # what the worker inherited (or imported) is left out of collections
    assert ignores_ctrl_c and ends_on_term


def _start_with_another_parent() -> None:
    from analytics.warehouse.pipeline.work import init_worker

    init_worker(parent=-1)  # not this process's parent: as if the real one had died


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is Linux's")
def test_a_worker_whose_parent_is_gone_at_its_start_exits() -> None:
    # Handed to init or to a subreaper before PR_SET_PDEATHSIG took effect, a worker would
    # outlive its killed ingest; it must see that its parent is not the pool's process.
    child = multiprocessing.get_context("fork").Process(target=_start_with_another_parent)
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 1
