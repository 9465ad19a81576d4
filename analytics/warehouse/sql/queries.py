"""The warehouse's loaded files, for the Overview page's "Files" table.

Every other question the dashboard and the reports ask is in :mod:`~analytics.warehouse.sql.views`,
:mod:`~analytics.warehouse.sql.stat_views` and their neighbours (one function per question,
under a :class:`~analytics.warehouse.sql.views.HandFilter`).
"""

from __future__ import annotations

import duckdb
import pandas as pd

__all__ = ["files"]


def files(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every file loaded: path, content hash, counts, status and when."""
    return con.execute("""
        SELECT path, sha256, size, status, hands, loaded, duplicates, rejected,
               started_at, finished_at, seconds
        FROM files ORDER BY finished_at, path
    """).fetchdf()
