"""Pooled ingests in a process that has used numba's thread pool keep their workers.

GNU OpenMP (numba's threading layer here) kills a forked child of a process that has
used its thread pool as soon as the child uses the pool too; the pool's task is then
lost and the ingest waits for it for ever.  So the ingest's workers and writer evaluate
on the calling thread only (the dealt categories' ``poker_labels(..., parallel=False)``),
and the main process's warm-up before the fork calls no ``parallel=True`` kernel.  The
scenario runs in a child process with a timeout: a regression fails here instead of
hanging the suite.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analytics.warehouse.pipeline.sources import Limits, expand
from tests.test_warehouse_data import simulated_text, write

ingest_module = importlib.import_module("analytics.warehouse.pipeline.run")

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent("""
    import sys

    import numba.np.ufunc.parallel as threading_layer

    from analytics.evaluator.categories import poker_labels
    from analytics.warehouse import ingest

    first, second, db = sys.argv[1:]
    summary = ingest([first], db, workers=2)
    assert summary.exit_code == 0 and summary.loaded > 0, summary
    assert not threading_layer._is_initialized, "the ingest started numba's thread pool"
    # What a dashboard page does before an upload: the parallel kernel, which starts the pool.
    labels = poker_labels(["AsKsQsJsTs9s8s", "2c3d4h5s7c8d9h"] * 500)
    assert labels[0] == "straight_flush"
    assert threading_layer._is_initialized
    summary = ingest([second], db, workers=2)
    assert summary.exit_code == 0 and summary.loaded > 0, summary
    print("both ingests loaded", flush=True)
""")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the hazard is GNU OpenMP's, after fork")
def test_an_ingest_after_an_ingest_and_the_thread_pool_keeps_its_workers(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, seed in ((first, 11), (second, 12)):
        write(folder / "bigtwo.phhs", simulated_text("bigtwo", 6, seed=seed))
        write(folder / "rummoli.phhs", simulated_text("rummoli", 12, seed=seed))
        write(folder / "seveneight.phhs", simulated_text("seveneight", 30, seed=seed))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(first), str(second), str(tmp_path / "w.duckdb")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "both ingests loaded" in done.stdout


def test_the_warm_up_is_for_the_games_the_sources_name(tmp_path: Path) -> None:
    """Kernels are loaded for the games the sources' starts name; a source naming none
    (or an unknown variant) counts as every game."""
    write(tmp_path / "a" / "seveneight.phhs", simulated_text("seveneight", 5, seed=1))
    write(tmp_path / "b" / "bigtwo.phhs", simulated_text("bigtwo", 2, seed=1))
    write(tmp_path / "b" / "rummoli.phhs", simulated_text("rummoli", 2, seed=1))
    write(tmp_path / "c" / "odd.phhs", 'variant = "XYZ"\n')

    def games(folder: str) -> frozenset[str]:
        limits = Limits()
        summary = ingest_module.IngestSummary(tmp_path / "unused.duckdb")
        planned = ingest_module._plan(expand([tmp_path / folder], limits), limits,
                                      lambda digests: set(), summary)
        found: frozenset[str] = ingest_module._kernel_games(planned, limits)
        return found

    assert games("a") == {"seveneight"}
    assert games("b") == {"bigtwo", "rummoli"}
    assert games("c") == {"seveneight", "bigtwo", "rummoli"}


START_SCRIPT = textwrap.dedent("""
    import gc
    import sys

    from analytics.warehouse.pipeline import work
    from analytics.warehouse.pipeline.run import warm_up

    # The engines are imported with the ingest (normal imports), before any fork.
    assert "analytics.rules.rummoli.engine" in sys.modules, "the workers would import the engine"
    warm_up(frozenset({"rummoli"}))
    assert gc.get_freeze_count() == 0
    work.init_worker()
    assert gc.get_freeze_count() > 0, "the worker's collections would walk the parent's objects"
    print("started", flush=True)
""")


@pytest.mark.slow
def test_the_workers_start_with_the_engine_loaded_and_the_parents_objects_frozen() -> None:
    """The Rummoli engine is loaded before the fork (not by every worker on its first
    round), and a worker's start leaves the objects it inherited out of its collections.
    In a child process: this one has frozen nothing."""
    done = subprocess.run([sys.executable, "-c", START_SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "started" in done.stdout
