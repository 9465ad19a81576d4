"""Big Two speed: simulation, replay validation, and pokerkit's PHH replay as a reference.

Run: ``.venv/bin/python benchmarks/bench_bigtwo.py [games] [runs]``.  Every figure
is the median of ``runs`` timings after a warm-up, all measured in this one
process; pokerkit (the ``bench`` extra) loads and replays a no-limit hold'em
hand, a reference for what "replaying a hand history" costs in a
well-known Python engine.
"""

from __future__ import annotations

import sys
import time

import pokerkit
from timing import HOLDEM, Measure, measure, report

from analytics.rules.bigtwo.engine import prepare_plays, replay
from analytics.simulate.bigtwo import simulate_bigtwo
from parsers import BigTwoRules, HandHistory, dumps_hands, loads_hands


def _replay_measures(players: int, batch: list[HandHistory], text: str, games: int,
                     runs: int) -> list[Measure]:
    """Replay of parsed hands, parse + replay from text, and parsing alone."""
    return [
        measure(f"replay {players}p (parsed)", games, lambda: [replay(h) for h in batch], runs),
        measure(f"parse+replay {players}p (text)", games,
                lambda: [replay(h) for h in loads_hands(text)], runs),
        measure(f"parse only {players}p (text)", games, lambda: loads_hands(text), runs),
    ]


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5

    start = time.perf_counter()
    prepare_plays(BigTwoRules())  # the bots' table of every play; built once per rule set
    print(f"one-time table of all plays (default rules): {time.perf_counter() - start:.2f} s")

    hands = {p: list(simulate_bigtwo(games, p, seed=p)) for p in (2, 3, 4)}
    texts = {p: dumps_hands(h) for p, h in hands.items()}
    actions = sum(len(h.actions) for h in hands[4]) / games
    print(f"{games} games per measure; 4-player games average {actions:.1f} actions")

    def pokerkit_replay() -> None:
        for _ in range(games // 4):
            for _state in pokerkit.HandHistory.loads(HOLDEM):
                pass

    measures = [
        measure("pokerkit loads+replay (NLHE)", games // 4, pokerkit_replay, runs),
        measure("simulate 4 players", games, lambda: list(simulate_bigtwo(games, 4, 9)), runs),
        measure("simulate 3 players", games, lambda: list(simulate_bigtwo(games, 3, 9)), runs),
        measure("simulate 2 players", games, lambda: list(simulate_bigtwo(games, 2, 9)), runs),
    ]
    for players in (4, 3, 2):
        measures += _replay_measures(players, hands[players], texts[players], games, runs)
    report("Big Two (games/s; pokerkit: hands/s)", measures, "pokerkit loads+replay (NLHE)",
           unit="games/s")


if __name__ == "__main__":
    main()
