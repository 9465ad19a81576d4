"""CPU per hand of the 7 & 8 block rows (analytics.warehouse.pipeline.block_rows) against the
per-hand
path (identity.hand_id, rows.Batch) over the same hands, in the same run.

The hands of one .phhs file (default: the session-6 stage file of 5,000 4-player N78
hands) are read as the ingest worker reads them, put in one block, and replayed per
hand (the block outcome is made from those outcomes, as the tests do).  Timed, CPU time,
best of ``--runs``:

* ``hand_id per hand``: ``hand_id(hand)`` of each hand;
* ``block_ids``: the same ids from the block;
* ``Batch.add + tables``: the per-hand rows of the hands the block takes (those the batch
  replay accepts, all-in rows included), ids included;
* ``block_tables``: the block's tables of the same hands (ids not included: block_ids is
  timed above);
* ``cold``: the block functions with their remembered texts cleared before each run
  (what a block of hands never seen before costs);
* ``fact_tables``: the seat and hand facts the worker adds to the block's tables
  (:func:`analytics.warehouse.pipeline.fact_rows.fact_tables`), per hand taken.

Usage: ``python benchmarks/bench_block_rows.py [FILE] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import best_cpu  # noqa: E402

from analytics.warehouse.identity import block_ids, hand_id  # noqa: E402
from analytics.warehouse.pipeline.block_rows import block_tables  # noqa: E402
from analytics.warehouse.pipeline.fact_rows import fact_tables  # noqa: E402
from analytics.warehouse.pipeline.rows import Batch, FileContext  # noqa: E402
from parsers.caching import clear_caches  # noqa: E402
from tests.block_reference import block_from_hands  # noqa: E402
from tests.test_warehouse_block_rows import (  # noqa: E402
    blockable,
    outcome_from_replays,
    read_items,
    replayed,
)

DEFAULT = Path("/tmp/s6_stages/stages/seveneight/seveneight-000.phhs")


def forget() -> None:
    """Clear what the ingest remembers between blocks (every bounded cache)."""
    clear_caches()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    items = blockable(read_items(args.path.read_text(encoding="utf-8"), args.path.name))
    block = block_from_hands(args.path.name, items)
    outcomes = replayed(items)
    outcome = outcome_from_replays(block, outcomes)
    context = FileContext(str(args.path), "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))
    ids = block_ids(block)
    take = np.flatnonzero(outcome.accepted)
    taken = take.tolist()
    count = len(block)
    print(f"{args.path}: {count} hands in the block, {len(take)} taken by the block rows "
          f"(the others: not accepted); best of {args.runs}, CPU time")

    def per_hand_ids() -> object:
        return [hand_id(hand) for _, hand in items]

    def per_hand_rows() -> object:
        batch = Batch(context)
        for index in taken:
            _, hand = items[index]
            batch.add(hand, outcomes[index])  # type: ignore[arg-type]
        return batch.tables()

    def block_rows_only() -> dict[str, pa.Table]:
        chosen = np.flatnonzero(outcome.accepted)
        return block_tables(block, outcome, chosen, ids, context)

    def everything() -> object:
        found = block_ids(block)
        chosen = np.flatnonzero(outcome.accepted)
        return block_tables(block, outcome, chosen, found, context)

    tables = block_rows_only()
    figures = [
        ("hand_id per hand", count, best_cpu(per_hand_ids, args.runs)),
        ("block_ids", count, best_cpu(lambda: block_ids(block), args.runs)),
        ("block_ids, cold", count, best_cpu(lambda: block_ids(block), args.runs, forget)),
        ("Batch.add + tables (ids included)", len(take), best_cpu(per_hand_rows, args.runs)),
        ("block_tables", len(take), best_cpu(block_rows_only, args.runs)),
        ("block_ids + block_tables", len(take), best_cpu(everything, args.runs)),
        ("  the same, cold", len(take), best_cpu(everything, args.runs, forget)),
        ("fact_tables of the block's tables", len(take),
         best_cpu(lambda: fact_tables(tables), args.runs)),
    ]
    for name, hands, seconds in figures:
        print(f"{name:36s} {seconds * 1e6 / hands:8.2f} us/hand")
    print(f"{'per-hand rows / block rows':36s} {figures[3][2] / figures[5][2]:8.2f} x")


if __name__ == "__main__":
    main()
