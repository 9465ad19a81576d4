"""The block all-in rows (analytics.warehouse.pipeline.block_equities) are exactly the per-hand
path's.

For the 7 & 8 hands of the repository's files and of simulated tables (every variant, 2 to
10 players, short stacks for many all-ins), read into a block by the scanner and replayed by
the batch replay: :func:`allin_hands` is :func:`~analytics.equity.allin.allin_moment` of each
hand, :func:`allin_spots` is :func:`~analytics.equity.allin.allin_spot` of each hand with its
outcome, and :func:`allin_rows` is the ``allin_results`` table of
:class:`~analytics.warehouse.pipeline.rows.Batch` (``add`` of the same hands, then ``tables``).
Wired
into the worker (:func:`~analytics.warehouse.pipeline.block_rows.block_tables` makes the rows of its
all-in hands), the batches are those of the per-hand path.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from analytics.equity.allin import allin_moment, allin_spot
from analytics.rules import replay
from analytics.rules.seveneight.block import BlockOutcome, outcome_of, replay_block
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse.identity import block_ids
from analytics.warehouse.pipeline import work as pipeline
from analytics.warehouse.pipeline.block_equities import (
    allin_hands,
    allin_rows,
    allin_spots,
    allin_supported,
    third_cards,
)
from analytics.warehouse.pipeline.block_rows import block_tables
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, Batch
from parsers.block import SevenEightBlock
from parsers.block_scan import scan_seveneight
from parsers.model import HandHistory
from parsers.reader import Chunk, hand_from_chunk, iter_chunks
from parsers.writer import dumps_hand
from tests.test_pipeline_blocks import CONTEXT, assert_same

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted({*(ROOT / "data" / "samples").glob("seveneight*.phhs"),
                ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"})


# ---- helpers -------------------------------------------------------------------------


def simulated_text(variant: str, players: int, count: int, seed: int, stack: int = 200
                   ) -> bytes:
    hands = simulate_seveneight(count, players, seed, variant=variant, starting_stack=stack,
                                session_hands=25)
    return "\n".join(f"[{number}]\n{dumps_hand(hand)}"
                     for number, hand in enumerate(hands, start=1)).encode()


class Read:
    """A history read as the worker reads it: its chunks, their block and its outcome."""

    def __init__(self, data: bytes, source: str = "test.phhs") -> None:
        self.chunks: list[Chunk] = list(iter_chunks(io.BytesIO(data), source))
        self.source = source
        self.block: SevenEightBlock = scan_seveneight(self.chunks, source)[0]
        self.outcome: BlockOutcome = replay_block(self.block)

    def hand(self, i: int) -> HandHistory:
        """Block hand ``i`` as the per-hand path reads it."""
        return hand_from_chunk(self.chunks[int(self.block.positions[i])], self.source)


def per_hand_allin_table(read: Read, hands: Sequence[int]) -> pa.Table:
    """``allin_results`` of a per-hand Batch of block hands ``hands`` (in that order)."""
    batch = Batch(CONTEXT)
    for i in hands:
        hand = read.hand(i)
        assert batch.add(hand, replay(hand))
    return batch.tables()["allin_results"]


def check(read: Read) -> int:
    """Check every function on ``read``'s block; returns the number of all-in hands done."""
    block, outcome = read.block, read.outcome
    every = np.arange(len(block), dtype=np.int64)
    found = allin_hands(block)
    thirds = third_cards(block)
    spots = allin_spots(block, outcome, every)
    for i in range(len(block)):
        hand = read.hand(i)
        moment = allin_moment(hand)
        assert found[i] == (moment is not None), i
        if moment is not None:
            assert thirds[i] - block.action_offsets[i] == moment, i
        expected = (allin_spot(hand, outcome_of(outcome, i))
                    if moment is not None and outcome.accepted[i] else None)
        assert spots[i] == expected, i
    supported = np.flatnonzero(allin_supported(block, outcome))
    assert supported.tolist() == [i for i, spot in enumerate(spots) if spot is not None]
    ids = block_ids(block)
    _, first = np.unique(ids[supported], return_index=True)
    distinct = supported[np.sort(first)]
    for hands in (distinct, distinct[::3]):
        table = allin_rows(block, outcome, hands, ids)
        expected_table = per_hand_allin_table(read, hands.tolist())
        assert table.schema == expected_table.schema == ARROW_SCHEMAS["allin_results"]
        assert table.equals(expected_table)
    return len(distinct)


