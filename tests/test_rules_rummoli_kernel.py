"""The laying kernel (:mod:`analytics.rules.rummoli_kernel`, through
``rummoli_lean._kernel_laying``) gives the Python laying's answers, for any input.

The worker's lean replay (``play_lean_fields``) plays the Rummoli phase by the kernel,
the library's (``play_lean``) in Python; tests/test_rules_rummoli_lean.py checks both
against the full engine on whole rounds.  Here the laying step itself: on the laying
phase of simulated rounds, as played and altered (cards, actors, lays swapped, dropped or
doubled, an impasse or a no-op added, unknown cards, plays of two cards, stacks at and
past int64, a negative stack), ``_kernel_laying`` returns what ``_python_laying`` returns
and leaves the hands, stacks, pots and awards as it does; and the kernel itself takes the
ordinary rounds (it does not just hand everything to the Python laying).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules import rummoli, rummoli_kernel, rummoli_lean
from analytics.rules.base import PotAward
from analytics.rules.rummoli_cards import RUMMOLI_POT
from analytics.simulate.rummoli import simulate_rummoli
from parsers.cards import DECK, UNKNOWN, Card
from parsers.model import ActionFields, HandHistory, Verb
from tests.test_rules_golden import _simulated

_Inputs = tuple[list[int], list[Verb], list[tuple[Card, ...]], int, int, list[int],
                list[int], list[int], list[PotAward]]
"""A laying step's arguments (actors, verbs, cards, index, opener, hands, stacks, board,
awards)."""


class _Captured(Exception):
    def __init__(self, inputs: _Inputs) -> None:
        super().__init__()
        self.inputs = inputs


def _capture(*args: Any) -> tuple[int, int | None]:
    raise _Captured(copy.deepcopy(args))


def _laying_inputs(hand: HandHistory) -> _Inputs | None:
    """The arguments the lean replay passes to its laying step on ``hand``, or None when it
    does not get there (another shape, an end-of-game round)."""
    state = rummoli._lean_state(hand)
    if state is None:
        return None
    fields = ActionFields.of(hand.actions)
    try:
        rummoli_lean._play_columns(state, list(fields.actors), list(fields.verbs),
                                   list(fields.cards), fields.amounts, fields.targets,
                                   hand.actions.__getitem__, _capture)
    except _Captured as captured:
        return captured.inputs
    return None


@cache
def laying_inputs() -> tuple[_Inputs, ...]:
    """The laying steps of the golden tests' rounds and of other simulated ones."""
    hands = [*_simulated("rummoli"), *simulate_rummoli(120, 4, 21),
             *simulate_rummoli(60, 3, 22, variant="PRM"), *simulate_rummoli(60, 7, 23)]
    found = [_laying_inputs(hand) for hand in hands]
    return tuple(inputs for inputs in found if inputs is not None)


def _run(laying: rummoli_lean._Laying, inputs: _Inputs) -> tuple[object, ...]:
    """What ``laying`` returns on (a copy of) ``inputs``, and the lists it updates."""
    args = copy.deepcopy(inputs)
    answer = laying(*args)
    _, _, _, _, _, hands, stacks, board, awards = args
    return answer, hands, stacks, board, awards


def assert_same(inputs: _Inputs) -> None:
    python = _run(rummoli_lean._python_laying, inputs)
    kernel = _run(rummoli_lean._kernel_laying, inputs)
    if python[0][0] < 0:  # type: ignore[index]
        # Declined: the round goes to the full engine, whatever the lists hold.
        assert kernel[0] == python[0]
    else:
        assert kernel == python


def _taken(inputs: _Inputs) -> bool:
    """Whether the kernel itself takes the laying (not the Python laying it falls back to)."""
    taken: list[bool] = []
    kernel = rummoli_lean._kernel()

    class Spy:
        @staticmethod
        def lay_round(*args: Any) -> int:
            answer: int = kernel.lay_round(*args)
            taken.append(answer >= 0)
            return answer

    original = rummoli_lean._kernel
    rummoli_lean._kernel = lambda: Spy  # type: ignore[assignment]
    try:
        _run(rummoli_lean._kernel_laying, inputs)
    finally:
        rummoli_lean._kernel = original
    return taken == [True]


def test_the_kernel_gives_the_python_laying_on_simulated_rounds() -> None:
    inputs = laying_inputs()
    assert len(inputs) > 300
    for each in inputs:
        assert_same(each)
    taken = sum(_taken(each) for each in inputs)
    played = sum(rummoli_lean._python_laying(*copy.deepcopy(each))[0] >= 0 for each in inputs)
    assert taken == played  # every laying the Python laying plays, the kernel plays itself


def test_the_kernel_tables_have_the_kernels_layout() -> None:
    tables = rummoli_lean._KERNEL_TABLES
    assert tables.shape == (rummoli_kernel.TABLES_SIZE,)
    assert tables[rummoli_kernel.RUMMOLI_POT] == RUMMOLI_POT
    assert rummoli_lean._KERNEL_POT_NAMES[rummoli_kernel.PAYMENTS] == "payments"
    assert rummoli_lean._KERNEL_POT_NAMES[rummoli_kernel.IMPASSE] == "impasse"


def _replaced(inputs: _Inputs, at: int, *, actor: int | None = None,
              cards: tuple[Card, ...] | None = None) -> _Inputs:
    """``inputs`` with action ``at`` of the laying given another actor or other cards."""
    actors, all_cards = list(inputs[0]), list(inputs[2])
    if actor is not None:
        actors[at] = actor
    if cards is not None:
        all_cards[at] = cards
    return (actors, list(inputs[1]), all_cards, *inputs[3:])


