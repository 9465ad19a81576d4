"""The ingest worker's replay stage alone: ``analytics.rules.replay`` per hand, CPU time.

Run: ``.venv/bin/python benchmarks/bench_replay_stage.py [--base DIR] [--hands 2000]``
(``--stage worker`` times the worker's whole path instead: parse, replay, rows, Arrow;
``--chunk N``: hands per timed chunk, and per batch of the worker stage)

The same simulated hands as ``bench_ingest.py --stages`` (4 players, seed 7) are
written once as text; each tree (this one, and ``--base DIR``, e.g. an export of
HEAD) parses them in its own subprocess, so each runs its own parser and rules
engines, and times ``replay`` over all of them: CPU time, best of ``--runs``
passes after a warm-up pass (imports, memo tables, Big Two's table of plays),
taken per chunk of ``CHUNK`` hands and summed.
The trees' passes alternate (one pass of this tree, one of the base, ...), so
the ratio is a same-run figure that load from other processes skews little.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parsers import HandHistory

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("seveneight", "bigtwo", "rummoli")
CHUNK = 50
"""Hands per timed chunk: each chunk keeps its best time over the passes, so a burst of
load from other processes spoils one chunk of one pass rather than a whole pass."""


def write_hands(folder: Path, hands: int, games: list[str]) -> None:
    """Simulate ``hands`` hands of ``games`` with this tree and write them as ``.phhs`` text."""
    sys.path.insert(0, str(ROOT))
    from analytics.simulate.bigtwo import simulate_bigtwo
    from analytics.simulate.rummoli import simulate_rummoli
    from analytics.simulate.seveneight import simulate_seveneight
    from parsers import dumps_hands

    # The same simulations as bench_ingest.base_hands: 4 players, seed 7.
    simulators: dict[str, Callable[[int, int, int], Iterable[HandHistory]]] = {
        "seveneight": simulate_seveneight, "bigtwo": simulate_bigtwo,
        "rummoli": simulate_rummoli}
    for game in games:
        simulated = simulators[game](hands, 4, 7)
        (folder / f"{game}.phhs").write_text(dumps_hands(simulated), encoding="utf-8")


class TreeProcess:
    """A child process that imports one tree's code and times ``replay`` passes on demand.

    The parent asks each tree's child in turn for one pass at a time, so the
    trees are timed interleaved: a burst of load from other processes on the
    shared machine hits both, not one of them.
    """

    def __init__(self, tree: Path, folder: Path, games: list[str], stage: str,
                 chunk: int = CHUNK) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--child", str(tree), "--folder", str(folder),
             "--stage", stage, "--chunk", str(chunk), "--games", *games],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree)
        self.ready = self._read()  # "ready" once parsed and warmed up

    def _read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the timing child process died")
        return line.strip()

    def time_pass(self, game: str) -> list[float]:
        """CPU seconds of one pass of ``replay`` over ``game``'s hands, per chunk of hands."""
        assert self.process.stdin is not None
        self.process.stdin.write(game + "\n")
        self.process.stdin.flush()
        return [float(part) for part in self._read().split()]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def child(tree: Path, folder: Path, games: list[str], stage: str, chunk: int = CHUNK) -> None:
    """Inside the subprocess: import ``tree``'s code, parse, warm up, then time on request.

    ``stage`` "replay" times ``analytics.rules.replay`` on parsed hands; "worker" times an
    ingest worker's whole path on raw hand chunks (parse, replay, identity, rows and the
    equity rows, Arrow tables per chunk): ``analytics.warehouse.pipeline.work.process_chunks``.
    """
    sys.path.insert(0, str(tree))
    import datetime as dt
    import io

    import analytics
    from analytics.rules import replay
    from analytics.warehouse.pipeline.rows import FileContext
    from analytics.warehouse.pipeline.work import UnitResult, process_chunks
    from parsers import loads_hands
    from parsers.reader import iter_chunks

    assert Path(analytics.__file__).resolve().is_relative_to(tree.resolve()), analytics.__file__
    texts = {game: (folder / f"{game}.phhs").read_text(encoding="utf-8") for game in games}
    hands = {game: loads_hands(text) for game, text in texts.items()}
    chunks = {game: list(iter_chunks(io.StringIO(text), game)) for game, text in texts.items()}
    context = FileContext("bench", "0" * 64, dt.datetime(2026, 1, 1))

    def work(game: str, start: int) -> None:
        if stage == "replay":
            for hand in hands[game][start:start + chunk]:
                replay(hand)
        else:
            process_chunks(chunks[game][start:start + chunk], context, chunk,
                           UnitResult(0, True))

    for game in games:  # warm-up: imports, memo tables, Big Two's play table, numba
        for start in range(0, len(hands[game]), chunk):
            work(game, start)
    print("ready", flush=True)
    clock = time.process_time
    for line in sys.stdin:
        game = line.strip()
        times = []
        for start in range(0, len(hands[game]), chunk):
            started = clock()
            work(game, start)
            times.append(clock() - started)
        print(" ".join(map(repr, times)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another tree to time side by side")
    parser.add_argument("--hands", type=int, default=2_000, help="hands (rounds, games) per game")
    parser.add_argument("--runs", type=int, default=7,
                        help="timed passes per tree and game; the best counts")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--stage", choices=("replay", "worker"), default="replay",
                        help="replay alone, or an ingest worker's whole path per hand")
    parser.add_argument("--chunk", type=int, default=CHUNK,
                        help="hands per timed chunk (and per batch of the worker stage)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.folder, args.games, args.stage, args.chunk)
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_hands(folder, args.hands, args.games)
        trees = [ROOT] + ([args.base.resolve()] if args.base else [])
        processes = [TreeProcess(tree, folder, args.games, args.stage, args.chunk)
                     for tree in trees]
        chunks: list[dict[str, list[float]]] = [{} for _ in trees]
        for _ in range(args.runs):
            for game in args.games:
                for number, process in enumerate(processes):
                    times = process.time_pass(game)
                    kept = chunks[number].setdefault(game, times)
                    kept[:] = [min(a, b) for a, b in zip(kept, times, strict=True)]
        for process in processes:
            process.close()
        best = [{game: sum(kept[game]) / args.hands * 1e6 for game in args.games}
                for kept in chunks]
    print(f"{args.stage}, CPU microseconds per hand ({args.hands:,} hands per game; each chunk of"
          f" {args.chunk} hands its best of {args.runs} passes; trees interleaved)")
    header = f"{'game':12s} {'this tree':>10s}"
    if args.base:
        header += f" {'base':>10s} {'base/this':>10s}"
    print(header)
    for game in args.games:
        line = f"{game:12s} {best[0][game]:10.1f}"
        if args.base:
            line += f" {best[1][game]:10.1f} {best[1][game] / best[0][game]:9.2f}x"
        print(line)

if __name__ == "__main__":
    main()
