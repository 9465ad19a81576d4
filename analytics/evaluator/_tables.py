"""Lookup tables and the pure-Python core of the standard poker evaluator.

The evaluator gives every five-card hand class a *dense* value 1..7462 (higher
is better, equal exactly when hands tie), laid out by category:

=================  ===========  =====
category           values       count
=================  ===========  =====
high card          1..1277      1277
pair               1278..4137   2860
two pair           4138..4995    858
three of a kind    4996..5853    858
straight           5854..5863     10
flush              5864..7140   1277
full house         7141..7296    156
four of a kind     7297..7452    156
straight flush     7453..7462     10
=================  ===========  =====

A hand of any size is summarised by bit masks over the 13 ranks: ``c1`` (ranks
held at least once), ``c2``, ``c3``, ``c4`` (at least twice, three, four times)
and four 13-bit suit masks packed 16 bits apart in one integer ``sm``.
``_kernels.rank_from_suit_masks`` turns these into the dense value using one flat
table ``T`` of 8192-entry sub-tables.  The same function (in ``_kernels.py``) runs as
plain Python for the scalar API and compiled by numba for batches, so scalar and
batch results cannot drift apart.

Within a category, ordering two sets of ranks of the same size is the same as
comparing their bit masks as integers, and the index of a k-subset among all
k-subsets in that order is its colex number sum(C(bit_i, i)).  Kickers are taken
from the ranks other than the pair/trips rank, so that rank's bit is squeezed
out of the mask first (``_squeeze``) to make the numbering dense.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

HIGH_CARD_BASE: Final = 1
PAIR_BASE: Final = 1278
TWO_PAIR_BASE: Final = 4138
TRIPS_BASE: Final = 4996
STRAIGHT_BASE: Final = 5854
FLUSH_BASE: Final = 5864
FULL_HOUSE_BASE: Final = 7141
QUADS_BASE: Final = 7297
STRAIGHT_FLUSH_BASE: Final = 7453
MAX_RANK: Final = 7462

CATEGORY_BASES: Final = (
    HIGH_CARD_BASE,
    PAIR_BASE,
    TWO_PAIR_BASE,
    TRIPS_BASE,
    STRAIGHT_BASE,
    FLUSH_BASE,
    FULL_HOUSE_BASE,
    QUADS_BASE,
    STRAIGHT_FLUSH_BASE,
)
"""First dense value of each category, indexed by category (high card = 0)."""

_SIZE: Final = 8192  # all 13-bit rank masks

# Offsets of the sub-tables inside the flat table T.
POP: Final = 0 * _SIZE  # number of set bits
HB: Final = 1 * _SIZE  # index of the highest set bit (-1 for 0)
STR: Final = 2 * _SIZE  # best straight in the mask: 0 (wheel) .. 9 (ace high), -1 if none
HIGHD: Final = 3 * _SIZE  # dense index 0..1276 of the top five ranks (no straight), -1 if < 5
FLUSHR: Final = 4 * _SIZE  # dense value of the best flush/straight flush in a suit mask, else 0
CT2: Final = 5 * _SIZE  # colex number of the top two bits
CT3: Final = 6 * _SIZE  # colex number of the top three bits
_N_TABLES: Final = 7


def _top_bits(mask: int, k: int) -> int:
    while mask.bit_count() > k:
        mask &= mask - 1  # drop the lowest set bit
    return mask


def _colex(mask: int) -> int:
    total = 0
    i = 1
    for bit in range(13):
        if mask >> bit & 1:
            total += comb(bit, i)
            i += 1
    return total


def _best_straight(mask: int) -> int:
    for high in range(12, 3, -1):
        run = 0b11111 << (high - 4)
        if mask & run == run:
            return high - 3
    wheel = (1 << 12) | 0b1111
    return 0 if mask & wheel == wheel else -1


def build_table() -> npt.NDArray[np.int16]:
    """Build the flat lookup table (7 x 8192 int16, 115 kB).

    int16 rather than int32 halves the table's cache footprint, which makes the
    batch kernel about twice as fast.
    """
    table = np.zeros(_N_TABLES * _SIZE, dtype=np.int16)
    five_sets = [m for m in range(_SIZE) if m.bit_count() == 5 and _best_straight(m) < 0]
    dense_high = {m: i for i, m in enumerate(sorted(five_sets))}
    assert len(dense_high) == 1277
    for mask in range(_SIZE):
        table[POP + mask] = mask.bit_count()
        table[HB + mask] = mask.bit_length() - 1
        straight = _best_straight(mask)
        table[STR + mask] = straight
        high = dense_high[_top_bits(mask, 5)] if mask.bit_count() >= 5 and straight < 0 else -1
        table[HIGHD + mask] = high
        if mask.bit_count() >= 5:
            table[FLUSHR + mask] = (
                STRAIGHT_FLUSH_BASE + straight if straight >= 0 else FLUSH_BASE + high
            )
        table[CT2 + mask] = _colex(_top_bits(mask, 2))
        table[CT3 + mask] = _colex(_top_bits(mask, 3))
    return table


@cache
def table_array() -> npt.NDArray[np.int16]:
    """The table, built once per process."""
    table = build_table()
    table.flags.writeable = False
    return table


@cache
def table_list() -> list[int]:
    """The table as a list of ints: indexing a list is much faster than an array from Python."""
    return [int(x) for x in table_array()]
