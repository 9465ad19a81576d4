"""The Parquet lake against the single-machine database, in one run (issue #32).

Run: ``.venv/bin/python benchmarks/bench_lake.py [--hands 1000000] [--workers 2] [--range-mb 16]``

The same simulated histories (7 & 8 80%, Big Two 10%, Rummoli 10%, every hand distinct;
written once into ``--inputs`` by bench_ingest's writers and reused) are loaded

1. by the single-machine ingest (``ingest(paths, db, workers=N)``),
2. into a lake on a Dask ``LocalCluster`` of N single-threaded worker processes (its start
   timed apart: the workers preload ``lake.engine``, tuned and with the kernels loaded,
   as a long-lived cluster's are), then Dask's scheduler overhead per task (a no-op task's
   round trip, tasks submitted at once), the lake's Parquet bytes per hand and files, the
   correctness check (every table of the lake against the database, ``EXCEPT ALL`` both
   ways, every column but the times of writing: ``catalogue.table_differences``, as
   tests/test_lake.py checks), every dashboard question (all hands) timed on the database
   and on the lake (best of ``--repeats``; the slowest of each shown), then the lake
   compacted (``handlab lake compact``: its time, the files before and after), every
   question timed on it again and its tables checked again;
3. into a lake with the local engine (a pool of N processes), checked as the other.

The local engine comes last so that a run cut short on a crowded machine still has what
needs only the database and the Dask lake.  Worker CPU: the pool's workers (this process's
children), the cluster's worker processes (asked for their own CPU before and after); the
load average is printed beside each figure.

``--only STEP`` (``database``, ``dask`` or ``local``) runs one ingest of the three into
``--out`` and leaves the others' outputs there: on a crowded machine the three run as
concurrent processes (each gets its share of the cores; their hands per CPU-second still
compare, their walls do not), then ``--check-only`` and ``--compact-only`` on the lakes.
``--compact-only LAKE`` skips the ingests: it times the questions on an existing lake (for
example the Dask lake of an earlier run), compacts it, and times them again; ``--check-only
LAKE`` only checks its tables against the database next to it; ``--questions-only LAKE``
asks it and that database every dashboard question (``tests/lake_questions.py``, as
``tests/test_lake.py`` does on the samples) and names any answer that differs.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import shutil
import sys
import time
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_ingest import write_inputs  # noqa: E402

from analytics.warehouse import ingest, reader  # noqa: E402
from analytics.warehouse.lake.catalogue import catalogue, table_differences  # noqa: E402
from analytics.warehouse.lake.core import latest_manifest  # noqa: E402
from analytics.warehouse.lake.engine import ingest_lake  # noqa: E402
from analytics.warehouse.lake.maintenance import compact  # noqa: E402
from analytics.warehouse.pipeline.run import compile_kernels  # noqa: E402
from analytics.warehouse.sql import equity_views, views  # noqa: E402
from analytics.warehouse.sql.views import HandFilter  # noqa: E402

MIX = (("seveneight", 0.8), ("bigtwo", 0.1), ("rummoli", 0.1))
STEPS = ("database", "dask", "local")
FILLED = frozenset({"con", "f", "game", "game_id"})
"""The parameters a question over all hands is given; one needing another (a hand's id, a
chart bar's values: a click's drill-down) is not asked."""
FILES_PER_GAME = 20


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cluster_cpu(client: Any) -> float:
    """CPU seconds the cluster's worker processes have used so far."""
    def used() -> float:
        import psutil

        times = psutil.Process().cpu_times()
        return float(times.user + times.system)
    return float(sum(client.run(used).values()))


