"""Plotly figure builders: pure functions of DataFrames, shared by the dashboard and reports.

No Streamlit here, so :mod:`analytics.reports` can embed the same figures in an
offline HTML report.  Every builder accepts an empty frame and returns a figure
that says there is nothing to show instead of failing.

The builders use ``plotly.graph_objects`` with a few layout settings rather
than ``plotly.express`` and a named template: on the project's machine
express costs about 0.15 s and a template 0.07 s per figure, against under
0.01 s for plain traces, and a page shows several figures (docs/performance.md).
"""

from __future__ import annotations

import functools
import html
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from analytics.dashboard.cards import RUMMOLI_POT_WORDS, pot_words
from parsers.model import RUMMOLI_POTS
from parsers.rule_options import GAME_NAMES

__all__ = [
    "PLAYERS_ON_X",
    "PLAYER_META",
    "POT_COLOURS",
    "as_drawn",
    "bar_with_ci",
    "board_areas",
    "calibration",
    "cards_left",
    "cumulative",
    "empty",
    "grouped_bars",
    "hands_over_time",
    "observed_vs_theory",
    "places",
    "player_colours",
    "pot_growth",
    "score_scatter",
    "share_vs_expected",
    "split_bars",
    "streak_lengths",
    "zero_sum_formula",
]

_GRID = "#e5e5e5"

PALETTE: Final = (
    "#1f77b4", "#f38400", "#2ca02c", "#be0032", "#875692", "#e377c2", "#848482", "#8db600",
    "#17becf", "#f3c300", "#882d17", "#008856", "#e68fac", "#654522", "#a1caf1", "#2b3d26",
    "#f99379", "#b3446c", "#c2b280", "#e25822",
)
"""A qualitative palette of 20 colours far apart on a white page, one per player within a
chart: Kelly's colours of maximum contrast and plotly's D3 ten, without white and black and
without the six that stood within a CIE76 distance of 19 of another (two blues, two
purples, two reds, two yellows and two browns read as one colour in a legend); every two
are at least 22 apart."""


def player_colours(names: Iterable[str], roster: Iterable[str] = ()) -> dict[str, str]:
    """One distinct colour per name, the same for a name on every chart and page.

    Over the ``roster`` (every player of the database, where the caller knows it) each
    name is given a colour once: its place in :data:`PALETTE` by a stable hash (CRC-32 of
    its text, not Python's salted ``hash``), the later in name order taking the next free
    one when two land on one.  A chart's names keep those colours, so a roster of up to
    the palette's 20 players colours each of them alike everywhere; past that, a name whose
    colour another of the chart already has takes the next free one, so the chart's
    colours stay distinct (up to the palette's size, then they repeat).
    """
    chart = sorted(set(names))
    preferred = _slots(sorted(set(roster) | set(chart)), {})
    return {name: PALETTE[slot] for name, slot in _slots(chart, preferred).items()}


def _slots(names: Sequence[str], preferred: Mapping[str, int]) -> dict[str, int]:
    """Palette places for ``names`` in order, each its ``preferred`` place (else its
    hash's) or the next one free among them; the places are reused once all are taken."""
    slots: dict[str, int] = {}
    used: set[int] = set()
    for name in names:
        slot = preferred.get(name, zlib.crc32(name.encode("utf-8")) % len(PALETTE))
        for step in range(len(PALETTE)):
            if (slot + step) % len(PALETTE) not in used:
                slot = (slot + step) % len(PALETTE)
                break
        used.add(slot)
        if len(used) == len(PALETTE):
            used.clear()
        slots[name] = slot
    return slots


POT_COLOURS: Final = {words: PALETTE[place]
                      for place, words in enumerate(RUMMOLI_POT_WORDS.values())}
"""Each Rummoli pot's colour (by its words, ``cards.pot_words``), the same on every chart
of the pots: the board, carry-over, growth."""


PLAYER_META: Final = "player"
"""A trace's ``meta`` key naming the player it is drawn for (its colour is his)."""
PLAYERS_ON_X: Final = "players_on_x"
"""A bar trace's ``meta`` key: its x values are players, each bar in his colour."""


