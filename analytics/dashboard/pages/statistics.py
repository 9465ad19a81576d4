"""Statistics: the player-statistics grid per game (cells ``12/40 (30%)``, the interval on
hover, thin cells greyed, the definition on every header) and the definitions in words."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Final
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from analytics.dashboard import logic, statistics, ui
from analytics.dashboard.hand_list import list_behind, picked_point
from analytics.stats import (
    FRY_THRESHOLD,
    LEVELS,
    MIN_OPPORTUNITIES,
    SPLITS,
    cells,
    stats_of,
)
from analytics.warehouse import writer
from analytics.warehouse.annotations import player_note, set_player_note
from analytics.warehouse.sql.stat_views import SESSION_GAP_MINUTES
from analytics.warehouse.sql.views import HandFilter
from analytics.words import counted
from parsers.rule_options import GAME_NAMES, Game


def _split_name(split: str) -> str:
    return statistics.SPLIT_NAMES.get(split, split) if split else "no split"


def render() -> None:
    """Draw the page: one tab per game with statistics (the tab is in the URL as ``tab``)."""
    ctx = ui.context()
    st.title("Statistics")
    st.caption("Each cell is count/opportunities (share), a ratio count:calls (AF), a mean "
               "total in opportunities; hover a cell for its 95 % Wilson "
               "interval and a column header for its definition. Cells with fewer "
               "opportunities than the threshold are greyed. The definitions are listed "
               "below the grid (and in docs/statistics.md).")
    games = [Game(g) for g in GAME_NAMES if ctx.filter.game in (None, g)]
    if not games:
        st.info("No game with statistics matches the filters.")
        return
    ui.shown_tab(games, [GAME_NAMES[g] for g in games], _game, key="tab")
    _player_notes(ctx.db, list(ctx.options.players))


def _player_notes(db: str, players: list[str]) -> None:
    """A note on a player: shown, and kept (``player_notes``) when saved."""
    with st.expander("Notes on players"):
        player = st.selectbox("Player", players, key="stats_note_player")
        if player is None:
            return
        with ui.reading(db) as con:  # not cached: a save must show at once
            kept = player_note(con, player)
        with st.form(f"player_note_{player}"):
            note = st.text_area("Note", value=kept, key=f"player_note_text_{player}")
            saved = st.form_submit_button("Save note")
        if saved:
            ui.release_connection()  # this process writes: DuckDB refuses it while it reads
            with writer(db) as con:
                set_player_note(con, player, note)
            st.success("Saved.")


def _game(game: Game) -> None:
    """One game's grid, its split and downloads, then its definitions."""
    left, middle, right = st.columns(3)
    threshold = int(middle.number_input("Grey cells under this many opportunities",
                                        min_value=0, value=MIN_OPPORTUNITIES, step=5,
                                        key=f"stats_threshold_{game.value}"))
    choices: list[str] = ["", *SPLITS[game]]
    levels: list[str] = ui.ask("stat_levels", game=game.value)
    level = LEVELS[game][0] if game in LEVELS else None
    # The levels its results are counted under: Rummoli's each stakes (currency) and ante.
    units = (statistics.result_levels(game, levels, ui.ask("results_by_level"))
             if game is Game.RUMMOLI else levels)
    # Played under several scoring rules (antes), or Rummoli in several currencies: rows
    # per rule (stakes) first, where its results are in one unit.
    opening = statistics.level_split(game, levels, units) or ""
    split = left.selectbox("Split by", choices, format_func=_split_name,
                           index=choices.index(opening),
                           key=f"stats_split_{game.value}") or None
    fry: int | None = None  # each game's own fry_threshold
    if game is Game.BIGTWO:
        chosen = right.number_input(
            "Fry: at least this many cards left", min_value=1, max_value=13, value=None,
            placeholder=f"each game's own ({FRY_THRESHOLD} unless its rules say otherwise)",
            key="stats_fry")
        fry = None if chosen is None else int(chosen)
    grid: pd.DataFrame = ui.ask("stat_grid", game=game.value, split=split, fry_threshold=fry)
    if grid.empty:
        st.info("No hands of this game match the filters.")
        return
    keys = ("player", split) if split else ("player",)
    base = urlencode([(key, value) for key in st.query_params
                      if not key.startswith("cell_")
                      for value in st.query_params.get_all(key)])
    links = statistics.cell_links(grid, game, split=split, base=base)
    st.html(statistics.GRID_STYLE + statistics.grid_html(grid, game, keys=keys,
                                                         min_opportunities=threshold,
                                                         link=links))
    if len(levels) > 1 and split != level:
        rule, unit = _split_name(str(level)), logic.NET_UNITS[game.value]
        st.caption(f"—: his {logic.PER[game.value]}s were played under more than one {rule} "
                   f"({statistics.levels_text(game, levels)}), and {unit} under one are not "
                   f"{unit} under another: split by {rule}, or choose one under House rules.")
    for note in (statistics.rank_note(game, levels), statistics.currency_note(game, grid)):
        if note is not None:
            st.caption(note)
    ui.download_buttons(grid, f"{game.value}-statistics", key=f"stats_{game.value}")
    _cell_hands(game, grid, split, fry)
    _results(game, units, grid)
    _sessions(game)
    st.subheader("Definitions")
    st.markdown(statistics.definitions_markdown(game))


