"""Hands for the warehouse tests: hand-written examples, broken hands, simulated batches.

The other ``test_warehouse_*`` modules import these helpers; the tests here
check that the helpers give what the others rely on (legal examples really
replay, broken ones really fail where we say).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from analytics.rules import RuleError, replay
from parsers import dumps_hand, dumps_hands, loads_hands
from parsers.model import HandHistory

SEVENEIGHT = """\
format_version = 1
variant = "N78"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = [
  "d dh p1 7c8c",
  "d dh p2 AsKs",
  "d dh p3 5d9d",
  "p1 up 7c",
  "p2 up As",
  "p3 up 9d",
  "p3 cbr 6 # first to act, left of the big blind",
  "p1 cc",
  "p2 f",
  "d dh p1 2c",
  "d dh p3 Th",
  "p1 cc",
  "p3 cbr 10",
  "p1 cc",
  "p3 sm 5d9dTh",
  "p1 sm 7c8c2c",
]
finishing_stacks = [118, 98, 84]
winnings = [34, 0, 0]
players = ["Ann", "Bo", "Cy"]
table = "Kitchen"
time = 20:15:00
day = 28
month = 11
year = 2026
"""
"""The 7 & 8 example of docs/format.md (legal)."""

BIGTWO = """\
format_version = 1
variant = "B2"
game_id = "sunday-2026-11-29"
round = 1
actions = [
  "d dh p1 3d4c5h6s7d8c8d8h9s9cKdKc2s",
  "d dh p2 3c4d5d6d7cTsThJcQsQhAcAh2d",
  "p1 pl 3d4c5h6s7d # the lead card must be in the first play",
  "p2 ps",
  "p1 pl 8c8d8h9s9c",
  "p2 ps",
  "p1 pl KdKc",
  "p2 pl AcAh",
  "p1 ps",
  "p2 pl 3c",
  "p1 pl 2s # p1's last card: the game is over",
]
finishing_stacks = [20, -20]
players = ["Ann", "Bo"]
"""
"""The Big Two example of docs/format.md (legal)."""

PARSE_BROKEN = SEVENEIGHT.replace('"p2 f"', '"p9 f"')
"""A hand the reader rejects: ``p9`` is not a player (line 16 of the hand)."""

RULES_BROKEN = SEVENEIGHT.replace('"p3 cbr 6 # first', '"p3 cbr 3 # first')
"""The 7 & 8 example with a raise below the minimum: the rules engine rejects it."""


def phhs(*hands: str) -> str:
    """Hand texts as one ``.phhs`` file: ``[1]``, ``[2]``, ... tables."""
    return "".join(f"[{number}]\n{text}\n" for number, text in enumerate(hands, start=1))


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (folders created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def relabel(hand_text: str, label: int) -> str:
    """The same hand under another ``hand`` label: a distinct hand with the same play."""
    return f"hand = {label}\n{hand_text}"


@functools.cache
def simulated(game: str, count: int, seed: int = 1) -> tuple[HandHistory, ...]:
    """``count`` simulated hands of ``game`` (cached: simulation is slow)."""
    if game == "seveneight":
        from analytics.simulate.seveneight import simulate_seveneight

        return tuple(simulate_seveneight(count, 4, seed))
    if game == "bigtwo":
        from analytics.simulate.bigtwo import simulate_bigtwo

        return tuple(simulate_bigtwo(count, 4, seed))
    from analytics.simulate.rummoli import simulate_rummoli

    return tuple(simulate_rummoli(count, 4, seed))


def simulated_text(game: str, count: int, seed: int = 1) -> str:
    """Simulated hands as ``.phhs`` text."""
    return dumps_hands(simulated(game, count, seed))


def test_examples_replay() -> None:
    for text in (SEVENEIGHT, BIGTWO):
        (hand,) = loads_hands(text)
        assert hand.ok, hand.errors
        replay(hand)


def test_parse_broken_fails_at_its_line() -> None:
    (hand,) = loads_hands(phhs(SEVENEIGHT, PARSE_BROKEN))[1:]
    assert not hand.ok
    # [1] + 32 lines + a blank line: [2] is line 35, its 16th line is 51.
    assert hand.errors[0].line == 51
    assert "p9" in hand.errors[0].message


def test_rules_broken_fails_in_replay() -> None:
    (hand,) = loads_hands(RULES_BROKEN)
    assert hand.ok
    with pytest.raises(RuleError):
        replay(hand)


@pytest.mark.parametrize("game", ["seveneight", "bigtwo", "rummoli"])
def test_simulated_hands_replay(game: str) -> None:
    hands = simulated(game, 6)
    assert len(hands) == 6
    for hand in hands:
        replay(hand)
        assert loads_hands(dumps_hand(hand))[0] == hand
