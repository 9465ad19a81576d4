"""Bots and session simulators that write realistic histories of the three games.

``simulate(game, n, players, seed)`` dispatches to ``simulate_<game>`` of the
game's module; every simulated hand replays cleanly through the rules engines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from parsers.model import HandHistory
from parsers.rule_options import Game

__all__ = ["simulate"]

_SIMULATORS: Final[dict[Game, Callable[..., Iterator[HandHistory]]]] = {
    Game.SEVENEIGHT: simulate_seveneight,
    Game.BIGTWO: simulate_bigtwo,
    Game.RUMMOLI: simulate_rummoli,
}
"""Each game's simulator (their options differ: passed through as given)."""


def simulate(
    game: Game, n: int, players: int, seed: int, **options: object
) -> Iterator[HandHistory]:
    """``n`` hands (7 & 8), games (Big Two) or rounds (Rummoli), deterministic for ``seed``."""
    return _SIMULATORS[game](n, players, seed, **options)
