"""7 & 8 equity: exact enumeration against brute force, Monte Carlo against exact."""

from __future__ import annotations

import random
from itertools import combinations, permutations

import numpy as np
import pytest

from analytics.equity import kernels
from analytics.equity.seveneight import (
    NO_AMOUNTS,
    NO_POTS,
    seveneight_equity,
    seveneight_spot,
    seveneight_table,
    seveneight_view,
    single_slot_values,
)
from analytics.evaluator import EvaluationError, seveneight_rank
from parsers.cards import DECK, UNKNOWN, Card, parse_cards


def brute_force(hands: list[str], dead: str = "") -> tuple[list[float], list[float], int]:
    """Equity and outright wins by dealing every completion with the scalar evaluator."""
    parsed = [[c for c in parse_cards(h) if c.is_known] for h in hands]
    missing = [3 - len(h) for h in parsed]
    seen = {c for h in parsed for c in h} | set(parse_cards(dead))
    pool = [c for c in DECK if c not in seen]
    equity = [0.0] * len(hands)
    wins = [0.0] * len(hands)
    deals = 0

    def deal(player: int, left: list[Card], done: list[list[Card]]) -> None:
        nonlocal deals
        if player == len(hands):
            values = [seveneight_rank(cards).value for cards in done]
            best = max(values)
            winners = [i for i, v in enumerate(values) if v == best]
            for i in winners:
                equity[i] += 1 / len(winners)
                if len(winners) == 1:
                    wins[i] += 1
            deals += 1
            return
        for extra in combinations(left, missing[player]):
            rest = [c for c in left if c not in extra]
            deal(player + 1, rest, [*done, parsed[player] + list(extra)])

    deal(0, pool, [])
    return [e / deals for e in equity], [w / deals for w in wins], deals


def test_heads_up_one_card_to_come_matches_brute_force() -> None:
    hands = ["7h9c", "AsKs"]
    result = seveneight_equity(hands)
    equity, wins, deals = brute_force(hands)
    assert result.exact and result.deals == deals == 48 * 47
    assert result.equity == pytest.approx(equity, abs=1e-12)
    assert result.win == pytest.approx(wins, abs=1e-12)
    assert sum(result.equity) == pytest.approx(1.0)


def dead_leaving(hands: list[str], unseen: int, seed: int) -> str:
    """Dead cards (chosen at random) that leave ``unseen`` cards, to keep brute force small."""
    known = {c for h in hands for c in parse_cards(h) if c.is_known}
    rest = [c for c in DECK if c not in known]
    return "".join(str(c) for c in random.Random(seed).sample(rest, len(rest) - unseen))


@pytest.mark.slow
@pytest.mark.parametrize(("hands", "unseen"), [
    # Unseen hole cards (a player's view); dead cards keep the brute force small.
    (["7c8d", "As??"], 14),
    (["7c??", "5d??", "Kh"], 9),
    (["????", "8s8h", "6d9c"], 10),
    (["7c8d", "6s9h", "5c", "Th"], 9),
    # Round 2: three known cards against a hidden hand.
    (["7c8c2d", "As????"], 16),
    (["7c8c2d", "AsKh", "5d9d"], 12),
])
def test_general_spots_match_brute_force(hands: list[str], unseen: int) -> None:
    for seed in range(3):
        dead = dead_leaving(hands, unseen, seed)
        result = seveneight_equity(hands, dead=dead)
        equity, wins, deals = brute_force(hands, dead)
        assert result.exact and result.deals == deals
        assert result.equity == pytest.approx(equity, abs=1e-12)
        assert result.win == pytest.approx(wins, abs=1e-12)


def test_exact_tie_splits_the_pot() -> None:
    result = seveneight_equity(["AhKd2c", "AcKh2d"])
    assert result.equity == pytest.approx((0.5, 0.5))
    assert result.tie == pytest.approx((1.0, 1.0))
    assert result.win == (0.0, 0.0)


