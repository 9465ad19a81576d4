"""``pot_facts`` filled batch by batch equals the whole-history windows of the old SQL.

The ingest adds a batch's board rows and brings its games' streak columns (``since_all``,
``history_rounds``) up to date from ``pot_facts`` itself; the reference here is the
statement that recomputes every game from ``board`` (``tests.fact_oracle.POTS``), whatever order
the rounds arrived in, over however many files and batches.  Last, the workers forked
after the ingest has loaded the Rummoli kernel (``analytics.equity.rummoli.warm_up``).
"""

from __future__ import annotations

import datetime as dt
import importlib
import io
import random
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from analytics.warehouse import ingest, reader
from analytics.warehouse.connection import open_writer
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.work import UnitResult, process_chunks
from analytics.warehouse.pipeline.write import begin, commit, load_new
from analytics.warehouse.sql import facts
from analytics.warehouse.sql.arrow_scan import arrow_over
from parsers import dumps_hand
from parsers.reader import iter_chunks
from tests.fact_oracle import POTS
from tests.test_warehouse_data import simulated, write

_ORDER = ["hand_id", "pot_order"]


def _round_texts(count: int, seed: int, *, without_game_id: int | None = None) -> list[str]:
    """Simulated rounds as texts; the rounds of game number ``without_game_id`` (in order of
    appearance) lose their ``game_id``: all such rounds form one history."""
    texts = []
    games: list[str] = []
    for hand in simulated("rummoli", count, seed):
        text = dumps_hand(hand)
        if hand.game_id not in games:
            games.append(str(hand.game_id))
        if without_game_id is not None and games.index(str(hand.game_id)) == without_game_id:
            text = "\n".join(line for line in text.splitlines()
                             if not line.startswith("game_id ="))
        texts.append(text)
    return texts


def _phhs(texts: list[str]) -> str:
    return "".join(f"[{number}]\n{text}\n" for number, text in enumerate(texts, start=1))


def _stored(db: Path) -> pd.DataFrame:
    with reader(db) as con:
        frame = con.execute("SELECT * FROM pot_facts").fetchdf()
    return frame.sort_values(_ORDER, ignore_index=True)


def _recomputed(db: Path) -> pd.DataFrame:
    """Every game's pot rows as the old whole-history statement computes them."""
    with reader(db) as con:
        frame = con.execute(POTS).fetchdf()
    return frame.sort_values(_ORDER, ignore_index=True)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 11])
def test_rounds_in_any_order_over_files_and_batches(tmp_path: Path, seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's rounds spread over files and batches in shuffled order, repeats included."""
    monkeypatch.setattr(importlib.import_module("analytics.warehouse.pipeline.run"),
                        "BATCH_HANDS", 5)
    texts = _round_texts(40, seed, without_game_id=1)
    rng = random.Random(seed)
    shuffled = texts[:]
    rng.shuffle(shuffled)
    parts = [shuffled[:7], shuffled[7:20], shuffled[20:26] + texts[:3], shuffled[26:]]
    db = tmp_path / "w.duckdb"
    for number, part in enumerate(parts):
        ingest([write(tmp_path / f"part{number}.phhs", _phhs(part))], db, workers=0)
        stored = _stored(db)
        assert len(stored) > 0
        pd.testing.assert_frame_equal(stored, _recomputed(db))
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM pot_facts").fetchall() == con.execute(
            "SELECT count(*) FROM board").fetchall()
        # The game without an id is one history, as the old windows partitioned it.
        assert con.execute("SELECT count(*) FROM pot_facts WHERE game_id IS NULL"
                           ).fetchall()[0][0] > 0


@pytest.mark.slow
def test_one_file_in_order_and_backwards_agree(tmp_path: Path) -> None:
    texts = _round_texts(24, 5)
    forward, backward = tmp_path / "f.duckdb", tmp_path / "b.duckdb"
    ingest([write(tmp_path / "f.phhs", _phhs(texts))], forward, workers=0)
    for number, text in enumerate(reversed(texts)):  # one round per file, last round first
        ingest([write(tmp_path / f"b{number}.phhs", _phhs([text]))], backward, workers=0)
    pd.testing.assert_frame_equal(_stored(forward), _recomputed(forward))
    pd.testing.assert_frame_equal(_stored(backward), _recomputed(backward))
    columns = ["hand_id", "pot", "since_all", "history_rounds"]
    pd.testing.assert_frame_equal(_stored(forward)[columns], _stored(backward)[columns])


