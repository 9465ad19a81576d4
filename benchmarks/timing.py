"""Shared helpers for the benchmarks: repeated timing with medians, and ratio tables.

The machine is shared and noisy: every figure is the median of several runs, and
peers are measured side by side in the same run so that ratios are meaningful.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """A throughput measured as the median of ``runs`` timings."""

    name: str
    items: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.items / self.seconds


def measure(name: str, items: int, work: Callable[[], object], runs: int = 5) -> Measure:
    """Run ``work`` ``runs`` times (after one warm-up) and keep the median time."""
    work()
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        timings.append(time.perf_counter() - start)
    return Measure(name, items, statistics.median(timings))


def best_cpu(work: Callable[[], object], runs: int, before: Callable[[], object] | None = None,
             *, warm_up: bool = False) -> float:
    """The least CPU time (seconds, ``time.process_time``) of ``runs`` calls of ``work``:
    ``before`` runs untimed ahead of each (to clear caches, say); with ``warm_up``, one
    untimed call of ``work`` comes first (a kernel's load)."""
    if warm_up:
        work()
    best = float("inf")
    for _ in range(runs):
        if before is not None:
            before()
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def report(title: str, measures: list[Measure], baseline: str, unit: str = "hands/s") -> None:
    """Print rates and ratios against ``baseline`` (a name in ``measures``)."""
    base = next(m for m in measures if m.name == baseline)
    print(f"\n{title}")
    print(f"{'':34s} {unit:>14s} {'x ' + baseline:>22s}")
    for m in measures:
        print(f"{m.name:34s} {m.rate:14,.0f} {m.rate / base.rate:22.1f}")


# The reference hand for pokerkit's PHH load + replay: a three-handed no-limit hold'em hand
# of the same length and shape as the 7 & 8 hands we time (pokerkit does not know our games).
HOLDEM = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = [
  "d dh p1 7c8c",
  "d dh p2 AsKs",
  "d dh p3 5d9d",
  "p3 cbr 6",
  "p1 cc",
  "p2 f",
  "d db 2cTh3s",
  "p1 cc",
  "p3 cbr 10",
  "p1 cc",
  "d db 4d",
  "p1 cc",
  "p3 cc",
  "d db Jc",
  "p1 cc",
  "p3 cc",
]
players = ["Ann", "Bo", "Cy"]
"""
