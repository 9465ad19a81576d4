"""Rummoli poker strength: exact enumeration against brute force, Monte Carlo against exact."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from analytics.equity import (
    kernels,
    rummoli_default_sizes,
    rummoli_round_strengths,
    rummoli_strength,
)
from analytics.evaluator import EvaluationError, poker_rank
from analytics.evaluator.lookup_tables import table_array
from analytics.rules import replay
from analytics.simulate.rummoli import simulate_rummoli
from parsers.cards import DECK, Card


def brute_force(hero: list[Card], pool: list[Card], sizes: list[int]) -> tuple[float, float, int]:
    """(share, p_best, deals) over every split of ``pool`` into opponents of ``sizes``."""
    value = poker_rank(hero).value
    share = best = 0.0
    deals = 0

    def deal(index: int, left: list[Card], values: list[int]) -> None:
        nonlocal share, best, deals
        if index == len(sizes):
            deals += 1
            if max(values) <= value:
                best += 1
                share += 1 / (1 + values.count(value))
            return
        for cards in combinations(left, sizes[index]):
            rest = [c for c in left if c not in cards]
            deal(index + 1, rest, [*values, poker_rank(cards).value])

    deal(0, pool, [])
    return share / deals, best / deals, deals


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_kernel_matches_brute_force_on_a_small_pool(seed: int) -> None:
    # Two opponents of five cards from eleven unseen cards, one left over for the widow.
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    hero, pool = deck[:7], deck[7:18]
    share, best, deals = brute_force(hero, pool, [5, 5])
    out = np.zeros(3)
    owner = np.repeat(np.arange(2, dtype=np.int64), [5, 5])
    codes = np.array([c.code for c in pool], dtype=np.int64)
    count = kernels.rummoli_exact(np.array([5, 5], dtype=np.int64), codes,
                                   poker_rank(hero).value, table_array(), out)
    assert count == deals
    assert out[0] / count == pytest.approx(share, abs=1e-12)
    assert (out[1] + out[2]) / count == pytest.approx(best, abs=1e-12)
    estimate = np.zeros((kernels.CHUNKS, 4))
    kernels.rummoli_monte_carlo(owner, codes, 2, poker_rank(hero).value, table_array(),
                                 50_000, seed, estimate)
    sums = estimate.sum(axis=0)
    p = (sums[2] + sums[3]) / 50_000
    assert abs(p - best) < 4 * max(np.sqrt(p * (1 - p) / 50_000), 1e-9)


def test_exchanger_with_two_players_knows_everything() -> None:
    # After exchanging with the widow the dealer knows the widow: the one opponent's hand
    # is the rest of the deck, so the strength is exactly 0 or 1.
    rng = random.Random(4)
    deck = list(DECK)
    rng.shuffle(deck)
    mine, widow, his = deck[:17], deck[17:35], deck[35:]
    result = rummoli_strength(mine, 2, opponent_sizes=[17], widow_size=18, widow=widow)
    assert result.exact and result.deals == 1
    expected = float(poker_rank(mine).value >= poker_rank(his).value)
    assert result.p_best == expected


@pytest.mark.slow
def test_monte_carlo_agrees_with_exact_enumeration() -> None:
    # Three players, the hero exchanged: 26 unseen cards split 13/13 (10.4 million deals).
    rng = random.Random(9)
    deck = list(DECK)
    rng.shuffle(deck)
    mine, widow = deck[:13], deck[13:26]
    exact = rummoli_strength(mine, 3, widow=widow, budget=20_000_000)
    estimate = rummoli_strength(mine, 3, widow=widow, method="monte_carlo", samples=100_000,
                                seed=1)
    assert exact.exact and exact.deals == 10_400_600
    assert not estimate.exact and estimate.std_error > 0
    assert abs(estimate.p_best - exact.p_best) < 4 * estimate.std_error
    assert abs(estimate.share - exact.share) < 4 * estimate.share_std_error
    assert exact.p_win <= exact.share <= exact.p_best


def test_strength_orders_hands_sensibly() -> None:
    monster = rummoli_strength("AsKsQsJsTs2c3d4h5c6d7h", 4, samples=5_000)
    weak = rummoli_strength("2c3d4h5s7c8d9hJsQc2d3h", 4, samples=5_000)
    # A royal flush is never beaten, but another suit's royal flush would tie it.
    assert monster.p_best == 1.0 and 0.99 < monster.p_win < 1.0
    assert weak.p_best < 0.05


def test_default_sizes_follow_the_deal() -> None:
    assert rummoli_default_sizes(13, 3) == ((13, 13), 13)
    assert rummoli_default_sizes(11, 4) == ((11, 10, 10), 10)
    assert rummoli_default_sizes(10, 4) == ((11, 11, 10), 10)
    assert rummoli_default_sizes(18, 2) == ((17,), 17)
    with pytest.raises(EvaluationError, match="hold"):
        rummoli_default_sizes(12, 4)


def test_bad_input_is_rejected() -> None:
    with pytest.raises(EvaluationError):
        rummoli_strength("AsKs", 4)
    with pytest.raises(EvaluationError, match="52"):
        rummoli_strength("2c3d4h5s7c8d9hJsQc2d3h", 4, opponent_sizes=[11, 11, 11], widow_size=5)
    with pytest.raises(EvaluationError, match="twice"):
        rummoli_strength("2c3d4h5s7c8d9hJsQc2d3h", 4, widow="2c")


def test_round_strengths_follow_the_exchange() -> None:
    rounds = list(simulate_rummoli(6, 4, 3))
    for hand in rounds:
        outcome = replay(hand)
        rows = rummoli_round_strengths(hand, outcome, samples=2_000)
        dealt = {a.target for a in hand.actions if a.target is not None}
        assert [row.seat for row in rows] == sorted(dealt)  # a broke player sits out
        assert sum(row.hand_size for row in rows) < 52
        assert sum(row.realised_share for row in rows) == pytest.approx(1.0)
        assert all(0.0 <= row.strength.p_best <= 1.0 for row in rows)
        assert sum(bool(row.won_poker_pot) for row in rows) >= 1


def test_round_strengths_equal_direct_calls_and_serial_kernel_equals_parallel() -> None:
    from analytics.equity import kernels

    for hand in list(simulate_rummoli(6, 4, 4)):
        rows = rummoli_round_strengths(hand, replay(hand), samples=300, seed=17)
        sizes = {row.seat: row.hand_size for row in rows}
        exchanged = {a.actor for a in hand.actions if a.verb.value in ("xw", "aw")}
        for number, row in enumerate(rows):
            if row.seat in exchanged:
                continue  # the exchanger's widow cards are checked by the test above
            direct = rummoli_strength(
                row.cards, len(rows), opponent_sizes=[n for s, n in sizes.items() if s != row.seat],
                widow_size=52 - sum(sizes.values()), samples=300, seed=17 + number)
            assert row.strength == direct
    owner = np.repeat(np.arange(2, dtype=np.int64), [13, 13])
    pool = np.arange(13, 52, dtype=np.int64)
    a, b = np.zeros((kernels.CHUNKS, 4)), np.zeros((kernels.CHUNKS, 4))
    kernels.rummoli_monte_carlo(owner, pool, 2, 5000, table_array(), 999, 5, a)
    kernels.rummoli_monte_carlo_serial(owner, pool, 2, 5000, table_array(), 999, 5, b)
    assert (a == b).all()
