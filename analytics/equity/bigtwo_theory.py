"""Exact Big Two theory: what a dealt hand of N cards contains.

For a hand of ``size`` cards drawn from a deck of 13 ranks in ``suits`` suits
(4 for the real deck; fewer for the reduced decks the tests enumerate), the
probability that it holds at least one play of each kind
(:class:`~analytics.evaluator.BigTwoKind`) under the rule knobs that decide
what a play is:

* ``straights`` decides which runs are straights (and straight flushes); the
  runs are read from :func:`~analytics.evaluator.bigtwo_combo` itself, so the
  theory and the evaluator cannot disagree about them;
* ``four_card_plays`` adds two pairs, and four of a kind without a kicker.

``suit_order`` and ``flush_order`` change how plays compare, not which plays a
hand holds, so the theory does not depend on them; ``deal`` only changes the
hand size (13, or 52 // players and one more for the lead card's holder).

Counting, by kind (every count is of ``size``-subsets of the deck, exact integers):

* pair, triple, two pairs, full house, four of a kind depend on how many cards
  of each rank are held: a sum over the numbers ``n_c`` of ranks held ``c``
  times (``13! / prod n_c!  *  prod C(suits, c)^n_c``);
* flush and straight flush depend on each suit's set of ranks alone: the
  hands lacking them are the coefficient of ``x^size`` in ``G(x)^suits``, where
  ``G`` counts the rank sets of one suit that lack them (all 2^13 enumerated);
* straight (a run *not* all of one suit) couples ranks and suits: a dynamic
  programme over the ranks A, 2, 3, ..., K, A (the ace at both ends, one state
  for both) that follows how many ranks in a row are held and how many of those
  in a row are a single card of one suit.

:func:`bigtwo_kinds_held` is the same question for one hand (by counting, as
fast as the page needs); the tests check both against
:func:`~analytics.evaluator.bigtwo_all_combos`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from analytics.evaluator import BigTwoKind, bigtwo_combo
from parsers.caching import BoundedCache
from parsers.cards import Card, parse_cards
from parsers.rule_options import BigTwoDeal, BigTwoRules, Straights

__all__ = [
    "CONTAINED_KINDS",
    "MOST_OF_A_RANK",
    "BigTwoContains",
    "bigtwo_contains",
    "bigtwo_deal_sizes",
    "bigtwo_kinds_held",
    "bigtwo_kinds_held_counts",
    "bigtwo_most_of_a_rank",
    "bigtwo_twos",
    "kinds_for",
    "valid_runs",
]

RANKS: Final = 13
CONTAINED_KINDS: Final = (
    BigTwoKind.PAIR, BigTwoKind.TRIPLE, BigTwoKind.TWO_PAIRS, BigTwoKind.STRAIGHT,
    BigTwoKind.FLUSH, BigTwoKind.FULL_HOUSE, BigTwoKind.FOUR_OF_A_KIND,
    BigTwoKind.STRAIGHT_FLUSH)
"""The kinds a deal may hold beyond singles, in the evaluator's order."""

MOST_OF_A_RANK: Final = ("no pair", "pair", "three of a kind", "four of a kind")
"""Labels of the most cards of one rank held (1, 2, 3, 4): one partition of all hands."""

# Sequence positions: 0 the ace below the deuce, 1..13 poker ranks 2..A (code rank + 1).
_POSITIONS: Final = RANKS + 1
_RANK_LETTERS: Final = "23456789TJQKA"


def kinds_for(rules: BigTwoRules) -> tuple[BigTwoKind, ...]:
    """The kinds of :data:`CONTAINED_KINDS` that exist under ``rules`` (two pairs only with
    ``four_card_plays``)."""
    return tuple(k for k in CONTAINED_KINDS
                 if k is not BigTwoKind.TWO_PAIRS or rules.four_card_plays)


@cache
def valid_runs(straights: Straights) -> tuple[int, ...]:
    """The valid runs as the sequence position of their top card (``A-2-3-4-5``: 4, ...,
    ``T-J-Q-K-A``: 13), asked of the evaluator: a mixed-suit run is a straight or nothing."""
    straights = Straights(straights)  # the evaluator compares members: no plain text
    ends = []
    for end in range(4, _POSITIONS):
        ranks = [_rank_at(position) for position in range(end - 4, end + 1)]
        suits = "dcdcd"
        combo = bigtwo_combo(parse_cards("".join(r + s for r, s in zip(ranks, suits,
                                                                         strict=True))),
                             BigTwoRules(straights=straights))
        if combo is not None and combo.kind is BigTwoKind.STRAIGHT:
            ends.append(end)
    return tuple(ends)


def _rank_at(position: int) -> str:
    return _RANK_LETTERS[(position - 1) % RANKS]


