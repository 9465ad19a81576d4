"""The loader lets go of each batch once it is inserted, while its transaction is still open.

DuckDB keeps an object given to ``register`` alive until the transaction ends, even once
unregistered: with several files per transaction the writer held every batch of them
(about 15 MB per 5,000 7 & 8 hands).  ``load_batch`` must hold none, and still load them.
(Rummoli's pot facts, ``facts.fill_batch_pots``, still register the batch's ``hands``,
``seats`` and ``board``: checked here only for the loaded rows.)
"""

from __future__ import annotations

import datetime as dt
import gc
import io
import weakref
from pathlib import Path

import pyarrow as pa

from analytics.warehouse.connection import open_writer
from analytics.warehouse.loader import begin, commit, load_batch
from analytics.warehouse.pipeline import UnitResult, process_chunks
from analytics.warehouse.rows import FileContext
from parsers.reader import iter_chunks
from tests.test_warehouse_data import simulated_text


def _batches(game: str, count: int, seed: int) -> list[dict[str, pa.Table]]:
    context = FileContext(f"{game}.phhs", f"{seed:064x}", dt.datetime(2026, 1, 1, 12))
    result = UnitResult(0, last=True)
    text = simulated_text(game, count, seed=seed)
    process_chunks(iter_chunks(io.StringIO(text), context.path), context, 10, result)
    assert result.batches and not result.rejects
    return result.batches


def test_inserted_batches_are_freed_before_the_commit(tmp_path: Path) -> None:
    con = open_writer(tmp_path / "w.duckdb")
    try:
        expected: dict[str, int] = {}
        alive: list[weakref.ref[pa.Table]] = []
        names: dict[int, str] = {}
        begin(con)
        for game, seed in (("seveneight", 1), ("bigtwo", 2), ("rummoli", 3)):
            watched = game != "rummoli"
            for tables in _batches(game, 25, seed):
                for name, table in tables.items():
                    expected[name] = expected.get(name, 0) + table.num_rows
                    if watched:
                        alive.append(weakref.ref(table))
                        names[id(alive[-1])] = f"{game} {name}"
                load_batch(con, tables)
                del tables
        gc.collect()  # the transaction is still open
        assert [names[id(ref)] for ref in alive if ref() is not None] == []
        commit(con)
        for name in ("hands", "seats", "actions", "showdowns", "awards", "seat_facts",
                     "hand_facts"):
            count = con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]
            assert count == expected[name] > 0, name
    finally:
        con.close()
