"""Simulation speed in CPU time: 7 & 8 hands and Big Two games per CPU-second.

Run: ``.venv/bin/python benchmarks/bench_simulate.py``.  The machine is shared: wall-clock
rates move with the load, so this measures the simulator's own CPU time
(``time.process_time``), best of three seeds, after a warm-up.  Targets (issue 4):
2,000 7 & 8 hands/s and 300 Big Two games/s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory


def per_cpu_second(simulate: Callable[[int, int, int], Iterator[HandHistory]], count: int,
                   players: int) -> float:
    """Best of three seeds: items per CPU-second."""
    list(simulate(20, players, 0))  # warm-up: tables, caches
    best = 0.0
    for seed in (11, 12, 13):
        start = time.process_time()
        made = sum(1 for _ in simulate(count, players, seed))
        best = max(best, made / (time.process_time() - start))
    return best


def main() -> None:
    print(f"{'simulation':34s} {'per CPU-second':>16s} {'target':>8s}")
    for players in (2, 6):
        rate = per_cpu_second(simulate_seveneight, 1000, players)
        print(f"{f'7 & 8, {players} players (hands)':34s} {rate:16,.0f} {2000:8,d}")
    for players in (2, 4):
        rate = per_cpu_second(simulate_bigtwo, 300, players)
        print(f"{f'Big Two, {players} players (games)':34s} {rate:16,.0f} {300:8,d}")


if __name__ == "__main__":
    main()