def timed(label: str, work: Callable[[], Any], hands: int,
          workers_cpu: Callable[[], float] = children_cpu) -> Any:
    wall, own, kids = time.perf_counter(), own_cpu(), workers_cpu()
    result = work()
    wall = time.perf_counter() - wall
    own, kids = own_cpu() - own, workers_cpu() - kids
    print(f"{label:<34} {wall:8.1f} s wall  {hands / wall:9,.0f} hands/s  "
          f"driver CPU {own:7.1f} s  worker CPU {kids:7.1f} s  "
          f"({hands / max(own + kids, 1e-9):7,.0f} hands per CPU-s; "
          f"load {os.getloadavg()[0]:.1f})", flush=True)
    return result


def noop(value: int) -> int:
    return value


def scheduler_overhead(client: Any, tasks: int) -> float:
    """Seconds per task of Dask's own machinery: no-op tasks submitted at once and gathered."""
    client.gather(client.map(noop, range(50), pure=False))  # warm
    started = time.perf_counter()
    client.gather(client.map(noop, range(tasks), pure=False))
    return (time.perf_counter() - started) / tasks


def questions() -> list[tuple[str, Callable[[Any], Any]]]:
    """Every dashboard question over all hands (one per game where it needs a game)."""
    asked: list[tuple[str, Callable[[Any], Any]]] = []
    f = HandFilter()
    for module in (views, equity_views):
        for name in module.__all__:
            function = getattr(module, name)
            if not inspect.isfunction(function) or name.endswith("where"):
                continue
            parameters = inspect.signature(function).parameters
            if "con" not in parameters or any(  # a drill-down: one hand, one bar's rows
                    parameter.default is inspect.Parameter.empty and name not in FILLED
                    for name, parameter in parameters.items()):
                continue
            needs_game = "game" in parameters and (
                parameters["game"].default is inspect.Parameter.empty)
            for game in (("seveneight", "bigtwo", "rummoli") if needs_game else (None,)):
                keywords: dict[str, Any] = {} if game is None else {"game": game}
                if "game_id" in parameters and (
                        parameters["game_id"].default is inspect.Parameter.empty):
                    keywords["game_id"] = None
                label = name if game is None else f"{name} {game}"
                arguments = (f,) if "f" in parameters else ()
                asked.append((label, _question(function, arguments, keywords)))
    return asked


def _question(function: Callable[..., Any], arguments: tuple[Any, ...],
              keywords: dict[str, Any]) -> Callable[[Any], Any]:
    def ask(con: Any) -> Any:
        return function(con, *arguments, **keywords)
    return ask


def query_times(db: Path, repeats: int) -> dict[str, float]:
    """Each question's best time (ms), a fresh read connection per try as the dashboard
    opens one per script run."""
    times: dict[str, float] = {}
    for label, question in questions():
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            with reader(db) as con:
                question(con)
            best = min(best, time.perf_counter() - started)
        times[label] = best * 1000
    return times


def parquet_bytes(lake: Path) -> tuple[int, int]:
    manifest = latest_manifest(lake)
    files = [lake / f for paths in manifest.tables.values() for f in paths]
    return sum(path.stat().st_size for path in files), len(files)


def report_queries(on_db: dict[str, float], on_lake: dict[str, float], what: str) -> None:
    slowest_db = max(on_db, key=lambda k: on_db[k])
    slowest_lake = max(on_lake, key=lambda k: on_lake[k])
    print(f"slowest question on the database: {slowest_db} {on_db[slowest_db]:,.0f} ms "
          f"(on the {what} {on_lake[slowest_db]:,.0f} ms)")
    print(f"slowest question on the {what}: {slowest_lake} {on_lake[slowest_lake]:,.0f} ms "
          f"(on the database {on_db[slowest_lake]:,.0f} ms)")
    print(f"all questions: database {sum(on_db.values()):,.0f} ms, "
          f"{what} {sum(on_lake.values()):,.0f} ms (load {os.getloadavg()[0]:.1f})",
          flush=True)


