"""The dashboard's arithmetic: plain functions of DataFrames, unit-tested without Streamlit.

Pages fetch frames with :mod:`analytics.warehouse.views` and shape them here:
confidence intervals, hand categories (the shared evaluator on stored card
text), exact category distributions by enumeration, goodness-of-fit tests, the
Rummoli board in shapes the charts want, and the upload summary.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Final, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from analytics.equity import (
    poker_category_counts,
    seveneight_three_card_counts,
    seveneight_two_card_counts,
)
from analytics.equity.bigtwo_theory import (
    bigtwo_contains,
    bigtwo_kinds_held_counts,
    bigtwo_most_of_a_rank,
    bigtwo_twos,
    kinds_for,
)
from analytics.evaluator import PokerCategory, SevenEightCategory
from analytics.evaluator.categories import card_text_codes, poker_labels, seveneight_labels
from analytics.warehouse.facts import bigtwo_rules
from analytics.warehouse.ingest import FileSummary
from parsers.knobs import BigTwoRules
from parsers.model import RUMMOLI_POTS

__all__ = [
    "EXACT_POKER_MAX",
    "TABLE_ROW",
    "Fit",
    "allin_table",
    "bigtwo_held_table",
    "bigtwo_partition_counts",
    "board_areas",
    "calibration_table",
    "card_codes",
    "category_counts",
    "feature_table",
    "goodness_of_fit",
    "poker_categories",
    "poker_theory",
    "pot_summary",
    "score_keeper_table",
    "seveneight_categories",
    "seveneight_theory",
    "share_vs_expected",
    "split_table",
    "upload_table",
    "with_confidence",
    "zero_sum_line",
]

Z95: Final = 1.959963984540054
"""The two-sided 95 % normal quantile."""

EXACT_POKER_MAX: Final = 26
"""Largest hand size with an exact category distribution: every Rummoli deal has one (5 to
26 cards; :mod:`analytics.equity.theory` counts them instead of enumerating)."""

def with_confidence(frame: pd.DataFrame, *, mean: str = "mean", sd: str = "sd",
                    n: str = "hands") -> pd.DataFrame:
    """``frame`` with ``ci_low``/``ci_high``: mean ± 1.96·sd/√n (the normal approximation).

    A group of one hand has no standard deviation; its interval is left empty
    rather than pretending to be exact.
    """
    out = frame.copy()
    counts = out[n].astype("float64")
    spread = out[sd].astype("float64")
    half: pd.Series = Z95 * spread / np.sqrt(counts)
    out["ci_low"] = out[mean].astype("float64") - half
    out["ci_high"] = out[mean].astype("float64") + half
    return out


def card_codes(cards: Iterable[str], k: int) -> npt.NDArray[np.int8]:
    """Card texts of exactly ``k`` canonical cards each (``AsKd``) as an (n, k) int8 code array.

    Vectorised (:func:`analytics.evaluator.categories.card_text_codes`).  Raises
    ValueError for text that is not ``k`` canonical cards.
    """
    codes, valid = card_text_codes(list(cards), k)
    if not valid.all():
        raise ValueError("not canonical card text")
    return codes


def seveneight_categories(cards: pd.Series) -> pd.Series:
    """The 7 & 8 category label of each hand of two or three cards (others: empty).

    The warehouse stores the same labels for every dealt hand (``seat_facts``); this is
    for card text the page has in hand.
    """
    return _blank_for_none(seveneight_labels(cards), cards.index)


def poker_categories(cards: pd.Series) -> pd.Series:
    """The best-five poker category label of each hand of 5 to 26 cards (others: empty)."""
    return _blank_for_none(poker_labels(cards), cards.index)


def _blank_for_none(labels: npt.NDArray[np.object_], index: pd.Index) -> pd.Series:
    """The evaluator's labels as a Series, no category as "" (what the counts drop)."""
    return pd.Series(labels, index=index, dtype="object").fillna("")


def seveneight_theory(size: int) -> pd.Series:
    """Exact probability of each 7 & 8 category for ``size`` (2 or 3) random cards.

    Every one of the C(52, size) hands is evaluated (1,326 or 22,100) by
    :mod:`analytics.equity.theory` in plain numpy: milliseconds even in a fresh process
    (the numba enumeration cost about 0.7 s there, loading its kernel).
    """
    if size not in (2, 3):
        raise ValueError("7 & 8 hands have two or three cards")
    found = seveneight_two_card_counts() if size == 2 else seveneight_three_card_counts()
    counts = np.array([found[category] for category in SevenEightCategory], dtype=np.int64)
    labels = [category.label for category in SevenEightCategory]
    return pd.Series(counts / counts.sum(), index=labels, name="theory")


