"""Pot accumulation (Rummoli): the nine pots round by round within a game, how often each
pot is won and by whom, carry-over streaks and expected growth against the observed.

One part at a time, picked above it (``logic.POT_VIEWS``, the shown one in the URL as
``pots_view``), as on Win rates: a visit draws one or two charts, not four.  Who wins the
pots and their growth are of one stakes and ante at a time (a picker when the filters keep
several), as Win rates' Rummoli tab: chips of one ante or currency are not another's."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, filters, logic, ui
from analytics.dashboard.cards import pot_code
from analytics.dashboard.hand_list import bar_list, picked_bar
from analytics.warehouse.sql.views import HandFilter, level_filter

_CLICK = "Click a bar to list the rounds behind it."


def render() -> None:
    """Draw the page for the Rummoli rounds matching the filters."""
    ctx = ui.context()
    st.title("Pot accumulation (Rummoli)")
    if ctx.filter.game not in (None, "rummoli"):
        st.info("This page is about Rummoli; the game filter names another game.")
        return
    winners: pd.DataFrame = ui.ask("pot_winners")
    if winners.empty:
        st.info("No Rummoli rounds match the filters.")
        return
    board, won, _ = logic.POT_VIEWS
    view = ui.shown_part(logic.POT_VIEWS, key="pots_view")
    if view == board:
        _board()
        return
    only = _one_level(ctx.filter)
    if view == won:
        _winners(winners if only == ctx.filter else ui.ask("pot_winners", only), only)
    else:
        _streaks(only)


def _one_level(shown: HandFilter) -> HandFilter:
    """``shown`` narrowed to one Rummoli stakes and ante (``views.level_of``), picked here
    when the filtered rounds were played at several."""
    results: pd.DataFrame = ui.ask("results_by_level")
    levels = logic.game_levels(results, "rummoli")
    if len(levels) < 2:  # the one level (its currency names the chips), or none
        return level_filter(shown, "rummoli", levels[0]) if levels else shown
    level = st.selectbox("Stakes and ante", levels, key="pots_level",
                         format_func=logic.level_value,
                         help=f"These rounds were played at {len(levels)} stakes and antes: "
                              "a pot's chips grow with the ante, and chips of two currencies "
                              "are never added, so each is shown on its own.")
    return level_filter(shown, "rummoli", level or levels[0])


def _board() -> None:
    """A game's nine pots round by round (the game picked, kept in the URL)."""
    games: pd.DataFrame = ui.ask("sessions", limit=5000)
    ids = [str(s) for s in games.loc[games["game"] == "rummoli", "session"]]
    wanted = st.query_params.get("pot_game")
    game_id = st.selectbox("Game", ids, index=ids.index(wanted) if wanted in ids else 0,
                           key="pots_game")
    if game_id is not None:
        if st.query_params.get("pot_game") != game_id and filters.fits_url(game_id):
            st.query_params["pot_game"] = game_id  # (a game id too long for a link: not kept)
        board: pd.DataFrame = ui.ask("rummoli_board", game_id=game_id)
        ui.plotly_chart(charts.board_areas(logic.board_areas(board), game_id), key="board")
        ui.download_buttons(logic.board_table(board), f"board-{game_id}",
                            key="board")


def _winners(winners: pd.DataFrame, only: HandFilter) -> None:
    """How often each pot is won and by whom (a bar lists the rounds), over ``only``."""
    st.subheader("How often each pot is won, and by whom")
    summary = logic.pot_summary(winners)
    shown = logic.human_table(summary, logic.pot_summary_headers(logic.filter_unit(only)))
    ui.dataframe(shown, hide_index=True)
    st.caption(_FINALE_WORDS)
    ui.download_buttons(shown, "pots", key="pots")
    figure = charts.pots_won(winners)
    chosen = ui.plotly_chart(figure, key="won_by", on_select="rerun", selection_mode="points")
    st.caption(_CLICK)
    bar = picked_bar(figure, chosen)
    if bar is not None:
        pot = pot_code(bar.x)
        behind: pd.DataFrame = ui.ask("bar_hands", only, source="pot_facts", game="rummoli",
                                      bar=(("pot", pot), ("won_by_player", bar.name)))
        bar_list(behind, title=f"The {bar.x} pot won by {bar.name}", key="won_by",
                 name=f"rummoli-{pot}-won-by-{bar.name}-rounds")


_FINALE_WORDS = ("Rounds played for it: every round but the games' end-of-game rounds, which "
                 "play the leftover board off as one poker hand (the finale): no pot is won "
                 "by its own card there, and the chips a pot still held go to the finale's "
                 "winner (the last column).")


def _streaks(only: HandFilter) -> None:
    """Carry-over streaks (a bar lists the rounds) and each pot's growth against the
    expected, over ``only``."""
    st.subheader("Carry-over streaks and growth")
    streaks: pd.DataFrame = ui.ask("pot_streaks", only)
    growth = logic.pot_growth(streaks)
    figure = charts.streak_lengths(streaks)
    chosen = ui.plotly_chart(figure, key="streaks", on_select="rerun", selection_mode="points")
    st.caption("Over the rounds played for the pots (the games' end-of-game rounds, the "
               f"finale, are left out: no pot is won by its own card there). {_CLICK}")
    bar = picked_bar(figure, chosen)
    if bar is not None:
        pot = pot_code(bar.name)
        behind = ui.ask("pot_streak_hands", only, pot=pot, since=int(bar.x))
        bar_list(behind, title=f"The {bar.name} pot carried over {bar.x} rounds",
                 key="streaks", name=f"rummoli-{pot}-since-{bar.x}-rounds")
    unit = logic.filter_unit(only)  # the level's currency, or chips
    ui.plotly_chart(charts.pot_growth(growth, unit), key="growth")
    st.caption("Over the rounds that paid antes in (paying rounds: the end-of-game rounds "
               "pay none and may clear the board, so they are left out). Expected: every ante "
               "stays on the pot, rounds carried over × the pot's mean antes per paying "
               "round; observed: the mean chips on the pot before the round.")
    growth_table = logic.human_table(growth, logic.pot_growth_headers(unit))
    ui.dataframe(growth_table, hide_index=True)
    ui.download_buttons(growth_table, "pot-growth", key="growth")


render()
