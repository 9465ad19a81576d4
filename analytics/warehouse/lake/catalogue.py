"""Reading the Parquet lake with DuckDB: the warehouse's tables as views over the files of the
newest committed manifest, so every question of the dashboard and the commands runs unchanged.

* :func:`open_lake` is an in-memory DuckDB connection with the views, for any command;
* :func:`catalogue` is a small DuckDB file holding the same views (and ``schema_version``),
  one per manifest version, built once: what :func:`~analytics.warehouse.connection.resolve_db`
  returns when ``$HANDLAB_LAKE`` names a lake, so the dashboard's readers
  (:func:`~analytics.warehouse.connection.open_reader`, a connection per script run) open it as
  they open a database.

Each table is ``SELECT <its columns> FROM read_parquet([...], hive_partitioning = true)``: a
question that names a game reads only that game's folders (partition pruning), and one over
dates skips row groups by their statistics.  The ``v_*`` views are the migrations' own
statements.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb

from analytics.warehouse.annotations import keep_notes_in
from analytics.warehouse.errors import WarehouseMissing, WarehouseUnreadable
from analytics.warehouse.lake.core import (
    LAKE_TABLES,
    Manifest,
    latest_manifest,
    latest_version,
    table_source,
    warehouse_schemas,
)
from analytics.warehouse.lake.store import CATALOGUE_DIR, LakeStore, open_store
from analytics.warehouse.sql.schema import LATEST_VERSION, MIGRATIONS, TABLES

__all__ = ["CATALOGUE_DIR", "WRITE_TIMES", "TableDifference", "catalogue", "lake_statements",
           "open_lake", "table_differences"]

WRITE_TIMES: Final = frozenset({"loaded_at", "rejected_at", "started_at", "finished_at",
                                "seconds"})
"""Columns that say when a row was written: the only ones in which a lake and a database of
the same histories may differ (docs/scale-out.md, "Times of writing")."""

_VIEW_PREFIX: Final = "CREATE OR REPLACE VIEW"
_CATALOGUE_FORMAT: Final = 2
"""The catalogue's own layout, in its file name: a catalogue of an older layout (1, before it
held the notes' tables: ``v000042.duckdb``) is built again, not read."""
_CATALOGUE_NAME: Final = re.compile(r"^v(\d+)(?:-(\d+))?(?:-s(\d+))?\.duckdb$")


def _catalogue_name(version: int) -> str:
    """The file name of the catalogue of the lake's ``version``, built by this handlab's
    schema (an older handlab's catalogue of the same version holds older views: it is
    built again, not read)."""
    return f"v{version:06d}-{_CATALOGUE_FORMAT}-s{LATEST_VERSION}.duckdb"


def _literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _table_view(root: LakeStore, name: str, files: tuple[str, ...]) -> str:
    """The view standing for warehouse table ``name``: its columns, from its files."""
    columns = ", ".join(f'"{field.name}"' for field in warehouse_schemas()[name])
    return f"CREATE VIEW {name} AS SELECT {columns} FROM {table_source(root, name, files)}"


def lake_statements(root: LakeStore | Path | str, manifest: Manifest | None = None
                    ) -> list[str]:
    """The statements that make a DuckDB connection read the lake at ``root`` as the
    warehouse (its newest manifest unless ``manifest`` is given)."""
    lake = open_store(root)
    state = latest_manifest(lake) if manifest is None else manifest
    statements = [_table_view(lake, name, state.files(name)) for name in LAKE_TABLES]
    statements.extend(statement.strip() for migration in MIGRATIONS
                      for statement in migration.statements
                      if statement.strip().startswith(_VIEW_PREFIX))
    statements.append("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, "
                      "description VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL "
                      "DEFAULT current_timestamp)")
    statements.extend(
        f"INSERT INTO schema_version (version, description) VALUES "
        f"({migration.version}, {_literal(migration.description)})" for migration in MIGRATIONS)
    return statements


