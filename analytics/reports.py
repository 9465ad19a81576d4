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
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path
from typing import Final

import duckdb
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from analytics.dashboard import charts, filters, logic, statistics
from analytics.stats import stats_of
from analytics.warehouse.annotations import player_notes, tagged_hands
from analytics.warehouse.identity import hand_id_hex
from analytics.warehouse.sql import equity_views, queries, scores, stat_views, views
from analytics.warehouse.sql.views import HandFilter
from analytics.words import counted
from parsers.rule_options import GAME_NAMES, Game

__all__ = [
    "FORMATS",
    "FORMULA_STARTS",
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


FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads a cell beginning with as a formula (OWASP's list): a text cell
that begins so is written as text."""


def _text_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that a spreadsheet would run as a formula (a player
    named ``=HYPERLINK(...)``, a tag ``+1``) prefixed by ``'``, the quote by which a
    spreadsheet keeps a cell as the text typed; numbers and other cells as they are."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
            out[column] = values.map(
                lambda value: "'" + value if isinstance(value, str)
                and value.startswith(FORMULA_STARTS) else value)
    return out


def table_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """One table as ``csv``, ``xlsx`` or ``parquet`` bytes.  The spreadsheet formats keep
    every text as text: a CSV cell that would start a formula gets a leading ``'``
    (:func:`_text_as_text`), an XLSX cell is written as a string whatever it begins with
    (:func:`tables_xlsx`); the CSV opens with a UTF-8 byte-order mark, without which a
    spreadsheet reads ``Zoë`` as ``ZoÃ«``.  Parquet, for programs, holds the values as
    they are."""
    if fmt == "csv":
        return _text_as_text(frame).to_csv(index=False).encode("utf-8-sig")
    if fmt == "xlsx":
        return tables_xlsx({"data": frame})
    if fmt == "parquet":
        buffer = io.BytesIO()
        _plain(frame).to_parquet(buffer, index=False)
        return buffer.getvalue()
    raise ValueError(f"unknown table format {fmt!r} (expected csv, xlsx or parquet)")


def _sheet_name(name: str, used: set[str]) -> str:
    """``name`` as a sheet may be named: the characters Excel refuses (``[]:*?/\\``) as
    " -" or "-", at most 31 characters (cut at a word, with "…"), unique in ``used``."""
    base = " ".join("".join("-" if c in "[]*?/\\" else " -" if c == ":" else c
                            for c in name).split()) or "sheet"
    if len(base) > _XLSX_SHEET_CHARS:
        cut = base[:_XLSX_SHEET_CHARS - 1]
        if base[len(cut)] != " " and " " in cut:  # the cut is inside a word: drop it
            cut = cut.rsplit(" ", 1)[0]
        base = cut.rstrip(" ,-(") + "…"
    candidate, number = base, 2
    while candidate.lower() in used:
        suffix = f" {number}"
        candidate = base[:_XLSX_SHEET_CHARS - len(suffix)] + suffix
        number += 1
    used.add(candidate.lower())
    return candidate


def tables_xlsx(tables: Mapping[str, pd.DataFrame]) -> bytes:
    """Several tables as one workbook, a sheet each (names made valid and unique), and
    with several, a first sheet ``contents`` naming each sheet's table in full (a sheet's
    name holds 31 characters: "Win rates (scoring - cards…" twice says nothing).  Every
    text is a string cell: never a formula (a player named ``=1+2``) nor a link."""
    buffer = io.BytesIO()
    used: set[str] = {CONTENTS_SHEET} if len(tables) > 1 else set()
    sheets = {_sheet_name(name, used): frame for name, frame in tables.items()}
    if len(tables) > 1:
        sheets = {CONTENTS_SHEET: pd.DataFrame({"sheet": list(sheets),
                                                "table": list(tables)}), **sheets}
    options = {"strings_to_formulas": False, "strings_to_urls": False}
    with pd.ExcelWriter(buffer, engine="xlsxwriter",
                        engine_kwargs={"options": options}) as workbook:
        for sheet, frame in sheets.items():
            plain = _plain(frame)
            for column in plain.columns:  # Excel has no time zones
                if isinstance(plain[column].dtype, pd.DatetimeTZDtype):
                    plain[column] = plain[column].dt.tz_localize(None)
            plain.to_excel(workbook, sheet_name=sheet, index=False)
    return buffer.getvalue()


CONTENTS_SHEET: Final = "contents"
"""The first sheet of a workbook of several tables: each sheet's table by its full name."""


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
    roster: tuple[str, ...] = ()
    """Every player of the database: each is drawn in the colour he has on the dashboard's
    charts (``charts.as_drawn``)."""

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


REPORT_PLAYERS: Final = 16
"""Players a report's running-total chart draws at most (the most active; the biggest
winner and loser always): its title says how many of how many."""


def _with_unit(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (one per game and level) with a third column, ``unit``: what each row's
    mean is in (``chips per hand``, ``points per game``, ``win fraction``:
    :func:`logic.level_unit`).  Big Two's rank scoring has no points: its rows' ``net``
    (the games won the questions count as its result) is left empty, ``wins`` has them."""
    rows.insert(2, "unit", [logic.level_unit(str(g), str(level))[1]
                            for g, level in zip(rows["game"], rows["level"], strict=True)])
    rows["net"] = rows["net"].astype("Int64").mask(rows["level"] == views.RANK_LEVEL)
    return rows


def report_tables(con: duckdb.DuckDBPyConnection, f: HandFilter) -> dict[str, pd.DataFrame]:
    """The tables of :data:`TABLES` for the filter (what ``--table`` chooses from).

    ``players`` is one row per game, level and player (``views.results_by_level``), and
    ``positions`` one per game, level and position, each with the unit its numbers are in:
    a row never averages across units."""
    players = _with_unit(logic.with_confidence(views.results_by_level(con, f)))
    positions = _with_unit(logic.with_confidence(views.by_position(con, f, by_level=True)))
    return {
        "players": players.drop(columns=["net_sq"]),
        "overview": views.overview(con, f),
        "sessions": views.sessions(con, f),
        "hand_types": views.showdown_types(con, f),
        "positions": positions.drop(columns=["net_sq"]),
    }


def _cumulative(con: duckdb.DuckDBPyConnection, f: HandFilter, game: str,
                totals: pd.DataFrame, unit: str, *, title: str | None = None) -> go.Figure:
    """A game's running totals of :data:`REPORT_PLAYERS` players at most
    (:func:`logic.default_players`), the title saying how many of how many: each hand's
    whole net in the game's unit (7 & 8 in big blinds; ``stat_views.results_over_time``)."""
    chosen = logic.default_players(totals, most=REPORT_PLAYERS)
    curves = stat_views.results_over_time(con, replace(f, players=tuple(chosen)), game=game,
                                          top=max(1, len(chosen)), whole_round=True)
    return charts.cumulative(curves, unit=unit, of=int(totals["player"].nunique()),
                             per=logic.PER[game], title=title)


def _shown_types(types: pd.DataFrame, game: str) -> tuple[go.Figure, pd.DataFrame]:
    """The categories of one game's hands shown down: a chart and its table."""
    counts = types[types["game"] == game].groupby("category")["hands"].sum()
    table = pd.DataFrame({"category": logic.category_words(pd.Series(counts.index)),
                          "observed": counts.to_numpy()})
    table["observed_share"] = table["observed"] / max(1, int(table["observed"].sum()))
    figure = charts.observed_vs_theory(table, f"{GAME_NAMES[game]}: hands shown down")
    return figure, logic.human_table(table, _SHOWN_HEADERS, decimals=3)


_SHOWN_HEADERS: Final = {"category": "category", "observed": "hands shown",
                         "observed_share": "share"}


def _seveneight(con: duckdb.DuckDBPyConnection, f: HandFilter, results: pd.DataFrame,
                types: pd.DataFrame) -> Section:
    """The 7 & 8 section: big blinds per 100 hands, chips per stake level, running totals in
    big blinds, all-in luck, by position and by the card turned up, hands shown."""
    only = replace(f, game="seveneight")
    rates = logic.seveneight_big_blinds(results)
    by_seat = logic.in_big_blinds(views.by_position(con, only, by_level=True),
                                  ["players", "position"])
    cards = logic.up_card_table(views.by_up_card(con, f, by_level=True))
    allin = logic.allin_table(views.allin_totals(con, f, by_level=True))
    shown, shown_table = _shown_types(types, "seveneight")
    return Section(
        "7 & 8", "Results in big blinds per 100 hands: each stake's chips divided by its own "
        "big blind (the stake's opening bet) before anything is added; chips per hand at each "
        "stake level in their own table. 95 % confidence intervals: mean ± 1.96·sd/√n.",
        [charts.bar_with_ci(rates, x="player", mean="bb_per_100",
                            title="7 & 8: win rate per player (big blinds per 100 hands)",
                            y_title="big blinds per 100 hands"),
         _cumulative(con, f, "seveneight", rates[["player", "hands", "net_bb"]].rename(
             columns={"net_bb": "net"}), "big blinds", title="7 & 8: cumulative big blinds"),
         charts.bar_with_ci(by_seat.assign(players=by_seat["players"].astype(str)),
                            x="position", color="players", mean="bb_per_100",
                            title="7 & 8 by position (colour: players at the table)",
                            y_title="big blinds per 100 hands"),
         charts.bar_with_ci(cards, x="up_rank", mean="bb_per_100",
                            title="7 & 8 by the card turned up", x_title="rank turned up",
                            x_order=list("23456789TJQKA"),
                            y_title="big blinds per 100 hands"),
         shown],
        {"Win rates (big blinds per 100 hands)": logic.human_table(rates, logic.BB_HEADERS),
         "Result per hand at each stake level": logic.level_table(results, "seveneight"),
         "All-in adjusted results and luck": logic.human_table(allin, logic.ALLIN_HEADERS),
         "By position": logic.human_table(by_seat, logic.POSITION_BB_HEADERS),
         "By the card turned up": logic.human_table(cards, logic.UP_CARD_HEADERS),
         "Hands shown down (7 & 8)": shown_table})


def _level_figures(con: duckdb.DuckDBPyConnection, f: HandFilter, game: str,
                   results: pd.DataFrame) -> tuple[list[go.Figure], dict[str, pd.DataFrame]]:
    """Per level of ``game`` (each scoring rule; each stakes and ante): the win rates and the
    running totals, in that level's own unit (:func:`logic.level_unit`)."""
    figures: list[go.Figure] = []
    tables: dict[str, pd.DataFrame] = {}
    name = GAME_NAMES[game]
    for level in logic.game_levels(results, game):
        unit, mean = logic.level_unit(game, level)
        words = logic.level_words(level)
        table = logic.level_results(results[results["level"] == level], game)
        narrowed = views.level_filter(f, game, level)
        figures.append(charts.bar_with_ci(
            table, x="player", title=f"{name}: win rate per player ({words})",
            y_title=mean, per=f"{logic.PER[game]}s"))
        figures.append(_cumulative(con, narrowed, game, table[["player", "hands", "net"]],
                                   unit, title=f"{name}: cumulative {unit} ({words})"))
        tables[f"Win rates ({words})"] = logic.level_table(
            results[results["level"] == level], game)
    return figures, tables


def _bigtwo(con: duckdb.DuckDBPyConnection, f: HandFilter, results: pd.DataFrame,
            types: pd.DataFrame) -> Section:
    """The Big Two section: per scoring rule the win rates, running totals, every game by
    finishing place, the cards left and the results by 2s held (none where only score
    sheets, which record no deal, were played under a rule); what the deals hold."""
    figures, tables = _level_figures(con, f, "bigtwo", results)
    for level in logic.game_levels(results, "bigtwo"):
        narrowed = views.level_filter(f, "bigtwo", level)
        mean, words = logic.level_unit("bigtwo", level)[1], logic.level_words(level)
        places = logic.bigtwo_place_table(views.bigtwo_places(con, narrowed))
        figures.append(charts.places(places, f"Big Two: {logic.places_title(level)}"))
        tables[f"Games by finishing place ({words})"] = logic.human_table(
            places, logic.PLACE_HEADERS)
        left = views.bigtwo_cards_left(con, narrowed)
        if not left.empty:  # finishing order plays every game out: none left to count
            figures.append(charts.cards_left(left))
            tables[f"Cards left at the end ({words})"] = logic.human_table(
                left, logic.CARDS_LEFT_HEADERS)
        twos = logic.feature_table(equity_views.bigtwo_feature_results(con, narrowed,
                                                                       feature="twos"), level)
        if twos.empty:  # score sheets' games alone: no deal, so no 2s held to count
            continue
        figures.append(charts.bar_with_ci(twos, x="bin", color="player",
                                          title=f"Big Two: {mean} by 2s held ({words})",
                                          x_title="2s held", y_title=mean, per="games"))
        tables[f"By 2s held ({words})"] = logic.human_table(
            twos, logic.feature_headers("2s held", level))
    held = logic.held_words(logic.bigtwo_held_table(equity_views.bigtwo_dealt(con, f)))
    for label, table in logic.held_groups(held):
        figures.append(charts.observed_vs_theory(
            table, f"Big Two: deals holding each kind ({label})", x_title="kind"))
    tables["What the deals hold against theory"] = logic.human_table(
        held, logic.HELD_HEADERS, decimals=4)
    shown, shown_table = _shown_types(types, "bigtwo")
    if len(shown_table):
        figures.append(shown)
        tables["Hands shown down (Big Two)"] = shown_table
    return Section(
        "Big Two", "Points per game under each scoring rule on its own (points under one "
        "rule are not points under another; under rank scoring, finishing order, no points "
        "change hands: the win fraction and games won); under each rule every game counted "
        "by finishing place, a "
        f"player still holding cards at the end as '{logic.NOT_OUT}'; what the deals hold "
        "against the exact theory (a two-sided binomial test per kind).", figures, tables)


def _rummoli(con: duckdb.DuckDBPyConnection, f: HandFilter, results: pd.DataFrame,
             types: pd.DataFrame) -> Section:
    """The Rummoli section: per stakes and ante the win rates, running totals and the result
    by part; the nine pots; carry-over growth; poker strength against the realised share."""
    figures, tables = _level_figures(con, f, "rummoli", results)
    for level in logic.game_levels(results, "rummoli"):
        narrowed, words = views.level_filter(f, "rummoli", level), logic.level_words(level)
        unit = logic.filter_unit(narrowed)  # the level's currency, or chips
        split = logic.split_table(views.rummoli_split(con, narrowed), list(views.SPLIT_PARTS))
        figure = charts.split_bars(split, list(views.SPLIT_PARTS), unit)
        figure.update_layout(title={"text": f"Rummoli result per round, by part ({words})"})
        figures.append(figure)
        tables[f"Result by part ({words})"] = logic.human_table(
            split, logic.split_headers(list(views.SPLIT_PARTS), unit))
        pots = logic.pot_summary(views.pot_winners(con, narrowed))
        growth = logic.pot_growth(views.pot_streaks(con, narrowed))
        figure = charts.pot_growth(growth, unit)
        figure.update_layout(title={"text": f"Pot growth: observed against expected ({words})"})
        figures.append(figure)
        tables[f"The nine pots: how often won, and by whom ({words})"] = logic.human_table(
            pots, logic.pot_summary_headers(unit))
        tables[f"Pot growth: observed against expected ({words})"] = logic.human_table(
            growth, logic.pot_growth_headers(unit))
    shares = logic.share_vs_expected(equity_views.rummoli_share_by_player(con, f))
    calibration = logic.calibration_table(equity_views.rummoli_calibration(con, f))
    figures += [charts.share_vs_expected(shares), charts.calibration(calibration)]
    tables["Best-hand share against strength"] = logic.human_table(
        shares, logic.SHARE_HEADERS, decimals=3)
    tables["Calibration of the strength"] = logic.human_table(
        calibration, logic.CALIBRATION_HEADERS, decimals=3)
    shown, shown_table = _shown_types(types, "rummoli")
    if len(shown_table):
        figures.append(shown)
        tables["Hands shown down (Rummoli)"] = shown_table
    return Section(
        "Rummoli", "Under each stakes and ante on its own: chips per round, split into the "
        "parts of the round; the nine pots: how often won and by whom in the rounds played "
        "for them (the end-of-game rounds play the leftover board off as one poker hand, the "
        "finale), and carry-over growth against every ante paid in staying on the pot. The "
        "best-hand share (the poker pot's share at a showdown of every hand) realised against "
        "the share expected from each player's strength.", figures, tables)


_SECTIONS: Final = {"seveneight": _seveneight, "bigtwo": _bigtwo, "rummoli": _rummoli}


def build_report(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                 title: str = "handlab report") -> Report:
    """What the dashboard shows for ``f``, as report sections: the overview, then a section
    per game in that game's own units."""
    tables = report_tables(con, f)
    games = _games(con, f)
    overview = tables["overview"]
    sections = [Section(
        "Overview",
        f"{counted(int(overview['hands'].sum()), 'hand')} in "
        f"{counted(len(games), 'game')}.",
        [charts.hands_over_time(views.hands_over_time(con, f, bucket="week"), "week")],
        {"Hands by game": logic.human_table(
            overview.assign(game=overview["game"].map(GAME_NAMES)),
            logic.OVERVIEW_HEADERS),
         "Sessions": logic.human_table(
            tables["sessions"].assign(game=tables["sessions"]["game"].map(GAME_NAMES)),
            logic.SESSION_HEADERS)},
    )]
    results = views.results_by_level(con, f)
    types = tables["hand_types"]
    ordered = [game for game in _SECTIONS if game in games]  # 7 & 8, Big Two, Rummoli
    for game in ordered:
        sections.append(_SECTIONS[game](con, f, results, types))
        if game == "bigtwo":
            sections.append(_score_keeper_section(con, f))
    sections.extend(statistics_sections(con, f, ordered, results))
    sections.extend(notes_sections(con))
    sections.append(files_section(con))
    roster = filters.options_from_frame(views.filter_options(con)).players
    return Report(title, f.describe(), dt.datetime.now().replace(microsecond=0), sections,
                  roster)


def _score_keeper_section(con: duckdb.DuckDBPyConnection, f: HandFilter) -> Section:
    """Big Two as a score keeper counts it (analytics.warehouse.sql.scores): the summary and the
    three scatter plots of the dashboard's Win rates page."""
    summary = scores.bigtwo_score_summary(con, f)
    line = logic.zero_sum_line(summary, scores.seats_per_game(con, f))
    sheets = scores.outcome_only_games(con, f)
    text = ("Per player: games, wins, fries, real losses (cards left, doubled when fried, "
            "tripled with 13) and zero-sum net score, with their per-game values; regular "
            "players (a quarter of the games or more) marked; "
            + logic.SCORE_KEEPER_NOTE + " " + logic.TABLE_ROW_NOTE + " "
            "Real losses per game against win fraction, fry fraction and net score per game, "
            "the last with the theoretical line s = n(l* − l).")
    if sheets:
        text += (f" {sheets:,} of the games are outcome-only (score sheets): the sections "
                 "that need the deal or the plays leave them out.")
    if line is not None:
        text += " " + logic.zero_sum_words(line)
    return Section("Big Two score keeper", text,
                   [charts.score_scatter(summary, y, line) for y in charts.SCORE_AXES],
                   {"Score keeper's summary": logic.score_keeper_table(summary)})


def files_section(con: duckdb.DuckDBPyConnection) -> Section:
    """What went into the database, whatever the filter, as the Overview shows it: every
    file loaded, and the hands rejected (the latest 1,000) with their reasons."""
    rejected = views.rejects(con, limit=1000)
    tables = {"Files loaded": logic.files_table(queries.files(con))}
    if rejected.empty:
        text = ("Every file in the database, newest first (these follow no filter). No hand "
                "was rejected.")
    else:
        tables["Rejected hands"] = logic.rejects_table(rejected)
        text = ("Every file in the database, newest first, and the hands rejected with the "
                "line and the reason (these follow no filter; the latest 1,000 listed).")
    return Section("Files and data quality", text, tables=tables)


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
                    tables={"Hands starred, tagged or noted": hands.drop(columns=["hand_id"]),
                            "Notes on players": players})]


