"""All-in adjusted results: which hands qualify, pots and side pots, expected against actual."""

from __future__ import annotations

import dataclasses

import pytest

from analytics.equity import allin_adjusted, allin_moment, seveneight_equity
from analytics.rules import replay
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory, loads_hands
from parsers.cards import UNKNOWN as _UNKNOWN


def hand_from(actions: list[str], stacks: str, blinds: str) -> HandHistory:
    count = stacks.count(",") + 1
    antes = ", ".join(["0"] * count)
    body = "".join(f'  "{a}",\n' for a in actions)
    text = (f'variant = "N78"\nantes = [{antes}]\nblinds_or_straddles = [{blinds}]\n'
            f"min_bet = 2\nstarting_stacks = [{stacks}]\nactions = [\n{body}]\n")
    return loads_hands(text, strict=True)[0]


HEADS_UP = hand_from([
    "d dh p1 7h9c", "d dh p2 AsKs", "p1 up 9c", "p2 up As",
    "p2 cbr 100", "p1 cc",  # heads-up: the button p2 acts first in round 1
    "d dh p1 2c", "d dh p2 3h",
    "p1 sm 7h9c2c", "p2 sm AsKs3h",
], stacks="100, 100", blinds="2, 1")

SIDE_POT = hand_from([
    "d dh p1 7c8d", "d dh p2 AsKs", "d dh p3 5d9d",
    "p1 up 7c", "p2 up As", "p3 up 9d",
    "p3 cbr 200", "p1 cc", "p2 cc",
    "d dh p1 2c", "d dh p2 3h", "d dh p3 Th",
    "p1 sm 7c8d2c", "p2 sm AsKs3h", "p3 sm 5d9dTh",
], stacks="50, 100, 200", blinds="1, 2, 0")

ROUND_TWO = hand_from([
    "d dh p1 7c8d", "d dh p2 AsKs", "p1 up 7c", "p2 up As",
    "p2 cc", "p1 cc",
    "d dh p1 2c", "d dh p2 3h",
    "p1 cbr 98", "p2 cc",
    "p1 sm 7c8d2c", "p2 sm AsKs3h",
], stacks="100, 100", blinds="2, 1")


def test_heads_up_all_in_expectation_is_equity_times_pot() -> None:
    result = allin_adjusted(HEADS_UP)
    assert result is not None and result.exact
    equity = seveneight_equity(["7h9c", "AsKs"])
    assert result.pot == 200 and result.pots == 1
    first, second = result.players
    assert first.equity == pytest.approx(equity.equity[0])
    assert first.expected_won == pytest.approx(200 * equity.equity[0])
    assert first.expected_net == pytest.approx(200 * equity.equity[0] - 100)
    outcome = replay(HEADS_UP)
    assert (first.actual_net, second.actual_net) == outcome.nets
    assert first.luck + second.luck == pytest.approx(0.0)
    assert first.luck == pytest.approx(first.actual_net - first.expected_net)


def test_side_pot_equity_is_computed_among_its_eligible_players() -> None:
    result = allin_adjusted(SIDE_POT)
    assert result is not None and result.exact and result.pots == 2
    # p3's raise to 200 is called to 100 at most: 100 comes back uncalled.
    p1, p2, p3 = result.players
    assert (p1.contributed, p2.contributed, p3.contributed) == (50, 100, 200)
    assert (p1.refund, p2.refund, p3.refund) == (0, 0, 100)
    main = seveneight_equity(["7c8d", "AsKs", "5d9d"])
    side = seveneight_equity(["AsKs", "5d9d"], dead="7c8d")
    assert p1.expected_won == pytest.approx(150 * main.equity[0])
    assert p2.expected_won == pytest.approx(150 * main.equity[1] + 100 * side.equity[0])
    assert p3.expected_won == pytest.approx(150 * main.equity[2] + 100 * side.equity[1])
    assert result.pot == 250
    assert sum(p.expected_won for p in result.players) == pytest.approx(250)
    assert sum(p.luck for p in result.players) == pytest.approx(0.0)
    assert tuple(p.actual_net for p in result.players) == replay(SIDE_POT).nets


def test_side_pot_uses_exactly_the_main_pot_players_cards_as_unseen() -> None:
    # The side pot is between p2 and p3 only, but p1's cards are still out of the deck:
    # the enumeration deals all three third cards together.
    result = allin_adjusted(SIDE_POT)
    assert result is not None and result.deals == 46 * 45 * 44


