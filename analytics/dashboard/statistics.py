"""The statistics grid and the definitions, as the dashboard and the report show them.

Plain functions (no Streamlit), unit-tested: :func:`grid_html` draws a game's grid as
one self-contained HTML table (``12/40 (30%)`` cells, the 95 % interval on hover, cells
under the opportunities threshold greyed, the definition on hover over every column
header), which the statistics page shows with ``st.html`` and the HTML report embeds;
:func:`definitions_frame` and :func:`definitions_markdown` list the definitions in words
(the definitions section).  The definitions come from :mod:`analytics.stats.definitions`,
the cells from :mod:`analytics.stats.cells`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from html import escape
from typing import Final
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from analytics.dashboard.charts import PLAYER_META, player_colours
from analytics.dashboard.logic import SCORING_WORDS, game_levels, level_unit, level_value
from analytics.stats.cells import display_grid
from analytics.stats.definitions import (
    LEVELS,
    MIN_OPPORTUNITIES,
    RESULTS,
    Kind,
    Result,
    Stat,
    stats_of,
)
from analytics.warehouse.identity import hand_id_hex
from analytics.warehouse.sql.stat_views import UNITS
from analytics.warehouse.sql.views import (
    RANK_KNOB,
    RANK_LEVEL,
    HandFilter,
    level_filter,
    stakes_currency,
    stakes_words,
)
from parsers.rule_options import Game

__all__ = [
    "ALL_HANDS",
    "CURRENCY_NOTE",
    "CURRENCY_WORDS",
    "GRID_STYLE",
    "LINES",
    "RANK_NOTE",
    "SPLIT_NAMES",
    "cell_links",
    "counts_table",
    "currency_note",
    "currency_texts",
    "definitions_frame",
    "definitions_markdown",
    "grid_html",
    "key_text",
    "level_picker",
    "level_scope",
    "level_split",
    "level_text",
    "levels_text",
    "point_result",
    "rank_note",
    "result_header",
    "result_levels",
    "result_text",
    "results_figure",
    "results_scope",
    "row_currencies",
    "row_label",
    "rule_scope",
    "session_headers",
    "session_units",
    "sessions_table",
    "shared_currency",
    "shared_session_unit",
    "split_value",
]

"""The games with statistics, as the page's tabs name them."""

GRID_STYLE: Final = (
    "<style>"
    ".hl-stats{border-collapse:collapse;font-size:0.82rem;margin:0.3em 0 1em}"
    ".hl-stats th,.hl-stats td{border:1px solid #ddd;padding:0.2em 0.5em;text-align:right;"
    "white-space:nowrap}"
    ".hl-stats th{background:#f4f4f4;cursor:help;position:sticky;top:0}"
    ".hl-stats td:first-child,.hl-stats th:first-child{text-align:left}"
    ".hl-stats td.hl-grey{color:#aaa;background:#fafafa}"
    ".hl-stats-wrap{overflow-x:auto;max-width:100%}"
    ".hl-stats a.hl-cell{color:inherit;text-decoration:none}"
    ".hl-stats a.hl-cell:hover{text-decoration:underline}"
    "</style>")
"""The grid's CSS (the report and the page both include it)."""

_KIND_WORDS: Final = {Kind.RATE: "share", Kind.RATIO: "ratio", Kind.MEAN: "mean"}


