"""The worker's block path gives exactly the per-hand path's batches.

:func:`analytics.warehouse.pipeline.work.process_chunks` reads the 7 & 8 hands of the
writer's layout as blocks (scanned, replayed and made rows of together) and every
other hand one by one.  Whatever the mix (other games, hands the scanner declines,
rejects, all-ins, the same hand twice, hands the batch replay leaves to the engine),
the batches (every table, row order included, and the facts), the rejects and the
counts must be those of the per-hand path (``blocks=False``), and the golden tables
must come out of the block path too.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.rules.seveneight.block import replay_block
from analytics.warehouse.pipeline import work as pipeline
from analytics.warehouse.pipeline.block_rows import block_tables
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, FileContext
from analytics.warehouse.pipeline.sources import Limits, SourceRef
from parsers.block import SevenEightBlock
from parsers.block_scan import scan_seveneight, scan_texts
from parsers.reader import Chunk, iter_chunks
from tests.canonical import MUTATIONS, mutated_canonical
from tests.mutate import Mutation
from tests.test_warehouse_data import (
    BIGTWO,
    PARSE_BROKEN,
    RULES_BROKEN,
    SEVENEIGHT,
    phhs,
    simulated_text,
)
from tests.test_warehouse_rows_golden import differences

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (sorted((ROOT / "tests" / "data" / "warehouse_rows").glob("*.phhs"))
           + sorted((ROOT / "data" / "samples").glob("seveneight-*.phhs")))
"""Every 7 & 8 file of the repository, and one simulated file of each other game: the block
path never holds a Big Two or Rummoli hand, so their samples would only replay the same
per-hand path three times (``bigtwo-house-rules.phhs``, 19 rule sets, 19 s of the file's
38 s here; the golden tables of every sample: tests/test_warehouse_rows_golden.py)."""
CONTEXT = FileContext("golden.phhs", "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))


def run(data: bytes, batch_hands: int, *, blocks: bool, context: FileContext = CONTEXT
        ) -> pipeline.UnitResult:
    """What a worker makes of the chunks of the history ``data``."""
    result = pipeline.UnitResult(0, True)
    pipeline.process_chunks(iter_chunks(io.BytesIO(data), context.path), context, batch_hands,
                            result, blocks=blocks)
    return result


def run_data(data: bytes, batch_hands: int) -> pipeline.UnitResult:
    """What a worker makes of the history ``data`` read whole (:func:`pipeline.process_data`:
    the hands' texts scanned without chunks, when the text is the usual one)."""
    result = pipeline.UnitResult(0, True)
    pipeline.process_data(data, CONTEXT, batch_hands, result)
    return result


def assert_equal(actual: pipeline.UnitResult, expected: pipeline.UnitResult) -> None:
    assert actual.hands == expected.hands
    assert actual.rejects == expected.rejects
    assert actual.rejected == expected.rejected
    assert actual.batch_duplicates == expected.batch_duplicates
    assert len(actual.batches) == len(expected.batches)
    for got, want in zip(actual.batches, expected.batches, strict=True):
        assert got.keys() == want.keys()
        for name, table in want.items():
            assert got[name].schema == table.schema, name
            assert got[name].equals(table), name


def assert_same(data: bytes, batch_hands: int = 5_000) -> pipeline.UnitResult:
    """The block path's result of ``data``, from its chunks and from its text, is the per-hand
    path's; return it."""
    expected = run(data, batch_hands, blocks=False)
    actual = run(data, batch_hands, blocks=True)
    assert_equal(actual, expected)
    assert_equal(run_data(data, batch_hands), expected)
    return actual


def hand_texts(game: str, count: int, seed: int) -> list[str]:
    """Simulated hands as texts without their ``[n]`` table lines (for :func:`phhs`)."""
    texts = simulated_text(game, count, seed=seed).strip().split("\n\n")
    return [text.split("\n", 1)[1] for text in texts]


class BlockCounter:
    """Counts the hands the block path turns into rows (so no test passes vacuously)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hands = 0
        original: Callable[..., dict[str, pa.Table]] = block_tables

        def counting(*args: Any, **kwargs: Any) -> dict[str, pa.Table]:
            tables = original(*args, **kwargs)
            self.hands += tables["hands"].num_rows
            return tables

        monkeypatch.setattr(pipeline, "block_tables", counting)


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
@pytest.mark.parametrize("batch_hands", [5_000, pytest.param(7, marks=pytest.mark.slow)])
def test_repository_files(path: Path, batch_hands: int) -> None:
    assert_same(path.read_bytes(), batch_hands)


def test_golden_tables_come_out_of_the_block_path(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = BlockCounter(monkeypatch)
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    result = run(path.read_bytes(), 5_000, blocks=True)
    (tables,) = result.batches
    tables = {name: tables[name] for name in ARROW_SCHEMAS}
    assert differences("simulated-seveneight", tables) == []
    # Most of the file's hands went through the block (the rest: all-ins, declines).
    assert counter.hands > tables["hands"].num_rows // 2
    from_chunks = counter.hands
    assert_equal(run_data(path.read_bytes(), 5_000), result)
    assert counter.hands == 2 * from_chunks  # the text's hands went through the block too


def test_a_whole_file_read_by_a_worker(tmp_path: Path) -> None:
    # process_unit reads a whole plain file at once; one that grew since it was planned is
    # read to its end all the same (its first bytes and then the rest of the stream), the
    # planned bytes checked against the plan's hash of them.
    data = simulated_text("seveneight", 40, seed=11).encode()
    path = tmp_path / "whole.phhs"
    path.write_bytes(data)
    for size in (len(data), len(data) // 2, 0):
        context = dataclasses.replace(CONTEXT, path=str(path),
                                      sha256=hashlib.sha256(data[:size]).hexdigest())
        expected = run(data, 7, blocks=False, context=context)
        ref = SourceRef("file", str(path), None, size)
        unit = pipeline.Unit(0, context, True, 7, Limits(), ref, size=size)
        result = pipeline.process_unit(unit)
        # A unit's batches also carry their statistics' rows (one statement for the unit):
        # one a seat, of that batch's hands.
        for batch in result.batches:
            stats = batch.pop("stat_facts")
            assert sorted(zip(stats["hand_id"].to_pylist(), stats["seat"].to_pylist(),
                              strict=True)) == sorted(zip(batch["seats"]["hand_id"].to_pylist(),
                                                          batch["seats"]["seat"].to_pylist(),
                                                          strict=True))
        assert_equal(result, expected)


def test_simulated_hands_in_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = BlockCounter(monkeypatch)
    text = simulated_text("seveneight", 400, seed=7)
    result = assert_same(text.encode(), batch_hands=64)
    assert counter.hands > 200
    assert len(result.batches) == 7


def test_a_mix_of_games_rejects_and_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = BlockCounter(monkeypatch)
    sim = hand_texts("seveneight", 30, seed=3)
    # A 7 & 8 hand with a comment (the scanner declines it), the same hand without one,
    # exact repeats, the other games, both kinds of broken hand, in one batch and spread.
    commented = sim[1].replace("\nmin_bet", "  # the stakes\nmin_bet", 1)
    hands = [sim[0], BIGTWO, sim[1], PARSE_BROKEN, sim[2], sim[0], RULES_BROKEN, commented,
             *hand_texts("bigtwo", 3, seed=2), *sim[3:], SEVENEIGHT, sim[5], sim[4]]
    data = phhs(*hands).encode()
    for batch_hands in (5_000, 4, 1):
        assert_same(data, batch_hands)
    assert counter.hands > 0


def declining(monkeypatch: pytest.MonkeyPatch, declined: Callable[[int], bool]) -> None:
    """Make the scanner decline the chunks at the positions ``declined`` picks, whatever
    their layout (the block holds the others, at their positions in the whole batch)."""
    original, original_texts = scan_seveneight, scan_texts

    def placed(count: int, scanned: Callable[[list[int]], tuple[SevenEightBlock, list[int]]]
               ) -> tuple[SevenEightBlock, list[int]]:
        kept = [position for position in range(count) if not declined(position)]
        block, refused = scanned(kept)
        positions = np.array(kept, dtype=np.int64)[block.positions]
        refused = [kept[position] for position in refused]
        others = sorted([*refused, *(p for p in range(count) if declined(p))])
        return dataclasses.replace(block, positions=positions), others

    def scan(chunks: Sequence[Chunk], source: str) -> tuple[SevenEightBlock, list[int]]:
        return placed(len(chunks), lambda kept: original([chunks[at] for at in kept], source))

    def scan_text(raws: Sequence[str | None], first_lines: Sequence[int],
                  indexes: Sequence[int], source: str) -> tuple[SevenEightBlock, list[int]]:
        return placed(len(raws), lambda kept: original_texts(
            [raws[at] for at in kept], [first_lines[at] for at in kept],
            [indexes[at] for at in kept], source))

    monkeypatch.setattr(pipeline, "scan_seveneight", scan)
    monkeypatch.setattr(pipeline, "scan_texts", scan_text)


@pytest.mark.parametrize("every", [2, 3, 5])
def test_hands_the_scanner_declines_keep_their_place(monkeypatch: pytest.MonkeyPatch,
                                                     every: int) -> None:
    counter = BlockCounter(monkeypatch)
    declining(monkeypatch, lambda position: position % every == 1)
    text = simulated_text("seveneight", 60, seed=every)
    assert_same(text.encode(), batch_hands=25)
    assert counter.hands > 20


def block_hands(count: int, seed: int) -> list[str]:
    """``count`` simulated 7 & 8 hands (as text) that the block path takes whole (nothing its
    replay leaves to the engine)."""
    hands = hand_texts("seveneight", 40, seed)
    chunks = list(iter_chunks(io.BytesIO(phhs(*hands).encode()), "pick.phhs"))
    block, _ = scan_seveneight(chunks, "pick.phhs")
    accepted = replay_block(block).accepted
    return [hands[position] for position in block.positions[accepted][:count]]


def test_the_same_hand_in_both_parts_of_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # The per-hand part holds a hand the block holds too: the per-hand path takes the
    # batch, and keeps the first of the two (its line and index are the first's).
    first, second = block_hands(2, seed=5)
    counter = BlockCounter(monkeypatch)
    declining(monkeypatch, lambda position: position == 1)
    for order, kept in (([first, first, second], [1, 3]), ([second, first, first], [1, 2])):
        result = assert_same(phhs(*order).encode())
        assert sum(result.batch_duplicates.values()) == 1
        (tables,) = result.batches
        assert tables["hands"]["source_index"].to_pylist() == kept
    assert counter.hands == 0


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS, st.integers(1, 3))
def test_mutated_hands(pick: int, mutations: list[Mutation], batch_hands: int) -> None:
    data = mutated_canonical(pick, mutations)
    assert_same(data + b"\n\n" + simulated_text("seveneight", 4, seed=pick % 97).encode(),
                batch_hands)
