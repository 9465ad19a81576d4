"""Big Two combinations (RULES.md section 2) under every rule knob.

:func:`bigtwo_combo` recognises a play and gives it a numeric :attr:`BigTwoCombo.key`;
within one size, a larger key beats a smaller one (``a < b`` means b beats a),
and comparing plays of different sizes raises :class:`BigTwoComparisonError`.
The knobs that matter here are ``suit_order`` (suit strength), ``straights``
(which runs are straights and their order), ``flush_order`` (ranks first or
suit first) and ``four_card_plays`` (two pairs and four of a kind alone).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product
from typing import Final

from analytics.evaluator._common import NamedCategory, as_known_cards
from parsers.cards import Card, Rank
from parsers.rule_options import BigTwoRules, FlushOrder, Straights

__all__ = [
    "BigTwoCombo",
    "BigTwoComparisonError",
    "BigTwoKind",
    "BigTwoMaskKeys",
    "bigtwo_all_combos",
    "bigtwo_beats",
    "bigtwo_card_key",
    "bigtwo_combo",
    "bigtwo_rank_index",
    "straight_runs",
]

DEFAULT_RULES: Final = BigTwoRules()


class BigTwoKind(NamedCategory):
    """Kinds of Big Two play.  Only plays of one size are comparable.

    Within the five-card plays the numeric order is the beating order
    (straight < flush < full house < four of a kind < straight flush); among
    four-card plays two pairs < four of a kind.
    """

    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    TWO_PAIRS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8




# Within-size kind order, the first element of a key after the size.
_KIND_ORDER: Final = {
    BigTwoKind.SINGLE: 0,
    BigTwoKind.PAIR: 0,
    BigTwoKind.TRIPLE: 0,
    BigTwoKind.TWO_PAIRS: 0,
    BigTwoKind.STRAIGHT: 0,
    BigTwoKind.FLUSH: 1,
    BigTwoKind.FULL_HOUSE: 2,
    BigTwoKind.FOUR_OF_A_KIND: 3,  # 4 cards: 1, see _classify
    BigTwoKind.STRAIGHT_FLUSH: 4,
}


# A key's size and kind order back to the kind (the inverse of _KIND_ORDER by size; four of a
# kind has order 1 among the four-card plays, 3 among the five-card ones).
_KIND_OF_KEY: Final = {
    (1, 0): BigTwoKind.SINGLE,
    (2, 0): BigTwoKind.PAIR,
    (3, 0): BigTwoKind.TRIPLE,
    (4, 0): BigTwoKind.TWO_PAIRS,
    (4, 1): BigTwoKind.FOUR_OF_A_KIND,
    (5, 0): BigTwoKind.STRAIGHT,
    (5, 1): BigTwoKind.FLUSH,
    (5, 2): BigTwoKind.FULL_HOUSE,
    (5, 3): BigTwoKind.FOUR_OF_A_KIND,
    (5, 4): BigTwoKind.STRAIGHT_FLUSH,
}


class BigTwoComparisonError(TypeError):
    """Two plays that cannot be compared: different sizes, or different rule sets."""


def bigtwo_rank_index(rank: Rank) -> int:
    """Big Two rank strength 0..12: three = 0 ... ace = 11, two = 12."""
    return (int(rank) - 1) % 13


def bigtwo_card_key(card: Card, rules: BigTwoRules = DEFAULT_RULES) -> int:
    """Single-card strength 0..51 (3 of the lowest suit = 0, 2 of the highest suit = 51)."""
    if card.rank is None or card.suit is None:
        raise ValueError("the unknown card ?? has no Big Two strength")
    return bigtwo_rank_index(card.rank) * 4 + rules.suit_strength[card.suit]


@cache
def straight_runs(straights: Straights) -> dict[frozenset[int], int]:
    """Valid straights as sets of poker ranks (0 = deuce), mapped to their order 0, 1, ..."""
    # 3-7 (poker ranks 1..5) up to T-A (8..12): the runs every variant allows.
    runs = [frozenset(range(low, low + 5)) for low in range(1, 9)]
    two_to_six = frozenset({0, 1, 2, 3, 4})
    ace_to_five = frozenset({12, 0, 1, 2, 3})
    if straights is Straights.SG_HK:
        runs += [two_to_six, ace_to_five]
    elif straights is Straights.MALAYSIAN:
        runs += [ace_to_five, two_to_six]
    return {run: order for order, run in enumerate(runs)}


@dataclass(frozen=True, slots=True)
class BigTwoCombo:
    """A legal Big Two play.

    ``a < b`` means ``b`` beats ``a``; plays of different sizes (or made under
    different rules) raise :class:`BigTwoComparisonError` when compared.  Two
    plays with equal :attr:`key` are equally strong (neither beats the other),
    though ``==`` still tells different cards apart.
    """

    cards: tuple[Card, ...]
    """The cards, strongest first (Big Two card order)."""
    kind: BigTwoKind
    key: tuple[int, ...]
    """``(size, kind order, tie-breaks...)``: larger beats smaller within one size."""
    rules: BigTwoRules

    @property
    def size(self) -> int:
        """Number of cards in the play."""
        return len(self.cards)

    def _check(self, other: object) -> BigTwoCombo:
        if not isinstance(other, BigTwoCombo):
            raise BigTwoComparisonError(
                f"cannot compare a Big Two play with {type(other).__name__}"
            )
        if other.size != self.size:
            raise BigTwoComparisonError(
                f"cannot compare a {self.size}-card play with a {other.size}-card play"
            )
        if other.rules != self.rules:
            raise BigTwoComparisonError("cannot compare plays made under different rules")
        return other

    def __lt__(self, other: object) -> bool:
        return self.key < self._check(other).key

    def __le__(self, other: object) -> bool:
        return self.key <= self._check(other).key

    def __gt__(self, other: object) -> bool:
        return self.key > self._check(other).key

    def __ge__(self, other: object) -> bool:
        return self.key >= self._check(other).key

    def __str__(self) -> str:
        return f"{self.kind.text} {' '.join(str(card) for card in self.cards)}"


def bigtwo_combo(
    cards: Iterable[Card] | str, rules: BigTwoRules = DEFAULT_RULES
) -> BigTwoCombo | None:
    """The play these cards make, or None if they are no legal combination under ``rules``.

    Unknown or repeated cards raise :class:`~analytics.evaluator.EvaluationError`.
    """
    hand = as_known_cards(cards, 0, 52, "Big Two")
    return _classify(hand, rules)


def _classify(hand: tuple[Card, ...], rules: BigTwoRules) -> BigTwoCombo | None:
    strength = rules.suit_strength
    ordered = tuple(sorted(hand, key=lambda c: bigtwo_card_key(c, rules), reverse=True))
    size = len(ordered)
    ranks = [bigtwo_rank_index(c.rank) for c in ordered if c.rank is not None]
    suits = [strength[c.suit] for c in ordered if c.suit is not None]
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    shape = sorted(counts.values(), reverse=True)

    def made(kind: BigTwoKind, *tie: int, order: int | None = None) -> BigTwoCombo:
        kind_order = _KIND_ORDER[kind] if order is None else order
        return BigTwoCombo(ordered, kind, (size, kind_order, *tie), rules)

    if size == 1:
        return made(BigTwoKind.SINGLE, ranks[0] * 4 + suits[0])
    if size == 2:
        return made(BigTwoKind.PAIR, ranks[0], suits[0]) if shape == [2] else None
    if size == 3:
        return made(BigTwoKind.TRIPLE, ranks[0]) if shape == [3] else None
    if size == 4:
        if not rules.four_card_plays:
            return None
        if shape == [4]:
            return made(BigTwoKind.FOUR_OF_A_KIND, ranks[0], order=1)
        if shape == [2, 2]:
            # ordered is strongest first: its first card is the top of the higher pair.
            return made(BigTwoKind.TWO_PAIRS, ranks[0], ranks[3], suits[0])
        return None
    if size != 5:
        return None
    if shape == [4, 1]:
        quad = next(r for r, n in counts.items() if n == 4)
        return made(BigTwoKind.FOUR_OF_A_KIND, quad)
    if shape == [3, 2]:
        triple = next(r for r, n in counts.items() if n == 3)
        return made(BigTwoKind.FULL_HOUSE, triple)
    if shape != [1, 1, 1, 1, 1]:
        return None
    poker_ranks = frozenset(int(c.rank) for c in ordered if c.rank is not None)
    run = straight_runs(rules.straights).get(poker_ranks)
    flush = len(set(suits)) == 1
    if run is not None:
        # ordered[0] is the highest card in Big Two order (the 2 in 2-3-4-5-6 and A-2-3-4-5).
        kind = BigTwoKind.STRAIGHT_FLUSH if flush else BigTwoKind.STRAIGHT
        return made(kind, run, suits[0])
    if flush:
        if rules.flush_order is FlushOrder.SUIT_FIRST:
            return made(BigTwoKind.FLUSH, suits[0], *ranks)
        return made(BigTwoKind.FLUSH, *ranks, suits[0])
    return None


class BigTwoMaskKeys:
    """:func:`bigtwo_combo`'s ``key`` of a play given as a card mask (bit ``card.code``),
    under one rule set: the same key, or None where it gives None, without Card objects.

    For a replay that meets a play it has not seen yet: the cards' Big Two strengths come
    from a table by code, and the shape from the strengths sorted (strongest first, as
    :func:`bigtwo_combo` orders them), so a new play costs a few microseconds instead of
    the tens :func:`bigtwo_combo` spends checking and sorting Cards.
    """

    __slots__ = ("_card_keys", "_four_card_plays", "_runs", "_suit_first")

    def __init__(self, rules: BigTwoRules) -> None:
        strength = rules.suit_strength
        # Card code 4 * poker rank + suit: its Big Two strength (bigtwo_card_key).
        self._card_keys = [((code >> 2) - 1) % 13 * 4 + strength[code & 3]
                           for code in range(52)]
        # Each valid straight as a mask of its poker ranks (bit rank), with its order.
        self._runs = {sum(1 << rank for rank in run): order
                      for run, order in straight_runs(rules.straights).items()}
        self._four_card_plays = rules.four_card_plays
        self._suit_first = rules.flush_order is FlushOrder.SUIT_FIRST

    def key(self, mask: int) -> tuple[int, ...] | None:
        """The key of the play of the cards of ``mask`` (1 to 52 distinct cards), or None
        when they are no combination."""
        card_keys = self._card_keys
        strengths = []
        ranks_held = 0  # poker ranks, for the straights
        while mask:
            low = mask & -mask
            code = low.bit_length() - 1
            strengths.append(card_keys[code])
            ranks_held |= 1 << (code >> 2)
            mask ^= low
        size = len(strengths)
        if size == 1:
            return (1, 0, strengths[0])
        if not 2 <= size <= 5:
            return None
        strengths.sort(reverse=True)
        ranks = [strength >> 2 for strength in strengths]
        top_suit = strengths[0] & 3
        if size == 2:
            return (2, 0, ranks[0], top_suit) if ranks[0] == ranks[1] else None
        if size == 3:
            return (3, 0, ranks[0]) if ranks[0] == ranks[2] else None
        if size == 4:
            return self._four(ranks, top_suit)
        return self._five(ranks, strengths, ranks_held)

    def kind(self, mask: int) -> BigTwoKind | None:
        """The kind of the play of the cards of ``mask`` (:func:`bigtwo_combo`'s ``kind``),
        or None when they are no combination."""
        key = self.key(mask)
        return None if key is None else _KIND_OF_KEY[key[0], key[1]]

    def _four(self, ranks: list[int], top_suit: int) -> tuple[int, ...] | None:
        if not self._four_card_plays:
            return None
        if ranks[0] == ranks[3]:
            return (4, 1, ranks[0])  # four of a kind
        if ranks[0] == ranks[1] and ranks[2] == ranks[3]:
            return (4, 0, ranks[0], ranks[3], top_suit)  # two pairs
        return None

    def _five(self, ranks: list[int], strengths: list[int], ranks_held: int
              ) -> tuple[int, ...] | None:
        distinct = ranks_held.bit_count()
        if distinct == 2:  # four of a kind or a full house: ranks[1], ranks[2] are theirs
            if ranks[0] == ranks[3] or ranks[1] == ranks[4]:
                return (5, 3, ranks[1])
            return (5, 2, ranks[2])
        if distinct != 5:
            return None
        top_suit = strengths[0] & 3
        flush = all(strength & 3 == top_suit for strength in strengths)
        run = self._runs.get(ranks_held)
        if run is not None:
            return (5, 4 if flush else 0, run, top_suit)
        if flush:
            if self._suit_first:
                return (5, 1, top_suit, *ranks)
            return (5, 1, *ranks, top_suit)
        return None


def bigtwo_beats(new: BigTwoCombo, old: BigTwoCombo) -> bool:
    """True when ``new`` may be played on ``old``: same size and stronger.

    A play of a different size never beats (it is not comparable), so this
    returns False rather than raising.
    """
    if new.size != old.size:
        return False
    return new > old


def bigtwo_all_combos(
    hand: Iterable[Card] | str, rules: BigTwoRules = DEFAULT_RULES
) -> list[BigTwoCombo]:
    """Every legal play in a hand, by size and then from weakest to strongest.

    Five-card plays are built from rank and suit groups (runs, suits, triples
    with pairs, fours with a kicker) rather than by trying all 5-subsets.
    """
    cards = as_known_cards(hand, 0, 52, "Big Two")
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[int, list[Card]] = {}
    for card in cards:
        assert card.rank is not None
        assert card.suit is not None
        by_rank.setdefault(int(card.rank), []).append(card)
        by_suit.setdefault(int(card.suit), []).append(card)

    found: list[BigTwoCombo] = []
    for candidate in _candidates(cards, by_rank, by_suit, rules):
        combo = _classify(candidate, rules)
        if combo is not None:
            found.append(combo)
    found.sort(key=lambda combo: combo.key)
    return found


def _candidates(
    cards: tuple[Card, ...],
    by_rank: dict[int, list[Card]],
    by_suit: dict[int, list[Card]],
    rules: BigTwoRules,
) -> Iterator[tuple[Card, ...]]:
    # Every yielded tuple is a distinct set of cards that _classify accepts.
    for card in cards:
        yield (card,)
    for group in by_rank.values():
        yield from combinations(group, 2)
        yield from combinations(group, 3)
    if rules.four_card_plays:
        for group in by_rank.values():
            if len(group) == 4:
                yield tuple(group)
        for low, high in combinations(sorted(by_rank), 2):
            for pair_a in combinations(by_rank[low], 2):
                for pair_b in combinations(by_rank[high], 2):
                    yield pair_a + pair_b
    runs = straight_runs(rules.straights)
    for run in runs:
        if all(rank in by_rank for rank in run):
            yield from product(*(by_rank[rank] for rank in sorted(run)))
    for group in by_suit.values():
        for five in combinations(group, 5):
            ranks = frozenset(int(c.rank) for c in five if c.rank is not None)
            if ranks not in runs:  # straight flushes came with the runs
                yield five
    for triple_rank, triple_group in by_rank.items():
        if len(triple_group) < 3:
            continue
        for pair_rank, pair_group in by_rank.items():
            if pair_rank != triple_rank and len(pair_group) >= 2:
                for triple in combinations(triple_group, 3):
                    for pair in combinations(pair_group, 2):
                        yield triple + pair
    for quad_rank, quad_group in by_rank.items():
        if len(quad_group) == 4:
            for kicker in cards:
                if kicker.rank is not None and int(kicker.rank) != quad_rank:
                    yield (*quad_group, kicker)
