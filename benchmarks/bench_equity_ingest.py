"""What the equities computed on ingest add to the worker's cost per hand, per game.

Run: ``.venv/bin/python benchmarks/bench_equity_ingest.py [--hands 2000] [--runs 5]``

The same simulated hands (4 players) go through the worker's stages (split,
parse, replay, rows, Arrow tables) with the equity rows and without them
(``add_equity_rows`` replaced by a no-op), alternately, best of ``--runs`` CPU
times each, so a busy machine slows both sides alike; then the same for an
inline ``ingest`` (no workers) of the hands into a new database, wall time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_ingest import base_hands  # noqa: E402  (the hands bench_ingest.py writes)

from analytics.rules import replay  # noqa: E402
from analytics.warehouse import ingest  # noqa: E402
from analytics.warehouse.pipeline import equities, rows  # noqa: E402
from analytics.warehouse.pipeline.rows import Batch, FileContext  # noqa: E402
from parsers import dumps_hands  # noqa: E402
from parsers.reader import hand_from_chunk, iter_chunks  # noqa: E402

_HOOK = "add_equity_rows"  # the name rows.py calls, swapped for a no-op to time without
_SAMPLES = "RUMMOLI_INGEST_SAMPLES"


def _nothing(*_: object) -> None:
    return None


def worker_seconds(data: bytes) -> float:
    """CPU seconds of the worker's stages over ``data`` (one .phhs text)."""
    context = FileContext("bench.phhs", "0" * 64, dt.datetime.now())
    started = time.process_time()
    batch = Batch(context)
    for chunk in iter_chunks(io.BytesIO(data), "bench.phhs"):
        hand = hand_from_chunk(chunk, "bench.phhs")
        batch.add(hand, replay(hand))
    batch.tables()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", nargs="+", default=["seveneight", "bigtwo", "rummoli"])
    parser.add_argument("--rummoli-samples", type=int, default=None,
                        help="override RUMMOLI_INGEST_SAMPLES (to choose it)")
    args = parser.parse_args()
    if args.rummoli_samples is not None:
        setattr(equities, _SAMPLES, args.rummoli_samples)
    real = getattr(rows, _HOOK)
    print(f"{'game':12s} {'hands':>6s} {'without us':>11s} {'with us':>9s} {'added':>7s}")
    for game in args.games:
        data = dumps_hands(base_hands(game, args.hands)).encode()
        worker_seconds(data)  # warm up: numba kernels, caches
        best = {"without": float("inf"), "with": float("inf")}
        for _ in range(args.runs):
            setattr(rows, _HOOK, _nothing)
            best["without"] = min(best["without"], worker_seconds(data))
            setattr(rows, _HOOK, real)
            best["with"] = min(best["with"], worker_seconds(data))
        without, with_ = (best[k] / args.hands * 1e6 for k in ("without", "with"))
        print(f"{game:12s} {args.hands:6d} {without:11.1f} {with_:9.1f} "
              f"{(with_ / without - 1) * 100:6.1f}%  (worker CPU per hand)", flush=True)
        walls = {"without": float("inf"), "with": float("inf")}
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / f"{game}.phhs"
            source.write_bytes(data)
            for run in range(args.runs):
                for name in ("without", "with"):
                    setattr(rows, _HOOK, real if name == "with" else _nothing)
                    started = time.perf_counter()
                    ingest([source], Path(folder) / f"{name}{run}.duckdb", workers=0)
                    walls[name] = min(walls[name], time.perf_counter() - started)
            setattr(rows, _HOOK, real)
        without, with_ = (walls[k] / args.hands * 1e6 for k in ("without", "with"))
        print(f"{'':12s} {'':6s} {without:11.1f} {with_:9.1f} "
              f"{(with_ / without - 1) * 100:6.1f}%  (inline ingest, wall per hand)", flush=True)


if __name__ == "__main__":
    main()
