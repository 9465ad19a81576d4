"""Big Two combinations: the seed's examples under every straights / suit_order variant."""

from __future__ import annotations

import random
from itertools import combinations, pairwise, permutations

import pytest

from analytics.evaluator import (
    BigTwoCombo,
    BigTwoComparisonError,
    BigTwoKind,
    EvaluationError,
    bigtwo_all_combos,
    bigtwo_beats,
    bigtwo_card_key,
    bigtwo_combo,
    describe_hand,
)
from parsers.cards import DECK, Card, parse_cards
from parsers.rule_options import BigTwoRules, FlushOrder, Straights

DEFAULT = BigTwoRules()
SUIT_ORDERS = ["dchs", "cdhs", "cshd", "cdsh", "shdc"]  # default, Taiwan/bridge, seed var. 12/28
ALL_RULES = [
    BigTwoRules(straights=straights, suit_order=order, flush_order=flush, four_card_plays=four)
    for straights in Straights
    for order in SUIT_ORDERS
    for flush in FlushOrder
    for four in (False, True)
]


def combo(text: str, rules: BigTwoRules = DEFAULT) -> BigTwoCombo:
    made = bigtwo_combo(text, rules)
    assert made is not None, text
    return made


# --- singles, pairs, triples (seed: "A♠ beats A♥, which beats K♥"; "K♠K♣ beats K♥K♦") ---


@pytest.mark.parametrize("order", SUIT_ORDERS)
def test_singles_by_rank_then_suit(order: str) -> None:
    rules = BigTwoRules(suit_order=order)
    ranks = "3456789TJQKA2"
    expected = [combo(r + s, rules) for r in ranks for s in order]
    assert all(a < b for a, b in pairwise(expected))
    assert sorted(bigtwo_card_key(card, rules) for card in DECK) == list(range(52))
    assert bigtwo_card_key(parse_cards("3" + order[0])[0], rules) == 0
    assert bigtwo_card_key(parse_cards("2" + order[3])[0], rules) == 51


def test_seed_single_and_pair_examples() -> None:
    assert combo("Ah") < combo("As")
    assert combo("Kh") < combo("Ah")
    assert combo("KhKd") < combo("KsKc")
    assert combo("AsAh") < combo("2d2c")  # twos are highest
    assert combo("3s3h3c") < combo("4d4c4h") < combo("2d2c2h")
    # Under clubs-lowest (cdhs), the 3 of clubs is the lowest single.
    rules = BigTwoRules(suit_order="cdhs")
    assert combo("3c", rules) < combo("3d", rules)
    assert combo("3d") < combo("3c")


@pytest.mark.parametrize("order", SUIT_ORDERS)
def test_pair_by_rank_then_higher_suit(order: str) -> None:
    rules = BigTwoRules(suit_order=order)
    low, a, b, high = list(order)
    assert combo(f"K{low}K{high}", rules) > combo(f"K{a}K{b}", rules)
    assert combo(f"K{a}K{high}", rules) > combo(f"K{low}K{b}", rules)
    assert combo(f"A{low}A{a}", rules) > combo(f"K{b}K{high}", rules)


def test_illegal_small_plays() -> None:
    assert bigtwo_combo("AsKs") is None
    assert bigtwo_combo("AsAhKs") is None
    assert bigtwo_combo("") is None
    assert bigtwo_combo("AsAhAdAc") is None  # four cards need four_card_plays
    assert bigtwo_combo("AsAhKsKh") is None
    assert bigtwo_combo(list(DECK[:6])) is None


# --- straights ---

RUNS = {
    "3-7": "3c4d5h6s7c",
    "4-8": "4c5d6h7s8c",
    "9-K": "9cTdJhQsKc",
    "T-A": "TcJdQhKsAc",
    "2-6": "2c3d4h5s6c",
    "A-5": "Ac2d3h4s5c",
    "J-2": "JcQdKhAs2c",
    "Q-3": "QcKdAh2s3c",
    "K-4": "KcAd2h3s4c",
}
STRAIGHT_ORDER = {
    Straights.SG_HK: ["3-7", "4-8", "9-K", "T-A", "2-6", "A-5"],
    Straights.MALAYSIAN: ["3-7", "4-8", "9-K", "T-A", "A-5", "2-6"],
    Straights.VIETNAMESE: ["3-7", "4-8", "9-K", "T-A"],
}


