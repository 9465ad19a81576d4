"""The shared betting round and pot settlement (analytics.rules.betting / .pots)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules.base import PotAward
from analytics.rules.betting import BettingError, BettingRound
from analytics.rules.pots import NoContenderError, award_pots, build_pots, settle
from parsers.rule_options import Betting

NL, PL, FL = Betting.NO_LIMIT, Betting.POT_LIMIT, Betting.FIXED_LIMIT


def preflop(stacks: list[int], structure: Betting = NL, bb: int = 2) -> BettingRound:
    """Hold'em-style round 1: p1 small blind, p2 big blind, first to act p3 (or p1 heads-up)."""
    sb = bb // 2
    committed = [sb, bb] + [0] * (len(stacks) - 2)
    behind = [s - c for s, c in zip(stacks, committed, strict=True)]
    order = [*list(range(2, len(stacks))), 0, 1]
    return BettingRound(behind, committed, [True] * len(stacks), order, structure, bb)


def expect(message: str, call: object, *args: object) -> BettingError:
    assert callable(call)
    with pytest.raises(BettingError, match=message) as info:
        call(*args)
    return info.value


# ------------------------------------------------------------------ sizes


def test_minimum_raise_is_the_big_blind_then_the_last_raise() -> None:
    rnd = preflop([100, 100, 100])
    assert rnd.actor == 2
    assert rnd.min_bet_or_raise_to() == 4
    expect("raise to 3 is below the minimum raise to 4", rnd.bet_or_raise_to, 3)
    rnd.bet_or_raise_to(7)  # a raise of 5
    assert rnd.actor == 0
    assert rnd.min_bet_or_raise_to() == 12
    expect("raise to 11 is below the minimum raise to 12", rnd.bet_or_raise_to, 11)
    rnd.bet_or_raise_to(12)
    assert rnd.min_bet_or_raise_to() == 17


def test_minimum_bet_in_an_unopened_round() -> None:
    rnd = BettingRound([50, 50], [0, 0], [True, True], [0, 1], NL, 4)
    err = expect("bet of 3 is below the minimum bet of 4", rnd.bet_or_raise_to, 3)
    assert err.rule == "min-bet"
    expect("does not exceed the current bet of 0", rnd.bet_or_raise_to, 0)
    rnd.check_or_call()
    rnd.check_or_call()
    assert rnd.is_over
    assert rnd.committed == [0, 0]


def test_all_in_for_less_than_a_minimum_raise_is_allowed() -> None:
    rnd = preflop([100, 100, 5])
    assert rnd.min_bet_or_raise_to() == 4
    rnd = preflop([100, 100, 3])
    assert rnd.min_bet_or_raise_to() == 3
    rnd.bet_or_raise_to(3)
    assert rnd.stacks[2] == 0


def test_cannot_bet_more_than_the_stack() -> None:
    rnd = preflop([100, 100, 30])
    expect("raise to 31 is more than p3 has: 30 in all", rnd.bet_or_raise_to, 31)


def test_pot_limit_maximum_is_the_pot_after_calling() -> None:
    rnd = preflop([100, 100, 100], PL)
    # pot 3, call 2 -> pot after calling 5; raise to 2 + 5 = 7
    assert rnd.max_bet_or_raise_to() == 7
    expect("pot limit: raise to 8 is above the pot limit of 7", rnd.bet_or_raise_to, 8)
    rnd.bet_or_raise_to(7)
    # p1 (sb 1): pot 10, call 6 -> 16; raise to 7 + 16 = 23
    assert rnd.max_bet_or_raise_to() == 23


def test_pot_limit_counts_the_pot_of_earlier_rounds() -> None:
    rnd = BettingRound([50, 50], [0, 0], [True, True], [0, 1], PL, 2, pot=12)
    assert rnd.max_bet_or_raise_to() == 12
    rnd.bet_or_raise_to(12)
    assert rnd.max_bet_or_raise_to() == 12 + 12 + 12 + 12


def test_fixed_limit_exact_size_and_cap() -> None:
    rnd = preflop([100, 100, 100], FL)
    expect("fixed limit: a raise must be to exactly 4, not 6", rnd.bet_or_raise_to, 6)
    rnd.bet_or_raise_to(4)
    rnd.bet_or_raise_to(6)
    rnd.bet_or_raise_to(8)  # the big blind was the bet: three raises reach the cap
    assert rnd.actor == 2
    assert rnd.min_bet_or_raise_to() is None
    err = expect("capped at one bet and 3 raises", rnd.bet_or_raise_to, 10)
    assert err.rule == "cap"
    rnd.check_or_call()
    rnd.check_or_call()
    assert rnd.is_over
    assert rnd.committed == [8, 8, 8]


def test_fixed_limit_second_round_uses_the_big_bet() -> None:
    rnd = BettingRound([50, 50], [0, 0], [True, True], [0, 1], FL, 4)
    assert (rnd.min_bet_or_raise_to(), rnd.max_bet_or_raise_to()) == (4, 4)
    for total in (4, 8, 12, 16):
        rnd.bet_or_raise_to(total)
    assert rnd.min_bet_or_raise_to() is None


