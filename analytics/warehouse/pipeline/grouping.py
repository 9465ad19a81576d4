"""Group-by over Arrow columns in numpy: what the fact and statistics rows are made with.

:mod:`~analytics.warehouse.pipeline.fact_rows` and
:mod:`~analytics.warehouse.pipeline.stat_summary` compute SQL's ``GROUP BY``, ``LEFT
JOIN``, ``arg_min`` and ``string_agg`` over a batch's rows without a database: rows are
keyed by (hand position, seat) in one int64 (:func:`seat_keys`), sorted, and each run of
equal keys is a group (:func:`runs_of`); a hand id is found by its position in the
batch's ``hands`` (:class:`HandIndex`).  NULLs follow DuckDB: an integer column's are
filled with a value the caller names, and :func:`valid_rows` says where they were.
"""

from __future__ import annotations

from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Bools", "HandIndex", "Ints", "as_nullable", "counts_where", "first_repeat",
           "first_where", "hand_of_key", "int_values", "joined_strings", "positions_in",
           "run_starts", "runs_of", "seat_keys", "seat_of_key", "single_chunk", "valid_rows",
           "values_at"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
T = TypeVar("T", bound=np.generic)

_I32: Final = pa.int32()
_SEAT_BITS: Final = 16  # a seat (SMALLINT) and its hand's index share one int64 key
_SEAT_OFFSET: Final = 1 << 15


def single_chunk(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The column as one array."""
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def int_values(column: pa.Array | pa.ChunkedArray, *, fill: int) -> Ints:
    """An integer column as int64, nulls as ``fill``."""
    array = single_chunk(column)
    filled = pc.fill_null(array, fill) if column.null_count else array
    return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.int64)


def valid_rows(column: pa.Array | pa.ChunkedArray) -> Bools:
    """Where the column is not NULL."""
    if not column.null_count:
        return np.ones(len(column), np.bool_)
    return np.asarray(pc.is_valid(single_chunk(column)).to_numpy(zero_copy_only=False),
                      dtype=np.bool_)


def seat_keys(hand_at: Ints, seat: Ints) -> Ints:
    """One int64 per (hand position, seat)."""
    return (hand_at << _SEAT_BITS) + (seat + _SEAT_OFFSET)


def hand_of_key(key: int) -> int:
    """The hand position of a (hand position, seat) key of :func:`seat_keys`."""
    return key >> _SEAT_BITS


def seat_of_key(key: int) -> int:
    """The seat of a (hand position, seat) key of :func:`seat_keys`."""
    return (key & ((1 << _SEAT_BITS) - 1)) - _SEAT_OFFSET


def run_starts(keys: Ints) -> Ints:
    """Where each run of equal values of sorted ``keys`` starts."""
    if len(keys) == 0:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))


def runs_of(keys: Ints) -> tuple[Ints, Ints]:
    """The runs of sorted ``keys``: where each starts, and each row's run number."""
    starts = run_starts(keys)
    sizes = np.diff(np.append(starts, len(keys)))
    return starts, np.repeat(np.arange(len(starts), dtype=np.int64), sizes)


def counts_where(group: Ints, mask: Bools, groups: int) -> Ints:
    """Rows per group where ``mask`` holds."""
    return np.bincount(group[mask], minlength=groups)


def first_where(group: Ints, mask: Bools, groups: int) -> Ints:
    """The first row of each group where ``mask`` holds, -1 where none does (rows are
    sorted by group)."""
    first = np.full(groups, -1, np.int64)
    rows = np.flatnonzero(mask)
    owners = group[rows]
    at = run_starts(owners)
    first[owners[at]] = rows[at]
    return first


def positions_in(sorted_keys: Ints, keys: Ints) -> Ints:
    """Position of each of ``keys`` in ``sorted_keys`` (unique), -1 where absent."""
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, np.int64)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == keys, at, -1)


def values_at(values: npt.NDArray[T], at: Ints, fill: int | bool) -> npt.NDArray[T]:
    """``values[at]``, ``fill`` where ``at`` is -1."""
    if not len(values):
        return np.full(len(at), fill, values.dtype)
    found: npt.NDArray[T] = np.where(at >= 0, values[np.maximum(at, 0)], fill)
    return found


def as_nullable(positions: Ints) -> pa.Array:
    """Positions with -1 as null."""
    return pa.array(positions, mask=positions < 0)


def _counts_offsets(group: Ints, mask: Bools, groups: int) -> tuple[Ints, pa.Array]:
    counts = np.bincount(group[mask], minlength=groups)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    return counts, pa.array(offsets, _I32)


def joined_strings(cards: pa.Array, group: Ints, mask: Bools, groups: int) -> pa.Array:
    """The ``mask`` rows' strings concatenated per group in row order; null for none."""
    counts, offsets = _counts_offsets(group, mask, groups)
    values = cards.filter(pa.array(mask))
    lists = pa.ListArray.from_arrays(offsets, values, mask=pa.array(counts == 0))
    return pc.binary_join(lists, "")


def first_repeat(sorted_keys: Ints) -> int:
    """The position of the first of two equal neighbours in sorted ``sorted_keys``, or -1
    (a sort's neighbours: no hash table)."""
    if len(sorted_keys) < 2:
        return -1
    equal = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    return int(equal[0]) if len(equal) else -1


class HandIndex:
    """Positions of hand ids in the batch's ``hands`` table."""

    __slots__ = ("_order", "_sorted")

    def __init__(self, ids: Ints) -> None:
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]

    def first_repeat(self) -> int:
        """The hand position of a hand id that is there twice, or -1."""
        at = first_repeat(self._sorted)
        return int(self._order[at]) if at >= 0 else -1

    def positions(self, column: pa.ChunkedArray | pa.Array) -> tuple[Ints, Bools]:
        """The hand position of each value of ``column`` and whether it is a batch hand.

        A table holds a hand's rows together, so the ids are looked up once per run of
        equal values, not once per row."""
        values = int_values(column, fill=0)
        if len(self._sorted) == 0 or len(values) == 0:
            return np.zeros(len(values), np.int64), np.zeros(len(values), np.bool_)
        starts = run_starts(values)
        runs = values[starts]
        at = np.minimum(np.searchsorted(self._sorted, runs), len(self._sorted) - 1)
        sizes = np.diff(np.append(starts, len(values)))
        found = np.repeat(self._sorted[at] == runs, sizes) & valid_rows(column)
        return np.repeat(np.asarray(self._order[at], dtype=np.int64), sizes), found
