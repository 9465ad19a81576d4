"""Exact theory tables against enumeration, the seeds' tables, and the goodness-of-fit test."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from analytics.equity import (
    bigtwo_twos_counts,
    goodness_of_fit,
    poker_category_counts,
    poker_category_probabilities,
    poker_counts,
    seveneight_three_card_counts,
    seveneight_two_card_counts,
    seveneight_visible_card_table,
)
from analytics.equity.theory import derive_poker_category_counts, poker_count_table_text
from analytics.evaluator import (
    PokerCategory,
    SevenEightCategory,
    card_combinations,
    poker_category_of,
    poker_rank_batch,
)

C = PokerCategory
S = SevenEightCategory

SEVEN = {C.STRAIGHT_FLUSH: 41_584, C.FOUR_OF_A_KIND: 224_848, C.FULL_HOUSE: 3_473_184,
         C.FLUSH: 4_047_644, C.STRAIGHT: 6_180_020, C.THREE_OF_A_KIND: 6_461_620,
         C.TWO_PAIR: 31_433_400, C.PAIR: 58_627_800, C.HIGH_CARD: 23_294_460}


def enumerated(k: int) -> dict[PokerCategory, int]:
    categories = poker_category_of(poker_rank_batch(card_combinations(k)))
    found = np.bincount(categories.astype(np.int64), minlength=9)
    return {category: int(found[category]) for category in PokerCategory}


def test_five_cards_match_full_enumeration_and_seed_000() -> None:
    counts = poker_category_counts(5)
    assert counts == enumerated(5)
    assert counts[C.STRAIGHT_FLUSH] == 40 and counts[C.HIGH_CARD] == 1_302_540


@pytest.mark.slow
def test_six_cards_match_full_enumeration() -> None:
    assert poker_category_counts(6) == enumerated(6)


def test_seven_cards_match_the_known_counts() -> None:
    assert poker_category_counts(7) == SEVEN


@pytest.mark.parametrize("k", range(5, 27))
def test_counts_sum_to_all_hands(k: int) -> None:
    counts = poker_category_counts(k)
    assert sum(counts.values()) == math.comb(52, k)
    assert all(count >= 0 for count in counts.values())
    if k >= 17:  # pigeonhole: five cards of one suit, so nothing below a flush
        assert all(counts[c] == 0 for c in C if c < C.FLUSH)


@pytest.mark.parametrize(("k", "seed"), [(10, 1), (13, 2), (18, 3), (26, 4)])
def test_large_hands_agree_with_sampling(k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    hands = np.argsort(rng.random((200_000, 52)), axis=1)[:, :k].astype(np.int8)
    categories = poker_category_of(poker_rank_batch(hands))
    observed = {c: int(np.count_nonzero(categories == c)) for c in C}
    fit = goodness_of_fit(observed, poker_category_probabilities(k))
    assert fit.p_value > 1e-4, fit


def test_seveneight_two_card_table_is_seed_003() -> None:
    counts = seveneight_two_card_counts()
    assert [counts[c] for c in reversed(S)] == [4, 12, 20, 48, 60, 78, 144, 240, 720]
    assert sum(seveneight_three_card_counts().values()) == 22_100


# Seed 003, "Opponent's hand from their visible card": 7-8 flush ... high card, in %.
SEED_VISIBLE = {
    "A": [0.3, 0.9, 1.6, 11.1, 4.5, 15.8, 25.6, 25.1, 15.1],
    "2/3": [0.3, 0.9, 1.6, 11.2, 4.7, 15.8, 26.6, 24.3, 14.6],
    "4": [0.3, 0.9, 1.6, 10.9, 3.8, 15.8, 22.8, 27.5, 16.5],
    "5": [0.3, 0.9, 16.5, 10.1, 34.8, 10.1, 13.4, 8.6, 5.2],
    "6": [0.3, 0.9, 5.4, 10.4, 12.9, 14.4, 19.3, 22.7, 13.6],
    "7/8": [4.2, 11.1, 1.6, 6.8, 4.5, 15.1, 16.7, 25.1, 15.1],
    "9": [0.3, 0.9, 5.4, 10.6, 13.6, 14.4, 22.1, 20.4, 12.2],
    "10": [0.3, 0.9, 5.2, 10.8, 10.1, 14.4, 21.9, 22.7, 13.6],
    "J/Q/K": [0.3, 0.9, 5.2, 10.9, 10.4, 14.4, 22.8, 22.0, 13.2],
}
ROWS = {"A": [12], "2/3": [0, 1], "4": [2], "5": [3], "6": [4], "7/8": [5, 6], "9": [7],
        "10": [8], "J/Q/K": [9, 10, 11]}
# The seed's columns: 7-8 flush, 7-8, 15 flush, straight flush, 15, pair, straight, flush, high.
COLUMNS = [S.SEVEN_EIGHT_FLUSH, S.SEVEN_EIGHT, S.FIFTEEN_FLUSH, S.STRAIGHT_FLUSH, S.FIFTEEN,
           S.PAIR, S.STRAIGHT, S.FLUSH, S.HIGH_CARD]


@pytest.mark.parametrize("row", list(SEED_VISIBLE))
def test_visible_card_table_rounds_to_seed_003(row: str) -> None:
    table = seveneight_visible_card_table()
    for rank in ROWS[row]:
        counts = table[rank]
        assert sum(counts.values()) == 1275
        printed = [round(100 * counts[c] / 1275, 1) for c in COLUMNS]
        assert printed == SEED_VISIBLE[row]


def test_four_twos_in_thirteen_cards_is_seed_002() -> None:
    counts = bigtwo_twos_counts(13)
    assert sum(counts.values()) == math.comb(52, 13)
    assert 100 * counts[4] / math.comb(52, 13) == pytest.approx(0.264106, abs=5e-7)


def test_goodness_of_fit_merges_sparse_bins_and_detects_bias() -> None:
    theory = poker_category_probabilities(5)
    fair = {c: round(200 * p) for c, p in theory.items()}
    fit = goodness_of_fit(fair, theory)
    assert fit.p_value > 0.5
    assert all(e >= 5 for e in fit.expected)
    # 200 hands expect 0.003 straight flushes: the rare top categories share one bin.
    top = next(b for b in fit.bins if "straight_flush" in b)
    assert {"four_of_a_kind", "full_house"} <= set(top)
    assert sum(fit.observed) == sum(fair.values())
    biased = dict(fair)
    biased[C.FLUSH] += 30
    assert goodness_of_fit(biased, theory).p_value < 1e-6


def test_goodness_of_fit_flags_impossible_categories() -> None:
    theory = poker_category_probabilities(20)
    observed = {C.FLUSH: 10, C.FULL_HOUSE: 200, C.FOUR_OF_A_KIND: 300, C.STRAIGHT_FLUSH: 400,
                C.PAIR: 1}
    fit = goodness_of_fit(observed, theory)
    assert fit.impossible == ("pair",) and fit.p_value == 0.0
    with pytest.raises(ValueError, match="sum"):
        goodness_of_fit({}, {C.PAIR: 0.5})


def test_shipped_poker_counts_are_what_the_derivation_gives() -> None:
    """poker_category_counts reads analytics/equity/poker_counts.py; its text is exactly
    what the derivation writes today (regenerate with theory.write_poker_count_table())."""
    shipped = Path(poker_counts.__file__).read_text(encoding="utf-8")
    assert poker_count_table_text() == shipped
    for k in range(5, 27):
        assert poker_category_counts(k) == derive_poker_category_counts(k)
