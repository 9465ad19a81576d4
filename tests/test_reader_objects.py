"""The objects the reader builds are ordinary ones, and the splitter's check for overlong
lines finds what measuring each line finds.

A read hand must be indistinguishable from what ``HandHistory``'s own constructor builds:
the exact type, equality and hashing, ``repr``, immutability, pickling and copying.  Its
actions are values shared among hands (one object per text), each one's line kept by its
hand.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory, dumps_hand, loads_hands, reader
from parsers.model import Action


def read_back(hands: list[HandHistory]) -> list[HandHistory]:
    text = "\n".join(f"[{number}]\n{dumps_hand(hand)}" for number, hand in enumerate(hands, 1))
    return loads_hands(text)


def simulated() -> list[HandHistory]:
    return [*simulate_seveneight(20, 4, 3), *simulate_bigtwo(5, 4, 3),
            *simulate_rummoli(5, 4, 3)]


def constructed(action: Action) -> Action:
    """The same action built by the class itself."""
    return Action(action.actor, action.verb, action.cards, action.amount, action.target,
                  action.pot, action.comment)


def test_read_actions_are_the_constructors_actions() -> None:
    hands = read_back(simulated())
    assert all(hand.ok for hand in hands)
    actions = [action for hand in hands for action in hand.actions]
    assert len(actions) > 200
    for action in actions:
        twin = constructed(action)
        assert type(action) is Action
        assert action == twin and hash(action) == hash(twin)
        assert repr(action) == repr(twin)
        assert dataclasses.astuple(action) == dataclasses.astuple(twin)
        assert action.notation() == twin.notation()


def test_read_actions_are_frozen_and_pickle() -> None:
    hand = read_back(simulated()[:1])[0]
    action = hand.actions[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.actor = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del action.verb
    for each in (action, constructed(action)):  # (TypeError in Python 3.11: its own bug)
        with pytest.raises((AttributeError, TypeError)) as raised:
            each.extra = 1  # type: ignore[attr-defined]
        assert not hasattr(each, "extra")
        if each is action:
            first = raised.type
        else:
            assert raised.type is first
    for twin in (pickle.loads(pickle.dumps(action)), copy.copy(action), copy.deepcopy(action)):
        assert type(twin) is Action and twin == action


def test_an_action_text_is_one_object_and_its_line_is_the_hands() -> None:
    hands = read_back(simulated())
    by_text: dict[str, Action] = {}
    repeats = 0
    for hand in hands:
        # [N], then the header: the actions array's lines follow its key line.
        text_lines = hand.raw.split("\n")
        assert len(hand.action_lines) == len(hand.actions)
        for number, action in enumerate(hand.actions):
            line = hand.action_line(number)
            assert line is not None
            assert text_lines[line - hand.line] == f'  "{action.notation()}",'
            key = f"{hand.variant} {hand.num_players} {action.notation()}"
            repeats += key in by_text
            assert by_text.setdefault(key, action) is action  # the same text, the same object
    assert repeats > 100
    assert hands[0].action_line(len(hands[0].actions)) is None
    replaced = dataclasses.replace(hands[0], actions=hands[0].actions[1:])
    assert replaced.action_line(0) is None  # lines no longer known: the hand's line instead


def test_read_hands_are_frozen_hash_and_pickle() -> None:
    for hand in read_back(simulated()):
        assert type(hand) is HandHistory
        with pytest.raises(dataclasses.FrozenInstanceError):
            hand.variant = "x"  # type: ignore[misc]
        twin = pickle.loads(pickle.dumps(hand))
        assert type(twin) is HandHistory and twin == hand and repr(twin) == repr(hand)
        assert twin.raw == hand.raw and twin.actions == hand.actions
        assert twin.action_lines == hand.action_lines


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=30), st.integers(1, 12))
def test_long_line_check_agrees_with_line_lengths(lengths: list[int], limit: int) -> None:
    text = "".join("x" * length + "\n" for length in lengths)
    expected = max(lengths, default=0) > limit
    original = reader.MAX_LINE_LENGTH
    try:
        reader.MAX_LINE_LENGTH = limit  # type: ignore[misc]
        assert reader._has_long_line(text) is expected
        assert reader._has_long_line(text.encode()) is expected
    finally:
        reader.MAX_LINE_LENGTH = original  # type: ignore[misc]
