"""Exports: tables as CSV, XLSX and Parquet; a self-contained HTML report of a filtered view.

The HTML report embeds plotly.js inline once (``include_plotlyjs=True``) and every
chart after it as a ``<div>`` with its data, so the file opens with no network.
:func:`build_report` gathers what the dashboard shows for a :class:`HandFilter`
(overview, win rates with confidence intervals, cumulative results, hand types
against theory, Rummoli pots and poker strength, Big Two places, deal strength and
deal theory); the dashboard's download button
and ``handlab report`` both call it, so they agree.  No Streamlit here.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Final

import duckdb
import pandas as pd
import plotly.graph_objects as go

from analytics.dashboard import charts, logic, statistics
from analytics.stats import stats_of
from analytics.warehouse import equity_views, stat_views, views
from analytics.warehouse.annotations import player_notes, tagged_hands
from analytics.warehouse.identity import hand_id_hex
from analytics.warehouse.views import HandFilter
from parsers.knobs import Game

__all__ = [
    "FORMATS",
    "TABLES",
    "Report",
    "Section",
    "build_report",
    "figures_of",
    "notes_sections",
    "render_html",
    "report_tables",
    "statistics_sections",
    "table_bytes",
    "tables_xlsx",
    "write_report",
]

FORMATS: Final = {"csv": "text/csv",
                  "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                  "parquet": "application/vnd.apache.parquet",
                  "html": "text/html"}
"""Export formats and their MIME types."""

TABLES: Final = ("players", "overview", "sessions", "hand_types", "positions")
"""Tables ``handlab report`` can write to .csv/.parquet (.xlsx gets them all)."""

_XLSX_SHEET_CHARS: Final = 31


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns every writer accepts: nullable and categorical columns to plain objects."""
    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(str)
    return out


def table_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """One table as ``csv``, ``xlsx`` or ``parquet`` bytes."""
    if fmt == "csv":
        return frame.to_csv(index=False).encode("utf-8")
    if fmt == "xlsx":
        return tables_xlsx({"data": frame})
    if fmt == "parquet":
        buffer = io.BytesIO()
        _plain(frame).to_parquet(buffer, index=False)
        return buffer.getvalue()
    raise ValueError(f"unknown table format {fmt!r} (expected csv, xlsx or parquet)")


def _sheet_name(name: str, used: set[str]) -> str:
    base = "".join("_" if c in "[]:*?/\\" else c for c in name)[:_XLSX_SHEET_CHARS] or "sheet"
    candidate, number = base, 2
    while candidate.lower() in used:
        suffix = f" {number}"
        candidate = base[:_XLSX_SHEET_CHARS - len(suffix)] + suffix
        number += 1
    used.add(candidate.lower())
    return candidate


def tables_xlsx(tables: Mapping[str, pd.DataFrame]) -> bytes:
    """Several tables as one workbook, a sheet each (names made valid and unique)."""
    buffer = io.BytesIO()
    used: set[str] = set()
    with pd.ExcelWriter(buffer, engine="xlsxwriter") as workbook:
        for name, frame in tables.items():
            plain = _plain(frame)
            for column in plain.columns:  # Excel has no time zones
                if isinstance(plain[column].dtype, pd.DatetimeTZDtype):
                    plain[column] = plain[column].dt.tz_localize(None)
            plain.to_excel(workbook, sheet_name=_sheet_name(name, used), index=False)
    return buffer.getvalue()


@dataclass(slots=True)
class Section:
    """A part of a report: a heading, some sentences, charts and tables."""

    title: str
    text: str = ""
    figures: list[go.Figure] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    html: str = ""
    """Ready-made HTML drawn after the text (the statistics grid with its tooltips)."""