@pytest.mark.slow
def test_fast_single_slot_path_equals_general_kernel() -> None:
    # Random multiway spots: the counting kernel and the plain enumeration agree, for
    # equity and for side pots.
    rng = random.Random(7)
    table = seveneight_table()
    for _ in range(40):
        players = rng.choice([2, 3, 4])
        deck = list(DECK)
        rng.shuffle(deck)
        hands = [deck[2 * i:2 * i + 2] for i in range(players)]
        if rng.random() < 0.5:  # one player already has his third card
            hands[0] = [*hands[0], deck[45]]
        spot = seveneight_spot(hands, street=2 if any(len(h) == 3 for h in hands) else 1)
        if not spot.single_slot:
            continue
        values = single_slot_values(spot)
        fast = [np.zeros(players) for _ in range(3)]
        slow = [np.zeros(players) for _ in range(3)]
        d1 = kernels.single_slot_exact(values, spot.owner, NO_POTS, NO_AMOUNTS, *fast)
        d2 = kernels.seveneight_exact(spot.cards.copy(), spot.owner, spot.pos, spot.pool,
                                       table, *slow)
        assert d1 == d2
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_allclose(a / d1, b / d2, atol=1e-12)
        eligible = np.ones((2, players), dtype=np.bool_)
        eligible[1, rng.randrange(players)] = False
        amounts = np.array([30.0, 11.0])
        e1, e2 = np.zeros(players), np.zeros(players)
        kernels.single_slot_exact(values, spot.owner, eligible, amounts, e1,
                                   np.zeros(players), np.zeros(players))
        kernels.seveneight_pots(spot.cards.copy(), spot.owner, spot.pos, spot.pool, table,
                                 eligible, amounts, e2)
        np.testing.assert_allclose(e1 / d1, e2 / d2, atol=1e-9)
        assert e1.sum() / d1 == pytest.approx(41.0)


def test_monte_carlo_is_within_a_few_standard_errors_of_exact() -> None:
    hands = ["7h9c", "As??", "5d6d"]
    exact = seveneight_equity(hands, method="exact")
    estimate = seveneight_equity(hands, method="monte_carlo", samples=200_000, seed=11)
    assert exact.exact and not estimate.exact
    for mean, truth, error in zip(estimate.equity, exact.equity, estimate.std_error,
                                  strict=True):
        assert 0 < error < 0.005
        assert abs(mean - truth) < 4 * error
    assert sum(estimate.equity) == pytest.approx(1.0)


def test_monte_carlo_depends_on_the_seed_only() -> None:
    one = seveneight_equity(["7h9c", "As??"], method="monte_carlo", samples=5_000, seed=3)
    two = seveneight_equity(["7h9c", "As??"], method="monte_carlo", samples=5_000, seed=3)
    other = seveneight_equity(["7h9c", "As??"], method="monte_carlo", samples=5_000, seed=4)
    assert one == two
    assert one.equity != other.equity


def test_budget_switches_to_monte_carlo() -> None:
    hands = ["7h9c", "As??", "Kd??"]
    assert seveneight_equity(hands, budget=1000, samples=1000).exact is False
    assert seveneight_equity(["7h9c", "AsKd"], budget=1000).exact is False
    assert seveneight_equity(["7h9c", "AsKd"]).exact is True


def test_view_hides_other_players_hole_cards() -> None:
    holes = [list(parse_cards("7c8c2d")), list(parse_cards("AsKsQh"))]
    ups = [holes[0][0], holes[1][0]]
    assert seveneight_view(holes, ups, 1) == [tuple(holes[0][:2]), tuple(holes[1][:2])]
    mine = seveneight_view(holes, ups, 2, viewer=0)
    assert mine == [tuple(holes[0]), (holes[1][0], UNKNOWN, UNKNOWN)]
    result = seveneight_equity(mine, street=2)
    assert result.exact and result.deals == 48 * 47 // 2


@pytest.mark.parametrize(("hands", "dead", "street", "message"), [
    (["7c8c"], "", None, "at least two players"),
    (["7c8c", "7c9d"], "", None, "given twice"),
    (["7c8c", "9d9h"], "9d", None, "given twice"),
    (["7c8c2d", "9d9h"], "", 1, "at most 2"),
    (["7c8c", "9d9h"], "", 3, "street"),
    (["7c8c", "9d9h"], "??", None, "dead cards must be known"),
    (["7c8c", "Xx"], "", None, "player 2"),
])
def test_impossible_spots_are_rejected(hands: list[str], dead: str, street: int | None,
                                       message: str) -> None:
    with pytest.raises(EvaluationError, match=message):
        seveneight_equity(hands, dead=dead, street=street)


def test_table_agrees_with_scalar_evaluator() -> None:
    table = seveneight_table()
    rng = random.Random(5)
    for _ in range(500):
        a, b, c = rng.sample(range(52), 3)
        assert table[a * 2704 + b * 52 + c] == seveneight_rank([DECK[a], DECK[b], DECK[c]]).value
    for triple in permutations((0, 17, 40)):
        assert table[triple[0] * 2704 + triple[1] * 52 + triple[2]] == table[17 * 52 + 40]
