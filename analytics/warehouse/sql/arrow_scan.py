"""Statements over Arrow tables that DuckDB reads by name for that statement alone.

The writer's statements read a batch's own Arrow tables (the rows it is inserting, the
facts derived from them).  ``con.register(name, table)`` would do, but DuckDB keeps a
registered object alive until the transaction ends, even once unregistered (the dropped
view is transactional): with several files per transaction the writer held every batch
of them on top of DuckDB's own copy (docs/performance.md, Session 8 (W)).  A table found
by its Python name instead (DuckDB's replacement scan, which looks the name up in the
frame that runs the statement) goes with the statement.

The names a statement reads are given here as a mapping, so the callers need not bind
locals of those names: :func:`execute_over` runs the statement in a frame whose globals
are the mapping.  A warehouse table of the same name would come first, so the names are
the callers' ``_handlab_`` ones, which no warehouse table has.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import CodeType
from typing import Final, cast

import duckdb
import pyarrow as pa

__all__ = ["arrow_over", "execute_over"]

# The frame's own names; no table a statement reads may have one of them.
_CON: Final = "_handlab_scan_con"
_STATEMENT: Final = "_handlab_scan_statement"
_PARAMS: Final = "_handlab_scan_params"
_OWN: Final = frozenset((_CON, _STATEMENT, _PARAMS))

_EXECUTE: Final[CodeType] = compile(f"{_CON}.execute({_STATEMENT}, {_PARAMS})",
                                    f"<{__name__}.execute_over>", "eval")
_ARROW: Final[CodeType] = compile(f"{_CON}.sql({_STATEMENT}, params={_PARAMS}).to_arrow_table()",
                                  f"<{__name__}.arrow_over>", "eval")


def _run(code: CodeType, con: duckdb.DuckDBPyConnection, statement: str,
         tables: Mapping[str, pa.Table], params: object) -> object:
    clash = _OWN.intersection(tables)
    if clash:
        raise ValueError(f"reserved table name: {sorted(clash)[0]!r}")
    scope: dict[str, object] = dict(tables)
    scope[_CON], scope[_STATEMENT], scope[_PARAMS] = con, statement, params
    # The statement runs in this frame: its globals are the tables (and the three names
    # above), which is where the replacement scan finds them; nothing keeps the frame.
    return eval(code, scope)  # a fixed expression, compiled above


def execute_over(con: duckdb.DuckDBPyConnection, statement: str,
                 tables: Mapping[str, pa.Table],
                 params: Mapping[str, object] | list[object] | None = None
                 ) -> duckdb.DuckDBPyConnection:
    """Run ``statement`` (with ``params``) reading each of ``tables`` under its key, not
    registered: DuckDB lets go of them with the statement, not with the transaction.
    Returns the connection, as ``con.execute`` does (fetch a query's rows at once)."""
    return cast(duckdb.DuckDBPyConnection, _run(_EXECUTE, con, statement, tables, params))


def arrow_over(con: duckdb.DuckDBPyConnection, query: str, tables: Mapping[str, pa.Table],
               params: Mapping[str, object] | None = None) -> pa.Table:
    """The rows of ``query`` (with ``params``) as Arrow, reading each of ``tables`` under its
    key as :func:`execute_over` does."""
    return cast(pa.Table, _run(_ARROW, con, query, tables, params))
