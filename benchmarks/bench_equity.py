"""Equity engine speed, with pokerkit's ``calculate_equities`` as the Monte Carlo reference.

Run: ``.venv/bin/python benchmarks/bench_equity.py [--allin-hands 100000] [--repeats 5]``.
Every figure is the median of ``--repeats`` timings after a warm-up (numba
compilation is not timed), all in this one process so the ratios are
meaningful on a shared machine.  Targets (issue 5):

* exact heads-up 7 & 8 equity, one card to come for each player: < 2 ms;
* all-in adjusted results for 100,000 hands: < 10 s;
* our 7 & 8 Monte Carlo: >= 100x pokerkit's sample rate on a comparable
  hold'em spot (heads-up, two hole cards each, everything else to come).
"""

from __future__ import annotations

import argparse
import itertools
import time

from timing import Measure, measure, report

from analytics.equity import allin_adjusted, rummoli_strength, seveneight_equity
from analytics.equity.bigtwo import bigtwo_deal_strength
from analytics.rules import Outcome, replay
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory


def _pokerkit_measure(samples: int, repeats: int) -> Measure:
    from pokerkit import Deck, StandardHighHand, calculate_equities, parse_range

    ranges = (parse_range("AsKs"), parse_range("QhQd"))

    def work() -> object:
        return calculate_equities(ranges, (), 2, 5, Deck.STANDARD, (StandardHighHand,),
                                  sample_count=samples)

    return measure("pokerkit calculate_equities", samples, work, runs=repeats)


def _allin_corpus(hands: int) -> tuple[list[tuple[HandHistory, Outcome]], int]:
    """``hands`` simulated 7 & 8 hands with their outcomes (a base set, cycled)."""
    base = []
    for players, seed in ((2, 1), (3, 2), (4, 3), (6, 4)):
        for hand in simulate_seveneight(750, players, seed):
            base.append((hand, replay(hand)))
    corpus = list(itertools.islice(itertools.cycle(base), hands))
    qualifying = sum(1 for hand, outcome in base if allin_adjusted(hand, outcome) is not None)
    return corpus, round(qualifying * hands / len(base))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--allin-hands", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--mc-samples", type=int, default=1_000_000)
    parser.add_argument("--pokerkit-samples", type=int, default=2_000)
    args = parser.parse_args()
    repeats = args.repeats

    # 1. Exact heads-up, one card to come each (the whole public call, parsing included).
    calls = 200
    exact = measure("exact heads-up (per call)", calls,
                    lambda: [seveneight_equity(["7h9c", "AsKs"]) for _ in range(calls)],
                    runs=repeats)
    print(f"exact heads-up 7 & 8, one card to come each: {1e3 / exact.rate:.3f} ms per call"
          " (target < 2 ms)")
    exact3 = measure("exact 3-way (per call)", 20,
                     lambda: [seveneight_equity(["7h9c", "AsKs", "5d6d"]) for _ in range(20)],
                     runs=repeats)
    print(f"exact 3-way, one card to come each (91,080 deals): {1e3 / exact3.rate:.3f} ms")
    view = measure("exact hero view heads-up", 5,
                   lambda: [seveneight_equity(["7h9c", "As??"]) for _ in range(5)], runs=repeats)
    print(f"exact heads-up from p1's view (55,272 deals): {1e3 / view.rate:.3f} ms")

    # 2. Monte Carlo against pokerkit.
    samples = args.mc_samples
    ours2 = measure("ours 7&8 MC heads-up", samples, lambda: seveneight_equity(
        ["7h9c", "AsKs"], method="monte_carlo", samples=samples), runs=repeats)
    ours_view = measure("ours 7&8 MC, p1's view 4-way", samples, lambda: seveneight_equity(
        ["7h9c", "As??", "Kd??", "5c??"], method="monte_carlo", samples=samples), runs=repeats)
    theirs = _pokerkit_measure(args.pokerkit_samples, max(3, repeats // 2))
    report("Monte Carlo sample rates", [ours2, ours_view, theirs],
           baseline="pokerkit calculate_equities", unit="samples/s")

    rummoli = measure("Rummoli strength MC, 4 players", 100_000, lambda: rummoli_strength(
        "2d3d4d4s6d6s8cTsJhQdKh", 4, samples=100_000), runs=repeats)
    print(f"\nRummoli strength Monte Carlo (11 cards, 4 players): {rummoli.rate:,.0f} samples/s")
    bigtwo = measure("Big Two continuations", 50, lambda: bigtwo_deal_strength(
        "3d4c5h6s7d8c8d8h9s9cKdKc2s", samples=50), runs=max(3, repeats // 2))
    print(f"Big Two deal strength: {bigtwo.rate:,.0f} continuations/s")

    # 3. All-in adjusted results over a corpus of replayed hands.
    start = time.perf_counter()
    corpus, qualifying = _allin_corpus(args.allin_hands)
    print(f"\n(corpus of {len(corpus):,} hands built in {time.perf_counter() - start:.1f} s;"
          f" about {qualifying:,} are all in with a card to come)")

    def allin_all() -> object:
        return [allin_adjusted(hand, outcome) for hand, outcome in corpus]

    allin = measure("all-in adjusted", len(corpus), allin_all, runs=max(1, repeats // 2))
    print(f"all-in adjusted results: {len(corpus):,} hands in {allin.seconds:.2f} s"
          f" ({allin.rate:,.0f} hands/s; target < 10 s)")


if __name__ == "__main__":
    main()
