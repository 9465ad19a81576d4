"""handlab's dashboard: ``streamlit run app.py`` (or ``handlab serve``).

The entry point only sets the page up, draws the shared filters and runs the
chosen page; each page is a thin script in analytics/dashboard/pages/ whose
logic lives in plain, unit-tested functions (docs/dashboard.md).
"""

from __future__ import annotations

import streamlit as st

from analytics.dashboard import ui

PAGES = "analytics/dashboard/pages"

st.set_page_config(page_title="handlab", page_icon="🃏", layout="wide")
navigation = st.navigation([
    st.Page(f"{PAGES}/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page(f"{PAGES}/upload.py", title="Upload", icon=":material/upload_file:"),
    st.Page(f"{PAGES}/win_rates.py", title="Win rates", icon=":material/trending_up:"),
    st.Page(f"{PAGES}/pots.py", title="Pot accumulation", icon=":material/savings:"),
    st.Page(f"{PAGES}/hand_types.py", title="Hand types", icon=":material/bar_chart:"),
    st.Page(f"{PAGES}/statistics.py", title="Statistics", icon=":material/table_chart:"),
    st.Page(f"{PAGES}/replayer.py", title="Hand replayer", icon=":material/play_circle:"),
    st.Page(f"{PAGES}/search.py", title="Hand search", icon=":material/search:"),
    st.Page(f"{PAGES}/record.py", title="Record a game", icon=":material/edit_note:"),
    st.Page(f"{PAGES}/play.py", title="Play the bots", icon=":material/smart_toy:"),
])
# One read connection for the run's questions, closed before a busy notice's wait and rerun.
with ui.guarded(), ui.run_connection():
    ui.start()
    navigation.run()
