"""``handlab convert SHEET --out FILE.phhs``: a Big Two score sheet in the handlab format.

The sheet (yawnoc/big-two-scorer's plain text: docs/format.md, "Score sheets") becomes one
outcome-only Big Two game per losses line, in order, with its date, players and fry
threshold.  Bad lines are printed as ``file:line: game N: what is wrong`` and left out; the
rest is written.  Exit code 0 when every line was read, 1 when some lines were bad, 2 when
the input is no score sheet or cannot be read or written.
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
) -> None:
    """Write a Big Two score sheet as handlab histories (outcome-only games)."""
    from parsers import write_hands
    from parsers.scoresheet import (
        decode_sheet,
        looks_like_score_sheet,
        read_score_sheet,
        sheet_hands,
    )

    try:
        text = decode_sheet(path.read_bytes())
    except OSError as error:
        _console.print(f"{path}: cannot read it: {error}")
        raise typer.Exit(2) from None
    if not looks_like_score_sheet(text):
        _console.print(f"{path}: not a Big Two score sheet (docs/format.md, Score sheets)")
        raise typer.Exit(2)
    sheet = read_score_sheet(text)
    for problem in sheet.problems:
        _console.print(problem.describe(str(path)))
    try:
        written = write_hands(sheet_hands(sheet.games, str(path)), out, single=False)
    except OSError as error:
        _console.print(f"{out}: cannot write it: {error}")
        raise typer.Exit(2) from None
    _console.print(f"{path}: {counted(written, 'game')} written to {out}, "
                   f"{counted(len(sheet.problems), 'bad line')}")
    if sheet.problems:
        raise typer.Exit(1)