# ---- the functions against the per-hand path ----------------------------------------


def test_the_repository_files_are_found() -> None:
    assert {"seveneight-nl-6max.phhs", "simulated-seveneight.phhs"} <= {p.name for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_repository_file(path: Path) -> None:
    read = Read(path.read_bytes(), path.name)
    if not len(read.block):
        pytest.skip("no hand a block holds")
    check(read)


def test_the_golden_file_has_all_in_hands() -> None:
    path = ROOT / "tests" / "data" / "warehouse_rows" / "simulated-seveneight.phhs"
    assert check(Read(path.read_bytes(), path.name)) > 10


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["N78", "P78", "F78"])
@pytest.mark.parametrize("players", [2, 3, 4, 6, 8, 10])
def test_simulated_hands(variant: str, players: int) -> None:
    done = 0
    for seed, stack in ((players, 200), (100 + players, 40), (200 + players, 12)):
        done += check(Read(simulated_text(variant, players, 30, seed, stack)))
    assert done > 0


def test_no_hand_and_no_all_in() -> None:
    read = Read(simulated_text("N78", 3, 10, seed=1))
    block, outcome = read.block, read.outcome
    none = np.zeros(0, dtype=np.int64)
    assert allin_spots(block, outcome, none) == []
    table = allin_rows(block, outcome, none, block_ids(block))
    assert table.num_rows == 0 and table.schema == ARROW_SCHEMAS["allin_results"]
    quiet = np.flatnonzero(~allin_hands(block))
    assert len(quiet) and allin_spots(block, outcome, quiet) == [None] * len(quiet)
    assert allin_rows(block, outcome, quiet, block_ids(block)).num_rows == 0


def test_hands_the_replay_does_not_accept_have_no_spot() -> None:
    read = Read(simulated_text("N78", 4, 60, seed=5, stack=12))
    block, outcome = read.block, read.outcome
    assert allin_hands(block).sum() > 5
    refused = BlockOutcome(**{**{name: getattr(outcome, name)
                                 for name in BlockOutcome.__dataclass_fields__},
                              "accepted": np.zeros(len(block), dtype=np.bool_)})
    assert not allin_supported(block, refused).any()
    every = np.arange(len(block), dtype=np.int64)
    assert allin_spots(block, refused, every) == [None] * len(block)


# ---- wired into the worker -----------------------------------------------------------


def counting_allin_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the all-in rows the worker's block path makes (in the tables of
    :func:`~analytics.warehouse.pipeline.block_rows.block_tables`, which the pipeline calls); the
    list returned gets one count per call."""
    made: list[int] = []

    def counting(*args: Any) -> dict[str, pa.Table]:
        found = block_tables(*args)
        made.append(found["allin_results"].num_rows)
        return found

    monkeypatch.setattr(pipeline, "block_tables", counting)
    return made


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_the_worker_with_all_ins_in_the_block(path: Path) -> None:
    for batch_hands in (5_000, 50):
        assert_same(path.read_bytes(), batch_hands)


@pytest.mark.parametrize("variant", ["N78", "P78", "F78"])
def test_the_worker_on_short_stacks(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    made = counting_allin_rows(monkeypatch)
    data = simulated_text(variant, 5, 120, seed=11, stack=12)
    for batch_hands in (5_000, 16):
        assert_same(data, batch_hands)
    assert sum(made) > 0
