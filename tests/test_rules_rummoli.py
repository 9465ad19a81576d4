"""Rummoli rules engine: illegal histories, the laying order, pots, payments, conservation."""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.evaluator import poker_rank
from analytics.rules import replay as dispatch_replay
from analytics.rules.base import RuleError
from analytics.rules.rummoli.cards import PAY_CARDS
from analytics.rules.rummoli.engine import (
    Phase,
    RummoliState,
    check_board_continuity,
    replay,
    state_from_hand,
)
from analytics.simulate.bots_rummoli import STYLES, RummoliBot
from analytics.simulate.rummoli import play_round, simulate_rummoli
from parsers import RUMMOLI_POTS, Action, HandHistory, Verb, dumps_hand, loads_hands, read_hands
from parsers.rule_options import Betting, Claim, Finale, Game, RummoliRules

ILLEGAL = Path(__file__).parent / "data" / "illegal" / "rummoli"
ILLEGAL_FILES = sorted(ILLEGAL.glob("*.phh"))


def _expect(hand: HandHistory) -> str:
    fields = dict(hand.user_fields)
    expect = fields.get("_expect")
    assert isinstance(expect, str) and expect, "each illegal history names its expected error"
    return expect


# ---------------------------------------------------------------- illegal histories


@pytest.mark.parametrize("path", ILLEGAL_FILES, ids=[p.stem for p in ILLEGAL_FILES])
def test_illegal_history_is_rejected_with_its_message(path: Path) -> None:
    hand = next(read_hands(path))
    assert hand.ok, hand.errors
    with pytest.raises(RuleError) as caught:
        replay(hand)
    error = caught.value
    assert _expect(hand) in error.message
    assert error.rule
    assert str(error).startswith(f"{path}:{error.line}:")
    if error.action_index is not None:
        # The error names the line the offending action stands on.
        action = hand.actions[error.action_index]
        line = hand.action_line(error.action_index)
        assert line is not None and error.line == line
        line_text = path.read_text(encoding="utf-8").splitlines()[line - 1]
        assert action.notation().split(" #")[0] in line_text


def test_illegal_histories_cover_every_rule_of_section_1() -> None:
    rules: set[str] = set()
    for path in ILLEGAL_FILES:
        try:
            replay(next(read_hands(path)))
        except RuleError as error:
            rules.add((error.rule or "").split(" (")[0])
    for section in ("RULES.md 1", "RULES.md 1.2", "RULES.md 1.3", "RULES.md 1.4",
                    "RULES.md 1.5", "RULES.md 1.6", "RULES.md 1.7"):
        assert section in rules
    assert {"finishing_stacks", "winnings"} <= rules  # antes and payments are checked via totals


def test_dispatch_uses_the_rummoli_engine() -> None:
    hand = next(simulate_rummoli(1, 3, 1))
    assert dispatch_replay(hand) == replay(hand)


# ---------------------------------------------------------------- helpers


def _fresh(players: int = 3, *, stacks: int = 50, dealer: int = 1, seed: int = 0,
           **kwargs: object) -> RummoliState:
    """A state after a random deal (dealt as the simulator deals)."""
    state = RummoliState([stacks] * players, dealer, **kwargs)  # type: ignore[arg-type]
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    order = [(dealer + i) % players + 1 for i in range(players)] + [0]
    for position, code in enumerate(deck):
        target = order[position % (players + 1)]
        state.deal(target or None, [code])
    return state


def _to_showdown(state: RummoliState) -> None:
    """Keep the hand, nobody bids, everybody checks."""
    state.pass_widow(state.dealer)
    while state.phase is Phase.AUCTION:
        player = state.turn
        assert player is not None
        state.pass_bid(player)
    while state.phase is Phase.BETTING:
        player = state.turn
        assert player is not None
        state.check_call(player)


# ---------------------------------------------------------------- antes, deal, widow


