"""Side-by-side speed of the poker evaluator against phevaluator, eval7, treys and pokerkit.

Run: ``.venv/bin/python benchmarks/bench_evaluator.py`` (options: ``--hands``,
``--repeats``, ``--seed``).  Needs the ``bench`` extra.  Every contender sees
the same random seven-card hands, converted to its own card type beforehand
(conversion is not timed).  Slow contenders are timed on a prefix of the hands
and extrapolated; the table says how many hands each one really evaluated.
Each figure is the median of ``--repeats`` runs, measured in this one process,
so the ratios against phevaluator hold even on a noisy shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import starmap
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.evaluator import card_combinations, poker_rank_batch
from parsers.cards import DECK


@dataclass(frozen=True)
class Result:
    """One timed contender."""

    name: str
    hands: int
    seconds: float  # median over the repeats

    @property
    def rate(self) -> float:
        """Hands per second."""
        return self.hands / self.seconds


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``run``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_hands(n: int, k: int, rng: np.random.Generator) -> npt.NDArray[np.int8]:
    """``n`` random k-card hands (distinct cards within a hand), int8 codes."""
    out = np.empty((n, k), dtype=np.int8)
    chunk = 200_000
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        out[start:stop] = np.argsort(rng.random((stop - start, 52)), axis=1)[:, :k]
    return out


def main() -> None:
    """Time everything and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    n, repeats = args.hands, args.repeats
    rng = np.random.default_rng(args.seed)
    seven = random_hands(n, 7, rng)
    seventeen = random_hands(n, 17, rng)

    start = time.perf_counter()
    poker_rank_batch(seven[:10])
    poker_rank_batch(seventeen[:10])
    five_all = card_combinations(5)
    poker_rank_batch(five_all[:10])
    warmup = time.perf_counter() - start

    results: list[Result] = []
    ours = poker_rank_batch(seven)
    results.append(Result("handlab poker_rank_batch (7 cards)", n, median_time(
        lambda: poker_rank_batch(seven), repeats)))

    checks: list[str] = []
    rows = [tuple(int(c) for c in row) for row in seven.tolist()]
    try:
        from phevaluator._pheval import evaluate_7cards
    except ImportError:
        evaluate_7cards = None
    if evaluate_7cards is not None:
        # phevaluator's card ids are ours (4 * rank + suit); its 1 is the best hand.
        theirs = np.fromiter(starmap(evaluate_7cards, rows), dtype=np.int32, count=n)
        agree = np.array_equal(ours, 7463 - theirs)
        checks.append(f"phevaluator: values == 7463 - phevaluator on all {n:,} hands: {agree}")
        results.append(Result("phevaluator _pheval.evaluate_7cards, per hand", n, median_time(
            lambda: list(starmap(evaluate_7cards, rows)), repeats)))

    results.extend(_slow_contenders(rows, n, repeats, ours, checks))

    results.append(Result("handlab poker_rank_batch (17 cards)", n, median_time(
        lambda: poker_rank_batch(seventeen), repeats)))
    five_values = poker_rank_batch(five_all)
    checks.append(f"5-card enumeration: {len(np.unique(five_values))} distinct values (7462)")
    results.append(Result("handlab 5-card enumeration: generate + rank", len(five_all),
                          median_time(lambda: poker_rank_batch(card_combinations(5)), repeats)))
    results.append(Result("handlab 5-card enumeration: rank only", len(five_all),
                          median_time(lambda: poker_rank_batch(five_all), repeats)))

    baseline = next((r for r in results if r.name.startswith("phevaluator")), None)
    print(f"{n:,} random hands, median of {repeats} runs; numba warm-up {warmup:.2f} s (not timed)")
    print(f"{'contender':<48} {'hands timed':>12} {'seconds':>9} {'M hands/s':>10} {'vs phe':>7}")
    for r in results:
        ratio = f"{r.rate / baseline.rate:6.2f}x" if baseline else "   n/a"
        print(f"{r.name:<48} {r.hands:>12,} {r.seconds:>9.4f} {r.rate / 1e6:>10.2f} {ratio:>7}")
    for line in checks:
        print("check:", line)


def _slow_contenders(
    rows: list[tuple[int, ...]],
    n: int,
    repeats: int,
    ours: npt.NDArray[np.int32],
    checks: list[str],
) -> list[Result]:
    """eval7, treys and pokerkit on a prefix of the hands (extrapolated rates)."""
    results: list[Result] = []
    texts = [[str(DECK[c]) for c in row] for row in rows]
    try:
        import eval7

        sub = min(n, 200_000)
        hands7 = [[eval7.Card(t) for t in hand] for hand in texts[:sub]]
        evaluate: Callable[[Any], int] = eval7.evaluate
        results.append(Result(f"eval7.evaluate, per hand (first {sub:,})", sub,
                              median_time(lambda: list(map(evaluate, hands7)), repeats)))
        values = np.array(list(map(evaluate, hands7[:20_000])))
        checks.append(f"eval7: same order on 20,000 hands: {_same_order(ours[:20_000], values)}")
    except ImportError:
        pass
    try:
        from treys import Card as TreysCard
        from treys import Evaluator

        sub = min(n, 50_000)
        evaluator = Evaluator()
        hands_t = [[TreysCard.new(t) for t in hand] for hand in texts[:sub]]
        results.append(Result(f"treys Evaluator.evaluate, per hand (first {sub:,})", sub,
                              median_time(lambda: [evaluator.evaluate(h[:2], h[2:])
                                                   for h in hands_t], repeats)))
        values = -np.array([evaluator.evaluate(h[:2], h[2:]) for h in hands_t[:20_000]])
        checks.append(f"treys: same order on 20,000 hands: {_same_order(ours[:20_000], values)}")
    except ImportError:
        pass
    try:
        from pokerkit import StandardHighHand

        sub = min(n, 5_000)
        strings = ["".join(hand) for hand in texts[:sub]]
        results.append(Result(f"pokerkit StandardHighHand.from_game (first {sub:,})", sub,
                              median_time(lambda: [StandardHighHand.from_game(s)
                                                   for s in strings], max(1, repeats // 2))))
    except ImportError:
        pass
    return results


def _same_order(ours: npt.NDArray[np.int32], theirs: npt.NDArray[Any]) -> bool:
    """True when both value arrays order (and tie) the hands identically."""
    order = np.argsort(ours, kind="stable")
    a, b = ours[order], theirs[order]
    return bool(np.array_equal(np.sign(np.diff(a)), np.sign(np.diff(b))))


if __name__ == "__main__":
    main()
