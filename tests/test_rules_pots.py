"""The pot settlement (:mod:`analytics.rules.pots`) against a plain reference of its steps.

``build_pots`` and ``award_pots`` build their objects with the fast constructors and
skip work that cannot change the result (the odd-chip ranking without a tie); the
reference below is the documented algorithm written the plain way (generators, the
dataclasses' own constructors, a sort of every winner list).  Every result (pots,
refunds, awards, won, nets, the objects' types) and every error must be the same.
tests/test_rules_fastpaths.py checks ``settle``'s one-pot shortcut against these steps.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules.base import PotAward
from analytics.rules.pots import (
    NoContenderError,
    Pot,
    PotLayout,
    Settlement,
    award_pots,
    build_pots,
    settle,
)

POTS = settings(max_examples=600, deadline=None, derandomize=True)


def reference_build(contributions: Sequence[int], in_hand: Sequence[bool], dead: int = 0, *,
                    main: str = "main", side: str = "side") -> PotLayout:
    """The layering as the module docstring describes it."""
    count = len(contributions)
    if len(in_hand) != count:
        raise ValueError("contributions and in_hand must have one entry per player")
    if not any(in_hand):
        raise ValueError("at least one player must still be in to build pots")
    paid = list(contributions)
    refunds = [0] * count
    top, first, second = 0, -1, -1
    for player, chips in enumerate(paid):
        if chips > first:
            top, first, second = player, chips, first
        elif chips > second:
            second = chips
    if first > second >= 0:
        refunds[top] = first - second
        paid[top] = second
    live_levels = {paid[i] for i in range(count) if in_hand[i]}
    if len(live_levels) == 1:  # one pot holds everything (negative chips too)
        eligible = tuple(i for i in range(count) if in_hand[i])
        return PotLayout((Pot(main, sum(paid) + dead, eligible),), tuple(refunds))
    levels = sorted(live_levels)
    pots: list[Pot] = []
    previous = 0
    for number, level in enumerate(levels):
        if number == len(levels) - 1:
            amount = sum(max(0, c - previous) for c in paid)
        else:
            amount = sum(max(0, min(c, level) - previous) for c in paid)
        if number == 0:
            amount += dead
        eligible = tuple(i for i in range(count) if in_hand[i] and paid[i] >= level)
        if amount > 0 or number == 0:
            pots.append(Pot(main if not pots else f"{side}{len(pots)}", amount, eligible))
        previous = level
    return PotLayout(tuple(pots), tuple(refunds))


def reference_award(pots: Sequence[Pot], strengths: Sequence[int | None],
                    odd_chip_order: Sequence[int]) -> tuple[PotAward, ...]:
    """Each pot to its best eligible hands, odd chips in ``odd_chip_order``."""
    rank_in_order = {player: position for position, player in enumerate(odd_chip_order)}
    awards: list[PotAward] = []
    for pot in pots:
        if pot.amount == 0:
            continue
        if len(pot.eligible) == 1:
            awards.append(PotAward(pot.name, pot.eligible[0] + 1, pot.amount))
            continue
        contenders = [p for p in pot.eligible if strengths[p] is not None]
        if not contenders:
            names = ", ".join(f"p{p + 1}" for p in pot.eligible)
            raise NoContenderError(f"nobody contests the {pot.name} pot of {pot.amount}"
                                   f" (eligible: {names}; all mucked)")
        best = max(strengths[p] or 0 for p in contenders)
        winners = sorted((p for p in contenders if strengths[p] == best),
                         key=lambda p: rank_in_order.get(p, len(rank_in_order) + p))
        share, odd = divmod(pot.amount, len(winners))
        for position, player in enumerate(winners):
            amount = share + (1 if position < odd else 0)
            if amount:
                awards.append(PotAward(pot.name, player + 1, amount))
    return tuple(awards)


def reference_settle(contributions: Sequence[int], in_hand: Sequence[bool],
                     strengths: Sequence[int | None], odd_chip_order: Sequence[int],
                     dead: int) -> Settlement:
    layout = reference_build(contributions, in_hand, dead, main="poker", side="poker_side")
    awards = reference_award(layout.pots, strengths, odd_chip_order)
    won = [0] * len(contributions)
    for award in awards:
        won[award.player - 1] += award.amount
    nets = tuple(w + r - c for w, r, c in zip(won, layout.refunds, contributions, strict=True))
    return Settlement(layout.pots, layout.refunds, awards, tuple(won), nets)


def outcome_of(work: object, *args: object, **kwargs: object) -> object:
    """What a call returns, or its error's type and message."""
    assert callable(work)
    try:
        return work(*args, **kwargs)
    except ValueError as error:
        return f"{type(error).__name__}: {error}"


def same(got: object, expected: object) -> None:
    """Equal, and the same objects: types and pickles (what travels to the writer)."""
    assert got == expected
    assert type(got) is type(expected)
    assert pickle.dumps(got) == pickle.dumps(expected)


@st.composite
def side_pot_hands(draw: st.DrawFn) -> tuple[list[int], list[bool], list[int | None],
                                             list[int], int]:
    count = draw(st.integers(1, 8))
    # Few distinct amounts (ties and shared levels are common), some all in below the
    # others (side pots), a negative one now and then (the general path takes it as is).
    contributions = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 5, 5, 10, 13, 26]),
                                  min_size=count, max_size=count))
    in_hand = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    strengths = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=count,
                              max_size=count))
    order = draw(st.permutations(range(count)))
    order = order[:draw(st.integers(max(0, count - 2), count))]
    dead = draw(st.sampled_from([0, 0, 1, 4, 9]))
    return contributions, in_hand, strengths, list(order), dead


@POTS
@given(case=side_pot_hands())
def test_build_and_award_pots_match_the_reference(
        case: tuple[list[int], list[bool], list[int | None], list[int], int]) -> None:
    contributions, in_hand, strengths, order, dead = case
    layout = outcome_of(build_pots, contributions, in_hand, dead, main="m", side="s")
    same(layout, outcome_of(reference_build, contributions, in_hand, dead, main="m", side="s"))
    if isinstance(layout, PotLayout):
        same(outcome_of(award_pots, layout.pots, strengths, order),
             outcome_of(reference_award, layout.pots, strengths, order))


@POTS
@given(case=side_pot_hands())
def test_settle_matches_the_reference(
        case: tuple[list[int], list[bool], list[int | None], list[int], int]) -> None:
    contributions, in_hand, strengths, order, dead = case
    same(outcome_of(settle, contributions, in_hand, strengths, order, dead, main="poker",
                    side="poker_side"),
         outcome_of(reference_settle, contributions, in_hand, strengths, order, dead))


@pytest.mark.parametrize("case", [
    # Rummoli's side pots as the simulated rounds make them (a player all in from the antes).
    ([13, 26, 5, 0], [False, True, False, True], [None, 5857, None, 7152], [3, 0, 1, 2], 4),
    ([10, 4, 10], [True, True, True], [7, 9, 7], [1, 2, 0], 9),  # side pot, split main
    ([10, 4, 10, 2], [True, True, True, True], [7, 7, 7, 7], [3, 2, 1, 0], 5),  # odd chips
    ([10, 4, 10], [True, True, True], [None, None, None], [0, 1, 2], 0),  # nobody contests
])
def test_settle_matches_the_reference_on_examples(
        case: tuple[list[int], list[bool], list[int | None], list[int], int]) -> None:
    same(outcome_of(settle, *case, main="poker", side="poker_side"),
         outcome_of(reference_settle, *case))
