"""The examples of docs/format.md and docs/examples/ are legal hands: the rules engines agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analytics.rules import replay
from parsers import loads_hands, read_hands

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCKS = re.findall(r"```toml\n(.*?)```", (DOCS / "format.md").read_text(encoding="utf-8"), re.S)
COMPLETE = [block for block in BLOCKS if '"...",' not in block]


@pytest.mark.parametrize("block", COMPLETE, ids=lambda b: b.split('variant = "')[1][:3])
def test_format_examples_replay_to_their_stated_results(block: str) -> None:
    (hand,) = loads_hands(block)
    outcome = replay(hand)  # raises RuleError if the example is illegal or its results are wrong
    board_change = 0
    if outcome.board_after is not None:  # Rummoli: chips may stay on the board
        board_change = sum(outcome.board_after) - sum(hand.board_before or ())
    assert sum(outcome.nets) + board_change == 0
    if hand.finishing_stacks is not None:
        assert outcome.finishing_stacks == hand.finishing_stacks


@pytest.mark.parametrize("path", sorted((DOCS / "examples").glob("*.phh*")), ids=lambda p: p.name)
def test_example_files_replay(path: Path) -> None:
    for hand in read_hands(path):
        assert hand.ok, hand.errors
        replay(hand)


def test_there_is_a_complete_example_per_game() -> None:
    games = {hand.game for block in COMPLETE for hand in loads_hands(block)}
    games |= {hand.game for path in (DOCS / "examples").glob("*.phh*") for hand in read_hands(path)}
    assert {game.value for game in games if game} == {"rummoli", "bigtwo", "seveneight"}
