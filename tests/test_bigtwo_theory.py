"""Exact Big Two deal theory (analytics.equity.bigtwo_theory) against brute force and the
evaluator: every hand of reduced decks enumerated, poker's classic five-card counts, and
Monte Carlo over real 13-card deals with bigtwo_all_combos."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations

import pytest

from analytics.equity.bigtwo_theory import (
    MOST_OF_A_RANK,
    bigtwo_contains,
    bigtwo_deal_sizes,
    bigtwo_kinds_held,
    bigtwo_kinds_held_counts,
    bigtwo_most_of_a_rank,
    bigtwo_twos,
    kinds_for,
    valid_runs,
)
from analytics.evaluator import BigTwoKind, bigtwo_all_combos
from analytics.evaluator.categories import card_text_codes
from parsers.cards import Card, parse_cards
from parsers.rule_options import BigTwoDeal, BigTwoRules, Straights

DECK = parse_cards("".join(r + s for r in "23456789TJQKA" for s in "dchs"))
RULE_SETS = [BigTwoRules(),
             BigTwoRules(straights=Straights.VIETNAMESE, four_card_plays=True),
             BigTwoRules(straights=Straights.MALAYSIAN, suit_order="cdhs")]


def _deck(suits: int) -> list[Card]:
    return [card for card in DECK if str(card)[1] in "dchs"[:suits]]


def _evaluator_kinds(hand: tuple[Card, ...] | list[Card], rules: BigTwoRules
                     ) -> frozenset[BigTwoKind]:
    return frozenset(c.kind for c in bigtwo_all_combos(hand, rules)) - {BigTwoKind.SINGLE}


def _brute(suits: int, size: int, rules: BigTwoRules) -> dict[BigTwoKind, int]:
    counts: Counter[BigTwoKind] = Counter()
    for hand in combinations(_deck(suits), size):
        counts.update(_evaluator_kinds(hand, rules))
    return {kind: counts[kind] for kind in kinds_for(rules)}


def test_runs_come_from_the_evaluator() -> None:
    assert valid_runs(Straights.SG_HK) == tuple(range(4, 14))
    assert valid_runs(Straights.MALAYSIAN) == tuple(range(4, 14))
    assert valid_runs(Straights.VIETNAMESE) == tuple(range(6, 14))


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("size", [5, 6, pytest.param(7, marks=pytest.mark.slow),
                                  pytest.param(8, marks=pytest.mark.slow)])
def test_one_suit_deck_enumerated(rules: BigTwoRules, size: int) -> None:
    """One suit: no pairs, no straights (every run is one suit), flushes and straight
    flushes decided by the runs alone."""
    theory = bigtwo_contains(size, rules, suits=1)
    assert theory.counts == _brute(1, size, rules)
    assert theory.hands == math.comb(13, size)


@pytest.mark.slow
def test_two_suit_deck_enumerated() -> None:
    """Every one of the 65,780 five-card hands of a two-suit deck through the evaluator."""
    rules = BigTwoRules()
    assert bigtwo_contains(5, rules, suits=2).counts == _brute(2, 5, rules)


@pytest.mark.slow
def test_three_suit_deck_four_card_plays_enumerated() -> None:
    rules = BigTwoRules(four_card_plays=True, straights=Straights.VIETNAMESE)
    assert bigtwo_contains(4, rules, suits=3).counts == _brute(3, 4, rules)


def test_five_card_hands_match_the_poker_counts() -> None:
    """A five-card hand holds a Big Two play of a kind exactly when it *is* that poker hand
    (for pairs and triples: when it holds one), so poker's classic counts apply."""
    counts = bigtwo_contains(5, BigTwoRules()).counts
    assert counts[BigTwoKind.STRAIGHT_FLUSH] == 40
    assert counts[BigTwoKind.FOUR_OF_A_KIND] == 624
    assert counts[BigTwoKind.FULL_HOUSE] == 3744
    assert counts[BigTwoKind.FLUSH] == 5108
    assert counts[BigTwoKind.STRAIGHT] == 10200
    assert counts[BigTwoKind.TRIPLE] == 54912 + 3744 + 624
    assert counts[BigTwoKind.PAIR] == math.comb(52, 5) - math.comb(13, 5) * 4**5
    vietnamese = bigtwo_contains(5, BigTwoRules(straights=Straights.VIETNAMESE)).counts
    assert vietnamese[BigTwoKind.STRAIGHT_FLUSH] == 32
    assert vietnamese[BigTwoKind.FLUSH] == 5108 + 8  # A-5 and 2-6 of one suit are flushes