@pytest.mark.parametrize("straights", list(Straights))
@pytest.mark.parametrize("order", SUIT_ORDERS)
def test_straight_order_per_variant(straights: Straights, order: str) -> None:
    rules = BigTwoRules(straights=straights, suit_order=order)
    valid = STRAIGHT_ORDER[straights]
    made = [combo(RUNS[name], rules) for name in valid]
    assert all(c.kind is BigTwoKind.STRAIGHT for c in made)
    assert all(a < b for a, b in pairwise(made))
    for name, text in RUNS.items():
        if name not in valid:  # round-the-corner runs, and the variant's exclusions
            assert bigtwo_combo(text, rules) is None, name


def test_seed_straight_examples() -> None:
    # "3-4-5-6-7 < 2-3-4-5-6, ... The largest straight is A-2-3-4-5, second 2-3-4-5-6,
    # third 10-J-Q-K-A while the smallest straight is 3-4-5-6-7" (Singapore/Hong Kong).
    valid = STRAIGHT_ORDER[Straights.SG_HK]
    ranked = sorted(combo(text) for name, text in RUNS.items() if name in valid)
    assert ranked[-1] == combo(RUNS["A-5"])
    assert ranked[-2] == combo(RUNS["2-6"])
    assert ranked[-3] == combo(RUNS["T-A"])
    assert ranked[0] == combo(RUNS["3-7"])


@pytest.mark.parametrize("straights", [Straights.SG_HK, Straights.MALAYSIAN])
@pytest.mark.parametrize("order", SUIT_ORDERS)
def test_straight_ties_broken_by_suit_of_highest_card(straights: Straights, order: str) -> None:
    rules = BigTwoRules(straights=straights, suit_order=order)
    low, high = order[0], order[3]
    # Highest card in Big Two order: the top rank, or the 2 in 2-3-4-5-6 and A-2-3-4-5.
    assert combo(f"3{high}4{high}5{high}6{high}7{low}", rules) < combo(
        f"3{low}4{low}5{low}6{low}7{high}", rules
    )
    assert combo(f"A{high}2{low}3{high}4{high}5{high}", rules) < combo(
        f"A{low}2{high}3{low}4{low}5{low}", rules
    )
    a = combo(f"2{low}3{high}4{high}5{high}6{high}", rules)
    b = combo(f"2{high}3{low}4{low}5{low}6{low}", rules)
    assert a < b
    # Same highest card: equally strong, neither beats the other.
    same = combo(f"3{low}4{high}5{low}6{low}7{high}", rules)
    other = combo(f"3{high}4{low}5{high}6{high}7{high}", rules)
    assert not same < other
    assert not other < same
    assert not bigtwo_beats(other, same)


# --- flushes and the five-card kinds ---


def test_flush_order_rank_and_suit_first() -> None:
    spades = "KsQsJsTs8s"
    diamonds = "AdKdQdJd9d"
    assert combo(spades) < combo(diamonds)  # ranks first (default)
    suit_first = BigTwoRules(flush_order=FlushOrder.SUIT_FIRST)
    assert combo(spades, suit_first) > combo(diamonds, suit_first)  # seed variation 10
    # Card by card in Big Two order: a 2-high flush beats an ace-high one.
    assert combo("2d9d7d5d3d") > combo("AsKsQsJs9s")
    assert combo("AsKsQsJs9s") > combo("AsKsQsJs8s")
    # Equal ranks: the suit decides, under both orders.
    for rules in (DEFAULT, suit_first):
        assert combo("AdKdQdJd9d", rules) < combo("AsKsQsJs9s", rules)


@pytest.mark.parametrize("straights", list(Straights))
def test_five_card_kind_order(straights: Straights) -> None:
    rules = BigTwoRules(straights=straights)
    ladder = [
        combo("TcJdQhKsAc", rules),  # best plain straight allowed everywhere
        combo("3d4d5d6d8d", rules),  # lowest flush
        combo("3c3d3h4c4d", rules),  # lowest full house
        combo("3c3d3h3s4c", rules),  # lowest four of a kind
        combo("3d4d5d6d7d", rules),  # lowest straight flush
    ]
    kinds = [c.kind for c in ladder]
    assert kinds == [
        BigTwoKind.STRAIGHT,
        BigTwoKind.FLUSH,
        BigTwoKind.FULL_HOUSE,
        BigTwoKind.FOUR_OF_A_KIND,
        BigTwoKind.STRAIGHT_FLUSH,
    ]
    assert all(a < b for a, b in pairwise(ladder))