@cache
def poker_theory(size: int) -> pd.Series:
    """Exact probability of each best-five poker category for ``size`` random cards.

    Any Rummoli deal, 5 to :data:`EXACT_POKER_MAX` cards: the counts of
    :func:`analytics.equity.poker_category_counts` (derived without enumerating and
    shipped with the package, so nothing is computed here); ValueError for other sizes.
    """
    if not 5 <= size <= EXACT_POKER_MAX:
        raise ValueError(f"exact poker theory is counted for 5..{EXACT_POKER_MAX} cards")
    found = poker_category_counts(size)
    counts = np.array([found[category] for category in PokerCategory], dtype=np.int64)
    labels = [category.label for category in PokerCategory]
    return pd.Series(counts / counts.sum(), index=labels, name="theory")


def category_counts(labels: pd.Series, order: Iterable[str] | None = None) -> pd.Series:
    """How often each label occurs, in ``order`` (missing labels count 0), empty labels dropped."""
    counts = labels[labels != ""].value_counts()
    if order is not None:
        counts = counts.reindex(list(order), fill_value=0)
    return counts.astype("int64").rename("observed")


@dataclass(frozen=True, slots=True)
class Fit:
    """A chi-square goodness-of-fit test of observed counts against a theory.

    ``table`` has per category: observed, expected (n times the probability),
    observed and theory shares.  Categories expected fewer than 5 times are pooled
    for the test (the chi-square approximation needs it); ``dof`` counts pooled bins.
    """

    table: pd.DataFrame
    statistic: float
    p_value: float
    dof: int
    n: int


def goodness_of_fit(observed: pd.Series, theory: pd.Series) -> Fit:
    """Compare observed category counts with theory probabilities (``scipy.stats.chisquare``).

    With fewer than two usable bins (or no hands) the test is undefined: the
    statistic and p-value are NaN.
    """
    labels = list(theory.index)
    counts = observed.reindex(labels, fill_value=0).astype("int64")
    extra = int(observed.drop(labels, errors="ignore").sum())
    if extra:
        raise ValueError("observed categories the theory does not know: "
                         + ", ".join(map(str, observed.drop(labels, errors="ignore").index)))
    n = int(counts.sum())
    expected = theory.astype("float64") * n
    table = pd.DataFrame({
        "category": labels,
        "observed": counts.to_numpy(),
        "expected": expected.to_numpy(),
        "observed_share": counts.to_numpy() / n if n else np.zeros(len(labels)),
        "theory_share": theory.to_numpy(),
    })
    possible = expected > 0
    big = possible & (expected >= 5)
    obs_bins = [float(v) for v in counts[big].tolist()]
    exp_bins = [float(v) for v in expected[big].tolist()]
    small = possible & ~big
    if small.any():
        pooled_obs, pooled_exp = float(counts[small].sum()), float(expected[small].sum())
        if pooled_exp >= 5 or not exp_bins:
            obs_bins.append(pooled_obs)
            exp_bins.append(pooled_exp)
        else:  # still too small on its own: join the smallest regular bin
            target = exp_bins.index(min(exp_bins))
            obs_bins[target] += pooled_obs
            exp_bins[target] += pooled_exp
    if n == 0 or len(obs_bins) < 2:
        return Fit(table, math.nan, math.nan, 0, n)
    result = stats.chisquare(np.array(obs_bins), np.array(exp_bins))
    return Fit(table, float(result.statistic), float(result.pvalue), len(obs_bins) - 1, n)


def allin_table(totals: pd.DataFrame) -> pd.DataFrame:
    """7 & 8 actual against all-in adjusted results per player (from ``views.allin_totals``):
    hands, all-in hands, net and adjusted net (total and per hand), luck, and luck in
    standard errors of the Monte Carlo rows (blank when every row was exact)."""
    columns = ["player", "hands", "all_in_hands", "net", "adjusted_net", "net_per_hand",
               "adjusted_per_hand", "luck", "luck_std_error"]
    if totals.empty:
        return pd.DataFrame(columns=columns)
    table = totals.copy()
    table["net_per_hand"] = table["net"] / table["hands"]
    table["adjusted_per_hand"] = table["adjusted_net"] / table["hands"]
    return table[columns].sort_values(["luck", "player"], ascending=[False, True],
                                      ignore_index=True)


def split_table(split: pd.DataFrame, parts: Iterable[str]) -> pd.DataFrame:
    """Rummoli results per player by part, per round: one row per player, one column per part
    (chips per round) plus ``net per round``; parts in the given order."""
    if split.empty:
        return pd.DataFrame(columns=["player", "rounds", *parts, "net per round"])
    wide = split.pivot_table(index=["player", "rounds"], columns="part", values="amount",
                             aggfunc="sum", fill_value=0)
    wide = wide.reindex(columns=list(parts), fill_value=0)
    per_round = wide.div(wide.index.get_level_values("rounds"), axis=0)
    per_round["net per round"] = per_round.sum(axis=1)
    return per_round.reset_index()


