"""A list of hands as the dashboard shows it: the search page's results, and the hands
behind a statistic's cell or a session (the statistics page).

One component, :func:`show_hands`: how many hands, a table whose ``open`` link shows each
hand in the replayer (by its 16-hex id), and the downloads.  The rows are what
:func:`analytics.warehouse.search.describe_hands` and ``search_hands`` return, with any
columns the caller adds (a statistic's count per hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from analytics.dashboard import ui

__all__ = ["show_hands"]


def show_hands(found: pd.DataFrame, *, key: str, name: str, note: str = "",
               column_config: Mapping[str, Any] | None = None) -> None:
    """Draw ``found`` (rows of ``search.describe_hands``): "N hand(s)" and ``note``, the
    table with the replayer's link ("open"), and the CSV, XLSX and Parquet downloads
    named ``name``."""
    st.markdown(f"**{len(found):,} hand(s)**{note}")
    st.dataframe(found.drop(columns=["hand_id"]), hide_index=True, key=f"hands_{key}",
                 column_config={
                     "replay": st.column_config.LinkColumn("replay", display_text="open"),
                     "day": st.column_config.DateColumn("day"),
                     **(column_config or {})})
    ui.download_buttons(found, name, key=key)