def _colour_players(figure: go.Figure, roster: Iterable[str]) -> None:
    """Colour ``figure``'s players' traces (tagged :data:`PLAYER_META` or
    :data:`PLAYERS_ON_X`) by :func:`player_colours` over ``roster``, in place."""
    def meta(trace: Any) -> dict[str, Any]:
        return trace.meta if isinstance(trace.meta, dict) else {}

    names = [str(meta(t)[PLAYER_META]) for t in figure.data if PLAYER_META in meta(t)]
    names += [str(x) for t in figure.data if meta(t).get(PLAYERS_ON_X) for x in t.x]
    if not names:
        return
    colours = player_colours(names, roster)
    for trace in figure.data:
        tags = meta(trace)
        if PLAYER_META in tags:
            colour = colours[str(tags[PLAYER_META])]
            if isinstance(trace, go.Bar):
                trace.marker.color = colour
            else:
                trace.line.color = colour
        elif tags.get(PLAYERS_ON_X):
            trace.marker.color = [colours[str(x)] for x in trace.x]


TEXT_PROPERTIES: Final = ("name", "x", "y", "text", "hovertext", "customdata")
"""The properties of a trace whose words plotly draws (in the legend, on an axis, in a
hover) and reads a subset of HTML in."""
_LAYOUT_TEXTS: Final = ("title", "xaxis.title", "yaxis.title", "legend.title")
_AXIS_TEXTS: Final = ("categoryarray", "ticktext")


def _escaped(value: Any) -> Any:
    """``value`` (a text, or a sequence of values, nested) with each text HTML-escaped."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, tuple | list | np.ndarray):
        items = list(value)
        if any(isinstance(item, str | tuple | list | np.ndarray) for item in items):
            return [_escaped(item) for item in items]
    return value  # numbers, dates: nothing plotly would read as HTML


def as_drawn(figure: go.Figure, roster: Iterable[str] = ()) -> go.Figure:
    """A copy of ``figure`` as the pages and the report draw it: each player in the colour
    he has on every chart of the database (over ``roster``), and its words drawn as
    written.  ``figure`` is untouched: a click on the copy reads back against it through
    ``hand_list``'s pickers.

    Plotly reads ``<a href>``, ``<b>`` and entities in trace names, category labels and
    hovers, so a player named ``<a href="https://...">Bo</a>`` was a link in the legend:
    what people and files name is escaped (plotly shows ``&lt;`` as ``<``), the figure's
    own hover templates are kept."""
    shown = _copy(figure)
    _colour_players(shown, roster)
    for trace in shown.data:
        for prop in TEXT_PROPERTIES:
            if prop in trace and trace[prop] is not None:  # a property of this kind of trace
                trace[prop] = _escaped(trace[prop])
    for path in _LAYOUT_TEXTS:
        text = shown.layout[path].text if shown.layout[path] is not None else None
        if isinstance(text, str):
            shown.layout[path].text = html.escape(text, quote=False)
    for axis in ("xaxis", "yaxis"):  # an axis's order names its categories as the data does
        for prop in _AXIS_TEXTS:
            value = shown.layout[axis][prop]
            if value is not None:
                shown.layout[axis][prop] = _escaped(value)
    return shown


def _copy(figure: go.Figure) -> go.Figure:
    """A copy of ``figure``.  Plotly checks every property of the figure it copies, the
    default template's hundreds too (about two thirds of a copy's time): a figure under
    the default template is copied without it, and the copy takes the default again."""
    layout = figure.layout.to_plotly_json()
    if layout.get("template") == _default_template(str(pio.templates.default)):
        del layout["template"]
    return go.Figure(data=figure.data, layout=layout, frames=figure.frames)


@functools.cache
def _default_template(name: str) -> object:
    """The default template ``name`` (``plotly.io.templates.default``) as a figure's
    layout holds it."""
    return go.Figure().layout.template.to_plotly_json()


def _figure(title: str, *, height: int = 380, barmode: str | None = None,
            x_title: str | None = None, y_title: str | None = None,
            **layout: Any) -> go.Figure:
    """An empty figure with the project's light look (no template: see the module docstring)."""
    figure = go.Figure()
    figure.update_layout(
        title={"text": title}, height=height, plot_bgcolor="white", paper_bgcolor="white",
        margin={"l": 60, "r": 20, "t": 50, "b": 50}, barmode=barmode,
        xaxis={"title": {"text": x_title}, "gridcolor": _GRID},
        yaxis={"title": {"text": y_title}, "gridcolor": _GRID, "zerolinecolor": "#bbb"},
        **layout)
    return figure