def check_tables(lake: Path, db: Path, what: str) -> bool:
    """Print every table of ``lake`` against ``db`` (rows, and ``EXCEPT ALL`` both ways);
    True when all are equal."""
    started = time.perf_counter()
    found = table_differences(lake, db)
    unequal = [name for name, difference in found.items() if not difference.equal]
    rows = sum(difference.rows for difference in found.values())
    print(f"check, {what} against the database: {len(found) - len(unequal)} of {len(found)} "
          f"tables equal ({rows:,} rows; {time.perf_counter() - started:.1f} s)"
          + (f"; DIFFERENT: {', '.join(unequal)}" if unequal else ""), flush=True)
    for name, difference in found.items():
        print(f"    {name:<22} {difference.rows:>11,} rows  lake EXCEPT ALL db "
              f"{difference.only_in_lake:>6,}  db EXCEPT ALL lake "
              f"{difference.only_in_database:>6,}", flush=True)
    return not unequal


def compacted(lake: Path, on_db: dict[str, float], repeats: int) -> dict[str, float]:
    """Compact ``lake``, print what it did and the questions' times on it (best of
    ``repeats``)."""
    started = time.perf_counter()
    result = compact(lake)
    print(f"{'compaction':<34} {time.perf_counter() - started:8.1f} s wall  "
          f"{result.files_before:,} files -> {result.files_after:,} "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    on_compacted = query_times(catalogue(lake), repeats)
    report_queries(on_db, on_compacted, "compacted lake")
    check_tables(lake, lake.parent / "single.duckdb", "the compacted lake")
    return on_compacted


def same_answers(lake: Path, db: Path) -> bool:
    """Every dashboard question asked of ``lake`` and ``db``: print the calls, the time and
    each answer that differs; true when none does."""
    from tests.lake_questions import compare_questions

    started = time.perf_counter()
    with reader(catalogue(lake)) as ours, reader(db) as theirs:
        asked, different = compare_questions(ours, theirs)
    for difference in different:
        print("DIFFERENT:", difference[:300])
    print(f"{asked} question calls: {asked - len(different)} equal, {len(different)} "
          f"different ({time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.1f})",
          flush=True)
    return not different


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--range-mb", type=float, default=16.0,
                        help="MiB per range (64-256 for a real archive; smaller here so a "
                             "small set is several tasks per worker)")
    parser.add_argument("--inputs", type=Path, default=ROOT / "benchmarks" / "out" / "inputs-lake")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "lake")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=2000, help="no-op tasks for the overhead")
    parser.add_argument("--compact-only", type=Path, default=None, metavar="LAKE",
                        help="only the questions on LAKE before and after its compaction "
                             "(against the database next to it, single.duckdb)")
    parser.add_argument("--check-only", type=Path, default=None, metavar="LAKE",
                        help="only check LAKE's tables against the database next to it "
                             "(single.duckdb)")
    parser.add_argument("--questions-only", type=Path, default=None, metavar="LAKE",
                        help="only ask LAKE and the database next to it (single.duckdb) every "
                             "dashboard question and compare the answers")
    parser.add_argument("--only", choices=STEPS, default=None,
                        help="only this ingest into --out (the others' outputs kept)")
    args = parser.parse_args()
    if args.check_only is not None:
        sys.exit(0 if check_tables(args.check_only, args.check_only.parent / "single.duckdb",
                                   str(args.check_only)) else 1)
    if args.questions_only is not None:
        sys.exit(0 if same_answers(args.questions_only,
                                   args.questions_only.parent / "single.duckdb") else 1)
    if args.compact_only is not None:
        db = args.compact_only.parent / "single.duckdb"
        on_db = query_times(db, args.repeats)
        report_queries(on_db, query_times(catalogue(args.compact_only), args.repeats), "lake")
        compacted(args.compact_only, on_db, args.repeats)
        return

    folders = []
    text_bytes = 0
    for game, share in MIX:
        folder = args.inputs / f"{game}-{args.hands}"
        text_bytes += write_inputs(folder, game, max(1, int(args.hands * share)),
                                   FILES_PER_GAME, 0)
        folders.append(folder)
    hands = sum(max(1, int(args.hands * share)) for _, share in MIX)
    print(f"{hands:,} hands, {text_bytes / 2**20:,.0f} MiB of histories, "
          f"{args.workers} workers, ranges of {args.range_mb:g} MiB, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    if args.only is None and args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "single.duckdb"
    range_bytes = int(args.range_mb * 2**20)

    compile_kernels()  # numba's disk cache filled before anything is timed
    if args.only == "dask":
        dask_ingest(args, folders, hands, range_bytes)
        size, files = parquet_bytes(args.out / "lake-dask")
        print(f"Parquet: {size / 2**20:,.1f} MiB in {files:,} files, {size / hands:,.0f} bytes "
              f"per hand (histories: {text_bytes / hands:,.0f} bytes per hand)", flush=True)
        return
    if args.only == "local":
        local_ingest(args, folders, hands, range_bytes)
        return
    for path in (db, db.with_name(f"{db.name}.wal")):
        path.unlink(missing_ok=True)
    timed("single machine (database)", lambda: ingest(folders, db, workers=args.workers),
          hands)
    if args.only == "database":
        return

    dask_lake = dask_ingest(args, folders, hands, range_bytes)

    size, files = parquet_bytes(dask_lake)
    print(f"Parquet: {size / 2**20:,.1f} MiB in {files:,} files, {size / hands:,.0f} bytes "
          f"per hand (histories: {text_bytes / hands:,.0f} bytes per hand; database file "
          f"{db.stat().st_size / hands:,.0f})", flush=True)
    check_tables(dask_lake, db, "the Dask lake")

    on_db = query_times(db, args.repeats)
    on_lake = query_times(catalogue(dask_lake), args.repeats)
    report_queries(on_db, on_lake, "lake")
    on_compacted = compacted(dask_lake, on_db, args.repeats)
    (args.out / "queries.json").write_text(json.dumps(
        {"database": on_db, "lake": on_lake, "compacted": on_compacted}, indent=1))

    # The local engine last: the figures above need only the database and the Dask lake.
    local = local_ingest(args, folders, hands, range_bytes)
    check_tables(local, db, "the local engine's lake")


def dask_ingest(args: argparse.Namespace, folders: list[Path], hands: int,
                range_bytes: int) -> Path:
    """The lake ingest on a Dask LocalCluster of ``args.workers`` (its start timed apart),
    then the scheduler's overhead per task; returns the lake."""
    dask: Any = import_module("distributed")
    started = time.perf_counter()
    cluster = dask.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                dashboard_address=None,
                                preload=["analytics.warehouse.lake.engine"])
    client = dask.Client(cluster)
    print(f"{'Dask LocalCluster start':<34} {time.perf_counter() - started:8.1f} s", flush=True)
    dask_lake: Path = args.out / "lake-dask"
    if dask_lake.exists():
        shutil.rmtree(dask_lake)
    timed("lake, Dask LocalCluster", lambda: ingest_lake(
        folders, dask_lake, engine="dask", client=client, range_bytes=range_bytes), hands,
          lambda: cluster_cpu(client))
    overhead = scheduler_overhead(client, args.tasks)
    print(f"scheduler overhead: {overhead * 1e3:.2f} ms per task ({args.tasks} no-op tasks); "
          f"{len(latest_manifest(dask_lake).files('hands'))} hands files", flush=True)
    client.close()
    cluster.close()
    return dask_lake


def local_ingest(args: argparse.Namespace, folders: list[Path], hands: int,
                 range_bytes: int) -> Path:
    """The lake ingest with the local engine (a pool of ``args.workers``); returns the lake."""
    local: Path = args.out / "lake-local"
    if local.exists():
        shutil.rmtree(local)
    timed("lake, local engine", lambda: ingest_lake(
        folders, local, engine="local", workers=args.workers, range_bytes=range_bytes), hands)
    return local


if __name__ == "__main__":
    main()
