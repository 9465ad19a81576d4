"""The evaluator's lookup table, built with whole-array operations, against its definitions
computed one mask at a time (the way the table was built before: plain Python per mask)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from analytics.evaluator import lookup_tables
from analytics.evaluator.lookup_tables import (
    CT2,
    CT3,
    FLUSH_BASE,
    FLUSHR,
    HB,
    HIGHD,
    POP,
    STR,
    STRAIGHT_FLUSH_BASE,
    build_table,
    table_array,
)


def _top_bits(mask: int, k: int) -> int:
    while mask.bit_count() > k:
        mask &= mask - 1
    return mask


def _colex(mask: int) -> int:
    set_bits = [bit for bit in range(13) if mask >> bit & 1]
    return sum(comb(bit, i) for i, bit in enumerate(set_bits, start=1))


def _best_straight(mask: int) -> int:
    for high in range(12, 3, -1):
        run = 0b11111 << (high - 4)
        if mask & run == run:
            return high - 3
    wheel = (1 << 12) | 0b1111
    return 0 if mask & wheel == wheel else -1


def _reference() -> dict[int, list[int]]:
    """Each sub-table's 8192 entries, by its offset, as the docstrings define them."""
    plain_fives = sorted(m for m in range(8192)
                         if m.bit_count() == 5 and _best_straight(m) < 0)
    dense = {m: i for i, m in enumerate(plain_fives)}
    tables: dict[int, list[int]] = {offset: [] for offset in (POP, HB, STR, HIGHD, FLUSHR,
                                                               CT2, CT3)}
    for mask in range(8192):
        count, straight = mask.bit_count(), _best_straight(mask)
        high = dense[_top_bits(mask, 5)] if count >= 5 and straight < 0 else -1
        flush = 0
        if count >= 5:
            flush = STRAIGHT_FLUSH_BASE + straight if straight >= 0 else FLUSH_BASE + high
        tables[POP].append(count)
        tables[HB].append(mask.bit_length() - 1)
        tables[STR].append(straight)
        tables[HIGHD].append(high)
        tables[FLUSHR].append(flush)
        tables[CT2].append(_colex(_top_bits(mask, 2)))
        tables[CT3].append(_colex(_top_bits(mask, 3)))
    return tables


@pytest.fixture(scope="module")
def reference() -> dict[int, list[int]]:
    return _reference()


@pytest.mark.parametrize("offset", [POP, HB, STR, HIGHD, FLUSHR, CT2, CT3],
                         ids=["pop", "highest", "straight", "high", "flush", "colex2", "colex3"])
def test_every_entry_matches_its_definition(reference: dict[int, list[int]],
                                            offset: int) -> None:
    table = build_table()
    assert table.dtype == np.int16
    assert table.shape == (7 * 8192,)
    assert table[offset:offset + 8192].tolist() == reference[offset]


def test_known_entries() -> None:
    table = table_array()
    royal = 0b11111 << 8  # T J Q K A
    wheel = (1 << 12) | 0b1111
    assert table[STR + royal] == 9 and table[STR + wheel] == 0
    assert table[FLUSHR + royal] == STRAIGHT_FLUSH_BASE + 9 == lookup_tables.MAX_RANK
    assert table[HB + 0] == -1 and table[POP + 8191] == 13
    seven_high = 0b101111  # 7 5 4 3 2: the lowest high-card class
    assert table[HIGHD + seven_high] == 0 and table[FLUSHR + seven_high] == FLUSH_BASE
    assert table[CT3 + 0b111] == 0 and table[CT3 + (0b111 << 10)] == comb(13, 3) - 1


def test_the_cached_table_is_read_only() -> None:
    table = table_array()
    assert table is table_array()
    with pytest.raises(ValueError, match="read-only"):
        table[0] = 1
