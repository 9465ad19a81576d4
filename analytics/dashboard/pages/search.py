"""Hand search: the hands matching the sidebar's filters and what is looked for here (the
category shown down, pot size, all in, showdown, a Big Two combination, a Rummoli pot won,
starred or tagged, a hand's id); each result opens in the replayer."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analytics.dashboard import logic, ui
from analytics.dashboard.cards import pot_words
from analytics.dashboard.hand_list import show_hands
from analytics.warehouse.identity import parse_hand_id
from analytics.warehouse.sql.search import (
    CATEGORY_ORDER,
    POTS_WON,
    HandSearch,
    categories_at_least,
    pot_units,
    search_hands,
)
from analytics.warehouse.sql.views import PLAY_KIND_COLUMNS

_EITHER = {"any": None, "yes": True, "no": False}
_LIMIT = 500

_POT_HELP = ("The chips won from the hand's pots, in the unit named: a hand counted in "
             "another currency, and a Big Two game (played for points), is left out.")


def _search(game: str | None, units: list[str]) -> HandSearch:
    """The criteria the widgets hold; ``units``: those the filtered hands' pots count in
    (:func:`pot_units`), the most used first."""
    left, middle, right = st.columns(3)
    categories: tuple[str, ...] = ()
    if game in CATEGORY_ORDER:
        shown = left.selectbox("Shown down", ["any", *CATEGORY_ORDER[game]],
                               format_func=logic.category_text, key="search_category")
        better = left.checkbox("or better", value=True, key="search_better")
        if shown and shown != "any":
            categories = categories_at_least(game, shown) if better else (shown,)
    elif game is None:
        left.caption("Choose 7 & 8 or Rummoli in the sidebar to search by hand category.")
    low = high = unit = None
    all_in = showdown = "any"
    if game != "bigtwo":  # Big Two is played for points: no pot, no showdown
        unit = _pot_unit(middle, units)
        low = middle.number_input(f"Pot at least ({unit})", min_value=0, value=None,
                                  key="search_min_pot", help=_POT_HELP)
        high = middle.number_input(f"Pot at most ({unit})", min_value=0, value=None,
                                   key="search_max_pot")
        showdown = right.radio("Showdown", list(_EITHER), horizontal=True,
                               key="search_showdown")
    if game in (None, "seveneight"):  # only a 7 & 8 hand is all in with cards to come
        all_in = right.radio("All in with cards to come (7 & 8)", list(_EITHER),
                             horizontal=True, key="search_all_in")
    one, two, three = st.columns(3)
    # Each game's own criterion only where the sidebar's game allows that game's hands.
    combination = (one.selectbox("Big Two combination played", ["any", *PLAY_KIND_COLUMNS],
                                 format_func=logic.category_text, key="search_combination")
                   if game in (None, "bigtwo") else None)
    pot = (two.selectbox("Rummoli pot won", ["any", *POTS_WON], format_func=pot_words,
                         key="search_pot", help="The poker pot with its side pots; the "
                         "finale: the game's last hand, for what the board held.")
           if game in (None, "rummoli") else None)
    starred = three.radio("Starred", list(_EITHER), horizontal=True, key="search_starred")
    tag = three.text_input("Tag", key="search_tag")
    typed = st.text_input("Hand id", key="search_hand_id",
                          help="The 16 hex digits every page shows (a # before them is fine).")
    hand_id = parse_hand_id(typed) if typed.strip() else None
    if typed.strip() and hand_id is None:
        st.warning(f"{typed.strip()[:40]!r} is not a hand id: an id is 16 hex digits, as "
                   "the hand lists and the replayer show it. It is left out of the search.")
    return HandSearch(
        hand_id=hand_id,
        categories=categories, min_pot=None if low is None else int(low),
        max_pot=None if high is None else int(high),
        pot_unit=unit if low is not None or high is not None else None, all_in=_EITHER[str(all_in)],
        showdown=_EITHER[str(showdown)],
        combination=None if combination in (None, "any") else str(combination),
        pot_won=None if pot in (None, "any") else str(pot),
        starred=_EITHER[str(starred)], tag=tag.strip() or None)


def _pot_unit(column: DeltaGenerator, units: list[str]) -> str:
    """The unit a pot bound counts in: the filtered hands' one, else the one picked (a
    pot of 50 dollars and one of 50 yen are not the same size)."""
    if len(units) <= 1:
        return units[0] if units else "chips"
    return str(column.selectbox("Pot counted in", units, key="search_pot_unit",
                                help="The hands' pots are in several currencies: a pot "
                                "bound finds the hands of this one."))


def render() -> None:
    """Draw the criteria and the results (asked each run, uncached: tags change)."""
    ctx = ui.context()
    st.title("Hand search")
    st.caption("The hands matching the sidebar's filters and the criteria below, the latest "
               "500 first; with players chosen, the per-seat criteria ask about their seats. "
               "'open' shows the hand in the replayer, where it can be starred, tagged and "
               "noted.")
    with ui.reading(ctx.db) as con:  # one connection for both questions
        search = _search(ctx.filter.game, pot_units(con, ctx.filter))
        found = search_hands(con, ctx.filter, search=search, limit=_LIMIT)
    show_hands(found, key="search", name="hands-found",
               note=f" (the latest {_LIMIT})" if len(found) == _LIMIT else "")


render()