def _run_masks(straights: Straights) -> tuple[int, ...]:
    """Each valid run as a bit mask over the 13 poker ranks (bit 0: deuce, bit 12: ace)."""
    masks = []
    for end in valid_runs(straights):
        mask = 0
        for position in range(end - 4, end + 1):
            mask |= 1 << ((position - 1) % RANKS)
        masks.append(mask)
    return tuple(masks)


@dataclass(frozen=True, slots=True)
class BigTwoContains:
    """How many ``size``-card hands of a ``suits``-suit deck hold each kind (exact counts).

    ``hands`` is C(13·suits, size); ``counts`` maps each kind of :func:`kinds_for` to the
    hands holding at least one play of it.
    """

    size: int
    suits: int
    hands: int
    counts: dict[BigTwoKind, int]

    def probability(self, kind: BigTwoKind) -> Fraction:
        """The exact chance that a hand holds ``kind``."""
        return Fraction(self.counts[kind], self.hands)


def _check(size: int, suits: int) -> None:
    if not 1 <= suits <= 4:
        raise ValueError(f"a deck has 1 to 4 suits, not {suits}")
    if not 0 <= size <= RANKS * suits:
        raise ValueError(f"a hand of {size} cards is not possible from {RANKS * suits} cards")


def _profiles(size: int, suits: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every rank-count profile ``n`` (``n[c]`` ranks held ``c`` times) with its hands."""
    def rest(c: int, ranks_left: int, cards_left: int) -> Iterator[tuple[int, ...]]:
        if c == 0:
            if cards_left == 0:
                yield (ranks_left,)
            return
        for n in range(min(ranks_left, cards_left // c) + 1):
            for tail in rest(c - 1, ranks_left - n, cards_left - n * c):
                yield (*tail, n)

    for profile in rest(suits, RANKS, size):
        ways = math.factorial(RANKS)
        for c, n in enumerate(profile):
            ways = ways // math.factorial(n) * math.comb(suits, c) ** n
        yield profile, ways


def _rank_kinds(profile: tuple[int, ...], size: int, four_card_plays: bool
                ) -> set[BigTwoKind]:
    """The kinds that depend on rank counts alone, held by every hand of this profile."""
    at_least = [sum(profile[c:]) for c in range(len(profile))] + [0] * 5
    kinds = set()
    if at_least[2]:
        kinds.add(BigTwoKind.PAIR)
    if at_least[3]:
        kinds.add(BigTwoKind.TRIPLE)
    if at_least[2] >= 2 and four_card_plays:
        kinds.add(BigTwoKind.TWO_PAIRS)
    if at_least[3] and at_least[2] >= 2:
        kinds.add(BigTwoKind.FULL_HOUSE)
    if at_least[4] and (size >= 5 or four_card_plays):  # five cards need a kicker
        kinds.add(BigTwoKind.FOUR_OF_A_KIND)
    return kinds


def _suit_polynomials(straights: Straights) -> tuple[list[int], list[int]]:
    """Rank sets of one suit by size: those without a flush play, without a straight flush."""
    runs = _run_masks(straights)
    no_flush = [0] * (RANKS + 1)
    no_straight_flush = [0] * (RANKS + 1)
    for mask in range(1 << RANKS):
        n = mask.bit_count()
        has_run = any(mask & run == run for run in runs)
        # A flush play is five cards of the suit that are not a valid run: six or more
        # cards always hold one (leave out an inner card of any run), five unless a run.
        if not (n >= 6 or (n == 5 and not has_run)):
            no_flush[n] += 1
        if not has_run:
            no_straight_flush[n] += 1
    return no_flush, no_straight_flush


def _power_coefficient(poly: list[int], power: int, degree: int) -> int:
    """The coefficient of ``x^degree`` in ``poly^power``."""
    result = [1]
    for _ in range(power):
        out = [0] * min(len(result) + len(poly) - 1, degree + 1)
        for i, a in enumerate(result):
            if a:
                for j, b in enumerate(poly):
                    if i + j <= degree:
                        out[i + j] += a * b
        result = out
    return result[degree] if degree < len(result) else 0


def _hands_without_straight(size: int, suits: int, straights: Straights) -> int:
    """Hands holding no straight: no valid run can be made of cards not all of one suit.

    A run is such a straight unless every one of its ranks is held, each exactly once and
    all in one suit.  State after each sequence position: cards so far, ranks held in a row
    (up to 4), how many of those in a row are single cards of one suit (up to 4) and that
    suit.  The ace is chosen first and stands at both ends.
    """
    ends = set(valid_runs(straights))
    # A rank's options: (cards, suit if a single card else -1, ways).
    options = [(0, -1, 1)] + [(1, s, 1) for s in range(suits)] + [
        (c, -1, math.comb(suits, c)) for c in range(2, suits + 1)]
    total = 0
    for ace in options:
        states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, -1): 1}
        for position in range(_POSITIONS):
            top = position == _POSITIONS - 1
            choices = [ace] if position == 0 or top else options
            at_end = position in ends
            nxt: dict[tuple[int, int, int, int], int] = defaultdict(int)
            # What depends on the state alone is worked out once per state, not per choice
            # (a third of the first call's CPU went to min() and repeated tests).
            for (cards, held, mono, suit), ways in states.items():
                run = held + 1 if held < 4 else 4
                completes = held == 4 and at_end  # a rank held here ends a valid run
                for c, single, w in choices:
                    # The ace's cards count once: at the bottom, not again at the top.
                    new_cards = cards if top else cards + c
                    if new_cards > size:
                        continue
                    if c == 0:
                        nxt[(new_cards, 0, 0, -1)] += ways
                        continue
                    # mono is 0 exactly when suit is -1, so a single card continues a
                    # one-suit run only when it is of that suit.
                    if single < 0:
                        run_mono, run_suit = 0, -1
                    elif single == suit:
                        run_mono, run_suit = mono + 1, suit
                    else:
                        run_mono, run_suit = 1, single
                    if completes and run_mono < 5:
                        continue  # a straight: this hand is not counted
                    key = (new_cards, run, run_mono if run_mono < 4 else 4, run_suit)
                    nxt[key] += ways if top else ways * w
            states = nxt
        total += sum(ways for (cards, _, _, _), ways in states.items() if cards == size)
    return total


def bigtwo_contains(size: int = 13, rules: BigTwoRules | None = None, *,
                    suits: int = 4) -> BigTwoContains:
    """Exact counts of ``size``-card hands holding each kind under ``rules`` (see the module).

    ``suits`` below 4 uses a reduced deck (13 ranks, the first suits of ``dchs``), which
    the tests enumerate hand by hand.  Remembered (the dashboard asks for the rule sets of
    its database, which a user's files decide: bounded).
    """
    rules = rules or BigTwoRules()
    return _CONTAINS.get_or_make((size, rules, suits), _contains)


_CONTAINS: Final = BoundedCache[tuple[int, BigTwoRules, int], BigTwoContains](
    "analytics.equity.bigtwo_theory.contains", 256)


def _contains(key: tuple[int, BigTwoRules, int]) -> BigTwoContains:
    size, rules, suits = key
    _check(size, suits)
    hands = math.comb(RANKS * suits, size)
    counts = dict.fromkeys(kinds_for(rules), 0)
    for profile, ways in _profiles(size, suits):
        for kind in _rank_kinds(profile, size, rules.four_card_plays):
            counts[kind] += ways
    no_flush, no_straight_flush = _suit_polynomials(rules.straights)
    counts[BigTwoKind.FLUSH] = hands - _power_coefficient(no_flush, suits, size)
    counts[BigTwoKind.STRAIGHT_FLUSH] = hands - _power_coefficient(no_straight_flush, suits,
                                                                   size)
    counts[BigTwoKind.STRAIGHT] = hands - _hands_without_straight(size, suits, rules.straights)
    return BigTwoContains(size, suits, hands, counts)


@cache
def bigtwo_most_of_a_rank(size: int = 13, *, suits: int = 4) -> dict[str, int]:
    """Hands by the most cards of one rank they hold (:data:`MOST_OF_A_RANK`), exact counts.

    The labels partition the hands, so observed deals can be tested against this with
    one chi-square (the kinds of :func:`bigtwo_contains` overlap and cannot).
    """
    _check(size, suits)
    counts = dict.fromkeys(MOST_OF_A_RANK[:suits], 0)
    for profile, ways in _profiles(size, suits):
        top = max((c for c, n in enumerate(profile) if n), default=0)
        counts[MOST_OF_A_RANK[max(top, 1) - 1]] += ways
    return counts


def bigtwo_twos(size: int = 13) -> dict[str, int]:
    """Hands by the number of 2s held (``"0"`` ... ``"4"``): C(4, t) C(48, size - t)."""
    _check(size, 4)
    return {str(t): math.comb(4, t) * math.comb(48, size - t) for t in range(5)}


def bigtwo_deal_sizes(rules: BigTwoRules, players: int) -> tuple[int, ...]:
    """The hand sizes a deal gives (``thirteen``: 13; ``all``: 52 // players, and one card
    more for the lead card's holder when the deck does not divide)."""
    if not 2 <= players <= 4:
        raise ValueError(f"Big Two is played by 2 to 4 players, not {players}")
    if rules.deal is BigTwoDeal.THIRTEEN:
        return (13,)
    base, extra = divmod(52, players)
    return (base,) if not extra else (base, base + extra)


def bigtwo_kinds_held(cards: str | Iterable[Card], rules: BigTwoRules | None = None
                      ) -> frozenset[BigTwoKind]:
    """The kinds of :func:`kinds_for` that one hand holds at least one play of (by counting;
    the same as the kinds of :func:`~analytics.evaluator.bigtwo_all_combos`, bar singles)."""
    rules = rules or BigTwoRules()
    hand = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    by_rank = [0] * RANKS
    by_suit = [0, 0, 0, 0]  # rank masks
    for card in hand:
        code = card.code
        if code < 0:
            raise ValueError("an unknown card has no Big Two combinations")
        by_rank[code >> 2] += 1
        by_suit[code & 3] |= 1 << (code >> 2)
    profile = [0] * 5
    for n in by_rank:
        profile[n] += 1
    kinds = _rank_kinds(tuple(profile), len(hand), rules.four_card_plays)
    runs = _run_masks(rules.straights)
    for mask in by_suit:
        n = mask.bit_count()
        has_run = any(mask & run == run for run in runs)
        if has_run:
            kinds.add(BigTwoKind.STRAIGHT_FLUSH)
        if n >= 6 or (n == 5 and not has_run):
            kinds.add(BigTwoKind.FLUSH)
    for run in runs:
        ranks = [r for r in range(RANKS) if run >> r & 1]
        if all(by_rank[r] for r in ranks):
            ways = math.prod(by_rank[r] for r in ranks)
            one_suit = sum(1 for mask in by_suit if mask & run == run)
            if ways > one_suit:
                kinds.add(BigTwoKind.STRAIGHT)
                break
    return frozenset(kinds)


def bigtwo_kinds_held_counts(codes: npt.NDArray[np.integer[Any]],
                             rules: BigTwoRules | None = None) -> Counter[BigTwoKind]:
    """How many of the hands ``codes`` (an (n, size) array of card codes ``4 * rank + suit``,
    one hand per row) hold each kind: the sum of :func:`bigtwo_kinds_held` over the rows,
    counted with numpy instead of per hand in Python (the Hand types page counts 20,000
    deals; one at a time that is about a second)."""
    rules = rules or BigTwoRules()
    held: Counter[BigTwoKind] = Counter()
    hands, size = codes.shape
    if hands == 0:
        return held
    ranks = codes.astype(np.int64) >> 2
    suits = codes.astype(np.int64) & 3
    by_rank = (ranks[:, :, None] == np.arange(RANKS)).sum(axis=1)  # (n, 13)
    bits = np.left_shift(1, ranks)
    by_suit = np.stack([np.bitwise_or.reduce(np.where(suits == suit, bits, 0), axis=1)
                        for suit in range(4)], axis=1)  # (n, 4) rank masks
    # Kinds decided by the rank counts alone: once per distinct profile (a few hundred).
    profiles = (by_rank[:, :, None] == np.arange(5)).sum(axis=1)
    # Each profile as one number (its five counts, 0..13, as base-14 digits): np.unique of
    # a 1-d array instead of rows (axis=0 sorts the rows as records, 0.1-0.2 s of CPU for
    # 20,000 deals).
    digits = np.array([14 ** c for c in range(5)], dtype=np.int64)
    distinct, per_profile = np.unique(profiles @ digits, return_counts=True)
    for number, count in zip(distinct.tolist(), per_profile.tolist(), strict=True):
        profile = tuple(number // 14 ** c % 14 for c in range(5))
        for kind in _rank_kinds(profile, size, rules.four_card_plays):
            held[kind] += count
    runs = _run_masks(rules.straights)
    run_in_suit = np.zeros(by_suit.shape, dtype=np.bool_)
    for run in runs:
        run_in_suit |= (by_suit & run) == run
    suited = sum((by_suit >> rank) & 1 for rank in range(RANKS))  # cards per suit
    held[BigTwoKind.STRAIGHT_FLUSH] += int(run_in_suit.any(axis=1).sum())
    held[BigTwoKind.FLUSH] += int(((suited >= 6) | ((suited == 5) & ~run_in_suit))
                                  .any(axis=1).sum())
    # A straight: some run whose ranks are all held in more ways than its one-suit ways.
    straight = np.zeros(hands, dtype=np.bool_)
    for run in runs:
        columns = [rank for rank in range(RANKS) if run >> rank & 1]
        counts = by_rank[:, columns]
        one_suit = ((by_suit & run) == run).sum(axis=1)
        straight |= (counts > 0).all(axis=1) & (counts.prod(axis=1) > one_suit)
    held[BigTwoKind.STRAIGHT] += int(straight.sum())
    return +held