def test_hands_with_round_two_betting_do_not_qualify() -> None:
    assert allin_moment(ROUND_TWO) is None
    assert allin_adjusted(ROUND_TWO) is None
    folded = hand_from(["d dh p1 7c8d", "d dh p2 AsKs", "p1 up 7c", "p2 up As", "p2 f"],
                       stacks="100, 100", blinds="2, 1")
    assert allin_adjusted(folded) is None


def test_outcome_shortcut_equals_full_replay() -> None:
    hands = list(simulate_seveneight(400, 3, 5))
    found = 0
    for hand in hands:
        outcome = replay(hand)
        quick = allin_adjusted(hand, outcome)
        slow = allin_adjusted(hand, dataclasses.replace(outcome, extra={}))
        assert quick == slow
        if quick is not None:
            found += 1
            assert sum(p.luck for p in quick.players) == pytest.approx(0.0, abs=1e-6)
            assert all(0.0 <= p.equity <= 1.0 for p in quick.players)
            assert tuple(p.actual_net for p in quick.players) == tuple(
                outcome.nets[p.seat - 1] for p in quick.players)
    assert found > 20


def test_folded_cards_count_only_when_asked() -> None:
    """A folded player's up card (7c, turned up for the table) is always out of the deck;
    his down card (8d) only when asked: 47 x 46 deals, or 46 x 45."""
    hand = hand_from([
        "d dh p1 7c8d", "d dh p2 AsKs", "d dh p3 5d9d",
        "p1 up 7c", "p2 up As", "p3 up 9d",
        "p3 cbr 100", "p1 f", "p2 cc",
        "d dh p2 3h", "d dh p3 Th",
        "p2 sm AsKs3h", "p3 sm 5d9dTh",
    ], stacks="100, 100, 100", blinds="1, 2, 0")
    plain = allin_adjusted(hand)
    informed = allin_adjusted(hand, use_folded_cards=True)
    assert plain is not None and informed is not None
    assert plain.deals == 47 * 46 and informed.deals == 46 * 45
    assert plain.players[0].equity == pytest.approx(
        seveneight_equity(["AsKs", "5d9d"], dead="7c").equity[0])
    assert informed.players[0].equity == pytest.approx(
        seveneight_equity(["AsKs", "5d9d"], dead="7c8d").equity[0])


@pytest.mark.slow
def test_monte_carlo_beyond_the_budget_reports_a_standard_error() -> None:
    exact = allin_adjusted(SIDE_POT)
    estimate = allin_adjusted(SIDE_POT, budget=10, samples=100_000, seed=2)
    assert exact is not None and estimate is not None and not estimate.exact
    # p1's seven-eight cannot lose the main pot: no error there, but p2 and p3 vary.
    assert [m.std_error > 0 for m in estimate.players] == [False, True, True]
    for e, m in zip(exact.players, estimate.players, strict=True):
        assert abs(m.expected_won - e.expected_won) < 4 * m.std_error + 1e-9


def test_many_spots_solved_together_give_each_spot_alone_results() -> None:
    # Simulated all-ins (heads-up to six players, side pots), the hands above, and spots
    # outside the stacked kernel: an unseen hole card (two cards to come for that player)
    # and a budget too small for exact enumeration (Monte Carlo, seeded per spot).
    from analytics.equity.allin import allin_adjusted_many, allin_spot

    hands = [hand for players in (2, 4, 6) for hand in simulate_seveneight(150, players, 11)
             if allin_moment(hand) is not None]
    hands += [HEADS_UP, SIDE_POT]
    hidden = HEADS_UP.actions[0].cards[0]
    unseen = dataclasses.replace(HEADS_UP, actions=tuple(
        dataclasses.replace(action, cards=(action.cards[0], _UNKNOWN)) if index == 0
        else action for index, action in enumerate(HEADS_UP.actions)))
    assert hidden != _UNKNOWN and allin_moment(unseen) is not None
    hands.append(unseen)
    assert len(hands) > 20
    spots = [allin_spot(hand, replay(hand)) for hand in hands]
    assert all(spot is not None for spot in spots)
    seeds = list(range(len(hands)))
    together = allin_adjusted_many([spot for spot in spots if spot is not None], seeds)
    alone = [allin_adjusted(hand, replay(hand), seed=seed)
             for hand, seed in zip(hands, seeds, strict=True)]
    assert together == alone
    assert any(result is not None and len(result.players) > 2 for result in alone)
    small = allin_adjusted_many([spot for spot in spots[:3] if spot is not None], [5, 6, 7],
                                budget=10, samples=1_000)
    assert small == [allin_adjusted(hand, replay(hand), seed=seed, budget=10, samples=1_000)
                     for hand, seed in zip(hands[:3], [5, 6, 7], strict=True)]
    assert not any(result.exact for result in small)
