"""The errors the warehouse raises on purpose.

Every one derives from :class:`WarehouseError` (itself a
:class:`~parsers.errors.HandlabError`), so the CLI and the dashboard can catch
the family in one clause and still tell "try again in a moment"
(:class:`WarehouseBusy`) from "this database is unusable"
(:class:`WarehouseSchemaError`), "this is no database at all"
(:class:`WarehouseNotADatabase`) or "this input is hostile or unreadable"
(:class:`SourceError`).
"""

from __future__ import annotations

from parsers.errors import HandlabError

__all__ = [
    "SourceError",
    "SourceLimitError",
    "UnsupportedURL",
    "WarehouseBusy",
    "WarehouseError",
    "WarehouseMissing",
    "WarehouseNotADatabase",
    "WarehouseSchemaError",
    "WarehouseUnreadable",
]


class WarehouseError(HandlabError):
    """Base class of the warehouse's errors."""


class WarehouseBusy(WarehouseError):
    """The database file is locked by another process (DuckDB allows one writer).

    Raised after waiting the caller's timeout; the operation can be retried.
    """


class WarehouseMissing(WarehouseError):
    """A reader asked for a database file, or a Parquet lake, that does not exist."""


class WarehouseNotADatabase(WarehouseError):
    """The database path names a folder, or a file that is not a DuckDB database (a
    history, a spreadsheet): a mistyped ``--db`` or ``$HANDLAB_DB``, which must be named
    as such, neither opened nor overwritten."""


class WarehouseSchemaError(WarehouseError):
    """The database's schema is newer than this code, or older and opened read-only."""


class WarehouseUnreadable(WarehouseError):
    """A file the warehouse's tables are read from cannot be read: a Parquet file a lake's
    manifest lists, missing or damaged (DuckDB's I/O or invalid-input error, named)."""


class SourceError(WarehouseError):
    """An input (file, folder, archive member) that cannot be read at all."""


class SourceLimitError(SourceError):
    """An input exceeds a safety limit: too large, too compressed, or an unsafe member name."""


class UnsupportedURL(SourceError):
    """A URL (an input's or a lake's) that cannot be reached here: a scheme fsspec does not
    know, or one whose package is not installed (s3fs for ``s3://``)."""