def board_areas(board: pd.DataFrame) -> pd.DataFrame:
    """One Rummoli game's board in long form for stacked areas: round, pot, chips on the pot
    at the end of the round's antes (before anyone wins it), in pot order."""
    if board.empty:
        return pd.DataFrame(columns=["round", "pot", "chips"])
    out = board.assign(chips=board["before"] + board["antes"])
    out["pot"] = pd.Categorical(out["pot"], categories=list(RUMMOLI_POTS), ordered=True)
    return out.sort_values(["round", "pot"])[["round", "pot", "chips"]].reset_index(drop=True)


def pot_summary(winners: pd.DataFrame) -> pd.DataFrame:
    """Per pot: rounds, rounds won, share won, chips paid out, the player who won it most."""
    rows = []
    for pot in RUMMOLI_POTS:
        part = winners[winners["pot"] == pot]
        if part.empty:
            continue
        won = part[part["won_by_player"].notna()]
        rounds = int(part["rounds"].sum())
        top = won.sort_values(["rounds", "won_by_player"], ascending=[False, True]).head(1)
        rows.append({
            "pot": pot, "rounds": rounds, "won": int(won["rounds"].sum()),
            "share_won": float(won["rounds"].sum()) / rounds if rounds else 0.0,
            "chips_paid": int(part["chips"].sum()),
            "top_winner": top["won_by_player"].iloc[0] if len(top) else None,
            "top_winner_times": int(top["rounds"].iloc[0]) if len(top) else 0,
        })
    return pd.DataFrame(rows, columns=["pot", "rounds", "won", "share_won", "chips_paid",
                                       "top_winner", "top_winner_times"])


def upload_table(files: Iterable[FileSummary], names: dict[str, str]) -> pd.DataFrame:
    """The upload's per-file summary: file (as stored), status, hands, loaded, duplicates,
    rejected, message.  ``files`` are the ingest's FileSummary records; ``names`` maps the
    temporary paths to the names stored (the ingest stores those already; any temp path
    left is replaced too, zip members keep their member name)."""
    rows = []
    for item in files:
        shown = item.name
        for temp, original in names.items():
            if shown == temp or shown.startswith(f"{temp}:"):
                shown = original + shown[len(temp):]
        message = item.message or ""
        for temp, original in names.items():
            message = message.replace(temp, original)  # no temp paths in what people read
        rows.append({"file": shown, "status": item.status, "hands": item.hands,
                     "loaded": item.loaded, "duplicates": item.duplicates,
                     "rejected": item.rejected, "message": message})
    return pd.DataFrame(rows, columns=["file", "status", "hands", "loaded", "duplicates",
                                       "rejected", "message"])


