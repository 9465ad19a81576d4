"""Overview: hands by game and over time, players, sessions, data quality."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.warehouse import queries


@st.cache_data(max_entries=16, show_spinner=False)
def _files(db: str, version: tuple[int, str, int]) -> pd.DataFrame:
    """The files loaded, newest first (``version`` keys the cache: an upload shows at once)."""
    del version
    with ui.reading(db) as con:
        table = queries.files(con)
    return table.iloc[::-1].reset_index(drop=True)


def render() -> None:
    """Draw the page for the current filters."""
    ctx = ui.context()
    st.title("Overview")
    st.caption(f"Filters: {ctx.filter.describe()}")
    # One question for the hands by game, over time and by session: they share the work of
    # finding the filter's hands (views.overview_page).
    page: dict[str, pd.DataFrame] = ui.ask("overview_page", limit=500)
    games = page["overview"]
    players: pd.DataFrame = ui.ask("player_results")
    hands, sessions, rejected = (int(games["hands"].sum()), int(games["sessions"].sum()),
                                 ctx.version[2])
    # The data version counts the rejects: none recorded, no question (nor connection) asked.
    rejects: pd.DataFrame = (ui.ask("rejects", limit=1000) if rejected else
                             pd.DataFrame(columns=["file", "hand_index", "line", "stage",
                                                   "game", "error"]))
    one, two, three, four = st.columns(4)
    one.metric("Hands", f"{hands:,}")
    two.metric("Players", f"{players['player'].nunique():,}")
    three.metric("Sessions", f"{sessions:,}")
    four.metric("Rejected hands", f"{rejected:,}")
    if hands == 0:
        st.info("No hands match the filters. Load histories on the Upload page, or widen "
                "the filters in the sidebar.")
    ui.report_button(ctx, key="report_overview")

    st.subheader("Hands by game")
    st.dataframe(games, hide_index=True)
    ui.download_buttons(games, "hands-by-game", key="games")

    bucket = st.segmented_control("Period", ["day", "week", "month", "year"], default="week",
                                  key="overview_bucket") or "week"
    st.plotly_chart(charts.hands_over_time(page[f"hands_over_time {bucket}"]),
                    key="chart_over_time")

    st.subheader("Players")
    table = logic.with_confidence(players)
    st.dataframe(table, hide_index=True, column_config={
        "mean": st.column_config.NumberColumn("mean per hand", format="%.2f"),
        "sd": st.column_config.NumberColumn(format="%.2f"),
        "ci_low": st.column_config.NumberColumn("95% CI low", format="%.2f"),
        "ci_high": st.column_config.NumberColumn("95% CI high", format="%.2f")})
    ui.download_buttons(table, "players", key="players")

    st.subheader("Sessions")
    session_table = page["sessions"]
    st.dataframe(session_table, hide_index=True)
    ui.download_buttons(session_table, "sessions", key="sessions")

    st.subheader("Files loaded")
    files = _files(ctx.db, ctx.version)
    st.caption("Every file in the database (uploads under their original name, "
               "'upload: …'), newest first; these do not follow the filters.")
    st.dataframe(files, hide_index=True)
    ui.download_buttons(files, "files", key="files")

    st.subheader("Data quality")
    if rejects.empty:
        st.success("No hand was rejected.")
    else:
        by_file = (rejects.groupby(["file", "stage"]).agg(rejected=("hand_index", "size"),
                                                           first_line=("line", "min"))
                   .reset_index())
        st.dataframe(by_file, hide_index=True)
        st.dataframe(rejects, hide_index=True)
        ui.download_buttons(rejects, "rejects", key="rejects")


render()
