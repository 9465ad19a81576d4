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
``kernels.rank_from_suit_masks`` turns these into the dense value using one flat
table ``T`` of 8192-entry sub-tables.  The same function (in ``kernels.py``) runs as
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


def build_table() -> npt.NDArray[np.int16]:
    """Build the flat lookup table (7 x 8192 int16, 115 kB).

    int16 rather than int32 halves the table's cache footprint, which makes the
    batch kernel about twice as fast.  Built with whole-array operations over all
    8192 masks at once (~2 ms; a loop over the masks in Python took ~0.12 s of every
    ingest's warm-up, before the workers start); ``tests/test_evaluator_tables.py``
    checks every entry against the definitions computed mask by mask.
    """
    masks = np.arange(_SIZE, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13)) & 1  # (mask, rank) -> 0/1
    count = bits.sum(axis=1)
    highest = np.where(count > 0, 12 - np.argmax(bits[:, ::-1], axis=1), -1)
    straight = _best_straights(masks)
    five = _top_bits(masks, count, 5)
    # The high-card classes, numbered in mask order: the five-rank masks without a straight.
    plain_fives = np.flatnonzero((count == 5) & (straight < 0))
    assert plain_fives.size == 1277
    dense = np.full(_SIZE, -1, dtype=np.int64)
    dense[plain_fives] = np.arange(plain_fives.size)
    high = np.where((count >= 5) & (straight < 0), dense[five], -1)
    flush = np.where(count < 5, 0, np.where(straight >= 0, STRAIGHT_FLUSH_BASE + straight,
                                            FLUSH_BASE + high))
    parts = (count, highest, straight, high, flush,
             _colex(_top_bits(masks, count, 2)), _colex(_top_bits(masks, count, 3)))
    return np.concatenate(parts).astype(np.int16)


def _top_bits(masks: npt.NDArray[np.int64], count: npt.NDArray[np.int64], k: int
              ) -> npt.NDArray[np.int64]:
    """Each mask with its lowest set bits dropped until at most ``k`` remain."""
    top = masks.copy()
    for _ in range(13 - k):
        drop = count > k
        top = np.where(drop, top & (top - 1), top)  # drops the lowest set bit
        count = count - drop
    return top


def _colex(masks: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The colex number of each mask: sum(C(bit_i, i)) over its set bits, i = 1, 2, ..."""
    total = np.zeros_like(masks)
    seen = np.zeros_like(masks)  # set bits below the current one
    binomials = np.array([[comb(bit, i) for i in range(14)] for bit in range(13)])
    for bit in range(13):
        held = (masks >> bit) & 1
        seen += held
        total += held * binomials[bit][seen]
    return total


def _best_straights(masks: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The best straight in each mask: 0 (the wheel, A-2-3-4-5) .. 9 (ace high), -1 if none."""
    wheel = (1 << 12) | 0b1111
    best = np.where(masks & wheel == wheel, 0, -1)
    for high in range(4, 13):  # ascending: a higher straight overrides a lower one
        run = 0b11111 << (high - 4)
        best = np.where(masks & run == run, high - 3, best)
    return best


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
