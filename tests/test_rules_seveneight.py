"""The 7 & 8 engine: legal hands settle right, every illegal history is rejected by rule."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules import replay
from analytics.rules.base import Outcome, PotAward, RuleError
from analytics.rules.seveneight.engine import Phase, SevenEightState
from parsers import DECK, Action, HandHistory, Verb, dumps_hands, loads_hands, read_hands
from parsers.rule_options import Betting, Game, SevenEightRules

ILLEGAL = Path(__file__).parent / "data" / "illegal" / "seveneight"
ILLEGAL_FILES = sorted(ILLEGAL.glob("*.phh"))


def hand_from(actions: list[str], *, variant: str = "N78", stacks: str = "100, 100, 100",
              blinds: str | None = None, antes: str | None = None, extra: str = "") -> HandHistory:
    """A hand from a few header values and its actions (the header defaults to 3 players)."""
    count = stacks.count(",") + 1
    if blinds is None:
        blinds = "2, 1" if count == 2 else ", ".join(["1", "2"] + ["0"] * (count - 2))
    antes = antes or ", ".join(["0"] * count)
    sizes = "small_bet = 2\nbig_bet = 4\n" if variant == "F78" else "min_bet = 2\n"
    body = "".join(f'  "{a}",\n' for a in actions)
    text = (f'variant = "{variant}"\nantes = [{antes}]\nblinds_or_straddles = [{blinds}]\n'
            f"{sizes}starting_stacks = [{stacks}]\n{extra}actions = [\n{body}]\n")
    hand = loads_hands(text, strict=True)[0]
    return hand


DEAL3 = ["d dh p1 7c8c", "d dh p2 AsKs", "d dh p3 5d9d", "p1 up 7c", "p2 up As", "p3 up 9d"]


# ------------------------------------------------------------------ illegal histories


def test_there_is_an_illegal_history_per_rule() -> None:
    assert len(ILLEGAL_FILES) >= 30


@pytest.mark.parametrize("path", ILLEGAL_FILES, ids=lambda p: p.stem)
def test_illegal_history_is_rejected_with_its_message(path: Path) -> None:
    hands = list(read_hands(path))
    assert len(hands) == 1
    hand = hands[0]
    assert hand.ok, hand.errors  # the reader accepts it: only the rules engine can object
    expected = dict(hand.user_fields)["_expect"]
    assert isinstance(expected, str)
    with pytest.raises(RuleError) as info:
        replay(hand)
    error = info.value
    assert expected in error.message
    assert str(error).startswith(f"{path}:{error.line}: hand 1: ")
    assert error.rule
    assert error.line is not None
    if error.action_index is not None:
        # The error names the action and the source line it stands on.
        line = path.read_text().splitlines()[error.line - 1]
        assert error.action_text is not None
        assert f'"{error.action_text}"' in line


# ------------------------------------------------------------------ legal hands


def test_format_example_hand() -> None:
    hand = hand_from(DEAL3 + ["p3 cbr 6", "p1 cc", "p2 f", "d dh p1 2c", "d dh p3 Th", "p1 cc",
                              "p3 cbr 10", "p1 cc", "p3 sm 5d9dTh", "p1 sm 7c8c2c"],
                     extra="finishing_stacks = [118, 98, 84]\nwinnings = [34, 0, 0]\n")
    outcome = replay(hand)
    assert outcome.nets == (18, -2, -16)
    assert outcome.awards == (PotAward("main", 1, 34),)
    assert outcome.finishing_stacks == (118, 98, 84)
    assert outcome.winner == 1
    shown = {s.player: s for s in outcome.showdown}
    assert shown[1].category == "seven_eight_flush"
    assert shown[3].category == "fifteen"
    assert shown[1].rank > shown[3].rank
    assert shown[3].cards == "5d9dTh"


def test_everyone_folds_to_a_raise_and_the_uncalled_chips_come_back() -> None:
    outcome = replay(hand_from(DEAL3 + ["p3 cbr 20", "p1 f", "p2 f"],
                               extra="winnings = [0, 0, 5]\n"))
    assert outcome.nets == (-1, -2, 3)
    assert outcome.showdown == ()
    assert outcome.extra["refunds"] == (0, 0, 18)
    assert outcome.awards == (PotAward("main", 3, 5),)


def test_split_pot_odd_chip_goes_left_of_the_button() -> None:
    hand = hand_from(["d dh p1 7c8c", "d dh p2 7d8d", "d dh p3 2s5h", "p1 up 7c", "p2 up 7d",
                      "p3 up 5h", "p3 cbr 4", "p1 cc", "p2 cc", "d dh p1 2c", "d dh p2 2d",
                      "d dh p3 3s", "p1 cc", "p2 cc", "p3 cc", "p3 sm 2s5h3s", "p2 sm 7d8d2d",
                      "p1 sm 7c8c2c"], antes="1, 1, 1")
    outcome = replay(hand)
    assert outcome.awards == (PotAward("main", 1, 8), PotAward("main", 2, 7))
    assert outcome.nets == (3, 2, -5)


def test_third_card_breaks_a_tie_heads_up() -> None:
    hand = hand_from(["d dh p1 7c8d", "d dh p2 7h8s", "p1 up 7c", "p2 up 7h", "p2 cc", "p1 cc",
                      "d dh p1 2c", "d dh p2 3s", "p1 cc", "p2 cc", "p1 sm 7c8d2c",
                      "p2 sm 7h8s3s"], stacks="100, 100")
    outcome = replay(hand)
    assert outcome.nets == (-2, 2)
    assert [s.category for s in outcome.showdown] == ["seven_eight", "seven_eight"]


def test_all_in_before_the_third_card_makes_side_pots_and_still_deals() -> None:
    # p1 all in for 10; p2 and p3 bet on in round 2; p1 has the best hand.
    hand = hand_from(DEAL3 + ["p3 cbr 10", "p1 cc", "p2 cc", "d dh p1 2c", "d dh p2 Ah",
                              "d dh p3 Th", "p2 cbr 20", "p3 cc", "p1 sm 7c8c2c", "p2 sm AsKsAh",
                              "p3 sm 5d9dTh"], stacks="10, 100, 100")
    outcome = replay(hand)
    assert outcome.awards == (PotAward("main", 1, 30), PotAward("side1", 2, 40))
    assert outcome.nets == (20, 10, -30)
    assert sum(outcome.nets) == 0


def test_everyone_all_in_in_round_one_goes_straight_to_the_showdown() -> None:
    hand = hand_from(DEAL3 + ["p3 cbr 30", "p1 cc", "p2 cc", "d dh p1 2c", "d dh p2 Ah",
                              "d dh p3 Th", "p1 sm 7c8c2c", "p2 sm AsKsAh", "p3 sm 5d9dTh"],
                     stacks="20, 25, 30")
    outcome = replay(hand)
    assert outcome.extra["refunds"] == (0, 0, 5)
    assert outcome.awards == (PotAward("main", 1, 60), PotAward("side1", 2, 10))
    assert outcome.finishing_stacks == (60, 10, 5)


def test_a_mucked_hand_forfeits() -> None:
    hand = hand_from(DEAL3 + ["p3 cc", "p1 cc", "p2 cc", "d dh p1 2c", "d dh p2 Ah", "d dh p3 Th",
                              "p1 cc", "p2 cc", "p3 cc", "p2 sm AsKsAh", "p1 sm", "p3 sm"])
    outcome = replay(hand)
    assert outcome.awards == (PotAward("main", 2, 6),)
    assert [s.player for s in outcome.showdown] == [2]


def test_antes_are_posted_and_won() -> None:
    hand = hand_from(DEAL3 + ["p3 f", "p1 f"], antes="1, 1, 1")
    outcome = replay(hand)
    assert outcome.nets == (-2, 3, -1)
    assert outcome.extra["contributions"] == (2, 3, 1)


def test_unknown_cards_are_fine_for_players_who_fold() -> None:
    hand = hand_from(["d dh p1 ????", "d dh p2 AsKs", "d dh p3 ????", "p1 up 7c", "p2 up As",
                      "p3 up 9d", "p3 f", "p1 cc", "p2 cbr 6", "p1 f"])
    outcome = replay(hand)
    assert outcome.nets == (-2, 2, 0)


def test_pot_and_fixed_limit_legal_maximums() -> None:
    assert replay(hand_from(DEAL3 + ["p3 cbr 7", "p1 cbr 23", "p2 f", "p3 f"], variant="P78"))
    hand = hand_from(DEAL3 + ["p3 cbr 4", "p1 cbr 6", "p2 cbr 8", "p3 cc", "p1 cc",
                              "d dh p1 2c", "d dh p2 Ah", "d dh p3 Th", "p1 cbr 4", "p2 cbr 8",
                              "p3 f", "p1 f"], variant="F78")
    outcome = replay(hand)
    assert outcome.nets == (-12, 20, -8)


# ------------------------------------------------------------------ the state API


def test_state_walks_through_the_phases() -> None:
    state = SevenEightState([50, 50], [0, 0], [2, 1], Betting.NO_LIMIT, (2, 2))
    assert state.phase is Phase.DEAL
    assert state.legal_actions().players == (0, 1)
    state.deal(0, (DECK[0], DECK[1]))
    state.deal(1, (DECK[2], DECK[3]))
    assert state.legal_actions().phase is Phase.TURN_UP
    assert not state.can_turn_up(0, DECK[2])
    state.turn_up(0, DECK[0])
    state.turn_up(1, DECK[3])
    legal = state.legal_actions()
    assert legal.phase is Phase.BETTING1
    assert legal.players == (1,)  # heads-up: the button (small blind) first
    assert legal.betting is not None
    assert (legal.betting.call, legal.betting.min_to, legal.betting.max_to) == (1, 4, 50)
    assert not state.can_check_or_call(0)
    state.check_or_call(1)
    state.check_or_call(0)
    assert state.legal_actions().phase is Phase.DEAL_THIRD
    state.deal(0, (DECK[4],))
    state.deal(1, (DECK[5],))
    assert state.actor == 0
    state.bet_or_raise_to(0, 10)
    state.fold(1)
    assert state.legal_actions().phase is Phase.OVER
    assert state.outcome().nets == (2, -2)
    with pytest.raises(RuleError, match="the hand is over: p1 won when everyone else folded"):
        state.check_or_call(0)


def test_bad_headers_are_rejected() -> None:
    with pytest.raises(RuleError, match="2 to 17 players"):
        SevenEightState([50], [0], [0], Betting.NO_LIMIT, (2, 2))
    hand = HandHistory(game=Game.SEVENEIGHT, variant="N78", rules=SevenEightRules(),
                       starting_stacks=(10, 10), antes=(0, 0), blinds_or_straddles=(2, 1))
    with pytest.raises(RuleError, match="need min_bet"):
        replay(hand)


# ------------------------------------------------------------------ property


def random_hand(rng: random.Random, variant: str, stacks: list[int], antes: list[int],
                blinds: list[int]) -> HandHistory:
    """Play a hand with uniformly random legal decisions through the engine's legal actions."""
    structure = {"N78": Betting.NO_LIMIT, "P78": Betting.POT_LIMIT, "F78": Betting.FIXED_LIMIT}
    sizes = (2, 4) if variant == "F78" else (2, 2)
    state = SevenEightState(stacks, antes, blinds, structure[variant], sizes)
    deck = list(DECK)
    rng.shuffle(deck)
    actions: list[Action] = []
    while state.phase is not Phase.OVER:
        legal = state.legal_actions()
        if legal.phase in (Phase.DEAL, Phase.DEAL_THIRD):
            player = rng.choice(legal.players)
            count = 2 if legal.phase is Phase.DEAL else 1
            cards = tuple(deck.pop() for _ in range(count))
            state.deal(player, cards)
            actions.append(Action(0, Verb.DEAL_HOLE, cards, target=player + 1))
        elif legal.phase is Phase.TURN_UP:
            player = rng.choice(legal.players)
            card = rng.choice(state.holes[player])
            state.turn_up(player, card)
            actions.append(Action(player + 1, Verb.TURN_UP, (card,)))
        elif legal.phase is Phase.SHOWDOWN:
            player = rng.choice(legal.players)
            # Muck now and then, but only behind a shown hand that is in every pot this player
            # is in (else a pot could be left with nobody contesting it).
            covered = any(state.shown[q] is not None
                          and state.contributions[q] >= state.contributions[player]
                          for q in range(len(stacks)))
            muck = covered and rng.random() < 0.3
            shown = () if muck else tuple(state.holes[player])
            state.show_or_muck(player, shown)
            actions.append(Action(player + 1, Verb.SHOW_MUCK, shown))
        else:
            betting = legal.betting
            assert betting is not None
            player = betting.player
            roll = rng.random()
            if roll < 0.15:
                state.fold(player)
                actions.append(Action(player + 1, Verb.FOLD))
            elif betting.min_to is not None and betting.max_to is not None and roll < 0.5:
                amount = rng.randint(betting.min_to, betting.max_to)
                state.bet_or_raise_to(player, amount)
                actions.append(Action(player + 1, Verb.BET_RAISE, amount=amount))
            else:
                state.check_or_call(player)
                actions.append(Action(player + 1, Verb.CHECK_CALL))
    outcome = state.outcome()
    return HandHistory(game=Game.SEVENEIGHT, variant=variant, rules=SevenEightRules(),
                       actions=tuple(actions), starting_stacks=tuple(stacks), antes=tuple(antes),
                       blinds_or_straddles=tuple(blinds),
                       min_bet=None if variant == "F78" else 2,
                       small_bet=2 if variant == "F78" else None,
                       big_bet=4 if variant == "F78" else None,
                       finishing_stacks=outcome.finishing_stacks)


@settings(max_examples=150, deadline=None)
@given(
    variant=st.sampled_from(["N78", "P78", "F78"]),
    stacks=st.lists(st.integers(1, 80), min_size=2, max_size=9),
    ante=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_legal_play_conserves_chips_and_replays(variant: str, stacks: list[int],
                                                        ante: int, seed: int) -> None:
    count = len(stacks)
    blinds = [2, 1] if count == 2 else [1, 2] + [0] * (count - 2)
    hand = random_hand(random.Random(seed), variant, stacks, [ante] * count, blinds)
    outcome: Outcome = replay(hand)  # also checks the stated finishing stacks
    assert sum(outcome.nets) == 0
    assert outcome.finishing_stacks is not None
    assert all(s >= 0 for s in outcome.finishing_stacks)
    assert sum(a.amount for a in outcome.awards) == sum(
        c for c in outcome.extra["contributions"]  # type: ignore[attr-defined]
    ) - sum(outcome.extra["refunds"])  # type: ignore[call-overload]
    back = loads_hands(dumps_hands([hand]), strict=True)
    assert back == [hand]
