"""Simulated 7 & 8 sessions: legal, replayable, round-tripping, deterministic, continuous."""

from __future__ import annotations

import datetime as dt
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules import replay
from analytics.rules.seveneight.engine import Phase, SevenEightState
from analytics.simulate.bots_seveneight import LOOSE, TIGHT, SevenEightBot, equity_tables
from analytics.simulate.seveneight import NAMES, simulate_seveneight
from parsers import Verb, dumps_hands, loads_hands, parse_cards
from parsers.rule_options import Betting


@pytest.mark.parametrize("variant", ["N78", "P78", "F78"])
@pytest.mark.parametrize("players", [2, 3, 6, 17])
def test_every_simulated_hand_replays_and_round_trips(variant: str, players: int) -> None:
    hands = list(simulate_seveneight(60, players, seed=7, variant=variant, session_hands=25))
    assert len(hands) == 60
    for hand in hands:
        outcome = replay(hand)  # checks finishing_stacks and winnings too
        assert sum(outcome.nets) == 0
        assert hand.num_players == players
        assert set(hand.players or ()) <= set(NAMES)
    assert loads_hands(dumps_hands(hands), strict=True) == hands


def test_hands_reach_showdowns_folds_and_all_ins() -> None:
    hands = list(simulate_seveneight(300, 4, seed=3, starting_stack=40))
    verbs = [{a.verb for a in h.actions} for h in hands]
    assert sum(Verb.SHOW_MUCK in v for v in verbs) > 30
    assert sum(Verb.SHOW_MUCK not in v for v in verbs) > 30
    assert any(any(a.verb is Verb.SHOW_MUCK and not a.cards for a in h.actions) for h in hands)
    assert any(0 in (h.finishing_stacks or ()) for h in hands)


def test_same_seed_same_hands_and_other_seed_other_hands() -> None:
    first = list(simulate_seveneight(20, 5, seed=11))
    assert first == list(simulate_seveneight(20, 5, seed=11))
    assert first != list(simulate_seveneight(20, 5, seed=12))


def test_stacks_carry_over_and_the_button_moves() -> None:
    hands = list(simulate_seveneight(40, 4, seed=5, session_hands=40, starting_stack=60))
    for before, after in itertools.pairwise(hands):
        assert before.players is not None and after.players is not None
        assert before.seats is not None and after.seats is not None
        assert before.finishing_stacks is not None and after.starting_stacks is not None
        ending = dict(zip(before.players, before.finishing_stacks, strict=True))
        rebuys = dict(after.user_fields).get("_rebuys", [])
        assert isinstance(rebuys, list)
        for name, stack in zip(after.players, after.starting_stacks, strict=True):
            if name in rebuys:
                assert ending[name] == 0
                assert stack == 60
            else:
                assert stack == ending[name]
        # pN is the button; it moves one seat on.
        assert after.seats[-1] == before.seats[-1] % 4 + 1
        assert before.time is not None and after.time is not None
        assert (after.time > before.time) or (after.day != before.day)
    assert any(dict(h.user_fields).get("_rebuys") for h in hands)


def test_sessions_change_people_and_day() -> None:
    hands = list(simulate_seveneight(6, 3, seed=2, session_hands=3))
    first, second = hands[2], hands[3]
    assert first.date is not None and second.date is not None
    assert second.date - first.date == dt.timedelta(days=1)
    assert [h.hand for h in hands] == [1, 2, 3, 4, 5, 6]


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="2 to 17 players"):
        next(simulate_seveneight(1, 18, seed=0))
    with pytest.raises(ValueError, match="unknown 7 & 8 variant"):
        next(simulate_seveneight(1, 3, seed=0, variant="NLHE"))
    with pytest.raises(ValueError, match="unknown bot styles"):
        next(simulate_seveneight(1, 3, seed=0, styles=("maniac",)))


def test_equity_tables_rank_hands_sensibly() -> None:
    tables = equity_tables()
    seven_eight = parse_cards("7c8c")
    junk = parse_cards("2c9d")
    strong = tables.round1[seven_eight[0].code * 52 + seven_eight[1].code]
    weak = tables.round1[junk[0].code * 52 + junk[1].code]
    assert min(strong) > 0.85
    assert max(weak) < 0.5
    # A five on show looks strongest (it makes fifteens with nine cards, as the seed's table
    # shows), a deuce weaker than a king.
    shown = tables.shown
    assert shown[parse_cards("5h")[0].code] == max(shown)
    assert shown[parse_cards("2h")[0].code] < shown[parse_cards("Kh")[0].code]


def test_styles_differ_in_the_card_they_show() -> None:
    hole = parse_cards("5hQd")
    tight = SevenEightBot(TIGHT)
    loose = SevenEightBot(LOOSE)
    tight_shows = [tight.choose_up((hole[0], hole[1]), random.Random(i)) for i in range(200)]
    loose_shows = [loose.choose_up((hole[0], hole[1]), random.Random(i)) for i in range(200)]
    assert tight_shows.count(hole[1]) > 150  # hides the five, the stronger-looking card
    assert loose_shows.count(hole[0]) > 150


def test_bot_equity_after_the_third_card() -> None:
    state = SevenEightState([50, 50], [0, 0], [2, 1], Betting.NO_LIMIT, (2, 2))
    mine, theirs = parse_cards("7c8c"), parse_cards("2d9h")
    state.deal(0, mine)
    state.deal(1, theirs)
    state.turn_up(0, mine[0])
    state.turn_up(1, theirs[0])
    state.check_or_call(1)
    state.check_or_call(0)
    assert state.phase is Phase.DEAL_THIRD
    state.deal(0, parse_cards("Kc"))
    state.deal(1, parse_cards("3s"))
    bot = SevenEightBot(TIGHT)
    assert bot.equity(state, 0) > 0.95
    decision = bot.decide(state, random.Random(1))
    assert decision.kind == "cbr"


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    players=st.integers(2, 10),
    variant=st.sampled_from(["N78", "P78", "F78"]),
    stack=st.integers(10, 300),
    ante=st.integers(0, 3),
)
def test_any_simulation_replays_and_round_trips(seed: int, players: int, variant: str,
                                                stack: int, ante: int) -> None:
    hands = list(simulate_seveneight(8, players, seed, variant=variant, starting_stack=stack,
                                     ante=ante, session_hands=5))
    for hand in hands:
        replay(hand)
    assert loads_hands(dumps_hands(hands), strict=True) == hands
