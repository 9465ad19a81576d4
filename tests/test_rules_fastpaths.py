"""The replay's shortcuts agree with the general code they stand in for.

* :func:`analytics.rules.pots.settle` settles the usual one-pot hand without
  :func:`build_pots` / :func:`award_pots`; the result (pots, refunds, awards,
  won, nets, and the errors) must be what the general path gives.
* Rummoli's showdown scores hands with
  :func:`analytics.evaluator.poker_value_of_mask`, which must give
  :func:`analytics.evaluator.poker_rank`'s value for every hand size.

The whole-replay reference is tests/test_rules_golden.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.evaluator import (
    EvaluationError,
    PokerCategory,
    poker_category_of,
    poker_rank,
    poker_value_of_mask,
)
from analytics.rules.pots import Settlement, award_pots, build_pots, settle
from parsers.cards import DECK

SETTLE = settings(max_examples=500, deadline=None, derandomize=True)


def general_settle(contributions: Sequence[int], in_hand: Sequence[bool],
                   strengths: Sequence[int | None], odd_chip_order: Sequence[int],
                   dead: int) -> Settlement | str:
    """The three documented steps, one after the other (or the error they raise)."""
    try:
        layout = build_pots(contributions, in_hand, dead)
        awards = award_pots(layout.pots, strengths, odd_chip_order)
    except ValueError as error:
        return f"{type(error).__name__}: {error}"
    won = [0] * len(contributions)
    for award in awards:
        won[award.player - 1] += award.amount
    nets = tuple(w + r - c for w, r, c in zip(won, layout.refunds, contributions, strict=True))
    return Settlement(layout.pots, layout.refunds, awards, tuple(won), nets)


def settled(contributions: Sequence[int], in_hand: Sequence[bool],
            strengths: Sequence[int | None], odd_chip_order: Sequence[int],
            dead: int) -> Settlement | str:
    try:
        return settle(contributions, in_hand, strengths, odd_chip_order, dead)
    except ValueError as error:
        return f"{type(error).__name__}: {error}"


@st.composite
def hands_to_settle(draw: st.DrawFn) -> tuple[list[int], list[bool], list[int | None],
                                              list[int], int]:
    count = draw(st.integers(1, 7))
    # Few distinct amounts, so that equal contributions (one pot) are common.
    contributions = draw(st.lists(st.sampled_from([0, 1, 2, 5, 10, 10, 20]), min_size=count,
                                  max_size=count))
    in_hand = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    strengths = draw(st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=count,
                              max_size=count))
    order = draw(st.permutations(range(count)))
    order = order[:draw(st.integers(max(0, count - 1), count))]
    dead = draw(st.sampled_from([0, 0, 3, 9]))
    return contributions, in_hand, strengths, list(order), dead


@SETTLE
@given(case=hands_to_settle())
def test_settle_matches_the_general_path(
        case: tuple[list[int], list[bool], list[int | None], list[int], int]) -> None:
    assert settled(*case) == general_settle(*case)


@pytest.mark.parametrize("case", [
    ([10, 10, 4, 2], [True, True, False, False], [5, 7, None, None], [0, 1, 2, 3], 0),
    ([10, 10, 10], [True, True, True], [7, 7, 7], [2, 0, 1], 1),  # three-way split, odd chips
    ([30, 10, 10], [True, True, False], [1, 2, None], [0, 1, 2], 0),  # uncalled chips
    ([10, 10], [True, True], [None, None], [0, 1], 0),  # nobody contests: the error
    ([10, 10], [False, False], [None, None], [0, 1], 0),  # nobody in: the error
    ([10, 5, 10], [True, True, True], [3, 9, 2], [0, 1, 2], 0),  # a side pot
])
def test_settle_matches_the_general_path_on_examples(
        case: tuple[list[int], list[bool], list[int | None], list[int], int]) -> None:
    assert settled(*case) == general_settle(*case)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(codes=st.lists(st.integers(0, 51), min_size=5, max_size=26, unique=True))
def test_poker_value_of_mask_is_poker_rank_value(codes: list[int]) -> None:
    mask = sum(1 << code for code in codes)
    assert poker_value_of_mask(mask) == poker_rank([DECK[code] for code in codes]).value


@pytest.mark.parametrize("mask", [0, 0b1111, (1 << 27) - 1, 1 << 52 | 0b11111, -1])
def test_poker_value_of_mask_rejects_bad_masks(mask: int) -> None:
    with pytest.raises(EvaluationError):
        poker_value_of_mask(mask)


def test_poker_category_of_an_int_is_the_array_answer() -> None:
    values = np.arange(1, 7463)
    categories = poker_category_of(values)
    assert [poker_category_of(int(v)) for v in values] == [PokerCategory(int(c))
                                                           for c in categories]
