"""Which fast paths of reading and replaying are on: the one switch that turns them off.

Every fast path gives the same result as the specification it shortens (the general
reader, the full engines), and is kept only where it earns at least 1.5x end to end
(issue #31; the inventory in docs/warehouse.md, "Fast paths"; the figures in
docs/performance.md).  To measure that
gain in the same run, ``benchmarks/bench_ingest.py --ab NAME`` ingests with and without
one of them: the environment variable ``HANDLAB_FAST_PATHS_OFF`` (names separated by
commas, read once, here, when handlab is imported) turns the named ones off.
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["FAST_PATHS", "OFF_VARIABLE", "fast_path_on"]

FAST_PATHS: Final = ("block",)
"""The fast paths, by name: ``block``, the 7 & 8 block (:mod:`parsers.block_scan`, the batch
replay :mod:`analytics.rules.seveneight.block`, :mod:`analytics.warehouse.pipeline.block_rows`),
against the per-hand path.  (The 7 & 8 and Rummoli lean replays went in session 18, 1.10x
and 1.04x end to end; the reader of the writer's own layout, ``reader``, in session 19, under
1.5x for every game; Big Two's lean replay, ``lean-bigtwo``, in session 20, under 1.5x.)"""

OFF_VARIABLE: Final = "HANDLAB_FAST_PATHS_OFF"
"""The environment variable naming the fast paths to turn off (for A/B measurements)."""


def _off_from_environment() -> frozenset[str]:
    names = frozenset(name.strip() for name in os.environ.get(OFF_VARIABLE, "").split(",")
                      if name.strip())
    unknown = names.difference(FAST_PATHS)
    if unknown:
        raise ValueError(f"${OFF_VARIABLE}: no fast path named {', '.join(sorted(unknown))}"
                         f" (known: {', '.join(FAST_PATHS)})")
    return names


_OFF: Final = _off_from_environment()


def fast_path_on(name: str) -> bool:
    """Whether the fast path ``name`` (one of :data:`FAST_PATHS`) is on: always, unless
    ``$HANDLAB_FAST_PATHS_OFF`` names it."""
    return name not in _OFF
