"""Bots and session simulators that write realistic histories of the three games.

``simulate(game, n, players, seed)`` dispatches to ``simulate_<game>`` of the
game's module; every simulated hand replays cleanly through the rules engines.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module

from parsers.knobs import Game
from parsers.model import HandHistory

__all__ = ["simulate"]


def simulate(
    game: Game, n: int, players: int, seed: int, **options: object
) -> Iterator[HandHistory]:
    """``n`` hands (7 & 8), games (Big Two) or rounds (Rummoli), deterministic for ``seed``."""
    module = import_module(f"analytics.simulate.{game.value}")
    simulator = getattr(module, f"simulate_{game.value}")
    hands: Iterator[HandHistory] = simulator(n, players, seed, **options)
    return hands
