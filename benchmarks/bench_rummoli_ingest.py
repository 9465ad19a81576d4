"""Where a Rummoli ingest's CPU goes outside the worker's per-round path: the writer, and
a worker's first round.

Run: ``.venv/bin/python benchmarks/bench_rummoli_ingest.py [--base DIR] [--rounds 5000]``

* **Writer**: the bench_ingest Rummoli input (``--rounds`` copies of 500 simulated rounds,
  4 files) ingested with one worker into a fresh database; the main process's CPU time
  per round, and within it the writer's loads (inserts and fact tables), the pot facts alone
  and the commits.
* **A worker's first round**: a process forked from one that has imported the ingest
  (as the pool's workers are) processes one round, then 50 more: CPU seconds of the
  first, with the parent warmed up as the ingest now does before forking (when the tree
  has ``analytics.equity.rummoli.warm_up``) and without.

Each tree (this one, and ``--base DIR``, e.g. ``git archive HEAD`` extracted) runs in its
own subprocess with its own code.  CPU time, one run each: the machine is shared.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import multiprocessing
import resource
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def writer(tree: Path, rounds: int, out: Path) -> None:
    """Ingest the Rummoli input with one worker; print the main process's CPU per round."""
    sys.path[:0] = [str(tree), str(tree / "benchmarks")]
    from bench_ingest import write_inputs

    from analytics.warehouse import ingest
    from analytics.warehouse.pipeline import write as loader
    from analytics.warehouse.sql import facts

    if out.exists():
        shutil.rmtree(out)
    write_inputs(out / "rummoli", "rummoli", rounds, 4, min(500, rounds))
    spent: defaultdict[str, float] = defaultdict(float)

    def timed(module: Any, name: str, label: str) -> None:
        original: Callable[..., Any] = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - started

        setattr(module, name, wrapper)

    ingest_module = sys.modules["analytics.warehouse.pipeline.run"]
    # The writer's insert path: load_new here, load_batch in trees before session 39.
    load = "load_new" if hasattr(ingest_module, "load_new") else "load_batch"
    timed(ingest_module, load, "loads (inserts + facts)")
    timed(ingest_module, "commit", "commits")
    if hasattr(facts, "_fill_batch_pots"):
        timed(facts, "_fill_batch_pots", "  pot facts")
    else:  # the older tree: its pot statements, executed by fill_batch
        statements = set(getattr(facts, "_FILL_BATCH_POTS"))  # noqa: B009 (not in this tree)
        fill_batch = getattr(facts, "fill_batch")  # noqa: B009 (not in this tree)

        def fill(con: Any, tables: Any, *rest: Any) -> None:
            class Timed:
                def __getattr__(self, name: str) -> Any:
                    return getattr(con, name)

                def execute(self, statement: str, *args: Any) -> Any:
                    started = time.process_time()
                    result = con.execute(statement, *args)
                    if statement in statements:
                        spent["  pot facts"] += time.process_time() - started
                    return result

            fill_batch(cast(Any, Timed()), tables, *rest)

        setattr(loader, "fill_batch", fill)  # noqa: B010 (the older tree's loader)
    started = _cpu()
    summary = ingest([out / "rummoli"], out / "w.duckdb", workers=1)
    total = _cpu() - started
    per = 1e6 / summary.hands
    print(f"  writer: {summary.hands:,} rounds, main process {total * per:,.0f} us per round")
    for label, seconds in spent.items():
        print(f"    {label:30s} {seconds * per:8.1f} us per round")


def _first_round(chunks: list[Any]) -> tuple[float, float]:
    from analytics.warehouse.pipeline.rows import FileContext
    from analytics.warehouse.pipeline.work import UnitResult, process_chunks

    context = FileContext("bench", "0" * 64, dt.datetime(2026, 1, 1))
    started = time.process_time()
    process_chunks(chunks[:1], context, 50, UnitResult(0, True))
    first = time.process_time() - started
    started = time.process_time()
    process_chunks(chunks[1:51], context, 50, UnitResult(0, True))
    return first, (time.process_time() - started) / 50


def first_round(tree: Path, warm: bool) -> None:
    """A forked worker's first round, the parent warmed up (``warm``) or not."""
    sys.path.insert(0, str(tree))
    from analytics.simulate.rummoli import simulate_rummoli
    from analytics.warehouse import ingest  # noqa: F401  (what the ingest's parent imports)
    from parsers import dumps_hands
    from parsers.reader import iter_chunks

    text = dumps_hands(simulate_rummoli(60, 4, 7))
    chunks = list(iter_chunks(io.StringIO(text), "bench"))
    label = "cold parent"
    if warm:
        from analytics.equity import rummoli

        if not hasattr(rummoli, "warm_up"):
            return
        started = time.process_time()
        rummoli.warm_up()
        label = f"parent warmed up ({time.process_time() - started:.2f} s CPU in the parent)"
    with multiprocessing.get_context("fork").Pool(1) as pool:
        first, then = pool.apply(_first_round, (chunks,))
    print(f"  worker forked from a {label}: first round {first:.3f} s CPU,"
          f" then {then * 1e6:,.0f} us per round")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another tree to time the same way")
    parser.add_argument("--rounds", type=int, default=5_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_rummoli_ingest"))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tree, what = Path(args.child[0]), args.child[1]
        if what == "writer":
            writer(tree, args.rounds, args.out / tree.name)
        else:
            first_round(tree, warm=what == "warm")
        return
    trees = [ROOT] + ([args.base.resolve()] if args.base else [])
    for what in ("writer", "cold", "warm"):
        for tree in trees:
            print(f"{tree} ({what})", flush=True)
            subprocess.run([sys.executable, __file__, "--child", str(tree), what,
                            "--rounds", str(args.rounds), "--out", str(args.out)],
                           check=True, cwd=tree)


if __name__ == "__main__":
    main()