def test_short_player_antes_a_full_ante_per_pot_in_board_order() -> None:
    """RULES.md 1: a full ante into each pot in board order while he can, the rest into
    the next pot (worked by hand: the other player pays 2 into each pot)."""
    state = RummoliState([5, 40], 1, rules=RummoliRules(ante=1))
    assert state.antes == [5, 9]
    assert state.stacks == [0, 31]
    assert state.board == [2, 2, 2, 2, 2, 1, 1, 1, 1]
    state = RummoliState([12, 40], 2, rules=RummoliRules(ante=2))
    assert state.antes == [12, 18]
    assert state.board == [4, 4, 4, 4, 4, 4, 2, 2, 2]
    state = RummoliState([40, 5], 2, rules=RummoliRules(ante=2))
    assert state.stacks == [22, 0]
    assert state.board == [4, 4, 3, 2, 2, 2, 2, 2, 2]
    state = RummoliState([17, 3, 50], 1, rules=RummoliRules(ante=3))
    assert state.antes == [17, 3, 27]
    #        poker TS JD QC KH AS AKD 789 rummoli
    assert state.board == [9, 6, 6, 6, 6, 5, 3, 3, 3]


@given(ante=st.integers(1, 6), stacks=st.lists(st.integers(1, 80), min_size=2, max_size=8))
def test_short_antes_fill_the_board_in_order(ante: int, stacks: list[int]) -> None:
    """Each player's ante chips, taken alone, fill the pots in board order: full antes, then
    at most one partial pot, then nothing."""
    state = RummoliState(stacks, 1, rules=RummoliRules(ante=ante))
    expected = [0] * 9
    for stack in stacks:
        paid = min(stack, 9 * ante)
        for pot in range(9):
            expected[pot] += min(ante, max(0, paid - pot * ante))
    assert state.board == expected
    assert sum(state.board) == sum(state.antes)


def test_finale_round_pays_no_antes_and_plays_for_the_board() -> None:
    board = (0, 3, 1, 0, 4, 0, 2, 5, 7)
    state = RummoliState([20, 20], 1, board_before=board, finale_pot="all")
    assert state.stacks == [20, 20]
    assert state.dead_money == sum(board)
    per_pot = RummoliState([20, 20], 1, board_before=board, finale_pot="JD",
                           rules=RummoliRules(finale=Finale.PER_POT))
    assert per_pot.dead_money == 1


@pytest.mark.parametrize(("pot", "finale", "fragment"), [
    ("all", Finale.NONE, "finale = 'none'"),
    ("TS", Finale.SINGLE, "finale_pot = 'all'"),
    ("QC", Finale.PER_POT, "has no chips"),
    ("TS", Finale.PER_POT, "smallest pot first"),
])
def test_inconsistent_finale_headers(pot: str, finale: Finale, fragment: str) -> None:
    board = (0, 3, 1, 0, 4, 0, 2, 5, 7)
    with pytest.raises(RuleError, match=fragment):
        RummoliState([20, 20], 1, board_before=board, finale_pot=pot,
                     rules=RummoliRules(finale=finale))


@pytest.mark.parametrize("board", [None, (0,) * 9])
def test_a_finale_on_an_empty_board_is_refused(board: tuple[int, ...] | None) -> None:
    """RULES.md 1.7: the end-of-game round plays for the chips left on the board; with none
    left (no board_before, or nine zeros) there is nothing to play for, as per_pot
    already said of an empty pot."""
    with pytest.raises(RuleError, match="the board is empty"):
        RummoliState([20, 20], 1, board_before=board, finale_pot="all")


def test_widow_exchange_swaps_hands_and_the_old_hand_is_dead() -> None:
    for seed in range(40):
        state = _fresh(3, seed=seed)
        if state.can_exchange(1):
            break
    else:
        pytest.fail("no deal without a pay card for the dealer")
    old, widow = state.hand_mask(1), state.widow
    state.exchange(1)
    assert state.hand_mask(1) == widow
    assert state.widow == old
    assert state.exchanged == 1
    assert state.phase is Phase.BETTING


def test_auction_protocol_clockwise_and_price_paid_to_dealer() -> None:
    for seed in range(200):
        state = _fresh(4, dealer=2, seed=seed)
        bidders = [p for p in (3, 4, 1) if not state.hand_mask(p) & PAY_CARDS]
        if len(bidders) >= 2:
            break
    else:
        pytest.fail("no deal with two possible bidders")
    state.pass_widow(2)
    first, second = bidders[0], bidders[1]
    assert state.turn == first  # clockwise from the dealer's left, skipping pay-card holders
    assert not state.can_bid(second, 1)
    state.bid(first, 1)
    assert state.turn == second
    with pytest.raises(RuleError, match="does not beat the high bid"):
        state.bid(second, 1)
    state.bid(second, 3)
    while state.phase is Phase.AUCTION:
        player = state.turn
        assert player is not None
        state.pass_bid(player)
    assert state.phase is Phase.AUCTION_CLOSE
    assert state.legal_actions() == [Action(second, Verb.AUCTION_WIN, amount=3)]
    dealer_before, bidder_before = state.stacks[1], state.stacks[second - 1]
    state.win_auction(second, 3)
    assert state.stacks[1] == dealer_before + 3
    assert state.stacks[second - 1] == bidder_before - 3
    assert state.exchanged == second


