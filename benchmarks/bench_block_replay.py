"""CPU per hand of the batch 7 & 8 replay (:func:`analytics.rules.seveneight.block.replay_block`)
against the per-hand replay of the ingest worker (:func:`analytics.rules.replay` over
the same hands), in the same run.

The hands of a 7 & 8 file (default: the 5,000 hands of the session 6 stage file) are read
by the per-hand reader (:func:`parsers.reader.hand_from_chunk`) and made a block by
:func:`tests.block_reference.block_from_hands` (not timed).  Each side is timed as the best of
``--runs`` CPU times (``time.process_time``), after one untimed run that loads the kernel;
the kernel's one-off load is reported apart.

    .venv/bin/python benchmarks/bench_block_replay.py [--file PATH] [--runs 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from pathlib import Path

import numpy as np
from timing import best_cpu

from analytics.rules import RuleError, replay
from analytics.rules.seveneight.block import replay_block, warm_up
from parsers.block import SevenEightBlock
from parsers.model import HandHistory
from parsers.reader import hand_from_chunk, iter_chunks
from tests.block_reference import block_from_hands

DEFAULT_FILE = Path("/tmp/s6_stages/stages/seveneight/seveneight-000.phhs")


def read(path: Path) -> tuple[SevenEightBlock, list[HandHistory]]:
    """The file's hands a block holds, as a block and as the per-hand path reads them."""
    items = []
    for chunk in iter_chunks(io.BytesIO(path.read_bytes()), path.name):
        hand = hand_from_chunk(chunk, path.name)
        try:
            block_from_hands(path.name, [(chunk.index, hand)])
        except (ValueError, KeyError):
            continue
        items.append((chunk.index, hand))
    return block_from_hands(path.name, items), [hand for _, hand in items]


def per_hand(hands: list[HandHistory]) -> None:
    for hand in hands:
        with contextlib.suppress(RuleError):
            replay(hand)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    block, hands = read(args.file)
    start = time.process_time()
    warm_up()
    load = time.process_time() - start
    outcome = replay_block(block)
    accepted = int(outcome.accepted.sum())
    side_rows = np.flatnonzero(outcome.award_pots)
    side_pots = len(np.unique(np.searchsorted(outcome.award_offsets, side_rows, "right") - 1))
    count = len(hands)
    batch = best_cpu(lambda: replay_block(block), args.runs, warm_up=True)
    single = best_cpu(lambda: per_hand(hands), args.runs, warm_up=True)
    print(f"{args.file.name}: {count} hands in the block, {accepted} accepted by replay_block"
          f" ({side_pots} with side pots)")
    print(f"kernel load (numba import + cached kernel + rank tables): {load * 1e3:.0f} ms CPU")
    best = f"us/hand CPU (best of {args.runs})"
    print(f"replay_block:             {batch / count * 1e6:8.2f} {best}")
    print(f"replay per hand:          {single / count * 1e6:8.2f} {best}")
    print(f"ratio per-hand / block:   {single / batch:8.1f}x")


if __name__ == "__main__":
    main()
