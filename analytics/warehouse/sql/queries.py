"""The warehouse's loaded files, for the Overview page's "Files" table, and the file a
connection's database is.

Every other question the dashboard and the reports ask is in :mod:`~analytics.warehouse.sql.views`,
:mod:`~analytics.warehouse.sql.stat_views` and their neighbours (one function per question,
under a :class:`~analytics.warehouse.sql.views.HandFilter`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

__all__ = ["database_file", "files"]


def database_file(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file ``con``'s current database is, or None for one in memory (which is also
    what DuckDB makes of a CSV, Parquet or JSON file named as a database)."""
    rows = con.execute("SELECT path FROM duckdb_databases() "
                       "WHERE database_name = current_database()").fetchall()
    return Path(str(rows[0][0])) if rows and rows[0][0] else None


def files(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every file loaded: path, content hash, counts, status and when."""
    return con.execute("""
        SELECT path, sha256, size, status, hands, loaded, duplicates, rejected,
               started_at, finished_at, seconds
        FROM files ORDER BY finished_at, path
    """).fetchdf()
