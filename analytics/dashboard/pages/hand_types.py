"""Hand types: observed category distributions per game beside the exact theory, with a
chi-square goodness-of-fit test, overall and per player."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.evaluator import BigTwoKind, PokerCategory, SevenEightCategory

_SEVENEIGHT = [c.label for c in SevenEightCategory]
_POKER = [c.label for c in PokerCategory]


@st.cache_data(max_entries=64, show_spinner="Evaluating hands…")
def _categorised(kind: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Dealt or played cards with their category (the evaluator on the stored text)."""
    out = frame.copy()
    if kind == "seveneight2":
        out["category"] = logic.seveneight_categories(out["cards"].str.slice(0, 4))
    elif kind == "seveneight3":
        out = out[out["cards"].str.len() == 6]
        out["category"] = logic.seveneight_categories(out["cards"])
    elif kind == "rummoli":
        out["size"] = out["cards"].str.len() // 2
        out["category"] = logic.poker_categories(out["cards"])
    else:
        out["category"] = logic.bigtwo_kinds(out["cards"], out["rules"])
    return out


def _fit(title: str, observed: pd.Series, theory: pd.Series | None, key: str) -> None:
    """A chart of observed against theory and the test, or observed alone."""
    if theory is None:
        table = pd.DataFrame({"category": observed.index, "observed": observed.to_numpy()})
        table["observed_share"] = table["observed"] / max(1, int(table["observed"].sum()))
        st.plotly_chart(charts.observed_vs_theory(table, title), key=f"chart_{key}")
        st.dataframe(table, hide_index=True)
        ui.download_buttons(table, key, key=key)
        return
    fit = logic.goodness_of_fit(observed, theory)
    st.plotly_chart(charts.observed_vs_theory(fit.table, title), key=f"chart_{key}")
    if math.isnan(fit.statistic):
        st.caption(f"n = {fit.n:,}: too few hands for a chi-square test.")
    else:
        st.caption(f"Chi-square goodness of fit: χ² = {fit.statistic:.2f}, {fit.dof} degrees "
                   f"of freedom, p = {fit.p_value:.4f}, n = {fit.n:,} (categories expected "
                   "fewer than 5 times are pooled).")
    st.dataframe(fit.table, hide_index=True)
    ui.download_buttons(fit.table, key, key=key)


def _players(frame: pd.DataFrame, labels: list[str], key: str) -> None:
    if frame.empty:
        return
    with st.expander("Per player"):
        table = (frame.groupby(["player", "category"]).size().unstack(fill_value=0)
                 .reindex(columns=labels, fill_value=0))
        shares = table.div(table.sum(axis=1), axis=0).reset_index()
        st.dataframe(shares, hide_index=True)
        ui.download_buttons(shares, f"{key}-players", key=f"{key}_players")


@st.cache_data(max_entries=64, show_spinner="Counting what the deals hold…")
def _held(dealt: pd.DataFrame) -> pd.DataFrame:
    return logic.bigtwo_held_table(dealt)


def _bigtwo_dealt() -> None:
    """What the Big Two deals contain against the exact theory (analytics.equity.bigtwo_theory):
    per hand size, the most cards of one rank and the 2s held (each a partition of the deals,
    so one chi-square test), and each kind of play held (a binomial test per kind)."""
    dealt: pd.DataFrame = ui.ask("bigtwo_dealt")
    if dealt.empty:
        st.info("No Big Two deals with every card known match the filters.")
        return
    sizes = sorted(int(n) for n in (dealt["cards"].str.len() // 2).unique())
    for size in sizes:
        for what, title in (("most", "most cards of one rank"), ("twos", "2s held")):
            observed, theory = logic.bigtwo_partition_counts(dealt, size, what)
            _fit(f"Big Two: {title}, {size}-card deals", observed, theory,
                 f"bigtwo-{what}-{size}")
    held = _held(dealt)
    st.subheader("Combinations the deals hold")
    groups = held[["size", "straights", "four_card_plays"]].drop_duplicates()
    for size, straights, four in groups.itertuples(index=False):
        table = held[(held["size"] == size) & (held["straights"] == straights)
                     & (held["four_card_plays"] == four)].reset_index(drop=True)
        label = f"{size}-card deals, straights {straights}" + (
            ", four-card plays" if four else "")
        st.plotly_chart(charts.observed_vs_theory(table, f"Big Two: deals holding each "
                                                         f"kind ({label})"),
                        key=f"chart_bigtwo_held_{size}_{straights}_{four}")
    st.caption("Share of deals holding at least one play of each kind, against the exact "
               "chance (counted over ranks and suits under the game's straights and "
               "four-card-plays knobs); the kinds overlap, so each has its own two-sided "
               "binomial test (p_value) instead of one chi-square.")
    st.dataframe(held, hide_index=True)
    ui.download_buttons(held, "bigtwo-deals-hold", key="bigtwo-held")


def render() -> None:
    """Draw one section per game in the filtered data."""
    st.title("Hand types")
    st.caption("Dealt hands are a random sample of up to 50,000 (played combinations "
               "20,000) of those matching the filters, the same sample on every visit.")
    games: pd.DataFrame = ui.ask("overview")
    present = set(games["game"])
    if not present:
        st.info("No hands match the filters.")
        return
    if "seveneight" in present:
        st.header("7 & 8")
        dealt = _categorised("seveneight2", ui.ask("dealt_hands", game="seveneight"))
        _fit("7 & 8: first two cards dealt (every player)",
             logic.category_counts(dealt["category"], _SEVENEIGHT),
             logic.seveneight_theory(2), "seveneight-two")
        _players(dealt, _SEVENEIGHT, "seveneight-two")
        third = _categorised("seveneight3", ui.ask("dealt_hands", game="seveneight"))
        _fit("7 & 8: all three cards (players who saw the third card)",
             logic.category_counts(third["category"], _SEVENEIGHT),
             logic.seveneight_theory(3), "seveneight-three")
        st.caption("Players who stay for the third card chose to, on their first two: the "
                   "three-card test measures that selection as well as the deal.")
        shown = ui.ask("showdown_types")
        shown = shown[shown["game"] == "seveneight"]
        counts = shown.groupby("category")["hands"].sum().reindex(_SEVENEIGHT, fill_value=0)
        _fit("7 & 8: hands at showdown", counts.rename("observed"), None, "seveneight-shown")
    if "rummoli" in present:
        st.header("Rummoli")
        dealt = _categorised("rummoli", ui.ask("dealt_hands", game="rummoli"))
        for size in sorted(dealt["size"].unique()):
            rows = dealt[dealt["size"] == size]
            theory = logic.poker_theory(int(size)) if size <= logic.EXACT_POKER_MAX else None
            _fit(f"Rummoli: best five of {size} cards dealt",
                 logic.category_counts(rows["category"], _POKER), theory, f"rummoli-{size}")
            if theory is None:
                st.caption(f"No exact theory for {size} cards yet: enumerating C(52, {size}) "
                           "hands is too slow for a page; it comes with the equity tables.")
        _players(dealt, _POKER, "rummoli")
    if "bigtwo" in present:
        st.header("Big Two")
        _bigtwo_dealt()
        st.subheader("Combinations played")
        played = _categorised("bigtwo", ui.ask("plays"))
        labels = [k.label for k in BigTwoKind]
        _fit("Big Two: combinations played", logic.category_counts(played["category"], labels),
             None, "bigtwo-plays")
        st.caption("What is played depends on the players' choices (which combination to "
                   "make of a hand, when to pass), so plays have no theory column: the deal "
                   "theory is above.")
        _players(played, labels, "bigtwo")


render()
