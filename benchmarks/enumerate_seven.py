"""Exhaustive check: all 133,784,560 seven-card hands through ``poker_rank_batch``.

Run: ``.venv/bin/python benchmarks/enumerate_seven.py``.  Prints the category
table and the number of distinct values, compares them with the known totals
and exits non-zero on any difference.  The hands are generated in chunks (one
per lowest card) so memory stays near 130 MB.
"""

from __future__ import annotations

import sys
import time
from typing import Final

import numpy as np
import numpy.typing as npt

from analytics.evaluator import (
    POKER_RANK_COUNT,
    PokerCategory,
    card_combinations,
    poker_category_of,
    poker_rank_batch,
)

EXPECTED: Final = {
    PokerCategory.STRAIGHT_FLUSH: 41_584,
    PokerCategory.FOUR_OF_A_KIND: 224_848,
    PokerCategory.FULL_HOUSE: 3_473_184,
    PokerCategory.FLUSH: 4_047_644,
    PokerCategory.STRAIGHT: 6_180_020,
    PokerCategory.THREE_OF_A_KIND: 6_461_620,
    PokerCategory.TWO_PAIR: 31_433_400,
    PokerCategory.PAIR: 58_627_800,
    PokerCategory.HIGH_CARD: 23_294_460,
}
EXPECTED_DISTINCT: Final = 4_824
EXPECTED_TOTAL: Final = 133_784_560


def value_histogram() -> npt.NDArray[np.int64]:
    """How many seven-card hands have each dense value (index 0 unused)."""
    histogram = np.zeros(POKER_RANK_COUNT + 1, dtype=np.int64)
    for low in range(52 - 6):
        # Every hand whose lowest card is `low`: `low` plus six of the cards above it.
        rest = card_combinations(6, 51 - low) + np.int8(low + 1)
        hands = np.empty((rest.shape[0], 7), dtype=np.int8)
        hands[:, 0] = low
        hands[:, 1:] = rest
        histogram += np.bincount(poker_rank_batch(hands), minlength=POKER_RANK_COUNT + 1)
    return histogram


def check() -> tuple[dict[PokerCategory, int], int, int]:
    """(hands per category, distinct values, total hands) of the full enumeration."""
    histogram = value_histogram()
    categories = poker_category_of(np.arange(1, POKER_RANK_COUNT + 1))
    counts = {
        category: int(histogram[1:][categories == category].sum()) for category in PokerCategory
    }
    return counts, int(np.count_nonzero(histogram)), int(histogram.sum())


def main() -> int:
    """Print the table; return 0 if it matches the known totals, else 1."""
    start = time.perf_counter()
    counts, distinct, total = check()
    elapsed = time.perf_counter() - start
    ok = True
    print(f"{'category':<16} {'hands':>12} {'expected':>12}")
    for category in sorted(PokerCategory, reverse=True):
        mark = "" if counts[category] == EXPECTED[category] else "  MISMATCH"
        ok &= not mark
        print(f"{category.label:<16} {counts[category]:>12,} {EXPECTED[category]:>12,}{mark}")
    print(f"{'total':<16} {total:>12,} {EXPECTED_TOTAL:>12,}")
    print(f"{'distinct ranks':<16} {distinct:>12,} {EXPECTED_DISTINCT:>12,}")
    ok &= total == EXPECTED_TOTAL and distinct == EXPECTED_DISTINCT
    print(f"{'OK' if ok else 'FAILED'} in {elapsed:.1f} s (including numba compilation)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
