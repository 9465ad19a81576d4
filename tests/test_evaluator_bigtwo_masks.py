"""``BigTwoMaskKeys``: a play's key (and kind) from its card mask is ``bigtwo_combo``'s key
(and kind), or None.

The Big Two facts recognise a play by its mask
(:class:`analytics.evaluator.bigtwo.BigTwoMaskKeys`); these tests check it against
:func:`analytics.evaluator.bigtwo_combo` on every legal play of the deck and on random
card sets (mostly no combination), under rule sets covering every knob that decides
what a play is and what it beats.
"""

from __future__ import annotations

import itertools
import random

import pytest

from analytics.evaluator import BigTwoKind, bigtwo_all_combos, bigtwo_combo
from analytics.evaluator.bigtwo import BigTwoMaskKeys
from parsers.cards import DECK, Card
from parsers.rule_options import BigTwoRules, FlushOrder, Straights

RULE_SETS = [
    BigTwoRules(suit_order=order, straights=straights, flush_order=flush,
                four_card_plays=four)
    for order, straights, flush, four in [
        ("dchs", Straights.SG_HK, FlushOrder.RANK, False),
        ("cdhs", Straights.VIETNAMESE, FlushOrder.SUIT_FIRST, True),
        ("shdc", Straights.MALAYSIAN, FlushOrder.RANK, True),
        ("hsdc", Straights.SG_HK, FlushOrder.SUIT_FIRST, True),
        ("dchs", Straights.MALAYSIAN, FlushOrder.SUIT_FIRST, False),
        ("cdhs", Straights.VIETNAMESE, FlushOrder.RANK, False),
    ]
]


def mask_of(cards: tuple[Card, ...]) -> int:
    return sum(1 << card.code for card in cards)


def expected_key(cards: tuple[Card, ...], rules: BigTwoRules) -> tuple[int, ...] | None:
    combo = bigtwo_combo(cards, rules)
    return None if combo is None else combo.key


def expected_kind(cards: tuple[Card, ...], rules: BigTwoRules) -> BigTwoKind | None:
    combo = bigtwo_combo(cards, rules)
    return None if combo is None else combo.kind


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_legal_play_of_the_deck(rules: BigTwoRules) -> None:
    keys = BigTwoMaskKeys(rules)
    for combo in bigtwo_all_combos(DECK, rules):
        assert keys.key(mask_of(combo.cards)) == combo.key, combo
        assert keys.kind(mask_of(combo.cards)) is combo.kind, combo


@pytest.mark.parametrize("rules", RULE_SETS)
def test_small_and_random_card_sets(rules: BigTwoRules) -> None:
    keys = BigTwoMaskKeys(rules)
    rng = random.Random(f"masks-{rules}")
    sets = [cards for size in (0, 1, 2) for cards in itertools.combinations(DECK, size)]
    sets += [tuple(rng.sample(DECK, size)) for size in range(3, 8) for _ in range(600)]
    for cards in sets:
        assert keys.key(mask_of(cards)) == expected_key(cards, rules), cards
        assert keys.kind(mask_of(cards)) is expected_kind(cards, rules), cards


@pytest.mark.parametrize("rules", RULE_SETS[:3])
def test_five_card_shapes_that_are_no_play(rules: BigTwoRules) -> None:
    """Two pairs and a kicker, three of a kind and two kickers, one pair and three: None;
    and four cards without ``four_card_plays``."""
    keys = BigTwoMaskKeys(rules)
    by_rank = [DECK[4 * rank:4 * rank + 4] for rank in range(13)]
    shapes = [
        by_rank[3][:2] + by_rank[7][:2] + by_rank[9][:1],
        by_rank[12][:3] + by_rank[0][:1] + by_rank[5][:1],
        by_rank[1][:2] + by_rank[4][:1] + by_rank[8][:1] + by_rank[10][:1],
        by_rank[6][:4],
        by_rank[6][:2] + by_rank[11][:2],
        by_rank[2][:3] + by_rank[5][:1],
    ]
    for cards in shapes:
        assert keys.key(mask_of(cards)) == expected_key(cards, rules), cards
        assert keys.kind(mask_of(cards)) is expected_kind(cards, rules), cards
