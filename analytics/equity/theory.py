"""Exact theory tables for observed-against-expected charts, and a goodness-of-fit test.

* :func:`poker_category_counts` - how many k-card hands (k = 5..26) of a 52-card
  deck have each best-five poker category; Rummoli deals hands of 5 to 26 cards.
* :func:`seveneight_two_card_counts`, :func:`seveneight_three_card_counts` - 7 & 8
  categories over all 1,326 two-card and 22,100 three-card hands.
* :func:`seveneight_visible_card_table` - seed 003's second table: the final
  three-card hand of an opponent whose visible card has a given rank.
* :func:`bigtwo_twos_counts` - how many 2s a dealt Big Two hand holds (seed 002
  gives the chance of all four in 13 cards, C(48, 9) / C(52, 13)).
* :func:`goodness_of_fit` - scipy's chi-square test of observed counts against
  theory probabilities, a deck-fairness check.

**Poker counts without enumerating.** C(52, 26) is 5 * 10^14 hands, so the
counts are derived.  A hand's category depends on (a) its rank pattern: a rank
held four times makes quads, a set of trips with another rank held twice or
more makes a full house, and both beat a flush and a straight; (b) whether one
suit holds a straight flush; (c) for the remaining hands, whether some suit
holds five cards (flush) and whether the ranks present contain a straight.

1. Totals per rank-pattern class (quads / full house / other), from the
   product of C(4, n_r) over ranks: a small dynamic programme over the 13 ranks.
2. Hands with no straight flush, per class: a dynamic programme over the ranks
   A(low), 2, ..., K whose state is, per suit, the length of the current run of
   consecutive ranks held in that suit (0..4; reaching 5 is a straight flush and
   the state is dropped) and whether that suit holds the ace (checked at the end
   for T-J-Q-K-A), together with the class so far; the number of cards is the
   polynomial degree.  10,000 suit states x 5 classes x 27 degrees, in numba.
3. Other-class hands with no suit of five or more cards (no flush): for each
   multiset of rank multiplicities, (ways to give every rank its suits with at
   most four cards per suit) x (ways to place the multiplicities on ranks whose
   set does or does not contain a straight).  This splits them into straight,
   three of a kind, two pair, pair and high card.

Then straight flush = totals - no-straight-flush over all classes; four of a
kind and full house = their classes without a straight flush; flush = other
class without a straight flush minus the no-flush ones.  Checked against full
enumeration for 5 and 6 cards and the known seven-card counts (tests).

**Shipped, not derived on every start.** The programme of step 2 runs in numba, and
loading its kernel is most of a second (three on a busy machine): too much for the
first Hand types page of a fresh dashboard.  :func:`derive_poker_category_counts`
is the derivation; its results for every k are shipped as integers in
``analytics/equity/poker_counts.py``, the text :func:`poker_count_table_text`
writes, which :func:`poker_category_counts` reads.  A test derives them again and
compares the file byte for byte; after a change to the derivation, regenerate with

    .venv/bin/python -c "from analytics.equity import theory; theory.write_poker_count_table()"

The 7 & 8 tables enumerate every hand (22,100 at most) with plain numpy: a few
milliseconds, no kernel to load.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from analytics.evaluator import (
    EvaluationError,
    PokerCategory,
    SevenEightCategory,
    seveneight_category_of,
    seveneight_rank_batch,
)

__all__ = [
    "GoodnessOfFit",
    "bigtwo_twos_counts",
    "derive_poker_category_counts",
    "goodness_of_fit",
    "poker_category_counts",
    "poker_category_probabilities",
    "poker_count_table_text",
    "seveneight_three_card_counts",
    "seveneight_two_card_counts",
    "seveneight_visible_card_table",
    "write_poker_count_table",
]

_MAX_K: Final = 26
# Rank-pattern classes of the dynamic programmes.
_NONE, _PAIR, _TRIPS, _FULL, _QUADS = range(5)


def _class_after(cls: int, m: int) -> int:
    """The class after adding a rank held ``m`` times (see the module doc)."""
    if cls == _QUADS or m == 4:
        return _QUADS
    if cls == _FULL:
        return _FULL
    if m == 3:
        return _TRIPS if cls == _NONE else _FULL
    if m == 2:
        return _FULL if cls == _TRIPS else (_PAIR if cls in (_NONE, _PAIR) else cls)
    return cls


@cache
def _class_totals() -> npt.NDArray[np.int64]:
    """(class, k): hands of k cards (any suits) per rank-pattern class."""
    table = np.zeros((5, 53), dtype=np.int64)
    table[_NONE, 0] = 1
    for _ in range(13):
        new = np.zeros_like(table)
        for cls in range(5):
            for m in range(5):
                after = _class_after(cls, m)
                new[after, m:] += math.comb(4, m) * table[cls, :53 - m]
        table = new
    return table


def _suit_transitions() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Next suit state for every (state, suit subset) (-1: straight flush), and |subset|."""
    nxt = np.full((10_000, 16), -1, dtype=np.int64)
    for state in range(10_000):
        digits = [(state // 10 ** s) % 10 for s in range(4)]
        for subset in range(16):
            new = 0
            for s, digit in enumerate(digits):
                ace, run = divmod(digit, 5)
                run = run + 1 if subset >> s & 1 else 0
                if run == 5:
                    new = -1
                    break
                new += (ace * 5 + run) * 10 ** s
            nxt[state, subset] = new
    sizes = np.array([bin(subset).count("1") for subset in range(16)], dtype=np.int64)
    return nxt, sizes


@cache
def _no_straight_flush() -> npt.NDArray[np.int64]:
    """(class, k): hands of k cards with no straight flush, per rank-pattern class."""
    nxt, sizes = _suit_transitions()
    classes = np.array([[_class_after(c, m) for m in range(5)] for c in range(5)],
                       dtype=np.int64)
    table = np.zeros((10_000, 5, _MAX_K + 1), dtype=np.int64)
    for aces in range(16):  # the ace first, as the low end of A-2-3-4-5
        state = sum(((aces >> s & 1) * 6) * 10 ** s for s in range(4))  # ace bit 5 + run 1
        m = int(sizes[aces])
        table[state, classes[_NONE, m], m] += 1
    from analytics.equity.kernels import no_straight_flush_ranks

    table = no_straight_flush_ranks(table, nxt, sizes, classes)
    result = np.zeros((5, _MAX_K + 1), dtype=np.int64)
    for state in range(10_000):
        digits = [(state // 10 ** s) % 10 for s in range(4)]
        if any(d == 9 for d in digits):  # holds the ace and T-J-Q-K of a suit: royal flush
            continue
        result += table[state]
    return result


@cache
def _straight_masks() -> npt.NDArray[np.int64]:
    """(popcount p): how many sets of p ranks contain a straight (A-2-3-4-5 included)."""
    runs = [0b1_0000_0000_1111] + [0b11111 << low for low in range(9)]
    counts = np.zeros(14, dtype=np.int64)
    for mask in range(1 << 13):
        if any(mask & run == run for run in runs):
            counts[bin(mask).count("1")] += 1
    return counts


def _suit_spreads(multiplicities: Sequence[int]) -> int:
    """Ways to give ranks of these multiplicities their suits with at most 4 cards per suit."""
    vector = np.zeros((5, 5, 5, 5), dtype=np.int64)
    vector[0, 0, 0, 0] = 1
    for m in multiplicities:
        new = np.zeros_like(vector)
        for suits in combinations(range(4), m):
            source = [slice(None)] * 4
            target = [slice(None)] * 4
            for s in suits:
                source[s] = slice(0, 4)
                target[s] = slice(1, 5)
            new[tuple(target)] += vector[tuple(source)]
        vector = new
    return int(vector.sum())


@cache
def _no_flush_other() -> dict[int, dict[PokerCategory, int]]:
    """k -> counts of other-class hands without a flush, by category (k <= 16)."""
    straights = _straight_masks()
    result: dict[int, dict[PokerCategory, int]] = {}
    for c3 in (0, 1):
        for c2 in range(14):
            if c3 and c2:
                continue  # trips and a pair make a full house: another class
            for c1 in range(14 - c2 - c3):
                k = c1 + 2 * c2 + 3 * c3
                present = c1 + c2 + c3
                if not 5 <= k <= 16 or present > 13:
                    continue
                spreads = _suit_spreads([3] * c3 + [2] * c2 + [1] * c1)
                if not spreads:
                    continue
                placements = math.factorial(present) // (
                    math.factorial(c1) * math.factorial(c2) * math.factorial(c3))
                with_straight = int(straights[present])
                without = math.comb(13, present) - with_straight
                if c3:
                    plain = PokerCategory.THREE_OF_A_KIND
                elif c2 >= 2:
                    plain = PokerCategory.TWO_PAIR
                elif c2 == 1:
                    plain = PokerCategory.PAIR
                else:
                    plain = PokerCategory.HIGH_CARD
                counts = result.setdefault(k, {})
                counts[PokerCategory.STRAIGHT] = (counts.get(PokerCategory.STRAIGHT, 0)
                                                  + spreads * placements * with_straight)
                counts[plain] = counts.get(plain, 0) + spreads * placements * without
    return result


def poker_category_counts(k: int) -> dict[PokerCategory, int]:
    """Exact number of k-card hands (5 <= k <= 26) of each best-five category; sums to C(52, k).

    Read from the shipped table (:func:`derive_poker_category_counts`'s results, see the
    module): no kernel to load, so a fresh process answers at once."""
    if not 5 <= k <= _MAX_K:
        raise EvaluationError(f"poker hands of 5 to {_MAX_K} cards, not {k}")
    from analytics.equity.poker_counts import POKER_CATEGORY_COUNTS

    return dict(zip(PokerCategory, POKER_CATEGORY_COUNTS[k], strict=True))


def derive_poker_category_counts(k: int) -> dict[PokerCategory, int]:
    """:func:`poker_category_counts` derived by the module's counting (about a second the
    first time in a process, most of it loading the numba kernel): the generator of the
    shipped table."""
    if not 5 <= k <= _MAX_K:
        raise EvaluationError(f"poker hands of 5 to {_MAX_K} cards, not {k}")
    totals = _class_totals()[:, k]
    clean = _no_straight_flush()[:, k]
    other_clean = int(clean[_NONE] + clean[_PAIR] + clean[_TRIPS])
    no_flush = _no_flush_other().get(k, {})
    counts = dict.fromkeys(PokerCategory, 0)
    counts[PokerCategory.STRAIGHT_FLUSH] = int(totals.sum() - clean.sum())
    counts[PokerCategory.FOUR_OF_A_KIND] = int(clean[_QUADS])
    counts[PokerCategory.FULL_HOUSE] = int(clean[_FULL])
    counts[PokerCategory.FLUSH] = other_clean - sum(no_flush.values())
    for category, count in no_flush.items():
        counts[category] = count
    assert sum(counts.values()) == math.comb(52, k)
    return counts


def poker_count_table_text() -> str:
    """The text of ``analytics/equity/poker_counts.py``: every k's derived counts."""
    lines = [
        '"""Exact best-five poker category counts of all k-card hands, k = 5..26: generated by',
        "analytics.equity.theory.poker_count_table_text() from derive_poker_category_counts();",
        'do not edit (tests/test_equity_theory.py derives them again and compares)."""',
        "",
        "from typing import Final",
        "",
        "# k -> hands of each category, in PokerCategory order (high_card ... straight_flush).",
        "POKER_CATEGORY_COUNTS: Final[dict[int, tuple[int, ...]]] = {",
    ]
    for k in range(5, _MAX_K + 1):
        counts = derive_poker_category_counts(k)
        numbers = [str(counts[c]) for c in PokerCategory]
        # Two lines per k: the large hands' nine counts do not fit in one.
        lines += [f"    {k}: ({', '.join(numbers[:5])},", f"        {', '.join(numbers[5:])}),"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_poker_count_table() -> Path:
    """Regenerate ``analytics/equity/poker_counts.py`` (:func:`poker_count_table_text`)."""
    path = Path(__file__).with_name("poker_counts.py")
    path.write_text(poker_count_table_text(), encoding="utf-8")
    return path


def poker_category_probabilities(k: int) -> dict[PokerCategory, float]:
    """:func:`poker_category_counts` divided by C(52, k)."""
    total = math.comb(52, k)
    return {category: count / total for category, count in poker_category_counts(k).items()}


@cache
def seveneight_two_card_counts() -> dict[SevenEightCategory, int]:
    """Categories of all 1,326 two-card hands (seed 003, first table: 4, 12, ... 720)."""
    pairs = np.array(list(combinations(range(52), 2)), dtype=np.int64)
    return _seveneight_counts(seveneight_category_of(seveneight_rank_batch(pairs)))


@cache
def seveneight_three_card_counts() -> dict[SevenEightCategory, int]:
    """Categories (of the best two) of all 22,100 three-card hands."""
    triples = np.array(list(combinations(range(52), 3)), dtype=np.int64)
    return _seveneight_counts(seveneight_category_of(seveneight_rank_batch(triples)))


def _seveneight_counts(categories: npt.NDArray[np.int8]) -> dict[SevenEightCategory, int]:
    found = np.bincount(categories.astype(np.int64), minlength=len(SevenEightCategory))
    return {category: int(found[category]) for category in SevenEightCategory}


@cache
def seveneight_visible_card_table() -> dict[int, dict[SevenEightCategory, int]]:
    """Seed 003's second table: rank 0..12 of the visible card -> final-hand categories.

    The opponent's three cards are the visible card and any two of the other 51
    (C(51, 2) = 1,275 each); the suit of the visible card does not matter.
    """
    table: dict[int, dict[SevenEightCategory, int]] = {}
    for rank in range(13):
        visible = 4 * rank  # clubs; every suit gives the same counts
        others = [code for code in range(52) if code != visible]
        hands = np.array([(visible, a, b) for a, b in combinations(others, 2)], dtype=np.int64)
        table[rank] = _seveneight_counts(seveneight_category_of(seveneight_rank_batch(hands)))
    return table


def bigtwo_twos_counts(hand_size: int = 13) -> dict[int, int]:
    """Hands of ``hand_size`` cards by how many 2s they hold: C(4, t) C(48, size - t)."""
    if not 0 <= hand_size <= 52:
        raise EvaluationError(f"a hand of {hand_size} cards is not possible")
    return {t: math.comb(4, t) * math.comb(48, hand_size - t) for t in range(5)}


@dataclass(frozen=True, slots=True)
class GoodnessOfFit:
    """A chi-square goodness-of-fit test of observed counts against theory.

    ``bins`` names the categories of each tested bin (sparse neighbours merged);
    ``impossible`` lists categories observed although theory gives them
    probability 0 (then ``p_value`` is 0: the data cannot come from a fair deck).
    """

    statistic: float
    p_value: float
    dof: int
    bins: tuple[tuple[str, ...], ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    impossible: tuple[str, ...]


def goodness_of_fit(observed: Mapping[Any, int], theory: Mapping[Any, float],
                    min_expected: float = 5.0) -> GoodnessOfFit:
    """Chi-square test (``scipy.stats.chisquare``) of observed counts against theory probabilities.

    ``observed`` and ``theory`` are keyed by category, in the categories' order
    (e.g. :func:`poker_category_probabilities`); categories missing from
    ``observed`` count 0.  The chi-square approximation needs about
    ``min_expected`` expected counts per bin (Cochran's rule of thumb), so the
    bin with the smallest expected count is merged with its smaller neighbour
    in category order (adjacent hand types, e.g. the rare top categories with
    each other) until every bin reaches ``min_expected`` or one bin is left.
    Categories theory says are impossible are left out of the test; observing
    one makes the p-value 0.
    """
    from scipy.stats import chisquare

    keys = list(theory)
    total_probability = sum(theory.values())
    if not math.isclose(total_probability, 1.0, rel_tol=1e-9):
        raise ValueError(f"theory probabilities sum to {total_probability}, not 1")
    unknown = [key for key in observed if key not in theory]
    if unknown:
        raise ValueError(f"observed categories missing from the theory: {unknown}")
    n = sum(int(count) for count in observed.values())
    impossible = tuple(_label(key) for key in keys
                       if theory[key] == 0 and observed.get(key, 0) > 0)
    possible = [key for key in keys if theory[key] > 0]
    bins: list[list[Any]] = [[key] for key in possible]
    expected = [n * theory[key] for key in possible]
    while len(bins) > 1 and min(expected) < min_expected:
        i = int(np.argmin(expected))
        if i == 0:
            j = 1
        elif i == len(bins) - 1:
            j = i - 1
        else:
            j = i - 1 if expected[i - 1] <= expected[i + 1] else i + 1
        low, high = min(i, j), max(i, j)
        bins[low:high + 1] = [bins[low] + bins[high]]
        expected[low:high + 1] = [expected[low] + expected[high]]
    counts = [sum(int(observed.get(key, 0)) for key in group) for group in bins]
    if len(bins) < 2 or n == 0:
        statistic, p_value = 0.0, 1.0
    else:
        # Impossible observations are excluded from the bins; rescale so sums agree.
        scale = sum(counts) / sum(expected) if sum(expected) else 1.0
        result = chisquare(counts, [e * scale for e in expected])
        statistic, p_value = float(result.statistic), float(result.pvalue)
    if impossible:
        p_value = 0.0
    return GoodnessOfFit(statistic, p_value, max(len(bins) - 1, 0),
                         tuple(tuple(_label(key) for key in group) for group in bins),
                         tuple(counts), tuple(expected), impossible)


def _label(key: Any) -> str:
    label = getattr(key, "label", None)
    return str(label) if label is not None else str(key)
