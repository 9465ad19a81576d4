"""Overview: hands by game and over time, players, sessions, data quality."""

from __future__ import annotations

import datetime as dt
import os

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.dashboard.hand_list import bar_list, picked_bar
from analytics.warehouse import WarehouseBusy, WarehouseError, writer
from analytics.warehouse.connection import LAKE_ENV_VAR
from analytics.warehouse.forget import forget_files, unread_words
from analytics.warehouse.sql import queries
from analytics.words import counted
from parsers.rule_options import GAME_NAMES


@st.cache_data(max_entries=16, show_spinner=False)
def _files(db: str, version: tuple[int, str, int]) -> pd.DataFrame:
    """The files loaded, newest first (``version`` keys the cache: an upload shows at once)."""
    del version
    with ui.reading(db) as con:
        table = queries.files(con)
    return table.iloc[::-1].reset_index(drop=True)


def _forget_form(db: str, files: pd.DataFrame) -> None:
    """Take a loaded file out of the database (``handlab forget``): a file loaded by
    mistake, or a score sheet corrected since (forget it, then upload the new one).

    The file taken out is the one shown when the button was pressed (the button's
    callback keeps its sha256), never what the box falls back to once that file is gone
    (taken out in another tab); each take-out clears the choice and the confirmation."""
    said = st.session_state.pop("forget_said", None)
    if said:
        st.success(ui.literal(said))
    asked = st.session_state.pop("forget_asked", None)
    if asked is not None and _forget(db, str(asked), files):
        st.rerun()
    with st.expander("Take a file out of the database"):
        names = dict(zip(files["sha256"], files["path"], strict=True))
        chosen = st.selectbox("File to take out", list(names), index=None,
                              placeholder="Choose a file", format_func=lambda sha: (
                                  f"{logic.short_name(str(names[sha]))} ({sha[:12]})"),
                              key="forget_file")
        st.caption("Its hands and rejected hands leave every page; a hand another loaded "
                   "file also holds stays. Tags and notes are kept for the hand's return.")
        sure = st.checkbox("Yes, take this file's hands out", key="forget_sure")
        st.button("Take it out", disabled=not (sure and chosen), key="forget_go",
                  on_click=_ask_forget, args=(chosen,))


def _ask_forget(sha: str | None) -> None:
    """The button's callback (before the script runs): the file shown, and a clear form."""
    if sha is not None:
        st.session_state["forget_asked"] = sha
    st.session_state["forget_file"] = None
    st.session_state["forget_sure"] = False


def _forget(db: str, sha: str, files: pd.DataFrame) -> bool:
    """Take the file ``sha`` out; whether it was (else the page says why, in words)."""
    shown = dict(zip(files["sha256"], files["path"], strict=True))
    name = logic.short_name(str(shown.get(sha, sha)))
    ui.release_connection()
    try:
        with writer(db, wait=30.0) as con:
            result = forget_files(con, [sha])
    except WarehouseBusy:
        st.error("Nothing was changed: another ingest is writing to the database; try again "
                 "in a moment.")
        return False
    except WarehouseError:  # taken out meanwhile, in another tab or by the command line
        st.error(f"Nothing was changed: {ui.literal(name)} is no longer loaded.")
        return False
    kept = sum(file.kept for file in result.files)
    st.session_state["forget_said"] = (
        f"{name}: {counted(result.hands, 'hand')} taken out"
        + (f", {counted(kept, 'hand')} kept (another loaded file holds them)" if kept else "")
        + "." + (f" Not read again: {unread_words(result)}." if result.unreadable else ""))
    return True


