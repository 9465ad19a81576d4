"""The peer page (peer_page.py beside this) served as ``serve.py`` serves handlab's dashboard:
Streamlit's ASGI app behind analytics/dashboard/assets.py's ``BrowserFiles`` (the files
compressed, the plotly chunk prefetched), without handlab's warm-up (the page has nothing
to warm)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from analytics.dashboard.assets import BrowserFiles

app = st.App(str(Path(__file__).resolve().parent / "peer_page.py"),
             middleware=[Middleware(BrowserFiles)])
