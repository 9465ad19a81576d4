"""The long fuzz run: 100,000+ mutated histories through the reader, the rules engines and
the ingest's own path.

Run: ``.venv/bin/python benchmarks/fuzz.py [--cases N] [--seed S ...] [--game G ...]
[--workers W]`` (``make fuzz``: 100,000 cases per game over seeds 1, 2 and 3).  ``--cases``
counts the cases of each game, shared among the seeds (each seed its own random stream).
Each case takes a valid hand of one of the three games from
``data/samples/``, applies one to four random mutations (``tests/mutate.py``:
flips, dropped, duplicated, swapped and replaced bytes, tokens and lines,
truncation) and checks that every hand either replays or is rejected with a
ParseError or RuleError naming its line, within the hang bound; then that the
ingest's path (the fast reader, the 7 & 8 block scanner and replay, the lean
replays, the rows) loads exactly the hands that replay and rejects the rest, with
no internal error (a bug caught as a reject counts as a failure) and no fast path
failing.  It prints the
rate, the outcomes, and every failure with its reproducer; reproducers' bytes
go to ``benchmarks/out/fuzz-failure-N.phhs``.  Exit code 1 if anything failed.
The figures in docs/reliability.md come from this script.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.words import counted  # noqa: E402
from tests.mutate import (  # noqa: E402  (the project root must be on the path first)
    HANG_SECONDS,
    KINDS,
    FuzzFailure,
    Hang,
    Mutation,
    hang_guard,
    load_seeds,
    mutate,
    run_case,
)

OUT = ROOT / "benchmarks" / "out"


@dataclass
class Tally:
    """What a slice of cases came to."""

    cases: int = 0
    hands: Counter[str] = field(default_factory=Counter)  # ok / parse / rules, per hand
    cases_by: Counter[str] = field(default_factory=Counter)  # a case's worst outcome
    kinds: Counter[str] = field(default_factory=Counter)
    games: Counter[str] = field(default_factory=Counter)
    slowest: float = 0.0
    failures: list[tuple[str, int, str, list[Mutation], bool, bytes]] = field(
        default_factory=list)


GAMES = ("bigtwo", "rummoli", "seveneight")
"""The games, as the sample files' names begin."""


def case(rng: random.Random, indexes: list[int]) -> tuple[int, list[Mutation], bool]:
    """A random case: seed index (one of ``indexes``), mutations, whether to read it as
    text."""
    edits = [Mutation(rng.choice(KINDS), rng.randrange(1 << 30), rng.randrange(1 << 30),
                      rng.randrange(1 << 16)) for _ in range(rng.randint(1, 4))]
    return rng.choice(indexes), edits, rng.random() < 0.2


def work(job: tuple[int, str, int, int]) -> Tally:
    """Run ``cases`` cases of ``game`` from the random stream ``(seed, game, slice)``."""
    seed, game, part, cases = job
    seeds = load_seeds()
    indexes = [i for i, (name, _) in enumerate(seeds) if name.startswith(game)]
    rng = random.Random(f"{seed}:{game}:{part}")
    tally = Tally()
    for _, data in seeds:  # warm-up (imports, the evaluator's JIT): not part of the timings
        run_case(data)
    for _ in range(cases):
        index, edits, text = case(rng, indexes)
        name, data = seeds[index]
        mutated = mutate(data, edits)
        tally.kinds.update(edit.kind for edit in edits)
        tally.games[name.split("-")[0]] += 1
        started = time.perf_counter()
        try:
            with hang_guard():
                counts = run_case(mutated, text=text)
        except (FuzzFailure, Hang) as error:
            tally.failures.append((str(error), index, name, edits, text, mutated))
            tally.cases_by["FAILED"] += 1
            counts = {}
        tally.slowest = max(tally.slowest, time.perf_counter() - started)
        tally.cases += 1
        tally.hands.update(counts)
        if counts:
            worst = ("rules" if counts.get("rules") else "parse" if counts.get("parse")
                     else "ok" if counts.get("ok") else "empty")
            tally.cases_by[worst] += 1
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="cases per game")
    parser.add_argument("--seed", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--game", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    args = parser.parse_args()
    slices = max(1, args.workers) * 4
    jobs = []
    for game in args.game:
        for number, seed in enumerate(args.seed):
            # This seed's share of the game's cases, in ``slices`` slices.
            share = args.cases // len(args.seed) + (number < args.cases % len(args.seed))
            jobs += [(seed, game, part, share // slices + (part < share % slices))
                     for part in range(slices)]
    total = Tally()
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(max(1, args.workers)) as pool:
        for tally in pool.imap_unordered(work, jobs):
            total.cases += tally.cases
            total.hands.update(tally.hands)
            total.cases_by.update(tally.cases_by)
            total.kinds.update(tally.kinds)
            total.games.update(tally.games)
            total.slowest = max(total.slowest, tally.slowest)
            total.failures.extend(tally.failures)
            print(f"  {total.cases:,} cases...", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    print(f"fuzz: {total.cases:,} cases in {seconds:.1f} s with {counted(args.workers, 'worker')}: "
          f"{total.cases / seconds:,.0f} cases/s (seeds {args.seed}, games {args.game}, "
          f"{len(load_seeds())} sample hands)")
    print(f"cases per seed game: {dict(sorted(total.games.items()))}")
    print(f"cases by outcome (worst hand): {dict(sorted(total.cases_by.items()))}")
    print(f"hands: {dict(sorted(total.hands.items()))} "
          f"(ok = replayed and turned into rows; parse/rules = rejected at a line)")
    print(f"mutations: {dict(sorted(total.kinds.items()))}")
    print(f"slowest case: {total.slowest * 1000:.0f} ms (hang bound {HANG_SECONDS:g} s)")
    print(f"failures: {len(total.failures)}")
    if total.failures:
        OUT.mkdir(parents=True, exist_ok=True)
        for number, (message, index, name, edits, text, data) in enumerate(total.failures[:50]):
            path = OUT / f"fuzz-failure-{number}.phhs"
            path.write_bytes(data)
            print(f"- {message}\n  seed {index} ({name}), text={text}, {path}\n"
                  f"  mutations={edits!r}")
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