def _cell_hands(game: Game, grid: pd.DataFrame, split: str | None, fry: int | None) -> None:
    """The hands behind one cell of the grid: a row and a statistic picked here (a click on
    a cell picks them through the URL), the count and opportunities over them, and the
    list, each hand opening in the replayer."""
    st.markdown("**Hands behind a cell**: click a cell of the grid, or pick its row and "
                "statistic.")
    rows = grid.reset_index(drop=True)
    labels = {statistics.row_label(str(rows.at[at, "player"]),
                                   rows[split].iloc[at] if split else None, split): at
              for at in range(len(rows))}
    stats = {s.label: s for s in stats_of(game)}
    left, right = st.columns(2)
    row = left.selectbox("Row", list(labels), index=None, key=f"cell_row_{game.value}",
                         bind="query-params", placeholder="Choose a player")
    label = right.selectbox("Statistic", [*stats, statistics.ALL_HANDS], index=None,
                            key=f"cell_stat_{game.value}", bind="query-params",
                            placeholder="Choose a statistic")
    if row is None or label is None:
        return
    at = labels[row]
    stat = stats.get(label)
    behind: pd.DataFrame = ui.ask(
        "stat_hands", game=game.value, player=str(rows.at[at, "player"]),
        stat=stat.name if stat else None, split=split,
        split_value=statistics.split_value(rows[split].iloc[at]) if split else None,
        fry_threshold=fry)
    count = int(behind["counted"].sum())
    opportunities = int(behind["opportunities"].sum())
    hands = counted(len(behind), "hand")
    if stat is None:
        st.markdown(f"**{ui.literal(row)}**: {hands}.")
    else:
        share = cells.cell_text(count, opportunities, stat.kind)
        share = share[len(f"{count}/{opportunities}"):]  # " (30%)": the cell's share
        st.markdown(f"**{ui.literal(row)}, {stat.label}**: {count:,} counted of {opportunities:,} "
                    f"opportunities{share}, in {hands} "
                    f"({int((behind['counted'] > 0).sum()):,} with a count).")
    list_behind(behind if stat else behind[_POINT_COLUMNS], key=f"cell_{game.value}",
                name=f"{game.value}-{label}-hands")


# How many players "Results over time" draws before anyone chooses: those with most hands.
# (A comment: Streamlit's magic would draw a bare string of a page script.)
RESULTS_DRAWN: Final = 4


