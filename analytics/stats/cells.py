"""A statistics grid shaped for people: ``12/40 (30%)`` cells, intervals, greyed cells.

Plain functions of the grid's DataFrame (``<name>`` and ``<name>_opps`` columns, as
:func:`analytics.warehouse.sql.stat_views.stat_grid` returns it), unit-tested without
Streamlit: the dashboard's statistics page and the report's section draw what these
return.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import pandas as pd

from analytics.stats.definitions import MIN_OPPORTUNITIES, Kind, Stat
from analytics.stats.interval import ratio_interval, wilson_interval

__all__ = ["MIXED_RULES", "cell_text", "display_grid", "interval_text", "stat_intervals"]


def cell_text(count: int, opportunities: int, kind: Kind) -> str:
    """One cell: ``12/40 (30%)`` (a share), ``12:40 (0.30)`` (a ratio: 12 bets and raises
    to 40 calls), ``185 in 83 (2.23)`` (a mean: 185 stops in 83 rounds), so that neither
    reads as a share over 100 %; nothing in brackets when there is no opportunity."""
    head = {Kind.RATE: f"{count}/{opportunities}", Kind.RATIO: f"{count}:{opportunities}",
            Kind.MEAN: f"{count} in {opportunities}"}[kind]
    if kind is Kind.RATE:
        return f"{head} ({100 * count / opportunities:.0f}%)" if opportunities else head
    if opportunities:
        return f"{head} ({count / opportunities:.2f})"
    return f"{head} (∞)" if kind is Kind.RATIO and count else head


def interval_text(low: float, high: float, kind: Kind) -> str:
    """The 95 % interval in words for a tooltip; empty where there is none."""
    if math.isnan(low) or math.isnan(high):
        return ""
    if kind is Kind.RATE:
        return f"95% interval {100 * low:.1f}% to {100 * high:.1f}% (Wilson)"
    if kind is Kind.RATIO:
        top = "∞" if math.isinf(high) else f"{high:.2f}"
        return f"95% interval {low:.2f} to {top} (Wilson, as a ratio)"
    return ""


def stat_intervals(grid: pd.DataFrame, stat: Stat) -> tuple[np.ndarray, np.ndarray]:
    """Each row's 95 % interval of ``stat`` (NaN for a mean, or no opportunities)."""
    count = grid[stat.name].to_numpy(dtype=np.float64)
    opps = grid[stat.opps_column].to_numpy(dtype=np.float64)
    if stat.kind is Kind.RATE:
        return wilson_interval(count, opps)
    if stat.kind is Kind.RATIO:
        return ratio_interval(count, opps)
    nan = np.full(len(grid), np.nan)
    return nan, nan.copy()


def _sample(grid: pd.DataFrame, stat: Stat) -> np.ndarray:
    """What the greying threshold is compared with: the opportunities, or for a ratio the
    actions it counts (both sides)."""
    opps = grid[stat.opps_column].to_numpy(dtype=np.int64)
    if stat.kind is Kind.RATIO:
        return np.asarray(opps + grid[stat.name].to_numpy(dtype=np.int64))
    return np.asarray(opps)


def display_grid(grid: pd.DataFrame, stats: Sequence[Stat], *,
                 keys: Sequence[str] = ("player",),
                 min_opportunities: int = MIN_OPPORTUNITIES
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The grid for people: (cells, tooltips, greyed), three frames of the same shape:
    the ``keys`` columns then one column per statistic (its name), holding the cell text,
    the interval in words, and whether the cell has fewer than ``min_opportunities``
    opportunities (a ratio: fewer counted actions)."""
    cells = grid[list(keys)].copy()
    tips = grid[list(keys)].copy()
    grey = grid[list(keys)].copy()
    # None: a count in a rule's unit over several rules (Stat.per_level); 0 in ``counted``.
    counted = grid.fillna({stat.name: 0 for stat in stats})
    for stat in stats:
        mixed = grid[stat.name].isna().to_numpy()
        counts = counted[stat.name].astype("int64").tolist()
        opps = grid[stat.opps_column].astype("int64").tolist()
        low, high = stat_intervals(counted, stat)
        cells[stat.name] = ["—" if none else cell_text(c, o, stat.kind)
                            for c, o, none in zip(counts, opps, mixed, strict=True)]
        tips[stat.name] = [MIXED_RULES if none else interval_text(float(a), float(b), stat.kind)
                           for a, b, none in zip(low, high, mixed, strict=True)]
        grey[stat.name] = (_sample(counted, stat) < min_opportunities) & ~mixed
    return cells, tips, grey


MIXED_RULES: Final = ("played under more than one scoring rule (ante), whose units differ: "
                      "split by it; or in more than one currency: split by stakes; or under "
                      "rank scoring (finishing order), which has no points")
"""The tooltip of a cell a statistic in a rule's unit leaves empty (``Stat.per_level``)."""