@dataclass(slots=True)
class Report:
    """A report: what it covers (the filter in words) and its sections."""

    title: str
    filter_text: str
    generated: dt.datetime
    sections: list[Section]

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of every section, by a unique name."""
        out: dict[str, pd.DataFrame] = {}
        for section in self.sections:
            for name, frame in section.tables.items():
                key = name if name not in out else f"{section.title} {name}"
                out[key] = frame
        return out


def _games(con: duckdb.DuckDBPyConnection, f: HandFilter) -> list[str]:
    present = views.overview(con, f)
    return [str(g) for g in present["game"]]


def report_tables(con: duckdb.DuckDBPyConnection, f: HandFilter) -> dict[str, pd.DataFrame]:
    """The tables of :data:`TABLES` for the filter (what ``--table`` chooses from)."""
    players = logic.with_confidence(views.player_results(con, f))
    positions = logic.with_confidence(views.by_position(con, f))
    return {
        "players": players,
        "overview": views.overview(con, f),
        "sessions": views.sessions(con, f),
        "hand_types": views.showdown_types(con, f),
        "positions": positions,
    }


def build_report(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                 title: str = "handlab report") -> Report:
    """What the dashboard shows for ``f``, as report sections."""
    tables = report_tables(con, f)
    games = _games(con, f)
    sections = [Section(
        "Overview",
        f"{int(tables['overview']['hands'].sum()):,} hands in {len(games)} game(s).",
        [charts.hands_over_time(views.hands_over_time(con, f, bucket="week"))],
        {"overview": tables["overview"], "sessions": tables["sessions"]},
    )]
    players = tables["players"]
    win = Section("Win rates", "Mean net per hand (chips; Big Two: points) with 95 % "
                  "confidence intervals (mean ± 1.96·sd/√n).", tables={"players": players})
    for game in games:
        rows = players[players["game"] == game]
        win.figures.append(charts.bar_with_ci(rows, x="player", title=f"{game}: win rate"))
        unit = "points" if game == "bigtwo" else "chips"
        win.figures.append(charts.cumulative(views.cumulative_net(con, f, game=game),
                                             unit=f"{unit} ({game})"))
    win.tables["positions"] = tables["positions"]
    sections.append(win)
    if "bigtwo" in games:
        places = views.bigtwo_places(con, f)
        left = views.bigtwo_cards_left(con, f)
        twos = logic.feature_table(equity_views.bigtwo_feature_results(con, f, feature="twos"))
        held = logic.bigtwo_held_table(equity_views.bigtwo_dealt(con, f))
        sections.append(Section(
            "Big Two", "Games by finishing place and score; cards left; score per game by "
            "the 2s dealt (95 % CI); what the deals hold against the exact theory (share of "
            "deals holding each kind, with a two-sided binomial test per kind).",
            [charts.cards_left(left),
             charts.bar_with_ci(twos, x="bin", color="player",
                                title="Score per game by 2s held",
                                y_title="mean points per game"),
             *(charts.observed_vs_theory(held[held["size"] == size].reset_index(drop=True),
                                         f"Deals of {size} cards holding each kind")
               for size in sorted(set(held["size"])))],
            {"bigtwo_places": places, "bigtwo_cards_left": left, "bigtwo_by_twos": twos,
             "bigtwo_deals_hold": held}))
    if "rummoli" in games:
        split = logic.split_table(views.rummoli_split(con, f), list(views.SPLIT_PARTS))
        pots = logic.pot_summary(views.pot_winners(con, f))
        streaks = views.pot_streaks(con, f)
        growth = streaks.assign(expected=streaks["since"] * streaks["mean_antes"])
        sections.append(Section(
            "Rummoli", "Result per round by part; the nine pots: how often won and by whom; "
            "carry-over growth against every ante staying on the pot.",
            [charts.split_bars(split, list(views.SPLIT_PARTS)), charts.pot_growth(growth)],
            {"rummoli_split": split, "pots": pots, "pot_streaks": streaks}))
        shares = logic.share_vs_expected(equity_views.rummoli_share_by_player(con, f))
        calibration = logic.calibration_table(equity_views.rummoli_calibration(con, f))
        sections.append(Section(
            "Rummoli poker strength", "Poker-pot share per round: realised (on everyone's "
            "cards) against expected from each player's strength, with the 95 % interval of "
            "the difference; calibration of the strength estimate by bins.",
            [charts.share_vs_expected(shares), charts.calibration(calibration)],
            {"rummoli_poker_share": shares, "rummoli_calibration": calibration}))
    sections.extend(statistics_sections(con, f, games))
    sections.extend(notes_sections(con))
    types = tables["hand_types"]
    if not types.empty:
        shown = Section("Hand types", "Categories of the hands shown down, per game.",
                        tables={"hand_types": types})
        for game in games:
            counts = types[types["game"] == game].groupby("category")["hands"].sum()
            table = pd.DataFrame({"category": counts.index, "observed": counts.to_numpy()})
            table["observed_share"] = table["observed"] / max(1, int(table["observed"].sum()))
            shown.figures.append(charts.observed_vs_theory(table, f"{game}: hands shown"))
        sections.append(shown)
    return Report(title, f.describe(), dt.datetime.now().replace(microsecond=0), sections)


def notes_sections(con: duckdb.DuckDBPyConnection) -> list[Section]:
    """The tags and notes people keep (on hands and players), when there are any: a section
    of their own, whatever the filter (they are few and read as a list)."""
    hands = tagged_hands(con)
    players = player_notes(con)
    if hands.empty and players.empty:
        return []
    hands = hands.assign(tags=[", ".join(t) for t in hands["tags"]])
    hands.insert(1, "id", [hand_id_hex(int(h)) for h in hands["hand_id"]])
    return [Section("Tags and notes", "Hands starred, tagged or noted in the replayer (by "
                    "the hand's id, as the dashboard shows it) and notes on players.",
                    tables={"hand_notes": hands.drop(columns=["hand_id"]),
                            "player_notes": players})]


def statistics_sections(con: duckdb.DuckDBPyConnection, f: HandFilter,
                        games: Sequence[str]) -> list[Section]:
    """One section per game of ``games`` that has statistics: the grid as the dashboard
    draws it (cells ``12/40 (30%)``, intervals and definitions on hover, thin cells
    greyed), the cumulative results, the counts as a table (for the exports) and the
    definitions in words."""
    sections = []
    for game in games:
        try:
            stats_of(game)
        except ValueError:
            continue
        grid = stat_views.stat_grid(con, f, game=game)
        if grid.empty:
            continue
        name = statistics.GAME_NAMES[Game(game)]
        unit = stat_views.UNITS[Game(game)]
        results = stat_views.results_over_time(con, f, game=game)
        sections.append(Section(
            f"Statistics: {name}",
            "Each cell is count/opportunities (share); hover a cell for its 95 % Wilson "
            "interval and a header for its definition; cells with fewer than 30 "
            "opportunities are grey. The definitions follow the grid.",
            [statistics.results_figure(results, unit=unit,
                                       title=f"{name}: cumulative results ({unit})")],
            tables={f"{game}_statistics": grid,
                    f"{game}_definitions": statistics.definitions_frame(game)},
            html=statistics.GRID_STYLE + statistics.grid_html(grid, game)))
    return sections


_STYLE: Final = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1100px;color:#222;padding:0 1em}
h1{margin-bottom:0.2em} .meta{color:#666;margin-bottom:2em}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em}
th,td{border:1px solid #ddd;padding:0.25em 0.6em;text-align:right}
th{background:#f4f4f4} td:first-child,th:first-child{text-align:left}
section{margin-bottom:3em}
"""


