"""The loader lets go of each batch once it is inserted, while its transaction is still open.

DuckDB keeps an object given to ``register`` alive until the transaction ends, even once
unregistered: with several files per transaction the writer held every batch of them
(about 15 MB per 5,000 7 & 8 hands).  ``load_new`` must hold none, and still load them:
neither its inserts nor the facts it fills (Rummoli's pots, ``facts.fill_batch_pots``, which
read the batch's tables through :mod:`analytics.warehouse.sql.arrow_scan`; the seat and hand
facts of a batch that comes without them, ``fact_rows.fact_tables``).
"""

from __future__ import annotations

import datetime as dt
import gc
import io
import weakref
from pathlib import Path

import pyarrow as pa
import pytest

from analytics.warehouse.connection import open_writer
from analytics.warehouse.pipeline.fact_rows import FACT_TABLES
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.work import UnitResult, process_chunks
from analytics.warehouse.pipeline.write import begin, commit, load_new
from analytics.warehouse.sql.arrow_scan import arrow_over, execute_over
from parsers.reader import iter_chunks
from tests.test_warehouse_data import simulated_text


def _batches(game: str, count: int, seed: int) -> list[dict[str, pa.Table]]:
    context = FileContext(f"{game}.phhs", f"{seed:064x}", dt.datetime(2026, 1, 1, 12))
    result = UnitResult(0, last=True)
    text = simulated_text(game, count, seed=seed)
    process_chunks(iter_chunks(io.StringIO(text), context.path), context, 10, result)
    assert result.batches and not result.rejects
    return result.batches


@pytest.mark.slow
@pytest.mark.parametrize("with_facts", [True, False], ids=["fact rows", "made by the loader"])
def test_inserted_batches_are_freed_before_the_commit(tmp_path: Path, with_facts: bool) -> None:
    con = open_writer(tmp_path / "w.duckdb")
    try:
        expected: dict[str, int] = {}
        alive: list[weakref.ref[pa.Table]] = []
        names: dict[int, str] = {}
        begin(con)
        for game, seed in (("seveneight", 1), ("bigtwo", 2), ("rummoli", 3)):
            for tables in _batches(game, 25, seed):
                if not with_facts:  # as a caller without them: the loader makes them
                    fact_counts = {name: tables.pop(name).num_rows for name in FACT_TABLES}
                    for name, rows in fact_counts.items():
                        expected[name] = expected.get(name, 0) + rows
                for name, table in tables.items():
                    expected[name] = expected.get(name, 0) + table.num_rows
                    if not table.num_rows:
                        continue  # never given to DuckDB (and may be a shared empty table)
                    alive.append(weakref.ref(table))
                    names[id(alive[-1])] = f"{game} {name}"
                load_new(con, tables)
                del tables, table
        gc.collect()  # the transaction is still open
        assert [names[id(ref)] for ref in alive if ref() is not None] == []
        commit(con)
        for name in ("hands", "seats", "actions", "showdowns", "awards", "seat_facts",
                     "hand_facts"):
            count = con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]
            assert count == expected[name] > 0, name
        pots = con.execute("SELECT count(*) FROM pot_facts").fetchall()[0][0]
        assert pots == expected["board"] > 0
    finally:
        con.close()


@pytest.mark.slow
def test_tables_read_by_name_go_with_the_statement(tmp_path: Path) -> None:
    """execute_over and arrow_over read the tables under their keys, bind parameters, let
    go of the tables inside the transaction, and leave a warehouse table of the same name
    first (as DuckDB's replacement scan does)."""
    con = open_writer(tmp_path / "w.duckdb")
    try:
        begin(con)
        execute_over(con, "CREATE TEMPORARY TABLE _handlab_t (a BIGINT)", {})
        batch = pa.table({"a": pa.array(range(10), pa.int64())})
        watched = weakref.ref(batch)
        execute_over(con, "INSERT INTO _handlab_t SELECT a FROM _handlab_x WHERE a >= ?",
                     {"_handlab_x": batch}, [4])
        del batch
        gc.collect()
        assert watched() is None
        other = pa.table({"a": pa.array([1], pa.int64())})
        counted = execute_over(con, "SELECT count(*), sum(a) FROM _handlab_t",
                               {"_handlab_t": other})
        assert counted.fetchall() == [(6, 39)]
        rows = arrow_over(con, "SELECT a FROM _handlab_y WHERE a > $low ORDER BY a",
                          {"_handlab_y": pa.table({"a": [3, 1, 2]})}, {"low": 1})
        assert rows.column("a").to_pylist() == [2, 3]
        with pytest.raises(ValueError, match="reserved"):
            execute_over(con, "SELECT 1", {"_handlab_scan_con": other})
        commit(con)
    finally:
        con.close()