def _results(game: Game, levels: list[str], grid: pd.DataFrame) -> None:
    """The cumulative results of the players chosen in a picker (at first the four with most
    hands in the grid), by hand number or by day; Big Two's under one scoring rule at a
    time, Rummoli's under one stakes and ante, picked here when the games had several
    (``levels``: ``statistics.result_levels``; points under one rule are not points under
    another, chips of one ante or currency not those of another)."""
    st.subheader("Results over time")
    base = ui.context().filter
    shown = levels
    by_rule = game in LEVELS and len(levels) > 1  # one level's units are not another's
    if by_rule:
        label, why = statistics.level_picker(game, levels)
        rule = st.selectbox(label, levels, key=f"stats_results_rule_{game.value}",
                            format_func=statistics.level_text(game), help=why)
        shown = [rule or levels[0]]
        only, unit = statistics.rule_scope(base, game, shown[0])
    elif game in LEVELS and len(levels) == 1:  # its unit: a currency's, rank's games won
        only, unit = statistics.rule_scope(base, game, levels[0])
    else:
        only, unit = statistics.results_scope(base, game, levels)
    # By date first: a day's sums, then running sums over days (0.18 s CPU over a million
    # hands); by hand number orders only the days holding a point (0.25 s for four players).
    by = st.radio("Against", ["date", "hand"], horizontal=True,
                  format_func={"hand": "hand number", "date": "date"}.__getitem__,
                  key=f"stats_by_{game.value}") or "date"
    # At first the players with most hands (of this rule): the question's own choice.
    frame: pd.DataFrame = ui.ask("results_over_time", hand_filter=only, game=game.value,
                                 by=by, top=RESULTS_DRAWN)
    most = sorted({str(name) for name in frame["player"]})
    names = sorted({str(name) for name in grid["player"]} | set(most))
    chosen = st.multiselect(
        "Players drawn", names, default=most,  # one picker per rule: its players
        key=f"stats_results_players_{game.value}{'_' + shown[0] if by_rule else ''}",
        help=f"At first the {RESULTS_DRAWN} with most {logic.PER[game.value]}s; the "
             "sidebar's player filter narrows the whole page.")
    if not chosen:
        st.info("Choose players to draw their results over time.")
        return
    if sorted(chosen) != most:
        only = dataclasses.replace(only, players=tuple(chosen))
        frame = ui.ask("results_over_time", hand_filter=only, game=game.value, by=by,
                       top=len(chosen))
    scope = f"; {statistics.level_scope(game, shown[0])}" if by_rule else ""
    figure = statistics.results_figure(
        frame, unit=unit, by=by, title=f"Cumulative results ({unit}{scope}; showing "
                                       f"{len(chosen)} of {len(names)} players)")
    chosen = ui.plotly_chart(figure, key=f"results_{game.value}", on_select="rerun",
                             selection_mode="points")
    point = picked_point(chosen)
    if by == "date":
        st.caption("Click a point to list that player's hands of that day.")
        if point is not None:
            _day_hands(game, only, str(figure.data[int(point["curve_number"])].legendgroup),
                       dt.date.fromisoformat(str(point["x"])[:10]), unit)
    else:
        st.caption("Click a point to list that player's hands since the point before it.")
        if point is not None:
            trace = figure.data[int(point["curve_number"])]
            _numbered_hands(game, only, str(trace.legendgroup), int(point["x"]),
                            [int(x) for x in trace.x], unit)
    if game is Game.SEVENEIGHT:
        st.caption("Big blinds: each hand's net over its big blind. Dashed: all-in adjusted "
                   "(the expected result where the hand was all in with cards to come); "
                   "dotted: hands that went to showdown with him; dash-dot: the others.")
    elif game is Game.RUMMOLI:
        st.caption("The poker phase's chips per round (the poker pot won less his ante into "
                   "it and his bets); dotted: rounds whose poker phase went to showdown with "
                   "him; dash-dot: the others.")
    ui.download_buttons(frame, f"{game.value}-results", key=f"results_{game.value}")


# What the list behind a point, or a row's "All hands", shows besides each hand: its net
# (a count and an opportunity of 1 per hand would say nothing).  A comment, not a docstring:
# Streamlit's magic would draw a bare string of a page script.
_POINT_COLUMNS: Final = ["hand_id", "net"]


def _day_hands(game: Game, only: HandFilter, player: str, day: dt.date, unit: str) -> None:
    """The hands behind a point of the results by date: the player's hands of that day
    (the chart's filter ``only`` narrowed to the day), and what they add up to in the
    chart's ``unit``."""
    one_day = dataclasses.replace(only, date_from=day, date_to=day)
    behind: pd.DataFrame = ui.ask("stat_hands", hand_filter=one_day, game=game.value,
                                  player=player)
    st.markdown(f"**{ui.literal(player)}, {day:%Y-%m-%d}**: {counted(len(behind), 'hand')}, "
                f"{statistics.point_result(behind, game, unit)}.")
    list_behind(behind[_POINT_COLUMNS], key=f"day_{game.value}",
                name=f"{game.value}-{day}-hands")