def statistics_sections(con: duckdb.DuckDBPyConnection, f: HandFilter,
                        games: Sequence[str], results: pd.DataFrame) -> list[Section]:
    """One section per game of ``games`` that has statistics: the grid as the dashboard
    draws it (cells ``12/40 (30%)``, intervals and definitions on hover, thin cells
    greyed), the cumulative results (under each level of ``results``,
    ``views.results_by_level``, on its own), the counts as a table (for the exports) and
    the definitions in words."""
    sections = []
    for game in games:
        try:
            stats_of(game)
        except ValueError:
            continue
        # Played under several scoring rules (antes): a row per rule, whose results are in
        # one unit, as the page opens; Big Two's running points only under one rule.
        levels = stat_views.stat_levels(con, f, game=game)
        rules = statistics.result_levels(game, levels, results)
        split = statistics.level_split(game, levels, rules)
        grid = stat_views.stat_grid(con, f, game=game, split=split)
        if grid.empty:
            continue
        name = GAME_NAMES[Game(game)]
        figures = []
        text = ("Each cell is count/opportunities (share), a ratio count:calls (AF), a mean "
                "total in opportunities; hover a cell for its 95 % Wilson "
                "interval and a header for its definition; cells with fewer than 30 "
                "opportunities are grey. The definitions follow the grid.")
        if split == "stakes":  # Rummoli at one ante, in several currencies
            text += " Played in more than one currency: a row per player and stakes."
        elif split is not None:
            words = statistics.SPLIT_NAMES[split]
            text += (f" Played under more than one {words} "
                     f"({statistics.levels_text(game, levels)}): a row per player and {words}.")
        for note in (statistics.rank_note(game, levels), statistics.currency_note(game, grid)):
            if note is not None:
                text += " " + note
        if len(rules) > 1:
            text += (" Running results under each scoring rule (Rummoli: stakes and ante) on "
                     "its own.")
            for rule in rules:
                scope, unit = statistics.rule_scope(f, game, rule)
                words = statistics.level_scope(game, rule)
                figures.append(statistics.results_figure(
                    stat_views.results_over_time(con, scope, game=game), unit=unit,
                    title=f"{name}: cumulative results ({unit}; {words})"))
        else:
            scope, unit = (statistics.rule_scope(f, game, rules[0]) if rules
                           else statistics.results_scope(f, game, levels))
            figures.append(statistics.results_figure(
                stat_views.results_over_time(con, scope, game=game), unit=unit,
                title=f"{name}: cumulative results ({unit})"))
        keys = ("player", split) if split else ("player",)
        sections.append(Section(
            f"Statistics: {name}", text, figures,
            tables={f"Statistics counts ({name})": statistics.counts_table(grid, game),
                    f"Definitions ({name})": statistics.definitions_frame(game)},
            html=statistics.GRID_STYLE + statistics.grid_html(grid, game, keys=keys)))
    return sections


