"""7 & 8 Poker hands: the seed's two probability tables by exact enumeration, and the rules."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from analytics.evaluator import (
    EvaluationError,
    SevenEightCategory,
    card_combinations,
    seveneight_best_two,
    seveneight_category_of,
    seveneight_rank,
    seveneight_rank_batch,
    seveneight_two_card_value,
)
from parsers.cards import DECK, cards_from_codes, parse_cards

C = SevenEightCategory
# Seed 003's columns, highest category first.
SEED_COLUMNS = [
    C.SEVEN_EIGHT_FLUSH,
    C.SEVEN_EIGHT,
    C.FIFTEEN_FLUSH,
    C.STRAIGHT_FLUSH,
    C.FIFTEEN,
    C.PAIR,
    C.STRAIGHT,
    C.FLUSH,
    C.HIGH_CARD,
]

# Seed 003, "Opponent's hand from their visible card" (percent, as printed).
SEED_VISIBLE_TABLE = {
    "A": "0.3 0.9 1.6 11.1 4.5 15.8 25.6 25.1 15.1",
    "2/3": "0.3 0.9 1.6 11.2 4.7 15.8 26.6 24.3 14.6",
    "4": "0.3 0.9 1.6 10.9 3.8 15.8 22.8 27.5 16.5",
    "5": "0.3 0.9 16.5 10.1 34.8 10.1 13.4 8.6 5.2",
    "6": "0.3 0.9 5.4 10.4 12.9 14.4 19.3 22.7 13.6",
    "7/8": "4.2 11.1 1.6 6.8 4.5 15.1 16.7 25.1 15.1",
    "9": "0.3 0.9 5.4 10.6 13.6 14.4 22.1 20.4 12.2",
    "10": "0.3 0.9 5.2 10.8 10.1 14.4 21.9 22.7 13.6",
    "J/Q/K": "0.3 0.9 5.2 10.9 10.4 14.4 22.8 22 13.2",
}


def test_two_card_table_exact() -> None:
    hands = card_combinations(2)
    counts = np.bincount(seveneight_category_of(seveneight_rank_batch(hands)), minlength=9)
    got = {C(i): int(n) for i, n in enumerate(counts)}
    # Seed 003's first table as hand counts out of 1,326.
    assert got == {
        C.SEVEN_EIGHT_FLUSH: 4,
        C.SEVEN_EIGHT: 12,
        C.FIFTEEN_FLUSH: 20,
        C.STRAIGHT_FLUSH: 48,
        C.FIFTEEN: 60,
        C.PAIR: 78,
        C.STRAIGHT: 144,
        C.FLUSH: 240,
        C.HIGH_CARD: 720,
    }
    # ... and its printed percentages.
    percent = [round(100 * got[c] / 1326, 1) for c in SEED_COLUMNS]
    assert percent == [0.3, 0.9, 1.5, 3.6, 4.5, 5.9, 10.9, 18.1, 54.3]


def visible_card_distribution(visible: int) -> list[float]:
    """Percent of each category (seed column order) of the visible card + 2 of the other 51."""
    others = np.array([c for c in range(52) if c != visible], dtype=np.int8)
    unseen = others[card_combinations(2, 51)]  # the hidden card and the third card
    hands = np.column_stack([np.full(len(unseen), visible, dtype=np.int8), unseen])
    counts = np.bincount(seveneight_category_of(seveneight_rank_batch(hands)), minlength=9)
    return [100 * int(counts[c]) / len(hands) for c in SEED_COLUMNS]


@pytest.mark.parametrize("row", sorted(SEED_VISIBLE_TABLE))
def test_visible_card_table_exact(row: str) -> None:
    expected = [float(x) for x in SEED_VISIBLE_TABLE[row].split()]
    for symbol in row.split("/"):
        for suit in "cdhs":
            visible = parse_cards(("T" if symbol == "10" else symbol) + suit)[0].code
            distribution = visible_card_distribution(visible)
            assert pytest.approx(sum(distribution)) == 100
            assert [round(p, 1) for p in distribution] == expected


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("7h8h", C.SEVEN_EIGHT_FLUSH),
        ("8c7d", C.SEVEN_EIGHT),
        ("5hJh", C.FIFTEEN_FLUSH),
        ("6s9s", C.FIFTEEN_FLUSH),
        ("5cKd", C.FIFTEEN),
        ("Ah2h", C.STRAIGHT_FLUSH),
        ("KsAs", C.STRAIGHT_FLUSH),
        ("3c4d", C.STRAIGHT),
        ("9s9d", C.PAIR),
        ("As4s", C.FLUSH),
        ("7sAd", C.HIGH_CARD),
        ("Ac4d", C.HIGH_CARD),  # an ace counts 1 for fifteens: A-4 is not 15
        ("5dTd", C.FIFTEEN_FLUSH),
    ],
)
def test_categories(text: str, category: SevenEightCategory) -> None:
    assert seveneight_rank(text).category is category


def test_tie_breaks_between_two_cards() -> None:
    r = seveneight_rank
    assert r("Ah2d") < r("2c3d") < r("Kc Ad")  # A-2 counts 2: the lowest straight
    assert r("6c9d") < r("5cTd") < r("5cJd") < r("5cQd") < r("5cKd")  # 6-9 lowest, 5-K highest
    assert r("2c4d") < r("7sAd") < r("QcAd")  # high card: highest, then second
    assert r("Qh Ah") < r("2c 2d")  # any pair beats any flush
    assert r("7c8d") == r("8s7h")  # no tie-break in seven-eight
    assert r("AsAh") > r("KsKh")
    assert r("5cKd") < r("Ah2h")  # straight flush beats fifteen


def test_third_card_breaks_ties() -> None:
    r = seveneight_rank
    assert r("7c8d2s") < r("7h8s3c")
    assert r("7c8d2s") == r("7h8s2c")
    assert r("7c8dAs") > r("7c8d")  # a two-card hand ranks below any third card
    # The best two, not the highest cards: 5-K fifteen with a 4 beats A-K high with anything.
    best, third = seveneight_best_two("Kd4c5h")
    assert set(best) == set(parse_cards("Kd5h"))
    assert third == parse_cards("4c")[0]
    assert seveneight_rank("Kd4c5h").category is C.FIFTEEN


def test_three_card_value_is_the_best_pair_then_the_third_card() -> None:
    # Exhaustive over all 22,100 three-card hands: batch == scalar, and the value is
    # exactly (best two-card value, then rank of the card left over).
    hands = card_combinations(3)
    batch = seveneight_rank_batch(hands)
    for hand, value in zip(hands.tolist(), batch.tolist(), strict=True):
        cards = cards_from_codes(hand)
        rank = seveneight_rank(cards)
        assert rank.value == value
        options = []
        for i, j in combinations(range(3), 2):
            third = cards[3 - i - j]
            assert third.rank is not None
            options.append((seveneight_two_card_value(cards[i], cards[j]), int(third.rank)))
        best = max(options)
        assert rank.two_card_value == best[0]
        assert rank.third is not None
        assert rank.third.rank == best[1]
        assert seveneight_two_card_value(*rank.best_two) == best[0]


def test_two_card_batch_matches_scalar() -> None:
    hands = card_combinations(2)
    batch = seveneight_rank_batch(hands)
    assert [seveneight_rank(cards_from_codes(h)).value for h in hands.tolist()] == batch.tolist()
    assert len(set((batch // 14).tolist())) == 169


def test_category_of() -> None:
    value = seveneight_rank("7h8h2c").value
    assert seveneight_category_of(value) is C.SEVEN_EIGHT_FLUSH
    assert seveneight_category_of(np.array([value])).tolist() == [8]
    with pytest.raises(EvaluationError):
        seveneight_category_of(0)
    assert C.FIFTEEN_FLUSH.label == "fifteen_flush"
    assert str(seveneight_rank("7h8d2c")).startswith("seven-eight (rank 168 of 169)")


@pytest.mark.parametrize("cards", ["As", "AsKsQsJs", "AsAs", "As??", list(DECK[:4])])
def test_rejects_bad_hands(cards: object) -> None:
    with pytest.raises(EvaluationError):
        seveneight_rank(cards)  # type: ignore[arg-type]


def test_batch_rejects_bad_width() -> None:
    with pytest.raises(EvaluationError):
        seveneight_rank_batch(np.zeros((2, 4), dtype=np.int8))
    with pytest.raises(EvaluationError):
        seveneight_rank_batch(np.full((2, 2), 60))