def _read_lake(con: duckdb.DuckDBPyConnection, lake: LakeStore,
               manifest: Manifest | None = None) -> None:
    """Make ``con`` read the lake as the warehouse (:func:`lake_statements`), with the notes
    kept on it in the lake's notes file (``annotations.keep_notes_in``).  A file the
    manifest lists that is missing or damaged raises :class:`WarehouseUnreadable`."""
    try:
        _views_over(con, lake, manifest)
    except (duckdb.IOException, duckdb.InvalidInputException) as error:
        raise WarehouseUnreadable(f"{lake.url}: a file its newest manifest lists cannot be "
                                  f"read (missing or damaged): {error}") from error


def _views_over(con: duckdb.DuckDBPyConnection, lake: LakeStore,
                manifest: Manifest | None) -> None:
    for statement in lake_statements(lake, manifest):
        con.execute(statement)
    keep_notes_in(con, lake.notes_file())


def open_lake(root: LakeStore | Path | str) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection that reads the lake at ``root`` under the warehouse's
    table names (what any command can query as it queries the database)."""
    store = open_store(root)
    con = store.connect()
    try:
        _read_lake(con, store)
    except BaseException:
        con.close()
        raise
    return con


def catalogue(root: LakeStore | Path | str) -> Path:
    """The DuckDB file of views over the lake's newest manifest (built once per version,
    whole: written aside and renamed into place), which readers open as a database: in the
    lake's ``_catalogue`` folder, or for a lake on an object store in this machine's cache
    (:meth:`~analytics.warehouse.lake.store.LakeStore.catalogue_folder`; its readers need
    DuckDB's ``httpfs`` and the store's credentials, docs/scale-out.md).

    A folder or URL without a committed manifest raises :class:`WarehouseMissing`, and
    nothing is created: a mistyped path must not read as an empty lake (nor become one)."""
    lake = open_store(root)
    version = latest_version(lake)
    if not version:
        raise WarehouseMissing(f"{lake.url}: no lake here (no committed manifest)")
    folder = lake.catalogue_folder()
    target = folder / _catalogue_name(version)
    if target.exists():  # the dashboard asks at every script run: no manifest read then
        return target
    manifest = latest_manifest(lake)
    target = folder / _catalogue_name(manifest.version)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".v{manifest.version:06d}.{os.getpid()}.tmp"
    temporary.unlink(missing_ok=True)
    con = duckdb.connect(str(temporary))
    try:
        _read_lake(con, lake, manifest)
        con.execute("CHECKPOINT")
    except BaseException:
        con.close()
        temporary.unlink(missing_ok=True)
        raise
    finally:
        con.close()
    os.replace(temporary, target)
    for older in folder.glob("v*.duckdb"):
        found = _CATALOGUE_NAME.match(older.name)
        if found and older != target and int(found.group(1)) <= manifest.version:
            with contextlib.suppress(OSError):  # a reader may still hold it: unlinked anyway
                older.unlink()
    return target


@dataclass(frozen=True, slots=True)
class TableDifference:
    """One warehouse table of a lake against a database: its rows in the lake, and the rows
    of ``lake EXCEPT ALL database`` and of ``database EXCEPT ALL lake``."""

    rows: int
    only_in_lake: int
    only_in_database: int

    @property
    def equal(self) -> bool:
        """The same rows, counted with their repeats, on both sides."""
        return not self.only_in_lake and not self.only_in_database


def table_differences(root: LakeStore | Path | str, db: Path) -> dict[str, TableDifference]:
    """Every warehouse table of the lake at ``root`` against the database file ``db``, on
    every column but :data:`WRITE_TIMES` (``EXCEPT ALL`` both ways): how the lake ingest is
    checked against the single-machine ingest of the same histories (tests/test_lake.py,
    benchmarks/bench_lake.py)."""
    con = open_lake(root)
    try:
        con.execute(f"ATTACH {_literal(str(db))} AS single (READ_ONLY)")
        found = {}
        for table in TABLES:
            names = [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
            columns = ", ".join(f'"{name}"' for name in names if name not in WRITE_TIMES)
            ours = f"SELECT {columns} FROM {table}"
            theirs = f"SELECT {columns} FROM single.{table}"
            rows, only_ours, only_theirs = (
                con.execute(f"SELECT count(*) FROM ({query})").fetchall()[0][0]
                for query in (ours, f"{ours} EXCEPT ALL {theirs}",
                              f"{theirs} EXCEPT ALL {ours}"))
            found[table] = TableDifference(rows, only_ours, only_theirs)
        return found
    finally:
        con.close()
