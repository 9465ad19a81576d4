"""The statistics' summaries (``stat_summary``: 7 & 8's betting, Rummoli's rounds) are the
SQL oracle's.

tests/stat_oracle.py writes each summary as one SQL query.  For the golden tables, the
golden statistics' hands, the simulated and sample histories, and generated hands (every
7 & 8 variant and table size, Rummoli under both finales and several rounds a game, in
batches of drawn sizes, their rows shuffled and thinned and given NULLs the engine never
writes), every column of every seat's row is the oracle's.
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
from analytics.warehouse.pipeline.stat_summary import rummoli_summary, seveneight_summary
from analytics.warehouse.sql.arrow_scan import arrow_over
from parsers.writer import dumps_hands
from tests.fact_oracle import scratch
from tests.stat_oracle import oracle_summary
from tests.test_fact_rows import batches, text_batches

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "warehouse_rows"
HISTORIES = [ROOT / "tests" / "data" / "stats" / "seveneight.phhs",
             GOLDEN / "simulated-seveneight.phhs", GOLDEN / "simulated-rummoli.phhs"]
SAMPLES = sorted([*(ROOT / "data" / "samples").glob("seveneight-*.phhs"),
                  *(ROOT / "data" / "samples").glob("rummoli-*.phhs")])
_READ = ("hands", "seats", "actions", "awards")
_SUMMARIES = {"seveneight": seveneight_summary, "rummoli": rummoli_summary}


def _sorted(summary: pa.Table) -> pa.Table:
    """The summary ordered by hand and seat, as the oracle gives it."""
    return arrow_over(scratch(), "SELECT * FROM _summary ORDER BY hand_id, seat",
                      {"_summary": summary})


def assert_oracles(tables: dict[str, pa.Table], game: str = "seveneight") -> pa.Table:
    """Assert ``game``'s summary of ``tables`` is the oracle's, column by column; return
    it."""
    expected = oracle_summary(tables, game)
    got = _sorted(_SUMMARIES[game](tables))
    assert got.column_names == expected.column_names
    assert got.num_rows == expected.num_rows
    for name in expected.column_names:
        assert got[name].to_pylist() == expected[name].to_pylist(), name
    return got


@pytest.mark.parametrize("name", ["seveneight-fl-headsup", "seveneight-nl-6max",
                                  "seveneight-pl-4max", "rummoli-family",
                                  "rummoli-manual-claims", "simulated-rummoli"])
def test_the_golden_tables(name: str) -> None:
    tables = {table: pq.read_table(GOLDEN / f"{name}.{table}.parquet") for table in _READ}
    got = assert_oracles(tables, name.split("-")[0].replace("simulated", "rummoli"))
    assert got.num_rows == tables["seats"].num_rows


@pytest.mark.parametrize("path", [*HISTORIES, *(pytest.param(path, marks=pytest.mark.slow)
                                                for path in SAMPLES)],
                         ids=lambda path: path.name)
def test_histories_in_batches(path: Path) -> None:
    game = "rummoli" if "rummoli" in path.name else "seveneight"
    for tables in batches(path, batch_hands=40):
        assert assert_oracles(tables, game).num_rows


def test_what_the_summaries_cover() -> None:
    """The golden statistics' hands and the simulated ones reach every column's values:
    raises facing one and two raises, continuation bets faced, showdowns, every
    position."""
    summaries = [assert_oracles(tables) for path in HISTORIES[:2] for tables in batches(path)]
    summary = pa.concat_tables(summaries)
    assert set(summary.column_names) >= set(SUMMARY_COLUMNS)
    assert set(summary["position"].to_pylist()) == {"small blind", "big blind", "early",
                                                    "late", "button"}
    for name in ("facing_one_raise", "facing_two_raises", "first_r2_verb", "facing_cbet"):
        assert set(summary[name].to_pylist()) >= {"cbr", "cc", "f", None}, name
    for name in ("first_raiser", "last_raiser", "saw_round2", "showdown"):
        assert set(summary[name].to_pylist()) == {True, False}, name
    assert pc.max(summary["r1_calls"]).as_py() >= 1


def test_what_the_rummoli_summaries_cover() -> None:
    """The golden and simulated rounds reach the widow's choices and auctions, stops, pay
    cards, end-of-game rounds, positions from the dealer and every pot's net."""
    summary = pa.concat_tables([assert_oracles(tables, "rummoli")
                                for path in (GOLDEN / "simulated-rummoli.phhs",
                                             ROOT / "data" / "samples" / "rummoli-family.phhs")
                                for tables in batches(path)])
    assert {"dealer", "1", "2"} <= set(summary["position"].to_pylist())
    assert set(summary["dealt"].to_pylist()) == {True}
    for name in ("laying", "showdown", "bid", "asked"):
        assert set(summary[name].to_pylist()) == {True, False}, name
    for name in ("raises", "calls", "exchanged", "auctions_won", "winning_bids", "pay_cards",
                 "stops", "cards_left", "chips_paid", "rummoli_won", "poker_won"):
        assert pc.max(summary[name]).as_py() > 0, name
    for name in ("poker_net", "pay_cards_net", "rummoli_net", "payments_net", "auction_net"):
        assert pc.min(summary[name]).as_py() < 0 < pc.max(summary[name]).as_py(), name