def test_most_of_a_rank_and_twos_partition_the_hands() -> None:
    for size in (5, 13, 17, 26):
        most = bigtwo_most_of_a_rank(size)
        assert list(most) == list(MOST_OF_A_RANK)
        assert sum(most.values()) == math.comb(52, size)
        assert sum(bigtwo_twos(size).values()) == math.comb(52, size)
    assert bigtwo_most_of_a_rank(13)["no pair"] == 4**13
    assert bigtwo_most_of_a_rank(13)["four of a kind"] == bigtwo_contains(13).counts[
        BigTwoKind.FOUR_OF_A_KIND]
    assert bigtwo_most_of_a_rank(17)["no pair"] == 0
    assert bigtwo_twos(13)["4"] == math.comb(48, 9)


def test_deal_sizes() -> None:
    assert bigtwo_deal_sizes(BigTwoRules(), 3) == (13,)
    everything = BigTwoRules(deal=BigTwoDeal.ALL)
    assert bigtwo_deal_sizes(everything, 2) == (26,)
    assert bigtwo_deal_sizes(everything, 3) == (17, 18)
    assert bigtwo_deal_sizes(everything, 4) == (13,)
    with pytest.raises(ValueError, match="2 to 4 players"):
        bigtwo_deal_sizes(everything, 5)


DECK_TEXT = [f"{rank}{suit}" for rank in "23456789TJQKA" for suit in "dchs"]


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="not possible"):
        bigtwo_contains(53)
    with pytest.raises(ValueError, match="1 to 4 suits"):
        bigtwo_contains(5, suits=5)


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS)
def test_kinds_held_equals_the_evaluator_on_random_deals(rules: BigTwoRules) -> None:
    rng = random.Random(11)
    for size in (13, 13, 13, 17, 26, 4, 6):
        for _ in range(60):
            hand = rng.sample(DECK, size)
            assert bigtwo_kinds_held(hand, rules) == _evaluator_kinds(hand, rules), hand


@pytest.mark.parametrize("rules", RULE_SETS)
def test_counting_many_hands_at_once_equals_one_at_a_time(rules: BigTwoRules) -> None:
    """The numpy count of the Hand types page against the per-hand function, on random
    deals and on crowded ones (whole ranks, one suit, runs in every suit)."""
    rng = random.Random(23)
    crowded = [[f"{rank}{suit}" for rank in ranks for suit in "dchs"]
               for ranks in ("AKQ", "2345", "A23", "6789", "TJQ")]
    crowded += [[f"{rank}{suit}" for rank in "23456789TJQKA"] for suit in "dchs"]
    crowded += [[f"{rank}{suit}" for rank in "A2345" for suit in "dc"]]
    for size in (13, 5, 6, 17, 26):
        hands = ["".join(rng.sample(DECK_TEXT, size)) for _ in range(300)]
        hands += ["".join(hand[:size]) for hand in crowded if len(hand) >= size]
        codes, valid = card_text_codes(hands, size)
        assert valid.all()
        one_at_a_time: Counter[BigTwoKind] = Counter()
        for hand in hands:
            one_at_a_time.update(bigtwo_kinds_held(hand, rules))
        assert bigtwo_kinds_held_counts(codes, rules) == one_at_a_time, size
    assert bigtwo_kinds_held_counts(card_text_codes([], 13)[0], rules) == Counter()


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS[:2])
def test_monte_carlo_on_thirteen_card_deals(rules: BigTwoRules) -> None:
    """Real 13-card deals through bigtwo_all_combos: every kind's share within 4 standard
    errors of the exact chance (a seeded sample, so the test is deterministic)."""
    rng = random.Random(2026)
    deals = 4000
    seen: Counter[BigTwoKind] = Counter()
    for _ in range(deals):
        seen.update(_evaluator_kinds(rng.sample(DECK, 13), rules))
    theory = bigtwo_contains(13, rules)
    for kind in kinds_for(rules):
        p = float(theory.probability(kind))
        error = math.sqrt(p * (1 - p) / deals)
        assert abs(seen[kind] / deals - p) <= 4 * error + 1e-12, (kind, seen[kind], p)


def test_thirteen_card_values() -> None:
    """Sanity figures of the 13-card deal: four of a kind held in about 3.4 % of deals,
    a pair in all but 4^13 / C(52, 13)."""
    theory = bigtwo_contains(13)
    assert theory.counts[BigTwoKind.PAIR] == math.comb(52, 13) - 4**13
    assert 0.034 < float(theory.probability(BigTwoKind.FOUR_OF_A_KIND)) < 0.0345
    # Vietnamese has fewer runs: fewer straights, a few more flushes.
    viet = bigtwo_contains(13, BigTwoRules(straights=Straights.VIETNAMESE))
    assert viet.counts[BigTwoKind.STRAIGHT] < theory.counts[BigTwoKind.STRAIGHT]
    assert viet.counts[BigTwoKind.FLUSH] > theory.counts[BigTwoKind.FLUSH]