_STYLE: Final = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1100px;color:#222;padding:0 1em}
h1{margin-bottom:0.2em} .meta{color:#666;margin-bottom:2em}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em}
th,td{border:1px solid #ddd;padding:0.25em 0.6em;text-align:right}
th{background:#f4f4f4} td:first-child,th:first-child{text-align:left}
section{margin-bottom:3em}
.contents{background:#f8f8f8;border:1px solid #ddd;padding:0.5em 1.5em;margin-bottom:2em}
.contents ul{font-size:0.9em;margin:0.2em 0 0.6em}
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
    parts.append(_contents(report))
    plotly_included = False
    for number, section in enumerate(report.sections, start=1):
        parts.append(f'<section id="s{number}"><h2>{escape(section.title)}</h2>')
        if section.text:
            parts.append(f"<p>{escape(section.text)}</p>")
        if section.html:
            parts.append(section.html)
        for figure in section.figures:
            drawn = charts.as_drawn(figure, report.roster)
            parts.append(drawn.to_html(full_html=False,
                                       include_plotlyjs=not plotly_included,
                                       config={"displaylogo": False}))
            plotly_included = True
        for table_number, (name, frame) in enumerate(section.tables.items(), start=1):
            parts.append(f'<h3 id="s{number}-t{table_number}">{escape(name)}</h3>')
            shown = frame.head(max_rows)
            counts = {column: shown[column].map(_count)
                      for column in logic.grouped_columns(shown)}
            parts.append(_left_aligned(shown, f"s{number}-t{table_number}-rows"))
            parts.append(shown.assign(**counts).to_html(
                index=False, escape=True, na_rep="", float_format=_number,
                table_id=f"s{number}-t{table_number}-rows"))
            if len(frame) > max_rows:
                parts.append(f"<p>First {max_rows:,} of {len(frame):,} rows.</p>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _left_aligned(frame: pd.DataFrame, table_id: str) -> str:
    """A style rule that sets the text columns of the table ``table_id`` left, as text is
    read (the style sheet sets every cell right, for the numbers, and the first column
    left); "" when only the first column is text."""
    selectors = [f"#{table_id} td:nth-child({at}),#{table_id} th:nth-child({at})"
                 for at, column in enumerate(frame.columns, start=1)
                 if at > 1 and _is_text(frame[column])]
    return f"<style>{','.join(selectors)}{{text-align:left}}</style>" if selectors else ""


def _is_text(values: pd.Series) -> bool:
    """Whether a column holds words (names, games, reasons) rather than numbers or days."""
    return (pd.api.types.is_object_dtype(values.dtype)
            or pd.api.types.is_string_dtype(values.dtype)) and not values.dropna().map(
        lambda value: isinstance(value, int | float | dt.date)).any()


def _count(value: object) -> str:
    """A whole number in a report table, thousands separated (``2,000``); "" when missing
    (``<NA>`` of a nullable integer column)."""
    return f"{value:,}" if isinstance(value, int | np.integer) else ""


def _number(value: float) -> str:
    """A fractional number in a report table: thousands separated, at most three
    decimals, no trailing zeros (``1,234.5``, ``0.125``, ``3``)."""
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _contents(report: Report) -> str:
    """The report's table of contents: each section, and its tables, linked."""
    items = []
    for number, section in enumerate(report.sections, start=1):
        tables = "".join(f'<li><a href="#s{number}-t{t}">{escape(name)}</a></li>'
                         for t, name in enumerate(section.tables, start=1))
        items.append(f'<li><a href="#s{number}">{escape(section.title)}</a>'
                     f"<ul>{tables}</ul></li>")
    return f'<nav class="contents"><h2>Contents</h2><ol>{"".join(items)}</ol></nav>'


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
