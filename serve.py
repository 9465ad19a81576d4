"""handlab's dashboard server: ``streamlit run serve.py`` (what ``handlab serve`` runs).

The dashboard is app.py; this wraps it in Streamlit's ASGI app so that the server process
warms up once at start, before the first browser comes (imports, the first page's cached
questions: analytics/dashboard/startup.py) and sends the browser's files compressed, the
charts' code fetched once the first page has settled (analytics/dashboard/assets.py).
``streamlit run app.py`` works too, without either.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from analytics.dashboard.assets import BrowserFiles
from analytics.dashboard.startup import chart_pages, lifespan

app = st.App("app.py", lifespan=lifespan,
             middleware=[Middleware(BrowserFiles, chart_pages=chart_pages())])