# ------------------------------------------------------------------ reopening


def test_short_all_in_does_not_reopen_for_players_who_acted() -> None:
    rnd = BettingRound([100, 15, 100], [0, 0, 0], [True] * 3, [0, 1, 2], NL, 10)
    rnd.bet_or_raise_to(10)
    rnd.bet_or_raise_to(15)  # p2 all in, 5 short of a full raise
    assert rnd.min_bet_or_raise_to() == 25  # p3 has not acted: he may raise
    rnd.check_or_call()
    assert rnd.actor == 0
    assert rnd.legal_actions() is not None
    assert rnd.min_bet_or_raise_to() is None
    err = expect("the betting was not reopened", rnd.bet_or_raise_to, 30)
    assert err.rule == "reopen"
    rnd.check_or_call()
    assert rnd.is_over


def test_short_all_ins_that_add_up_to_a_full_raise_reopen() -> None:
    rnd = BettingRound([100, 15, 22, 100], [0, 0, 0, 0], [True] * 4, [0, 1, 2, 3], NL, 10)
    rnd.bet_or_raise_to(10)
    rnd.bet_or_raise_to(15)
    rnd.bet_or_raise_to(22)  # 12 over p1's 10: a full raise in all
    rnd.check_or_call()
    assert rnd.actor == 0
    assert rnd.min_bet_or_raise_to() == 32
    rnd.bet_or_raise_to(40)


def test_big_blind_keeps_his_option() -> None:
    rnd = preflop([100, 100, 100])
    rnd.check_or_call()
    rnd.check_or_call()
    assert rnd.actor == 1
    assert rnd.to_call() == 0
    assert rnd.min_bet_or_raise_to() == 4
    rnd.check_or_call()
    assert rnd.is_over


# ------------------------------------------------------------------ turn and ending


def test_fold_is_allowed_when_checking_is_possible() -> None:
    rnd = BettingRound([50, 50, 50], [0, 0, 0], [True] * 3, [0, 1, 2], NL, 2)
    assert rnd.can_fold()
    assert rnd.to_call() == 0
    rnd.fold()
    assert rnd.in_hand == [False, True, True]


def test_acting_out_of_turn_is_rejected() -> None:
    rnd = preflop([100, 100, 100])
    err = expect("it is p3's turn to act, not p1's", rnd.fold, 0)
    assert err.rule == "turn"
    assert not rnd.can_check_or_call(1)
    assert rnd.can_check_or_call(2)


def test_round_ends_when_one_player_is_left() -> None:
    rnd = preflop([100, 100, 100])
    rnd.bet_or_raise_to(10)
    rnd.fold()
    rnd.fold()
    assert rnd.is_over
    assert rnd.players_in == 1
    expect("the betting round is over", rnd.check_or_call)


def test_no_raise_that_nobody_can_call() -> None:
    # p2 is all in for less: p1 may call but may not raise.
    rnd = BettingRound([100, 8], [0, 0], [True, True], [1, 0], NL, 2)
    rnd.bet_or_raise_to(8)
    assert rnd.actor == 0
    err = expect("no other player can call any part of it", rnd.bet_or_raise_to, 20)
    assert err.rule == "uncallable"
    rnd.check_or_call()
    assert rnd.is_over
    assert rnd.committed == [8, 8]


def test_last_player_who_owes_nothing_does_not_check() -> None:
    # Everyone else is all in from an earlier round: nobody acts at all.
    rnd = BettingRound([40, 0, 0], [0, 0, 0], [True] * 3, [0, 1, 2], NL, 2)
    assert rnd.is_over
    assert rnd.actor is None
    # The last live player owes chips: he must still call or fold.
    rnd = BettingRound([40, 5, 60], [0, 0, 0], [True] * 3, [0, 1, 2], NL, 2)
    rnd.bet_or_raise_to(40)
    rnd.check_or_call()  # p2 all in for 5
    assert rnd.actor == 2
    rnd.check_or_call()
    assert rnd.is_over


def test_everyone_all_in_after_the_blinds_ends_the_round() -> None:
    rnd = BettingRound([0, 0], [1, 2], [True, True], [0, 1], NL, 2)
    assert rnd.is_over


# ------------------------------------------------------------------ property


def play_randomly(rnd: BettingRound, rng: random.Random) -> int:
    """Play a round with random legal decisions; return the number of actions."""
    steps = 0
    while not rnd.is_over:
        legal = rnd.legal_actions()
        assert legal is not None
        assert legal.player == rnd.actor
        choice = rng.random()
        if choice < 0.15:
            rnd.fold()
        elif legal.min_to is not None and legal.max_to is not None and choice < 0.55:
            amount = rng.randint(legal.min_to, legal.max_to)
            assert rnd.can_bet_or_raise_to(amount)
            rnd.bet_or_raise_to(amount)
        else:
            rnd.check_or_call()
        steps += 1
        assert steps < 500, "a betting round must end"
    return steps