def render_html(report: Report, *, max_rows: int = 500) -> str:
    """The report as one HTML document: plotly.js inline once, every chart and table embedded.

    Tables longer than ``max_rows`` are cut (the note says so); the full tables
    are in the CSV/XLSX/Parquet exports.
    """
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(report.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="meta">Filters: {escape(report.filter_text)}. '
        f"Generated {report.generated.isoformat(sep=' ')} by handlab.</p>",
    ]
    plotly_included = False
    for section in report.sections:
        parts.append(f"<section><h2>{escape(section.title)}</h2>")
        if section.text:
            parts.append(f"<p>{escape(section.text)}</p>")
        if section.html:
            parts.append(section.html)
        for figure in section.figures:
            parts.append(figure.to_html(full_html=False,
                                        include_plotlyjs=not plotly_included,
                                        config={"displaylogo": False}))
            plotly_included = True
        for name, frame in section.tables.items():
            parts.append(f"<h3>{escape(name)}</h3>")
            shown = frame.head(max_rows)
            parts.append(shown.to_html(index=False, escape=True, na_rep="",
                                       float_format=lambda v: f"{v:,.3f}"))
            if len(frame) > max_rows:
                parts.append(f"<p>First {max_rows:,} of {len(frame):,} rows.</p>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(con: duckdb.DuckDBPyConnection, f: HandFilter, out: Path, *,
                 table: str = "players", title: str = "handlab report") -> Path:
    """Write the report for ``f`` to ``out``; the suffix picks the format.

    ``.html``: the whole report; ``.xlsx``: every table of the report, a sheet
    each; ``.csv``/``.parquet``: the one table named ``table`` (:data:`TABLES`).
    """
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ValueError(f"cannot write {out.name}: use .html, .csv, .xlsx or .parquet")
    if suffix in ("csv", "parquet") and table not in TABLES:
        raise ValueError(f"unknown table {table!r} (expected one of {', '.join(TABLES)})")
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == "html":
        out.write_text(render_html(build_report(con, f, title=title)), encoding="utf-8")
    elif suffix == "xlsx":
        out.write_bytes(tables_xlsx(build_report(con, f, title=title).tables()))
    else:
        out.write_bytes(table_bytes(report_tables(con, f)[table], suffix))
    return out


def figures_of(report: Report) -> Sequence[go.Figure]:
    """Every chart of a report, in order (what the HTML embeds)."""
    return [figure for section in report.sections for figure in section.figures]
