"""Standard poker: the best five-card high hand out of 5 to 26 cards.

Every hand gets a dense value 1..7462 (higher is better, equal exactly when the
hands tie): the 7,462 classes of five-card poker hands in order, high card
``7-5-4-3-2`` = 1 up to the royal flush = 7462.  :func:`poker_rank` returns it
wrapped in a :class:`PokerRank` with the category and the best five cards;
:func:`poker_rank_batch` returns the bare values for a whole array of hands
(compiled with numba, parallel over rows).  Both call the same core
(:func:`analytics.evaluator.lookup_tables.rank_from_masks`), so they agree exactly.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final, overload

import numpy as np
import numpy.typing as npt

from analytics.evaluator import lookup_tables
from analytics.evaluator._common import (
    EvaluationError,
    NamedCategory,
    as_code_matrix,
    as_known_cards,
)
from parsers.cards import Card, Rank, Suit

__all__ = [
    "POKER_MAX_CARDS",
    "POKER_MIN_CARDS",
    "POKER_RANK_COUNT",
    "PokerCategory",
    "PokerRank",
    "card_combinations",
    "poker_category_of",
    "poker_rank",
    "poker_rank_batch",
    "poker_value_of_mask",
]

POKER_MIN_CARDS: Final = 5
POKER_MAX_CARDS: Final = 26
POKER_RANK_COUNT: Final = lookup_tables.MAX_RANK
"""Number of distinct five-card hand values (7,462); values run 1..7462."""


class PokerCategory(NamedCategory):
    """Poker hand categories, ordered low to high."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8



    @property
    def lowest_value(self) -> int:
        """The smallest dense value in this category."""
        return lookup_tables.CATEGORY_BASES[self]

    @property
    def highest_value(self) -> int:
        """The largest dense value in this category."""
        if self is PokerCategory.STRAIGHT_FLUSH:
            return lookup_tables.MAX_RANK
        return lookup_tables.CATEGORY_BASES[self + 1] - 1


_BASES: Final = np.array(lookup_tables.CATEGORY_BASES, dtype=np.int32)
_CATEGORY_OF: Final = tuple(PokerCategory)


@dataclass(frozen=True, slots=True, order=True)
class PokerRank:
    """The value of a poker hand: compares (and hashes) by :attr:`value` only.

    Two ranks are equal exactly when the hands tie, whatever the suits or the
    unused cards.
    """

    value: int
    """Dense value 1..7462, higher is better."""
    best_five: tuple[Card, ...] = field(compare=False)
    """The five cards that make the hand, most significant first (the wheel ends with the ace)."""

    @property
    def category(self) -> PokerCategory:
        """The hand's category."""
        return PokerCategory(int(np.searchsorted(_BASES, self.value, side="right")) - 1)

    def __str__(self) -> str:
        cards = " ".join(str(card) for card in self.best_five)
        return f"{self.category.text} (rank {self.value} of {POKER_RANK_COUNT}): {cards}"


def poker_rank(cards: Iterable[Card] | str) -> PokerRank:
    """The best five-card high hand out of 5 to 26 distinct known cards.

    ``cards`` is an iterable of :class:`~parsers.cards.Card` or a card string
    such as ``"AsKsQsJsTs9h2c"``.  Raises :class:`EvaluationError` (a
    ``ValueError``) for fewer than 5 or more than 26 cards, unknown or repeated
    cards.
    """
    hand = as_known_cards(cards, POKER_MIN_CARDS, POKER_MAX_CARDS, "poker")
    sm = 0
    for card in hand:
        code = card.code
        sm |= 1 << ((code & 3) * 16 + (code >> 2))
    # The plain-Python core: the very code the batch kernel compiles.
    value = int(_rank_core()(sm, lookup_tables.table_list()))
    return PokerRank(value, _best_five(hand, value))


@cache
def _rank_core() -> Callable[[int, list[int]], int]:
    """The plain-Python ranking core, imported on first use (the kernels module imports
    numba) and remembered: an import statement in the function costs more per showdown
    than the ranking itself."""
    from analytics.evaluator.kernels import rank_from_suit_masks

    core: Callable[[int, list[int]], int] = rank_from_suit_masks
    return core


def _spread_byte(byte: int, low_rank: int) -> int:
    """Suit-mask bits of the cards in one byte of a code mask (two ranks, four suits each)."""
    bits = 0
    for offset in range(8):
        if byte >> offset & 1:
            code = 8 * low_rank // 2 + offset
            bits |= 1 << ((code & 3) * 16 + (code >> 2) - low_rank)
    return bits


_SPREAD: Final = tuple(_spread_byte(byte, 0) for byte in range(256))
"""Byte ``b`` of a code mask (ranks ``2j`` and ``2j + 1``) as suit-mask bits, shifted by ``2j``."""
_FULL_MASK: Final = (1 << 52) - 1


def poker_value_of_mask(mask: int) -> int:
    """:func:`poker_rank`'s dense value (1..7462) of the cards whose codes are set in ``mask``.

    ``mask`` has bit ``code`` set for each card (``4 * rank + suit``), so a hand
    has no repeated or unknown card by construction.  The value alone, without
    the best five cards or card objects: the rules engines' showdowns need no
    more, and it costs a small fraction of :func:`poker_rank`.  Raises
    :class:`EvaluationError` for fewer than 5 or more than 26 cards.
    """
    count = mask.bit_count()
    if not POKER_MIN_CARDS <= count <= POKER_MAX_CARDS or mask & ~_FULL_MASK or mask < 0:
        raise EvaluationError(f"a poker hand has {POKER_MIN_CARDS} to {POKER_MAX_CARDS} cards"
                              f" (bits 0..51 of a code mask), not mask {mask:#x}")
    spread = _SPREAD
    sm = (spread[mask & 255] | spread[mask >> 8 & 255] << 2 | spread[mask >> 16 & 255] << 4
          | spread[mask >> 24 & 255] << 6 | spread[mask >> 32 & 255] << 8
          | spread[mask >> 40 & 255] << 10 | spread[mask >> 48 & 255] << 12)
    return int(_rank_core()(sm, lookup_tables.table_list()))


