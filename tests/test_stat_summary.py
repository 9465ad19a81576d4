"""The 7 & 8 betting summary (``stat_summary.seveneight_summary``) is the SQL oracle's.

tests/stat_oracle.py writes the summary as one SQL query.  For the golden tables, the
golden statistics' hands, the simulated and sample histories, and generated hands (every
7 & 8 variant and table size, in batches of drawn sizes, their rows shuffled and thinned
and given NULLs the engine never writes), every column of every seat's row is the
oracle's.
"""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.stats.seveneight import SUMMARY_COLUMNS
from analytics.warehouse.pipeline.stat_summary import seveneight_summary
from analytics.warehouse.sql.arrow_scan import arrow_over
from parsers.writer import dumps_hands
from tests.fact_oracle import scratch
from tests.stat_oracle import oracle_summary
from tests.test_fact_rows import batches, text_batches

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "warehouse_rows"
HISTORIES = [ROOT / "tests" / "data" / "stats" / "seveneight.phhs",
             GOLDEN / "simulated-seveneight.phhs"]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.phhs"))
_READ = ("hands", "seats", "actions")


def _sorted(summary: pa.Table) -> pa.Table:
    """The summary ordered by hand and seat, as the oracle gives it."""
    return arrow_over(scratch(), "SELECT * FROM _summary ORDER BY hand_id, seat",
                      {"_summary": summary})


def assert_oracles(tables: dict[str, pa.Table]) -> pa.Table:
    """Assert the summary of ``tables`` is the oracle's, column by column; return it."""
    expected = oracle_summary(tables)
    got = _sorted(seveneight_summary(tables))
    assert got.column_names == expected.column_names
    assert got.num_rows == expected.num_rows
    for name in expected.column_names:
        assert got[name].to_pylist() == expected[name].to_pylist(), name
    return got


@pytest.mark.parametrize("name", ["seveneight-fl-headsup", "seveneight-nl-6max",
                                  "seveneight-pl-4max"])
def test_the_golden_tables(name: str) -> None:
    tables = {table: pq.read_table(GOLDEN / f"{name}.{table}.parquet") for table in _READ}
    got = assert_oracles(tables)
    assert got.num_rows == tables["seats"].num_rows


@pytest.mark.parametrize("path", [*HISTORIES, *(pytest.param(path, marks=pytest.mark.slow)
                                                for path in SAMPLES)],
                         ids=lambda path: path.name)
def test_histories_in_batches(path: Path) -> None:
    for tables in batches(path, batch_hands=40):
        assert_oracles(tables)


def test_what_the_summaries_cover() -> None:
    """The golden statistics' hands and the simulated ones reach every column's values:
    raises facing one and two raises, continuation bets faced, showdowns, every
    position."""
    summaries = [assert_oracles(tables) for path in HISTORIES for tables in batches(path)]
    summary = pa.concat_tables(summaries)
    assert set(summary.column_names) >= set(SUMMARY_COLUMNS)
    assert set(summary["position"].to_pylist()) == {"small blind", "big blind", "early",
                                                    "late", "button"}
    for name in ("facing_one_raise", "facing_two_raises", "first_r2_verb", "facing_cbet"):
        assert set(summary[name].to_pylist()) >= {"cbr", "cc", "f", None}, name
    for name in ("first_raiser", "last_raiser", "saw_round2", "showdown"):
        assert set(summary[name].to_pylist()) == {True, False}, name
    assert pc.max(summary["r1_calls"]).as_py() >= 1


def test_other_games_and_no_hands() -> None:
    """Seats of other games' hands are left out; a batch without 7 & 8 hands has none."""
    (seveneight,) = batches(GOLDEN / "simulated-seveneight.phhs")
    (bigtwo,) = batches(GOLDEN / "simulated-bigtwo.phhs")
    mixed = {name: pa.concat_tables([seveneight[name], bigtwo[name]], promote_options="default")
             for name in _READ}
    assert assert_oracles(mixed).num_rows == seveneight["seats"].num_rows
    assert assert_oracles({name: bigtwo[name] for name in _READ}).num_rows == 0
    empty = {name: seveneight[name].slice(0, 0) for name in _READ}
    assert assert_oracles(empty).num_rows == 0


# NULLs and rows the engine never writes, which the backfill could meet in a database
# written by other means: the oracle's joins and aggregates take them as they come.
_NULLABLE = {"hands": ("num_players", "min_bet", "small_bet"),
             "seats": ("blind", "won"),
             "actions": ("actor", "target", "cards", "verb", "street")}


def _nulled(data: st.DataObject, table: pa.Table, names: tuple[str, ...]) -> pa.Table:
    for name in data.draw(st.lists(st.sampled_from(names), unique=True, max_size=2)):
        mask = pa.array(data.draw(st.lists(st.booleans(), min_size=table.num_rows,
                                           max_size=table.num_rows)))
        column = table[name]
        table = table.set_column(table.column_names.index(name), name,
                                 pc.if_else(mask, pa.nulls(table.num_rows, column.type), column))
    return table


def _shuffled(data: st.DataObject, table: pa.Table) -> pa.Table:
    rows = table.num_rows
    if not rows:
        return table
    keep = data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    order = data.draw(st.permutations(range(rows)))
    return table.take(pa.array([row for row in order if keep[row]], pa.int64()))


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 9), seed=st.integers(0, 10_000), count=st.integers(1, 8),
       variant=st.sampled_from(["N78", "P78", "F78"]), batch_hands=st.integers(1, 8),
       data=st.data())
def test_generated_hands(players: int, seed: int, count: int, variant: str, batch_hands: int,
                         data: st.DataObject) -> None:
    from analytics.simulate.seveneight import simulate_seveneight

    text = dumps_hands(list(simulate_seveneight(count, players, seed, variant=variant)))
    for tables in text_batches(io.StringIO(text), "generated.phhs", batch_hands):
        assert_oracles(tables)
        changed = {name: _nulled(data, tables[name], _NULLABLE[name]) for name in _READ}
        changed["seats"] = _shuffled(data, changed["seats"])
        changed["actions"] = _shuffled(data, changed["actions"])
        assert_oracles(changed)