def test_other_games_and_no_hands() -> None:
    """Seats of other games' hands are left out; a batch without 7 & 8 hands has none."""
    (seveneight,) = batches(GOLDEN / "simulated-seveneight.phhs")
    (bigtwo,) = batches(GOLDEN / "simulated-bigtwo.phhs")
    mixed = {name: pa.concat_tables([seveneight[name], bigtwo[name]], promote_options="default")
             for name in _READ}
    assert assert_oracles(mixed).num_rows == seveneight["seats"].num_rows
    for game in _SUMMARIES:
        assert assert_oracles({name: bigtwo[name] for name in _READ}, game).num_rows == 0
        empty = {name: seveneight[name].slice(0, 0) for name in _READ}
        assert assert_oracles(empty, game).num_rows == 0


# NULLs and rows the engine never writes, which the backfill could meet in a database
# written by other means: the oracle's joins and aggregates take them as they come.
_NULLABLE = {"hands": ("num_players", "min_bet", "small_bet", "dealer", "finale_pot", "rules"),
             "seats": ("blind", "won", "starting_stack", "net"),
             "actions": ("actor", "target", "cards", "verb", "street", "amount"),
             "awards": ("pot", "player", "amount")}


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
@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 9), seed=st.integers(0, 10_000), count=st.integers(1, 8),
       variant=st.sampled_from(["N78", "P78", "F78"]), batch_hands=st.integers(3, 8),
       data=st.data())
def test_generated_hands(players: int, seed: int, count: int, variant: str, batch_hands: int,
                         data: st.DataObject) -> None:
    from analytics.simulate.seveneight import simulate_seveneight

    text = dumps_hands(list(simulate_seveneight(count, players, seed, variant=variant)))
    _assert_generated(text, batch_hands, data, "seveneight")


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 10_000), count=st.integers(1, 8),
       finale=st.sampled_from(["single", "per_pot"]), rounds=st.integers(1, 4),
       batch_hands=st.integers(3, 8), data=st.data())
def test_generated_rounds(players: int, seed: int, count: int, finale: str, rounds: int,
                          batch_hands: int, data: st.DataObject) -> None:
    from analytics.simulate.rummoli import simulate_rummoli

    text = dumps_hands(list(simulate_rummoli(count, players, seed, finale=finale,
                                             rounds_per_game=rounds)))
    _assert_generated(text, batch_hands, data, "rummoli")


def _assert_generated(text: str, batch_hands: int, data: st.DataObject, game: str) -> None:
    """The summaries of ``text``'s batches as the ingest makes them, then with drawn NULLs
    and their seats, actions and awards shuffled and thinned, are the oracle's."""
    for tables in text_batches(io.StringIO(text), "generated.phhs", batch_hands):
        assert_oracles(tables, game)
        changed = {name: _nulled(data, tables[name], _NULLABLE[name]) for name in _READ}
        for name in ("seats", "actions", "awards"):
            changed[name] = _shuffled(data, changed[name])
        assert_oracles(changed, game)
        assert_oracles(_odd_cards(data, tables), game)


_ODD_CARDS = ("Ts", "Js", "Qs", "Tx", "Jx", "", "9", "AsKd", "1s", "Ad")


def _odd_cards(data: st.DataObject, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """``tables`` with drawn card texts, which the engine never writes, in drawn actions:
    the oracle's ``substr`` and ``instr`` take them as they come."""
    actions = tables["actions"]
    rows = actions.num_rows
    picked = data.draw(st.lists(st.sampled_from([None, *_ODD_CARDS]), min_size=rows,
                                max_size=rows))
    cards = pa.array([card if card is not None else old
                      for card, old in zip(picked, actions["cards"].to_pylist(), strict=True)],
                     pa.string())
    return {**tables, "actions": actions.set_column(actions.column_names.index("cards"),
                                                      "cards", cards)}
