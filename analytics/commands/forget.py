"""``handlab forget FILE... [--db FILE]``: take loaded files out of the database.

Each FILE names a loaded file by its path as loaded, its file name (when one loaded file
has it) or the start of its sha256 (``handlab forget --list`` shows them).  Its hands and
rejects leave the database; a hand another loaded file also holds stays, loaded from that
file (:mod:`analytics.warehouse.forget`).  Tags and notes are kept for the hand's return.
Exit code 0 when forgotten, 1 when a name matches no loaded file or several (nothing is
changed), 2 for a database that cannot be read or written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from analytics.commands import terminal
from analytics.words import counted

if TYPE_CHECKING:
    import duckdb

__all__ = ["forget"]

_console = terminal.console(stderr=True)
_out = terminal.console()


def forget(
    files: Annotated[list[str] | None, typer.Argument(
        metavar="FILE...",
        help="Loaded files: a path as loaded, a file name, or the start of a sha256.",
        show_default=False)] = None,
    db: Annotated[Path | None, typer.Option(
        "--db", help="Database file (default: $HANDLAB_DB, else data/handlab.duckdb; not "
        "a Parquet lake).")] = None,
    list_files: Annotated[bool, typer.Option(
        "--list", help="List the loaded files (path, sha256, hands) and change nothing.")
    ] = False,
) -> None:
    """Take loaded files out of the database: their hands and rejects (a corrected score
    sheet: forget the old one, then ingest the new)."""
    import duckdb

    from analytics.warehouse import WarehouseError
    from analytics.warehouse.connection import LAKE_ENV_VAR, reader, resolve_db, writer
    from analytics.warehouse.forget import NotLoaded, forget_files, unread_words

    if db is None and os.environ.get(LAKE_ENV_VAR):
        _console.print(terminal.error(
            f"${LAKE_ENV_VAR} names a Parquet lake, whose files are never rewritten: forget "
            "works on a database (give --db)"))
        raise typer.Exit(2)
    path = resolve_db(db)
    if not path.exists():
        _console.print(terminal.error(f"{path}: no such database"))
        raise typer.Exit(2)
    if bool(files) == list_files:
        raise typer.BadParameter("name the loaded files to take out, or --list alone",
                                 param_hint="FILE")
    try:
        if list_files:
            with reader(path) as con:
                _print_loaded(con)
            return
        with writer(path) as con:
            result = forget_files(con, files or [])
    except NotLoaded as error:
        _console.print(terminal.error(f"{error}; nothing was changed"))
        raise typer.Exit(1) from None
    except WarehouseError as error:
        _console.print(terminal.error(f"{error}; nothing was changed"))
        raise typer.Exit(2) from None
    except (OSError, duckdb.IOException, duckdb.FatalException) as error:
        _console.print(terminal.error(f"{path}: {error}; nothing was changed"))
        raise typer.Exit(2) from None
    table = Table(title=f"handlab forget → {path}")
    for column in ("file", "hands out", "kept (in another file)", "rejects out"):
        table.add_column(column, justify="left" if column == "file" else "right",
                         overflow="fold")
    for item in result.files:
        table.add_row(item.path, f"{item.hands - item.kept:,}", f"{item.kept:,}",
                      f"{item.rejects:,}")
    _console.print(table)
    for source, count in result.reloaded_from:
        _console.print(f"{counted(count, 'hand')} kept: loaded from {source}, which held "
                       f"{'it' if count == 1 else 'them'} too.")
    if result.unreadable:
        _console.print(terminal.styled("not read again:", "yellow", f" {unread_words(result)}"))


def _print_loaded(con: duckdb.DuckDBPyConnection) -> None:
    table = Table(title="loaded files")
    for column in ("path", "sha256", "hands loaded", "duplicates", "rejected"):
        table.add_column(column, justify="left" if column in ("path", "sha256") else "right",
                         overflow="fold", no_wrap=column == "sha256")
    for path, sha, loaded, duplicates, rejected in con.execute(
            "SELECT path, sha256, loaded, duplicates, rejected FROM files "
            "ORDER BY path").fetchall():
        table.add_row(str(path), str(sha)[:12], f"{loaded:,}", f"{duplicates:,}",
                      f"{rejected:,}")
    _out.print(table)
