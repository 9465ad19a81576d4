"""A list of hands as the dashboard shows it: the search page's results, and the hands
behind a statistic's cell, a session, a point of the results over time or a bar.

One component, :func:`show_hands`: how many hands, a table whose ``open`` link shows each
hand in the replayer (by its 16-hex id), and the downloads.  The rows are what
:func:`analytics.warehouse.sql.search.describe_hands` and ``search_hands`` return, with any
columns the caller adds (a statistic's count per hand).  :func:`list_behind` draws the rows
of ``stat_views.stat_hands`` or ``session_hands`` with it, and :func:`picked_point` reads
the point or bar a click on a chart (``ui.plotly_chart(..., on_select="rerun")``) chose.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.dashboard import ui
from analytics.warehouse.sql.search import describe_hands
from analytics.words import counted
from parsers.rule_options import GAME_NAMES

__all__ = ["LISTED", "Bar", "bar_list", "list_behind", "picked_bar", "picked_point",
           "show_hands"]

LISTED: Final = 500
"""The hands behind a cell, a session, a point or a bar listed (the first of them)."""


def show_hands(found: pd.DataFrame, *, key: str, name: str, note: str = "",
               column_config: Mapping[str, Any] | None = None) -> None:
    """Draw ``found`` (rows of ``search.describe_hands``): "N hands" and ``note``, the
    table with the replayer's link ("open"), each game by its name ("7 & 8"), the pot and
    a ``net`` column headed with their unit when the hands share one ("pot (chips)", "net
    (USD)", "net (points)" for Big Two), else beside each hand (its ``unit``: chips of
    two currencies, or chips and points, are not one number), and the CSV, XLSX and
    Parquet downloads named ``name``."""
    units = set(found["unit"]) if "unit" in found.columns else set()
    if len(units) <= 1:
        unit = units.pop() if units else "chips"
        found = found.drop(columns=["unit"], errors="ignore").rename(
            columns={column: f"{column} ({unit})" for column in ("pot", "net")})
    if "game" in found.columns:
        found = found.assign(game=found["game"].map(GAME_NAMES).fillna(found["game"]))
    st.markdown(f"**{counted(len(found), 'hand')}**{note}")
    ui.dataframe(found.drop(columns=["hand_id"]), hide_index=True, key=f"hands_{key}",
                 column_config={
                     "replay": st.column_config.LinkColumn("replay", display_text="open"),
                     "day": st.column_config.DateColumn("day"),
                     "time": st.column_config.TimeColumn("time"),
                     **(column_config or {})})
    ui.download_buttons(found, name, key=key)


def list_behind(behind: pd.DataFrame, *, key: str, name: str) -> None:
    """Hands (``hand_id`` and any of ``counted``, ``opportunities``, ``net`` per hand, in
    the order given) drawn as the search page lists them, the first :data:`LISTED` (asked
    uncached: tags change).  A hand given more than once (a bar over every player's seats)
    is listed once, with the sums of its seats."""
    extra = [c for c in ("counted", "opportunities", "net") if c in behind.columns]
    if behind["hand_id"].duplicated().any():
        behind = behind.groupby("hand_id", sort=False, as_index=False)[extra].sum()
    shown = behind.head(LISTED)
    with ui.reading(ui.context().db) as con:
        found = describe_hands(con, shown["hand_id"].tolist())
    found = found.merge(shown[["hand_id", *extra]], on="hand_id", how="left")
    note = (f" of {len(behind):,} (the first {LISTED:,} listed)"
            if len(behind) > LISTED else "")
    show_hands(found, key=key, name=name, note=note)


def picked_point(chosen: Any) -> Mapping[str, Any] | None:
    """The first point (or bar) a click selected on a chart drawn with
    ``on_select="rerun"``: its ``x``, ``y``, ``curve_number`` and ``point_index``; None
    when nothing is selected."""
    if chosen is None:
        return None
    points = chosen["selection"]["points"]
    if not points:
        return None
    point = dict(points[0])
    if isinstance(point.get("x"), str):  # drawn escaped (charts.as_drawn): the value again
        point["x"] = html.unescape(point["x"])
    return point


@dataclass(frozen=True, slots=True)
class Bar:
    """A bar a click chose: its ``x`` (as the axis shows it) and its trace's ``name`` (the
    colour's value: a player, a table size, a pot, a game; "" for a chart of one trace)."""

    x: str
    name: str


def picked_bar(figure: go.Figure, chosen: Any) -> Bar | None:
    """The bar a click selected on ``figure`` (drawn with ``on_select="rerun"``), None when
    nothing is selected.  Its x is read from the trace's data at the point's index: on a
    numeric axis plotly gives a grouped bar's drawn place (``-0.36`` for the first of
    several bars at 0), not its value."""
    point = picked_point(chosen)
    if point is None:
        return None
    trace = figure.data[int(point["curve_number"])]
    index = point.get("point_index")
    x = point["x"] if index is None or trace.x is None else trace.x[int(index)]
    return Bar(x=str(x), name=str(trace.name or ""))


def bar_list(behind: pd.DataFrame, *, title: str, key: str, name: str) -> None:
    """The hands behind a clicked bar (rows as :func:`list_behind` takes them): "title: N
    hands." (with "(M seats)" when a bar counts several seats of a hand: every player's
    seats of a category) and the list."""
    hands = behind["hand_id"].nunique()
    seats = f" ({counted(len(behind), 'seat')})" if len(behind) != hands else ""
    st.markdown(f"**{ui.literal(title)}**: {counted(hands, 'hand')}{seats}.")
    list_behind(behind, key=f"bar_{key}", name=name)
