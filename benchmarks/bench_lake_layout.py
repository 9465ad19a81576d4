"""The lake's partition layout, A/B on the same rows: game and month folders (as written)
against game folders only, for the dashboard's questions that read the partitioned tables.

Run: ``.venv/bin/python benchmarks/bench_lake_layout.py LAKE [--rounds 5]``

The partitioned tables of LAKE's newest manifest (``hands``, ``seat_facts``, ``hand_facts``)
are copied once into ``LAKE/../layout-game/`` as one file per game (DuckDB's ``COPY ...
PARTITION_BY (game)``; same rows, the month folders gone); then each question runs on an
``open_lake`` connection and on one whose three views read the copies instead, alternating,
``--rounds`` times; the best of each and their ratio are printed with the load.  Decides
nothing by itself: docs/scale-out.md ("Partitions") reads it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.warehouse.lake.catalogue import open_lake  # noqa: E402
from analytics.warehouse.lake.core import latest_manifest, table_source, warehouse_schemas  # noqa: E402
from analytics.warehouse.sql import views  # noqa: E402
from analytics.warehouse.sql.views import HandFilter  # noqa: E402

TABLES = ("hands", "seat_facts", "hand_facts")


def game_copies(lake: Path, target: Path) -> dict[str, list[str]]:
    """Each partitioned table's rows as one Parquet file per game under ``target``."""
    if target.exists():
        shutil.rmtree(target)
    con = open_lake(lake)
    manifest = latest_manifest(lake)
    copies: dict[str, list[str]] = {}
    try:
        for name in TABLES:
            folder = target / name
            target.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY (SELECT * FROM {table_source(lake, name, manifest.files(name))})"
                        f" TO '{folder}' (FORMAT parquet, COMPRESSION zstd, "
                        "PARTITION_BY (game))")
            copies[name] = sorted(str(path) for path in folder.rglob("*.parquet"))
    finally:
        con.close()
    return copies


def game_layout(lake: Path, copies: dict[str, list[str]]) -> duckdb.DuckDBPyConnection:
    """An ``open_lake`` connection whose partitioned tables read the game-only copies."""
    con = open_lake(lake)
    for name, files in copies.items():
        columns = ", ".join(f'"{f.name}"' for f in warehouse_schemas()[name])
        paths = ", ".join(f"'{path}'" for path in files)
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT {columns} FROM read_parquet("
                    f"[{paths}], hive_partitioning = true, hive_types = {{'game': VARCHAR}})")
    return con


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lake", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    copies = game_copies(args.lake, args.lake.resolve().parent / "layout-game")
    files = {name: len(latest_manifest(args.lake).files(name)) for name in TABLES}
    print(f"copied in {time.perf_counter() - started:.1f} s; files per table: "
          + ", ".join(f"{name} {files[name]} -> {len(copies[name])}" for name in TABLES),
          flush=True)
    f = HandFilter()
    questions: dict[str, Callable[[duckdb.DuckDBPyConnection], object]] = {
        "filter_options": lambda con: views.filter_options(con),
        "hand_list": lambda con: views.hand_list(con, f),
        "dealt_hands rummoli": lambda con: views.dealt_hands(con, f, game="rummoli")}
    for label, question in questions.items():
        best = {"game and month": float("inf"), "game": float("inf")}
        for _ in range(args.rounds):
            for layout in best:
                con = open_lake(args.lake) if layout == "game and month" else game_layout(
                    args.lake, copies)
                try:
                    begun = time.perf_counter()
                    question(con)
                    best[layout] = min(best[layout], time.perf_counter() - begun)
                finally:
                    con.close()
        print(f"{label:<22} game and month {best['game and month'] * 1e3:7,.0f} ms  "
              f"game {best['game'] * 1e3:7,.0f} ms  ratio "
              f"{best['game and month'] / best['game']:.2f}x  (load {os.getloadavg()[0]:.1f})",
              flush=True)


if __name__ == "__main__":
    main()
