"""Hand types: observed category distributions per game beside the exact theory, with a
chi-square goodness-of-fit test, overall and per player.

Dealt 7 & 8 and Rummoli hands are counted exactly over every hand the filters keep
(``views.dealt_types``: the categories are stored when a hand is loaded); Big Two plays
are a sample categorised here."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.evaluator import BigTwoKind, PokerCategory, SevenEightCategory

_SEVENEIGHT = [c.label for c in SevenEightCategory]
_POKER = [c.label for c in PokerCategory]


@st.cache_data(max_entries=64, show_spinner="Evaluating plays…")
def _played_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Big Two plays (a sample: player, cards, rules) counted per player and kind (the
    evaluator on the stored text, under each hand's knobs): player, category, hands."""
    kinds = logic.bigtwo_kinds(frame["cards"], frame["rules"])
    return (frame.assign(category=kinds).groupby(["player", "category"]).size()
            .rename("hands").reset_index())


def _observed(counts: pd.DataFrame, labels: list[str]) -> pd.Series:
    """Hands per category (player, category, hands rows summed), in ``labels`` order."""
    observed = counts.groupby("category")["hands"].sum().reindex(labels, fill_value=0)
    return observed.astype("int64").rename("observed")


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


def _players(counts: pd.DataFrame, labels: list[str], key: str) -> None:
    """Each player's share of each category, from counts (player, category, hands)."""
    if counts.empty:
        return
    with st.expander("Per player"):
        table = (counts.pivot_table(index="player", columns="category", values="hands",
                                    aggfunc="sum", fill_value=0)
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
    st.caption("Dealt 7 & 8 and Rummoli hands: every hand matching the filters whose "
               "cards are all known.")
    games: pd.DataFrame = ui.ask("overview")
    present = set(games["game"])
    if not present:
        st.info("No hands match the filters.")
        return
    if "seveneight" in present:
        st.header("7 & 8")
        dealt: pd.DataFrame = ui.ask("dealt_types", game="seveneight")
        two = dealt[dealt["size"] == 2]
        _fit("7 & 8: first two cards dealt (every player)", _observed(two, _SEVENEIGHT),
             logic.seveneight_theory(2), "seveneight-two")
        _players(two, _SEVENEIGHT, "seveneight-two")
        _fit("7 & 8: all three cards (players who saw the third card)",
             _observed(dealt[dealt["size"] == 3], _SEVENEIGHT),
             logic.seveneight_theory(3), "seveneight-three")
        st.caption("Players who stay for the third card chose to, on their first two: the "
                   "three-card test measures that selection as well as the deal.")
        shown = ui.ask("showdown_types")
        shown = shown[shown["game"] == "seveneight"]
        counts = shown.groupby("category")["hands"].sum().reindex(_SEVENEIGHT, fill_value=0)
        _fit("7 & 8: hands at showdown", counts.rename("observed"), None, "seveneight-shown")
    if "rummoli" in present:
        st.header("Rummoli")
        hands: pd.DataFrame = ui.ask("dealt_types", game="rummoli")
        for size in sorted(int(n) for n in hands["size"].unique()):
            rows = hands[hands["size"] == size]
            theory = logic.poker_theory(size) if size <= logic.EXACT_POKER_MAX else None
            _fit(f"Rummoli: best five of {size} cards dealt", _observed(rows, _POKER), theory,
                 f"rummoli-{size}")
            if theory is None:
                st.caption(f"No exact theory for {size} cards yet: enumerating C(52, {size}) "
                           "hands is too slow for a page; it comes with the equity tables.")
        _players(hands, _POKER, "rummoli")
    if "bigtwo" in present:
        st.header("Big Two")
        _bigtwo_dealt()
        st.subheader("Combinations played")
        played = _played_counts(ui.ask("plays"))
        labels = [k.label for k in BigTwoKind]
        _fit("Big Two: combinations played", _observed(played, labels), None, "bigtwo-plays")
        st.caption("A random sample of up to 20,000 plays matching the filters, the same "
                   "sample on every visit.  What is played depends on the players' choices "
                   "(which combination to make of a hand, when to pass), so plays have no "
                   "theory column: the deal theory is above.")
        _players(played, labels, "bigtwo")


render()
