"""Rummoli read as columns: ``rummoli_round_deal(hand, fields)``.

The ingest worker reads a round the reader's fast path takes without its
:class:`~parsers.model.Action` objects, as :class:`~parsers.model.ActionFields` columns
(:func:`parsers.reader.hand_and_fields`).  The round's cards for the strength kernel read
from the columns must be those read from the actions, on simulated rounds, rounds altered
at one action and the sample files.  (The engine replays a round read as columns with its
actions made, :func:`parsers.model.with_actions`: there is one replay.)
"""

from __future__ import annotations

import dataclasses
import random
from functools import cache

from analytics.equity.rummoli import rummoli_round_deal
from analytics.evaluator import EvaluationError
from analytics.simulate.rummoli import simulate_rummoli
from parsers import HandHistory, loads_hands
from parsers.knobs import Game
from parsers.model import ActionFields
from tests.mutate import load_seeds
from tests.test_rules_golden import _mutated, _simulated


@cache
def simulated() -> tuple[HandHistory, ...]:
    """The golden tests' rounds of many shapes, and short-stacked ones (side pots)."""
    hands = list(_simulated("rummoli"))
    hands += simulate_rummoli(60, 4, 7)
    hands += simulate_rummoli(30, 3, 11, variant="PRM")
    hands += simulate_rummoli(30, 5, 12, variant="FRM")
    return tuple(hands)


def _deal(hand: HandHistory, fields: ActionFields | None = None) -> object:
    """The round's cards for the strength kernel, or the evaluator's error."""
    try:
        return rummoli_round_deal(hand, fields)
    except EvaluationError as error:
        return "error", str(error)


def assert_same_deal(hand: HandHistory) -> None:
    bare = dataclasses.replace(hand, actions=())
    assert _deal(bare, ActionFields.of(hand.actions)) == _deal(hand)


def test_deals_of_the_columns_are_the_deals_of_the_actions() -> None:
    for hand in simulated():
        assert_same_deal(hand)


def test_deals_match_on_altered_rounds() -> None:
    rng = random.Random("rummoli-fields")
    for hand in simulated()[::2]:
        for kind in ("any", "sized"):
            if hand.actions:
                assert_same_deal(_mutated(hand, rng, kind))


def test_deals_match_on_the_sample_files() -> None:
    for name, data in load_seeds(per_file=40):
        for hand in loads_hands(data.decode("utf-8"), name=name):
            if hand.game is Game.RUMMOLI:
                assert_same_deal(hand)
