"""``handlab stats GAME [--db FILE] [--player NAME] [--from DAY] [--to DAY] [--out FILE]``.

Prints (a rich table of ``12/40 (30%)`` cells) or writes (``--out`` .csv, .xlsx or
.parquet: the raw counts) one row per player with the game's statistics as columns
named as in docs/statistics.md: ``vpip``, ``vpip_opps``, ``pfr``, ``pfr_opps``, ... one
``_opps`` column beside each count, then the result columns.  The rows come from
``stat_views.player_rows``, the one place a game's per-player row is assembled.  Exit
code 0 on success, 1 when no hand matches (nothing is written), 2 for usage errors or a
database that cannot be read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer
from rich.table import Table
from rich.text import Text

from analytics.commands import (
    STAKES_HELP,
    data_source,
    day_range,
    no_match_hints,
    refuse_unused,
    stakes_label,
    terminal,
)
from analytics.words import counted
from parsers.rule_options import Game

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["stats"]

_console = terminal.console(stderr=True)
_out = terminal.console()
_FORMATS = ("csv", "xlsx", "parquet")
_MIXED_RESULTS: Final = {
    Game.BIGTWO: "his games were played under more than one scoring rule, whose points are "
                 "not the same, or under finishing-order scoring, which has no points; the "
                 "dashboard's Statistics page splits the grid by rule.",
    Game.RUMMOLI: "his rounds were played under more than one ante, whose chips per round are "
                  "not the same, or in more than one currency; give --stakes for one "
                  "currency's, or split the grid by ante or stakes on the dashboard's "
                  "Statistics page.",
    Game.SEVENEIGHT: "no result in one unit for his hands."}
"""What a result cell's dash means, per game (7 & 8's results, in big blinds, never mix)."""
_SCORE_KEEPER_RATES: Final = frozenset({"win_fraction", "fry_fraction", "real_losses_per_game",
                                        "net_score_per_game"})
"""The score keeper's columns per game, printed as a table of their own."""