def empty(title: str, message: str = "No hands match the filters.") -> go.Figure:
    """A blank figure carrying ``message``."""
    figure = _figure(title, height=300)
    figure.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper",
                          yref="paper", font={"size": 14})
    figure.update_layout(xaxis={"visible": False}, yaxis={"visible": False})
    return figure


def _groups(frame: pd.DataFrame, column: str | None,
            order: Iterable[str] | None = None) -> list[tuple[str, pd.DataFrame]]:
    """Rows split by ``column`` (in ``order`` when given), or one unnamed group."""
    if column is None:
        return [("", frame)]
    names = [str(v) for v in frame[column].dropna().unique()]
    if order is not None:
        wanted = list(order)
        names = [n for n in wanted if n in names] + sorted(n for n in names if n not in wanted)
    else:
        names.sort()
    return [(name, frame[frame[column].astype(str) == name]) for name in names]


def grouped_bars(frame: pd.DataFrame, *, x: str, y: str, color: str | None, title: str,
                 barmode: str = "group", x_title: str | None = None,
                 y_title: str | None = None, order: Iterable[str] | None = None,
                 height: int = 380, x_order: Sequence[str] | None = None) -> go.Figure:
    """Bars of ``y`` against ``x``, one trace per value of ``color`` (a column of player
    names gets each player's own colour, :func:`player_colours`); ``x_order`` makes the x
    axis categorical in that order (text that looks like numbers stays text)."""
    if frame.empty:
        return empty(title)
    figure = _figure(title, barmode=barmode, x_title=x_title or x, y_title=y_title or y,
                     height=height)
    groups = _groups(frame, color, order)
    players = color in _PLAYER_COLUMNS
    colours = (player_colours(name for name, _ in groups) if players else
               POT_COLOURS if color == "pot" else {})
    for name, rows in groups:
        marker = {"color": colours[name]} if name in colours else None
        figure.add_trace(go.Bar(x=rows[x], y=rows[y], name=name or y, marker=marker,
                                meta={PLAYER_META: name} if players else None))
    if x_order is not None:
        _categorical_x(figure, x_order)
    if order is not None:  # a stack's legend in the given order, not reversed
        figure.update_layout(legend={"traceorder": "normal"})
    return figure


_PLAYER_COLUMNS: Final = frozenset({"player", "won_by_player"})
"""Columns whose values are player names: charts colour them with :func:`player_colours`."""


def _categorical_x(figure: go.Figure, order: Sequence[str]) -> None:
    """A categorical x axis in ``order``: plotly reads text like ``2``...``9`` as numbers
    and drops ``T``...``A`` from such an axis otherwise."""
    figure.update_xaxes(type="category", categoryorder="array", categoryarray=list(order))


def hands_over_time(frame: pd.DataFrame, bucket: str = "week") -> go.Figure:
    """Stacked bars of hands per period and game (``period``, ``game``, ``hands``), each game
    under its name (a Big Two bar counts games, a Rummoli bar rounds); the axis says which
    ``bucket`` (``views.BUCKETS``) a bar is."""
    named = frame.assign(game=frame["game"].map(lambda g: GAME_NAMES.get(str(g), str(g))))
    return grouped_bars(named, x="period", y="hands", color="game", title="Hands over time",
                        barmode="stack", x_title=_BUCKET_WORDS.get(bucket, bucket),
                        y_title="hands (games, rounds)")


_BUCKET_WORDS: Final = {"day": "day", "week": "week (from its Monday)", "month": "month",
                        "year": "year"}


