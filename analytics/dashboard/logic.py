"""The dashboard's arithmetic: plain functions of DataFrames, unit-tested without Streamlit.

Pages fetch frames with :mod:`analytics.warehouse.sql.views` and shape them here:
confidence intervals, hand categories (the shared evaluator on stored card
text), exact category distributions by enumeration, goodness-of-fit tests, the
Rummoli board in shapes the charts want, and the upload summary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.dashboard.cards import pot_words
from analytics.dashboard.charts import zero_sum_formula
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
from analytics.evaluator import BigTwoKind, PokerCategory, SevenEightCategory
from analytics.evaluator.categories import card_text_codes, poker_labels, seveneight_labels
from analytics.stats.interval import wilson_interval
from analytics.warehouse.pipeline.fact_rows import bigtwo_rules
from analytics.warehouse.pipeline.run import FileSummary
from analytics.warehouse.sql.views import (
    RANK_LEVEL,
    HandFilter,
    read_stakes,
    rummoli_level_parts,
    stakes_currency,
    stakes_words,
)
from parsers.model import RUMMOLI_POTS
from parsers.rule_options import GAME_NAMES, BigTwoRules

__all__ = [
    "EXACT_POKER_MAX",
    "POSITION_WORDS",
    "POT_VIEWS",
    "SCORE_KEEPER_HEADERS",
    "SCORE_KEEPER_NOTE",
    "SEVENEIGHT_VIEWS",
    "TABLE_ROW",
    "TABLE_ROW_NOTE",
    "WINS_WORDS",
    "WIN_RATE_VIEWS",
    "Fit",
    "HeldGroup",
    "UploadVerdict",
    "allin_table",
    "bigtwo_held_groups",
    "bigtwo_held_table",
    "bigtwo_partition_counts",
    "board_areas",
    "calibration_table",
    "card_codes",
    "category_counts",
    "feature_table",
    "filter_unit",
    "game_levels",
    "goodness_of_fit",
    "held_label",
    "poker_categories",
    "poker_theory",
    "pot_growth_headers",
    "pot_summary",
    "pot_summary_headers",
    "score_keeper_table",
    "seveneight_categories",
    "seveneight_theory",
    "share_vs_expected",
    "split_table",
    "split_words",
    "upload_messages",
    "upload_refusal",
    "upload_table",
    "upload_verdict",
    "with_confidence",
    "zero_sum_line",
    "zero_sum_words",
]

Z95: Final = 1.959963984540054
"""The two-sided 95 % normal quantile."""

EXACT_POKER_MAX: Final = 26
"""Largest hand size with an exact category distribution: every Rummoli deal has one (5 to
26 cards; :mod:`analytics.equity.theory` counts them instead of enumerating)."""

def with_confidence(frame: pd.DataFrame, *, mean: str = "mean", sd: str = "sd",
                    n: str = "hands", fraction: bool | None = None) -> pd.DataFrame:
    """``frame`` with ``ci_low``/``ci_high``: mean ± 1.96·sd/√n (the normal approximation),
    but Wilson's interval (which stays within 0 and 1) where the mean is a win fraction:
    the rows of ``views.RANK_LEVEL`` when ``frame`` has a ``level`` column, every row with
    ``fraction`` (a frame asked under rank scoring alone: ``views.counts_wins``).

    A group of one hand has no standard deviation; its normal interval is left empty
    rather than pretending to be exact.
    """
    out = frame.copy()
    counts = out[n].astype("float64")
    means = out[mean].astype("float64")
    spread = out[sd].astype("float64")
    half: pd.Series = Z95 * spread / np.sqrt(counts)
    out["ci_low"] = means - half
    out["ci_high"] = means + half
    if fraction is None and "level" in out:
        won = out["level"] == RANK_LEVEL
    else:
        won = pd.Series(bool(fraction), index=out.index)
    if won.any():
        low, high = wilson_interval((means[won] * counts[won]).round(), counts[won])
        out.loc[won, "ci_low"], out.loc[won, "ci_high"] = low, high
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
    from scipy import stats  # here: importing scipy.stats costs about half a second

    result = stats.chisquare(np.array(obs_bins), np.array(exp_bins))
    return Fit(table, float(result.statistic), float(result.pvalue), len(obs_bins) - 1, n)


def allin_table(totals: pd.DataFrame) -> pd.DataFrame:
    """7 & 8 actual against all-in adjusted results per player (from ``views.allin_totals``):
    hands, all-in hands, net and adjusted net (total and per hand), luck, and the standard
    error of the luck from the Monte Carlo equities, a column only when some equity was
    sampled (every exact equity: a column of zeros that said nothing).

    Rows per stake level (``by_level``: a ``level`` column) are counted in big blinds, each
    level's chips divided by its own big blind before they are added (:func:`big_blind`);
    rows without levels stay in chips."""
    columns = ["player", "hands", "all_in_hands", "net", "adjusted_net", "net_per_hand",
               "adjusted_per_hand", "luck", "luck_std_error"]
    if totals.empty:
        return pd.DataFrame(columns=columns)
    table = totals.copy()
    if "level" in table:
        blinds = table["level"].map(big_blind).astype("float64")
        for column in ("net", "adjusted_net", "luck", "luck_std_error"):
            table[column] = table[column] / blinds
        table["luck_std_error"] = table["luck_std_error"] ** 2
        table = table.groupby("player", as_index=False)[
            ["hands", "all_in_hands", "net", "adjusted_net", "luck", "luck_std_error"]].sum()
        table["luck_std_error"] = np.sqrt(table["luck_std_error"])
    table["net_per_hand"] = table["net"] / table["hands"]
    table["adjusted_per_hand"] = table["adjusted_net"] / table["hands"]
    if not (table["luck_std_error"] > 0).any():  # every equity exact: no sampling error
        columns.remove("luck_std_error")
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
    # No name over the columns: the report's HTML drew it as an extra, empty header row.
    return per_round.reset_index().rename_axis(columns=None)


def board_areas(board: pd.DataFrame) -> pd.DataFrame:
    """One Rummoli game's board in long form for stacked areas: round, pot, chips on the pot
    at the end of the round's antes (before anyone wins it), in pot order."""
    if board.empty:
        return pd.DataFrame(columns=["round", "pot", "chips"])
    out = board.assign(chips=board["before"] + board["antes"])
    out["pot"] = pd.Categorical(out["pot"], categories=list(RUMMOLI_POTS), ordered=True)
    return out.sort_values(["round", "pot"])[["round", "pot", "chips"]].reset_index(drop=True)


NOBODY: Final = "—"
"""A table's cell naming a player where there is none (a pot nobody won)."""


