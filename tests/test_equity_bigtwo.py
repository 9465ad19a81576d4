"""Big Two deal strength and hand features."""

from __future__ import annotations

import random

import pytest

from analytics.equity import (
    bigtwo_deal_strength,
    bigtwo_features,
    bigtwo_features_fast,
    bigtwo_game_features,
    bigtwo_game_features_fast,
)
from analytics.evaluator import EvaluationError, bigtwo_all_combos
from analytics.simulate.bigtwo import simulate_bigtwo
from parsers.cards import DECK, UNKNOWN, parse_cards
from parsers.rule_options import BigTwoDeal, BigTwoRules, Straights

STRONG = "2s2h2d2cAsAhKsKhQsQhJsJhTs"
WEAK = "3d3c4h5s6d7c8h9sTdJcQh4d5c"


def test_features_count_twos_aces_and_plays() -> None:
    features = bigtwo_features(STRONG)
    assert (features.twos, features.aces, features.cards) == (4, 2, 13)
    assert not features.has_lead
    combos = bigtwo_all_combos(parse_cards(STRONG), BigTwoRules())
    assert features.five_card == sum(1 for c in combos if c.size == 5)
    assert features.pairs == sum(1 for c in combos if c.size == 2)
    assert features.pairs == 6 + 4  # four 2s make six pairs; aces to jacks one each
    assert bigtwo_features(WEAK).has_lead


def test_game_features_cover_every_player() -> None:
    game = next(simulate_bigtwo(1, 4, 2))
    rows = bigtwo_game_features(game)
    assert [row.seat for row in rows] == [1, 2, 3, 4]
    assert sum(row.twos for row in rows) == 4
    assert sum(row.aces for row in rows) == 4
    assert sum(row.has_lead for row in rows) == 1


def test_deal_strength_is_seeded_and_orders_hands() -> None:
    strong = bigtwo_deal_strength(STRONG, samples=40, seed=1)
    again = bigtwo_deal_strength(STRONG, samples=40, seed=1)
    weak = bigtwo_deal_strength(WEAK, samples=40, seed=1)
    assert strong == again
    assert strong.p_first > weak.p_first
    middle = bigtwo_deal_strength("3d4d5d6d7dAcAd9s9hKc2d8c8h", samples=40, seed=1)
    assert 0 < middle.std_error < 0.1
    assert middle.std_error == pytest.approx(
        (middle.p_first * (1 - middle.p_first) / 39) ** 0.5)


def test_deal_all_with_three_players_gives_leftovers_to_the_lead_holder() -> None:
    rules = BigTwoRules(deal=BigTwoDeal.ALL)
    # 52 = 3 x 17 + 1: the holder of 3d gets 18 cards.
    long_hand = "3d" + "4c4d4h4s5c5d5h5s6c6d6h6s7c7d7h7s"
    assert len(parse_cards(long_hand)) == 17
    with pytest.raises(EvaluationError, match="17 or 18"):
        bigtwo_deal_strength(long_hand[:-2], 3, rules, samples=2)
    result = bigtwo_deal_strength(long_hand + "8c", 3, rules, samples=10, seed=3)
    assert 0.0 <= result.p_first <= 1.0
    short = bigtwo_deal_strength("4c4d4h4s5c5d5h5s6c6d6h6s7c7d7h7s8c", 3, rules, samples=10)
    assert 0.0 <= short.p_first <= 1.0


def test_bad_hands_are_rejected() -> None:
    with pytest.raises(EvaluationError, match="13"):
        bigtwo_deal_strength("3d4d", 4, samples=2)
    with pytest.raises(EvaluationError, match="distinct"):
        bigtwo_features("3d3d")
    with pytest.raises(EvaluationError, match="2 to 4"):
        bigtwo_deal_strength(STRONG, 5, samples=2)


@pytest.mark.slow
def test_fast_features_equal_the_listed_ones() -> None:
    for game in simulate_bigtwo(30, 4, 9):
        assert bigtwo_game_features_fast(game) == bigtwo_game_features(game)
    rng = random.Random(3)
    for straights in Straights:
        for four in (False, True):
            rules = BigTwoRules(straights=straights, four_card_plays=four, lead_card="3c")
            for _ in range(150):
                hand = rng.sample(DECK, rng.choice([5, 6, 9, 13, 17, 26]))
                assert bigtwo_features_fast(hand, rules, 3) == bigtwo_features(hand, rules, 3)
    assert bigtwo_features_fast(STRONG) == bigtwo_features(STRONG)
    with pytest.raises(EvaluationError):
        bigtwo_features_fast("3d3d4c5h6s")


def test_fast_features_equal_the_listed_ones_on_crowded_hands() -> None:
    # Few ranks or few suits: quads, full houses, several flush suits and straight
    # flushes, which random hands rarely hold, each under every straights rule.
    rng = random.Random(5)
    for straights in Straights:
        rules = BigTwoRules(straights=straights)
        for _ in range(40):
            ranks = rng.sample(range(13), rng.randint(3, 8))
            hand = rng.sample([c for c in DECK if c.code >> 2 in ranks],
                              min(13, 4 * len(ranks)))
            assert bigtwo_features_fast(hand, rules, 2) == bigtwo_features(hand, rules, 2)
            suits = rng.sample(range(4), 2)
            hand = rng.sample([c for c in DECK if c.code & 3 in suits], 13)
            assert bigtwo_features_fast(iter(hand), rules) == bigtwo_features(hand, rules)
    with pytest.raises(EvaluationError, match="distinct"):
        bigtwo_features_fast([*parse_cards("3d4d"), UNKNOWN])


def test_features_of_many_hands_in_one_call_are_each_hands_features() -> None:
    from analytics.equity.bigtwo import bigtwo_features_many

    rng = random.Random(17)
    rule_sets = [BigTwoRules(), BigTwoRules(straights=Straights.SG_HK),
                 BigTwoRules(straights=Straights.MALAYSIAN, lead_card="3c")]
    hands, rules = [], []
    for _ in range(3_000):
        hands.append(rng.sample(DECK, rng.choice([0, 1, 5, 8, 13, 13, 17, 18, 26, 40, 52])))
        rules.append(rng.choice(rule_sets))
    masks = [sum(1 << card.code for card in hand) for hand in hands]
    rows = bigtwo_features_many(masks, [len(hand) for hand in hands], rules).tolist()
    for hand, rule_set, row in zip(hands, rules, rows, strict=True):
        one = bigtwo_features_fast(hand, rule_set)
        assert row == [one.twos, one.aces, int(one.has_lead), one.pairs, one.triples,
                       one.five_card, one.distinct_five_card_ranks]
    assert bigtwo_features_many([], [], []).shape == (0, 7)


def test_game_deals_are_the_masks_the_game_features_count() -> None:
    from analytics.equity.bigtwo import bigtwo_features_many, bigtwo_game_deals

    for hand in simulate_bigtwo(20, 4, 9):
        deals = bigtwo_game_deals(hand)
        assert isinstance(hand.rules, BigTwoRules)
        rows = bigtwo_features_many([mask for _, mask, _ in deals],
                                    [size for _, _, size in deals], [hand.rules] * len(deals))
        expected = bigtwo_game_features_fast(hand)
        assert [seat for seat, _, _ in deals] == [item.seat for item in expected]
        assert [size for _, _, size in deals] == [item.cards for item in expected]
        assert rows.tolist() == [[item.twos, item.aces, int(item.has_lead), item.pairs,
                                  item.triples, item.five_card, item.distinct_five_card_ranks]
                                 for item in expected]
