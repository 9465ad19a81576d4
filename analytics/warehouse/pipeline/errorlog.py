"""The ingest's error log: the tracebacks of the bugs an ingest met, next to the database.

A hand that meets a bug in handlab (an unexpected exception in a rules engine, the
reader or the rows; :mod:`analytics.warehouse.pipeline.work`) is rejected with stage
``internal`` and a one-line reason; its traceback, which a developer needs and a player
does not, is appended here, as is the traceback of a fast path that failed and left its
hands to the per-hand path.  The log is ``<database>.errors.log`` (``handlab.duckdb``:
``handlab.duckdb.errors.log``), plain text, one entry per traceback; an entry whose
traceback is the same as an earlier one of the same ingest names that one instead of
repeating it, so that a bug met by every hand of a large file does not write a
traceback per hand.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

__all__ = ["ErrorLog", "error_log_path"]


def error_log_path(db: Path) -> Path:
    """The error log of database ``db``: ``<db>.errors.log`` beside it."""
    return db.with_name(db.name + ".errors.log")


class ErrorLog:
    """The error log of one ingest, appended to as entries come (the file is created by
    the first entry: an ingest that meets no bug leaves no log)."""

    def __init__(self, db: Path) -> None:
        self.path = error_log_path(db)
        self.entries = 0
        self._seen: dict[str, int] = {}  # traceback -> the number of the entry that gave it

    def write(self, heading: str, trace: str) -> None:
        """Append an entry: ``heading`` (what and where) and its traceback ``trace``."""
        self.entries += 1
        first = self._seen.setdefault(trace, self.entries)
        stamp = dt.datetime.now().isoformat(timespec="seconds")
        body = (trace.rstrip("\n") if first == self.entries
                else f"(the same traceback as entry {first} of this ingest)")
        with self.path.open("a", encoding="utf-8", errors="replace") as stream:
            stream.write(f"--- {stamp} entry {self.entries}: {heading}\n{body}\n")
