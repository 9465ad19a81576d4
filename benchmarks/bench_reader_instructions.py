"""The reader's cost in instructions (valgrind callgrind): deterministic on a shared machine.

Run: ``.venv/bin/python benchmarks/bench_reader_instructions.py [--hands N] [--base DIR]
[--game G] [--stage read|split]``.

CPU time on a machine that others load moves by 30% and more from run to run; the
instructions a run executes do not (with ``PYTHONHASHSEED`` fixed, so that dictionaries
probe alike).  Each tree is run under callgrind twice, with one and with three passes over
its input, and the difference divided by twice the hands is the cost of one hand, start-up,
imports and cache filling excluded.  The input is ``bench_reader_stage.py``'s (simulated
hands, 4 players, each with its own ``_copy`` line), and each pass reads its own copy of
the file whose ``_copy`` lines are new, as in an ingest, where no hand is read twice:

* ``read``: split (``iter_chunks``) and parse + build (``hand_from_chunk``) each hand, one at
  a time, as the worker does, keeping none;
* ``split``: ``iter_chunks`` alone.

Slow: a few minutes per tree and game (valgrind runs Python some 50 times slower).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("seveneight", "bigtwo", "rummoli")
STAGES = ("read", "split")


def passes(tree: str, path: str, hands: int, count: int, stage: str) -> None:
    """The measured program: warm the caches on the first ``hands`` hands of ``path``, then
    run ``count`` passes of ``stage`` over new copies of them."""
    sys.path.insert(0, tree)
    from parsers import reader

    assert Path(reader.__file__).resolve().is_relative_to(Path(tree).resolve()), reader.__file__
    data = Path(path).read_bytes()
    chunks = list(reader.iter_chunks(io.BytesIO(data), path))[:hands]
    data = b"".join(line + b"\n" for line in data.split(b"\n")[:sum(len(c.lines) + 1
                                                                   for c in chunks)])
    assert not any(reader.hand_from_chunk(chunk, path).errors for chunk in chunks)
    copies = [data.replace(b"\n_copy = ", b"\n_copy = %d" % (number + 1)) for number in range(3)]
    for number in range(count):
        stream = io.BytesIO(copies[number])
        if stage == "split":
            for _chunk in reader.iter_chunks(stream, path):
                pass
        else:
            for chunk in reader.iter_chunks(stream, path):
                reader.hand_from_chunk(chunk, path)


def instructions(tree: Path, path: Path, hands: int, count: int, stage: str) -> int:
    """The instructions callgrind counts for ``count`` passes."""
    with tempfile.TemporaryDirectory() as scratch:
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out",
                   sys.executable, __file__, "--passes", str(tree), str(path), str(hands),
                   str(count), stage]
        environment = {**os.environ, "PYTHONHASHSEED": "0"}
        output = subprocess.run(command, check=True, capture_output=True, text=True,
                                env=environment).stderr
    found = re.search(r"Collected : (\d+)", output)
    assert found is not None, output[-2000:]
    return int(found.group(1))


def per_hand(tree: Path, path: Path, hands: int, stage: str) -> float:
    """Instructions per hand: three passes minus one, over two passes of ``hands``."""
    one = instructions(tree, path, hands, 1, stage)
    three = instructions(tree, path, hands, 3, stage)
    return (three - one) / 2 / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--base", type=Path, help="another tree to count beside this one")
    parser.add_argument("--game", choices=GAMES, action="append")
    parser.add_argument("--stage", choices=STAGES, action="append")
    parser.add_argument("--passes", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.passes:
        tree, path, hands, count, stage = args.passes
        passes(tree, path, int(hands), int(count), stage)
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_reader_stage import write_input

    print(f"instructions per hand (callgrind, 3 passes minus 1, {args.hands} hands)")
    header = f"{'game':12s} {'stage':6s} {'this tree':>10s}"
    print(header + (f" {'base':>10s} {'ratio':>7s}" if args.base else ""))
    with tempfile.TemporaryDirectory() as scratch:
        for game in args.game or GAMES:
            path = write_input(Path(scratch), game, args.hands)
            for stage in args.stage or ["read"]:
                ours = per_hand(ROOT, path, args.hands, stage)
                line = f"{game:12s} {stage:6s} {ours:10,.0f}"
                if args.base:
                    theirs = per_hand(args.base, path, args.hands, stage)
                    line += f" {theirs:10,.0f} {theirs / ours:6.2f}x"
                print(line, flush=True)


if __name__ == "__main__":
    main()
