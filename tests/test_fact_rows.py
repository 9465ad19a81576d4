"""The workers' seat and hand facts (``fact_rows``) are the SQL's (``facts``), row for row.

``facts.fill_batch``'s SQL is the specification: for every batch of the golden and sample
histories the rows :func:`~analytics.warehouse.fact_rows.fact_tables` builds, once in the
warehouse, equal those the SQL inserts, every column, in order.  An ingest whose workers
ship the facts gives the same fact tables as one where the writer runs the SQL, with
rejects, duplicates within and across files and overlapping files mixed in.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from analytics.warehouse import facts, ingest, pipeline, reader
from analytics.warehouse.fact_rows import (
    FACT_TABLES,
    award_part,
    fact_tables,
    with_dealt_categories,
)
from analytics.warehouse.loader import load_batch
from analytics.warehouse.rows import FileContext
from analytics.warehouse.schema import migrate
from analytics.warehouse.views import SPLIT_COLUMNS, split_condition
from parsers.reader import iter_chunks
from tests.test_warehouse_data import (
    PARSE_BROKEN,
    RULES_BROKEN,
    SEVENEIGHT,
    phhs,
    simulated_text,
    write,
)

ROOT = Path(__file__).resolve().parent.parent
SIMULATED = sorted((ROOT / "tests" / "data" / "warehouse_rows").glob("*.phhs"))
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.phhs"))
SOURCES = SIMULATED + SAMPLES
CONTEXT = FileContext("facts.phhs", "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))


def batches(path: Path, batch_hands: int = 5_000) -> list[dict[str, pa.Table]]:
    """The batches a worker makes of ``path`` (rejects and in-batch duplicates left out),
    without the facts it adds."""
    result = pipeline.UnitResult(0, True)
    with path.open("rb") as stream:
        pipeline.process_chunks(iter_chunks(stream, path.name), CONTEXT, batch_hands, result)
    return [{name: table for name, table in tables.items() if name not in FACT_TABLES}
            for tables in result.batches]


def _database() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    migrate(con)
    return con


def _stored(con: duckdb.DuckDBPyConnection) -> dict[str, pa.Table]:
    """The fact tables as stored (insertion order)."""
    return {name: con.sql(f"SELECT * FROM {name} ORDER BY rowid").to_arrow_table()
            for name in FACT_TABLES}


def sql_facts(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """What ``facts.fill_batch`` inserts for ``tables``."""
    con = _database()
    facts.fill_batch(con, tables)
    return _stored(con)


def worker_facts(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """What the loader inserts of the rows ``fact_tables`` builds for ``tables``."""
    built = fact_tables(tables)
    assert built is not None
    con = _database()
    for name, rows in built.items():
        con.register("_rows", rows)
        con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM _rows")
        con.unregister("_rows")
    return _stored(con)


def _assert_same(got: dict[str, pa.Table], expected: dict[str, pa.Table]) -> None:
    for name in FACT_TABLES:
        assert got[name].schema == expected[name].schema, name
        assert got[name].num_rows == expected[name].num_rows, name
        for column in expected[name].column_names:
            assert got[name][column].equals(expected[name][column]), (name, column)


@pytest.mark.parametrize(
    "source", [*SIMULATED, *(pytest.param(path, marks=pytest.mark.slow) for path in SAMPLES)],
    ids=lambda path: path.name)
def test_worker_facts_are_the_sql_facts_row_for_row(source: Path) -> None:
    for tables in batches(source, batch_hands=150):
        expected = sql_facts(tables)
        assert expected["seat_facts"].num_rows > 0
        _assert_same(worker_facts(tables), expected)


@pytest.mark.slow
def test_the_sources_hold_what_the_joins_need() -> None:
    """All-ins, showdowns, Rummoli awards of every part and missing dealers are covered."""
    stored = [sql_facts(tables)["seat_facts"] for source in SOURCES
              for tables in batches(source)]
    seats = pa.concat_tables(stored)
    assert pa.compute.sum(seats["all_in"]).as_py() > 0
    assert seats["shown_category"].null_count < seats.num_rows
    for column in SPLIT_COLUMNS.values():
        assert seats[column].null_count < seats.num_rows, column
    assert pa.compute.sum(pa.compute.list_value_length(seats["plays"])).as_py() > 0


def test_a_batch_without_rows_in_some_tables() -> None:
    """One hand, no showdown, no all-in, no awards: nothing to join is not an error."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    tables = batches(path)[0]
    first = tables["hands"]["hand_id"][0]
    one = {name: table.filter(pa.compute.equal(table["hand_id"], first))
           for name, table in tables.items()}
    for name in ("showdowns", "allin_results", "awards"):
        one[name] = one[name].slice(0, 0)
    _assert_same(worker_facts(one), sql_facts(one))


