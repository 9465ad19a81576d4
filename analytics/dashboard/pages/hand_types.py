"""Hand types: observed category distributions per game beside the exact theory, with a
chi-square goodness-of-fit test, overall and per player.

One tab per game (the shown one kept in the URL as ``tab``, as on Win rates): only the
shown tab's questions run, and the per-player tables and the Big Two plays only once
their expander is opened; Rummoli and Big Two deals are drawn one deal size at a time (and
Big Two's under one rule set for what a play is), each picked when there are several.
Dealt 7 & 8 and Rummoli hands and Big Two plays are counted exactly over every hand the
filters keep (``views.dealt_types``: the categories are stored when a hand is loaded;
``views.play_kinds``: so are each seat's plays counted by kind); Big Two deals are a
sample (``equity_views.bigtwo_dealt``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.dashboard.hand_list import bar_list, picked_bar
from analytics.evaluator import BigTwoKind, PokerCategory, SevenEightCategory
from parsers.rule_options import GAME_NAMES, Game

_SEVENEIGHT = [c.label for c in SevenEightCategory]
_POKER = [c.label for c in PokerCategory]
def _observed(counts: pd.DataFrame, labels: list[str]) -> pd.Series:
    """Hands per category (player, category, hands rows summed), in ``labels`` order."""
    observed = counts.groupby("category")["hands"].sum().reindex(labels, fill_value=0)
    return observed.astype("int64").rename("observed")


# The rows behind a category's bar (its label): ``ui.ask("bar_hands", ...)`` of the chart's
# question.  (A comment: a bare string in a page script is drawn on the page.)
Behind = Callable[[str], pd.DataFrame]


def _fit(title: str, observed: pd.Series, theory: pd.Series | None, key: str,
         behind: Behind | None = None, x_title: str = "category") -> None:
    """A chart of observed against theory and the test, or observed alone; with
    ``behind``, a click on a category's bar (observed or theory) lists its hands;
    ``x_title``: what the categories are (the axis' and the table's word)."""
    headers = {**logic.FIT_HEADERS, "category": x_title}
    if theory is None:
        table = pd.DataFrame({"category": observed.index, "observed": observed.to_numpy()})
        table["observed_share"] = table["observed"] / max(1, int(table["observed"].sum()))
        table["category"] = logic.category_words(table["category"])
        _chart(charts.observed_vs_theory(table, title, x_title=x_title), observed, key,
               behind)
        shown = logic.human_table(table, headers, decimals=1)
        ui.dataframe(shown, hide_index=True)
        ui.download_buttons(shown, key, key=key)
        return
    fit = logic.goodness_of_fit(observed, theory)
    worded = fit.table.assign(category=logic.category_words(fit.table["category"]))
    _chart(charts.observed_vs_theory(worded, title, x_title=x_title), observed, key, behind)
    st.caption(_test_words(fit))
    shown = logic.human_table(worded, headers, decimals=1)
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, key, key=key)


def _chart(figure: go.Figure, observed: pd.Series, key: str, behind: Behind | None) -> None:
    """Draw ``figure`` (categories as words); with ``behind``, a clicked bar's category
    (its label, from ``observed``'s index) lists the hands behind it."""
    if behind is None:
        ui.plotly_chart(figure, key=f"chart_{key}")
        return
    chosen = ui.plotly_chart(figure, key=f"chart_{key}", on_select="rerun",
                             selection_mode="points")
    st.caption("Click a bar to list the hands of that category.")
    bar = picked_bar(figure, chosen)
    if bar is None:
        return
    labels = [str(label) for label in observed.index]
    label = dict(zip(logic.category_words(pd.Series(labels)), labels, strict=True))[bar.x]
    bar_list(behind(label), title=f"{figure.layout.title.text}: {bar.x}", key=key,
             name=f"{key}-{label}-hands")


def _test_words(fit: logic.Fit) -> str:
    """The chi-square test in a sentence (or why there is none)."""
    if math.isnan(fit.statistic):
        return f"n = {fit.n:,}: too few hands for a chi-square test."
    return (f"Chi-square goodness of fit: χ² = {fit.statistic:.2f}, {fit.dof} degrees of "
            f"freedom, p = {fit.p_value:.4f}, n = {fit.n:,} (categories expected fewer than 5 "
            "times are pooled).")


def _players(counts: pd.DataFrame, labels: list[str], key: str, label: str = "Per player",
             counted: str = "hands") -> None:
    """Each player's hands (Big Two: ``counted`` plays) and share of each category in
    percent, from counts (player, category, hands), in an expander (``label``) whose table
    is built only while it is open."""
    if counts.empty:
        return
    expander = st.expander(label, key=f"players_{key}", on_change="rerun")
    if not expander.open:
        return
    with expander:
        table = (counts.pivot_table(index="player", columns="category", values="hands",
                                    aggfunc="sum", fill_value=0)
                 .reindex(columns=labels, fill_value=0))
        hands = table.sum(axis=1)
        shares = (100 * table.div(hands, axis=0)).round(2)
        shares.columns = [f"{words} {logic.PERCENT}" for words in
                          logic.category_words(pd.Series(shares.columns))]
        shares.insert(0, counted, hands)
        shares = shares.reset_index()
        ui.dataframe(shares, hide_index=True)
        ui.download_buttons(shares, f"{key}-players", key=f"{key}_players")


def _seveneight() -> None:
    """Dealt two and three cards against the exact theory, and the hands shown down."""
    st.header("7 & 8")
    dealt: pd.DataFrame = ui.ask("dealt_types", game="seveneight")
    if dealt.empty:
        st.info("No 7 & 8 hands with every card known match the filters.")
        return
    st.caption("Every dealt hand matching the filters whose cards are all known.")
    two = dealt[dealt["size"] == 2]
    _fit("7 & 8: first two cards dealt (every player)", _observed(two, _SEVENEIGHT),
         logic.seveneight_theory(2), "seveneight-two",
         _seats("seveneight", "dealt_two_category"))
    _players(two, _SEVENEIGHT, "seveneight-two")
    _fit("7 & 8: all three cards (players who saw the third card)",
         _observed(dealt[dealt["size"] == 3], _SEVENEIGHT),
         logic.seveneight_theory(3), "seveneight-three",
         _seats("seveneight", "dealt_three_category"))
    st.caption("Players who stay for the third card chose to, on their first two: the "
               "three-card test measures that selection as well as the deal.")
    shown: pd.DataFrame = ui.ask("showdown_types", game="seveneight")
    counts = shown.groupby("category")["hands"].sum().reindex(_SEVENEIGHT, fill_value=0)
    _fit("7 & 8: hands at showdown", counts.rename("observed"), None, "seveneight-shown",
         _seats("seveneight", "shown_category"))


def _seats(game: str, column: str, *also: tuple[str, object]) -> Behind:
    """The seats of ``game`` whose ``column`` (a ``views.BAR_COLUMNS`` seat column) is the
    clicked category, and ``also``'s columns their values: the seats its bar counts."""
    def behind(label: str) -> pd.DataFrame:
        rows: pd.DataFrame = ui.ask("bar_hands", source="seat_facts", game=game,
                                    bar=((column, label), *also))
        return rows
    return behind


def _rummoli() -> None:
    """Each deal size's test in one table; the chosen size's chart and categories."""
    st.header("Rummoli")
    hands: pd.DataFrame = ui.ask("dealt_types", game="rummoli")
    if hands.empty:
        st.info("No Rummoli hands with every card known match the filters.")
        return
    st.caption("Every dealt hand matching the filters whose cards are all known: the best "
               "five of the hand against the exact chance for a hand of that size.")
    observed = {int(size): _observed(hands[hands["size"] == size], _POKER)
                for size in hands["size"].unique().tolist()}
    fits = {size: logic.goodness_of_fit(counts, logic.poker_theory(size))
            for size, counts in observed.items() if 5 <= size <= logic.EXACT_POKER_MAX}
    ui.dataframe(logic.human_table(_size_table(observed, fits), logic.SIZE_HEADERS, decimals=4),
                 hide_index=True)
    # One chart, of the chosen size (the most dealt first): a chart per size cost about
    # 55 ms of Plotly each, seven sizes at a million hands.
    sizes = sorted(observed, key=lambda n: (-int(observed[n].sum()), n))
    size = st.selectbox("Hand size", sizes, format_func=lambda n: f"{n} cards",
                        key="rummoli_size") or sizes[0]
    fit = fits.get(size)
    _fit(f"Rummoli: best five of {size} cards dealt", observed[size],
         None if fit is None else logic.poker_theory(size), f"rummoli-{size}",
         _seats("rummoli", "dealt_poker_category", ("dealt_size", size)))
    _players(hands[hands["size"] == size], _POKER, "rummoli",
             f"Per player ({size}-card deals)")


def _size_table(observed: dict[int, pd.Series], fits: dict[int, logic.Fit]) -> pd.DataFrame:
    """Per deal size: hands and the chi-square test of its categories against theory."""
    rows = []
    for size in sorted(observed):
        fit = fits.get(size)
        rows.append({"size": size, "hands": int(observed[size].sum()),
                     "chi_square": math.nan if fit is None else fit.statistic,
                     "dof": 0 if fit is None else fit.dof,
                     "p_value": math.nan if fit is None else fit.p_value})
    return pd.DataFrame(rows, columns=["size", "hands", "chi_square", "dof", "p_value"])


@st.cache_data(max_entries=64, show_spinner="Counting what the deals hold…")
def _held(dealt: pd.DataFrame, group: logic.HeldGroup) -> pd.DataFrame:
    return logic.bigtwo_held_table(dealt, group)


def _bigtwo_dealt() -> None:
    """What the Big Two deals contain against the exact theory (analytics.equity.bigtwo_theory):
    per hand size, the most cards of one rank and the 2s held (each a partition of the deals,
    so one chi-square test), and each kind of play held (a binomial test per kind)."""
    dealt: pd.DataFrame = ui.ask("bigtwo_dealt")
    if dealt.empty:
        st.info("No Big Two deals with every card known match the filters.")
        return
    st.caption("A random sample of up to 20,000 deals matching the filters whose cards are "
               "all known, the same sample on every visit.")
    # One deal size at a time (the most dealt first), as on the Rummoli tab: a size's charts
    # are three, and every size's and rule set's together drew twenty on the samples, over
    # 2 s in the browser.
    counts = (dealt["cards"].str.len() // 2).value_counts()
    sizes = sorted((int(n) for n in counts.index), key=lambda n: (-int(counts[n]), n))
    size = sizes[0]
    if len(sizes) > 1:
        size = st.selectbox("Cards dealt", sizes, format_func=lambda n: f"{n}-card deals",
                            key="bigtwo_size") or size
    for what, title in (("most", "most cards of one rank"), ("twos", "2s held")):
        observed, theory = logic.bigtwo_partition_counts(dealt, size, what)
        _fit(f"Big Two: {title}, {size}-card deals", observed, theory,
             f"bigtwo-{what}-{size}", x_title=title)
    st.subheader("Combinations the deals hold")
    groups = {logic.held_label(group): group for group in logic.bigtwo_held_groups(dealt)
              if group[0] == size}
    label = next(iter(groups))
    if len(groups) > 1:  # deals of this size under several rules for what a play is
        label = st.selectbox("Rules for what a play is", list(groups), key="bigtwo_rules",
                             format_func=lambda text: text.split(", ", 1)[1]) or label
    # Only the shown group's theory is counted (each 0.1-0.2 s the first time).
    held = logic.held_words(_held(dealt, groups[label]))
    ui.plotly_chart(charts.observed_vs_theory(held, f"Big Two: deals holding each kind "
                                                    f"({label})", x_title="kind"),
                    key="chart_bigtwo_held")
    st.caption("Share of deals holding at least one play of each kind, against the exact "
               "chance (counted over ranks and suits under the game's rules for straights "
               "and four-card plays); the kinds overlap, so each has its own two-sided "
               "binomial test (p-value) instead of one chi-square.")
    shown = logic.human_table(held, logic.HELD_HEADERS, decimals=4)
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, "bigtwo-deals-hold", key="bigtwo-held")


def _bigtwo() -> None:
    """The deals against theory, then the combinations played (counted when opened)."""
    st.header("Big Two")
    sheets = int(ui.ask("outcome_only_games"))
    if sheets:
        st.info(f"{sheets:,} of the Big Two games are outcome-only (score sheets): they "
                "record no deal and no plays, so the deals and plays below leave them out "
                "(they are not counted as empty hands). Their scores are on the Win rates "
                "page.", icon=":material/info:")
    _bigtwo_dealt()
    st.subheader("Combinations played")
    st.caption("Every play matching the filters, counted by kind.  What is played depends "
               "on the players' choices (which combination to make of a hand, when to pass), "
               "so plays have no theory column: the deal theory is above.")
    expander = st.expander("Plays by kind", key="bigtwo_plays", on_change="rerun")
    if not expander.open:
        return
    with expander:
        played: pd.DataFrame = ui.ask("play_kinds")
        labels = [k.label for k in BigTwoKind]
        _fit("Big Two: combinations played", _observed(played, labels), None, "bigtwo-plays",
             _played)
    _players(played, labels, "bigtwo", counted="plays")


def _played(kind: str) -> pd.DataFrame:
    """The Big Two seats that played ``kind``, each counted by its plays of it: the plays
    its bar counts."""
    rows: pd.DataFrame = ui.ask("bar_hands", source="seat_facts", game="bigtwo", bar=(),
                                kind=kind)
    return rows


_SECTIONS: dict[str, Callable[[], None]] = {
    "seveneight": _seveneight, "rummoli": _rummoli, "bigtwo": _bigtwo}


def render() -> None:
    """Draw one tab per game in the data (the filter's game alone when it names one); only
    the shown tab's section runs."""
    ctx = ui.context()
    st.title("Hand types")
    # The games come from the filter choices every page loads already: no question of its
    # own (the overview it asked before cost about 0.2-0.3 s of CPU at a million hands).
    # In the order of every other page's tabs: 7 & 8, Big Two, Rummoli.
    games = [Game(g).value for g in GAME_NAMES
             if g in ctx.options.games and ctx.filter.game in (None, g)]
    if not games:
        st.info("No hands match the filters.")
        return
    ui.shown_tab(games, [GAME_NAMES[Game(g)] for g in games], lambda game: _SECTIONS[game](),
                 key="tab")


render()