def result_text(value: object) -> str:
    """A result cell: integers with thousands separators, floats to two places, a dash
    for none (a row played under several scoring rules or antes)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{int(value):,}" if isinstance(value, int | np.integer) else str(value)


def point_result(behind: pd.DataFrame, game: Game | str, unit: str) -> str:
    """What the hands behind a point of the results over time add up to, in the chart's
    ``unit`` (their ``result``: 7 & 8's big blinds, Rummoli's poker phase, Big Two's points
    or games won), with their net in chips where that is another figure: ``-0.50 big
    blinds (net -1 chips)``; never chips of several stakes alone."""
    chosen = Game(game)
    total = float(behind["result"].sum())
    text = f"{total:,.2f} {unit}" if chosen is Game.SEVENEIGHT else f"{total:,.0f} {unit}"
    if chosen is Game.BIGTWO:  # its points are its net; games won are no chips
        return text
    return f"{text} (net {int(behind['net'].sum()):,} chips)"


ALL_HANDS: Final = "All hands"
"""The statistic picker's choice for a row's result cells (hands, net): all his hands."""


def split_value(value: object) -> str | None:
    """A grid row's split value as ``stat_views.stat_hands`` takes it: text, or None for
    the empty value (NULL, which pandas may hold as NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


SPLIT_NAMES: Final = {"position": "position", "stakes": "stakes", "scoring": "scoring rule",
                      "ante": "ante", "up_rank": "up card rank",
                      "players": "players at the table"}
"""Each split of the grid (``analytics.stats.SPLITS``) as people name it."""


def key_text(split: str, value: object) -> str:
    """A grid row's split value as people read it: a Big Two scoring rule and a stake level
    in words (``logic.level_value``: ``cards left, 2s double``, ``no limit, big blind 2``),
    any other as it is; ``none`` for an empty value."""
    text = split_value(value)
    if text is None:
        return "none"
    if split == "stakes":
        return stakes_words(text)
    return level_value(f"{split} {text}") if split == "scoring" else text


def row_label(player: str, value: object = None, split: str | None = None) -> str:
    """A grid row as the hand list's picker names it: the player, and with a split its
    name and value (``Ann · position: big blind``, ``Ann · up card rank: A``,
    ``Ann · scoring rule: cards left``)."""
    if split is None:
        return player
    return f"{player} · {SPLIT_NAMES.get(split, split)}: {key_text(split, value)}"


def levels_text(game: Game | str, levels: Sequence[str]) -> str:
    """The scoring rules (antes) of ``stat_views.stat_levels`` as people read them, joined:
    ``cards left, finishing order``; ``1, 2``."""
    return ", ".join(key_text(LEVELS[Game(game)][0], value) for value in levels)


RANK_NOTE: Final = ("—: under rank scoring (finishing order) no points change hands, so its "
                    "games have no points per game; Wins counts the games won.")
"""What the grid's Big Two points cells of rank-scored games say instead of 0."""


def rank_note(game: Game | str, levels: Sequence[str]) -> str | None:
    """:data:`RANK_NOTE` when ``game``'s hands (played under ``levels``,
    ``stat_views.stat_levels``) count some rank-scored Big Two games, else None."""
    return RANK_NOTE if Game(game) is Game.BIGTWO and RANK_KNOB[1] in levels else None


CURRENCY_WORDS: Final = ("The currency the row's counts and results in chips are in: the "
                         "one its hands declare, chips when they declare none; none for a "
                         "row whose hands name several (those counts and results are then "
                         "none too).")
"""The definition of ``stat_grid``'s ``currency`` column (:func:`definitions_frame`)."""

CURRENCY_NOTE: Final = ("— in Net (and in every column counted in chips): his hands name "
                        "more than one currency (or one and none), and chips of two "
                        "currencies are never added: split by stakes for each currency's "
                        "own.")
"""What the grid's empty Net cells of 7 & 8 and Rummoli say (``definitions.ONE_CURRENCY``)."""


def currency_note(game: Game | str, grid: pd.DataFrame) -> str | None:
    """:data:`CURRENCY_NOTE` when a row of ``game``'s grid has no Net for its currencies."""
    if Game(game) is Game.BIGTWO or "net" not in grid or grid.empty:
        return None
    return CURRENCY_NOTE if bool(grid["net"].isna().any()) else None


def results_scope(f: HandFilter, game: Game | str, levels: Sequence[str]
                  ) -> tuple[HandFilter, str]:
    """The filter and unit of ``game``'s results over time, its hands played under
    ``levels``: Big Two under rank scoring alone, which has no points, in games won
    (``views.counts_wins``: the filter narrowed to that rule); else ``stat_views.UNITS``."""
    chosen = Game(game)
    if chosen is Game.BIGTWO and list(levels) == [RANK_KNOB[1]]:
        knobs = f.knobs if RANK_KNOB in f.knobs else (*f.knobs, RANK_KNOB)
        return replace(f, knobs=knobs), level_unit(chosen.value, RANK_LEVEL)[0]
    return f, UNITS[chosen]


def rule_scope(f: HandFilter, game: Game | str, rule: str) -> tuple[HandFilter, str]:
    """:func:`results_scope` of ``game``'s hands under one level ``rule``: Big Two's scoring
    rule (a :data:`~analytics.stats.LEVELS` value), Rummoli's stakes and ante
    (``views.level_of``); the filter narrowed to it, and its unit (running points or
    chips, one level at a time)."""
    chosen = Game(game)
    if chosen is Game.RUMMOLI:  # chips, or the level's currency, of the poker phase
        currency = stakes_currency(rule)
        unit = UNITS[chosen] if currency is None else f"{currency}, poker phase"
        return level_filter(f, chosen.value, rule), unit
    narrowed = replace(f, knobs=(*f.knobs, (LEVELS[chosen][0], rule)))
    return results_scope(narrowed, chosen, [rule])


def result_levels(game: Game | str, levels: Sequence[str], results: pd.DataFrame
                  ) -> list[str]:
    """The levels ``game``'s results over time are drawn under, one at a time when there are
    several: Big Two's scoring rules ``levels`` (``stat_views.stat_levels``), Rummoli's
    stakes and antes in ``results`` (``views.results_by_level``); none for 7 & 8, whose big
    blinds add up across stakes."""
    chosen = Game(game)
    if chosen is Game.RUMMOLI:
        return game_levels(results, chosen.value)
    return list(levels) if chosen is Game.BIGTWO else []


def level_text(game: Game | str) -> Callable[[str], str]:
    """How the results' level picker of ``game`` names a level (:func:`level_picker`):
    ``cards left``; ``no limit, minimum bet 1, ante 2``."""
    if Game(game) is Game.BIGTWO:
        return lambda rule: key_text(LEVELS[Game.BIGTWO][0], rule)
    return level_value


def level_scope(game: Game | str, level: str) -> str:
    """The results' level in a chart's title: ``scoring: cards left``; ``no limit, minimum
    bet 1, ante 2``."""
    words = level_text(game)(level)
    return f"scoring: {words}" if Game(game) is Game.BIGTWO else words


def level_picker(game: Game, levels: Sequence[str]) -> tuple[str, str]:
    """The label and help of the picker of the level ``game``'s results over time are
    drawn under, when its hands were played under the several ``levels``."""
    if game is Game.BIGTWO:
        return ("Results under the scoring rule",
                f"These games were played under {len(levels)} scoring rules: points under "
                "one are not points under another, so each is drawn on its own. Under rank "
                "scoring (finishing order) no points change hands: its results are games won.")
    return ("Results at the stakes and ante",
            f"These rounds were played at {len(levels)} stakes and antes: chips per round grow "
            "with the ante, and chips of two currencies are never added, so each is drawn on "
            "its own.")


def cell_links(grid: pd.DataFrame, game: Game | str, *, split: str | None, base: str
               ) -> Callable[[int, str], str]:
    """Each cell's link for :func:`grid_html`: ``base`` (the page's query string, without
    its ``?``: the filters and tab) with the picker's row and statistic of that cell, the
    statistic's label (:data:`ALL_HANDS` for a result column)."""
    chosen = Game(game)
    labels = {s.name: s.label for s in stats_of(chosen)}
    rows = grid.reset_index(drop=True)

    def link(at: int, column: str) -> str:
        row = row_label(str(rows.at[at, "player"]), rows[split].iloc[at] if split else None,
                        split)
        query = urlencode({f"cell_row_{chosen.value}": row,
                           f"cell_stat_{chosen.value}": labels.get(column, ALL_HANDS)})
        return f"?{base}&{query}" if base else f"?{query}"
    return link


def grid_html(grid: pd.DataFrame, game: Game | str, *, keys: Sequence[str] = ("player",),
              min_opportunities: int = MIN_OPPORTUNITIES,
              link: Callable[[int, str], str] | None = None) -> str:
    """The grid (``stat_views.stat_grid``'s frame) as an HTML table: the ``keys`` columns,
    a cell per statistic (``title``: its 95 % interval; class ``hl-grey`` under
    ``min_opportunities``), then the result columns; every header's ``title`` is the
    definition in words.  With ``link`` (row number, column name -> URL: the page's, not
    the report's) every statistic and result cell links to the hands behind it."""
    chosen = Game(game)
    stats = stats_of(chosen)
    results = [r for r in RESULTS[chosen] if r.name in grid.columns]
    cells, tips, grey = display_grid(grid.reset_index(drop=True), stats, keys=keys,
                                     min_opportunities=min_opportunities)
    head = [f'<th title="{escape(key)}">{escape(SPLIT_NAMES.get(key, key))}</th>'
            for key in keys]
    shared, currencies = shared_currency(grid), row_currencies(grid)
    head += [f'<th title="{escape(s.words)}">{escape(result_header(s, shared))}</th>'
             for s in stats]
    head += [f'<th title="{escape(r.words)}">{escape(result_header(r, shared))}</th>'
             for r in results]
    rows = []
    for at in range(len(cells)):
        row = [f"<td>{escape(key_text(key, cells.at[at, key]))}</td>" for key in keys]
        for stat in stats:
            shade = ' class="hl-grey"' if bool(grey.at[at, stat.name]) else ""
            tip = str(tips.at[at, stat.name]) or f"{_KIND_WORDS[stat.kind]}, no interval"
            text = _in_currency(str(cells.at[at, stat.name]), stat, currencies, at)
            text = _linked(escape(text), link, at, stat.name)
            row.append(f'<td{shade} title="{escape(tip)}">{text}</td>')
        for r in results:
            value = _in_currency(result_text(grid.at[grid.index[at], r.name]), r,
                                 currencies, at)
            row.append(f"<td>{_linked(escape(value), link, at, r.name)}</td>")
        rows.append("<tr>" + "".join(row) + "</tr>")
    return (f'<div class="hl-stats-wrap"><table class="hl-stats"><thead><tr>{"".join(head)}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def currency_texts(grid: pd.DataFrame) -> list[str]:
    """Each row's ``currency`` (``chips`` when its hands declare none), ``—`` for a row
    whose hands name several."""
    return [c if isinstance(c, str) else "—" for c in grid["currency"]]


def shared_currency(grid: pd.DataFrame) -> str | None:
    """The one currency of every row of ``grid`` (``stat_views.stat_grid``) with a result
    in chips; None when they name several, or the game has none (Big Two), so that each
    such cell names its own (:func:`grid_html`)."""
    if "currency" not in grid:
        return None
    named = set(grid["currency"].dropna())
    return str(named.pop()) if len(named) == 1 else None


def result_header(column: Result | Stat, currency: str | None) -> str:
    """A result or statistic column's header: its label, with the currency its cells share
    (``Net (USD)``, ``Winning bid (chips)``) when it is counted in one."""
    if not column.in_currency or currency is None:
        return column.label
    return f"{column.label} ({currency})"


def row_currencies(grid: pd.DataFrame) -> list[str] | None:
    """Each row's currency (:func:`currency_texts`) when the rows of ``grid`` name several,
    so that each cell counted in one names its row's; None when they share one (the header
    names it) or the game has none."""
    return (currency_texts(grid) if "currency" in grid and shared_currency(grid) is None
            else None)


def _in_currency(text: str, column: Result | Stat, currencies: list[str] | None,
                 at: int) -> str:
    """A cell's ``text`` with row ``at``'s currency after it when ``column`` is counted in
    one and the rows name several; as it is for a cell with none (``—``)."""
    if not column.in_currency or currencies is None or text == "—":
        return text
    return f"{text} {currencies[at]}"


def _linked(text: str, link: Callable[[int, str], str] | None, at: int, column: str) -> str:
    """A cell's text, as a link to the hands behind it when the grid has links."""
    if link is None:
        return text
    return f'<a class="hl-cell" target="_self" href="{escape(link(at, column))}">{text}</a>'


def definitions_frame(game: Game | str) -> pd.DataFrame:
    """Every statistic and result column of ``game`` in words: the column names, the header,
    the family, what kind of number it is and the definition."""
    chosen = Game(game)
    rows = [{"column": f"{s.name}, {s.opps_column}", "header": s.label, "family": s.family,
             "kind": _KIND_WORDS[s.kind], "definition": s.words} for s in stats_of(chosen)]
    rows += [{"column": r.name, "header": r.label, "family": "result", "kind": "result",
              "definition": r.words} for r in RESULTS[chosen]]
    if chosen is not Game.BIGTWO:  # played for chips: stat_grid's currency column
        rows.append({"column": "currency", "header": "currency", "family": "result",
                     "kind": "unit", "definition": CURRENCY_WORDS})
    return pd.DataFrame(rows, columns=["column", "header", "family", "kind", "definition"])


def level_split(game: Game | str, levels: Sequence[str],
                units: Sequence[str] = ()) -> str | None:
    """The split a game's grid opens with: its scoring rule or ante (``LEVELS``) when the
    hands were played under several (``stat_views.stat_levels``), whose results are in one
    unit only within each; Rummoli's stakes when its rounds share one ante but not one
    currency (``units``: :func:`result_levels`, whose stakes name the currencies); else
    none."""
    chosen = Game(game)
    if chosen in LEVELS and len(levels) > 1:
        return LEVELS[chosen][0]
    currencies = {stakes_currency(unit) for unit in units}
    return "stakes" if chosen is Game.RUMMOLI and len(currencies) > 1 else None


def counts_table(grid: pd.DataFrame, game: Game | str) -> pd.DataFrame:
    """``stat_views.stat_grid`` for people to read: each statistic's count under its header
    (``VPIP``) and its opportunities beside it (``VPIP opportunities``), each result under
    its header; the row's keys (player, split) as people name them.  The report's table of the
    numbers behind the grid (:func:`definitions_frame` maps headers to column names)."""
    chosen = Game(game)
    shared = shared_currency(grid)
    names = {s.name: result_header(s, shared) for s in stats_of(chosen)}
    names |= {s.opps_column: f"{s.label} opportunities" for s in stats_of(chosen)}
    names |= {r.name: result_header(r, shared) for r in RESULTS[chosen]}
    return grid.rename(columns={**SPLIT_NAMES, **names})


def definitions_markdown(game: Game | str) -> str:
    """:func:`definitions_frame` as a Markdown list: the header in bold, the column names and
    kind, then the definition (the page's definitions section)."""
    table = definitions_frame(game)
    return "\n".join(
        f"- **{row.header}** (`{row.column}`; {row.kind}): {row.definition}"
        for row in table.itertuples(index=False))


LINES: Final = {"actual": ("actual", "solid"), "adjusted": ("all-in adjusted", "dash"),
                "showdown": ("won at showdown", "dot"),
                "no_showdown": ("won without showdown", "dashdot")}
"""The lines of the results over time: column, then name and dash."""


def results_figure(frame: pd.DataFrame, *, unit: str, by: str = "hand",
                   title: str = "Cumulative results") -> go.Figure:
    """The cumulative results of ``stat_views.results_over_time``: a colour per player,
    a dash per line (actual, all-in adjusted, won at showdown, won without showdown; the
    lines a game does not have, all null, are left out; the adjusted line only where it
    differs from the actual one).  Each player has the colour he has on every chart
    (:func:`~analytics.dashboard.charts.player_colours`); against the date, the axis is
    marked in days."""
    x = "hand_no" if by == "hand" else "day"
    figure = go.Figure()
    colours = player_colours(str(player) for player in frame["player"].unique())
    for player, rows in frame.groupby("player", sort=True):
        color = colours[str(player)]
        for column, (name, dash) in LINES.items():
            values = rows[column]
            if values.isna().all():
                continue
            if column == "adjusted" and np.allclose(values.to_numpy(dtype=np.float64),
                                                    rows["actual"].to_numpy(dtype=np.float64)):
                continue
            figure.add_trace(go.Scatter(  # few points: drawn too (one day is a point)
                x=rows[x], y=values, mode="lines+markers" if len(rows) <= 60 else "lines",
                name=f"{player}: {name}", meta={PLAYER_META: str(player)},
                legendgroup=str(player), line={"color": color, "dash": dash}))
    figure.update_layout(title=title, xaxis_title="hand number" if by == "hand" else "day",
                         yaxis_title=unit, template="plotly_white", height=480,
                         legend={"font": {"size": 10}})
    if by != "hand" and not frame.empty:
        days = pd.to_datetime(frame["day"])
        # A point is a day: no hours between two days' ticks (a tick a day over a fortnight).
        short = (days.max() - days.min()).days <= _DAY_TICKS
        figure.update_xaxes(tickformat="%Y-%m-%d", dtick=_DAY_MS if short else None)
    return figure


_DAY_TICKS: Final = 14
"""Up to how many days the date axis is marked every day (beyond, plotly's own ticks)."""
_DAY_MS: Final = 86_400_000


def session_units(sessions: pd.DataFrame, game: str) -> list[str]:
    """What each session's net (``stat_views.player_sessions``) counts in: the currency its
    stakes declare, else chips; Big Two's points (``logic.level_unit`` of its unit)."""
    return [level_unit(game, str(unit))[0] for unit in sessions["unit"]]


def shared_session_unit(units: Sequence[str], game: str) -> str | None:
    """The one unit of ``units`` (:func:`session_units`, or a :func:`sessions_table`'s
    ``counted in``; the game's own when there is none), None when they hold several: each
    row then names its own."""
    found = set(units) or {level_unit(game)[0]}
    return found.pop() if len(found) == 1 else None


def sessions_table(sessions: pd.DataFrame, game: str) -> pd.DataFrame:
    """``stat_views.player_sessions`` for people: start and end as text (a session of
    hands without a time of day shows its day alone, not a midnight it was not played at;
    the times themselves stay in ``start_at`` and ``end_at``), the first hand's id in hex
    (the form the replayer shows), ``replay`` (a link that opens it in the replayer), what
    each net ``counted in`` (:func:`session_units`), and every column headed in words, the
    net ones with the unit when the sessions share one (:func:`session_headers`)."""
    out = sessions.copy()
    starts, ends = out["start"], out["end"]
    untimed = ends.isna()
    out["start"] = [f"{start:%Y-%m-%d} (no times)" if none else f"{start:%Y-%m-%d %H:%M}"
                    for start, none in zip(starts, untimed, strict=True)]
    out["end"] = ["" if none else f"{end:%Y-%m-%d %H:%M}"
                  for end, none in zip(ends, untimed, strict=True)]
    ids = [hand_id_hex(int(value)) for value in out["first_hand"]]
    out["first_hand"] = ids
    out.insert(list(out.columns).index("place") + 1, "stakes",
               [session_unit_words(str(unit)) for unit in out["unit"]])
    units = session_units(sessions, game)
    out.insert(list(out.columns).index("net"), "counted in", units)
    out["replay"] = [f"replayer?hand={hand}" for hand in ids]
    out["start_at"], out["end_at"] = starts, ends
    return out.rename(columns=session_headers(shared_session_unit(units, game)))


def session_unit_words(unit: str) -> str:
    """A session's unit (``stat_views.session_unit``) in words: ``no limit, big blind 2``;
    ``no limit, minimum bet 1, ante 2`` (a Rummoli unit is its level:
    ``views.level_of``); ``scoring: cards left``."""
    if unit in SCORING_WORDS:
        return f"scoring: {SCORING_WORDS[unit]}"
    return level_value(unit)


def session_headers(unit: str | None) -> dict[str, str]:
    """The headers of :func:`sessions_table`, by ``player_sessions``' column: the net ones
    with ``unit`` when the sessions share it (else their ``counted in`` says each's)."""
    named = f" ({unit})" if unit else ""
    return {"place": "table or game", "stakes": "stakes or scoring", "net": f"net{named}",
            "net_per_hour": f"net per hour{named}", "biggest_win": f"best hand{named}",
            "biggest_loss": f"worst hand{named}", "first_hand": "first hand (id)"}