@settings(max_examples=300, deadline=None)
@given(
    stacks=st.lists(st.integers(0, 60), min_size=2, max_size=9),
    structure=st.sampled_from([NL, PL, FL]),
    min_bet=st.integers(1, 6),
    blinds=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_legal_play_conserves_chips(
    stacks: list[int], structure: Betting, min_bet: int, blinds: bool, seed: int
) -> None:
    count = len(stacks)
    committed = [0] * count
    if blinds:
        committed[0] = min(stacks[0], max(1, min_bet // 2))
        committed[1] = min(stacks[1], min_bet)
    behind = [s - c for s, c in zip(stacks, committed, strict=True)]
    order = [*list(range(2, count)), 0, 1] if blinds else list(range(count))
    rnd = BettingRound(behind, committed, [True] * count, order, structure, min_bet, pot=3)
    play_randomly(rnd, random.Random(seed))
    assert [s + c for s, c in zip(rnd.stacks, rnd.committed, strict=True)] == stacks
    assert all(s >= 0 for s in rnd.stacks)
    # Everyone still in with chips behind has matched the bet, unless he is the only one.
    live = [p for p in range(count) if rnd.in_hand[p] and rnd.stacks[p] > 0]
    if rnd.players_in > 1 and len(live) > 1:
        assert all(rnd.committed[p] == rnd.current_bet for p in live)
    # Settle with random strengths: the nets sum to zero and nobody wins more than is in.
    strengths: list[int | None] = [random.Random(seed + p).randint(0, 3) for p in range(count)]
    result = settle(rnd.committed, rnd.in_hand, strengths, list(range(count)))
    assert sum(result.nets) == 0
    assert sum(a.amount for a in result.awards) + sum(result.refunds) == sum(rnd.committed)
    for p in range(count):
        if not rnd.in_hand[p]:
            assert result.won[p] == 0


# ------------------------------------------------------------------ pots


def test_uncalled_chips_go_back_to_the_bettor() -> None:
    layout = build_pots([10, 30, 4], [True, True, False])
    assert layout.refunds == (0, 20, 0)
    assert [(p.name, p.amount, p.eligible) for p in layout.pots] == [("main", 24, (0, 1))]


def test_side_pots_with_three_all_ins() -> None:
    # p1 all in 20, p2 all in 50, p3 and p4 100; p4 folded at 60.
    result = settle([20, 50, 100, 60], [True, True, True, False], [9, 5, 1, None],
                    [0, 1, 2, 3])
    assert [(p.name, p.amount, p.eligible) for p in result.pots] == [
        ("main", 80, (0, 1, 2)),
        ("side1", 90, (1, 2)),
        ("side2", 20, (2,)),
    ]
    assert result.refunds == (0, 0, 40, 0)
    assert result.awards == (PotAward("main", 1, 80), PotAward("side1", 2, 90),
                             PotAward("side2", 3, 20))
    assert result.nets == (60, 40, -40, -60)


def test_odd_chip_goes_to_the_first_winner_in_the_given_order() -> None:
    pots = build_pots([5, 5, 5], [True, True, True]).pots
    awards = award_pots(pots, [3, 1, 3], odd_chip_order=[2, 0, 1])
    assert awards == (PotAward("main", 3, 8), PotAward("main", 1, 7))
    awards = award_pots(pots, [3, 3, 3], odd_chip_order=[1, 2, 0])
    assert awards == (PotAward("main", 2, 5), PotAward("main", 3, 5), PotAward("main", 1, 5))


def test_dead_money_joins_the_main_pot() -> None:
    result = settle([10, 4, 10], [True, False, True], [7, None, 7], [1, 2, 0], dead=9,
                    main="poker", side="poker_side")
    assert result.awards == (PotAward("poker", 3, 17), PotAward("poker", 1, 16))
    assert result.nets == (6, -4, 7)
    assert sum(result.nets) == 9


def test_dead_money_with_an_all_in_player() -> None:
    result = settle([3, 10, 10], [True, True, True], [9, 1, 0], [0, 1, 2], dead=6,
                    main="poker", side="poker_side")
    assert [(p.name, p.amount) for p in result.pots] == [("poker", 15), ("poker_side1", 14)]
    assert result.nets == (12, 4, -10)


def test_pot_nobody_contests_is_an_error() -> None:
    pots = build_pots([10, 10], [True, True]).pots
    with pytest.raises(NoContenderError, match="nobody contests the main pot of 20"):
        award_pots(pots, [None, None], [0, 1])


def test_single_player_left_wins_without_strength() -> None:
    result = settle([1, 6, 2], [False, True, False], [None, None, None], [0, 1, 2])
    assert result.refunds == (0, 4, 0)
    assert result.awards == (PotAward("main", 2, 5),)
    assert result.nets == (-1, 3, -2)
