"""The statistics grid as plain values, and the one comparison of a grid with counts worked
out by hand (tests/test_stats.py, tests/test_stats_cases.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import pytest


def grid_cells(frame: pd.DataFrame, key: str = "player") -> dict[Any, dict[str, Any]]:
    """``{row key: {column: value}}`` of a grid (or any frame with a ``key`` column)."""
    return {name: {str(column): value for column, value in row.items()}
            for name, row in frame.set_index(key).to_dict("index").items()}


def assert_grid_counts(grid: Mapping[Any, Mapping[str, Any]],
                       expected: Mapping[Any, Mapping[str, float]]) -> None:
    """``grid`` has exactly ``expected``'s players, and each player's listed columns hold
    the expected values (counts exactly, averages to pytest's default tolerance)."""
    assert set(grid) == set(expected)
    for player, columns in expected.items():
        got = {column: float(grid[player][column]) for column in columns}
        assert got == pytest.approx(dict(columns)), player
