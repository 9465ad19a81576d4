"""Pot accumulation (Rummoli): the nine pots round by round within a game, carry-over streaks,
how often each pot is won and by whom, expected growth against the observed."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, filters, logic, ui


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
    games: pd.DataFrame = ui.ask("sessions", limit=5000)
    ids = [str(s) for s in games.loc[games["game"] == "rummoli", "session"]]
    wanted = st.query_params.get("pot_game")
    game_id = st.selectbox("Game", ids, index=ids.index(wanted) if wanted in ids else 0,
                           key="pots_game")
    if game_id is not None:
        if st.query_params.get("pot_game") != game_id and filters.fits_url(game_id):
            st.query_params["pot_game"] = game_id  # (a game id too long for a link: not kept)
        board: pd.DataFrame = ui.ask("rummoli_board", game_id=game_id)
        st.plotly_chart(charts.board_areas(logic.board_areas(board), game_id), key="board")
        ui.download_buttons(board, f"board-{game_id}", key="board")

    st.subheader("How often each pot is won, and by whom")
    summary = logic.pot_summary(winners)
    st.dataframe(summary, hide_index=True, column_config={
        "share_won": st.column_config.NumberColumn("share won", format="percent")})
    ui.download_buttons(summary, "pots", key="pots")
    won = winners[winners["won_by_player"].notna()]
    st.plotly_chart(charts.grouped_bars(won, x="pot", y="rounds", color="won_by_player",
                                        title="Pots won, by player", barmode="stack"),
                    key="won_by")

    st.subheader("Carry-over streaks and growth")
    streaks: pd.DataFrame = ui.ask("pot_streaks")
    growth = streaks.assign(expected=streaks["since"] * streaks["mean_antes"])
    st.plotly_chart(charts.streak_lengths(streaks), key="streaks")
    st.plotly_chart(charts.pot_growth(growth), key="growth")
    st.caption("Expected: every round's antes stay on the pot (rounds carried over × mean "
               "antes per round); observed: the mean chips on the pot before the round.")
    ui.download_buttons(growth, "pot-growth", key="growth")


render()