def bar_with_ci(frame: pd.DataFrame, *, x: str, title: str, color: str | None = None,
                y_title: str = "mean net per hand", mean: str = "mean",
                x_title: str | None = None, x_order: Sequence[str] | None = None,
                per: str = "hands") -> go.Figure:
    """Bars of ``mean`` with 95 % error bars from ``ci_low``/``ci_high``; the x axis is
    categorical (in ``x_order`` when given, else as the rows come)."""
    if frame.empty:
        return empty(title)
    figure = _figure(title, barmode="group", x_title=x_title or x, y_title=y_title)
    groups = _groups(frame, color)
    colours = player_colours(name for name, _ in groups) if color in _PLAYER_COLUMNS else {}
    single = player_colours(frame[x].astype(str)) if x in _PLAYER_COLUMNS else {}
    for name, rows in groups:
        plus = (rows["ci_high"] - rows[mean]).fillna(0)
        minus = (rows[mean] - rows["ci_low"]).fillna(0)
        marker = ({"color": colours[name]} if name in colours else
                  {"color": [single[str(v)] for v in rows[x]]} if single else None)
        meta = ({PLAYER_META: name} if name in colours else
                {PLAYERS_ON_X: True} if single else None)
        figure.add_trace(go.Bar(
            x=rows[x].astype(str), y=rows[mean], name=name or y_title, marker=marker,
            meta=meta,
            error_y={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
            customdata=rows.get(per if per in rows.columns else "hands"),
            hovertemplate=f"%{{x}}: %{{y:.2f}}<br>%{{customdata}} {per}<extra></extra>"))
    _categorical_x(figure, list(x_order) if x_order is not None
                   else list(dict.fromkeys(frame[x].astype(str))))
    return figure


def cumulative(frame: pd.DataFrame, *, unit: str = "chips", of: int | None = None,
               per: str = "hand", title: str | None = None) -> go.Figure:
    """Running net per player against his hand number (``stat_views.results_over_time``'s
    ``actual``), each player in his own colour (:func:`player_colours`); the all-in
    adjusted line (``adjusted``) dashed beside it in the same colour where it differs.
    ``of``: how many players there are, so the title says how many of them the chart
    shows."""
    title = title or f"Cumulative {unit}"
    if frame.empty:
        return empty(title)
    shown = int(frame["player"].nunique())
    if of is not None:
        title += f" (showing {shown} of {of} players)"
    figure = _figure(title, x_title=f"{per} (his n-th)", y_title=unit, height=460)
    groups = _groups(frame, "player")
    colours = player_colours(name for name, _ in groups)
    for player, rows in groups:
        line = {"color": colours[player]}
        figure.add_trace(go.Scattergl(x=rows["hand_no"], y=rows["actual"], mode="lines",
                                      name=player, line=line, legendgroup=player,
                                      meta={PLAYER_META: player}))
        if "adjusted" in rows and (rows["adjusted"] != rows["actual"]).any():
            figure.add_trace(go.Scattergl(x=rows["hand_no"], y=rows["adjusted"],
                                          mode="lines", line={**line, "dash": "dash"},
                                          legendgroup=player, meta={PLAYER_META: player},
                                          name=f"{player} (all-in adjusted)"))
    return figure


def places(table: pd.DataFrame, title: str) -> go.Figure:
    """Big Two: games per player stacked by finishing place (``logic.bigtwo_place_table``:
    its places in their own order, "did not go out" last)."""
    order = list(table["place"].cat.categories) if len(table) else []
    return grouped_bars(table.assign(place=table["place"].astype(str)), x="player",
                        y="games", color="place", order=order, title=title,
                        barmode="stack", y_title="games")


def cards_left(frame: pd.DataFrame) -> go.Figure:
    """Big Two: distribution of cards left at the end of a game, per player."""
    return grouped_bars(frame, x="cards_left", y="games", color="player",
                        title="Cards left when the game ended", x_title="cards left")


def split_bars(table: pd.DataFrame, parts: list[str], unit: str = "chips") -> go.Figure:
    """Rummoli: per player, chips (in ``unit``) per round from each part, stacked (positive
    and negative)."""
    title = "Rummoli result per round, by part"
    if table.empty:
        return empty(title)
    figure = _figure(title, barmode="relative", x_title="player", y_title=f"{unit} per round",
                     height=420)
    for part in parts:
        figure.add_trace(go.Bar(x=table["player"], y=table[part], name=part))
    return figure


def board_areas(frame: pd.DataFrame, game_id: str) -> go.Figure:
    """Rummoli: the nine pots round by round within one game, stacked areas."""
    title = f"The board round by round: {game_id}"
    if frame.empty:
        return empty(title, "No rounds of this game match the filters.")
    figure = _figure(title, x_title="round", y_title="chips on the pot", height=440)
    for pot, rows in _groups(frame, "pot", RUMMOLI_POTS):
        name = pot_words(pot)
        figure.add_trace(go.Scatter(x=rows["round"], y=rows["chips"], name=name,
                                    mode="lines", stackgroup="board",
                                    line={"color": POT_COLOURS.get(name)}))
    return figure


def pots_won(winners: pd.DataFrame) -> go.Figure:
    """Rummoli: rounds each pot was won, stacked by winner (``views.pot_winners``), the pots
    named in words in board order (``cards.pot_code`` reads a clicked bar's pot back).  The
    rounds played for the pots: not a game's finale, whose winner takes the pots left."""
    won = winners[winners["won_by_player"].notna() & ~winners["finale"].astype(bool)]
    return grouped_bars(won.assign(pot=won["pot"].map(pot_words)), x="pot", y="rounds",
                        color="won_by_player", title="Pots won, by player", barmode="stack",
                        x_title="pot", y_title="rounds won",
                        x_order=list(RUMMOLI_POT_WORDS.values()))


def streak_lengths(frame: pd.DataFrame) -> go.Figure:
    """Rummoli: rounds by how many rounds a pot had carried over (``since``), per pot, each
    pot's bars named in words (``cards.pot_code`` reads a clicked bar's pot back)."""
    named = frame.assign(pot=frame["pot"].map(pot_words)) if len(frame) else frame
    return grouped_bars(named, x="since", y="rounds", color="pot",
                        order=RUMMOLI_POT_WORDS.values(),
                        title="Carry-over: rounds since the pot was last won",
                        x_title="rounds carried over")


def pot_growth(frame: pd.DataFrame, unit: str = "chips") -> go.Figure:
    """Rummoli: mean chips on a pot after k carried-over rounds that paid antes in, observed
    (markers) against the growth expected if every ante stays on it (``expected``, dotted
    lines; ``logic.pot_growth``)."""
    title = "Pot growth: observed against expected"
    if frame.empty:
        return empty(title)
    figure = _figure(title, x_title="rounds carried over",
                     y_title=f"{unit} before the round's antes", height=440)
    for pot, rows in _groups(frame, "pot", RUMMOLI_POTS):
        name = pot_words(pot)
        colour = POT_COLOURS.get(name)  # a pot's colour on the charts above it too
        figure.add_trace(go.Scatter(x=rows["since"], y=rows["mean_before_paid"], mode="markers",
                                    name=f"{name} observed", legendgroup=pot,
                                    marker={"color": colour}))
        figure.add_trace(go.Scatter(x=rows["since"], y=rows["expected"], mode="lines",
                                    name=f"{name} expected", legendgroup=pot,
                                    line={"dash": "dot", "color": colour}))
    # Eighteen entries: below the chart in rows, all visible, not a scrolled column.
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2},
                         height=520)
    return figure


