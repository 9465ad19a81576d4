"""A file's pot rows held back from one batch to the next (``facts.PotHold``) give the same
``pot_facts`` as every batch written at once, and as the whole-history windows.

The writer holds the rows of the game a batch ends in until the file's next batch (or the
file's end), so that a game spanning two batches of one file takes no query for its earlier
rows and no update.  The reference is the statement that recomputes every game from
``board`` (``tests.fact_oracle.POTS``) and the path without the hold, over any split of the
rounds into files and batches: in order or shuffled, repeats (duplicates) included, a game without a
game id, files gathered in one transaction or each in its own, a file rolled back after some
of its batches, rejects between the rounds.
"""

from __future__ import annotations

import datetime as dt
import importlib
import io
import itertools
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.warehouse import ingest, reader
from analytics.warehouse.connection import open_writer
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.work import UnitResult, process_chunks
from analytics.warehouse.pipeline.write import begin, commit, load_batch, rollback
from analytics.warehouse.sql import facts
from parsers.reader import iter_chunks
from tests.test_pot_facts_incremental import (
    _phhs,
    _recomputed,
    _round_texts,
    _stored,
    history_queries,
)
from tests.test_warehouse_data import write

_ROUNDS = 24


def _one_round_batches() -> list[dict[str, pa.Table]]:
    """Simulated rounds (a few games, one without a game id), one batch each, in order."""
    context = FileContext("r.phhs", "0" * 64, dt.datetime(2026, 1, 1, 12))
    result = UnitResult(0, last=True)
    text = _phhs(_round_texts(_ROUNDS, 41, without_game_id=2))
    process_chunks(iter_chunks(io.StringIO(text), context.path), context, 1, result)
    assert len(result.batches) == _ROUNDS and not result.rejects
    return result.batches


_BATCHES = _one_round_batches()


def _joined(rounds: list[int]) -> dict[str, pa.Table]:
    """One batch of the rounds ``rounds`` (in that order), as a worker would make it: a
    round repeated within it once (``Batch.add`` skips an id it holds)."""
    once = list(dict.fromkeys(rounds))
    return {name: pa.concat_tables([_BATCHES[r][name] for r in once])
            for name in _BATCHES[0]}


# A plan: transactions, each of files (rounds in batches; whether the file is rolled back
# after its batches instead of kept, a rolled-back file alone in its transaction; whether the
# hold is told of the file's last batch, as the ingest's writer does, or only flushed).
_File = tuple[list[list[int]], bool, bool]


@st.composite
def _plans(draw: st.DrawFn) -> list[list[_File]]:
    order = list(range(_ROUNDS))
    if draw(st.booleans()):
        order = draw(st.permutations(order))
    for repeat in draw(st.lists(st.integers(0, _ROUNDS - 1), max_size=4)):
        order.insert(draw(st.integers(0, len(order))), repeat)
    file_cuts = sorted(draw(st.sets(st.integers(1, len(order) - 1), max_size=4)))
    bounds = [0, *file_cuts, len(order)]
    transactions: list[list[_File]] = [[]]
    for a, b in itertools.pairwise(bounds):
        rounds = order[a:b]
        size = draw(st.integers(1, 8))
        batches = [rounds[k:k + size] for k in range(0, len(rounds), size)]
        rolled_back = draw(st.integers(0, 5)) == 0
        if rolled_back or draw(st.booleans()):
            transactions.append([])
        transactions[-1].append((batches, rolled_back, draw(st.booleans())))
        if rolled_back:
            transactions.append([])
    return [t for t in transactions if t]


def _load(db: Path, plan: list[list[_File]], *, hold: bool) -> pd.DataFrame:
    con = open_writer(db)
    try:
        games = facts.PotGames()
        for transaction in plan:
            begin(con)
            for batches, rolled_back, told in transaction:
                held = facts.PotHold() if hold else None
                for number, rounds in enumerate(batches, start=1):
                    if held is not None:
                        held.last = told and number == len(batches)
                    load_batch(con, _joined(rounds), games, held)
                if rolled_back:
                    if held is not None:
                        held.clear()
                    rollback(con)
                    break
                if held is not None:
                    held.flush(con, games)
                    assert held.rows == 0
            else:
                commit(con)
    finally:
        con.close()
    return _stored(db)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(_plans())
def test_held_rows_equal_the_windows_and_the_path_without_them(
        plan: list[list[_File]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        held, each = Path(folder) / "held.duckdb", Path(folder) / "each.duckdb"
        got = _load(held, plan, hold=True)
        pd.testing.assert_frame_equal(got, _load(each, plan, hold=False))
        pd.testing.assert_frame_equal(got, _recomputed(held))
        with reader(held) as con:
            assert con.execute("SELECT count(*) FROM pot_facts").fetchall() == con.execute(
                "SELECT count(*) FROM board").fetchall()


def test_a_file_in_many_batches_takes_no_history_query(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch boundary of one file splits a game here (batches of 4 rounds, games of
    several rounds): held back, none of them queries the game's earlier rows; without the
    hold each does.  The next file continues the last game: one query, as before."""
    monkeypatch.setattr(importlib.import_module("analytics.warehouse.pipeline.run"),
                        "BATCH_HANDS", 4)
    texts = _round_texts(30, 43)
    queries = history_queries(monkeypatch)
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", _phhs(texts[:25]))], db, workers=0)
    assert queries[0] == 0
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))
    ingest([write(tmp_path / "b.phhs", _phhs(texts[25:]))], db, workers=0)
    assert queries[0] == 1
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))
    other = tmp_path / "o.duckdb"
    monkeypatch.setattr(facts.PotHold, "hold_back", lambda self, rows, game: rows)
    ingest([write(tmp_path / "c.phhs", _phhs(texts[:25]))], other, workers=0)
    assert queries[0] > 3  # every batch that continues a game
    pd.testing.assert_frame_equal(_stored(other), _recomputed(other))


def test_rejects_between_the_rounds_and_files_in_one_transaction(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejected hands between a game's rounds, files gathered in one transaction, pooled
    workers: the rows equal the windows."""
    monkeypatch.setattr(importlib.import_module("analytics.warehouse.pipeline.run"),
                        "BATCH_HANDS", 3)
    texts = _round_texts(28, 47, without_game_id=0)
    broken = texts[5].replace("d dh p1", "d dh p9", 1)
    with_rejects = texts[:6] + [broken] + texts[6:14] + [broken.replace("p9", "p8")]
    paths = [write(tmp_path / "a.phhs", _phhs(with_rejects)),
             write(tmp_path / "b.phhs", _phhs(texts[14:])),
             write(tmp_path / "c.phhs", _phhs(texts[10:20]))]
    db = tmp_path / "w.duckdb"
    summary = ingest(paths, db, workers=0)
    assert summary.rejected == 2 and summary.duplicates == 10
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))
    pooled = tmp_path / "p.duckdb"
    ingest(paths, pooled, workers=2)
    pd.testing.assert_frame_equal(_stored(pooled), _stored(db))
