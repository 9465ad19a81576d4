"""``handlab report --db FILE [filters] --out report.html``: the dashboard's report, offline.

The suffix of ``--out`` picks the format: ``.html`` (self-contained: charts and
plotly.js embedded), ``.xlsx`` (every table of the report, a sheet each),
``.csv`` or ``.parquet`` (one table, ``--table``).  The filters are the
dashboard's: ``--game``, ``--player`` (repeatable), ``--from``/``--to``,
``--session``, ``--rule name=value`` (a house rule, repeatable; ``--knob`` is its old
name), ``--stakes``.  Exit code 0 on success, 1 when no hand matches the filters (nothing
is written; what the filters name that no hand has is said), 2 for usage errors or a
database that cannot be read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from analytics.commands import (
    STAKES_HELP,
    data_source,
    day_range,
    no_match_hints,
    refuse_unused,
    stakes_label,
    terminal,
)
from parsers.rule_options import Game

__all__ = ["report"]

_console = terminal.console(stderr=True)


def report(
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Where to write: .html, .xlsx, .csv or .parquet.")],
    db: Annotated[Path | None, typer.Option(
        "--db", help="Database file (default: $HANDLAB_DB, else data/handlab.duckdb).")] = None,
    game: Annotated[Game | None, typer.Option(
        "--game", "-g", metavar="GAME", help="Only this game: seveneight, bigtwo or "
        "rummoli.")] = None,
    player: Annotated[list[str] | None, typer.Option(
        "--player", "-p", metavar="NAME", help="Only hands with this player (repeatable).")] = None,
    date_from: Annotated[str | None, typer.Option(
        "--from", metavar="DAY", help="First day, YYYY-MM-DD.")] = None,
    date_to: Annotated[str | None, typer.Option(
        "--to", metavar="DAY", help="Last day, YYYY-MM-DD.")] = None,
    session: Annotated[str | None, typer.Option(
        "--session", help="A game id, or a session label (a table and its gaming day, "
                          "6:00 to 6:00).")] = None,
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", "--knob", "-r", metavar="NAME=VALUE",
        help="A house rule as name=value, e.g. scoring=cards (repeatable; --knob is its "
        "old name).")] = None,
    stakes: Annotated[str | None, typer.Option(
        "--stakes", help=STAKES_HELP)] = None,
    table: Annotated[str | None, typer.Option(
        "--table", help="For .csv/.parquet: players (the default), overview, sessions, "
        "hand_types or positions.")] = None,
    title: Annotated[str, typer.Option("--title", help="The report's title.")] = "handlab report",
    lake: Annotated[str | None, typer.Option(
        "--lake", help="Read this Parquet lake (a folder or an fsspec URL such as "
        "s3://bucket/lake) instead of a database.")] = None,
) -> None:
    """Write a report of the hands matching the filters (the dashboard's view, offline)."""
    from analytics.reports import write_report
    from analytics.warehouse import WarehouseError, reader
    from analytics.warehouse.sql import views
    from analytics.warehouse.sql.views import HandFilter

    if lake is not None and db is not None:
        raise typer.BadParameter("--lake and --db name two places to read: give one",
                                 param_hint="--lake")
    if out.suffix.lower() not in (".csv", ".parquet"):
        refuse_unused({"--table": table is not None}, ".csv and .parquet")
    first, last = day_range(date_from, date_to)
    knobs = []
    for text in rule or []:
        name, sep, value = text.partition("=")
        if not sep or not name or not value:
            raise typer.BadParameter(f"{text!r} is not name=value", param_hint="--rule")
        knobs.append((name.strip(), value.strip()))
    try:
        hand_filter = HandFilter(
            game=game.value if game is not None else None, players=tuple(player or ()),
            date_from=first, date_to=last, session=session, knobs=tuple(knobs))
    except ValueError as error:  # a house rule of no game
        raise typer.BadParameter(str(error), param_hint="--rule") from None
    try:
        if lake is not None:
            from analytics.warehouse.lake.catalogue import catalogue

            db = catalogue(lake)
        with reader(db) as con:
            if stakes is not None:
                hand_filter = replace(hand_filter, stakes=stakes_label(con, stakes))
            if views.overview(con, hand_filter).empty:
                # An empty report looks like a report of nothing happening: say it instead.
                _console.print(terminal.error(f"no hands match ({hand_filter.describe()}); "
                                              f"nothing written to {out}"))
                for hint in no_match_hints(con, hand_filter):
                    _console.print(f"  {hint}")
                raise typer.Exit(1)
            written = write_report(con, hand_filter, out, table=table or "players",
                                   title=title)
    except ValueError as error:
        _console.print(terminal.error(str(error)))
        raise typer.Exit(2) from None
    except (WarehouseError, OSError) as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    _console.print(f"wrote {written} from {data_source(db, lake)} "
                   f"({hand_filter.describe()})")