def test_full_house_and_four_of_a_kind() -> None:
    assert combo("2d2c2h3d3c") > combo("AdAcAhKsKh")  # by the triple, twos highest
    assert combo("4d4c4h3d3c") > combo("3s3h3c2s2h")  # the pair does not count
    assert combo("2d2c2h2s3c") > combo("AdAcAhAs2c")
    assert combo("5d5c5h5s3c") == combo("5d5c5h5s3c")
    assert not combo("5d5c5h5s3c") < combo("5d5c5h5sKc")  # the kicker does not count
    assert bigtwo_combo("5d5c5h3s3c3d") is None


def test_suited_runs_per_variant() -> None:
    vietnamese = BigTwoRules(straights=Straights.VIETNAMESE)
    assert combo("2c3c4c5c6c").kind is BigTwoKind.STRAIGHT_FLUSH
    assert combo("2c3c4c5c6c", vietnamese).kind is BigTwoKind.FLUSH  # not a run there
    assert combo("JcQcKcAc2c").kind is BigTwoKind.FLUSH  # round the corner is no run


# --- four-card plays ---


def test_four_card_plays() -> None:
    rules = BigTwoRules(four_card_plays=True)
    two_pairs = combo("3d3c4d4c", rules)
    assert two_pairs.kind is BigTwoKind.TWO_PAIRS
    assert combo("3d3c4d4c", rules) < combo("3d3c5d5c", rules)  # higher pair first
    assert combo("3h3s5d5c", rules) < combo("4d4c5h5s", rules)  # then the lower pair
    assert combo("4h4s5d5c", rules) < combo("4d4c5h5s", rules)  # then the top suit
    assert combo("2d2c2h2s", rules) > combo("AsAhKsKh", rules) > two_pairs
    assert combo("3d3c3h3s", rules) > combo("2s2hAsAh", rules)  # four beats any two pairs
    assert combo("3d3c3h3s", rules).kind is BigTwoKind.FOUR_OF_A_KIND
    assert bigtwo_combo("3d3c3h4s", rules) is None


# --- comparisons and helpers ---


def test_different_sizes_do_not_compare() -> None:
    single, pair = combo("2s"), combo("3d3c")
    with pytest.raises(BigTwoComparisonError):
        _ = single < pair
    with pytest.raises(TypeError):
        _ = pair >= single
    with pytest.raises(BigTwoComparisonError):
        _ = combo("3d", BigTwoRules(suit_order="cdhs")) < combo("3c")
    assert not bigtwo_beats(pair, single)
    assert bigtwo_beats(combo("3c"), combo("3d"))
    assert not bigtwo_beats(combo("3d"), combo("3c"))


def brute_force_plays(hand: list[Card], rules: BigTwoRules) -> set[frozenset[Card]]:
    return {
        frozenset(cards)
        for size in range(1, 6)
        for cards in combinations(hand, size)
        if bigtwo_combo(cards, rules) is not None
    }


@pytest.mark.parametrize("seed", range(6))
def test_all_combos_match_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    rules = rng.choice(ALL_RULES)
    # Skew some hands towards one suit or few ranks so flushes and quads show up.
    deck = list(DECK)
    if seed % 3 == 1:
        deck = [c for c in DECK if c.suit in (0, 1)]
    elif seed % 3 == 2:
        deck = [c for c in DECK if c.rank is not None and c.rank < 5]
    hand = rng.sample(deck, 13)
    found = bigtwo_all_combos(hand, rules)
    assert len({frozenset(c.cards) for c in found}) == len(found)  # no play twice
    assert {frozenset(c.cards) for c in found} == brute_force_plays(hand, rules)
    keys = [c.key for c in found]
    assert keys == sorted(keys)


def test_all_combos_of_one_suit() -> None:
    spades = [c for c in DECK if c.suit == 3]
    found = bigtwo_all_combos(spades)
    assert sum(c.size == 5 for c in found) == 1287  # every 5 of 13 is a flush or a run
    assert sum(c.kind is BigTwoKind.STRAIGHT_FLUSH for c in found) == 10


def test_permutation_invariance() -> None:
    cards = parse_cards("Ac2d3h4s5c")
    keys = {combo("".join(str(c) for c in p)).key for p in permutations(cards)}
    assert len(keys) == 1


def test_bad_input() -> None:
    with pytest.raises(EvaluationError):
        bigtwo_combo("AsAs")
    with pytest.raises(EvaluationError):
        bigtwo_combo("As??")
    with pytest.raises(ValueError, match="unknown card"):
        bigtwo_card_key(parse_cards("??")[0])


