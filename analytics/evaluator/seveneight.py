"""7 & 8 Poker hands (RULES.md section 3): the best two of two or three cards.

Two cards make one of 169 classes, numbered 1..169 low to high (the *two-card
value*).  A three-card hand is worth its best two cards and then the rank of
the third, unused card; the full value is ``two_card_value * 14 + third + 1``
with ``third`` the rank 0..12 of the unused card, and ``+0`` for a two-card hand
(so a two-card hand ranks just below any three-card hand with the same best two).

When two different pairs of the three cards make equally good two-card hands,
the pair that leaves the higher third card is used: the value is simply the
maximum over the three choices, which is what a careful player would declare.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any, Final, overload

import numpy as np
import numpy.typing as npt

from analytics.evaluator._common import (
    EvaluationError,
    NamedCategory,
    as_code_matrix,
    as_known_cards,
)
from parsers.cards import Card, Rank

__all__ = [
    "SEVENEIGHT_TWO_CARD_CLASSES",
    "SevenEightCategory",
    "SevenEightRank",
    "seveneight_best_two",
    "seveneight_category_of",
    "seveneight_rank",
    "seveneight_rank_batch",
    "seveneight_two_card_value",
]

SEVENEIGHT_TWO_CARD_CLASSES: Final = 169
"""Number of distinct two-card hands (values 1..169)."""

_THIRD_SPAN: Final = 14  # third card: 0 = none, 1..13 = rank 2..A


class SevenEightCategory(NamedCategory):
    """7 & 8 categories, ordered low to high."""

    HIGH_CARD = 0
    FLUSH = 1
    STRAIGHT = 2
    PAIR = 3
    FIFTEEN = 4
    STRAIGHT_FLUSH = 5
    FIFTEEN_FLUSH = 6
    SEVEN_EIGHT = 7
    SEVEN_EIGHT_FLUSH = 8


    @property
    def text(self) -> str:
        """Words for people: ``fifteen flush``, ``seven-eight``."""
        return self.name.lower().replace("seven_eight", "seven-eight").replace("_", " ")


def _fifteen_value(rank: int) -> int:
    # Face value for fifteens: 2..10 count their pips, J Q K count 10, the ace 1.
    if rank == Rank.ACE:
        return 1
    return min(rank + 2, 10)


def _classify(r1: int, s1: int, r2: int, s2: int) -> tuple[SevenEightCategory, tuple[int, ...]]:
    """Category and tie-break of two cards (ranks 0..12, suits 0..3)."""
    high, low = max(r1, r2), min(r1, r2)
    suited = s1 == s2
    if (high, low) == (Rank.EIGHT, Rank.SEVEN):  # 7-8 is never a fifteen or a straight
        kind = SevenEightCategory.SEVEN_EIGHT_FLUSH if suited else SevenEightCategory.SEVEN_EIGHT
        return kind, ()
    if high == low:
        return SevenEightCategory.PAIR, (high,)
    if _fifteen_value(high) + _fifteen_value(low) == 15:
        kind = SevenEightCategory.FIFTEEN_FLUSH if suited else SevenEightCategory.FIFTEEN
        return kind, (high,)
    if high - low == 1 or (high, low) == (Rank.ACE, Rank.TWO):
        top = Rank.TWO if high == Rank.ACE and low == Rank.TWO else high  # A-2 counts 2: lowest
        kind = SevenEightCategory.STRAIGHT_FLUSH if suited else SevenEightCategory.STRAIGHT
        return kind, (top,)
    kind = SevenEightCategory.FLUSH if suited else SevenEightCategory.HIGH_CARD
    return kind, (high, low)


@cache
def _two_card_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]]:
    """(value of every ordered code pair as a 52x52 array, category of each value 0..169)."""
    keys = {
        (a, b): _classify(a >> 2, a & 3, b >> 2, b & 3)
        for a in range(52)
        for b in range(52)
        if a != b
    }
    ordered = sorted(set(keys.values()))
    assert len(ordered) == SEVENEIGHT_TWO_CARD_CLASSES
    dense = {key: i + 1 for i, key in enumerate(ordered)}
    values = np.zeros((52, 52), dtype=np.int32)
    for (a, b), key in keys.items():
        values[a, b] = dense[key]
    categories = np.zeros(SEVENEIGHT_TWO_CARD_CLASSES + 1, dtype=np.int8)
    for key, value in dense.items():
        categories[value] = key[0]
    return values, categories


def seveneight_two_card_value(first: Card, second: Card) -> int:
    """The two-card value 1..169 of two distinct known cards (higher is better)."""
    hand = as_known_cards((first, second), 2, 2, "7 & 8 two-card")
    return int(_two_card_tables()[0][hand[0].code, hand[1].code])


@dataclass(frozen=True, slots=True, order=True)
class SevenEightRank:
    """The value of a 7 & 8 hand: compares and hashes by :attr:`value` only."""

    value: int
    """``two_card_value * 14 + third``: third is 0 without a third card, else its rank + 1."""
    best_two: tuple[Card, Card] = field(compare=False)
    """The two cards that make the hand, higher rank first."""
    third: Card | None = field(compare=False)
    """The unused card (the last tie-break), or None for a two-card hand."""

    @property
    def category(self) -> SevenEightCategory:
        """The category of the best two cards."""
        return SevenEightCategory(int(_two_card_tables()[1][self.value // _THIRD_SPAN]))

    @property
    def two_card_value(self) -> int:
        """The value 1..169 of the best two cards alone."""
        return self.value // _THIRD_SPAN

    def __str__(self) -> str:
        text = f"{self.category.text} (rank {self.two_card_value} of 169): "
        text += " ".join(str(card) for card in self.best_two)
        if self.third is not None:
            text += f", third card {self.third}"
        return text


def seveneight_best_two(cards: Iterable[Card] | str) -> tuple[tuple[Card, Card], Card | None]:
    """Which two cards make the hand, and the third (unused) card or None."""
    rank = seveneight_rank(cards)
    return rank.best_two, rank.third


def seveneight_rank(cards: Iterable[Card] | str) -> SevenEightRank:
    """The value of a 7 & 8 hand of 2 or 3 distinct known cards.

    Raises :class:`EvaluationError` (a ``ValueError``) for other card counts,
    unknown or repeated cards.
    """
    hand = as_known_cards(cards, 2, 3, "7 & 8")
    values = _two_card_tables()[0]
    if len(hand) == 2:
        return SevenEightRank(
            int(values[hand[0].code, hand[1].code]) * _THIRD_SPAN, _by_rank(hand[0], hand[1]), None
        )
    best: SevenEightRank | None = None
    for pair in combinations(range(3), 2):
        a, b = hand[pair[0]], hand[pair[1]]
        third = hand[3 - pair[0] - pair[1]]
        assert third.rank is not None
        value = int(values[a.code, b.code]) * _THIRD_SPAN + int(third.rank) + 1
        if best is None or value > best.value:
            best = SevenEightRank(value, _by_rank(a, b), third)
    assert best is not None
    return best


def _by_rank(a: Card, b: Card) -> tuple[Card, Card]:
    return (a, b) if a.code > b.code else (b, a)


def seveneight_rank_batch(codes: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Values of many 7 & 8 hands: an (n, 2) or (n, 3) array of card codes -> n values.

    Equal to ``seveneight_rank(row).value`` for every row (repeated cards in a
    row are not checked).
    """
    array = as_code_matrix(codes, (2, 3), "7 & 8").astype(np.intp, copy=False)
    values = _two_card_tables()[0]
    if array.shape[1] == 2:
        pairs: npt.NDArray[np.int32] = values[array[:, 0], array[:, 1]] * np.int32(_THIRD_SPAN)
        return pairs
    a, b, c = array[:, 0], array[:, 1], array[:, 2]
    span = np.int32(_THIRD_SPAN)
    ab = values[a, b] * span + (c >> 2).astype(np.int32) + 1
    ac = values[a, c] * span + (b >> 2).astype(np.int32) + 1
    bc = values[b, c] * span + (a >> 2).astype(np.int32) + 1
    best: npt.NDArray[np.int32] = np.maximum(np.maximum(ab, ac), bc).astype(np.int32)
    return best


@overload
def seveneight_category_of(value: int | np.integer[Any]) -> SevenEightCategory: ...
@overload
def seveneight_category_of(value: npt.ArrayLike) -> npt.NDArray[np.int8]: ...
def seveneight_category_of(
    value: int | npt.ArrayLike,
) -> SevenEightCategory | npt.NDArray[np.int8]:
    """The category of a 7 & 8 value (an int gives a :class:`SevenEightCategory`)."""
    categories = _two_card_tables()[1]
    if isinstance(value, int | np.integer):
        two = int(value) // _THIRD_SPAN
        if not 1 <= two <= SEVENEIGHT_TWO_CARD_CLASSES:
            raise EvaluationError(f"{value} is not a 7 & 8 hand value")
        return SevenEightCategory(int(categories[two]))
    result: npt.NDArray[np.int8] = categories[np.asarray(value) // _THIRD_SPAN]
    return result

