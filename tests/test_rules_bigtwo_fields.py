"""Big Two read as columns: ``bigtwo_game_deals(hand, fields)``.

The ingest worker reads a hand the reader's fast path takes without its
:class:`~parsers.model.Action` objects, as :class:`~parsers.model.ActionFields`
columns (:func:`parsers.reader.hand_and_fields`).  For Big Two these tests check that
the dealt hands the features count are the same from the columns as from the actions, on
simulated games, on games altered at one action and on deals out of their usual place.
(The engine replays a game read as columns with its actions made,
:func:`parsers.model.with_actions`: there is one replay.)
"""

from __future__ import annotations

import dataclasses
import random
from functools import cache

import pytest

from analytics.equity.bigtwo import bigtwo_game_deals
from analytics.evaluator import EvaluationError
from analytics.rules import bigtwo
from parsers import HandHistory
from parsers.cards import UNKNOWN
from parsers.model import Action, ActionFields
from tests.test_rules_golden import _mutated, _simulated


@cache
def simulated(game: str) -> tuple[HandHistory, ...]:
    return tuple(_simulated(game))


def _without_actions(hand: HandHistory) -> tuple[HandHistory, ActionFields]:
    """``hand`` as the reader's column form gives it: no actions, and their fields."""
    return dataclasses.replace(hand, actions=()), ActionFields.of(hand.actions)


def deals(hand: HandHistory, fields: ActionFields | None = None) -> object:
    """The game's deals, or the evaluator's error."""
    try:
        return bigtwo_game_deals(hand, fields)
    except EvaluationError as error:
        return "error", str(error)


def assert_same_deals(hand: HandHistory) -> None:
    bare, fields = _without_actions(hand)
    assert deals(bare, fields) == deals(hand)


def test_deals_of_the_columns_are_the_deals_of_the_actions() -> None:
    for hand in simulated("bigtwo"):
        assert_same_deals(hand)


def test_deals_match_on_altered_games() -> None:
    rng = random.Random("bigtwo-fields")
    for hand in simulated("bigtwo")[::2]:
        for kind in ("any", "sized"):
            assert_same_deals(_mutated(hand, rng, kind))


@pytest.mark.parametrize("shape", ["deal last", "deal split", "unknown card", "dealt twice",
                                   "no deals", "noop first"])
def test_odd_deals_match(shape: str) -> None:
    """Deals away from the front, split, unknown or repeated: the same dealt hands or
    evaluator error."""
    for hand in simulated("bigtwo")[::8]:
        actions = list(hand.actions)
        n = hand.num_players
        first = actions[0]
        if shape == "deal last":
            changed = actions[1:] + [first]
        elif shape == "deal split":
            half = len(first.cards) // 2
            changed = [dataclasses.replace(first, cards=first.cards[:half]), *actions[1:n],
                       dataclasses.replace(first, cards=first.cards[half:]), *actions[n:]]
        elif shape == "unknown card":
            changed = [dataclasses.replace(first, cards=(UNKNOWN, *first.cards[1:])),
                       *actions[1:]]
        elif shape == "dealt twice":
            changed = [first, first, *actions[1:]]
        elif shape == "no deals":
            changed = actions[n:]
        else:
            changed = [Action(0, bigtwo._VERB_NOOP), *actions]
        variant = dataclasses.replace(hand, actions=tuple(changed))
        assert_same_deals(variant)