def _numbered_hands(game: Game, only: HandFilter, player: str, last: int, drawn: list[int],
                    unit: str) -> None:
    """The hands behind a point of the results by hand number: the player's hands (under
    the chart's filter ``only``) in order of play after the point drawn before it
    (``drawn``: his line's hand numbers), up to and including hand number ``last`` (the
    hands the line's step to the point sums), and what they add up to in the chart's
    ``unit``."""
    first = max((x for x in drawn if x < last), default=0) + 1
    behind: pd.DataFrame = ui.ask("stat_hands", only, game=game.value, player=player,
                                  order="play")
    behind = behind.iloc[first - 1:last]
    span = f"hand {first:,}" if first == last else f"hands {first:,} to {last:,}"
    st.markdown(f"**{ui.literal(player)}, {span}**: {counted(len(behind), 'hand')}, "
                f"{statistics.point_result(behind, game, unit)}.")
    list_behind(behind[_POINT_COLUMNS], key=f"numbered_{game.value}",
                name=f"{game.value}-{player}-hands")



def _sessions(game: Game) -> None:
    """Each player's sessions: start, duration, hands, net, net per hour, best and worst
    hand, and a link to the first hand in the replayer."""
    st.subheader("Sessions")
    # Asked only when wanted: every seat of the game summed in gap-long bins, the bins in
    # order (0.27-0.48 s CPU over a million hands for all players; one player 0.15 s).
    if not st.toggle("Show the sessions", key=f"stats_sessions_{game.value}"):
        return
    gap = int(st.number_input("A gap longer than this many minutes ends a session",
                              min_value=1, value=SESSION_GAP_MINUTES, step=5,
                              key=f"stats_gap_{game.value}"))
    sessions = statistics.sessions_table(ui.ask("player_sessions", game=game.value,
                                                gap_minutes=gap), game.value)
    unit = statistics.shared_session_unit(list(sessions["counted in"]), game.value)
    headers = statistics.session_headers(unit)
    chosen = ui.dataframe(sessions, hide_index=True, on_select="rerun",
                          selection_mode="single-row", key=f"sessions_table_{game.value}",
                          column_config={
        "replay": st.column_config.LinkColumn("replay", display_text="open first hand"),
        "start_at": None, "end_at": None, "unit": None,
        **({"counted in": None} if unit else {}),
        "minutes": st.column_config.NumberColumn("minutes", format="%.0f"),
        headers["net_per_hour"]: st.column_config.NumberColumn(format="%.1f")})
    st.caption(("Net in " + unit if unit else "Each net in its session's unit (counted in)")
               + "; a session is a "
               "player's hands at one table (or game id) and one stakes or scoring rule with "
               "no longer gap between two hands (so no net adds two stakes' chips or two "
               "rules' points); hands without a time of day make one session per table and "
               "day. The "
               "latest 1,000 sessions. Select a session (the box at the row's left) to list "
               "its hands.")
    ui.download_buttons(sessions, f"{game.value}-sessions", key=f"sessions_{game.value}")
    picked = chosen.selection.rows if chosen is not None else []
    if picked:
        session = sessions.iloc[picked[0]]
        end = session["end_at"]
        behind: pd.DataFrame = ui.ask(
            "session_hands", game=game.value, player=str(session["player"]),
            place=str(session[headers["place"]]), unit=str(session["unit"]),
            start=session["start_at"].to_pydatetime(),
            end=None if pd.isna(end) else end.to_pydatetime())
        behind = behind.iloc[::-1]  # in order of play: the latest first, as every list
        st.markdown(f"**{ui.literal(session['player'])}'s session at "
                    f"{ui.literal(session[headers['place']])}** "
                    f"({ui.literal(session[headers['stakes']])}), "
                    f"from {session['start']}: {counted(len(behind), 'hand')}, net "
                    f"{int(behind['net'].sum()):,} {session['counted in']}.")
        list_behind(behind, key=f"session_{game.value}", name=f"{game.value}-session-hands")


render()
