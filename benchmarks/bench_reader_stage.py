"""The reader's stages alone: split (``iter_chunks``) and parse + build (``hand_from_chunk``).

Run: ``.venv/bin/python benchmarks/bench_reader_stage.py [--hands N] [--base DIR]``.

The inputs are what ``bench_ingest.py --stages`` reads: simulated hands of each game
(4 players) written by :func:`parsers.dumps_hand`, each copy with its own ``_copy``
field.  Each tree is timed in a subprocess of its own (its ``parsers`` package first
on ``sys.path``) over the same file, CPU time, best of ``--runs``; with ``--base`` the
other tree (for instance ``git archive HEAD`` unpacked in a scratch folder) is timed
alternately with this one and the ratio printed beside it.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("seveneight", "bigtwo", "rummoli")


def write_input(folder: Path, game: str, hands: int) -> Path:
    """``hands`` hands of ``game`` in one ``.phhs`` file, as ``bench_ingest.py`` writes them."""
    sys.path.insert(0, str(ROOT))
    from parsers import dumps_hand

    if game == "seveneight":
        from analytics.simulate.seveneight import simulate_seveneight

        base = list(simulate_seveneight(min(hands, 2_000), 4, 7))
    elif game == "bigtwo":
        from analytics.simulate.bigtwo import simulate_bigtwo

        base = list(simulate_bigtwo(min(hands, 2_000), 4, 7))
    else:
        from analytics.simulate.rummoli import simulate_rummoli

        base = list(simulate_rummoli(min(hands, 2_000), 4, 7))
    texts = [dumps_hand(hand) for hand in base]
    path = folder / f"{game}.phhs"
    path.write_text("\n".join(f"[{n + 1}]\n{texts[n % len(texts)]}_copy = {n}\n"
                              for n in range(hands)), encoding="utf-8")
    return path


def worker(tree: str, path: str, runs: int, collector: bool) -> None:
    """Time both stages over ``path`` with the ``parsers`` of ``tree``; print JSON.

    Without ``collector`` the cyclic garbage collector is off while timing: the
    difference is the collector's share (it traverses every object the hands hold).
    """
    sys.path.insert(0, tree)
    from parsers import reader

    assert Path(reader.__file__).resolve().is_relative_to(Path(tree).resolve()), reader.__file__
    data = Path(path).read_bytes()
    split = build = float("inf")
    chunks = list(reader.iter_chunks(io.BytesIO(data), path))
    if not collector:
        gc.disable()
    started = time.process_time()
    hands = [reader.hand_from_chunk(chunk, path) for chunk in chunks]  # fills the caches
    first = time.process_time() - started
    for _ in range(runs):
        started = time.process_time()
        chunks = list(reader.iter_chunks(io.BytesIO(data), path))
        middle = time.process_time()
        hands = [reader.hand_from_chunk(chunk, path) for chunk in chunks]
        ended = time.process_time()
        split = min(split, middle - started)
        build = min(build, ended - middle)
    errors = sum(1 for hand in hands if hand.errors)
    print(json.dumps({"hands": len(chunks), "split": split / len(chunks) * 1e6,
                      "build": build / len(chunks) * 1e6, "first": first / len(chunks) * 1e6,
                      "errors": errors}))


def timed(tree: Path, path: Path, runs: int, collector: bool) -> dict[str, float]:
    command = [sys.executable, __file__, "--worker", str(tree), str(path), "--runs", str(runs)]
    output = subprocess.run(command + ([] if collector else ["--no-gc"]), check=True,
                            capture_output=True, text=True, cwd=tree).stdout
    result: dict[str, float] = json.loads(output.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", type=Path, help="another tree to time beside this one")
    parser.add_argument("--game", choices=GAMES, action="append")
    parser.add_argument("--no-gc", action="store_true",
                        help="time with the garbage collector off (its share is the difference)")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.runs, not args.no_gc)
        return
    collector = "off" if args.no_gc else "on"
    print(f"CPU microseconds per hand, best of {args.runs}, {args.hands:,} hands per game,"
          f" garbage collector {collector}")
    print("(split and build: best of the runs after a first reading that fills the caches;"
          " first: that first reading, each line new to the caches)")
    header = f"{'game':12s} {'stage':14s} {'this tree':>10s}"
    if args.base:
        header += f" {'base':>10s} {'speed-up':>9s}"
    print(header)
    with tempfile.TemporaryDirectory() as scratch:
        for game in args.game or GAMES:
            path = write_input(Path(scratch), game, args.hands)
            ours = timed(ROOT, path, args.runs, not args.no_gc)
            theirs = timed(args.base, path, args.runs, not args.no_gc) if args.base else None
            if theirs is not None:  # again after the base: the load drifts
                again = timed(ROOT, path, args.runs, not args.no_gc)
                ours = {k: min(v, again[k]) for k, v in ours.items()}
            for stage in ("split", "build", "first"):
                line = f"{game:12s} {stage:14s} {ours[stage]:10.1f}"
                if theirs is not None:
                    line += f" {theirs[stage]:10.1f} {theirs[stage] / ours[stage]:8.2f}x"
                print(line)
            if ours["errors"]:
                print(f"  ({ours['errors']:.0f} hands with errors)")


if __name__ == "__main__":
    main()
