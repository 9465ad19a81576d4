"""Big Two rules engine: legal games, every illegal-history file, scoring, random play."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.rules import replay as dispatch_replay
from analytics.rules.base import RuleError
from analytics.rules.bigtwo.engine import BigTwoState, Phase, payment, replay
from analytics.simulate.bots_bigtwo import RandomBot
from parsers import (
    BigTwoDeal,
    BigTwoRules,
    BigTwoScoring,
    FlushOrder,
    Straights,
    loads_hands,
    parse_cards,
    read_hands,
)

ILLEGAL = Path(__file__).parent / "data" / "illegal" / "bigtwo"
ILLEGAL_FILES = sorted(ILLEGAL.glob("*.phh"))

FORMAT_EXAMPLE = """\
format_version = 1
variant = "B2"
game_id = "sunday-2026-11-29"
round = 1
actions = [
  "d dh p1 3d4c5h6s7d8c8d8h9s9cKdKc2s",
  "d dh p2 3c4d5d6d7cTsThJcQsQhAcAh2d",
  "p1 pl 3d4c5h6s7d # the lead card must be in the first play",
  "p2 ps",
  "p1 pl 8c8d8h9s9c",
  "p2 ps",
  "p1 pl KdKc",
  "p2 pl AcAh",
  "p1 ps",
  "p2 pl 3c",
  "p1 pl 2s # p1's last card: the game is over",
]
finishing_stacks = [20, -20]
players = ["Ann", "Bo"]
"""

T1, T2, T3 = (
    "3d4c5h6s7d8c8d8h9s9cKdKcKs",
    "3c4d5d6d7cTsThJcQsQhAcAh2d",
    "3h3s4s5s6h7s9hTcJhQcAs2c2h",
)
OUT3 = ["p1 pl 3d4c5h6s7d", "p2 ps", "p3 ps", "p1 pl 8c8d8h9s9c", "p2 ps", "p3 ps",
        "p1 pl KdKcKs"]


def _hand_text(actions: list[str], header: str = "", players: int = 3) -> str:
    names = ", ".join(f'"n{i}"' for i in range(1, players + 1))
    body = ",\n".join(f'  "{a}"' for a in actions)
    return f'variant = "B2"\n{header}actions = [\n{body},\n]\nplayers = [{names}]\n'


def _three(header: str = "", tail: tuple[str, ...] = ()) -> str:
    deal = [f"d dh p1 {T1}", f"d dh p2 {T2}", f"d dh p3 {T3}"]
    return _hand_text(deal + OUT3 + list(tail), header)


# -- legal games ------------------------------------------------------------------------


def test_format_example_replays_to_its_stated_points() -> None:
    hand = loads_hands(FORMAT_EXAMPLE)[0]
    outcome = dispatch_replay(hand)
    assert outcome.nets == (20, -20)
    assert outcome.winner == 1
    assert outcome.finishing_order == (1,)
    assert outcome.extra["cards_left"] == (0, 10)
    assert [(a.pot, a.player, a.amount) for a in outcome.awards] == [("game", 1, 20)]


def test_none_played_is_tripled_and_twos_double_twice() -> None:
    plain = replay(loads_hands(_three())[0])
    assert plain.nets == (78, -39, -39)
    twos = replay(loads_hands(_three('scoring = "cards_with_twos"\n'))[0])
    # p2 kept one 2 (x2), p3 two 2s (x4): the doublings multiply.
    assert twos.nets == (78 + 156, -78, -156)


def test_rank_scoring_plays_on_and_records_the_order() -> None:
    # After p1 goes out, p2 and p3 pass: the next player still in after p1 (p2) leads.
    tail = ("p2 ps", "p3 ps", "p2 pl 3c", "p3 pl 3s", "p2 pl 4d", "p3 pl 4s", "p2 pl 5d",
            "p3 pl 5s", "p2 pl 6d", "p3 pl 6h", "p2 pl 7c", "p3 pl 7s", "p2 pl Ts",
            "p3 pl Jh", "p2 pl Qs", "p3 pl As", "p2 pl 2d", "p3 pl 2h", "p2 ps",
            "p3 pl 3h", "p2 pl Th", "p3 pl Qc", "p2 pl Ac", "p3 pl 2c", "p2 ps",
            "p3 pl 9h", "p2 ps", "p3 pl Tc")
    outcome = replay(loads_hands(_three('scoring = "rank"\n', tail))[0])
    assert outcome.finishing_order == (1, 3, 2)
    assert outcome.nets == (0, 0, 0)
    assert outcome.winner == 1
    assert outcome.awards == ()


def test_pass_does_not_stop_a_later_play_in_the_same_trick() -> None:
    deal = [f"d dh p1 {T1}", f"d dh p2 {T2}", f"d dh p3 {T3}"]
    # p2 passes on 3d, p3 plays 3s, then p1 and p2 play again in the same trick.
    moves = ["p1 pl 3d", "p2 ps", "p3 pl 3s", "p1 pl 4c", "p2 pl 5d"]
    state = BigTwoState(BigTwoRules(), 3)
    for action in loads_hands(_hand_text(deal + moves))[0].actions:
        state.apply(action)
    assert state.turn == 3
    assert state.table is not None
    assert [str(c) for c in state.table_cards] == ["5d"]


def test_trick_ends_after_all_others_pass_and_winner_leads() -> None:
    state = BigTwoState(BigTwoRules(), 3)
    for action in loads_hands(_three())[0].actions[:6]:
        state.apply(action)
    assert state.leading
    assert state.turn == 1
    assert not state.can_pass(1)


def test_deal_all_with_three_players_gives_the_leftover_to_the_lead_holder() -> None:
    rules = BigTwoRules(deal=BigTwoDeal.ALL)
    deck = list(parse_cards("".join(r + s for r in "3456789TJQKA2" for s in "dchs")))
    lead = deck.pop(0)  # 3d
    hands = [deck[0:17], [lead, *deck[17:33]], deck[33:]]
    hands[1].append(hands[2].pop())  # the leftover goes to p2, who holds 3d
    state = BigTwoState(rules, 3)
    for player, cards in enumerate(hands, 1):
        state.deal(player, cards)
    state.close_deal()
    assert [state.card_count(p) for p in (1, 2, 3)] == [17, 18, 17]
    assert state.turn == 2
    wrong = BigTwoState(rules, 3)
    hands[0].append(hands[1].pop())  # now p1 has the leftover but not the lead card
    for player, cards in enumerate(hands, 1):
        wrong.deal(player, cards)
    with pytest.raises(RuleError, match="holder of the lead card 3d 18"):
        wrong.close_deal()


def test_lowest_dealt_card_leads_when_the_lead_card_is_missing() -> None:
    state = BigTwoState(BigTwoRules(), 2)
    state.deal(1, parse_cards("4d5c6h7s8d9cTsJhQdKcAs2d2c"))
    state.deal(2, parse_cards("3s4h5d6c7d8s9hTdJcQhKsAh2s"))
    state.close_deal()
    assert state.turn == 2
    assert state.required_card == parse_cards("3s")[0]
    assert [str(a.cards[0]) for a in state.legal_actions() if len(a.cards) == 1] == ["3s"]


def test_legal_actions_of_the_leader_exclude_pass_and_of_a_follower_include_it() -> None:
    hand = loads_hands(FORMAT_EXAMPLE)[0]
    state = BigTwoState(BigTwoRules(), 2)
    for action in hand.actions[:2]:
        state.apply(action)
    first = state.legal_actions()
    assert first
    assert all(a.cards and parse_cards("3d")[0] in a.cards for a in first)
    state.apply(hand.actions[2])
    follow = state.legal_actions()
    assert follow[0].verb.value == "ps"
    assert all(len(a.cards) == 5 for a in follow[1:])
    for action in follow:
        if action.cards:
            assert state.can_play(2, action.cards)


def test_payment_table() -> None:
    cards = BigTwoScoring.CARDS
    assert payment(9, 13, 0, cards) == 9
    assert payment(10, 13, 0, cards) == 20
    assert payment(13, 13, 0, cards) == 39
    assert payment(16, 17, 0, cards) == 32
    assert payment(17, 17, 0, cards) == 51
    assert payment(3, 13, 2, BigTwoScoring.CARDS_WITH_TWOS) == 12
    assert payment(3, 13, 2, cards) == 3
    assert payment(5, 13, 1, BigTwoScoring.RANK) == 0


def test_state_errors_without_a_hand_still_explain() -> None:
    state = BigTwoState(BigTwoRules(), 2)
    with pytest.raises(RuleError, match="2 to 4 players"):
        BigTwoState(BigTwoRules(), 5)
    state.deal(1, parse_cards("3d4d"))
    with pytest.raises(RuleError, match="dealt twice"):
        state.deal(2, parse_cards("4d"))
    assert not state.can_deal(1, parse_cards("4d"))
    assert state.phase is Phase.DEAL


# -- illegal histories ------------------------------------------------------------------


def test_there_is_an_illegal_history_per_rule() -> None:
    assert len(ILLEGAL_FILES) >= 30


@pytest.mark.parametrize("path", ILLEGAL_FILES, ids=lambda p: p.stem)
def test_illegal_history_is_rejected_with_its_message(path: Path) -> None:
    hand = next(iter(read_hands(path)))
    expect = dict(hand.user_fields)["_expect"]
    assert isinstance(expect, str)
    with pytest.raises(RuleError) as caught:
        dispatch_replay(hand)
    error = caught.value
    assert expect in error.message
    assert error.line is not None
    assert f"{path}:{error.line}:" in str(error)
    if error.action_index is not None:
        # The error names the action's own line in the file.
        line = path.read_text().splitlines()[error.line - 1]
        assert error.action_text is not None
        assert error.action_text.split(" #")[0] in line


# -- random legal play ------------------------------------------------------------------

RULES = st.builds(
    BigTwoRules,
    deal=st.sampled_from(list(BigTwoDeal)),
    lead_card=st.sampled_from(["3d", "3c"]),
    suit_order=st.sampled_from(["dchs", "cdhs"]),
    straights=st.sampled_from(list(Straights)),
    flush_order=st.sampled_from(list(FlushOrder)),
    four_card_plays=st.booleans(),
    scoring=st.sampled_from(list(BigTwoScoring)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULES, players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_conserves_points(rules: BigTwoRules, players: int, seed: int) -> None:
    rng = random.Random(seed)
    deck = list(parse_cards("".join(r + s for r in "3456789TJQKA2" for s in "dchs")))
    rng.shuffle(deck)
    size = 13 if rules.deal is BigTwoDeal.THIRTEEN else 52 // players
    hands = [deck[i * size:(i + 1) * size] for i in range(players)]
    if rules.deal is BigTwoDeal.ALL and 52 % players:
        leftovers = deck[players * size:]
        holder = next((i for i, h in enumerate(hands) if rules.lead in h), None)
        if holder is None:
            return  # the lead card was left over; the simulator handles that case
        hands[holder] += leftovers
    state = BigTwoState(rules, players)
    for player, cards in enumerate(hands, 1):
        state.deal(player, cards)
    bot = RandomBot()
    held = sum(state.dealt)
    while not state.is_over:
        action = bot.choose(state, rng)
        assert action in state.legal_actions()
        state.apply(action)
        now = sum(state.card_count(p) for p in range(1, players + 1))
        # A play removes exactly its cards, a pass none; hands never overlap.
        assert now == held - len(action.cards)
        held = now
        union = 0
        for p in range(1, players + 1):
            assert not union & state.hands[p]
            union |= state.hands[p]
    outcome = state.outcome()
    assert sum(outcome.nets) == 0
    assert outcome.winner == outcome.finishing_order[0]
    if rules.scoring is BigTwoScoring.RANK:
        assert sorted(outcome.finishing_order) == list(range(1, players + 1))
        assert outcome.nets == (0,) * players
    else:
        assert outcome.nets[outcome.winner - 1] >= 0


@pytest.mark.slow
def test_many_rule_sets_taking_turns_build_each_table_of_plays_at_most_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The house-rules sample (16 sets of play rules, games interleaved) replayed twice in
    one process: a table of every play is built for at most as many rule sets as the
    cache keeps, once each; the others enumerate their hands.  (Emptying the cache for a
    newcomer rebuilt a table, 0.5 s, at nearly every game of the second pass.)"""
    from analytics.rules.bigtwo import engine
    from parsers.caching import clear_caches

    built: list[BigTwoRules] = []
    table = engine._Universe

    def counted(rules: BigTwoRules) -> object:
        built.append(rules)
        return table(rules)

    monkeypatch.setattr(engine, "_Universe", counted)
    clear_caches()
    hands = list(read_hands(Path(__file__).parent.parent / "data" / "samples"
                            / "bigtwo-house-rules.phhs"))
    first = [replay(hand) for hand in hands]
    again = [replay(hand) for hand in hands]
    assert again == first
    assert len(set(built)) == len(built) <= engine._UNIVERSES.limit
    clear_caches()
