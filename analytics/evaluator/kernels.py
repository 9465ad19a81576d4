"""numba kernels for the batch evaluators.

Importing this module imports numba (about half a second) but compiles nothing:
every kernel is compiled on its first call, for the integer dtype it is given,
and the machine code is cached on disk when numba can find a writable cache
directory (``NUMBA_CACHE_DIR`` or ``__pycache__``), so later processes skip the
compilation.  The package imports this module lazily, from the batch functions.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from analytics.evaluator.lookup_tables import (
    CT2,
    CT3,
    FLUSHR,
    FULL_HOUSE_BASE,
    HB,
    HIGH_CARD_BASE,
    HIGHD,
    PAIR_BASE,
    QUADS_BASE,
    STR,
    STRAIGHT_BASE,
    STRAIGHT_FLUSH_BASE,
    TRIPS_BASE,
    TWO_PAIR_BASE,
    table_array,
)

_F = TypeVar("_F", bound=Callable[..., Any])


def load_numba_without_scipy_linalg() -> None:
    """Import numba's array maths with ``scipy.linalg.cython_blas`` alone instead of the
    whole ``scipy.linalg``; call it before the process's first kernel call.

    A process's first kernel call imports numba's ``arraymath``, which runs ``import
    scipy.linalg.cython_blas`` only to know whether BLAS is there: that imports the
    ``scipy.linalg`` package (and with it numpy's f2py and scipy's array API layer), 0.1-0.4 s
    of CPU for functions no kernel here calls.  The extension module itself is
    self-contained: registered under its full name just while ``arraymath`` is imported
    here, the check finds it without running the package's ``__init__``; then it is
    unregistered, so a later ``import scipy.linalg`` (the dashboard's scipy.stats, numba
    compiling a BLAS call) is the usual import.  Nothing is done once ``arraymath`` or
    ``scipy.linalg`` is loaded, or without scipy.  Not done at this module's import: a
    process that imports it only for :func:`rank_from_suit_masks` would pay for
    ``arraymath`` (0.12-0.17 s) without ever calling a kernel.
    """
    name = "scipy.linalg.cython_blas"
    if {"numba.np.arraymath", "scipy.linalg", name} & sys.modules.keys():
        return
    scipy_spec = importlib.util.find_spec("scipy")  # finds, does not import
    if scipy_spec is None or not scipy_spec.submodule_search_locations:
        return
    folder = Path(next(iter(scipy_spec.submodule_search_locations))) / "linalg"
    found = sorted(folder.glob("cython_blas.*.so")) + sorted(folder.glob("cython_blas.*.pyd"))
    if not found:
        return
    spec = importlib.util.spec_from_file_location(name, found[0])
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        import numba.np.arraymath  # noqa: F401 - its import-time BLAS check, now
    except Exception:  # any failure: numba checks by itself, as before
        pass
    finally:
        # Gone again, so that a later import of scipy.linalg's is the usual one.
        del sys.modules[name]


def cached_jit(parallel: bool = False) -> Callable[[_F], _F]:
    """``numba.njit`` with on-disk caching when a cache directory is usable."""

    def wrap(func: _F) -> _F:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                return cast(_F, numba.njit(cache=True, parallel=parallel, nogil=True)(func))
        except RuntimeError:  # no writable cache locator: compile per process instead
            return cast(_F, numba.njit(cache=False, parallel=parallel, nogil=True)(func))

    return wrap


class IntTable(Protocol):
    """What :func:`rank_from_suit_masks` needs of the table: integer indexing."""

    def __getitem__(self, index: int, /) -> int: ...


def rank_from_suit_masks(sm: int, table: IntTable) -> int:
    """The dense value 1..7462 of the best five cards of a hand given as suit masks.

    ``sm`` holds four 13-bit suit masks (bit = rank) packed 16 bits apart: card
    ``4 * rank + suit`` is bit ``16 * suit + rank``.  ``table`` is the table of
    :func:`~analytics.evaluator.lookup_tables.build_table`: the array itself under
    numba, or the same as a list of ints for plain-Python speed.  This function
    must stay numba-compilable: integers and indexing only.
    """
    T = table  # noqa: N806 - a short name keeps the table look-ups readable
    # Rank multiplicities from the suit masks: a rank is held at least twice when
    # it is in at least two suit masks, and so on.  Cheaper than counting per card.
    m = 8191
    a = sm & m
    b = (sm >> 16) & m
    c = (sm >> 32) & m
    d = (sm >> 48) & m
    a_and_b = a & b
    c_and_d = c & d
    a_or_b = a | b
    c_or_d = c | d
    c1 = a_or_b | c_or_d
    c2 = a_and_b | c_and_d | (a_or_b & c_or_d)
    c3 = (a_and_b & c_or_d) | (c_and_d & a_or_b)
    c4 = a_and_b & c_and_d
    best_flush = max(
        max(T[FLUSHR + (sm & m)], T[FLUSHR + ((sm >> 16) & m)]),
        max(T[FLUSHR + ((sm >> 32) & m)], T[FLUSHR + ((sm >> 48) & m)]),
    )
    if best_flush >= STRAIGHT_FLUSH_BASE:
        return best_flush
    if c4:
        quad = T[HB + c4]
        kicker = T[HB + (c1 & ~(1 << quad))]
        return QUADS_BASE + quad * 12 + kicker - (1 if kicker > quad else 0)
    if c3:
        trips = T[HB + c3]
        others = c2 & ~(1 << trips)  # a second set of trips also fills the pair
        if others:
            pair = T[HB + others]
            return FULL_HOUSE_BASE + trips * 12 + pair - (1 if pair > trips else 0)
    if best_flush:
        return best_flush
    straight = T[STR + c1]
    if straight >= 0:
        return STRAIGHT_BASE + straight
    if c3:
        trips = T[HB + c3]
        rest = c1 & ~(1 << trips)
        squeezed = ((rest >> (trips + 1)) << trips) | (rest & ((1 << trips) - 1))
        return TRIPS_BASE + trips * 66 + T[CT2 + squeezed]
    if c2:
        high_pair = T[HB + c2]
        low_pairs = c2 & ~(1 << high_pair)
        if low_pairs:
            low_pair = T[HB + low_pairs]
            kicker = T[HB + (c1 & ~(1 << high_pair) & ~(1 << low_pair))]
            kicker_index = (
                kicker - (1 if kicker > high_pair else 0) - (1 if kicker > low_pair else 0)
            )
            pair_index = high_pair * (high_pair - 1) // 2 + low_pair
            return TWO_PAIR_BASE + pair_index * 11 + kicker_index
        rest = c1 & ~(1 << high_pair)
        squeezed = ((rest >> (high_pair + 1)) << high_pair) | (rest & ((1 << high_pair) - 1))
        return PAIR_BASE + high_pair * 220 + T[CT3 + squeezed]
    return HIGH_CARD_BASE + T[HIGHD + c1]


# The core lives in this file, next to the kernels that call it, because numba's
# on-disk cache only notices edits to the file of the cached function: a core
# imported from another module could go stale in the cache.
_rank_from_suit_masks = cached_jit()(rank_from_suit_masks)


@cached_jit(parallel=True)
def _poker_rank_rows(codes: Any, table: Any, out: Any) -> None:  # pragma: no cover - jitted
    n, k = codes.shape
    for i in numba.prange(n):
        sm = 0
        for j in range(k):
            code = int(codes[i, j])
            sm |= 1 << ((code & 3) * 16 + (code >> 2))
        out[i] = _rank_from_suit_masks(sm, table)


@cached_jit()
def _poker_rank_rows_serial(codes: Any, table: Any, out: Any) -> None:  # pragma: no cover
    # _poker_rank_rows on the calling thread only (no prange, no thread pool).  A second
    # function rather than a second jit of the first one: numba's disk cache keys a
    # function's entries by its name and signature, not by ``parallel``, so the two
    # compilations of one function could load each other's machine code.
    n, k = codes.shape
    for i in range(n):
        sm = 0
        for j in range(k):
            code = int(codes[i, j])
            sm |= 1 << ((code & 3) * 16 + (code >> 2))
        out[i] = _rank_from_suit_masks(sm, table)


def poker_rank_rows(codes: npt.NDArray[np.integer[Any]], *, parallel: bool = True
                    ) -> npt.NDArray[np.int32]:
    """Dense poker values of the rows of a validated (n, k) integer array.

    ``parallel=False`` runs on the calling thread and never starts numba's thread pool:
    what a process that forks workers later must use (GNU OpenMP kills a forked child of
    a process that used its pool as soon as the child uses it too), and cheaper for small
    batches than scheduling the pool's threads.
    """
    out = np.empty(codes.shape[0], dtype=np.int32)
    kernel = _poker_rank_rows if parallel else _poker_rank_rows_serial
    kernel(codes, table_array(), out)
    return out


@cached_jit()
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
