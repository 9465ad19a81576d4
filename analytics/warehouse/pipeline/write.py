"""The single writer's side of ingest: whole files per transaction, bulk inserts, no duplicates.

A source file is loaded inside one transaction: its hands and everything hanging off
them, its rejects, and last its ``files`` row.  A transaction may hold several whole
files (the ingest gathers them: :data:`analytics.warehouse.pipeline.run.GROUP_ROWS`), never part
of one: killed at any moment, the database holds each file either whole or not at all;
the ``files`` row is the proof of completion that lets a rerun skip it.

Rows arrive as Arrow tables and go in with ``INSERT INTO t BY NAME SELECT * FROM
batch`` (DuckDB scans the Arrow memory directly, finding the table by name for that
statement alone: :mod:`analytics.warehouse.sql.arrow_scan`).
Duplicates are removed by an anti-join: the batch's ids are semi-joined against
``hands`` (the small side is the hash-table side, so this costs one scan of the id
column), and rows of hands already there are filtered out of every table before the
insert.  Small whole files are loaded together, one statement per table (the writer's
``flush``: a hand given twice among them kept the first time, ``rows.first_of_hands``); the
transaction sees its own earlier inserts, so a hand repeated in two loads of one
transaction loads once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import duckdb
import pyarrow as pa

from analytics.warehouse.pipeline.fact_rows import FACT_TABLES, fact_tables
from analytics.warehouse.pipeline.rows import FileContext, RejectRow, reject_table, without_hands
from analytics.warehouse.pipeline.stat_rows import STAT_FACTS, fill_batch_stats
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.facts import PotGames, fill_batch_pots

__all__ = ["FileStats", "LoadedFile", "begin", "commit", "known_files", "load_new", "load_rejects",
           "loaded_versions", "record_files", "rollback"]

# Child tables first, ``hands`` last within a batch: nothing reads them mid-transaction.
_BATCH_TABLES: Final = ("hands", "seats", "actions", "showdowns", "awards", "board",
                        "allin_results", "rummoli_strength", "bigtwo_features", "bigtwo_scores")
_INSERTED: Final = frozenset((*_BATCH_TABLES, *FACT_TABLES, STAT_FACTS))


@dataclass(slots=True)
class FileStats:
    """Counts for one file's ``files`` row."""

    hands: int = 0
    loaded: int = 0
    duplicates: int = 0
    rejected: int = 0
    internal: int = 0  # of the rejected, those rejected for a bug in handlab (not recorded)
    bad_lines: int = 0  # a score sheet's bad lines that are no game (rejects, not hands)

    @property
    def status(self) -> str:
        """The file's status: ``partial`` when some hands were rejected or a sheet had bad
        lines, else ``loaded``."""
        return "partial" if self.rejected or self.bad_lines else "loaded"


def known_files(con: duckdb.DuckDBPyConnection, digests: list[str]) -> set[str]:
    """Which of ``digests`` are already recorded as loaded (committed, or earlier in the
    open transaction): asked by the plan, and again inside the transaction that would load
    them, because another ingest may have loaded the same content meanwhile."""
    if not digests:
        return set()
    found = con.execute("SELECT sha256 FROM files WHERE sha256 IN (SELECT unnest(?))",
                        [digests]).fetchall()
    return {row[0] for row in found}


def loaded_versions(con: duckdb.DuckDBPyConnection, paths: list[str]) -> dict[str, list[str]]:
    """The sha256 of the contents loaded under each of ``paths``, oldest first (paths never
    loaded left out)."""
    if not paths:
        return {}
    versions: dict[str, list[str]] = {}
    for path, sha in con.execute(
            "SELECT path, sha256 FROM files WHERE path IN (SELECT unnest(?)) "
            "ORDER BY started_at", [paths]).fetchall():
        versions.setdefault(str(path), []).append(str(sha))
    return versions


def begin(con: duckdb.DuckDBPyConnection) -> None:
    """Open a transaction for one or more files."""
    con.execute("BEGIN TRANSACTION")