def stats(
    game: Annotated[Game, typer.Argument(help="seveneight, bigtwo or rummoli.")],
    db: Annotated[Path | None, typer.Option(
        "--db", help="Database file (default: $HANDLAB_DB, else data/handlab.duckdb).")] = None,
    player: Annotated[list[str] | None, typer.Option(
        "--player", "-p", metavar="NAME", help="Only this player's seats (repeatable).")] = None,
    date_from: Annotated[str | None, typer.Option(
        "--from", metavar="DAY", help="First day, YYYY-MM-DD.")] = None,
    date_to: Annotated[str | None, typer.Option(
        "--to", metavar="DAY", help="Last day, YYYY-MM-DD.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the rows to .csv, .xlsx or .parquet instead.")] = None,
    fry: Annotated[int | None, typer.Option(
        "--fry", min=1, max=13, help="Big Two: cards left that make a fry (default: each "
        "game's own fry_threshold, 10 unless its rules say otherwise).")] = None,
    stakes: Annotated[str | None, typer.Option("--stakes", help=STAKES_HELP)] = None,
) -> None:
    """One row per player with the game's statistics (count and opportunities each)."""
    from analytics.dashboard.logic import SCORE_KEEPER_HEADERS, SCORE_KEEPER_NOTE
    from analytics.dashboard.statistics import result_header, row_currencies, shared_currency
    from analytics.reports import table_bytes
    from analytics.stats import MIN_OPPORTUNITIES, RESULTS, stats_of
    from analytics.stats.cells import display_grid
    from analytics.warehouse import WarehouseError, reader
    from analytics.warehouse.sql.stat_views import player_rows
    from analytics.warehouse.sql.views import HandFilter

    suffix = out.suffix.lower().lstrip(".") if out is not None else None
    if out is not None and suffix not in _FORMATS:
        raise typer.BadParameter(f"cannot write {out.name}: use .csv, .xlsx or .parquet",
                                 param_hint="--out")
    try:
        definitions = stats_of(game.value)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="GAME") from None
    first, last = day_range(date_from, date_to)
    if game is not Game.BIGTWO:
        refuse_unused({"--fry": fry is not None}, "Big Two")
    hand_filter = HandFilter(game=game.value, players=tuple(player or ()),
                             date_from=first, date_to=last)
    try:
        with reader(db) as con:
            if stakes is not None:  # one stakes: its chips (its currency) alone
                hand_filter = replace(hand_filter, stakes=stakes_label(con, stakes))
            rows = player_rows(con, hand_filter, game=game, fry_threshold=fry)
            hints = no_match_hints(con, hand_filter) if rows.empty else []
    except ValueError as error:  # --stakes words that fit two labels
        raise typer.BadParameter(str(error), param_hint="--stakes") from None
    except (WarehouseError, OSError) as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    if rows.empty:  # an empty table reads as players who did nothing: say it instead
        _console.print(terminal.error(f"no hands match ({hand_filter.describe()})"
                                      + (f"; nothing written to {out}" if out is not None
                                         else "")))
        for hint in hints:
            _console.print(f"  {hint}")
        raise typer.Exit(1)
    if out is not None and suffix is not None:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(table_bytes(rows, suffix))
        except OSError as error:  # a folder of that name, a place no one may write: as report
            _console.print(terminal.error(error))
            raise typer.Exit(2) from None
        _console.print(f"wrote {counted(len(rows), 'player')} to {out} from "
                       f"{data_source(db)} ({hand_filter.describe()})")
        return
    cells, _, grey = display_grid(rows, definitions)
    title = f"Statistics: {hand_filter.describe()}"
    # One table per family of statistics (and one of results): the whole grid is too wide
    # for a terminal.
    # Counts in chips: the currency their rows share in the headers, else a column of
    # each row's own.
    shared, per_row = shared_currency(rows), row_currencies(rows)
    families = dict.fromkeys(stat.family for stat in definitions)
    for family in families:
        chosen = [stat for stat in definitions if stat.family == family]
        names = [stat.name for stat in chosen]
        table = Table(title=f"{title}: {family}")
        table.add_column("player", overflow="fold")
        for stat in chosen:  # headed as the dashboard's grid (the export keeps the names)
            table.add_column(result_header(stat, shared), justify="right", overflow="fold")
        in_currency = per_row is not None and any(stat.in_currency for stat in chosen)
        if in_currency:
            table.add_column("currency", justify="right", overflow="fold")
        for at in range(len(rows)):
            texts = [str(cells.at[at, name]) for name in names]
            table.add_row(str(rows["player"].iloc[at]),
                          *(Text(text, style="dim" if bool(grey.at[at, name]) else "")
                            for name, text in zip(names, texts, strict=True)),
                          *([per_row[at]] if per_row is not None and in_currency else []))
        _out.print(table)
    stat_columns = {column for stat in definitions for column in (stat.name, stat.opps_column)}
    labels = {result.name: result_header(result, shared) for result in RESULTS[game]}
    results = [c for c in rows.columns if c in labels]
    _out.print(_result_table(
        f"{title}: results", rows if per_row is None else rows.assign(currency=per_row),
        results if per_row is None else [*results, "currency"], labels))
    kept = [c for c in rows.columns if c not in stat_columns and c not in labels
            and c not in ("player", "currency")]
    if kept:  # Big Two: the score keeper's summary (scores.bigtwo_score_summary)
        shown = rows.assign(is_regular=["✓" if flag else "" for flag in rows["is_regular"]])
        # Two tables: its eleven columns in one left a number four characters at 80 columns.
        rates = [c for c in kept if c in _SCORE_KEEPER_RATES]
        for part, columns in (("totals", [c for c in kept if c not in rates]),
                              ("rates", rates)):
            _out.print(_result_table(f"{title}: score keeper {part}", shown, columns,
                                     SCORE_KEEPER_HEADERS))
    _console.print(f"Cells: count/opportunities (share), bets:calls (ratio), total in "
                   f"opportunities (mean); dim: under {MIN_OPPORTUNITIES} "
                   "opportunities. Definitions: docs/statistics.md.")
    if kept:
        _console.print(f"Score keeper: {SCORE_KEEPER_NOTE}")
    if rows[results].isna().any().any():
        _console.print(f"—: {_MIXED_RESULTS[game]}")


def _result_table(title: str, rows: pd.DataFrame, columns: list[str],
                  headers: Mapping[str, str]) -> Table:
    """A table of ``rows``' player and ``columns``, headed by ``headers``, as
    :func:`~analytics.dashboard.statistics.result_text` writes a cell."""
    from analytics.dashboard.statistics import result_text

    table = Table(title=title)
    table.add_column("player", overflow="fold")
    for column in columns:
        table.add_column(headers.get(column, column), justify="right", overflow="fold")
    for at in range(len(rows)):
        table.add_row(str(rows["player"].iloc[at]),
                      *(result_text(rows[column].iloc[at]) for column in columns))
    return table