def _spliced(inputs: _Inputs, at: int, remove: int,
             added: Sequence[tuple[int, Verb, tuple[Card, ...]]]) -> _Inputs:
    """``inputs`` with ``remove`` actions from ``at`` replaced by ``added``."""
    actors, verbs, cards = list(inputs[0]), list(inputs[1]), list(inputs[2])
    actors[at:at + remove] = [actor for actor, _, _ in added]
    verbs[at:at + remove] = [verb for _, verb, _ in added]
    cards[at:at + remove] = [laid for _, _, laid in added]
    return (actors, verbs, cards, *inputs[3:])


_ALTERATIONS = ("card", "actor", "swap", "drop", "double", "impasse", "noop", "unknown",
                "two cards", "stack", "huge stack", "negative stack", "actor 300", "cut",
                "pots", "empty opener")


def _altered(inputs: _Inputs, kind: str, spot: int, value: int) -> _Inputs:
    start = inputs[3]
    length = len(inputs[1])
    if length == start and kind not in ("stack", "huge stack", "negative stack", "pots",
                                        "empty opener"):
        kind = "impasse"
    at = start + spot % max(length - start, 1)
    card = DECK[value % 52]
    n = len(inputs[5])
    if kind == "card":
        return _replaced(inputs, at, cards=(card,))
    if kind == "actor":
        return _replaced(inputs, at, actor=1 + value % (n + 1))
    if kind == "swap" and at + 1 < length:
        first, second = _replaced(inputs, at, cards=inputs[2][at + 1]), inputs[2][at]
        return _replaced(first, at + 1, cards=second)
    if kind == "drop":
        return _spliced(inputs, at, 1, [])
    if kind == "double":
        return _spliced(inputs, at, 0, [(inputs[0][at], inputs[1][at], inputs[2][at])])
    if kind == "impasse":
        return _spliced(inputs, at, value % 2, [(0, Verb.IMPASSE, ())])
    if kind == "noop":
        return _spliced(inputs, at, 0, [(0, Verb.NOOP, ())])
    if kind == "unknown":
        return _replaced(inputs, at, cards=(UNKNOWN,))
    if kind == "two cards":
        return _replaced(inputs, at, cards=(*inputs[2][at], card))
    if kind == "actor 300":
        return _replaced(inputs, at, actor=300)
    if kind == "cut":
        return _spliced(inputs, at, length - at, [])
    altered = copy.deepcopy(inputs)
    stacks, board, hands = altered[6], altered[7], altered[5]
    seat = value % n
    if kind == "stack":
        stacks[seat] = value % 3
    elif kind == "huge stack":
        stacks[seat] = (1 << 63) + value
    elif kind == "negative stack":
        stacks[seat] = -1 - value % 5
    elif kind == "pots":
        board[value % len(board)] = value
    elif kind == "empty opener":
        hands[altered[4]] = 0
    return altered


@settings(max_examples=300, deadline=None, derandomize=True)
@given(number=st.integers(0, 1 << 20),
       alterations=st.lists(st.tuples(st.sampled_from(_ALTERATIONS), st.integers(0, 1 << 10),
                                      st.integers(0, 1 << 10)), min_size=1, max_size=3))
def test_the_kernel_gives_the_python_laying_on_altered_layings(
        number: int, alterations: list[tuple[str, int, int]]) -> None:
    inputs = laying_inputs()
    altered = inputs[number % len(inputs)]
    for kind, spot, value in alterations:
        altered = _altered(altered, kind, spot, value)
    assert_same(altered)


@pytest.mark.slow
def test_the_kernel_gives_the_python_laying_on_every_lay_changed() -> None:
    """Each lay of a few rounds replaced by every other card: the first illegal lay, or a
    legal one that changes the rest of the round."""
    for inputs in laying_inputs()[:6]:
        start = inputs[3]
        for at in range(start, len(inputs[1]), 5):
            for card in DECK:
                assert_same(_replaced(inputs, at, cards=(card,)))


def test_the_holders_found_from_the_hands_are_the_states() -> None:
    """``_holders`` of the hands the laying starts with is the full state's ``_holder``,
    which it keeps card by card through the deal and the widow (the lean replay's
    LeanState keeps none); and the lean replay's deal and widow leave the state's hands,
    widow and exchanger as the full state's."""
    hands = [*_simulated("rummoli"), *simulate_rummoli(80, 4, 31),
             *simulate_rummoli(40, 6, 32, variant="FRM")]
    compared = 0
    for hand in hands:
        state = rummoli.state_from_hand(hand)
        lean = rummoli._lean_state(hand)
        if lean is None:
            continue
        fields = ActionFields.of(hand.actions)
        start = rummoli_lean._play_widow(lean, list(fields.verbs), list(fields.targets),
                                         list(fields.cards), hand.actions.__getitem__)
        try:
            for action in hand.actions:
                if state.phase >= rummoli.Phase.BETTING:  # the hands are the laying's now
                    break
                state.apply(action)
        except Exception:  # an illegal round: the full engine's error, nothing to compare
            continue
        assert state._holder == rummoli_lean._holders(state.hands)[:52]
        assert rummoli_lean._holders(state.hands)[52:] == [-1] * 4
        if start >= 0:
            assert (lean.hands, lean.widow, lean.exchanged) == (
                state.hands, state.widow, state.exchanged)
            compared += 1
    assert compared > 200
