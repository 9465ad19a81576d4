"""The floor for benchmarks/bench_pages.py: a minimal Streamlit page, no handlab in it.

``HANDLAB_PEER=table``: one title and one small table; ``HANDLAB_PEER=chart``: one title and
one small plotly chart; ``HANDLAB_PEER=bar``: one title and Streamlit's own bar chart
(Vega-Lite).  Served by ``peer_serve.py`` beside it exactly as handlab's dashboard is
served (the same Streamlit, the same ASGI wrapper and browser files), so a page's time to
idle here is what Streamlit's own start costs: its JavaScript, the websocket, a first
script run.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

KIND = os.environ.get("HANDLAB_PEER", "table")

st.title(f"Peer {KIND}")
rows = pd.DataFrame({"game": ["7 & 8", "Big Two", "Rummoli"], "hands": [120, 40, 30]})
if KIND == "chart":
    import plotly.express as px

    st.plotly_chart(px.bar(rows, x="game", y="hands"))
elif KIND == "bar":
    st.bar_chart(rows, x="game", y="hands")
else:
    st.dataframe(rows, hide_index=True)