def test_streaks_match_the_windows_on_random_histories() -> None:
    """The numpy streaks against DuckDB's windows (the oracle's POTS) on random won/lost sequences,
    rounds given in random order, several games and pots, a null game and null rounds."""
    rng = random.Random(7)
    rows: list[tuple[str | None, str, int | None, bool]] = []
    for game in ("a", "b", None):
        for pot in ("ten", "king", "poker"):
            rounds = list(range(1, rng.randint(1, 30)))
            rng.shuffle(rounds)
            rows += [(game, pot, r, rng.random() < 0.3) for r in rounds]
    rows.append(("c", "ten", None, False))
    rows.append(("c", "ten", 4, True))
    rows.append(("c", "ten", 5, False))
    history = pa.table({"game_id": [r[0] for r in rows], "pot": [r[1] for r in rows],
                        "round": pa.array([r[2] for r in rows], pa.int32()),
                        "won": [r[3] for r in rows]})
    since_all, history_rounds = facts._pot_streaks(history)
    with duckdb.connect() as db:
        db.register("h", history)
        expected = db.execute("""
            WITH s AS (
                SELECT *, row_number() OVER () AS i,
                       coalesce(sum(CAST(won AS INTEGER)) OVER (
                           PARTITION BY game_id, pot ORDER BY round
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS streak
                FROM h)
            SELECT i, row_number() OVER (PARTITION BY game_id, pot, streak ORDER BY round) - 1,
                   count(*) OVER (PARTITION BY game_id, pot)
            FROM s ORDER BY i
        """).fetchall()
    assert [(int(a), int(b)) for a, b in zip(since_all, history_rounds, strict=True)] == [
        (row[1], row[2]) for row in expected]


def test_workers_forked_after_the_warm_up_give_the_same_rows(tmp_path: Path) -> None:
    """The ingest loads the Rummoli kernel before forking its workers (``warm_up``): their
    strength and pot rows are those of an ingest in this process."""
    texts = _round_texts(12, 9)
    source = write(tmp_path / "r.phhs", _phhs(texts))
    inline, forked = tmp_path / "inline.duckdb", tmp_path / "forked.duckdb"
    ingest([source], inline, workers=0)
    ingest([source], forked, workers=2)
    for table in ("rummoli_strength", "pot_facts"):
        query = f"SELECT * FROM {table} ORDER BY ALL"
        with reader(inline) as con:
            expected = con.execute(query).fetchdf()
        with reader(forked) as con:
            got = con.execute(query).fetchdf()
        assert len(expected) > 0
        pd.testing.assert_frame_equal(got, expected)


def _round_batches(count: int, seed: int, per_batch: int) -> list[dict[str, pa.Table]]:
    """Simulated rounds (the same few games throughout) as the worker's batches."""
    context = FileContext("r.phhs", f"{seed:064x}", dt.datetime(2026, 1, 1, 12))
    result = UnitResult(0, last=True)
    text = _phhs(_round_texts(count, seed))
    process_chunks(iter_chunks(io.StringIO(text), context.path), context, per_batch, result)
    assert len(result.batches) == -(-count // per_batch) and not result.rejects
    return result.batches


def history_queries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts, in a list of one, the queries for a batch's earlier pot rows."""
    counted = [0]

    def counting(con: duckdb.DuckDBPyConnection, query: str, *args: Any) -> pa.Table:
        counted[0] += query == facts._POT_HISTORY
        return arrow_over(con, query, *args)

    monkeypatch.setattr(facts, "arrow_over", counting)
    return counted


def test_new_games_skip_the_history_query(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The ingest's record of the games with pot rows (facts.PotGames) spares the query for
    earlier rows to batches whose games are all new, and only to those: files of their own
    games, then files that continue them, in one ingest and in the next."""
    monkeypatch.setattr(importlib.import_module("analytics.warehouse.pipeline.run"),
                        "BATCH_HANDS", 1_000)
    texts = {seed: _round_texts(30, seed) for seed in (21, 22, 23)}
    queries = history_queries(monkeypatch)
    db = tmp_path / "w.duckdb"
    first = [write(tmp_path / f"a{seed}.phhs", _phhs(texts[seed][:10])) for seed in (21, 22)]
    ingest(first, db, workers=0)
    assert queries[0] == 0  # two files, each of games no other file has
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))
    ingest([write(tmp_path / "b21.phhs", _phhs(texts[21][10:])),
            write(tmp_path / "b23.phhs", _phhs(texts[23]))], db, workers=0)
    assert queries[0] == 1  # seed 21's games have earlier rows, seed 23's are new
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))
    ingest([write(tmp_path / "c22.phhs", _phhs(texts[22][10:]))], db, workers=0)
    assert queries[0] == 2
    pd.testing.assert_frame_equal(_stored(db), _recomputed(db))


def test_the_record_of_games_is_read_again_on_another_connection(tmp_path: Path) -> None:
    """A writer whose lease let go and reopened reads the games again: another writer may have
    added rounds of a game new to it meanwhile, whose earlier rows the streaks must count."""
    db = tmp_path / "w.duckdb"
    (other,) = _round_batches(10, 32, 10)
    first, second = _round_batches(20, 31, 10)
    assert set(first["hands"]["game_id"].to_pylist()).isdisjoint(
        other["hands"]["game_id"].to_pylist())
    games = facts.PotGames()
    # Each batch on a connection of its own, as after a release; the middle one by another
    # writer, without this record.
    for tables, record in ((other, games), (first, None), (second, games)):
        con = open_writer(db)
        try:
            begin(con)
            load_new(con, tables, record)
            commit(con)
        finally:
            con.close()
    stored = _stored(db)
    assert len(stored) == sum(batch["board"].num_rows for batch in (other, first, second))
    pd.testing.assert_frame_equal(stored, _recomputed(db))