def observed_vs_theory(table: pd.DataFrame, title: str, x_title: str = "category"
                       ) -> go.Figure:
    """Observed category shares beside the exact theory (``observed_share``, and
    ``theory_share`` when the table has it); ``x_title`` says what the categories are."""
    if table.empty or table["observed"].sum() == 0:
        return empty(title)
    figure = _figure(title, barmode="group", x_title=x_title, y_title="share")
    figure.update_yaxes(tickformat=".0%")
    figure.add_trace(go.Bar(x=table["category"], y=table["observed_share"], name="observed",
                            customdata=table["observed"],
                            hovertemplate="%{x}: %{y:.1%} (%{customdata})<extra></extra>"))
    if "theory_share" in table:
        figure.add_trace(go.Bar(x=table["category"], y=table["theory_share"], name="theory",
                                hovertemplate="%{x}: %{y:.2%}<extra></extra>"))
    return figure


def share_vs_expected(table: pd.DataFrame) -> go.Figure:
    """Rummoli per player: the expected best-hand share per round from his strength (bars)
    and the realised share (markers) with the 95 % interval of realised minus expected
    around it (``logic.share_vs_expected``)."""
    title = "Best-hand share per round: realised against expected from strength"
    if table.empty:
        return empty(title, "No Rummoli strengths stored for these hands.")
    figure = _figure(title, x_title="player",
                     y_title="best-hand share per round (every hand shown down)")
    figure.add_trace(go.Bar(x=table["player"], y=table["expected"], name="expected",
                            marker={"color": "#9ecae1"},
                            hovertemplate="%{x}: expected %{y:.3f}<extra></extra>"))
    plus = (table["ci_high"] - table["mean"]).fillna(0)
    minus = (table["mean"] - table["ci_low"]).fillna(0)
    figure.add_trace(go.Scatter(
        x=table["player"], y=table["realised"], mode="markers", name="realised (95 % CI)",
        marker={"size": 10, "color": "#d62728"},
        error_y={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
        customdata=table["rounds"],
        hovertemplate="%{x}: realised %{y:.3f}<br>%{customdata} rounds<extra></extra>"))
    return figure


def calibration(table: pd.DataFrame) -> go.Figure:
    """Rummoli strength calibration: mean realised share against mean expected share per
    bin of strength (``logic.calibration_table``), with 95 % intervals and the diagonal a
    perfectly calibrated estimate would follow."""
    title = "Calibration: realised share by bin of expected share"
    if table.empty:
        return empty(title, "No Rummoli strengths stored for these hands.")
    figure = _figure(title, x_title="expected best-hand share (strength)",
                     y_title="realised best-hand share")
    figure.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="calibrated",
                                line={"dash": "dot", "color": "#888"}))
    plus = (table["ci_high"] - table["mean"]).fillna(0)
    minus = (table["mean"] - table["ci_low"]).fillna(0)
    figure.add_trace(go.Scatter(
        x=table["expected"], y=table["mean"], mode="markers+lines", name="observed",
        error_y={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
        customdata=table["rounds"],
        hovertemplate="expected %{x:.2f}: realised %{y:.2f}<br>%{customdata} rounds"
                      "<extra></extra>"))
    return figure


SCORE_AXES: Final = {
    "win_fraction": "win fraction",
    "fry_fraction": "fry fraction",
    "net_score_per_game": "net score per game",
}
"""The score keeper's scatter plots: y column -> axis words (x: real losses per game)."""


def zero_sum_formula(seats: float) -> str:
    """The theoretical net score per game with ``seats`` players per game (a mean: three
    significant digits), as the chart's legend and its caption write it."""
    return f"s = {seats:.3g}(l* − l)"


def score_scatter(summary: pd.DataFrame, y: str,
                  line: tuple[float, float] | None = None) -> go.Figure:
    """Big Two: each player's real losses per game against ``y`` (a key of
    :data:`SCORE_AXES`), regular players (a quarter of the games or more) as filled circles,
    the others hollow, the table's average player (``*``) as a cross; with ``line`` =
    (n, l*) the theoretical net score s = n(l* - l)."""
    words = SCORE_AXES[y]
    title = f"{words.capitalize()} against real losses"
    if summary.empty:
        return empty(title)
    figure = _figure(title, x_title="real losses per game", y_title=words, height=440,
                     legend={"orientation": "h", "y": -0.22, "x": 0})
    players = summary[summary["name"] != "*"]
    for regular, symbol, label in ((True, "circle", "regular"),
                                   (False, "circle-open", "not regular")):
        rows = players[players["is_regular"].astype(bool) == regular]
        if rows.empty:
            continue
        figure.add_trace(go.Scatter(
            x=rows["real_losses_per_game"], y=rows[y], mode="markers+text", name=label,
            text=rows["name"], textposition="top center",
            marker={"symbol": symbol, "size": 11, "color": "#1f77b4"}))
    total = summary[summary["name"] == "*"]
    if not total.empty:
        figure.add_trace(go.Scatter(
            x=total["real_losses_per_game"], y=total[y], mode="markers+text",
            name="average player (*)", text=["*"], textposition="top center",
            marker={"symbol": "x", "size": 12, "color": "#444"}))
    if line is not None and y == "net_score_per_game":
        seats, average = line
        losses = summary["real_losses_per_game"].astype(float)
        spread = max(0.5, float(losses.max() - losses.min()) * 0.05)
        low, high = float(losses.min()) - spread, float(losses.max()) + spread
        figure.add_trace(go.Scatter(
            x=[low, high], y=[seats * (average - low), seats * (average - high)],
            mode="lines", name=zero_sum_formula(seats),
            line={"color": "#d62728", "dash": "dash"}))
    return figure