def pot_summary(winners: pd.DataFrame) -> pd.DataFrame:
    """Per pot (``views.pot_winners``): the rounds played for it, those it was won in, the
    share won (none without a round played for it), chips paid out, the player who won it
    most (every one of them in a tie, ``Ivy, Kit``; ``—`` when nobody won it) and how often
    each did, and the chips its games' finales took from it
    (``left_for_finale``).  The end-of-game rounds are no rounds played for a
    pot: they play the leftover board off as one poker hand, so counted here they made the
    poker pot, always won in play, seem unwon in one round of nine."""
    rows = []
    for pot in RUMMOLI_POTS:
        every = winners[winners["pot"] == pot]
        if every.empty:
            continue
        finale = every["finale"].astype(bool)
        part = every[~finale]
        won = part[part["won_by_player"].notna()]
        rounds = int(part["rounds"].sum())
        most = int(won["rounds"].max()) if len(won) else 0
        tied = sorted(str(name) for name in won.loc[won["rounds"] == most, "won_by_player"])
        rows.append({
            "pot": pot, "rounds": rounds, "won": int(won["rounds"].sum()),
            "share_won": float(won["rounds"].sum()) / rounds if rounds else math.nan,
            "chips_paid": int(part["chips"].sum()),
            "top_winner": ", ".join(tied) if tied else NOBODY,
            "top_winner_times": most,
            # Taken by its winner (migration 17), or cleared as antes below zero (before).
            "left_for_finale": int(every.loc[finale, ["chips", "cleared"]].sum().sum()),
        })
    return pd.DataFrame(rows, columns=["pot", "rounds", "won", "share_won", "chips_paid",
                                       "top_winner", "top_winner_times", "left_for_finale"])


def upload_table(files: Iterable[FileSummary], names: dict[str, str],
                 refused: Iterable[tuple[str, str]] = ()) -> pd.DataFrame:
    """The upload's per-file summary: file (as stored), status, hands, loaded, duplicates,
    rejected, bad lines (a score sheet's lines that are no game; only when there are some),
    message, earlier version (the sha256 starts of a score sheet's other contents loaded
    before under its name).  ``files`` are the ingest's FileSummary records;
    ``names`` maps the temporary paths to the names stored (the ingest stores those
    already; any temp path left is replaced too, zip members keep their member name).
    ``refused`` are the files the page did not pass to the ingest (name, reason: over the
    size limit), listed first with the status ``refused``."""
    rows = [{"file": name, "status": "refused", "hands": 0, "loaded": 0, "duplicates": 0,
             "rejected": 0, "bad lines": 0, "message": reason, "earlier version": ""}
            for name, reason in refused]
    for item in files:
        shown = item.name
        for temp, original in names.items():
            if shown == temp or shown.startswith(f"{temp}:"):
                shown = original + shown[len(temp):]
        message = "; ".join(text for text in (item.message, item.earlier_note) if text)
        for temp, original in names.items():
            message = message.replace(temp, original)  # no temp paths in what people read
        status = file_status(item.status, item.loaded, item.duplicates, item.rejected)
        rows.append({"file": shown, "status": status, "hands": item.hands,
                     "loaded": item.loaded, "duplicates": item.duplicates,
                     "rejected": item.rejected, "bad lines": item.bad_lines, "message": message,
                     "earlier version": ", ".join(sha[:12] for sha in item.earlier)
                     if item.earlier_note else ""})
    columns = ["file", "status", "hands", "loaded", "duplicates", "rejected", "bad lines",
               "message", "earlier version"]
    table = pd.DataFrame(rows, columns=columns)
    # A score sheet's bad lines that are no game: a column only when a file had some.
    return table if table["bad lines"].any() else table.drop(columns="bad lines")


def upload_refusal(size: int, limit_mb: int) -> str | None:
    """Why an uploaded file of ``size`` bytes is not passed to the ingest (over the page's
    limit of ``limit_mb`` MB), or None."""
    if size > limit_mb * 1024**2:
        return (f"{size / 1024**2:,.1f} MB, over the upload limit of {limit_mb} MB: not "
                "read (load it with `handlab ingest FILE`)")
    return None


@dataclass(frozen=True, slots=True)
class UploadVerdict:
    """What an upload did, in one sentence, and how loud to say it: ``error`` when nothing
    was loaded, ``warning`` when some hands or files were left out, ``success`` when every
    hand read was loaded, ``info`` when everything was in the database already."""

    level: str
    text: str


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def upload_verdict(table: pd.DataFrame) -> UploadVerdict:
    """The verdict on an upload from its :func:`upload_table`."""
    loaded, duplicates = int(table["loaded"].sum()), int(table["duplicates"].sum())
    rejected = int(table["rejected"].sum())
    bad = int(table["bad lines"].sum()) if "bad lines" in table else 0
    unread = int(table["status"].isin(["error", "refused"]).sum())
    before = int((table["status"] == "already loaded").sum())
    skipped = int((table["status"] == "skipped").sum())  # not histories, links: never read
    earlier = int((table["earlier version"].fillna("") != "").sum()) \
        if "earlier version" in table else 0
    problems = []
    if rejected:
        problems.append(f"{_plural(rejected, 'hand')} rejected")
    if bad:  # a score sheet's lines that are no game
        problems.append(f"{_plural(bad, 'bad line')} in score sheets")
    if unread:
        problems.append(f"{_plural(unread, 'file')} not read")
    if earlier:  # a sheet mended and loaded again: both versions count now
        problems.append(f"{_plural(earlier, 'score sheet')} loaded before with other content "
                        "(both versions count now)")
    kept = []
    if duplicates:
        kept.append(f"{_plural(duplicates, 'duplicate')} skipped")
    if before:
        kept.append(f"{_plural(before, 'file')} loaded before")
    tail = "; ".join([*kept, *([f"{_plural(skipped, 'file')} skipped"] if skipped else [])])
    tail = f" ({tail})" if tail else ""
    if loaded and problems:
        return UploadVerdict("warning", f"Loaded {_plural(loaded, 'new hand')}, but "
                             f"{' and '.join(problems)}: see the messages below{tail}. "
                             "Every page shows the new hands now.")
    if loaded:
        return UploadVerdict("success", f"Loaded {_plural(loaded, 'new hand')}{tail}. "
                             "Every page shows the new hands now.")
    if problems:
        return UploadVerdict("error", f"Nothing was loaded: {' and '.join(problems)}{tail}. "
                             "The messages below say why.")
    if kept:
        return UploadVerdict("info", f"Nothing new: {'; '.join(kept)}. These hands were "
                             f"already in the database.{' ' + tail.strip() if skipped else ''}")
    if skipped:
        return UploadVerdict("error", f"Nothing was loaded: {_plural(skipped, 'file')} "
                             "skipped, none of them a history. The messages below say why.")
    return UploadVerdict("error", "Nothing was loaded: the files hold no hands.")


def upload_messages(table: pd.DataFrame, rejects: pd.DataFrame | None) -> list[str]:
    """Every message of an upload in full, one a line: the files' (not read, refused, the
    first reject of a partial file) and then each rejected hand's (``file:line: reason``)."""
    lines = []
    for name, status, message in zip(table["file"].astype(str), table["status"].astype(str),
                                     table["message"].fillna("").astype(str), strict=True):
        if message and status != "already loaded":
            lines.append(message if message.startswith(name) else f"{name}: {message}")
    if rejects is not None and not rejects.empty:
        for name, line, index, error in zip(
                rejects["file"].astype(str), rejects["line"].tolist(),
                rejects["hand_index"].tolist(), rejects["error"].astype(str), strict=True):
            lines.append(error if error.startswith(name)
                         else f"{name}:{line}: hand {index}: {error}")
    return list(dict.fromkeys(lines))  # a partial file's first reject is also a reject