def _best_five(hand: tuple[Card, ...], value: int) -> tuple[Card, ...]:
    """The five cards behind ``value``, most significant first."""
    category = PokerCategory(int(np.searchsorted(_BASES, value, side="right")) - 1)
    by_rank: dict[int, list[Card]] = {}
    for card in sorted(hand, key=lambda c: c.code, reverse=True):  # higher suit code first
        assert card.rank is not None
        by_rank.setdefault(int(card.rank), []).append(card)

    if category in (PokerCategory.STRAIGHT_FLUSH, PokerCategory.FLUSH):
        table = lookup_tables.table_list()
        for suit in sorted(Suit, reverse=True):
            suited = [c for c in hand if c.suit is suit]
            mask = sum(1 << int(c.rank) for c in suited if c.rank is not None)
            if table[lookup_tables.FLUSHR + mask] == value:
                by_rank = {int(c.rank): [c] for c in suited if c.rank is not None}
                break
        if category is PokerCategory.FLUSH:
            return tuple(by_rank[r][0] for r in sorted(by_rank, reverse=True)[:5])
    if category in (PokerCategory.STRAIGHT_FLUSH, PokerCategory.STRAIGHT):
        base = lookup_tables.STRAIGHT_FLUSH_BASE if category is PokerCategory.STRAIGHT_FLUSH else (
            lookup_tables.STRAIGHT_BASE
        )
        high = value - base + 3  # rank of the top card: 3 (the five, a wheel) .. 12 (ace)
        ranks = [3, 2, 1, 0, int(Rank.ACE)] if high == 3 else [high - i for i in range(5)]
        return tuple(by_rank[int(r)][0] for r in ranks)

    # Grouped categories: take ranks by (copies wanted, rank), highest first.
    counts = {r: len(cs) for r, cs in by_rank.items()}
    shape = {
        PokerCategory.FOUR_OF_A_KIND: (4, 1),
        PokerCategory.FULL_HOUSE: (3, 2),
        PokerCategory.THREE_OF_A_KIND: (3, 1, 1),
        PokerCategory.TWO_PAIR: (2, 2, 1),
        PokerCategory.PAIR: (2, 1, 1, 1),
        PokerCategory.HIGH_CARD: (1, 1, 1, 1, 1),
    }[category]
    chosen: list[Card] = []
    used: set[int] = set()
    for need in shape:
        rank = max(r for r in counts if r not in used and counts[r] >= need)
        used.add(rank)
        chosen.extend(by_rank[rank][:need])
    return tuple(chosen)


@overload
def poker_category_of(value: int | np.integer[Any]) -> PokerCategory: ...
@overload
def poker_category_of(value: npt.ArrayLike) -> npt.NDArray[np.int8]: ...
def poker_category_of(value: int | npt.ArrayLike) -> PokerCategory | npt.NDArray[np.int8]:
    """The category of a dense value (an int gives a :class:`PokerCategory`).

    An array of values gives an int8 array of category numbers (compare with
    ``PokerCategory.FLUSH`` etc., or index ``list(PokerCategory)``).
    """
    if isinstance(value, int | np.integer):
        number = int(value)
        if not 1 <= number <= POKER_RANK_COUNT:
            raise EvaluationError(f"poker rank {number} is out of range 1..{POKER_RANK_COUNT}")
        # bisect on the plain list: the same answer as searchsorted, without numpy's overhead
        return _CATEGORY_OF[bisect_right(lookup_tables.CATEGORY_BASES, number) - 1]
    values = np.asarray(value)
    return (np.searchsorted(_BASES, values, side="right") - 1).astype(np.int8)


def poker_rank_batch(codes: npt.ArrayLike, *, parallel: bool = True
                     ) -> npt.NDArray[np.int32]:
    """Dense values (1..7462, higher better) of many hands at once.

    ``codes`` is an integer array of shape (n, k), card codes ``4 * rank + suit``
    (0..51), with one fixed k from 5 to 26 per call.  The result orders hands
    exactly as :func:`poker_rank` does (``poker_rank(h).value`` for each row).
    Rows are not checked for repeated cards (for speed); a row with a repeated
    card gets an unspecified value.  int8 input is the fastest (least memory).
    ``parallel=False`` evaluates on the calling thread, never starting numba's thread
    pool (see :func:`analytics.evaluator.kernels.poker_rank_rows`).
    """
    from analytics.evaluator import kernels  # numba is imported on first batch use

    array = as_code_matrix(codes, range(POKER_MIN_CARDS, POKER_MAX_CARDS + 1), "poker")
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return kernels.poker_rank_rows(array, parallel=parallel)


def card_combinations(k: int, deck_size: int = 52) -> npt.NDArray[np.int8]:
    """Every k-card subset of the first ``deck_size`` card codes, lexicographic, as int8 rows.

    ``card_combinations(5)`` is all 2,598,960 five-card hands (13 MB).
    """
    from analytics.evaluator import kernels

    if not 0 <= k <= deck_size <= 52:
        raise EvaluationError(f"cannot choose {k} cards out of {deck_size}")
    return kernels.combinations(deck_size, k)
