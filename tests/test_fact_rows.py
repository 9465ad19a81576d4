"""The seat and hand facts (``fact_rows.fact_tables``) are the SQL oracle's, row for row.

tests/fact_oracle.py writes the facts as SQL joins over the stored tables: for every batch
of the golden and sample histories, and for generated hands (the three games' simulators
under drawn settings, their tables shuffled, thinned and given NULLs), the rows
:func:`~analytics.warehouse.pipeline.fact_rows.fact_tables` builds, once in the warehouse, equal the
oracle's, every column, in order.  An ingest's stored facts, with rejects, duplicates
within and across files and overlapping files mixed in, are the oracle's over the stored
tables.  Rows whose joins would not be one to one are an error naming the hand.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from pathlib import Path
from typing import IO

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.warehouse import ingest, reader
from analytics.warehouse.pipeline import work as pipeline
from analytics.warehouse.pipeline.fact_rows import (
    FACT_TABLES,
    FactRowsError,
    award_part,
    dealt_categories,
    fact_tables,
    with_dealt_categories,
)
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.write import load_new
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.schema import migrate
from analytics.warehouse.sql.views import SPLIT_COLUMNS
from parsers.reader import iter_chunks
from parsers.writer import dumps_hands
from tests.fact_oracle import oracle_facts, oracle_facts_of, scratch, split_condition
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
CONTEXT = FileContext("facts.phhs", "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))


def batches(path: Path, batch_hands: int = 5_000) -> list[dict[str, pa.Table]]:
    """The batches a worker makes of ``path`` (rejects and in-batch duplicates left out),
    without the facts it adds."""
    with path.open("rb") as stream:
        return text_batches(stream, path.name, batch_hands)


def text_batches(stream: IO[bytes] | IO[str], name: str, batch_hands: int
                 ) -> list[dict[str, pa.Table]]:
    """:func:`batches` of a stream of histories."""
    result = pipeline.UnitResult(0, True)
    pipeline.process_chunks(iter_chunks(stream, name), CONTEXT, batch_hands, result)
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


def worker_facts(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """What the loader inserts of the rows ``fact_tables`` builds for ``tables``."""
    built = fact_tables(tables)
    con = scratch()
    try:
        for name, rows in built.items():
            execute_over(con, f"INSERT INTO {name} BY NAME SELECT * FROM _rows", {"_rows": rows})
        return _stored(con)
    finally:
        for name in FACT_TABLES:
            con.execute(f"DELETE FROM {name}")


def _assert_same(got: dict[str, pa.Table], expected: dict[str, pa.Table]) -> None:
    for name in FACT_TABLES:
        assert got[name].schema == expected[name].schema, name
        assert got[name].num_rows == expected[name].num_rows, name
        for column in expected[name].column_names:
            assert got[name][column].equals(expected[name][column]), (name, column)


@pytest.mark.parametrize(
    "source", [*SIMULATED, *(pytest.param(path, marks=pytest.mark.slow) for path in SAMPLES)],
    ids=lambda path: path.name)
def test_fact_rows_are_the_oracles_row_for_row(source: Path) -> None:
    for tables in batches(source, batch_hands=150):
        expected = oracle_facts(tables)
        assert expected["seat_facts"].num_rows > 0
        _assert_same(worker_facts(tables), expected)


def test_the_sources_hold_what_the_joins_need() -> None:
    """All-ins, showdowns, Rummoli awards of every part and missing dealers are covered, by
    the simulated sources alone (the quick ones above; the samples add more of the same, and
    took 12 of this test's 14 s)."""
    stored = [worker_facts(tables)["seat_facts"] for source in SIMULATED
              for tables in batches(source)]
    seats = pa.concat_tables(stored)
    assert pc.sum(seats["all_in"]).as_py() > 0
    assert seats["shown_category"].null_count < seats.num_rows
    for column in SPLIT_COLUMNS.values():
        assert seats[column].null_count < seats.num_rows, column
    assert pc.sum(pc.list_value_length(seats["plays"])).as_py() > 0


def test_a_batch_without_rows_in_some_tables() -> None:
    """One hand, no showdown, no all-in, no awards: nothing to join is not an error."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    tables = batches(path)[0]
    first = tables["hands"]["hand_id"][0]
    one = {name: table.filter(pc.equal(table["hand_id"], first))
           for name, table in tables.items()}
    for name in ("showdowns", "allin_results", "awards"):
        one[name] = one[name].slice(0, 0)
    _assert_same(worker_facts(one), oracle_facts(one))


def test_a_batch_without_actions() -> None:
    """No actions at all: every seat has ``up`` false, no plays and NULL for the rest."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    tables = batches(path)[0]
    tables["actions"] = tables["actions"].slice(0, 0)
    _assert_same(worker_facts(tables), oracle_facts(tables))


def test_a_hand_without_seats() -> None:
    """A hand without seats (which the engine never writes) has no seat rows and an empty
    list of players."""
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-bigtwo.phhs"
    tables = batches(path)[0]
    first = tables["hands"]["hand_id"][0]
    tables["seats"] = tables["seats"].filter(pc.not_equal(tables["seats"]["hand_id"], first))
    got = worker_facts(tables)
    _assert_same(got, oracle_facts(tables))
    assert got["hand_facts"]["players"].to_pylist()[
        got["hand_facts"]["hand_id"].to_pylist().index(first.as_py())] == []


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
    _assert_same(worker_facts(tables), oracle_facts(tables))


# ---- generated hands -------------------------------------------------------------------

_PLAYERS = {"seveneight": (2, 9), "rummoli": (2, 8), "bigtwo": (2, 4)}
# Columns of ``hands`` the facts read that may be NULL in the warehouse (not the fixed-limit
# bets: a hand has both or neither, else its stakes label is NULL, which no table holds).
_NULLABLE = ("game_id", "round", "table_name", "played_on", "played_time", "dealer",
             "min_bet")


@st.composite
def _histories(draw: st.DrawFn) -> tuple[str, int]:
    """Simulated histories of one game under drawn settings, and a batch size."""
    game = draw(st.sampled_from(sorted(_PLAYERS)))
    low, high = _PLAYERS[game]
    players, seed, count = (draw(st.integers(low, high)), draw(st.integers(0, 10_000)),
                            draw(st.integers(1, 8)))
    if game == "seveneight":
        from analytics.simulate.seveneight import simulate_seveneight
        hands = simulate_seveneight(count, players, seed,
                                    variant=draw(st.sampled_from(["N78", "P78", "F78"])))
    elif game == "bigtwo":
        from analytics.simulate.bigtwo import simulate_bigtwo
        hands = simulate_bigtwo(count, players, seed, random_knobs=draw(st.booleans()))
    else:
        from analytics.simulate.rummoli import simulate_rummoli
        hands = simulate_rummoli(count, players, seed,
                                 finale=draw(st.sampled_from(["single", "per_pot"])),
                                 rounds_per_game=draw(st.integers(1, 4)))
    return dumps_hands(list(hands)), draw(st.integers(2, 8))


def _thinned(data: st.DataObject, table: pa.Table) -> pa.Table:
    """``table`` with drawn rows left out and the rest in a drawn order."""
    rows = table.num_rows
    if rows == 0:
        return table
    keep = data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    order = data.draw(st.permutations(range(rows)))
    return table.take(pa.array([row for row in order if keep[row]], pa.int64()))


def _with_nulls(data: st.DataObject, hands: pa.Table) -> pa.Table:
    """``hands`` with NULL in drawn rows of drawn nullable columns."""
    for name in data.draw(st.lists(st.sampled_from(_NULLABLE), unique=True, max_size=4)):
        column = hands[name]
        mask = pa.array(data.draw(st.lists(st.booleans(), min_size=hands.num_rows,
                                           max_size=hands.num_rows)))
        nulled = pc.if_else(mask, pa.nulls(hands.num_rows, column.type), column)
        hands = hands.set_column(hands.column_names.index(name), name, nulled)
    return hands


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(_histories(), st.data())
def test_generated_hands_give_the_oracles_facts(histories: tuple[str, int],
                                                data: st.DataObject) -> None:
    """The simulators' hands of every game under drawn settings, in batches of a drawn size,
    their hands given NULLs and the other tables' rows thinned and shuffled (rows the
    engine never writes, which the oracle's joins take as they come; hypothesis may keep
    them all, as written)."""
    text, batch_hands = histories
    for tables in text_batches(io.StringIO(text), "generated.phhs", batch_hands):
        changed = dict(tables)
        changed["hands"] = _with_nulls(data, tables["hands"])
        for name in ("seats", "actions", "showdowns", "awards", "allin_results"):
            changed[name] = _thinned(data, tables[name])
        _assert_same(worker_facts(changed), oracle_facts(changed))


@pytest.mark.parametrize("dealt", [
    ["AsKd", "7c8h2d", None, "2c3c"],  # 7 & 8 seats dealt two or three cards: the fast path
    ["AsKd", "7c8h2d", None, "2c3c4c"],
    [None, None],
    ["As??", "7c8h2d"], ["AsK", "7c8h2d"], ["AsKdQc7h", "7c8h2d"], ["", "7c8h2d"],
    ["AsKx", "7c8h2d"], ["AsKd", "7c8h2é"], ["1sKd", "7c8h2d"],
])
@pytest.mark.parametrize("games", ["seveneight", "mixed"])
def test_dealt_categories_of_seat_rows(dealt: list[str | None], games: str) -> None:
    """with_dealt_categories appends exactly dealt_categories' labels, whether its own
    reading of 7 & 8 seats' cards takes the rows or the general function does."""
    names = ["seveneight"] * len(dealt)
    if games == "mixed":
        names[0] = "rummoli"
    seats = pa.table({"game": names, "dealt": pa.array(dealt, pa.string())})
    # Sliced: the column's buffers hold rows before it, as a taken column may.
    padded = pa.table({"game": ["seveneight", *names],
                       "dealt": pa.array(["9d9h", *dealt], pa.string())}).slice(1)
    expected = dealt_categories(seats)
    for rows in (seats, padded):
        got = with_dealt_categories(rows)
        assert got.select(expected.column_names).equals(expected)


# ---- rows the fact tables cannot hold ---------------------------------------------------

def _seveneight_batch() -> dict[str, pa.Table]:
    return batches(ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs")[0]


def _where(tables: dict[str, pa.Table], hand_id: int) -> str:
    """How the error names the hand of id ``hand_id``: file, line, position and id."""
    hands = tables["hands"]
    at = hands["hand_id"].to_pylist().index(hand_id)
    row = hands.slice(at, 1).to_pylist()[0]
    return (f"{row['source_file']}:{row['source_line']}: hand {row['source_index']} "
            f"(id {hand_id}): ")


@pytest.mark.parametrize("table", ["showdowns", "allin_results"])
def test_a_seat_with_two_rows_is_an_error_naming_the_hand(table: str) -> None:
    """Two showdown or all-in rows for one seat (never written by the engine): an error
    naming the hand and the table, from fact_tables and from the loader, which has no
    other way to fill the facts."""
    tables = _seveneight_batch()
    rows = tables[table]
    assert rows.num_rows > 0
    tables[table] = pa.concat_tables([rows, rows.slice(0, 1)])
    first = rows.slice(0, 1).to_pylist()[0]
    seat = first["player" if table == "showdowns" else "seat"]
    message = f"{_where(tables, first['hand_id'])}seat {seat} has two rows in {table}"
    with pytest.raises(FactRowsError, match=re.escape(message)):
        fact_tables(tables)
    con = _database()
    with pytest.raises(FactRowsError):
        load_new(con, tables)


def test_a_hand_id_or_a_seat_twice_is_an_error_naming_the_hand() -> None:
    tables = _seveneight_batch()
    hands = tables["hands"]
    twice = dict(tables, hands=pa.concat_tables([hands, hands.slice(1, 1)]))
    hand_id = hands["hand_id"][1].as_py()
    with pytest.raises(FactRowsError, match="its hand id is in the hands twice") as raised:
        fact_tables(twice)
    assert str(raised.value).startswith(_where(tables, hand_id))
    seats = tables["seats"]
    seat_twice = dict(tables, seats=pa.concat_tables([seats, seats.slice(2, 1)]))
    row = seats.slice(2, 1).to_pylist()[0]
    with pytest.raises(FactRowsError, match=f"seat {row['seat']} is in seats twice") as raised:
        fact_tables(seat_twice)
    assert str(raised.value).startswith(_where(tables, row["hand_id"]))
    # Hand facts alone read no seat rows' joins: only the hand ids must be unique.
    assert fact_tables(seat_twice, ("hand_facts",))["hand_facts"].num_rows == hands.num_rows


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


def _by_key(rows: pa.Table) -> list[tuple[object, ...]]:
    """A fact table's rows as tuples, ordered by hand and seat (batches insert their own
    rows in order; the oracle over a whole warehouse orders them all at once)."""
    keys = [("hand_id", "ascending")]
    if "seat" in rows.column_names:
        keys.append(("seat", "ascending"))
    ordered = rows.sort_by(keys).to_pylist()
    return [tuple(row.values()) for row in ordered]


def test_an_ingests_facts_are_the_oracles_over_the_stored_tables(tmp_path: Path) -> None:
    """Three games, rejects, duplicates in a file and across files: the fact tables an
    ingest stores are the oracle's over its stored tables (the duplicates' facts filtered
    out with their hands), one row per seat and per hand."""
    folder = tmp_path / "in"
    mixed = phhs(SEVENEIGHT, PARSE_BROKEN, SEVENEIGHT, RULES_BROKEN)
    write(folder / "a-mixed.phhs", mixed + simulated_text("rummoli", 12, seed=3))
    write(folder / "b-bigtwo.phhs", simulated_text("bigtwo", 10, seed=5))
    write(folder / "c-seveneight.phhs", simulated_text("seveneight", 40, seed=6))
    # Overlaps the first files: its hands there are duplicates, filtered out with their facts.
    write(folder / "d-overlap.phhs", simulated_text("seveneight", 60, seed=6)
          + simulated_text("rummoli", 16, seed=3))
    db = tmp_path / "w.duckdb"
    summary = ingest([folder], db, workers=0)
    assert summary.rejected == 2
    assert summary.duplicates > 0
    with reader(db) as con:
        stored = {name: con.sql(f"SELECT * FROM {name}").to_arrow_table()
                  for name in FACT_TABLES}
        expected = oracle_facts_of(con)
        seats = con.execute("SELECT count(*) FROM seats").fetchall()[0][0]
    assert stored["seat_facts"].num_rows == seats > 0
    for name in FACT_TABLES:
        assert stored[name].schema == expected[name].schema, name
        assert _by_key(stored[name]) == _by_key(expected[name]), name