def share_vs_expected(frame: pd.DataFrame) -> pd.DataFrame:
    """Rummoli per player (from ``equity_views.rummoli_share_by_player``): expected and
    realised best-hand share per round, and ``ci_low``/``ci_high`` of realised minus
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


def feature_table(frame: pd.DataFrame, level: str | None = None) -> pd.DataFrame:
    """Big Two results by a deal feature (from ``equity_views.bigtwo_feature_results``) with
    the 95 % interval of the mean score per game (of the win fraction under rank scoring,
    ``level`` ``views.RANK_LEVEL``)."""
    columns = ["player", "bin", "games", "mean", "sd", "ci_low", "ci_high", "first_share"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    return with_confidence(frame, n="games", fraction=level == RANK_LEVEL)[columns]


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


HeldGroup = tuple[int, str, bool]
"""A group of Big Two deals with one theory: hand size, ``straights``, ``four_card_plays``."""


def bigtwo_held_groups(dealt: pd.DataFrame) -> list[HeldGroup]:
    """The groups of :func:`bigtwo_held_table` (no theory computed), the most dealt first
    (then in the table's order): a picker opens on the rules most deals were played by."""
    groups = _bigtwo_groups(dealt)
    return sorted(groups, key=lambda group: (-len(groups[group][1]), group))


def held_label(group: HeldGroup) -> str:
    """A group's words, for a chart's title or a picker (``13-card deals, Singapore and Hong
    Kong straights, four-card plays``)."""
    size, straights, four = group
    return (f"{size}-card deals, {STRAIGHTS_WORDS.get(straights, straights)}"
            + (", four-card plays" if four else ""))


def bigtwo_held_table(dealt: pd.DataFrame, only: HeldGroup | None = None) -> pd.DataFrame:
    """Big Two: what the dealt hands (``equity_views.bigtwo_dealt``) hold against the exact
    theory, per hand size and the knobs that decide what a play is (``straights``,
    ``four_card_plays``): per kind, hands, observed holding it, observed and theory share,
    and a two-sided exact binomial test's p-value.  ``only``: that group's rows alone (each
    group's theory costs 0.1-0.2 s the first time it is counted in a process)."""
    columns = ["size", "straights", "four_card_plays", "category", "hands", "observed",
               "observed_share", "theory_share", "p_value"]
    rows = []
    from scipy import stats  # here: importing scipy.stats costs about half a second

    for (size, straights, four), (rule_set, hands) in sorted(_bigtwo_groups(dealt).items()):
        if only is not None and (size, straights, four) != only:
            continue
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



PER: Final = {"seveneight": "hand", "bigtwo": "game", "rummoli": "round"}
"""What one row of ``seat_facts`` is, per game: a 7 & 8 hand, a Big Two game, a Rummoli
round."""

WIN_RATE_VIEWS: Final = {
    "seveneight": ("Per player", "Running totals", "By position", "By the card turned up"),
    "bigtwo": ("Per player", "Running totals", "By position", "Score keeper",
               "Places and cards left", "By deal strength"),
    "rummoli": ("Per player", "Running totals", "By position", "Where the chips came from",
                "Best hand against strength"),
}
"""The parts of each tab of the Win rates page, one drawn at a time (the shown one in the
URL as ``view``, ``view_bigtwo`` or ``view_rummoli``): every chart and table of a tab on
every visit kept it over its 1 s target, the Big Two tab's nine charts 2 s even with its
questions cached (docs/performance.md, docs/dashboard.md)."""
RENAMED_PARTS: Final = {"Poker pot against strength": "Best hand against strength"}
"""Parts of a page renamed since they were first shown, old name to new: a link saved with
the old name in its URL (``?view_rummoli=Poker+pot+against+strength``) opens the part it
named, not the page's first."""
SEVENEIGHT_VIEWS: Final = WIN_RATE_VIEWS["seveneight"]
"""The parts of the 7 & 8 tab (:data:`WIN_RATE_VIEWS`)."""
POT_VIEWS: Final = ("The board round by round", "Who wins each pot",
                    "Carry-over streaks and growth")
"""The parts of the Pot accumulation page, one drawn at a time as on Win rates (the shown
one in the URL as ``pots_view``): its four charts and two tables together took 1.1 s in
Chromium with the questions cached (docs/performance.md)."""

NET_UNITS: Final = {"seveneight": "chips", "bigtwo": "points", "rummoli": "chips"}
"""What a result is counted in, per game (7 & 8 also in big blinds: :func:`big_blind`; Big
Two under rank scoring in games won: :func:`level_unit`)."""

SCORING_WORDS: Final = {"cards": "cards left", "cards_with_twos": "cards left, 2s double",
                        "rank": "finishing order", "zero_sum": "zero-sum"}
"""Big Two's scoring rules (the knob ``scoring``, RULES.md 2) as the pages name them."""


def level_value(level: str) -> str:
    """A level (``views.level_of``) as a table's level column shows it: Big Two's scoring
    rule in words (``scoring cards_with_twos`` -> ``cards left, 2s double``), Rummoli's
    stakes in words and its ante (``NRM min 1 ante 2`` -> ``no limit, minimum bet 1, ante
    2``), a 7 & 8 stake level in words (``N78 min 2`` -> ``no limit, big blind 2``:
    ``views.stakes_words``)."""
    knob, _, value = level.partition(" ")
    if knob == "scoring":
        return SCORING_WORDS.get(value, value)
    rummoli = rummoli_level_parts(level)
    if rummoli is not None:
        return f"{stakes_words(rummoli[0])}, ante {rummoli[1]}"
    return stakes_words(level)


def level_words(level: str) -> str:
    """A level in a title: ``scoring: finishing order``, ``no limit, minimum bet 1, ante 2``,
    ``no limit, big blind 2``."""
    if level.startswith("scoring "):
        return f"scoring: {level_value(level)}"
    return level_value(level)


def places_title(level: str) -> str:
    """The title of the chart of Big Two games by finishing place under ``level``."""
    note = "" if level == RANK_LEVEL else f"; '{NOT_OUT}': still holding cards"
    return f"Games by finishing place ({level_words(level)}{note})"


def places_words(level: str) -> str:
    """What a Big Two game's places mean under the scoring rule of ``level``."""
    if level == RANK_LEVEL:
        return ("Under rank scoring (finishing order) play goes on until one player is left, "
                "so every player has a place.")
    return (f"Under '{level_value(level)}' scoring the game ends when the first player goes "
            f"out: a player still holding cards then has no place and is counted under "
            f"'{NOT_OUT}' (docs/dashboard.md).")


def level_unit(game: str, level: str | None = None) -> tuple[str, str]:
    """What a result of ``game`` at ``level`` counts and what its mean is called:
    ``("points", "points per game")``, ``("chips", "chips per round")``, a level's declared
    currency for its chips (``("USD", "USD per round")``: ``views.stakes_currency``); under
    Big Two's rank scoring, which has no points, ``("games won", "win fraction")``
    (``views.RANK_LEVEL``)."""
    if level == RANK_LEVEL:
        return "games won", "win fraction"
    unit = (stakes_currency(level) if level else None) or NET_UNITS[game]
    return unit, f"{unit} per {PER[game]}"


def big_blind(level: str) -> int:
    """The big blind of a 7 & 8 stake level (``views.STAKES``: ``N78 min 2``, ``F78 2/4``):
    the stake's opening bet, ``min_bet`` in no-limit and pot-limit and the small bet in
    fixed-limit, which the big blind posts (docs/dashboard.md); a currency after the size
    (``N78 min 2 USD``) aside (``views.read_stakes``)."""
    read = read_stakes(level)
    if read is None:
        raise ValueError(f"not a 7 & 8 stake level: {level!r}")
    try:
        return read.opening_bet
    except ValueError:
        raise ValueError(f"a 7 & 8 stake level with no bet size: {level!r}") from None


def game_levels(results: pd.DataFrame, game: str) -> list[str]:
    """``game``'s levels (``views.level_of``) among ``views.results_by_level``'s rows, in
    order: each a unit its results are counted in, shown one at a time."""
    return sorted({str(v) for v in results.loc[results["game"] == game, "level"]})


def level_results(results: pd.DataFrame, game: str) -> pd.DataFrame:
    """One game's rows of ``views.results_by_level`` with the 95 % interval of the mean, each
    row in its own level's unit (never averaged across levels): level, player, hands
    (games, rounds), wins, net, mean, sd, ci_low, ci_high; within a level the best rate
    first, as the chart of the rates draws its bars (7 & 8's bars: :func:`in_big_blinds`)."""
    columns = ["level", "player", "hands", "wins", "net", "mean", "sd", "ci_low", "ci_high"]
    rows = results[results["game"] == game]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    return (with_confidence(rows)[columns]
            .sort_values(["level", "mean", "player"], ascending=[True, False, True])
            .reset_index(drop=True))


def level_table(results: pd.DataFrame, game: str) -> pd.DataFrame:
    """:func:`level_results` as people read them: human headers with the rows' unit (a
    level's declared currency, ``net (USD)``, when every row is counted in it; when 7 & 8's
    stake levels are counted in several, a "counted in" column gives each row's), the level
    as :func:`level_value` shows it; games won without a net column under rank scoring
    (where they are the net).  Raises ValueError for Big Two's or Rummoli's rows in two
    units (:func:`unit_groups` parts them)."""
    table = level_results(results, game)
    rank = table["level"] == RANK_LEVEL
    if rank.any() and not rank.all():
        raise ValueError("rank scoring's games won and points in one table")
    unit_of = {str(v): level_unit(game, str(v)) for v in dict.fromkeys(table["level"])}
    units = set(unit_of.values())
    if len(units) > 1 and game != "seveneight":
        raise ValueError(f"{game} results in {len(units)} units in one table")
    level = next(iter(unit_of)) if len(units) == 1 else None
    if len(units) > 1:  # chips and currencies side by side: each row says its own
        table.insert(1, "unit", [unit_of[str(v)][0] for v in table["level"]])
    table = table.assign(level=[level_value(str(v)) for v in table["level"]])
    if level == RANK_LEVEL:
        table = table.drop(columns="net")
    return human_table(table, level_headers(game, level, several_units=len(units) > 1))


def unit_groups(results: pd.DataFrame, game: str) -> list[tuple[str, pd.DataFrame]]:
    """``game``'s rows of ``views.results_by_level`` parted by unit (:func:`level_unit`),
    each with its mean's name, in the order their units first appear among the sorted
    levels: Big Two's points, then its rank scoring's games won; Rummoli's chips, then
    each currency's rows; one part for 7 & 8."""
    rows = results[results["game"] == game]
    if game == "seveneight" or rows.empty:
        return [(level_unit(game)[1], rows)] if len(rows) else []
    means = {level: level_unit(game, level)[1] for level in sorted(set(rows["level"]))}
    ordered = sorted(dict.fromkeys(means.values()),
                     key=lambda mean: (mean == level_unit(game, RANK_LEVEL)[1],
                                       mean != level_unit(game)[1], mean))
    return [(mean, rows[rows["level"].map(means) == mean]) for mean in ordered]


def in_big_blinds(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """7 & 8 rows of one stake level each (``level``, ``hands``, ``net``, ``net_sq``: from
    ``views.results_by_level`` or a ``by_level`` question) combined per ``keys`` in big
    blinds per 100 hands: keys, hands, net_bb (big blinds won), bb_per_100, sd (of one
    hand's result, in big blinds), ci_low, ci_high (of bb_per_100).  Each level's chips
    are divided by its own big blind before anything is added, so stakes never mix;
    sorted by the keys."""
    columns = [*keys, "hands", "net_bb", "bb_per_100", "sd", "ci_low", "ci_high"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    blinds = rows["level"].map(big_blind).astype("float64")
    parts = rows[keys].assign(hands=rows["hands"].astype("int64"),
                              net_bb=rows["net"] / blinds,
                              sq_bb=rows["net_sq"] / blinds**2)
    sums = parts.groupby(keys, sort=True).sum().reset_index()
    n = sums["hands"].astype("float64")
    mean = sums["net_bb"] / n
    variance = (sums["sq_bb"] - n * mean**2) / (n - 1)
    sums["bb_per_100"] = 100 * mean
    sums["sd"] = np.sqrt(variance.clip(lower=0).where(n > 1))
    # The interval of bb/100 is 100 times the interval of the mean per hand.
    scaled = with_confidence(sums.assign(sd=100 * sums["sd"]), mean="bb_per_100")
    sums["ci_low"], sums["ci_high"] = scaled["ci_low"], scaled["ci_high"]
    return sums[columns]


def seveneight_big_blinds(results: pd.DataFrame) -> pd.DataFrame:
    """7 & 8 per player over every stake level (``views.results_by_level``) in big blinds
    per 100 hands (:func:`in_big_blinds`), the best first."""
    rows = results[results["game"] == "seveneight"]
    out = in_big_blinds(rows, ["player"])
    return out.sort_values(["bb_per_100", "player"], ascending=[False, True],
                           ignore_index=True)


def pot_growth(streaks: pd.DataFrame) -> pd.DataFrame:
    """Rummoli pot growth from ``views.pot_streaks``, over the rounds that paid antes in
    (``paid_rounds`` > 0: the end-of-game rounds, which pay none and may clear a pot, are
    left out): per pot and ``since``, the observed ``mean_before_paid``; ``mean_paid_in``,
    the pot's mean antes per paying round; and ``expected``, ``since`` × that, the chips a
    pot holds after ``since`` carried-over rounds if every ante stays on it.  A round that
    clears a pot (negative stored antes) pays nothing in, so nothing here is negative."""
    columns = [*streaks.columns, "mean_paid_in", "expected"]
    paying = streaks[streaks["paid_rounds"] > 0] if len(streaks) else streaks
    if paying.empty:
        return pd.DataFrame(columns=columns)
    totals = paying.groupby("pot")[["paid_in", "paid_rounds"]].transform("sum")
    rate = totals["paid_in"] / totals["paid_rounds"]
    out = paying.assign(mean_paid_in=rate, expected=paying["since"] * rate)
    return out.reset_index(drop=True)[columns]


NOT_OUT: Final = "did not go out"
"""The finishing place of a Big Two player still holding cards when the game ended."""


def place_label(place: object) -> str:
    """A Big Two finishing place in words: ``1st``, ``2nd``..., :data:`NOT_OUT` for none."""
    if place is None or place is pd.NA or (isinstance(place, float) and math.isnan(place)):
        return NOT_OUT
    number = int(cast("int", place))
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")
    return f"{number}{suffix}"


def bigtwo_place_table(places: pd.DataFrame) -> pd.DataFrame:
    """Big Two games per player and finishing place (``views.bigtwo_places``), every game
    counted: a player still holding cards at the end (under ``cards`` scoring everybody
    but the winner) is :data:`NOT_OUT`, a place of its own, last.  Columns: player, place
    (words), games, mean_score, score; ``place`` is an ordered categorical."""
    columns = ["player", "place", "games", "mean_score", "score"]
    if places.empty:
        return pd.DataFrame(columns=columns)
    numbers = sorted(int(p) for p in places["place"].dropna().unique())
    order = [place_label(p) for p in numbers] + [NOT_OUT]
    out = places.assign(place=[place_label(p) for p in places["place"].tolist()])
    out["place"] = pd.Categorical(out["place"], categories=order, ordered=True)
    return out.sort_values(["player", "place"], ignore_index=True)[columns]


def default_players(totals: pd.DataFrame, most: int = 8) -> list[str]:
    """The players a running-total chart shows before anyone chooses: the ``most`` with most
    hands, and the biggest winner and loser when they are not among them (``totals``:
    player, hands, net)."""
    if totals.empty:
        return []
    by_hands = totals.sort_values(["hands", "player"], ascending=[False, True])
    chosen = [str(p) for p in by_hands["player"].head(most)]
    by_net = totals.sort_values(["net", "player"])
    for name in (str(by_net["player"].iloc[-1]), str(by_net["player"].iloc[0])):
        if name not in chosen:
            chosen.append(name)
    return sorted(chosen)


PERCENT: Final = "(%)"
"""How a header of :func:`human_table` says its column is a share shown in percent."""


NAMING_NUMBERS: Final = frozenset({"line", "hand", "seat", "step", "round", "year"})
"""Integer columns whose numbers name something (a line of a file, a hand's number, a seat)
rather than count it: shown as they are, never grouped ("line 1170")."""


def grouped_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of a table whose numbers are shown grouped by thousands (``2,000``
    hands, as the metrics write them): the integer ones, but :data:`NAMING_NUMBERS`."""
    return [str(name) for name in frame.columns
            if pd.api.types.is_integer_dtype(frame[name].dtype) and name not in NAMING_NUMBERS]


def short_fraction_columns(frame: pd.DataFrame) -> list[str]:
    """The fractional columns of a table whose numbers all have at most three decimals (as
    :func:`human_table` rounds them): a browser can group them by thousands (``5,321.3``)
    without cutting a digit; a column of four decimals (a p-value) is left as it is."""
    shown = []
    for name in frame.columns:
        values = frame[name]
        if not pd.api.types.is_float_dtype(values.dtype):
            continue
        thousandths = values.dropna().to_numpy(dtype="float64") * 1000
        if np.allclose(thousandths, np.round(thousandths), rtol=0, atol=1e-6):
            shown.append(str(name))
    return shown


def human_table(frame: pd.DataFrame, names: dict[str, str], *, decimals: int = 2
                ) -> pd.DataFrame:
    """A table as people read it: the columns ``names`` lists, in its order and under its
    words (the unit in the header), fractional numbers rounded to ``decimals`` (one under
    1 to two significant digits at least, so that a small share is not shown, nor
    downloaded, as 0), dates without a time of day.  A column whose header ends in "(%)"
    holds a fraction (0.5676) and shows it as a percentage to two decimals (56.76; 0.024 %
    stays 0.024).  A ``pot`` column of names shows each pot as players name it
    (``cards.pot_words``: ``10♠``, ``main pot``)."""
    out = frame[[c for c in names if c in frame.columns]].copy()
    for column in out.columns:
        values = out[column]
        if column == "pot" and not pd.api.types.is_numeric_dtype(values.dtype):
            out[column] = values.map(lambda pot: pot if pd.isna(pot) else pot_words(str(pot)))
        elif names[column].endswith(PERCENT):
            out[column] = rounded(values.astype("float64") * 100, 2)
        elif pd.api.types.is_float_dtype(values.dtype):
            out[column] = rounded(values, decimals)
        elif pd.api.types.is_datetime64_any_dtype(values.dtype):
            out[column] = values.dt.date
    return out.rename(columns=names)


def rounded(values: pd.Series, decimals: int) -> pd.Series:
    """``values`` rounded to ``decimals``, those between -1 and 1 (not 0) to at least two
    significant digits: 0.00154 is 0.0015 where two decimals would show 0."""
    numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitude = np.floor(np.log10(np.abs(numbers)))
    places = np.where(np.isfinite(magnitude) & (magnitude < 0),
                      np.maximum(decimals, 1 - magnitude), decimals).astype(np.int64)
    out = [value if not np.isfinite(value) else round(float(value), int(place))
           for value, place in zip(numbers, places, strict=True)]
    return pd.Series(out, index=values.index, dtype=np.float64)


def pot_summary_headers(unit: str = "chips") -> dict[str, str]:
    """Headers of :func:`pot_summary`'s table as the Pot accumulation page shows it, its
    chips counted in ``unit`` (a level's currency: :func:`filter_unit`)."""
    return {"pot": "pot", "rounds": "rounds played for it", "won": "rounds won",
            "share_won": "share won (%)", "chips_paid": f"paid out ({unit})",
            "top_winner": "won most by",
            "top_winner_times": "times he won it (each, in a tie)",
            "left_for_finale": f"left at the game's end, to the finale ({unit})"}


def pot_growth_headers(unit: str = "chips") -> dict[str, str]:
    """Headers of :func:`pot_growth`'s table in ``unit``: short, so that its seven columns
    fit the page (the page's caption says what observed and expected are)."""
    return {"pot": "pot", "since": "carried over (rounds)", "paid_rounds": "paying rounds",
            "mean_before_paid": f"observed ({unit})", "paid_in": f"antes in ({unit})",
            "mean_paid_in": f"mean antes ({unit})", "expected": f"expected ({unit})"}


def filter_unit(f: HandFilter) -> str:
    """What the chips of the hands ``f`` keeps are counted in: the currency its stakes
    declare (``views.stakes_currency``), else chips."""
    return (stakes_currency(f.stakes) if f.stakes else None) or "chips"

BOARD_HEADERS: Final = {
    "game_id": "game", "round": "round", "pot": "pot", "before": "chips before",
    "paid_in": "antes paid in (chips)",
    "amount": "chips won", "won_by_player": "won by", "after": "chips after"}
"""Headers of :func:`board_table`."""


def board_table(board: pd.DataFrame) -> pd.DataFrame:
    """One Rummoli game's board round by round (``views.rummoli_board``) as people read it:
    a finale's pots are won by its winner (migration 17); antes below zero, in a lake's
    rows written before it, are no antes paid in (shown as 0)."""
    out = board.copy()
    out["paid_in"] = board["antes"].clip(lower=0)
    return human_table(out, BOARD_HEADERS)


BB_HEADERS: Final = {
    "player": "player", "hands": "hands", "net_bb": "net (big blinds)",
    "bb_per_100": "big blinds per 100 hands", "sd": "sd per hand (bb)",
    "ci_low": "95 % CI low (bb/100)", "ci_high": "95 % CI high (bb/100)"}
"""Headers of :func:`seveneight_big_blinds`."""

POSITION_WORDS: Final = {
    "seveneight": "seat (1: small blind, heads-up the big blind; last: button)",
    "bigtwo": "seat",
    "rummoli": "seat from the dealer's left (last: the dealer)",
}
"""What a position number is in each game (``seat_facts.position``, docs/schema.md)."""


POSITION_BB_HEADERS: Final = {
    "players": "players at the table", "position": POSITION_WORDS["seveneight"], **{
        k: v for k, v in BB_HEADERS.items() if k != "player"}}
"""Headers of 7 & 8 results by position in big blinds."""

UP_CARD_HEADERS: Final = {"up_rank": "rank turned up", **{
    k: v for k, v in BB_HEADERS.items() if k != "player"}}
"""Headers of :func:`up_card_table`."""

ALLIN_HEADERS: Final = {
    "player": "player", "hands": "hands", "all_in_hands": "hands all in with cards to come",
    "net": "net (big blinds)", "adjusted_net": "all-in adjusted net (big blinds)",
    "net_per_hand": "net per hand (bb)", "adjusted_per_hand": "adjusted per hand (bb)",
    "luck": "luck (big blinds)", "luck_std_error": "luck's Monte Carlo std. error (bb)"}
"""Headers of :func:`allin_table` over levels (big blinds)."""

STORED_EQUITY_HEADERS: Final[dict[str, dict[str, str]]] = {
    "seveneight": {
        "seat": "seat", "player": "player", "contributed": "put in (chips)",
        "refund": "uncalled bet returned (chips)", "equity": "equity (%)",
        "expected_won": "expected won (chips)", "actual_won": "won (chips)",
        "expected_net": "all-in adjusted net (chips)", "actual_net": "net (chips)",
        "luck": "luck (chips)", "std_error": "expected won's Monte Carlo std. error (chips)",
        "pot": "pots at the all-in (chips)", "pots": "pots (main and side)",
        "exact": "exact", "deals": "deals counted"},
    "rummoli": {
        "seat": "seat", "player": "player", "hand_size": "cards held", "category": "best five",
        "p_best": "chance nobody holds better (%)",
        "std_error": "that chance's Monte Carlo std. error (%)",
        "p_win": "chance of the best hand alone (%)",
        "share": "expected best-hand share (every hand shown down)",
        "share_std_error": "expected share's Monte Carlo std. error", "exact": "exact",
        "samples": "deals counted",
        "realised_share": "best-hand share on everyone's cards",
        "won_poker_pot": "won the poker pot"},
    "bigtwo": {
        "seat": "seat", "player": "player", "cards": "cards dealt", "twos": "2s", "aces": "aces",
        "has_lead": "holds the lead card", "pairs": "pair plays", "triples": "triple plays",
        "five_card": "five-card plays",
        "distinct_five_card_ranks": "ranks a five-card play can shed"},
}
"""Headers of the replayer's stored equities of one hand, per game (the ``allin_results``,
``rummoli_strength`` and ``bigtwo_features`` rows; docs/schema.md says what each means)."""


def stored_equity_table(game: str, rows: pd.DataFrame) -> pd.DataFrame:
    """One hand's stored equities as the replayer lists them: headed in words, fractions
    as percentages, Rummoli's poker hands named as players say them (``full house``)."""
    shown = rows.assign(category=category_words(rows["category"])) if "category" in rows \
        else rows
    return human_table(shown, STORED_EQUITY_HEADERS[game], decimals=3)


PLACE_HEADERS: Final = {"player": "player", "place": "finishing place", "games": "games"}
"""Headers of :func:`bigtwo_place_table` (the score is on the win-rate table, per rule)."""

CARDS_LEFT_HEADERS: Final = {"player": "player", "cards_left": "cards left at the end",
                             "games": "games"}
"""Headers of ``views.bigtwo_cards_left``."""


def feature_headers(feature: str, level: str | None = None) -> dict[str, str]:
    """Headers of :func:`feature_table` by ``feature`` (its words: ``2s held``) under
    ``level`` (:func:`level_unit`: points, or the win fraction under rank scoring)."""
    unit, mean = level_unit("bigtwo", level)
    return {"player": "player", "bin": feature, "games": "games", "mean": mean,
            "sd": f"sd ({unit})", "ci_low": f"95 % CI low ({mean})",
            "ci_high": f"95 % CI high ({mean})", "first_share": "share of games out first"}


POKER_POTS_WON: Final = "poker pots won (main pot, finales too)"
"""The rounds where he took chips from the main poker pot, a finale's included (``rummoli_
strength.won_poker_pot``): the Statistics page's "Poker pot won" counts side pots too, and
Pot accumulation's "times he won it" the rounds played for the pots alone."""

SHARE_HEADERS: Final = {
    "player": "player", "rounds": "rounds", "expected": "expected best-hand share per round",
    "realised": "realised best-hand share per round", "mean": "realised − expected",
    "sd": "sd (share)", "ci_low": "95 % CI low (realised − expected)",
    "ci_high": "95 % CI high (realised − expected)",
    "mc_std_error": "Monte Carlo std. error", "poker_pots_won": POKER_POTS_WON}
"""Headers of :func:`share_vs_expected`."""

CALIBRATION_HEADERS: Final = {
    "strength": "expected best-hand share (bin)", "rounds": "rounds",
    "expected": "mean expected best-hand share", "mean": "mean realised best-hand share",
    "sd": "sd (share)", "ci_low": "95 % CI low (mean realised best-hand share)",
    "ci_high": "95 % CI high (mean realised best-hand share)",
    "poker_pots_won": POKER_POTS_WON}
"""Headers of :func:`calibration_table`."""


WINS_WORDS: Final = {
    "seveneight": "hands won (the main pot; split: its first winner)",
    "bigtwo": "games won",
    "rummoli": "rounds won (out first, or a finale's winner)",
}
"""What a win is in each game (``hands.winner``, the engine's): the headers say it, since a
Rummoli round's poker pot, pay-card pots and Rummoli pot each have winners of their own (a
Rummoli round is won by who empties his hand first; a game's finale by its poker winner; a
7 & 8 hand by the first player the main pot pays, one of a split's winners)."""


def level_headers(game: str, level: str | None = None, *,
                  several_units: bool = False) -> dict[str, str]:
    """Headers of :func:`level_results` for ``game``, the unit of ``level``
    (:func:`level_unit`) in each; ``several_units``: rows in several units, each named in
    its "counted in" column (``unit``) and none in the headers."""
    per = PER[game]
    unit, mean = level_unit(game, level)
    if several_units:
        mean = f"per {per}"
    named = "" if several_units else f" ({unit})"
    column = {"seveneight": "stakes", "bigtwo": "scoring rule", "rummoli": "stakes and ante"}[game]
    return {"level": column, "unit": "counted in", "player": "player", "hands": f"{per}s",
            "wins": WINS_WORDS[game], "net": f"net{named}", "mean": mean, "sd": f"sd{named}",
            "ci_low": f"95 % CI low ({mean})", "ci_high": f"95 % CI high ({mean})"}


def position_headers(game: str, level: str | None = None) -> dict[str, str]:
    """Headers of results by position of one level of ``game``."""
    per = PER[game]
    unit, mean = level_unit(game, level)
    return {"players": "players at the table", "position": POSITION_WORDS[game],
            "hands": f"{per}s", "mean": mean, "sd": f"sd ({unit})",
            "ci_low": f"95 % CI low ({mean})", "ci_high": f"95 % CI high ({mean})"}


def split_words(parts: Sequence[str], unit: str = "chips") -> str:
    """What the chart and table of a Rummoli result by part (``views.SPLIT_PARTS``, what
    was paid in last) show, naming every part, in ``unit``."""
    won, paid = list(parts[:-1]), parts[-1]
    return (f"{unit[0].upper()}{unit[1:]} per round from the {', the '.join(won[:-1])} and "
            f"the {won[-1]}; '{paid}' is what was paid in, so the parts add up to the net.")


def split_headers(parts: list[str], unit: str = "chips") -> dict[str, str]:
    """Headers of :func:`split_table`: each part in ``unit`` (chips, a currency) per
    round."""
    return {"player": "player", "rounds": "rounds",
            **{part: f"{part} ({unit} per round)" for part in parts},
            "net per round": f"net ({unit} per round)"}


def up_card_table(rows: pd.DataFrame) -> pd.DataFrame:
    """7 & 8 results by the rank turned up (``views.by_up_card`` with ``by_level``) in big
    blinds per 100 hands, every rank 2 to A in rank order (a rank nobody turned up: a row
    with no hands)."""
    table = in_big_blinds(rows, ["up_rank"])
    order = list("23456789TJQKA")
    table = table.set_index("up_rank").reindex(order).reset_index()
    table["hands"] = table["hands"].fillna(0).astype("int64")
    return table


OVERVIEW_HEADERS: Final = {"game": "game", "hands": "hands (games, rounds)",
                           "players": "players at these tables", "sessions": "sessions",
                           "first_day": "first day", "last_day": "last day"}
"""Headers of ``views.overview`` (a Big Two row counts games, a Rummoli row rounds)."""

SESSION_HEADERS: Final = {"session": "session or game id", "game": "game",
                          "hands": "hands (games, rounds)",
                          "players": "most players at the table",
                          "first_day": "first day", "last_day": "last day"}
"""Headers of ``views.sessions``."""

REJECT_FILE_HEADERS: Final = {"file": "file", "stage": "stage", "rejected": "hands rejected",
                              "bad_lines": "bad lines (no game)", "first_line": "first line"}
"""Headers of the rejected hands counted per file."""

REJECT_HEADERS: Final = {"file": "file", "hand_index": "hand", "line": "line",
                         "stage": "stage", "game": "game", "error": "reason"}
"""Headers of ``views.rejects``."""

FILE_HEADERS: Final = {"name": "file", "status": "status", "hands": "hands",
                       "loaded": "loaded", "duplicates": "duplicates", "rejected": "rejected",
                       "finished_at": "loaded at", "path": "full path"}
"""Headers of :func:`files_table`."""


def short_name(path: str) -> str:
    """A stored file's name as people read it: the last part of its path (an upload keeps
    ``upload: name``; a zip member ``archive.zip:member``)."""
    if path.startswith("upload: "):  # the name as the browser sent it: no folder to cut
        return path
    if _WINDOWS_PATH.match(path):  # else a backslash is part of a name (``\\xff``)
        path = path.replace("\\", "/")
    head, _, member = path.partition(".zip:")
    if member:
        return head.rsplit("/", 1)[-1] + ".zip:" + member
    return path.rsplit("/", 1)[-1]


_WINDOWS_PATH: Final = re.compile(r"[A-Za-z]:\\|\\\\")
"""A path stored on Windows (``C:\\...``, ``\\\\server\\...``), whose folders end at a
backslash."""


def files_table(files: pd.DataFrame) -> pd.DataFrame:
    """The files loaded (``queries.files``) as people read them: the short name first, the
    status in words (:func:`file_status`), the counts, when it was loaded (to the second)
    and the full path last; no content hash."""
    loaded = pd.to_datetime(files["finished_at"]).dt.strftime("%Y-%m-%d %H:%M:%S")
    status = [file_status(str(s), int(n), int(d), int(r)) for s, n, d, r in
              zip(files["status"], files["loaded"], files["duplicates"], files["rejected"],
                  strict=True)]
    out = files.assign(name=[short_name(str(p)) for p in files["path"]], finished_at=loaded,
                       status=status)
    return human_table(out, FILE_HEADERS)


def file_status(status: str, loaded: int, duplicates: int, rejected: int) -> str:
    """A file's stored status in words: ``partial`` says whether any hand of it is in the
    database, or that a score sheet had bad lines and no hand of it was rejected."""
    if status != "partial":
        return status
    if not rejected:
        return "bad lines in the sheet"
    return "some hands rejected" if loaded + duplicates else "every hand rejected"


_REJECT_PLACE: Final = re.compile(r"^.*?:\d+(?::\d+)?: hand \d+: ")
"""Where a reject's problem was: ``<path>:<line>[:<column>]: hand <n>: `` before its words."""


def rejects_table(rejects: pd.DataFrame) -> pd.DataFrame:
    """The rejected hands (``views.rejects``) as people read them: the file by its short
    name, the game by its name ("unknown" where the hand never said), and the reason
    without the file, line and hand its own columns give (several problems of one hand,
    a line each in the reject, joined by "; "); no hand for a score sheet's bad line that
    is no game (a names line, a ``Total = 6`` row)."""
    def reason(row: Mapping[Hashable, Any]) -> str:
        # "<path>:<line>: hand <n>: why", a line per problem, the path as the reader saw it
        # (an upload's temporary file): each line's place goes, the lines are joined.
        lines = str(row["error"]).splitlines() or [""]
        return "; ".join(_REJECT_PLACE.sub("", line, count=1) for line in lines)

    out = rejects.assign(
        error=[reason(row) for row in rejects.to_dict("records")],
        file=[short_name(str(path)) for path in rejects["file"]],
        # A score sheet's bad line that is no game is keyed by minus its line: no hand.
        hand_index=rejects["hand_index"].where(rejects["hand_index"] > 0),
        game=[GAME_NAMES.get(str(game), "unknown") if isinstance(game, str) else "unknown"
              for game in rejects["game"]])
    return human_table(out, REJECT_HEADERS)


def files_html(files: pd.DataFrame) -> str:
    """:func:`files_table` as an HTML table whose file names show the full path on hover
    (a ``title``), counts grouped by thousands (``1,200``) as every other table writes
    them, every text escaped."""
    from html import escape

    table = files_table(files)
    heads = [c for c in table.columns if c != FILE_HEADERS["path"]]
    rows = []
    for record in table.to_dict("records"):
        cells = []
        for column in heads:
            cell = record[column]
            value = ("" if pd.isna(cell) else f"{cell:,}" if isinstance(cell, int | np.integer)
                     else str(cell))
            title = (f' title="{escape(str(record[FILE_HEADERS["path"]]))}"'
                     if column == FILE_HEADERS["name"] else "")
            cells.append(f"<td{title}>{escape(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{escape(c)}</th>" for c in heads)
    style = ("<style>table.hl-files{border-collapse:collapse;font-size:0.9em}"
             "table.hl-files th,table.hl-files td{padding:4px 12px;text-align:left;"
             "border-bottom:1px solid #e6e6e6}table.hl-files th{font-weight:600}</style>")
    return (f"{style}<table class='hl-files'>"
            f"<tr>{head}</tr>{''.join(rows)}</table>")


def player_games(results: pd.DataFrame) -> list[str]:
    """The games with players in ``results`` (``views.results_by_level``), in the order the
    Overview shows them."""
    return [game for game in ("seveneight", "bigtwo", "rummoli")
            if (results["game"] == game).any()]


def player_tables(results: pd.DataFrame, game: str) -> list[tuple[str, pd.DataFrame]]:
    """One game's players tables, each in one unit (title, table with human headers): 7 & 8
    in big blinds per 100 hands over every stake (:func:`seveneight_big_blinds`); Big Two and
    Rummoli one row per level (scoring rule; stakes and ante) and player, each in its level's
    unit, Big Two's rank scoring (games won) in a table of its own (:func:`unit_groups`)."""
    if game == "seveneight":
        return [("7 & 8: big blinds per 100 hands",
                 human_table(seveneight_big_blinds(results), BB_HEADERS))]
    tables = []
    for mean, part in unit_groups(results, game):
        note = (" (rank scoring: no points change hands)"
                if (part["level"] == RANK_LEVEL).all() else "")
        tables.append((f"{GAME_NAMES[game]}: {mean}{note}", level_table(part, game)))
    return tables


FIT_HEADERS: Final = {"category": "category", "observed": "hands",
                      "expected": "expected hands", "observed_share": f"observed share {PERCENT}",
                      "theory_share": f"exact share {PERCENT}"}
"""Headers of a :class:`Fit` table (and of an observed-only count)."""

SIZE_HEADERS: Final = {"size": "cards dealt", "hands": "hands", "chi_square": "chi-square",
                       "dof": "degrees of freedom", "p_value": "p-value"}
"""Headers of the Rummoli deal sizes' tests."""

HELD_HEADERS: Final = {
    "size": "cards dealt", "straights": "straights", "four_card_plays": "four-card plays",
    "category": "kind", "hands": "deals", "observed": "deals holding it",
    "observed_share": f"observed share {PERCENT}", "theory_share": f"exact share {PERCENT}",
    "p_value": "p-value"}
"""Headers of :func:`bigtwo_held_table`."""

STRAIGHTS_WORDS: Final = {
    "sg_hk": "Singapore and Hong Kong straights",
    "vietnamese": "Vietnamese straights (3-7 up to T-A only)",
    "malaysian": "Malaysian straights (A-2-3-4-5 and 2-3-4-5-6 the highest)"}
"""Big Two's ``straights`` rule as people say it (RULES.md 2)."""


def held_words(held: pd.DataFrame) -> pd.DataFrame:
    """:func:`bigtwo_held_table` as people read it: each kind and each ``straights`` rule
    in words (``full house``, ``Singapore and Hong Kong straights``)."""
    return held.assign(category=category_words(held["category"]),
                       straights=held["straights"].map(STRAIGHTS_WORDS).fillna(
                           held["straights"]))


def held_groups(held: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """:func:`held_words`' rows cut into what one chart may show: per hand size and rules
    for what a play is (the kinds and their theory differ between them), each with its
    label (``13-card deals, Singapore and Hong Kong straights, four-card plays``)."""
    keys = ["size", "straights", "four_card_plays"]
    groups = held[keys].drop_duplicates().itertuples(index=False)
    return [(held_label((size, straights, four)),
             held[(held["size"] == size) & (held["straights"] == straights)
                  & (held["four_card_plays"] == four)].reset_index(drop=True))
            for size, straights, four in groups]


_CATEGORY_TEXT: Final[dict[str, str]] = {
    str(category.label): str(category.text)
    for category in (*PokerCategory, *SevenEightCategory, *BigTwoKind)}
"""Every category and combination label with the evaluator's own words for it."""


def category_text(label: str) -> str:
    """A category or combination label in the evaluator's words (``seven_eight_flush`` ->
    ``seven-eight flush``, ``full_house`` -> ``full house``), for what people read; the
    counts and tests use the labels themselves."""
    return _CATEGORY_TEXT.get(label, label.replace("_", " "))


def category_words(labels: pd.Series) -> pd.Series:
    """:func:`category_text` of each label."""
    return labels.astype(str).map(category_text)


def score_keeper_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The score keeper's summary (``scores.bigtwo_score_summary``) as the page shows it:
    ``regular`` marked with a check (players of at least a quarter of the games), the
    ``*`` row named :data:`TABLE_ROW`, headers in words with units
    (:data:`SCORE_KEEPER_HEADERS`); the numbers as the query gives them."""
    if summary.empty:
        return summary
    table = summary.copy()
    table["is_regular"] = ["✓" if bool(flag) else "" for flag in table["is_regular"]]
    table["name"] = [TABLE_ROW if name == "*" else name for name in table["name"]]
    return table.rename(columns={"name": "player", **SCORE_KEEPER_HEADERS})


TABLE_ROW: Final = "all players (each game once a player)"
"""How the page names the summary's ``*`` row: every player's games added up, a game of four
counted four times (its games are seats played, its fractions the average player's); it read
"table", with four times the table's games."""

SCORE_KEEPER_HEADERS: Final = {
    "is_regular": "regular", "game_count": "games", "win_count": "wins", "fry_count": "fries",
    "real_losses": "real losses (cards)", "net_score": "net score (zero-sum points)",
    "win_fraction": "win fraction", "fry_fraction": "fry fraction",
    "real_losses_per_game": "real losses per game (cards)",
    "net_score_per_game": "net score per game (points)"}
"""Headers of :func:`score_keeper_table` and of ``handlab stats bigtwo``'s score keeper
table (its ``--out`` files keep the column names, as yawnoc/big-two-scorer writes them)."""

SCORE_KEEPER_NOTE: Final = ("every game that counts cards left is scored here by this one "
                            "rule, whatever scoring it was played under (cards left, 2s "
                            "double, zero-sum), so its net score is not the points the Per "
                            "player view shows under each rule; games scored by finishing "
                            "order (rank) have no cards-left score and are not counted, so "
                            "a player's games here can be fewer than all his games.")
"""Why the score keeper's games can be fewer than a player's games elsewhere."""

TABLE_ROW_NOTE: Final = ("The last row adds every player's games up: a game counts once for "
                         "each player in it, so its fractions are the average player's.")
"""What :data:`TABLE_ROW` is, where the table shows it (the page, the report; ``handlab
stats`` lists the players alone)."""


def zero_sum_words(line: tuple[float, float]) -> str:
    """What the theoretical line of :func:`zero_sum_line` is, in words, and where it is only
    an average: with games of different sizes, ``n`` is the mean players per game and the
    line no player's exact one."""
    seats, average = line
    text = (f"Dashed: the theoretical net score per game {zero_sum_formula(seats)}, with "
            f"l* = {average:.4g} the average player's real losses per game and "
            f"{seats:.3g} players per game (T − n·l with T = n·l*).")
    if not float(seats).is_integer():
        text += (" The games had different numbers of players, so n is their mean and the "
                 "line an approximation: it is exact for games of one size.")
    return text


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