def share_vs_expected(frame: pd.DataFrame) -> pd.DataFrame:
    """Rummoli per player (from ``equity_views.rummoli_share_by_player``): expected and
    realised poker-pot share per round, and ``ci_low``/``ci_high`` of realised minus
    expected (``mean``); an interval that excludes 0 is luck (or skill) beyond chance."""
    columns = ["player", "rounds", "expected", "realised", "mean", "sd", "ci_low", "ci_high",
               "mc_std_error", "poker_pots_won"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    return with_confidence(frame, n="rounds")[columns]


def calibration_table(frame: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """Rummoli calibration bins (from ``equity_views.rummoli_calibration``) with a label
    (``0.2-0.3``) and the 95 % interval of the realised share in each bin."""
    columns = ["bin", "strength", "rounds", "expected", "mean", "sd", "ci_low", "ci_high",
               "poker_pots_won"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    out = with_confidence(frame, n="rounds")
    out["strength"] = [f"{b / bins:.1f}-{(b + 1) / bins:.1f}" for b in out["bin"]]
    return out[columns]


def feature_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Big Two results by a deal feature (from ``equity_views.bigtwo_feature_results``) with
    the 95 % interval of the mean score per game."""
    columns = ["player", "bin", "games", "mean", "sd", "ci_low", "ci_high", "first_share"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    return with_confidence(frame, n="games")[columns]


def _bigtwo_groups(dealt: pd.DataFrame
                   ) -> dict[tuple[int, str, bool], tuple[BigTwoRules, list[str]]]:
    """Dealt Big Two hands grouped by what their theory depends on: hand size and the
    knobs that decide what a play is; each group's first rule set and its cards."""
    groups: dict[tuple[int, str, bool], tuple[BigTwoRules, list[str]]] = {}
    # Grouped by pandas (hand size, knobs text), each group's knobs parsed once: a loop over
    # the rows cost about 0.1 s for 20,000 deals.  Groups in order of first appearance, so
    # each key's rule set is its first hand's, as before.
    sizes = dealt["cards"].str.len() // 2
    for (size, knobs), cards in dealt["cards"].groupby([sizes, dealt["rules"]], sort=False):
        rule_set = bigtwo_rules(str(knobs))
        key = (int(cast("int", size)), rule_set.straights.value, rule_set.four_card_plays)
        groups.setdefault(key, (rule_set, []))[1].extend(cards.tolist())
    return groups


def bigtwo_held_table(dealt: pd.DataFrame) -> pd.DataFrame:
    """Big Two: what the dealt hands (``equity_views.bigtwo_dealt``) hold against the exact
    theory, per hand size and the knobs that decide what a play is (``straights``,
    ``four_card_plays``): per kind, hands, observed holding it, observed and theory share,
    and a two-sided exact binomial test's p-value."""
    columns = ["size", "straights", "four_card_plays", "category", "hands", "observed",
               "observed_share", "theory_share", "p_value"]
    rows = []
    for (size, straights, four), (rule_set, hands) in sorted(_bigtwo_groups(dealt).items()):
        theory = bigtwo_contains(size, rule_set)
        held = bigtwo_kinds_held_counts(card_codes(hands, size), rule_set)
        n = len(hands)
        for kind in kinds_for(rule_set):
            p = theory.counts[kind] / theory.hands
            p_value = float(stats.binomtest(held[kind], n, p).pvalue) if 0 < p < 1 else math.nan
            rows.append({"size": size, "straights": straights, "four_card_plays": four,
                         "category": kind.label, "hands": n, "observed": held[kind],
                         "observed_share": held[kind] / n, "theory_share": p,
                         "p_value": p_value})
    return pd.DataFrame(rows, columns=columns)


def bigtwo_partition_counts(dealt: pd.DataFrame, size: int, what: str
                            ) -> tuple[pd.Series, pd.Series]:
    """Observed counts and exact theory of a partition of the ``size``-card Big Two deals:
    ``what`` is ``most`` (most cards of one rank) or ``twos`` (2s held)."""
    if what == "most":
        theory_counts = bigtwo_most_of_a_rank(size)
    elif what == "twos":
        theory_counts = bigtwo_twos(size)
    else:
        raise ValueError(f"unknown partition {what!r} (most or twos)")
    total = sum(theory_counts.values())
    theory = pd.Series({k: v / total for k, v in theory_counts.items()}, name="theory")
    cards = dealt["cards"]
    # Counted on the card codes of all hands at once: a string walk per hand cost 0.18 s of
    # CPU for the page's 20,000 deals.
    ranks = card_codes(cards[cards.str.len() == 2 * size].tolist(), size).astype(np.intp) >> 2
    if what == "most":  # the most cards of one rank, 1..4 (label 0: "no pair")
        per_rank = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
        found = np.bincount(np.maximum(per_rank.max(axis=1, initial=0), 1) - 1, minlength=4)
        observed = pd.Series(found[:len(theory)], index=theory.index)
    else:  # the 2s held: rank code 0 is the deuce
        found = np.bincount((ranks == 0).sum(axis=1), minlength=5)
        observed = pd.Series(found[:len(theory)], index=theory.index)
    return observed.astype("int64").rename("observed"), theory


def score_keeper_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The score keeper's summary (``scores.bigtwo_score_summary``) as the page shows it:
    ``regular`` marked with a check (players of at least a quarter of the games) and the
    ``*`` row named "table (all players)"; the numbers as the query gives them."""
    if summary.empty:
        return summary
    table = summary.copy()
    table.insert(1, "regular", ["✓" if bool(flag) else "" for flag in table["is_regular"]])
    table = table.drop(columns=["is_regular"])
    table["name"] = [TABLE_ROW if name == "*" else name for name in table["name"]]
    return table.rename(columns={"name": "player"})


TABLE_ROW: Final = "table (all players)"
"""How the page names the summary's ``*`` row."""


def zero_sum_line(summary: pd.DataFrame, seats_per_game: float | None
                  ) -> tuple[float, float] | None:
    """The theoretical net score per game against real losses per game, s = n(l* - l), as
    (n, l*): l* the average player's real losses per game (the ``*`` row) and n the players
    per game (4 at a full table: s = 4(l* - l)).  A player's score in a game is T - n l with
    T the table's real losses, and T = n l* on average, hence the line.  None without games.
    """
    total = summary[summary["name"] == "*"] if not summary.empty else summary
    if total.empty or not seats_per_game:
        return None
    return float(seats_per_game), float(total["real_losses"].iloc[0]) / float(
        total["game_count"].iloc[0])
