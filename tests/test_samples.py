"""The bundled samples: every hand replays cleanly, and a handful of players recur."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from analytics.rules import replay
from parsers import read_hands

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "data" / "samples").glob("*.phhs"))


def test_samples_cover_the_three_games() -> None:
    games = {hand.game.value for path in SAMPLES for hand in read_hands(path) if hand.game}
    assert games == {"rummoli", "bigtwo", "seveneight"}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_hand_replays(path: Path) -> None:
    count = 0
    for hand in read_hands(path, strict=True):
        outcome = replay(hand)
        if hand.finishing_stacks is not None:
            assert outcome.finishing_stacks == hand.finishing_stacks
        count += 1
    assert count >= 100


def test_players_recur_across_files() -> None:
    names: Counter[str] = Counter()
    for path in SAMPLES:
        seen = {name for hand in read_hands(path) for name in (hand.players or ())}
        names.update(seen)
    assert 4 <= len(names) <= 20
    assert max(names.values()) >= 3  # someone plays in several of the sample sessions
