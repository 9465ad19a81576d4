"""Big Two bots and simulator: legal, deterministic, replayable, round-tripping histories."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules.bigtwo.engine import BigTwoState, replay
from analytics.simulate.bigtwo import NAMES, simulate_bigtwo
from analytics.simulate.bots_bigtwo import AggressiveBot, SteadyBot, make_bot
from parsers import BigTwoRules, BigTwoScoring, HandHistory, dumps_hands, loads_hands, parse_cards
from parsers.model import Verb


def _check_session(hands: list[HandHistory], games_per_match: int) -> None:
    """Each game replays to its recorded totals; matches chain their totals."""
    previous: HandHistory | None = None
    for number, hand in enumerate(hands, 1):
        outcome = replay(hand)
        assert outcome.finishing_stacks == hand.finishing_stacks
        assert hand.hand == number
        assert hand.players is not None
        assert set(hand.players) <= set(NAMES)
        assert hand.round is not None
        assert 1 <= hand.round <= games_per_match
        if previous is not None and previous.game_id == hand.game_id:
            assert hand.round == previous.round + 1  # type: ignore[operator]
            assert hand.starting_stacks == previous.finishing_stacks
            assert hand.players == previous.players
            assert hand.date is not None and previous.date is not None
            assert (hand.date, hand.time) >= (previous.date, previous.time)
        else:
            assert hand.round == 1
            assert hand.starting_stacks == (0,) * hand.num_players
        previous = hand


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_session_replays_and_round_trips(players: int) -> None:
    hands = list(simulate_bigtwo(30, players, seed=players, games_per_match=7))
    assert len(hands) == 30
    _check_session(hands, 7)
    back = loads_hands(dumps_hands(hands))
    assert all(hand.ok for hand in back)
    assert back == hands
    assert [replay(h).nets for h in back] == [replay(h).nets for h in hands]


def test_same_seed_same_games_other_seed_other_games() -> None:
    first = list(simulate_bigtwo(12, 4, seed=11))
    assert first == list(simulate_bigtwo(12, 4, seed=11))
    assert first != list(simulate_bigtwo(12, 4, seed=12))


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 4))
def test_random_knobs_sessions_replay(seed: int, players: int) -> None:
    hands = list(simulate_bigtwo(6, players, seed=seed, random_knobs=True, games_per_match=3))
    _check_session(hands, 3)
    assert loads_hands(dumps_hands(hands)) == hands


@pytest.mark.parametrize("style", ["steady", "aggressive", "random"])
def test_every_style_plays_whole_legal_games(style: str) -> None:
    hands = list(simulate_bigtwo(8, 4, seed=5, styles=[style] * 4))
    _check_session(hands, 8)


def test_rank_scoring_session_records_everybody() -> None:
    rules = BigTwoRules(scoring=BigTwoScoring.RANK)
    for hand in simulate_bigtwo(5, 4, seed=2, rules=rules):
        outcome = replay(hand)
        assert sorted(outcome.finishing_order) == [1, 2, 3, 4]
        assert hand.finishing_stacks == (0, 0, 0, 0)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        next(simulate_bigtwo(1, 5, seed=0))
    with pytest.raises(ValueError, match="unknown Big Two bot style"):
        make_bot("sneaky")
    with pytest.raises(ValueError, match="styles names 1 bots"):
        next(simulate_bigtwo(1, 2, seed=0, styles=["steady"]))


def _state(*hands: str) -> BigTwoState:
    state = BigTwoState(BigTwoRules(), len(hands))
    for player, text in enumerate(hands, 1):
        state.deal(player, parse_cards(text))
    state.close_deal()
    return state


# Two-player hands with the rest of the deck out of play (deal = thirteen).
STEADY = "3d4d4c5h6s7c8d9hJsQdAh2d2c"
OTHER = "3c5c6d7d8c9cTsJcQcKdKsAc2s"


def test_steady_leads_its_lowest_card_in_the_biggest_combination() -> None:
    state = _state(STEADY, OTHER)
    action = SteadyBot().choose(state, random.Random(0))
    # 3d opens the straight 3d4x5h6s7c: five cards shed, no 2 or ace spent.
    assert action.verb is Verb.PLAY
    assert len(action.cards) == 5
    assert parse_cards("3d")[0] in action.cards


def test_steady_beats_with_the_lowest_single_and_keeps_control_cards() -> None:
    state = _state(STEADY, OTHER)
    state.play(1, parse_cards("3d"))
    state.pass_turn(2)
    state.play(1, parse_cards("Js"))
    # p2 beats Js with the lowest single that does (Qc), not with an ace or a 2.
    action = SteadyBot().choose(state, random.Random(0))
    assert action.cards == parse_cards("Qc")


def test_steady_plays_high_when_an_opponent_is_about_to_go_out() -> None:
    calm = _state(STEADY, OTHER)
    calm.play(1, parse_cards("3d"))
    calm.play(2, parse_cards("5c"))
    assert SteadyBot().choose(calm, random.Random(0)).cards == parse_cards("5h")
    tense = _state(STEADY, OTHER)
    tense.play(1, parse_cards("3d"))
    tense.play(2, parse_cards("5c"))
    # p2 is down to two cards: p1 takes the trick with his strongest single.
    tense.hands[2] = 1 << parse_cards("Ks")[0].code | 1 << parse_cards("2s")[0].code
    assert SteadyBot().choose(tense, random.Random(0)).cards == parse_cards("2c")


def test_aggressive_leads_its_largest_combination() -> None:
    state = _state(STEADY, OTHER)
    action = AggressiveBot().choose(state, random.Random(0))
    assert len(action.cards) == 5
