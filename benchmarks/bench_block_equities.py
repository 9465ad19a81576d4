"""CPU per all-in hand of the 7 & 8 block all-in rows (analytics.warehouse.pipeline.block_equities)
against the per-hand path, over the same hands, in the same run.

The hands of one .phhs file (default: the session-6 stage file of 5,000 4-player N78 hands)
are scanned into one block and replayed by the batch replay, as the worker does.  The
all-in hands the block supports (accepted, with an all-in moment) are timed, CPU time, best
of ``--runs``:

* ``per-hand path``: what the worker does with each of them today: ``hand_from_chunk`` of its
  chunk, ``replay``, ``Batch.add``, then ``Batch.tables`` of them all;
* ``allin_spots``: the block's spots of the same hands;
* ``allin_adjusted_many``: the equity kernel of those spots (shared by both paths);
* ``allin_rows``: the block's rows (spots, kernel, Arrow table);
* ``allin_rows - kernel``: what the block path costs beside the kernel.

Usage: ``python benchmarks/bench_block_equities.py [FILE] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import best_cpu  # noqa: E402

from analytics.equity.allin import AllInSpot, allin_adjusted_many  # noqa: E402
from analytics.rules import replay  # noqa: E402
from analytics.rules.seveneight.block import replay_block  # noqa: E402
from analytics.warehouse.identity import block_ids  # noqa: E402
from analytics.warehouse.pipeline.block_equities import (  # noqa: E402
    allin_rows,
    allin_spots,
    allin_supported,
)
from analytics.warehouse.pipeline.equities import seed_of  # noqa: E402
from analytics.warehouse.pipeline.rows import Batch, FileContext  # noqa: E402
from parsers.block_scan import scan_seveneight  # noqa: E402
from parsers.reader import hand_from_chunk, iter_chunks  # noqa: E402

DEFAULT = Path("/tmp/s6_stages/stages/seveneight/seveneight-000.phhs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    source = args.path.name
    chunks = list(iter_chunks(io.BytesIO(args.path.read_bytes()), source))
    block, _ = scan_seveneight(chunks, source)
    outcome = replay_block(block)
    ids = block_ids(block)
    supported = np.flatnonzero(allin_supported(block, outcome))
    _, first = np.unique(ids[supported], return_index=True)
    hands = supported[np.sort(first)]  # distinct hands, as the worker keeps them
    positions = block.positions[hands].tolist()
    context = FileContext(str(args.path), "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))
    spots = [spot for spot in allin_spots(block, outcome, hands) if spot is not None]
    seeds = [seed_of(int(ids[hand])) for hand in hands.tolist()]
    count = len(hands)
    print(f"{args.path}: {len(block)} hands in the block, {count} all-in hands it supports; "
          f"best of {args.runs}, CPU time")

    def per_hand() -> object:
        batch = Batch(context)
        for position in positions:
            hand = hand_from_chunk(chunks[position], source)
            batch.add(hand, replay(hand))
        return batch.tables()

    def kernel() -> object:
        solved: list[AllInSpot] = spots
        return allin_adjusted_many(solved, seeds, threads=1)

    figures = [
        ("per-hand path (read, replay, add, tables)", best_cpu(per_hand, args.runs)),
        ("allin_spots", best_cpu(lambda: allin_spots(block, outcome, hands), args.runs)),
        ("allin_adjusted_many (kernel, shared)", best_cpu(kernel, args.runs)),
        ("allin_rows (spots + kernel + table)",
         best_cpu(lambda: allin_rows(block, outcome, hands, ids), args.runs)),
    ]
    for name, seconds in figures:
        print(f"{name:44s} {seconds * 1e6 / count:8.2f} us/all-in hand")
    kernel_s, rows_s = figures[2][1], figures[3][1]
    print(f"{'allin_rows - kernel':44s} {(rows_s - kernel_s) * 1e6 / count:8.2f} us/all-in hand")
    print(f"{'per-hand path - kernel':44s} "
          f"{(figures[0][1] - kernel_s) * 1e6 / count:8.2f} us/all-in hand")
    print(f"{'per-hand path / allin_rows':44s} {figures[0][1] / rows_s:8.2f} x")


if __name__ == "__main__":
    main()
