"""``handlab ingest PATH... [--db FILE | --lake DIR [--engine local|dask] [--scheduler URL]]``:
load histories into the warehouse, or into a Parquet lake (docs/scale-out.md).

Shows a progress bar with hands per second, then a summary table by game and
the files that need attention.  Exit code 0 when everything loaded (or was
already there), 1 when some hands were rejected or a score sheet had bad lines (they
are in the ``rejects`` table with their line and reason) or not one hand was found (an empty file or
folder, every file skipped: said in words), 2 for usage or I/O errors (a missing path,
an unreadable or over-limit source, a database held by another process).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from analytics.commands import refuse_unused, terminal
from analytics.words import counted
from parsers.rule_options import GAME_NAMES

__all__ = ["ingest"]

_console = terminal.console(stderr=True)


class _HandsColumn(ProgressColumn):
    """Hands read so far and the rate: ``12,345 hands  4,321/s``."""

    def render(self, task: Task) -> Text:
        hands = int(task.fields.get("hands", 0))
        elapsed = task.elapsed or 0.0
        rate = hands / elapsed if elapsed > 0 else 0.0
        return Text(f"{hands:,} hands  {rate:,.0f}/s", style="progress.data.speed")


def ingest(
    paths: Annotated[list[str], typer.Argument(
        help="Files, folders (recursive), .zip or .gz of .phh/.phhs histories; Big Two score "
             "sheets (plain text, recognised by their content) named as files; local paths "
             "or fsspec URLs (s3://bucket/archive/).")],
    db: Annotated[Path | None, typer.Option(
        "--db", help="Database file (default: $HANDLAB_DB, else data/handlab.duckdb).")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", "-j", min=0, help="Worker processes (0: none; default: one per core).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    lake: Annotated[str | None, typer.Option(
        "--lake", help="Load into this Parquet lake (a folder or an fsspec URL such as "
        "s3://bucket/lake) instead of a database (default: $HANDLAB_LAKE when set and no "
        "--db).")] = None,
    engine: Annotated[str | None, typer.Option(
        "--engine", help="With --lake: local (a process pool, the default) or dask (a Dask "
        "cluster).")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="With --engine dask: the scheduler, e.g. tcp://host:8786 "
        "(default: a local cluster of this machine's cores).")] = None,
    range_mb: Annotated[int | None, typer.Option(
        "--range-mb", min=1, help="With --lake: MiB of histories per task (default 128; "
        "64-256 for a large archive).")] = None,
) -> None:
    """Validate, re-score and load hand histories; a file already loaded is skipped."""
    import os

    import duckdb

    from analytics.warehouse import IngestProgress, WarehouseError
    from analytics.warehouse import ingest as run_ingest
    from analytics.warehouse.connection import LAKE_ENV_VAR

    if engine not in (None, "local", "dask"):
        raise typer.BadParameter(f"{engine!r} is not local or dask", param_hint="--engine")
    if lake is not None and db is not None:
        raise typer.BadParameter("--lake and --db name two places to load into: give one",
                                 param_hint="--lake")
    if lake is None and db is None and os.environ.get(LAKE_ENV_VAR):
        lake = os.environ[LAKE_ENV_VAR]
    if lake is None:
        refuse_unused({"--engine": engine is not None, "--scheduler": scheduler is not None,
                       "--range-mb": range_mb is not None}, "--lake")
    elif engine != "dask":
        refuse_unused({"--scheduler": scheduler is not None}, "--engine dask")
    progress = Progress(TextColumn("{task.description}", style="progress.description",
                                   markup=False), BarColumn(),
                        TaskProgressColumn(), _HandsColumn(), TimeElapsedColumn(),
                        console=_console, disable=quiet, transient=False)
    task = progress.add_task("ingest", total=None, hands=0)

    def report(step: IngestProgress) -> None:
        progress.update(task, total=max(step.bytes_total, 1), completed=step.bytes_done,
                        hands=step.hands)

    def ranges_done(done: int, total: int) -> None:
        progress.update(task, total=max(total, 1), completed=done)

    try:
        with progress:
            if lake is not None:
                from analytics.warehouse.lake.engine import ingest_lake

                summary = ingest_lake(paths, lake, engine="dask" if engine == "dask" else "local",
                                      scheduler=scheduler, workers=workers,
                                      range_bytes=(range_mb or 128) * 1024**2,
                                      progress=ranges_done)
            else:
                summary = run_ingest(paths, db, workers=workers, progress=report)
    except WarehouseError as error:
        _console.print(terminal.error(str(error)))
        raise typer.Exit(2) from None
    except OSError as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    except (duckdb.IOException, duckdb.FatalException) as error:
        # The database could not be written (a full disk, say): nothing of this ingest was
        # committed; an I/O error, as the exit codes say, not a traceback.
        where = lake if lake is not None else (db or "the database")
        _console.print(terminal.error(f"{where}: could not be written: {error}; nothing "
                                      "of this ingest was committed"))
        raise typer.Exit(2) from None

    table = Table(title=f"handlab ingest → {summary.db if lake is None else lake}")
    for column in ("game", "loaded", "duplicates", "rejected"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for game in sorted(summary.by_game):
        counts = summary.by_game[game]
        table.add_row(GAME_NAMES.get(game, game), f"{counts.loaded:,}", f"{counts.duplicates:,}",
                      f"{counts.rejected:,}")
    table.add_row("all", f"{summary.loaded:,}", f"{summary.duplicates:,}",
                  f"{summary.rejected:,}", style="bold")
    _console.print(table)
    skipped = [f for f in summary.files if f.status == "already loaded"]
    if skipped:
        _console.print(f"{counted(len(skipped), 'file')} already loaded: nothing added from "
                       f"{'it' if len(skipped) == 1 else 'them'}.")
    for item in summary.files:
        if item.status == "partial":
            _console.print(terminal.styled(
                item.name, "yellow", f": {item.refused_words}, first: "
                f"{_after_name(item.name, str(item.message))}"))
        elif item.status == "error":
            _console.print(terminal.styled(
                item.name, "red", f": {_after_name(item.name, str(item.message))}"))
        elif item.status == "skipped":
            _console.print(terminal.styled("skipped", "yellow", f" {item.message}"))
        elif item.status == "loaded" and item.hands == 0:
            _console.print(terminal.styled(item.name, "yellow", ": no hands in this file"))
        if item.earlier_note is not None:
            _console.print(terminal.styled(item.name, "yellow", f": {item.earlier_note}"))
    if summary.internal_errors:
        _console.print(terminal.styled(
            f"{counted(summary.internal_errors, 'hand')} rejected for an internal error", "red",
            " (a bug in handlab, not in the histories; the other hands loaded): the tracebacks "
            f"are in {summary.error_log}"))
    _console.print(f"{counted(summary.hands, 'hand')} read in {summary.seconds:.1f} s "
                   f"({summary.hands_per_second:,.0f} hands/s)")
    if summary.nothing_read is not None:
        _console.print(terminal.styled("no hand found:", "red", f" {summary.nothing_read}"))
    raise typer.Exit(summary.exit_code)


def _after_name(name: str, message: str) -> str:
    """``message`` without the file name it starts with, as the line printing it names the
    file first: ``line 12: hand 3: ...`` for a reject's ``FILE:12: hand 3: ...``, ``...``
    for ``FILE: ...``; any other message as it is."""
    if message.startswith(f"{name}: "):
        return message[len(name) + 2:]
    line, colon, rest = message.removeprefix(f"{name}:").partition(": ")
    if message.startswith(f"{name}:") and colon and line.isdigit():
        return f"line {line}: {rest}"
    return message