def _insert(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    if table not in _INSERTED:
        raise ValueError(f"not a warehouse table: {table!r}")
    if data.num_rows == 0:
        return
    # Not register(): a registered table stays alive until the transaction ends -- every
    # batch of every file in it, about 15 MB per 5,000 7 & 8 hands on top of DuckDB's own
    # copy (docs/performance.md, Session 8 (W)).  This one goes with the statement.
    # An identifier cannot be bound: it is checked against the fixed tuple above.
    execute_over(con, f"INSERT INTO {table} BY NAME SELECT * FROM _handlab_batch",
                 {"_handlab_batch": data})


def load_new(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table],
             games: PotGames | None = None) -> pa.Array:
    """Insert the hands of ``tables`` that are not stored yet, with every row hanging off
    them and their facts; return the ids of those already stored (left out).

    ``games``: the writer's record of which Rummoli games have pot rows, kept across its
    batches (:class:`~analytics.warehouse.sql.facts.PotGames`), or None to look them up."""
    hands = tables["hands"]
    if hands.num_rows == 0:
        return pa.array([], pa.int64())
    existing = execute_over(
        con, "SELECT hand_id FROM hands WHERE hand_id IN (SELECT hand_id FROM _handlab_ids)",
        {"_handlab_ids": hands.select(["hand_id"])}).fetchnumpy()["hand_id"]
    stored = pa.array(existing, type=pa.int64())
    new = without_hands(tables, stored) if len(stored) else dict(tables)
    for name in _BATCH_TABLES:
        _insert(con, name, new[name])
    # Built by the worker from the batch's own rows (filtered with them above), or here
    # for a caller that brings none (fact_rows.fact_tables either way).
    made = new if all(name in new for name in FACT_TABLES) else fact_tables(new)
    for name in FACT_TABLES:
        _insert(con, name, made[name])
    fill_batch_pots(con, new, games)
    # The statistics' counts: made by the worker (work._add_stat_facts, for units with
    # hands of those games), or here from the same rows for a batch that comes without.
    if STAT_FACTS in new:
        _insert(con, STAT_FACTS, new[STAT_FACTS])
    else:
        fill_batch_stats(con, new)
    return stored


def load_rejects(con: duckdb.DuckDBPyConnection,
                 rejected: Sequence[tuple[FileContext, list[RejectRow]]]) -> None:
    """Record rejected hands of one or more files, in one statement; one row per (file
    content, hand index), however often it is read."""
    tables = [reject_table(context, rejects) for context, rejects in rejected if rejects]
    if not tables:
        return
    execute_over(con, """
        INSERT INTO rejects BY NAME
        SELECT * FROM _handlab_rejects r
        WHERE NOT EXISTS (SELECT 1 FROM rejects x
                          WHERE x.sha256 = r.sha256 AND x.hand_index = r.hand_index)
    """, {"_handlab_rejects": pa.concat_tables(tables)})


@dataclass(frozen=True, slots=True)
class LoadedFile:
    """What a file's ``files`` row says: its content, size, counts and when its load began."""

    context: FileContext
    size: int
    stats: FileStats
    started: dt.datetime


def record_files(con: duckdb.DuckDBPyConnection, files: Sequence[LoadedFile]) -> None:
    """Record the files as loaded, inside their transaction, in one statement: the last
    rows of the files, which commit with them."""
    if not files:
        return
    finished = dt.datetime.now()
    rows = pa.table({
        "sha256": [f.context.sha256 for f in files],
        "path": [f.context.path for f in files],
        "size": pa.array([f.size for f in files], pa.int64()),
        "status": [f.stats.status for f in files],
        "hands": pa.array([f.stats.hands for f in files], pa.int32()),
        "loaded": pa.array([f.stats.loaded for f in files], pa.int32()),
        "duplicates": pa.array([f.stats.duplicates for f in files], pa.int32()),
        "rejected": pa.array([f.stats.rejected for f in files], pa.int32()),
        "started_at": pa.array([f.started for f in files], pa.timestamp("us")),
        "finished_at": pa.array([finished] * len(files), pa.timestamp("us")),
        "seconds": [(finished - f.started).total_seconds() for f in files],
    })
    execute_over(con, "INSERT INTO files BY NAME SELECT * FROM _handlab_files",
                 {"_handlab_files": rows})


def commit(con: duckdb.DuckDBPyConnection) -> None:
    """Commit the open transaction: the files recorded in it are now all in."""
    con.execute("COMMIT")


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Abandon the open file transaction, if any."""
    with contextlib.suppress(duckdb.TransactionException):  # no transaction was open
        con.execute("ROLLBACK")
