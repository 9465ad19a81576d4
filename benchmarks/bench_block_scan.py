"""CPU per hand of the 7 & 8 block scanner (parsers.block_scan.scan_seveneight) against the
per-hand path (parsers.reader.hand_from_chunk) over the same chunks, in the same run.

The hands of one .phhs file (default: 5,000 simulated 4-player N78 hands written as
``bench_ingest.py`` writes them, each with its ``_copy`` field; or ``--file``) are split
once (``iter_chunks``, which the worker does either way and is not timed).  Timed, CPU
time (``time.process_time``), best of ``--runs``, the two in turn:

* ``hand_from_chunk``: a loop of the per-hand reading over the chunks;
* ``scan_seveneight``: the block of the same chunks (with its caches warm, as in a worker
  that has read a block before);
* ``scan_seveneight cold``: with its caches of distinct texts cleared before each run;
* ``block_ids``: the ids of the scanned block (:mod:`analytics.warehouse.identity`),
warm.

Usage: ``python benchmarks/bench_block_scan.py [--file FILE] [--hands 5000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

from timing import best_cpu

ROOT = Path(__file__).resolve().parent.parent


def simulated_file(folder: Path, hands: int) -> Path:
    """``hands`` simulated 7 & 8 hands in one file, as ``bench_ingest.py`` writes them."""
    from analytics.simulate.seveneight import simulate_seveneight
    from parsers import dumps_hand

    texts = [dumps_hand(hand) for hand in simulate_seveneight(min(hands, 1_000), 4, 7)]
    path = folder / "seveneight.phhs"
    path.write_text("\n".join(f"[{n + 1}]\n{texts[n % len(texts)]}_copy = {n}\n"
                              for n in range(hands)), encoding="utf-8")
    return path


def clear_caches() -> None:
    """Forget every text the scanner has read (its per-text caches and its action table)."""
    from parsers import block_scan

    for cache in (block_scan._STAKES_CACHE, block_scan._PLAYERS_CACHE, block_scan._TABLE_CACHE,
                  block_scan._TIME_CACHE, block_scan._DATE_CACHE, block_scan._USER_CACHE):
        cache.clear()
    block_scan._ACTIONS.__init__()  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, help="a .phhs file (default: simulated hands)")
    parser.add_argument("--hands", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--part", choices=["scan"], default="scan",
                        help="the stage to time (the scanner; room for others)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from analytics.warehouse.identity import block_ids
    from parsers.block_scan import scan_seveneight
    from parsers.reader import hand_from_chunk, iter_chunks

    with tempfile.TemporaryDirectory() as folder:
        path = args.file or simulated_file(Path(folder), args.hands)
        data = path.read_bytes()
    source = str(path)
    chunks = list(iter_chunks(io.BytesIO(data), source))
    block, declined = scan_seveneight(chunks, source)
    print(f"{len(chunks)} chunks of {path.name}: {len(block)} in the block, "
          f"{len(declined)} declined")

    def per_hand() -> None:
        for chunk in chunks:
            hand_from_chunk(chunk, source)

    def scan() -> None:
        scan_seveneight(chunks, source)

    block_ids(block)  # its remembered texts warm, as in a worker
    per_hand_s = scan_s = cold_s = ids_s = float("inf")
    for _ in range(args.runs):  # in turn, so that both see the same machine
        per_hand_s = min(per_hand_s, best_cpu(per_hand, 1))
        scan_s = min(scan_s, best_cpu(scan, 1))
        cold_s = min(cold_s, best_cpu(scan, 1, before=clear_caches))
        ids_s = min(ids_s, best_cpu(lambda: block_ids(block), 1))
    n = len(chunks)
    print(f"hand_from_chunk       {per_hand_s / n * 1e6:7.1f} us/hand CPU (best of {args.runs})")
    print(f"scan_seveneight       {scan_s / n * 1e6:7.1f} us/hand CPU   "
          f"x{per_hand_s / scan_s:.2f} faster")
    print(f"scan_seveneight cold  {cold_s / n * 1e6:7.1f} us/hand CPU   "
          f"x{per_hand_s / cold_s:.2f} faster")
    print(f"block_ids             {ids_s / max(len(block), 1) * 1e6:7.1f} us/hand CPU "
          "(of the block's hands)")


if __name__ == "__main__":
    main()
