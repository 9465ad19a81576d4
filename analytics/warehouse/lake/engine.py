"""``ingest_lake(paths, lake)``: the lake's plan -> work -> write -> commit on an engine.

* ``local``: the ranges in a pool of worker processes on this machine (no Dask needed);
* ``dask``: the ranges as tasks of a Dask cluster (``dask.distributed``): the scheduler at
  ``scheduler`` (``tcp://host:8786``: any deployment, dask-kubernetes included), or a
  ``LocalCluster`` of this machine's cores when none is given.

Either way the driver (this process) plans, the workers run
:func:`~analytics.warehouse.lake.core.write_range` (a retried task, a worker killed, rewrites the
same files), and the driver commits once every range is written: a job that fails or is
killed before leaves the lake's previous state, and its files are never listed.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any, Final, Literal

from analytics.warehouse.lake.core import (
    RANGE_BYTES,
    CommitResult,
    LakeRange,
    PlannedSource,
    RangeOutput,
    commit,
    known_sources,
    latest_manifest,
    new_job_id,
    plan,
    write_range,
)
from analytics.warehouse.lake.store import LakeStore, open_store
from analytics.warehouse.pipeline.run import (
    FileSummary,
    GameCounts,
    IngestSummary,
    capped_workers,
    machine_cores,
    set_aside,
    warm_up,
)
from analytics.warehouse.pipeline.sources import Limits, expand
from analytics.warehouse.pipeline.work import init_worker

__all__ = ["ENGINES", "Engine", "dask_setup", "ingest_lake", "run_dask", "run_local"]

Engine = Literal["local", "dask"]
ENGINES: Final = ("local", "dask")

RangeRunner = Callable[[Sequence[LakeRange], str], Iterator[RangeOutput]]
"""Runs :func:`~analytics.warehouse.lake.core.write_range` over the ranges, yielding the outputs
as they finish (any order)."""


def run_local(workers: int | None = None) -> RangeRunner:
    """The ranges in a process pool of ``workers`` (default: one per core; 0: inline; never
    more than the cores or the ranges: :func:`~analytics.warehouse.pipeline.run.capped_workers`)."""
    requested = machine_cores() if workers is None else workers

    def run(ranges: Sequence[LakeRange], root: str) -> Iterator[RangeOutput]:
        count = capped_workers(requested, len(ranges))
        if count <= 0 or len(ranges) <= 1:
            for task in ranges:
                yield write_range(task, root)
            return
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        if method == "fork":
            warm_up()  # the kernels loaded once, inherited by every worker
        context = multiprocessing.get_context(method)
        with context.Pool(count, initializer=init_worker,
                          initargs=(os.getpid(),)) as pool:
            yield from pool.imap_unordered(_write_range_star, [(t, root) for t in ranges])
    return run


def _write_range_star(arguments: tuple[LakeRange, str]) -> RangeOutput:
    return write_range(*arguments)


def run_dask(scheduler: str | None = None, *, workers: int | None = None,
             client: Any = None) -> RangeRunner:
    """The ranges as Dask tasks: on ``client`` if given, else on the scheduler at
    ``scheduler``, else on a ``LocalCluster`` of ``workers`` single-threaded processes
    (default: one per core; never more than the cores or the ranges) started for the job.
    A task's key is its range's files' name, so the scheduler runs each range once however
    often it is resubmitted; a worker that dies mid-task has its task run again elsewhere
    (Dask's ``allowed-failures``)."""
    def run(ranges: Sequence[LakeRange], root: str) -> Iterator[RangeOutput]:
        dask: Any = import_module("distributed")  # untyped: used through Any
        own: list[Any] = []
        active = client
        try:
            if active is None:
                if scheduler is not None:
                    active = dask.Client(scheduler)
                else:
                    count = capped_workers(workers or machine_cores(), len(ranges)) or 1
                    cluster = dask.LocalCluster(n_workers=count,
                                           threads_per_worker=1, processes=True,
                                           dashboard_address=None, preload=[__name__])
                    own.append(cluster)
                    active = dask.Client(cluster)
                own.insert(0, active)
            futures = [active.submit(write_range, task, root, key=f"lake-{task.name}-{task.job}",
                                     pure=False) for task in ranges]
            for future in dask.as_completed(futures):
                yield future.result()
        finally:
            for resource in own:
                resource.close()
    return run


def dask_setup(worker: object) -> None:
    """Dask's preload hook (``dask worker --preload analytics.warehouse.lake.engine``; the
    engine's own ``LocalCluster`` preloads it): the worker process starts with the numba
    kernels loaded (``ingest.warm_up``) instead of paying them in its first range.

    Not :func:`~analytics.warehouse.pipeline.work.init_worker`, the local pool's start-up: with
    it, a worker the nanny restarted after a ``kill -9`` never joined again in
    tests/test_lake.py (its parent-death signal is tied to the thread that started the
    process, and the nanny starts workers from threads of its own); and its collection
    tuning measured no gain on Dask's workers (docs/scale-out.md)."""
    del worker
    warm_up()


def ingest_lake(
    paths: Sequence[Path | str] | Path | str,
    lake: LakeStore | Path | str,
    *,
    engine: Engine = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
    range_bytes: int = RANGE_BYTES,
    limits: Limits | None = None,
    names: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    before_commit: Callable[[], None] | None = None,
) -> IngestSummary:
    """Load the histories under ``paths`` into the Parquet lake at ``lake``, completely and
    once; the summary counts as the single-machine ingest's does.  Inputs and the lake are
    local paths or fsspec URLs (``s3://bucket/lake``: :mod:`~analytics.warehouse.lake.store`;
    every worker must reach them by the same names).

    ``engine``/``scheduler``/``workers``/``client`` choose where the ranges run (module
    docstring); ``range_bytes`` is the size of a range (64-256 MiB for a large archive;
    smaller in tests).  ``progress`` is told (ranges done, ranges in all).
    ``before_commit`` runs between the last range written and the commit (tests interrupt a
    job there).
    """
    started = time.perf_counter()
    started_at = dt.datetime.now()
    limits = limits or Limits()
    store = open_store(lake)
    store.make_root()
    path_list = [paths] if isinstance(paths, str | Path) else list(paths)
    summary = IngestSummary(Path(store.root) if store.is_local else Path(store.url))
    refs = expand(path_list, limits)
    if names:
        from dataclasses import replace
        refs = [replace(ref, label=names[ref.path]) if ref.path in names else ref
                for ref in refs]
    refs = set_aside(refs, summary)
    job = new_job_id()
    known = known_sources(store, latest_manifest(store))
    sources, ranges, skipped = plan(refs, limits, known, job, range_bytes=range_bytes,
                                    loaded_at=started_at)
    for name, sha, why in skipped:
        status = "error" if sha is None or not _is_repeat(why) else "already loaded"
        summary.files.append(FileSummary(name, status, sha, message=why))
    runner = run_local(workers) if engine == "local" else run_dask(
        scheduler, workers=workers, client=client)
    outputs: list[RangeOutput] = []
    for output in runner(ranges, store.location("")):
        outputs.append(output)
        if progress is not None:
            progress(len(outputs), len(ranges))
    if before_commit is not None:
        before_commit()
    result = commit(store, job, sources, outputs, started_at) if sources else None
    _summarise(summary, sources, outputs, result)
    summary.seconds = time.perf_counter() - started
    return summary


def _is_repeat(why: str) -> bool:
    return why == "this content was loaded before" or why.startswith("same content as")


def _summarise(summary: IngestSummary, sources: Sequence[PlannedSource],
               outputs: Sequence[RangeOutput], result: CommitResult | None) -> None:
    """The committed sources into the summary, as the single-machine ingest reports them."""
    if result is None:
        return
    hands: dict[str, int] = {}
    bad: dict[str, int] = {}
    rejected: dict[str, dict[str, int]] = {}
    first_reject: dict[str, str] = {}
    for output in outputs:
        for sha, counts in output.sources.items():
            hands[sha] = hands.get(sha, 0) + counts.hands
            bad[sha] = bad.get(sha, 0) + counts.bad_lines
            games = rejected.setdefault(sha, {})
            for game, n in counts.rejected.items():
                games[game] = games.get(game, 0) + n
            if counts.first_reject is not None and sha not in first_reject:
                first_reject[sha] = counts.first_reject
    for source in sources:
        sha = source.sha256
        if sha in result.dropped:
            why = result.dropped[sha]
            status = "already loaded" if why.startswith("loaded by another") else "error"
            summary.files.append(FileSummary(source.name, status, sha, message=why))
            continue
        loaded: Mapping[str, int] = result.loaded.get(sha, {})
        repeated: Mapping[str, int] = result.duplicates.get(sha, {})
        refused: Mapping[str, int] = rejected.get(sha, {})
        file_summary = FileSummary(
            source.name, "partial" if refused or bad.get(sha) else "loaded", sha,
            hands=hands.get(sha, 0), loaded=sum(loaded.values()),
            duplicates=sum(repeated.values()), rejected=sum(refused.values()),
            message=first_reject.get(sha), bad_lines=bad.get(sha, 0))
        summary.files.append(file_summary)
        for kind, by_game in (("loaded", loaded), ("duplicates", repeated),
                              ("rejected", refused)):
            for game, n in by_game.items():
                entry = summary.by_game.setdefault(game, GameCounts())
                setattr(entry, kind, getattr(entry, kind) + n)