def test_describe_hand() -> None:
    assert describe_hand("poker", "As Ks Qs Js Ts") == (
        "royal flush (rank 7462 of 7462): A♠ K♠ Q♠ J♠ 10♠"
    )
    assert describe_hand("seveneight", "7h 8d As") == (
        "seven-eight (rank 168 of 169): 8♦ 7♥, third card A♠ (breaks ties)")
    assert describe_hand("bigtwo", "2c3d4h5s6c") == (
        "straight 2-3-4-5-6, 2♣ high: 2♣ 6♣ 5♠ 4♥ 3♦")
    vietnamese = BigTwoRules(straights=Straights.VIETNAMESE)
    with pytest.raises(ValueError, match="no Big Two play: 5 cards make a play only as a "
                                         "straight \\(straights = vietnamese"):
        describe_hand("bigtwo", "2c3d4h5s6c", vietnamese)
    with pytest.raises(ValueError, match="unknown game"):
        describe_hand("chess", "As")
    with pytest.raises(ValueError, match="5 to 26 cards"):
        describe_hand("poker", "AsKs")
    with pytest.raises(ValueError, match="not a card"):
        describe_hand("poker", "AsKsQsJsXx")


@pytest.mark.parametrize(("game", "cards", "expected"), [
    # Big Two under the default rules (suits ♦ < ♣ < ♥ < ♠, 2 the highest rank).
    ("bigtwo", "3d 3c", "pair of 3s, 3♣ high: 3♣ 3♦"),
    ("bigtwo", "2s", "single 2♠"),
    ("bigtwo", "9c 9d 9h", "three 9s: 9♥ 9♣ 9♦"),
    ("bigtwo", "3d 4c 5h 6s 7d", "straight 3-4-5-6-7, 7♦ high: 7♦ 6♠ 5♥ 4♣ 3♦"),
    ("bigtwo", "Ac 2d 3h 4s 5c", "straight A-2-3-4-5, 2♦ high: 2♦ A♣ 5♣ 4♠ 3♥"),
    ("bigtwo", "Th Jd Qc Ks Ah", "straight 10-J-Q-K-A, A♥ high: A♥ K♠ Q♣ J♦ 10♥"),
    ("bigtwo", "Ah Kh 9h 5h 3h", "flush in ♥, ace high: A♥ K♥ 9♥ 5♥ 3♥"),
    ("bigtwo", "8c 8d 8s 4h 4c", "full house, 8s over 4s: 8♠ 8♣ 8♦ 4♥ 4♣"),
    ("bigtwo", "9c 9d 9h 9s 3d", "four 9s with 3♦: 9♠ 9♥ 9♣ 9♦ 3♦"),
    ("bigtwo", "9h 8h 7h 6h 5h", "straight flush 5-6-7-8-9, 9♥ high: 9♥ 8♥ 7♥ 6♥ 5♥"),
    # Poker (Rummoli's poker hand): the category and what makes it.
    ("poker", "Ks 9d 7c 4d 2h", "high card, king high (rank 502 of 7462): K♠ 9♦ 7♣ 4♦ 2♥"),
    ("poker", "Qs Qd 7c 4d 2h", "pair of queens"),
    ("poker", "As Ad 7c 7d 2h", "two pair, aces and 7s (rank 4919 of 7462): A♠ A♦ 7♦ 7♣ 2♥"),
    ("poker", "Ts Td Tc 4d 2h", "three of a kind, 10s"),
    ("poker", "5s 4d 3c 2d Ah", "straight, 5 high (rank 5854 of 7462): 5♠ 4♦ 3♣ 2♦ A♥"),
    ("poker", "Ks 9s 7s 4s 2s", "flush, king high"),
    ("poker", "Ks Kd Kc 4d 4h", "full house, kings over 4s"),
    ("poker", "Js Jd Jc Jh 4h", "four of a kind, jacks"),
    ("poker", "9s 8s 7s 6s 5s", "straight flush, 9 high"),
    ("seveneight", "7c 8d", "seven-eight (rank 168 of 169): 8♦ 7♣"),
])
def test_descriptions_are_words_not_keys(game: str, cards: str, expected: str) -> None:
    text = describe_hand(game, cards)
    assert text.startswith(expected), text
    assert "key" not in text and "value" not in text and "(" not in text.split(":")[-1]


def test_two_pairs_description_under_four_card_plays() -> None:
    rules = BigTwoRules(four_card_plays=True)
    assert describe_hand("bigtwo", "Ks Kd 4c 4h", rules) == (
        "two pairs, kings and 4s, K♠ high: K♠ K♦ 4♥ 4♣")
    assert describe_hand("bigtwo", "9s 9d 9c 9h", rules) == "four 9s: 9♠ 9♥ 9♣ 9♦"