# ---------------------------------------------------------------- showdown


def test_last_player_at_showdown_may_not_muck() -> None:
    state = _fresh(2, seed=3)
    _to_showdown(state)
    assert state.phase is Phase.SHOWDOWN
    first = state.turn
    assert first is not None
    state.show(first, [])
    second = state.turn
    assert second is not None
    assert [a.verb for a in state.legal_actions()] == [Verb.SHOW_MUCK]  # showing only
    with pytest.raises(RuleError, match="may not muck"):
        state.show(second, [])
    state.show(second, [c.code for c in state.hand_of(second)])
    # He wins the poker pot and opens the Rummoli phase.
    assert {a.verb for a in state.legal_actions()} == {Verb.PLAY}
    assert state.turn == second


def test_best_five_may_be_shown_instead_of_the_whole_hand() -> None:
    state = _fresh(2, seed=5)
    _to_showdown(state)
    player = state.turn
    assert player is not None
    best = poker_rank(state.hand_of(player)).best_five
    state.show(player, [c.code for c in best])
    assert state.showdown[0].cards == "".join(str(c) for c in best)
    assert state.showdown[0].rank == poker_rank(state.hand_of(player)).value


# ---------------------------------------------------------------- the Rummoli phase


def _oracle_next(hands: list[set[int]], last: int, layer: int) -> tuple[int, set[int]] | None:
    """Who must lay what after card ``last`` by ``layer``: an independent restatement."""
    rank, suit = divmod(last, 4)
    if rank < 12:
        following = last + 4
        for player, hand in enumerate(hands):
            if following in hand:
                return player, {following}
    red = suit in (1, 2)
    for step in range(len(hands)):
        player = (layer + step) % len(hands)
        colour = [c for c in hands[player] if (c % 4 in (1, 2)) != red]
        if colour:
            low = min(c // 4 for c in colour)
            return player, {c for c in colour if c // 4 == low}
    return None


def _rummoli_phase_start(hand: HandHistory) -> tuple[RummoliState, int]:
    state = state_from_hand(hand)
    for index, action in enumerate(hand.actions):
        if state.phase is Phase.RUMMOLI:
            return state, index
        state.apply(action)
    return state, len(hand.actions)


def _simulated(n: int, **options: object) -> Iterator[HandHistory]:
    for players in (2, 4, 6, 8):
        yield from simulate_rummoli(n, players, players * 7, **options)


@pytest.mark.parametrize("claim", ["auto", "manual"])
def test_every_lay_follows_the_rules_by_an_independent_oracle(claim: str) -> None:
    checked = 0
    for hand in _simulated(25, claim=claim):
        if hand.finale_pot is not None:
            continue
        state, start = _rummoli_phase_start(hand)
        hands = [{c.code for c in state.hand_of(p)} for p in range(1, hand.num_players + 1)]
        opener = state.turn
        assert opener is not None
        low = min(c // 4 for c in hands[opener - 1])
        expected: tuple[int, set[int]] | None = (
            opener - 1, {c for c in hands[opener - 1] if c // 4 == low})
        laid_by: list[set[int]] = [set() for _ in hands]
        impasse = False
        for action in hand.actions[start:]:
            if action.verb is Verb.IMPASSE:
                assert expected is None
                impasse = True
                continue
            if action.verb is not Verb.PLAY:
                continue
            code = action.cards[0].code
            assert expected is not None
            assert action.actor - 1 == expected[0] and code in expected[1]
            hands[action.actor - 1].discard(code)
            laid_by[action.actor - 1].add(code)
            checked += 1
            expected = _oracle_next(hands, code, action.actor - 1)
        outcome = replay(hand)
        if not impasse:
            assert outcome.winner is not None and not hands[outcome.winner - 1]
        for award in outcome.awards:
            laid = laid_by[award.player - 1]
            if award.pot in ("TS", "JD", "QC", "KH", "AS"):
                assert {"TS": 35, "JD": 37, "QC": 40, "KH": 46, "AS": 51}[award.pot] in laid
            elif award.pot == "AKD":
                assert {45, 49} <= laid
            elif award.pot == "789":
                assert any({20 + s, 24 + s, 28 + s} <= laid for s in range(4))
    assert checked > 500


def test_end_of_round_payments_and_rummoli_pot() -> None:
    for hand in simulate_rummoli(30, 4, 21):
        if hand.finale_pot is not None:
            continue
        outcome = replay(hand)
        cards_left = outcome.extra["cards_left"]
        assert isinstance(cards_left, tuple)
        payments = {a.player: a.amount for a in outcome.awards if a.pot == "payments"}
        if outcome.winner is None:  # impasse: cards paid into the rummoli pot
            assert not payments
            continue
        assert cards_left[outcome.winner - 1] == 0
        for player, left in enumerate(cards_left, start=1):
            if player != outcome.winner:
                assert -payments.get(player, 0) <= left
        assert payments.get(outcome.winner, 0) == -sum(
            v for p, v in payments.items() if p != outcome.winner)
        assert outcome.board_after is not None
        assert outcome.board_after[RUMMOLI_POTS.index("rummoli")] == 0
        assert outcome.board_after[RUMMOLI_POTS.index("poker")] == 0


def test_manual_claims_leave_unclaimed_pots_on_the_board() -> None:
    hands = [h for h in simulate_rummoli(200, 4, 8, claim="manual", styles=("bold",))
             if h.finale_pot is None]
    forgotten = 0
    for hand in hands:
        state, start = _rummoli_phase_start(hand)
        for action in hand.actions[start:]:
            if action.verb is Verb.PLAY and action.cards[0].code in (35, 37, 40, 46, 51):
                pot = {35: "TS", 37: "JD", 40: "QC", 46: "KH", 51: "AS"}[action.cards[0].code]
                state.apply(action)
                if state.is_over and not state.claimable():
                    continue
                claimed = any(a.verb is Verb.CLAIM and a.pot == pot for a in hand.actions)
                if not claimed:
                    forgotten += 1
                    chips = state.board[RUMMOLI_POTS.index(pot)]
                    outcome = replay(hand)
                    assert outcome.board_after is not None
                    assert outcome.board_after[RUMMOLI_POTS.index(pot)] >= chips
                continue
            state.apply(action)
    assert forgotten > 0


def test_legal_actions_are_all_accepted() -> None:
    rng = random.Random(4)
    for seed in range(6):
        state = _fresh(3 + seed % 3, seed=seed, rules=RummoliRules(claim=Claim.MANUAL))
        bots = [RummoliBot(STYLES["random"], random.Random(seed * 10 + i)) for i in range(6)]
        while not state.is_over:
            for action in state.legal_actions():
                trial = copy.deepcopy(state)
                trial.apply(action)
            if state.phase is Phase.IMPASSE:
                state.declare_impasse()
                continue
            player = state.turn
            assert player is not None
            state.apply(bots[player - 1].act(state, player))
            rng.random()


def test_wrong_card_messages_name_the_rule() -> None:
    state = _fresh(3, seed=11)
    _to_showdown(state)
    while state.phase is Phase.SHOWDOWN:
        player = state.turn
        assert player is not None
        state.show(player, [c.code for c in state.hand_of(player)])
    opener = state.turn
    assert opener is not None
    highest = state.hand_of(opener)[-1]
    with pytest.raises(RuleError, match="must open with his lowest card") as caught:
        state.lay(opener, highest.code)
    assert caught.value.rule == "RULES.md 1.5 (Rummoli phase)"
    other = opener % 3 + 1
    assert not state.can_lay(other, state.hand_of(other)[0].code)


# ---------------------------------------------------------------- conservation (property)


@st.composite
def _round_setups(draw: st.DrawFn) -> dict[str, object]:
    players = draw(st.integers(2, 8))
    finale = draw(st.sampled_from(list(Finale)))
    board = tuple(draw(st.lists(st.integers(0, 30), min_size=9, max_size=9)))
    finale_pot: str | None = None
    if finale is not Finale.NONE and any(board) and draw(st.booleans()):
        if finale is Finale.SINGLE:
            finale_pot = "all"
        else:
            finale_pot = RUMMOLI_POTS[min((i for i in range(9) if board[i]),
                                          key=lambda i: (board[i], i))]
    betting = draw(st.sampled_from(list(Betting)))
    return {
        "stacks": draw(st.lists(st.integers(1, 60), min_size=players, max_size=players)),
        "dealer": draw(st.integers(1, players)),
        "rules": RummoliRules(ante=draw(st.integers(0, 3)),
                              claim=draw(st.sampled_from(list(Claim))), finale=finale),
        "betting": betting,
        "min_bet": draw(st.integers(1, 4)),
        "board": board,
        "finale_pot": finale_pot,
        "seed": draw(st.integers(0, 2**32)),
        "style": draw(st.sampled_from(["random", "bold", "cautious"])),
    }


_VARIANTS = {Betting.NO_LIMIT: "NRM", Betting.POT_LIMIT: "PRM", Betting.FIXED_LIMIT: "FRM"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_round_setups())
def test_random_legal_play_conserves_chips_and_replays(setup: dict[str, object]) -> None:
    stacks = setup["stacks"]
    rules, betting, board = setup["rules"], setup["betting"], setup["board"]
    assert isinstance(stacks, list) and isinstance(rules, RummoliRules)
    assert isinstance(betting, Betting) and isinstance(board, tuple)
    dealer, min_bet, seed = setup["dealer"], setup["min_bet"], setup["seed"]
    assert isinstance(dealer, int) and isinstance(min_bet, int) and isinstance(seed, int)
    finale_pot = setup["finale_pot"]
    assert finale_pot is None or isinstance(finale_pot, str)
    state = RummoliState(stacks, dealer, rules=rules, betting=betting, min_bet=min_bet,
                         board_before=board, finale_pot=finale_pot)
    rng = random.Random(seed)
    style = STYLES[str(setup["style"])]
    bots = [RummoliBot(style, random.Random(rng.random())) for _ in stacks]
    actions = play_round(state, bots, rng)
    outcome = state.outcome()
    assert outcome.board_after is not None and outcome.finishing_stacks is not None
    assert sum(outcome.nets) + sum(outcome.board_after) - sum(board) == 0
    assert min(outcome.finishing_stacks) >= 0 and min(outcome.board_after) >= 0
    fixed = betting is Betting.FIXED_LIMIT
    hand = HandHistory(game=Game.RUMMOLI, variant=_VARIANTS[betting], rules=rules,
                       actions=tuple(actions), starting_stacks=tuple(stacks), dealer=dealer,
                       min_bet=None if fixed else min_bet, small_bet=min_bet if fixed else None,
                       board_before=board, finale_pot=finale_pot,
                       finishing_stacks=outcome.finishing_stacks)
    again = loads_hands(dumps_hand(hand))[0]
    assert again == hand
    assert replay(again) == outcome


# ---------------------------------------------------------------- board continuity


def test_board_continuity_between_rounds() -> None:
    hands = list(simulate_rummoli(6, 3, 2, rounds_per_game=5))
    for previous, following in itertools.pairwise(hands):
        if previous.game_id == following.game_id:
            check_board_continuity(previous, following)
            check_board_continuity(replay(previous), following)
    first, second = hands[0], hands[1]
    assert second.board_before is not None
    broken = list(second.board_before)
    broken[1] += 1
    with pytest.raises(RuleError, match=f"10♠: it left {broken[1] - 1}, this round begins "
                                        f"with {broken[1]}$"):
        check_board_continuity(first, replace(second, board_before=tuple(broken)))
    with pytest.raises(RuleError, match="does not follow round"):
        check_board_continuity(first, replace(second, round=5))
    with pytest.raises(RuleError, match="does not follow a round of game"):
        check_board_continuity(first, replace(second, game_id="other"))


def test_documented_example_round_replays() -> None:
    path = Path(__file__).parent.parent / "docs" / "examples" / "rummoli.phh"
    hand = next(read_hands(path))
    assert hand.ok, hand.errors
    outcome = replay(hand)
    assert outcome.finishing_stacks == hand.finishing_stacks
    assert outcome.winner is not None
    assert any(action.comment for action in hand.actions)


def test_short_ante_is_the_same_on_every_path() -> None:
    """The illegal file's round with its finishing stacks right ([31, 0]) replays."""
    path = ILLEGAL / "ante_short_full_antes_in_board_order.phh"
    text = path.read_text(encoding="utf-8").replace("finishing_stacks = [30, 0]",
                                                      "finishing_stacks = [31, 0]")
    (hand,) = loads_hands(text)
    full = replay(hand)
    assert full.finishing_stacks == (31, 0)
    assert full.board_after is not None and hand.board_before is not None
