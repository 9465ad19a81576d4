"""The Streamlit dashboard: pages in ``pages/``, their logic in plain, tested modules.

``logic`` (arithmetic on DataFrames), ``charts`` (plotly figures), ``filters``
(filter state <-> URL), ``replayer`` (a hand step by step), ``cards`` (cards as
HTML) import no Streamlit; ``ui`` and the pages do.  ``app.py`` at the project
root is the entry point.  docs/dashboard.md describes the pages.
"""
