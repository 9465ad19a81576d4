"""The bundled samples cover the three games, and a handful of players recur.  (That every
sample hand reads strictly and replays to the finishing stacks it records is checked with
its golden rows: tests/test_warehouse_rows_golden.py.)"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from parsers import read_hands

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "data" / "samples").glob("*.phhs"))


def test_samples_cover_the_three_games() -> None:
    games = {hand.game.value for path in SAMPLES for hand in read_hands(path) if hand.game}
    assert games == {"rummoli", "bigtwo", "seveneight"}


def test_players_recur_across_files() -> None:
    names: Counter[str] = Counter()
    for path in SAMPLES:
        seen = {name for hand in read_hands(path) for name in (hand.players or ())}
        names.update(seen)
    assert 4 <= len(names) <= 20
    assert max(names.values()) >= 3  # someone plays in several of the sample sessions
