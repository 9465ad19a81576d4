"""Statistics: the player-statistics grid per game (cells ``12/40 (30%)``, the interval on
hover, thin cells greyed, the definition on every header) and the definitions in words."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.dashboard import statistics, ui
from analytics.stats import FRY_THRESHOLD, MIN_OPPORTUNITIES, SPLITS
from parsers.knobs import Game

_SPLIT_NAMES = {"": "no split", "position": "position", "stakes": "stakes",
                "up_rank": "up card rank", "players": "players at the table"}


def _split_name(split: str) -> str:
    return _SPLIT_NAMES.get(split, split)


def render() -> None:
    """Draw the page: one tab per game with statistics (the tab is in the URL as ``tab``)."""
    ctx = ui.context()
    st.title("Statistics")
    st.caption("Each cell is count/opportunities (share); hover a cell for its 95 % Wilson "
               "interval and a column header for its definition. Cells with fewer "
               "opportunities than the threshold are greyed. The definitions are listed "
               "below the grid (and in docs/statistics.md).")
    games = [g for g in statistics.GAME_NAMES if ctx.filter.game in (None, g.value)]
    if not games:
        st.info("No game with statistics matches the filters.")
        return
    tabs = st.tabs([statistics.GAME_NAMES[g] for g in games], key="tab",
                   bind="query-params")
    for tab, game in zip(tabs, games, strict=True):
        if tab.open is False:
            continue
        with tab:
            _game(game)


def _game(game: Game) -> None:
    """One game's grid, its split and downloads, then its definitions."""
    left, middle, right = st.columns(3)
    threshold = int(middle.number_input("Grey cells under this many opportunities",
                                        min_value=0, value=MIN_OPPORTUNITIES, step=5,
                                        key=f"stats_threshold_{game.value}"))
    choices: list[str] = ["", *SPLITS[game]]
    split = left.selectbox("Split by", choices, format_func=_split_name,
                           key=f"stats_split_{game.value}") or None
    fry = FRY_THRESHOLD
    if game is Game.BIGTWO:
        fry = int(right.number_input("Fry: at least this many cards left", min_value=1,
                                     max_value=13, value=FRY_THRESHOLD, key="stats_fry"))
    grid: pd.DataFrame = ui.ask("stat_grid", game=game.value, split=split, fry_threshold=fry)
    if grid.empty:
        st.info("No hands of this game match the filters.")
        return
    keys = ("player", split) if split else ("player",)
    st.html(statistics.GRID_STYLE + statistics.grid_html(grid, game, keys=keys,
                                                         min_opportunities=threshold))
    ui.download_buttons(grid, f"{game.value}-statistics", key=f"stats_{game.value}")
    st.subheader("Definitions")
    st.markdown(statistics.definitions_markdown(game))


render()
