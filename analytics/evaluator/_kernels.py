"""numba kernels for the batch evaluators.

Importing this module imports numba (about half a second) but compiles nothing:
every kernel is compiled on its first call, for the integer dtype it is given,
and the machine code is cached on disk when numba can find a writable cache
directory (``NUMBA_CACHE_DIR`` or ``__pycache__``), so later processes skip the
compilation.  The package imports this module lazily, from the batch functions.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar

import numba
import numpy as np
import numpy.typing as npt

from analytics.evaluator import _tables

_F = TypeVar("_F", bound=Callable[..., Any])


def _jit(parallel: bool = False) -> Callable[[_F], _F]:
    """``numba.njit`` with on-disk caching when a cache directory is usable."""

    def wrap(func: _F) -> _F:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                return numba.njit(cache=True, parallel=parallel, nogil=True)(func)  # type: ignore[no-any-return]
        except RuntimeError:  # no writable cache locator: compile per process instead
            return numba.njit(cache=False, parallel=parallel, nogil=True)(func)  # type: ignore[no-any-return]

    return wrap


TABLE: Final = _tables.build_table()
_rank_from_masks = _jit()(_tables.rank_from_masks)


@_jit(parallel=True)
def _poker_rank_rows(codes: Any, table: Any, out: Any) -> None:  # pragma: no cover - jitted
    n, k = codes.shape
    for i in numba.prange(n):
        c1 = 0
        c2 = 0
        c3 = 0
        c4 = 0
        sm = 0
        for j in range(k):
            code = np.int64(codes[i, j])
            bit = np.int64(1) << (code >> 2)
            # Bit-sliced counters: a rank's bit climbs one mask per copy seen.
            c4 |= c3 & bit
            c3 |= c2 & bit
            c2 |= c1 & bit
            c1 |= bit
            sm |= bit << ((code & 3) * 16)
        out[i] = _rank_from_masks(c1, c2, c3, c4, sm, table)


def poker_rank_rows(codes: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int32]:
    """Dense poker values of the rows of a validated (n, k) integer array."""
    out = np.empty(codes.shape[0], dtype=np.int32)
    _poker_rank_rows(codes, TABLE, out)
    return out


@_jit()
def _combinations(n: int, k: int, out: Any) -> None:  # pragma: no cover - jitted
    # Lexicographic k-subsets of range(n), written row by row.
    idx = np.arange(k)
    row = 0
    while True:
        for j in range(k):
            out[row, j] = idx[j]
        row += 1
        j = k - 1
        while j >= 0 and idx[j] == n - k + j:
            j -= 1
        if j < 0:
            return
        idx[j] += 1
        for m in range(j + 1, k):
            idx[m] = idx[m - 1] + 1


def combinations(n: int, k: int) -> npt.NDArray[np.int8]:
    """All k-subsets of ``range(n)`` (n <= 127) in lexicographic order, as an int8 array."""
    from math import comb

    out = np.empty((comb(n, k), k), dtype=np.int8)
    if out.shape[0]:
        _combinations(n, k, out)
    return out