def test_a_batch_without_actions() -> None:
    """No actions at all: every seat has ``up`` false, no plays and NULL for the rest."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    tables = batches(path)[0]
    tables["actions"] = tables["actions"].slice(0, 0)
    _assert_same(worker_facts(tables), sql_facts(tables))


@pytest.mark.parametrize("name", ["rummoli", "bigtwo", "seveneight"])
def test_rows_in_any_order(name: str) -> None:
    """The SQL joins by value: rows of a hand apart and out of order (a table the engine
    never writes, each hand's rows together) give the same facts."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / f"simulated-{name}.phhs"
    tables = batches(path)[0]
    for table in ("seats", "actions", "showdowns", "awards", "allin_results"):
        rows = tables[table].num_rows
        shuffled = [*range(0, rows, 2), *reversed(range(1, rows, 2))]
        tables[table] = tables[table].take(pa.array(shuffled, pa.int64()))
    _assert_same(worker_facts(tables), sql_facts(tables))


@pytest.mark.parametrize("dealt", [
    ["AsKd", "7c8h2d", None, "2c3c"],  # 7 & 8 seats dealt two or three cards: the fast path
    ["AsKd", "7c8h2d", None, "2c3c4c"],
    [None, None],
    ["As??", "7c8h2d"], ["AsK", "7c8h2d"], ["AsKdQc7h", "7c8h2d"], ["", "7c8h2d"],
    ["AsKx", "7c8h2d"], ["AsKd", "7c8h2é"], ["1sKd", "7c8h2d"],
])
@pytest.mark.parametrize("games", ["seveneight", "mixed"])
def test_dealt_categories_of_seat_rows(dealt: list[str | None], games: str) -> None:
    """with_dealt_categories appends exactly facts.dealt_categories' labels, whether its
    own reading of 7 & 8 seats' cards takes the rows or the general function does."""
    names = ["seveneight"] * len(dealt)
    if games == "mixed":
        names[0] = "rummoli"
    seats = pa.table({"game": names, "dealt": pa.array(dealt, pa.string())})
    # Sliced: the column's buffers hold rows before it, as a taken column may.
    padded = pa.table({"game": ["seveneight", *names],
                       "dealt": pa.array(["9d9h", *dealt], pa.string())}).slice(1)
    expected = facts.dealt_categories(seats)
    for rows in (seats, padded):
        got = with_dealt_categories(rows)
        assert got.select(expected.column_names).equals(expected)


def test_a_seat_with_two_showdown_rows_is_left_to_the_sql() -> None:
    """A join that would not be one-to-one (never produced by the engines): no worker
    rows, and the loader fills the batch with the SQL instead."""
    tables = batches(ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs")[0]
    showdowns = tables["showdowns"]
    assert showdowns.num_rows > 0
    tables["showdowns"] = pa.concat_tables([showdowns, showdowns.slice(0, 1)])
    assert fact_tables(tables) is None
    con = _database()
    load_batch(con, tables)
    assert con.execute("SELECT count(*) FROM seat_facts").fetchall()[0][0] > 0


@pytest.mark.parametrize("pot", ["poker", "TS", "AKD", "789", "rummoli", "auction",
                                 "payments", "impasse", "finale", "poker_side1",
                                 "pokerXside", "poker_sid", "poker_side", "Poker_side1",
                                 "xpoker_side", "", "poker side 2", "pöker_side"])
def test_award_parts_are_split_condition(pot: str) -> None:
    with duckdb.connect() as con:
        expected = [part for part in SPLIT_COLUMNS
                    if con.execute(f"SELECT {split_condition(part, '$pot')}",
                                   {"pot": pot}).fetchall()[0][0]]
    assert [award_part(pot)] == expected


def _fact_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with reader(db) as con:
        return {name: con.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
                for name in (*FACT_TABLES, "pot_facts")}


def test_an_ingest_with_worker_facts_equals_one_with_the_sql(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three games, rejects, duplicates in a file and across files: the fact tables of
    an ingest whose workers build the facts are those of one whose writer runs the SQL."""
    folder = tmp_path / "in"
    mixed = phhs(SEVENEIGHT, PARSE_BROKEN, SEVENEIGHT, RULES_BROKEN)
    write(folder / "a-mixed.phhs", mixed + simulated_text("rummoli", 12, seed=3))
    write(folder / "b-bigtwo.phhs", simulated_text("bigtwo", 10, seed=5))
    write(folder / "c-seveneight.phhs", simulated_text("seveneight", 40, seed=6))
    # Overlaps the first files: its hands there are duplicates, filtered out with their facts.
    write(folder / "d-overlap.phhs", simulated_text("seveneight", 60, seed=6)
          + simulated_text("rummoli", 16, seed=3))
    shipped = tmp_path / "shipped.duckdb"
    summary = ingest([folder], shipped, workers=0)
    assert summary.rejected == 2
    assert summary.duplicates > 0
    monkeypatch.setattr(pipeline, "fact_tables", lambda tables: None)
    written = tmp_path / "sql.duckdb"
    ingest([folder], written, workers=0)
    got, expected = _fact_rows(shipped), _fact_rows(written)
    for name in expected:
        assert len(expected[name]) > 0
        assert got[name] == expected[name], name
