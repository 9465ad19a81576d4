"""Dashboard questions over a large warehouse: how long each page's uncached queries take.

Simulating a million hands would take hours here, so the benchmark simulates a
few hundred hands of each game, loads them with the real ingest, and then
replicates the rows in SQL (new hand ids, game ids and days per copy) until
the warehouse holds ``--hands`` hands.  Each page's questions are then timed
uncached, with fresh read-only connections, as the dashboard asks them on a
cache miss (a repeated view is a ``st.cache_data`` hit: microseconds).

    .venv/bin/python benchmarks/bench_dashboard.py --hands 1000000

Results: docs/performance.md, section "Dashboard".
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest, open_writer, reader, views
from analytics.warehouse.views import HandFilter
from parsers import write_hands

_COPIED = ("hands", "seats", "actions", "showdowns", "awards", "board")


def _base(folder: Path) -> Path:
    histories = folder / "histories"
    histories.mkdir()
    write_hands(simulate_seveneight(400, 6, 1), histories / "seveneight.phhs")
    write_hands(simulate_bigtwo(150, 4, 2), histories / "bigtwo.phhs")
    write_hands(simulate_rummoli(150, 5, 3), histories / "rummoli.phhs")
    db = folder / "base.duckdb"
    ingest([histories], db, workers=0)
    return db


def _replicate(base: Path, big: Path, hands: int) -> int:
    """Fill ``big`` with copies of ``base``'s hands until it holds about ``hands``."""
    con = open_writer(big)
    try:
        con.execute(f"ATTACH '{base}' AS base (READ_ONLY)")
        per_copy = int(con.execute("SELECT count(*) FROM base.hands").fetchall()[0][0])
        copies = max(1, -(-hands // per_copy))
        shift = "hand_id + k * 1000003"
        changes = {
            "hands": f"{shift} AS hand_id, game_id || '-' || k AS game_id, "
                     "played_on + CAST(k % 700 AS INTEGER) AS played_on",
            "seats": f"{shift} AS hand_id", "actions": f"{shift} AS hand_id",
            "showdowns": f"{shift} AS hand_id", "awards": f"{shift} AS hand_id",
            "board": f"{shift} AS hand_id",
        }
        for table in _COPIED:
            con.execute(f"INSERT INTO {table} SELECT b.* REPLACE ({changes[table]}) "
                        f"FROM base.{table} AS b, range({copies}) AS copy(k)")
        con.execute("INSERT INTO files SELECT * FROM base.files")
        con.execute("DETACH base")
        return int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
    finally:
        con.close()


Question = tuple[str, Callable[[duckdb.DuckDBPyConnection], Any]]


def _pages(con: duckdb.DuckDBPyConnection) -> dict[str, list[Question]]:
    """The questions each page asks on a cache miss (the filter: all hands)."""
    f = HandFilter()
    game_id = str(con.execute("SELECT game_id FROM hands WHERE game = 'rummoli' "
                              "LIMIT 1").fetchall()[0][0])
    hand_id = int(con.execute("SELECT hand_id FROM hands WHERE game = 'seveneight' "
                              "LIMIT 1").fetchall()[0][0])
    return {
        "start (every page)": [("data_version", views.data_version),
                               ("filter_options", views.filter_options)],
        "Overview": [("overview", lambda c: views.overview(c, f)),
                     ("hands_over_time", lambda c: views.hands_over_time(c, f)),
                     ("player_results", lambda c: views.player_results(c, f)),
                     ("sessions", lambda c: views.sessions(c, f)),
                     ("rejects", lambda c: views.rejects(c))],
        "Win rates": [("player_results", lambda c: views.player_results(c, f)),
                      ("by_position", lambda c: views.by_position(c, f)),
                      *[(f"cumulative_net {g}", lambda c, g=g: views.cumulative_net(c, f, game=g))
                        for g in ("seveneight", "bigtwo", "rummoli")],
                      ("by_up_card", lambda c: views.by_up_card(c, f)),
                      ("bigtwo_places", lambda c: views.bigtwo_places(c, f)),
                      ("bigtwo_cards_left", lambda c: views.bigtwo_cards_left(c, f)),
                      ("rummoli_split", lambda c: views.rummoli_split(c, f))],
        "Pot accumulation": [("pot_winners", lambda c: views.pot_winners(c, f)),
                             ("sessions", lambda c: views.sessions(c, f, limit=5000)),
                             ("rummoli_board", lambda c: views.rummoli_board(
                                 c, f, game_id=game_id)),
                             ("pot_streaks", lambda c: views.pot_streaks(c, f))],
        "Hand types": [("overview", lambda c: views.overview(c, f)),
                       ("dealt_hands seveneight", lambda c: views.dealt_hands(
                           c, f, game="seveneight")),
                       ("dealt_hands rummoli", lambda c: views.dealt_hands(c, f, game="rummoli")),
                       ("plays", lambda c: views.plays(c, f)),
                       ("showdown_types", lambda c: views.showdown_types(c, f))],
        "Hand replayer": [("hand_list", lambda c: views.hand_list(c, f)),
                          ("hand_detail", lambda c: views.hand_detail(c, hand_id))],
        "Overview, one player": [("overview", lambda c: views.overview(
            c, HandFilter(players=("Ann",)))), ("player_results", lambda c: views.player_results(
                c, HandFilter(players=("Ann",))))],
    }


def _time(db: Path, question: Callable[[duckdb.DuckDBPyConnection], Any], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        with reader(db) as con:  # a fresh connection per question, as the dashboard does
            question(con)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    """Build the large warehouse, time every page's questions, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Keep the large database at this path.")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="handlab-bench-") as folder:
        root = Path(folder)
        started = time.perf_counter()
        base = _base(root)
        big = options.keep or root / "big.duckdb"
        big.unlink(missing_ok=True)
        total = _replicate(base, big, options.hands)
        print(f"warehouse: {total:,} hands, built in {time.perf_counter() - started:.0f} s")
        with reader(big) as con:
            pages = _pages(con)
        print(f"\n| page | question | median s (of {options.repeats}) |\n|---|---|---:|")
        for page, questions in pages.items():
            page_total = 0.0
            for name, question in questions:
                seconds = _time(big, question, options.repeats)
                page_total += seconds
                print(f"| {page} | {name} | {seconds:.3f} |")
            print(f"| **{page}** | **all, uncached** | **{page_total:.3f}** |")


if __name__ == "__main__":
    main()
