"""Big Two read as columns: ``bigtwo.replay_fields`` and ``bigtwo_game_deals(hand, fields)``.

The ingest worker reads a hand the reader's fast path takes without its
:class:`~parsers.model.Action` objects, as :class:`~parsers.model.ActionFields`
columns (:func:`parsers.reader.hand_and_fields`).  For Big Two these tests check
that replaying the columns gives exactly what ``replay`` gives for the hand with
its actions (the same Outcome, or an error with the same message, rule, line and
action), and that the dealt hands the features count are the same, on simulated
games, on games altered at one action and on deals out of their usual place.
"""

from __future__ import annotations

import dataclasses
import functools
import random

import pytest

from analytics.equity.bigtwo import bigtwo_game_deals
from analytics.evaluator import EvaluationError
from analytics.rules import bigtwo
from parsers import HandHistory
from parsers.caching import BoundedCache
from parsers.cards import UNKNOWN
from parsers.model import Action, ActionFields
from tests.test_rules_golden import _mutated, result, stated_figures_off
from tests.test_rules_lean import simulated


def _without_actions(hand: HandHistory) -> tuple[HandHistory, ActionFields]:
    """``hand`` as the reader's column form gives it: no actions, and their fields."""
    return dataclasses.replace(hand, actions=()), ActionFields.of(hand.actions)


def assert_same_replay(hand: HandHistory) -> None:
    """``replay_fields`` on the column form gives what ``replay`` gives on the hand."""
    bare, fields = _without_actions(hand)
    expected = result(bigtwo.replay, hand)
    assert result(functools.partial(bigtwo.replay_fields, fields=fields), bare) == expected


def deals(hand: HandHistory, fields: ActionFields | None = None) -> object:
    """The game's deals, or the evaluator's error."""
    try:
        return bigtwo_game_deals(hand, fields)
    except EvaluationError as error:
        return "error", str(error)


def assert_same_deals(hand: HandHistory) -> None:
    bare, fields = _without_actions(hand)
    assert deals(bare, fields) == deals(hand)


@pytest.mark.slow
def test_replay_fields_gives_the_outcome_of_replay() -> None:
    hands = simulated("bigtwo")
    taken = 0
    for hand in hands:
        bare, fields = _without_actions(hand)
        outcome = bigtwo.replay_fields(bare, fields)
        expected = bigtwo.replay(hand)
        assert outcome == expected
        assert outcome.extra == expected.extra
        assert_same_deals(hand)
        taken += bigtwo._replay_lean_fields(bare, fields) is not None
    # The columns are replayed by the lean replay, not handed to the full engine.
    assert taken >= 0.75 * len(hands), (taken, len(hands))


def test_replay_fields_matches_replay_on_altered_games() -> None:
    rng = random.Random("bigtwo-fields")
    for hand in simulated("bigtwo")[::2]:
        for kind in ("any", "sized"):
            altered = _mutated(hand, rng, kind)
            assert_same_replay(altered)
            assert_same_deals(altered)


def test_replay_fields_matches_replay_when_stated_figures_are_off() -> None:
    for hand in simulated("bigtwo")[::10]:
        for variant in stated_figures_off(hand):
            assert_same_replay(variant)


@pytest.mark.parametrize("shape", ["deal last", "deal split", "unknown card", "dealt twice",
                                   "no deals", "noop first"])
def test_odd_deals_match(shape: str) -> None:
    """Deals away from the front, split, unknown or repeated: the same outcome or error, and
    the same dealt hands or evaluator error."""
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
        assert_same_replay(variant)
        assert_same_deals(variant)


def test_play_masks_remembered_by_identity_change_nothing(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The lean replay remembers a play's mask by its cards tuple's identity: the same
    outcomes with the reader's shared tuples, with equal tuples made afresh for every
    action (every look-up a miss), and with the memo cleared at every play."""
    hands = simulated("bigtwo")[:60]
    shared = [bigtwo.replay_fields(*_without_actions(hand)) for hand in hands]
    for hand, expected in zip(hands, shared, strict=True):
        bare, fields = _without_actions(hand)
        fresh = dataclasses.replace(fields, cards=tuple((*group,) for group in fields.cards))
        assert all(new is not old for new, old in zip(fresh.cards, fields.cards, strict=True)
                   if old)
        assert bigtwo.replay_fields(bare, fresh) == expected
    monkeypatch.setattr(bigtwo, "_GROUP_MASKS", BoundedCache("tests.group_masks", 1))
    for hand, expected in zip(hands, shared, strict=True):
        assert bigtwo.replay_fields(*_without_actions(hand)) == expected
        assert len(bigtwo._GROUP_MASKS) <= 1
    assert shared == [bigtwo.replay(hand) for hand in hands]
