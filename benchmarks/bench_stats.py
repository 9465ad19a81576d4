"""The statistics grid over a large warehouse, and what an upload of 1,000 hands costs it.

Takes a database built by the dashboard benchmark (a million hands by default: copies of
simulated hands of the three games, their facts filled by ``facts.fill_missing``, which
fills ``stat_facts`` too):

    .venv/bin/python benchmarks/bench_dashboard.py --hands 1000000 --keep /tmp/big.duckdb \
        --only questions --repeats 1
    .venv/bin/python benchmarks/bench_stats.py --db /tmp/big.duckdb

Prints, for each grid the Statistics page, the report and ``handlab stats`` ask (7 & 8
whole and split by position, stakes and up card; Big Two whole), the results over time,
the sessions and the lists of hands behind a cell and a session, the first (cold) and the
median of ``--repeats`` warm runs, wall and CPU seconds, each with a fresh read-only
connection as the dashboard opens one per script run.  Then it copies the database,
loads 1,000 new 7 & 8 hands into the copy with the real ingest (``--upload``), checks that
``stat_facts`` gained exactly their seats (nothing else recomputed), and times the grid
again.  Targets (issue #28): the grid over 1,000,000 hands in at most 1 s warm, every
query at most 300 ms.  Results: docs/performance.md, section "Statistics".
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest, reader
from analytics.warehouse.sql.search import HandSearch, describe_hands, search_hands
from analytics.warehouse.sql.stat_views import (
    player_sessions,
    results_over_time,
    session_hands,
    stat_grid,
    stat_hands,
)
from analytics.warehouse.sql.views import HandFilter
from parsers import write_hands

Question = Callable[[duckdb.DuckDBPyConnection], Any]


def _split_grid(con: duckdb.DuckDBPyConnection, *, split: str) -> Any:
    return stat_grid(con, HandFilter(), game="seveneight", split=split)


def _cell_list(con: duckdb.DuckDBPyConnection, stat: str) -> Any:
    """The hands behind a cell, as the statistics page lists them (the latest 500 shown)."""
    behind = stat_hands(con, HandFilter(), game="seveneight", player="Ann", stat=stat)
    return describe_hands(con, behind["hand_id"].head(500).tolist())


def _session_list(con: duckdb.DuckDBPyConnection) -> Any:
    """The hands of Ann's latest session, as the statistics page lists them."""
    latest = player_sessions(con, HandFilter(players=("Ann",)), game="seveneight", limit=1)
    row = latest.iloc[0]
    end = None if row["end"] is None or row["end"] != row["end"] else row["end"]
    behind = session_hands(con, HandFilter(), game="seveneight", player="Ann",
                           place=str(row["place"]), unit=str(row["unit"]),
                           start=row["start"].to_pydatetime(),
                           end=None if end is None else end.to_pydatetime())
    return describe_hands(con, behind["hand_id"].head(500).tolist())


def _questions() -> dict[str, Question]:
    f = HandFilter()
    asked: dict[str, Question] = {"7 & 8 grid": lambda c: stat_grid(c, f, game="seveneight")}
    for split in ("position", "stakes", "up_rank"):
        asked[f"7 & 8 by {split}"] = functools.partial(_split_grid, split=split)
    asked["7 & 8, one player"] = lambda c: stat_grid(c, HandFilter(players=("Ann",)),
                                                    game="seveneight")
    asked["Big Two grid"] = lambda c: stat_grid(c, f, game="bigtwo")
    asked["Rummoli grid"] = lambda c: stat_grid(c, f, game="rummoli")
    asked["7 & 8 results by date"] = lambda c: results_over_time(c, f, game="seveneight",
                                                                 by="date")
    asked["7 & 8 results by hand"] = lambda c: results_over_time(c, f, game="seveneight")
    asked["results by hand, top 4"] = lambda c: results_over_time(c, f, game="seveneight",
                                                                  top=4)
    asked["7 & 8 sessions"] = lambda c: player_sessions(c, f, game="seveneight")
    asked["7 & 8 sessions, one player"] = lambda c: player_sessions(
        c, HandFilter(players=("Ann",)), game="seveneight")
    # The lists behind a cell and a session (the player with most hands: the longest).
    asked["cell hands: Ann's VPIP"] = lambda c: _cell_list(c, "vpip")
    asked["cell hands: Ann's c-bet"] = lambda c: _cell_list(c, "cbet")
    asked["a session's hands"] = _session_list
    asked["search: all in, shown"] = lambda c: search_hands(
        c, f, search=HandSearch(all_in=True, showdown=True))
    return asked


def _once(db: Path, question: Question) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    with reader(db) as con:
        question(con)
    return time.perf_counter() - wall, time.process_time() - cpu


def _report(db: Path, repeats: int) -> None:
    with reader(db) as con:
        hands, seats = con.execute(
            "SELECT (SELECT count(*) FROM hands), (SELECT count(*) FROM stat_facts)"
        ).fetchall()[0]
    print(f"{db}: {hands:,} hands, {seats:,} rows (7 & 8 and Rummoli seats) in stat_facts")
    print(f"{'question':26} {'cold wall':>10} {'cold CPU':>9} {'warm wall':>10} {'warm CPU':>9}")
    for name, question in _questions().items():
        cold = _once(db, question)
        warm = [_once(db, question) for _ in range(repeats)]
        print(f"{name:26} {cold[0]:10.3f} {cold[1]:9.3f} "
              f"{statistics.median(w for w, _ in warm):10.3f} "
              f"{statistics.median(c for _, c in warm):9.3f}")


def _upload(db: Path, hands: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="handlab-bench-stats-") as folder:
        root = Path(folder)
        copy = root / "copy.duckdb"
        shutil.copy(db, copy)
        histories = root / "upload"
        histories.mkdir()
        write_hands(simulate_seveneight(hands, 6, 20261205), histories / "upload.phhs")
        with reader(copy) as con:
            before = int(con.execute("SELECT count(*) FROM stat_facts").fetchall()[0][0])
        wall, cpu = time.perf_counter(), time.process_time()
        summary = ingest([histories], copy, workers=0)
        took = time.perf_counter() - wall, time.process_time() - cpu
        with reader(copy) as con:
            after = int(con.execute("SELECT count(*) FROM stat_facts").fetchall()[0][0])
            new_seats = int(con.execute(
                "SELECT count(*) FROM seats WHERE hand_id IN (SELECT hand_id FROM hands "
                "WHERE source_file LIKE '%upload.phhs')").fetchall()[0][0])
        assert after - before == new_seats, (before, after, new_seats)
        print(f"upload of {summary.loaded:,} hands: {took[0]:.2f} s wall, {took[1]:.2f} s CPU "
              f"(ingest whole, stat_facts included); stat_facts +{after - before:,} rows "
              f"= the new hands' seats")
        grid = _questions()["7 & 8 grid"]
        _once(copy, grid)
        warm = [_once(copy, grid) for _ in range(repeats)]
        print(f"7 & 8 grid after the upload, warm: "
              f"{statistics.median(w for w, _ in warm):.3f} s wall")


def main() -> None:
    """Time the grids over ``--db``, then an upload into a copy of it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True,
                        help="A large database (bench_dashboard.py --keep).")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--upload", type=int, default=1000,
                        help="7 & 8 hands to load into a copy (0: skip).")
    options = parser.parse_args()
    _report(options.db, options.repeats)
    if options.upload:
        _upload(options.db, options.upload, options.repeats)


if __name__ == "__main__":
    main()
