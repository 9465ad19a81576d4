"""A data migration checked against a fresh ingest: the rows a database holds, damaged as
an older handlab would have left them, must come back the same once a writer opens it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import pandas as pd

from analytics.warehouse import open_writer, reader

__all__ = ["assert_migrated_again"]


def _rows(con: duckdb.DuckDBPyConnection, table: str, order: str) -> pd.DataFrame:
    return con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchdf()


def assert_migrated_again(db: Path, version: int, tables: Sequence[str],
                          damage: Sequence[str], *, order: str = "hand_id, seat"
                          ) -> dict[str, pd.DataFrame]:
    """Take ``tables``' rows (ordered by ``order``: hand and seat) of the freshly ingested
    ``db``, run the ``damage`` statements and set the schema back to before migration
    ``version``; assert that a writer opening it gives each table's rows again.  Returns
    the rows."""
    with duckdb.connect(str(db)) as con:
        expected = {table: _rows(con, table, order) for table in tables}
        for statement in damage:
            con.execute(statement)
        con.execute("DELETE FROM schema_version WHERE version >= $version",
                    {"version": version})
    open_writer(db).close()
    with reader(db) as con:
        for table in tables:
            pd.testing.assert_frame_equal(_rows(con, table, order), expected[table], obj=table)
    return expected
