"""The floor for benchmarks/bench_pages.py: a minimal Streamlit page, no handlab in it.

``HANDLAB_PEER=table``: one title and one small table; ``HANDLAB_PEER=chart``: one title and
one small plotly chart; ``HANDLAB_PEER=bar``: one title and Streamlit's own bar chart
(Vega-Lite).  Served by ``peer_serve.py`` beside it exactly as handlab's dashboard is
served (the same Streamlit, the same ASGI wrapper and browser files), so a page's time to
idle here is what Streamlit's own start costs: its JavaScript, the websocket, a first
script run.

The table peer plus one of the Overview's parts, to find what each costs a session's first
page (``HANDLAB_PEER=table+nav``, parts joined by ``+``; :data:`PARTS`): ``nav`` handlab's
ten pages in ``st.navigation`` with their material icons, ``filters`` the sidebar's filter
widgets (three selectboxes, two multiselects, two date inputs), ``metrics`` a row of four
``st.metric``, ``tables`` three more tables, ``tabs`` three tabs with one drawn, ``downloads``
the download buttons, ``expander`` a closed expander with an icon, ``markdown`` captions,
bold markdown and subheaders, ``html`` the files' ``st.html``, ``icons`` material icons in
the page's text only (no navigation); ``overview`` all of them, the Overview's shape.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Final

import pandas as pd
import streamlit as st

KIND = os.environ.get("HANDLAB_PEER", "table")
PARTS: Final = ("nav", "filters", "metrics", "tables", "tabs", "downloads", "expander",
                "markdown", "html", "icons")
"""The Overview's parts a peer can add to the table (``overview``: all of them)."""

BASE, *ADDED = KIND.split("+")
WANTED = frozenset(PARTS if "overview" in ADDED else ADDED)
unknown = WANTED - set(PARTS)
if unknown:
    raise SystemExit(f"unknown peer parts {sorted(unknown)}; known: {', '.join(PARTS)}")

# handlab's pages and icons (app.py), the pages empty but for a title.
NAVIGATION: Final = (("Overview", "dashboard"), ("Upload", "upload_file"),
                     ("Win rates", "trending_up"), ("Pot accumulation", "savings"),
                     ("Hand types", "bar_chart"), ("Statistics", "table_chart"),
                     ("Hand replayer", "play_circle"), ("Hand search", "search"),
                     ("Record a game", "edit_note"), ("Play the bots", "smart_toy"))


def _download_buttons(name: str) -> None:
    for column, fmt in zip(st.columns(3), ("csv", "xlsx", "parquet"), strict=True):
        column.download_button(fmt.upper(), data=lambda: b"game,hands\n", file_name=f"{name}.{fmt}",
                               key=f"dl_{name}_{fmt}", on_click="ignore")


def _filters() -> None:
    first, last = dt.date(2026, 1, 1), dt.date(2026, 12, 1)
    sidebar = st.sidebar
    sidebar.header("Filters")
    sidebar.selectbox("Game", ["all games", "7 & 8", "Big Two", "Rummoli"])
    sidebar.multiselect("Players", [f"player {n}" for n in range(16)], placeholder="all players")
    sidebar.date_input("From", value=first, min_value=first, max_value=last, format="YYYY-MM-DD")
    sidebar.date_input("To", value=last, min_value=first, max_value=last, format="YYYY-MM-DD")
    sidebar.selectbox("Session or game id", ["", "s1", "s2"], format_func=lambda s: s or "all")
    sidebar.multiselect("House rules", ["ante=1", "limit=fixed"], placeholder="any rules")
    sidebar.selectbox("Stakes", ["all stakes", "1/2", "2/4"])
    sidebar.caption("Database: `peer.duckdb` · 3 files loaded")


def _page(rows: pd.DataFrame) -> None:
    st.title(f"Peer {KIND}")
    if "markdown" in WANTED:
        st.caption("Filters: all games, every player, every day")
    if "metrics" in WANTED:
        for column, (label, value) in zip(st.columns(4), (("Hands", "190"), ("Players", "16"),
                                                          ("Sessions", "12"), ("Rejected", "0")),
                                          strict=True):
            column.metric(label, value)
    if "icons" in WANTED:
        st.markdown(":material/bar_chart: Hands by game")
    if "markdown" in WANTED:
        st.subheader("Hands by game")
    if BASE == "chart":
        import plotly.express as px

        st.plotly_chart(px.bar(rows, x="game", y="hands"))
    elif BASE == "bar":
        st.bar_chart(rows, x="game", y="hands")
    else:
        st.dataframe(rows, hide_index=True)
    if "downloads" in WANTED:
        _download_buttons("games")
    if "expander" in WANTED:
        st.expander("Hands over time (chart)", icon=":material/bar_chart:")
    if "tabs" in WANTED:
        for number, tab in enumerate(st.tabs(["7 & 8", "Big Two", "Rummoli"])):
            if number == 0:
                with tab:
                    if "markdown" in WANTED:
                        st.markdown("**7 & 8: big blinds per 100 hands**")
                    st.dataframe(rows, hide_index=True)
    if "tables" in WANTED:
        for name in ("players", "sessions", "rejects"):
            if "markdown" in WANTED:
                st.subheader(name.title())
            st.dataframe(rows.assign(name=name), hide_index=True)
            if "downloads" in WANTED:
                _download_buttons(name)
    if "html" in WANTED:
        st.html("<table><tr><th>file</th><th>hands</th></tr>"
                "<tr><td title='/data/a.phhs'>a.phhs</td><td>120</td></tr></table>")
    if "markdown" in WANTED:
        st.success("No hand was rejected.")


ROWS = pd.DataFrame({"game": ["7 & 8", "Big Two", "Rummoli"], "hands": [120, 40, 30]})
if "filters" in WANTED:
    _filters()
if "nav" in WANTED:
    first_page = st.Page(lambda: _page(ROWS), title=NAVIGATION[0][0],
                         icon=f":material/{NAVIGATION[0][1]}:", url_path="overview",
                         default=True)
    def _other() -> None:
        st.title("Other")

    others = [st.Page(_other, title=title, icon=f":material/{icon}:",
                      url_path=title.lower().replace(" ", "_"))
              for title, icon in NAVIGATION[1:]]
    st.navigation([first_page, *others]).run()
else:
    _page(ROWS)
