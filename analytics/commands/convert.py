"""``handlab convert SHEET --out FILE.phhs``: a Big Two score sheet in the handlab format.

The sheet (yawnoc/big-two-scorer's plain text: docs/format.md, "Score sheets") becomes one
outcome-only Big Two game per losses line, in order, with its date, players and fry
threshold.  Bad lines are printed as ``file:line: game N: what is wrong`` and left out; the
rest is written.  Exit code 0 when every line was read, 1 when some lines were bad, 2 when
the input is no score sheet or cannot be read or written, or when writing would replace the
sheet itself or (without ``--force``) an existing file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from analytics.commands import terminal
from analytics.words import counted

__all__ = ["convert"]

_console = terminal.console(stderr=True)


def convert(
    path: Annotated[Path, typer.Argument(help="A Big Two score sheet (plain text).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The .phhs file to write.")],
    force: Annotated[bool, typer.Option(
        "--force", help="Replace the --out file if it exists.")] = False,
) -> None:
    """Write a Big Two score sheet as handlab histories (outcome-only games).

    An existing --out file is replaced only with --force, and never when it is the sheet.
    """
    from analytics.warehouse.errors import SourceError
    from parsers import write_hands
    from parsers.scoresheet import (
        decode_sheet,
        read_score_sheet,
        sheet_hands,
        starts_like_score_sheet,
    )

    refusal = _replacing(path, out, force)
    if refusal is not None:
        _console.print(refusal)
        raise typer.Exit(2)
    try:
        data = _sheet_bytes(path)
    except (OSError, SourceError) as error:
        _console.print(f"{path}: cannot read it: {error}")
        raise typer.Exit(2) from None
    text = decode_sheet(data)
    if not starts_like_score_sheet(data):  # as the ingest and validate decide
        _console.print(f"{path}: not a Big Two score sheet (docs/format.md, Score sheets)")
        raise typer.Exit(2)
    sheet = read_score_sheet(text)
    for problem in sheet.problems:
        _console.print(problem.describe(str(path)))
    if not sheet.games:  # an empty history file would only look like a result
        _console.print(f"{path}: no game to write, {counted(len(sheet.problems), 'bad line')}; "
                       f"{out} is not written")
        raise typer.Exit(1)
    try:
        written = write_hands(sheet_hands(sheet.games, str(path)), out, single=False)
    except OSError as error:
        _console.print(f"{out}: cannot write it: {error}")
        raise typer.Exit(2) from None
    _console.print(f"{path}: {counted(written, 'game')} written to {out}, "
                   f"{counted(len(sheet.problems), 'bad line')}")
    if sheet.problems:
        raise typer.Exit(1)


def _sheet_bytes(path: Path) -> bytes:
    """The sheet's content, read as the ingest reads a source (a ``.gz`` sheet
    decompressed, within the same limits); one sheet, not a folder or an archive."""
    from analytics.warehouse.errors import SourceError
    from analytics.warehouse.pipeline.sources import expand, open_source

    refs = expand([path])
    if len(refs) != 1 or refs[0].kind == "zip" or path.is_dir():
        raise SourceError("give one score sheet (a plain or .gz file), not a folder or an "
                          "archive")
    reason = refs[0].problem or refs[0].skipped
    if reason is not None:
        raise SourceError(reason)
    with open_source(refs[0]) as stream:
        return bytes(stream.read())


def _replacing(sheet: Path, out: Path, force: bool) -> str | None:
    """Why writing ``out`` would lose data (None when it would not): it is the sheet
    itself, or an existing file and ``force`` was not given."""
    if not out.exists():
        return None
    if sheet.exists() and out.resolve() == sheet.resolve():
        return f"{out}: that is the score sheet itself: give another --out"
    if not force:
        return f"{out} exists: give --force to replace it, or another --out"
    return None
