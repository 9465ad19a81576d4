"""``Batch.add`` and ``Batch.tables()`` of another tree against this one, in the same run.

Run: ``.venv/bin/python benchmarks/bench_batch_ab.py --base /tmp/t6_base`` after
``git -C . archive HEAD | tar -x -C /tmp/t6_base`` (any exported tree with the same
parsers).  The base tree's ``identity``, ``equities`` and ``rows`` modules are loaded
beside this tree's, and both build batches from the same parsed and replayed hands, chunk
by chunk (chunks of ``--chunk`` hands, the order alternating), so a busy machine slows
both alike: the CPU times are summed over every chunk of every round.  Each round's
tables of the two trees must be equal (the script stops otherwise).

Hands: as the stage benchmark (``bench_ingest.py --stages``), ``--hands`` hands made of
1,000 simulated ones repeated with their own ``_copy`` field; with ``--fresh`` every round
gets hands neither tree has seen (all simulated, none repeated), as in a real file,
where the look-ups by value or identity miss far more often.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import importlib.util
import io
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_ingest import write_inputs  # noqa: E402  (the hands bench_ingest.py writes)

from analytics.rules import replay  # noqa: E402
from analytics.warehouse.pipeline import rows as this_rows  # noqa: E402
from parsers.reader import hand_from_chunk, iter_chunks  # noqa: E402

_MODULES = ("analytics.warehouse.identity", "analytics.warehouse.pipeline.equities",
            "analytics.warehouse.pipeline.rows")


def load_rows(tree: Path) -> ModuleType:
    """The ``rows`` module of ``tree``, importing that tree's identity and equities."""
    saved = {name: sys.modules[name] for name in _MODULES}
    loaded: ModuleType | None = None
    try:
        for name in _MODULES:
            alias = f"base_tree.{name}"
            spec = importlib.util.spec_from_file_location(
                alias, tree / (name.replace(".", "/") + ".py"))
            assert spec is not None and spec.loader is not None
            loaded = importlib.util.module_from_spec(spec)
            sys.modules[alias] = loaded
            spec.loader.exec_module(loaded)
            sys.modules[name] = loaded  # what the next module of the tree imports
    finally:
        sys.modules.update(saved)
    assert loaded is not None
    return loaded


def parsed_hands(game: str, total: int, base: int, folder: Path) -> tuple[list[Any], list[Any]]:
    """``total`` hands of ``game`` (made of ``base`` simulated ones), parsed and replayed."""
    target = folder / f"{game}-{total}-{base}"
    if not target.exists():
        write_inputs(target, game, total, 1, base)
    (path,) = target.glob("*.phhs")
    chunks = list(iter_chunks(io.BytesIO(path.read_bytes()), str(path)))
    hands = [hand_from_chunk(chunk, str(path)) for chunk in chunks]
    outcomes = [replay(hand) for hand in hands]
    gc.collect()
    gc.freeze()  # a worker keeps no hands: the collector need not walk these
    return hands, outcomes


def compare(game: str, trees: dict[str, ModuleType], args: argparse.Namespace) -> None:
    """Print both trees' CPU per hand for ``game`` and their ratio."""
    count, rounds = args.hands, args.rounds
    total = count * (rounds + 1) if args.fresh else count
    hands, outcomes = parsed_hands(game, total, total if args.fresh else 1000, args.out)
    context = dt.datetime(2026, 1, 1)
    for rows in trees.values():  # warm-up, not counted (look-ups, numba kernels)
        warm = rows.Batch(rows.FileContext("x.phhs", "0" * 64, context))
        for hand, outcome in zip(hands[-count:], outcomes[-count:], strict=True):
            warm.add(hand, outcome)
        warm.tables()
    add = dict.fromkeys(trees, 0.0)
    tables = dict.fromkeys(trees, 0.0)
    ratios: list[float] = []
    for number in range(rounds):
        first = number * count if args.fresh else 0
        pairs = list(zip(hands[first:first + count], outcomes[first:first + count], strict=True))
        batches = {tag: rows.Batch(rows.FileContext("x.phhs", "0" * 64, context))
                   for tag, rows in trees.items()}
        for start in range(0, len(pairs), args.chunk):
            part = pairs[start:start + args.chunk]
            order = ["base", "this"] if (start // args.chunk + number) % 2 else ["this", "base"]
            spent = {}
            for tag in order:
                batch_add = batches[tag].add
                began = time.process_time()
                for hand, outcome in part:
                    batch_add(hand, outcome)
                spent[tag] = time.process_time() - began
                add[tag] += spent[tag]
            if spent["base"] > 0:
                ratios.append(spent["this"] / spent["base"])
        made = {}
        for tag in ("this", "base") if number % 2 else ("base", "this"):
            began = time.process_time()
            made[tag] = batches[tag].tables()
            tables[tag] += time.process_time() - began
        for name, table in made["base"].items():
            assert made["this"][name].equals(table), f"{game}: table {name} differs"
            assert made["this"][name].schema == table.schema, f"{game}: schema of {name}"
    hands_done = count * rounds
    us = {tag: (add[tag] / hands_done * 1e6, tables[tag] / hands_done * 1e6) for tag in trees}
    (base_add, base_tables), (this_add, this_tables) = us["base"], us["this"]
    print(f"{game}: {hands_done:,} hands{' (fresh)' if args.fresh else ''}, CPU us per hand, "
          f"chunks of {args.chunk} interleaved")
    print(f"  Batch.add      base {base_add:7.1f}  this {this_add:7.1f}  "
          f"{this_add / base_add:.3f}x (median chunk ratio {statistics.median(ratios):.3f})")
    print(f"  Batch.tables() base {base_tables:7.1f}  this {this_tables:7.1f}  "
          f"{this_tables / base_tables:.3f}x")
    print(f"  together       base {base_add + base_tables:7.1f}  "
          f"this {this_add + this_tables:7.1f}  "
          f"{(this_add + this_tables) / (base_add + base_tables):.3f}x  (tables equal)",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other tree's root")
    parser.add_argument("--games", default="seveneight,bigtwo")
    parser.add_argument("--hands", type=int, default=2000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--fresh", action="store_true", help="new hands every round")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_batch_ab"))
    args = parser.parse_args()
    trees = {"base": load_rows(args.base.resolve()), "this": this_rows}
    for game in args.games.split(","):
        compare(game, trees, args)


if __name__ == "__main__":
    main()
