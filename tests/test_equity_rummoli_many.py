"""Rummoli strengths of many rounds in one kernel call equal the round-by-round ones.

The ingest gathers a batch's rounds (:func:`rummoli_round_deal`) and computes
their strengths with one call of the round kernel
(:func:`rummoli_round_strengths_many`); :func:`rummoli_round_strengths` is the
reference, round by round.  The numbers must be the same, bit for bit, and so
must the ``rummoli_strength`` rows the warehouse builds either way.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from analytics.equity.rummoli import (
    RummoliRoundStrength,
    rummoli_round_deal,
    rummoli_round_strengths,
    rummoli_round_strengths_many,
)
from analytics.evaluator import EvaluationError
from analytics.rules import replay
from analytics.simulate.rummoli import simulate_rummoli
from analytics.warehouse.pipeline.equities import (
    RUMMOLI_INGEST_SAMPLES,
    PendingRows,
    add_equity_rows,
    add_pending_rows,
)
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS
from parsers import HandHistory
from parsers.cards import UNKNOWN
from parsers.model import Action, Verb

_FIELDS = ("p_best", "share", "p_win", "std_error", "share_std_error", "exact", "deals")


def _rounds() -> list[HandHistory]:
    """Rounds of 2 to 6 players, with widow exchanges and auctions, end-of-game rounds,
    short stacks; and 2-player rounds where the dealer takes the widow (he then knows
    every card: the exact enumeration)."""
    hands: list[HandHistory] = []
    for players, seed in ((2, 1), (3, 2), (4, 3), (6, 4), (5, 5)):
        hands += simulate_rummoli(24, players, seed, starting_stack=40)
    for hand in simulate_rummoli(6, 2, 9, starting_stack=40):
        deals = [a for a in hand.actions if a.verb in (Verb.DEAL_HOLE, Verb.DEAL_WIDOW)]
        taken = Action(hand.dealer or 1, Verb.EXCHANGE)
        hands.append(dataclasses.replace(
            hand, actions=(*deals, taken, *hand.actions[len(deals):])))
    return hands


def _same(a: float | bool | int, b: float | bool | int) -> bool:
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("samples", [2, 64, RUMMOLI_INGEST_SAMPLES])
def test_many_rounds_in_one_call_equal_round_by_round(samples: int) -> None:
    hands = _rounds()
    deals = [rummoli_round_deal(hand) for hand in hands]
    seeds = [1_000 * number + 7 for number in range(len(hands))]
    kept = [(hand, deal, seed) for hand, deal, seed in zip(hands, deals, seeds, strict=True)
            if deal is not None]
    assert len(kept) == len(hands)
    columns = rummoli_round_strengths_many([deal for _, deal, _ in kept],
                                           [seed for _, _, seed in kept], samples=samples)
    expected: list[RummoliRoundStrength] = []
    for hand, _, seed in kept:
        expected += rummoli_round_strengths(hand, samples=samples, seed=seed)
    assert len(columns.p_best) == len(expected)
    assert any(entry.strength.exact for entry in expected)  # the exact path is covered
    assert any(not entry.strength.exact for entry in expected)
    for number, entry in enumerate(expected):
        assert columns.hand_size[number] == entry.hand_size
        assert columns.category[number] == entry.category
        assert columns.realised_share[number] == entry.realised_share
        for name in _FIELDS:
            got = getattr(columns, "deals" if name == "deals" else name)[number]
            assert _same(got, getattr(entry.strength, name)), (number, name)
            assert type(got) is type(getattr(entry.strength, name))


def test_no_rounds_and_unknown_cards() -> None:
    empty = rummoli_round_strengths_many([], [])
    assert empty.p_best == [] and empty.realised_share == []
    hand = _rounds()[0]
    first = hand.actions[0]
    assert first.cards
    unknown = dataclasses.replace(first, cards=(UNKNOWN, *first.cards[1:]))
    # As rummoli_round_strengths gives [] for them: no deal to compute.
    for changed in (dataclasses.replace(hand, actions=(unknown, *hand.actions[1:])),
                    dataclasses.replace(hand, actions=hand.actions[1:])):
        assert rummoli_round_deal(changed) is None
        assert rummoli_round_strengths(changed) == []


def test_too_many_samples_for_a_batch_is_refused() -> None:
    deal = rummoli_round_deal(_rounds()[0])
    assert deal is not None
    with pytest.raises(EvaluationError):
        rummoli_round_strengths_many([deal], [0], samples=5_000)


def _columns() -> dict[str, dict[str, list[object]]]:
    return {"rummoli_strength": {name: [] for name in ARROW_SCHEMAS["rummoli_strength"].names}}


def test_pending_rows_equal_the_rows_added_round_by_round() -> None:
    hands = _rounds()
    hands = [hand for hand in hands if not any(a.verb is Verb.EXCHANGE for a in hand.actions)
             or hand.num_players > 2]
    outcomes = [replay(hand) for hand in hands]
    direct, batched = _columns(), _columns()
    pending = PendingRows()
    for key, (hand, outcome) in enumerate(zip(hands, outcomes, strict=True), start=1 << 40):
        add_equity_rows(direct, key, hand, outcome)
        add_equity_rows(batched, key, hand, outcome, pending=pending)
    assert pending.rummoli
    add_pending_rows(batched, pending)
    assert not pending.rummoli
    rows, other = direct["rummoli_strength"], batched["rummoli_strength"]
    assert rows["hand_id"]
    for name, values in rows.items():
        assert len(other[name]) == len(values), name
        for a, b in itertools.zip_longest(values, other[name]):
            assert type(a) is type(b) and a == b, name
