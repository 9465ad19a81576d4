"""Standard poker evaluator: exhaustive five-card checks, a naive reference, batch vs scalar."""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, pairwise
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.evaluator import (
    POKER_RANK_COUNT,
    EvaluationError,
    PokerCategory,
    PokerRank,
    card_combinations,
    poker_category_of,
    poker_rank,
    poker_rank_batch,
)
from parsers.cards import DECK, cards_from_codes, parse_cards

# --- a deliberately naive reference evaluator (five cards, then best of all 5-subsets) ---

RefKey = tuple[int, tuple[int, ...]]


def ref_five(codes: Sequence[int]) -> RefKey:
    """(category 0..8, tie-break ranks) of exactly five cards, written from the textbook rules."""
    ranks = sorted((c // 4 for c in codes), reverse=True)
    suits = {c % 4 for c in codes}
    counts = Counter(ranks)
    # Ranks ordered by (count, rank), most significant first.
    grouped = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len(suits) == 1
    straight_high = -1
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_high = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_high = 3  # the wheel is five-high
    if straight_high >= 0 and flush:
        return 8, (straight_high,)
    if shape == [4, 1]:
        return 7, tuple(grouped)
    if shape == [3, 2]:
        return 6, tuple(grouped)
    if flush:
        return 5, tuple(ranks)
    if straight_high >= 0:
        return 4, (straight_high,)
    if shape == [3, 1, 1]:
        return 3, tuple(grouped)
    if shape == [2, 2, 1]:
        return 2, tuple(grouped)
    if shape == [2, 1, 1, 1]:
        return 1, tuple(grouped)
    return 0, tuple(ranks)


def ref_best(codes: Sequence[int]) -> RefKey:
    return max(ref_five(five) for five in combinations(codes, 5))


@pytest.fixture(scope="module")
def all_five() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    hands = card_combinations(5)
    return hands, poker_rank_batch(hands)


@pytest.fixture(scope="module")
def key_of_value(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
) -> dict[int, RefKey]:
    """The reference key of one hand of each value."""
    hands, values = all_five
    distinct, first = np.unique(values, return_index=True)
    return {int(v): ref_five(hands[i].tolist()) for v, i in zip(distinct, first, strict=True)}


# --- exhaustive five-card checks ---


def test_five_card_enumeration_counts(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
) -> None:
    hands, values = all_five
    assert hands.shape == (2_598_960, 5)
    counts = np.bincount(poker_category_of(values), minlength=9)
    expected = {  # seed 000
        PokerCategory.STRAIGHT_FLUSH: 40,
        PokerCategory.FOUR_OF_A_KIND: 624,
        PokerCategory.FULL_HOUSE: 3_744,
        PokerCategory.FLUSH: 5_108,
        PokerCategory.STRAIGHT: 10_200,
        PokerCategory.THREE_OF_A_KIND: 54_912,
        PokerCategory.TWO_PAIR: 123_552,
        PokerCategory.PAIR: 1_098_240,
        PokerCategory.HIGH_CARD: 1_302_540,
    }
    assert {PokerCategory(i): int(n) for i, n in enumerate(counts)} == expected
    distinct = np.unique(values)
    assert len(distinct) == 7_462
    # Dense: the values are exactly 1..7462.
    assert np.array_equal(distinct, np.arange(1, POKER_RANK_COUNT + 1))


def test_values_order_the_7462_classes_like_the_reference(key_of_value: dict[int, RefKey]) -> None:
    keys = [key_of_value[v] for v in sorted(key_of_value)]
    assert all(a < b for a, b in pairwise(keys))
    for value, key in key_of_value.items():
        assert poker_category_of(value) == key[0]
        assert PokerCategory(key[0]).lowest_value <= value <= PokerCategory(key[0]).highest_value


def test_equal_values_are_equal_reference_hands(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
    key_of_value: dict[int, RefKey],
) -> None:
    hands, values = all_five
    rng = np.random.default_rng(5)
    for i in rng.choice(len(hands), size=20_000, replace=False):
        assert ref_five(hands[i].tolist()) == key_of_value[int(values[i])]


# --- more than five cards ---


@pytest.mark.parametrize("k", [6, 7, 8, 9])
def test_best_of_k_matches_naive_reference(k: int, key_of_value: dict[int, RefKey]) -> None:
    rng = random.Random(k)
    hands = np.array([rng.sample(range(52), k) for _ in range(400)], dtype=np.int8)
    values = poker_rank_batch(hands)
    for hand, value in zip(hands, values, strict=True):
        assert ref_best(hand.tolist()) == key_of_value[int(value)]


def test_batch_agrees_with_scalar_for_every_k() -> None:
    rng = np.random.default_rng(26)
    for k in range(5, 27):
        hands = np.argsort(rng.random((300, 52)), axis=1)[:, :k].astype(np.int8)
        values = poker_rank_batch(hands)
        for hand, value in zip(hands, values, strict=True):
            assert poker_rank(cards_from_codes(hand)).value == value


@settings(max_examples=200, deadline=None)
@given(
    st.integers(5, 26).flatmap(
        lambda k: st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)
    )
)
def test_batch_agrees_with_scalar_hypothesis(codes: list[int]) -> None:
    rank = poker_rank(cards_from_codes(codes))
    assert poker_rank_batch(np.array([codes])).tolist() == [rank.value]
    # The best five alone are worth the same, and come from the hand.
    assert set(rank.best_five) <= set(cards_from_codes(codes))
    assert len(rank.best_five) == 5
    assert poker_rank(rank.best_five).value == rank.value


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_batch_accepts_integer_dtypes_and_views(dtype: type[np.integer]) -> None:
    rng = np.random.default_rng(1)
    hands = np.argsort(rng.random((500, 52)), axis=1)[:, :14]
    expected = poker_rank_batch(hands)
    assert np.array_equal(poker_rank_batch(hands.astype(dtype)), expected)
    # A non-contiguous view (every other column of a wider array).
    wide = np.repeat(hands, 2, axis=1).astype(dtype)
    assert np.array_equal(poker_rank_batch(wide[:, ::2]), expected)


@pytest.mark.slow
def test_pokerkit_orders_seven_card_hands_the_same() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    rng = random.Random(7)
    hands = [rng.sample(DECK, 7) for _ in range(400)]
    ours = [poker_rank(hand).value for hand in hands]
    theirs = [
        pokerkit.StandardHighHand.from_game("".join(str(c) for c in hand)) for hand in hands
    ]
    order = sorted(range(len(hands)), key=ours.__getitem__)
    for a, b in pairwise(order):
        if ours[a] == ours[b]:
            assert not theirs[a] < theirs[b]
            assert not theirs[b] < theirs[a]
        else:
            assert theirs[a] < theirs[b]


# --- specific hands ---


@pytest.mark.parametrize(
    ("text", "category", "best"),
    [
        ("AsKsQsJsTs", PokerCategory.STRAIGHT_FLUSH, "AsKsQsJsTs"),
        ("5d4d3d2dAd9c", PokerCategory.STRAIGHT_FLUSH, "5d4d3d2dAd"),
        ("AsAhAdAcKsKh2c", PokerCategory.FOUR_OF_A_KIND, "AsAhAdAcKs"),
        ("KhKdKs2c2d2h", PokerCategory.FULL_HOUSE, "KsKhKd2h2d"),
        ("2h4h6h8hTh3c", PokerCategory.FLUSH, "Th8h6h4h2h"),
        ("As2d3c4h5s9d", PokerCategory.STRAIGHT, "5s4h3c2dAs"),
        ("7c7d7h2s9cJd", PokerCategory.THREE_OF_A_KIND, "7h7d7cJd9c"),
        ("QcQd5h5s3c3d2h", PokerCategory.TWO_PAIR, "QdQc5s5h3d"),
        ("AcAd9h7s4c", PokerCategory.PAIR, "AdAc9h7s4c"),
        ("2c3d4h5s7c", PokerCategory.HIGH_CARD, "7c5s4h3d2c"),
    ],
)
def test_known_hands(text: str, category: PokerCategory, best: str) -> None:
    rank = poker_rank(text)
    assert rank.category is category
    assert rank.best_five == parse_cards(best)


def test_known_values() -> None:
    assert poker_rank("2c3d4h5s7c").value == 1
    assert poker_rank("AsKsQsJsTs").value == POKER_RANK_COUNT
    assert poker_rank("AsAhAdAcKs").value == PokerCategory.FOUR_OF_A_KIND.highest_value
    assert poker_rank("As2d3c4h5s").value == PokerCategory.STRAIGHT.lowest_value
    assert poker_rank("AsKdQcJhTs").value == PokerCategory.STRAIGHT.highest_value
    assert str(poker_rank("AsKsQsJsTs")) == "straight flush (rank 7462 of 7462): As Ks Qs Js Ts"


def test_ordering_rules() -> None:
    # Unused cards never count; suits never count.
    assert poker_rank("AsAd KcQh9s 3c2d") == poker_rank("AhAc KdQs9d 4c3d")
    assert poker_rank("AsAd KcQh9s") > poker_rank("AhAc KdQs8d")
    assert poker_rank("JsJd2s2d4c") > poker_rank("TsTd9s9d8c")
    assert poker_rank("8s8d6s6d3c") > poker_rank("8h8c5s5dKc")
    # A second set of trips fills the full house; the higher trips lead.
    assert poker_rank("9s9d9c4h4s4d").best_five == parse_cards("9s9d9c4s4h")
    # With many cards, quads beat a flush and two flushes compare by the best one.
    assert poker_rank("2s4s6s8sTs 3c3d3h3s").category is PokerCategory.FOUR_OF_A_KIND
    assert poker_rank("2s4s6s8sTs 3h5h7h9hJh").best_five == parse_cards("Jh9h7h5h3h")
    assert isinstance(poker_rank(list(DECK[:26])), PokerRank)
    assert hash(poker_rank("AsAd KcQh9s")) == hash(poker_rank("AhAc KdQs9d"))


def test_category_of() -> None:
    values = np.array([1, 1277, 1278, 7452, 7453, 7462])
    assert poker_category_of(values).tolist() == [0, 0, 1, 7, 8, 8]
    assert poker_category_of(5863) is PokerCategory.STRAIGHT
    assert poker_category_of(np.int32(5864)) is PokerCategory.FLUSH
    assert PokerCategory.TWO_PAIR.label == "two_pair"
    assert [c.label for c in PokerCategory][-1] == "straight_flush"
    for bad in (0, 7463):
        with pytest.raises(EvaluationError):
            poker_category_of(bad)


# --- bad input ---


@pytest.mark.parametrize(
    "cards",
    ["AsKsQsJs", "AsAsKsQsJs", "AsKsQsJs??", list(DECK[:27]), "AsKsQsJsXx", [1, 2, 3, 4, 5]],
)
def test_scalar_rejects_bad_hands(cards: object) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        poker_rank(cards)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "codes",
    [
        np.zeros((3, 4), dtype=np.int8),
        np.zeros((3, 27), dtype=np.int8),
        np.arange(5),
        np.full((2, 5), 52),
        np.full((2, 5), -1),
        np.zeros((2, 5), dtype=np.float64),
    ],
)
def test_batch_rejects_bad_arrays(codes: npt.NDArray[np.generic]) -> None:
    with pytest.raises(EvaluationError):
        poker_rank_batch(codes)


def test_empty_batch() -> None:
    assert poker_rank_batch(np.zeros((0, 7), dtype=np.int8)).shape == (0,)


def test_card_combinations() -> None:
    combos = card_combinations(3, 6)
    assert combos.tolist() == [list(c) for c in combinations(range(6), 3)]
    assert card_combinations(0, 4).shape == (1, 0)
    with pytest.raises(EvaluationError):
        card_combinations(6, 5)


# --- the full seven-card enumeration (about 15 s on two cores) ---


def _load_enumerate_seven() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "enumerate_seven.py"
    spec = importlib.util.spec_from_file_location("enumerate_seven", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_seven_card_enumeration() -> None:
    module = _load_enumerate_seven()
    counts, distinct, total = module.check()
    assert counts == module.EXPECTED
    assert distinct == module.EXPECTED_DISTINCT
    assert total == module.EXPECTED_TOTAL

