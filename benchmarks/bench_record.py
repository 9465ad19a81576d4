"""The recorder's server work per click, and the filing of a finished hand (issue #30).

Bots play whole 7 & 8 hands, Big Two games and Rummoli rounds through
:class:`analytics.record.table.RecordedTable`, as the Play page drives it.  Each click
is timed as the page pays for it: ``record(action)`` (the step written and read back,
replayed by the engine, the journal line appended and fsynced, the state updated) and
``next_step()`` (the choices the page draws next).  The last click of a hand also
files it: appended to the table's ``.phhs`` file, loaded alone into the warehouse (one
ingest transaction), the next hand started; that click is reported apart.  The
warehouse is created and warmed by a hand of each game first, so the figures are a
running server's, not its first start's (the first Big Two game of a rule set builds its
table of plays: about a second, once per server).  Targets: a click at most 100 ms, a filing at most
300 ms.  The warehouse's write connection stays open from one filing to the next
(``KEEP_WRITER``), as on the pages; ``--keep-writer 0`` opens and closes it at each
filing (the first filing after a pause longer than the keep).

    .venv/bin/python benchmarks/bench_record.py --hands 20
    .venv/bin/python benchmarks/bench_record.py --hands 20 --keep-writer 0
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from analytics.record.play import automatic_action
from analytics.record.table import (
    KEEP_WRITER,
    RecordedTable,
    TableSetup,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
)

CLICK_TARGET_MS = 100.0
FILING_TARGET_MS = 300.0


Timings = list[tuple[float, float]]
"""(wall, CPU) milliseconds per click."""


def _play(table: RecordedTable, hands: int, rng: random.Random) -> tuple[Timings, Timings]:
    """Wall and CPU milliseconds of every click that did not end a hand, and of every
    filing click."""
    clicks: Timings = []
    filings: Timings = []
    while len(table.filed) < hands and table.hand is not None:
        action = automatic_action(table, rng)
        assert action is not None
        start, cpu = time.perf_counter(), time.process_time()
        filed = table.record(action)
        table.next_step()
        elapsed = ((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000)
        if filed is None:
            clicks.append(elapsed)
        else:
            assert filed.ingest == "loaded", filed.ingest
            filings.append(elapsed)
    return clicks, filings


def _stats(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return statistics.median(values), p95, ordered[-1]


def _row(name: str, timings: Timings, target: float) -> str:
    wall = _stats([w for w, _ in timings])
    cpu = _stats([c for _, c in timings])
    verdict = ("met" if wall[2] <= target else
               f"p95 {'met' if wall[1] <= target else 'NOT met'}, max NOT met")
    return (f"{name:<28} {len(timings):>5} " + " ".join(f"{v:>7.1f}" for v in wall) + "  "
            + " ".join(f"{v:>7.1f}" for v in cpu) + f"   <= {target:.0f} ms: {verdict}")


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20, help="hands (games) per game")
    parser.add_argument("--keep-writer", type=float, default=KEEP_WRITER,
                        help="seconds the write connection stays open after a filing")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-record-") as folder_name:
        folder = Path(folder_name)
        db = folder / "hands.duckdb"
        rng = random.Random(30)
        setups: list[tuple[str, TableSetup]] = [
            ("7 & 8, 6 players", seveneight_setup(
                "bench78", ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay"], 10_000,
                bots=("tight", "loose") * 3)),
            ("Big Two, 4 players", bigtwo_setup(
                "bench2", ["Ann", "Bo", "Cy", "Dee"],
                bots=("steady", "aggressive", "steady", "aggressive"))),
            ("Rummoli, 5 players", rummoli_setup(
                "benchrm", ["Ann", "Bo", "Cy", "Dee", "Eli"], 1_000,
                bots=("cautious", "bold") * 2 + ("cautious",))),
        ]
        # A hand of each game first: creates the warehouse, warms the ingest path and builds
        # the Big Two plays of the rule set, which a server does once.
        for warm_setup in (seveneight_setup("warm78", ["A", "B"], 100, bots=("loose",) * 2),
                           bigtwo_setup("warm2", ["A", "B"], bots=("steady",) * 2),
                           rummoli_setup("warmrm", ["A", "B"], 100, bots=("bold",) * 2)):
            warm = RecordedTable.create(folder, warm_setup, ingest_into=db)
            warm.keep_writer = arguments.keep_writer
            _play(warm, 1, rng)
        print(f"{'ms':<28} {'count':>5} {'median':>7} {'p95':>7} {'max':>7}  "
              f"{'cpu med':>7} {'p95':>7} {'max':>7}")
        for label, setup in setups:
            table = RecordedTable.create(folder, setup, ingest_into=db)
            table.keep_writer = arguments.keep_writer
            clicks, filings = _play(table, arguments.hands, rng)
            print(_row(f"{label}: click", clicks, CLICK_TARGET_MS))
            print(_row(f"{label}: filing", filings, FILING_TARGET_MS))


if __name__ == "__main__":
    main()