def render() -> None:
    """Draw the page for the current filters."""
    ctx = ui.context()
    st.title("Overview")
    st.caption(f"Filters: {ui.literal(ctx.filter.describe())}")
    # One question for the hands by game, over time and by session: they share the work of
    # finding the filter's hands (views.overview_page).
    page: dict[str, pd.DataFrame] = ui.ask("overview_page", limit=500)
    games = page["overview"]
    players: pd.DataFrame = ui.ask("results_by_level")
    hands, sessions, recorded = (int(games["hands"].sum()), int(games["sessions"].sum()),
                                 ctx.version[2])
    # The data version counts the rejects: none recorded, no question (nor connection) asked.
    rejects: pd.DataFrame = (ui.ask("rejects", limit=1000) if recorded else
                             pd.DataFrame(columns=["file", "hand_index", "line", "stage",
                                                   "game", "error"]))
    by_file: pd.DataFrame = (ui.ask("rejects_by_file") if recorded else
                             pd.DataFrame(columns=["file", "stage", "rejected", "bad_lines",
                                                   "first_line"]))
    # Hands rejected; a score sheet's bad lines, no game, are listed but not counted.
    rejected = int(by_file["rejected"].sum())
    # One row, not four columns: five elements to send and draw instead of nine.
    counts = st.container(horizontal=True)
    counts.metric("Hands", f"{hands:,}")
    if ctx.filter.players:  # his (their) seats only: the table below counts every seat
        counts.metric("Players chosen", f"{players['player'].nunique():,}",
                      help="The players the filter names who played the hands; the table "
                           "below counts everyone at those tables.")
    else:
        counts.metric("Players", f"{players['player'].nunique():,}")
    counts.metric("Sessions", f"{sessions:,}")
    counts.metric("Rejected hands", f"{rejected:,}",
                  help="In every file loaded, whatever the filters: a rejected hand is "
                       "not among the hands they choose from (its players and day may not "
                       "even be known). The Data quality section below lists each, with "
                       "its game where it was read that far, and score sheets' bad lines "
                       "that are no game (not counted here).")
    if hands == 0:
        st.info("No hands match the filters. Load histories on the Upload page, or widen "
                "the filters in the sidebar.")
    ui.report_button(ctx, key="report_overview")

    st.subheader("Hands by game")
    games_table = logic.human_table(games.assign(game=games["game"].map(GAME_NAMES)),
                                    logic.OVERVIEW_HEADERS)
    ui.dataframe(games_table, hide_index=True)
    ui.download_buttons(games_table, "hands-by-game", key="games")

    # The chart opens on demand: plotly's code is most of a new browser's first page
    # (docs/performance.md, "Pages in Chromium"); its rows are in the page's bundle already.
    over_time = st.expander("Hands over time (chart)", key="overview_over_time",
                            on_change="rerun", icon=":material/bar_chart:")
    if over_time.open:
        with over_time:
            _hands_over_time(page)

    st.subheader("Players")
    st.caption("Each game in its own unit, never averaged across units: 7 & 8 in big blinds "
               "per 100 hands over every stake, Big Two in points per game under each "
               "scoring rule (under rank scoring, which has no points, the win fraction), "
               "Rummoli in chips per round under each stakes and ante.")
    # A tab per game, only the shown one drawn: three tables and their downloads were a
    # third of a session's first page in the browser (docs/performance.md).
    played = logic.player_games(players)
    if played:
        def draw(game: str) -> None:
            for number, (title, table) in enumerate(logic.player_tables(players, game)):
                st.markdown(f"**{title}**")
                ui.dataframe(table, hide_index=True)
                suffix = f"-{number + 1}" if number else ""
                ui.download_buttons(table, f"players-{game}{suffix}",
                                    key=f"players_{game}{suffix}")

        ui.shown_tab(played, [GAME_NAMES[game] for game in played], draw,
                     key="overview_players", in_url=False)

    st.subheader("Sessions")
    session_table = logic.human_table(
        page["sessions"].assign(game=page["sessions"]["game"].map(GAME_NAMES)),
        logic.SESSION_HEADERS)
    ui.dataframe(session_table, hide_index=True)
    ui.download_buttons(session_table, "sessions", key="sessions")

    st.subheader("Files loaded")
    files = _files(ctx.db, ctx.version)
    st.caption("Every file in the database (uploads under their original name, "
               "'upload: …'), newest first; these do not follow the filters. Hover over a "
               "name for its full path.")
    st.html(logic.files_html(files))
    ui.download_buttons(logic.files_table(files), "files", key="files")
    if not files.empty and not os.environ.get(LAKE_ENV_VAR):
        _forget_form(ctx.db, files)

    st.subheader("Data quality")
    if rejects.empty:
        st.success("No hand was rejected.")
    else:
        # Counted over every reject, not over the latest listed below.
        by_file = by_file.assign(file=[logic.short_name(str(path)) for path in by_file["file"]])
        bad = bool(by_file["bad_lines"].any())  # a score sheet's lines that are no game
        if not bad:
            by_file = by_file.drop(columns="bad_lines")
        ui.dataframe(logic.human_table(by_file, logic.REJECT_FILE_HEADERS), hide_index=True)
        if recorded > len(rejects):
            what = "rejected hands and bad lines" if bad else "rejected hands"
            st.caption(f"The latest {len(rejects):,} of {recorded:,} {what}, each "
                       "with its line and reason (the download holds these too).")
        shown = logic.rejects_table(rejects)
        ui.dataframe(shown, hide_index=True, column_config={
            "reason": st.column_config.TextColumn(width="large")})
        ui.download_buttons(shown, "rejects", key="rejects")


def _hands_over_time(page: dict[str, pd.DataFrame]) -> None:
    """Hands by day, week, month or year and game; a click on a bar lists its hands."""
    bucket = st.segmented_control("Period", ["day", "week", "month", "year"], default="week",
                                  key="overview_bucket") or "week"
    figure = charts.hands_over_time(page[f"hands_over_time {bucket}"], bucket)
    chosen = ui.plotly_chart(figure, key="chart_over_time", on_select="rerun",
                             selection_mode="points")
    st.caption(f"Bars by the {bucket} (its first day). Click a bar to list its hands.")
    bar = picked_bar(figure, chosen)
    if bar is not None:
        game = {name: g for g, name in GAME_NAMES.items()}.get(bar.name, bar.name)
        first = dt.date.fromisoformat(bar.x[:10])
        behind: pd.DataFrame = ui.ask("bar_hands", source="hand_facts",
                                      bar=(("game", game), (bucket, first)))
        bar_list(behind, title=f"{bar.name}, the {bucket} of {first:%Y-%m-%d}",
                 key="over_time", name=f"{game}-{bucket}-{first}-hands")


render()
