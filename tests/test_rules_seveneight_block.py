"""The batch 7 & 8 replay (:func:`analytics.rules.seveneight.block.replay_block`) is the
engine's replay, hand for hand, for the hands it accepts.

For every hand of a block (made by :func:`tests.block_reference.block_from_hands` from hands read by
:func:`parsers.reader.hand_from_chunk`): an accepted hand's :func:`outcome_of` is the
engine's Outcome (:func:`analytics.rules.replay`, ``extra`` too); a hand that raises
a RuleError is never accepted; the counts of hands accepted are pinned where the inputs are
fixed (the simulated set: every hand).  Inputs: every 7 & 8 file of the
repository, simulated hands of the three variants and 2 to 17 players (all-ins, side pots,
split pots, folds to one player), hands altered at one action, bets at and around the
legal bounds, stated figures off, odd headers, hand-made ties with odd chips, repeated
cards and huge chips put in after reading, byte-level mutations of the sample files, and
for side pots: short-stack simulated hands, hand-made all-ins of three and four players with
different stacks, folds after an all-in, ties and odd chips in side pots, mucks.
"""

from __future__ import annotations

import dataclasses
import io
import random
from collections.abc import Iterable
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Final

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.evaluator import seveneight_rank
from analytics.rules import RuleError, replay
from analytics.rules.seveneight import engine as seveneight
from analytics.rules.seveneight import kernels
from analytics.rules.seveneight.block import (
    KERNEL_STRUCTURES,
    BlockOutcome,
    outcome_of,
    rank_tables,
    replay_block,
    warm_up,
)
from analytics.rules.seveneight.engine import SevenEightState
from analytics.simulate.seveneight import simulate_seveneight
from parsers import loads_hands
from parsers.block import SevenEightBlock
from parsers.cards import DECK
from parsers.model import HandHistory
from parsers.reader import hand_from_chunk, iter_chunks
from parsers.rule_options import Betting
from parsers.writer import dumps_hand, dumps_hands
from tests.block_reference import block_from_hands
from tests.mutate import KINDS, Mutation, load_seeds, mutate
from tests.test_rules_golden import mutated_hand, simulated_hands, stated_figures_off

ROOT: Final = Path(__file__).resolve().parent.parent



def read_block(data: bytes, source: str = "block.phhs"
               ) -> tuple[SevenEightBlock, list[HandHistory]]:
    """The block of the hands of ``data`` a block can hold, and those hands as read."""
    items = []
    for chunk in iter_chunks(io.BytesIO(data), source):
        hand = hand_from_chunk(chunk, source)
        try:
            block_from_hands(source, [(chunk.index, hand)])
        except (ValueError, KeyError):  # not a hand a block holds
            continue
        items.append((chunk.index, hand))
    return block_from_hands(source, items), [hand for _, hand in items]


def _betting_bounds(hand: HandHistory, index: int) -> tuple[int, ...]:
    """Amounts around the legal bounds of the bet or raise at ``actions[index]``."""
    state = SevenEightState.from_hand(hand)
    for action in hand.actions[:index]:
        state.apply(action)
    legal = state.legal_actions().betting
    amount = hand.actions[index].amount
    assert amount is not None
    found = {amount - 1, amount + 1, 0, 1}
    if legal is not None and legal.min_to is not None and legal.max_to is not None:
        found |= {legal.min_to - 1, legal.min_to, legal.max_to, legal.max_to + 1}
    found |= {state.stacks[0] + 1}
    return tuple(sorted(found))


def check_block(block: SevenEightBlock, hands: list[HandHistory]) -> tuple[int, int]:
    """Check every hand of ``block`` (see the module); (hands accepted, hands in all)."""
    outcome = replay_block(block)
    assert len(outcome.accepted) == len(hands)
    for i, hand in enumerate(hands):
        if beyond_int64_bounds(hand):
            assert not outcome.accepted[i]
            continue
        if not outcome.accepted[i]:
            continue
        got = outcome_of(outcome, i)
        try:
            expected = replay(hand)
        except RuleError as error:  # pragma: no cover - the block accepted it
            raise AssertionError(f"accepted, but the per-hand replay raises {error}") from None
        assert got == expected, (i, hand.raw)
        assert got.extra == expected.extra, (i, hand.raw)
    check_rows_of_declined_are_empty(outcome)
    return int(outcome.accepted.sum()), len(hands)


def beyond_int64_bounds(hand: HandHistory) -> bool:
    """A hand the kernel declines where the engine's Python ints go on (see
    analytics.rules.seveneight.kernels): 2**60 chips or more, or a bet size of 2**62."""
    sizes = [size for size in (hand.min_bet, hand.small_bet, hand.big_bet) if size is not None]
    return sum(hand.starting_stacks or ()) >= 1 << 60 or any(size >= 1 << 62 for size in sizes)


def check_rows_of_declined_are_empty(outcome: BlockOutcome) -> None:
    declined = np.flatnonzero(~outcome.accepted)
    assert (np.diff(outcome.award_offsets)[declined] == 0).all()
    assert (np.diff(outcome.showdown_offsets)[declined] == 0).all()


def check_hands(hands: Iterable[HandHistory]) -> tuple[int, int]:
    """Write ``hands``, read them back as a block and check it."""
    return check_block(*read_block(dumps_hands(list(hands)).encode("utf-8")))


@cache
def simulated() -> tuple[HandHistory, ...]:
    """Valid hands: the rules tests' shapes (side pots, antes, 2 to 9 players) and more
    table sizes up to 17, every variant."""
    hands = list(simulated_hands("seveneight"))
    shapes = [("F78", 3, 200, 0), ("P78", 2, 40, 0), ("N78", 10, 60, 1), ("P78", 12, 200, 0),
              ("F78", 14, 80, 1), ("N78", 17, 30, 0), ("N78", 7, 500, 3), ("F78", 9, 24, 0)]
    for number, (variant, players, stack, ante) in enumerate(shapes):
        hands += simulate_seveneight(25, players, 900 + number, variant=variant,
                                     starting_stack=stack, ante=ante)
    return tuple(hands)


def test_the_kernel_numbers_structures_as_the_module_does() -> None:
    assert KERNEL_STRUCTURES.index(Betting.NO_LIMIT) == kernels.NO_LIMIT
    assert KERNEL_STRUCTURES.index(Betting.POT_LIMIT) == kernels.POT_LIMIT
    assert KERNEL_STRUCTURES.index(Betting.FIXED_LIMIT) == kernels.FIXED_LIMIT


def test_rank_tables_are_the_evaluators_values_and_categories() -> None:
    values, categories = rank_tables()
    for a, b, c in combinations(range(52), 3):
        rank = seveneight_rank((DECK[a], DECK[b], DECK[c]))
        for x, y, z in ((a, b, c), (c, a, b), (b, c, a)):
            assert values[x, y, z] == rank.value
            assert categories[x, y, z] == rank.category


@pytest.mark.slow
def test_the_repository_files() -> None:
    paths = sorted([*(ROOT / "data" / "samples").glob("*.phhs"),
                    *(ROOT / "tests" / "data").rglob("*.phhs")])
    held = 0
    for path in paths:
        block, hands = read_block(path.read_bytes(), path.name)
        check_block(block, hands)
        held += len(hands)
    assert held > 50  # the 7 & 8 samples and fixtures are read as blocks


def test_the_block_takes_every_valid_simulated_hand() -> None:
    """Not a tautology: the block accepts all 440 valid simulated hands, of every variant
    and table size, the 56 with side pots too (the removed lean replay took 384 of 440 on
    2026-11-30).  (One check of them: it was made twice, once per test.)"""
    hands = simulated()
    assert {hand.variant for hand in hands} == {"N78", "P78", "F78"}
    assert {hand.num_players for hand in hands} >= {2, 3, 4, 5, 6, 9, 10, 12, 14, 17}
    accepted, total = check_hands(hands)
    assert total == 440
    assert accepted == 440, accepted


@pytest.mark.slow
def test_hands_altered_at_one_action() -> None:
    rng = random.Random("block")
    altered = [mutated_hand(hand, rng, kind) for hand in simulated()
               for kind in ("any", "any", "sized")]
    check_hands(altered)


@pytest.mark.slow
def test_bets_at_and_around_the_legal_bounds() -> None:
    hands = []
    for hand in simulated()[::3]:
        for index, action in enumerate(hand.actions):
            if action.amount is not None:
                for amount in _betting_bounds(hand, index):
                    actions = list(hand.actions)
                    actions[index] = dataclasses.replace(action, amount=amount)
                    hands.append(dataclasses.replace(hand, actions=tuple(actions)))
    accepted, total = check_hands(hands)
    assert 0 < accepted < total


def test_stated_figures_off() -> None:
    check_hands(variant for hand in simulated()[::7] for variant in stated_figures_off(hand))


@pytest.mark.slow
def test_odd_headers_and_orders() -> None:
    """Antes, all-ins on the blinds, no blinds, zero bet sizes, other variants, actions
    reversed, shown cards in another order or another player's."""
    hands: list[HandHistory] = []
    for hand in simulated()[::5]:
        n = hand.num_players
        stacks = hand.starting_stacks
        assert stacks is not None
        hands += [dataclasses.replace(hand, antes=(1,) * n),
                  dataclasses.replace(hand, antes=(0,) * n, blinds_or_straddles=(0,) * n),
                  dataclasses.replace(hand, blinds_or_straddles=tuple(stacks)),
                  dataclasses.replace(hand, min_bet=0, small_bet=0, big_bet=0),
                  dataclasses.replace(hand, variant="X78"),
                  dataclasses.replace(hand, actions=hand.actions[::-1])]
        for index, action in enumerate(hand.actions):
            if len(action.cards) > 1:
                for cards in (action.cards[::-1], action.cards[1:] + action.cards[:1]):
                    actions = list(hand.actions)
                    actions[index] = dataclasses.replace(action, cards=cards)
                    hands.append(dataclasses.replace(hand, actions=tuple(actions)))
    check_hands(hands)


_TIES: Final = """\
[{number}]
format_version = 1
variant = "{variant}"
antes = [1, 1, 1]
blinds_or_straddles = [1, 2, 0]
{sizes}
starting_stacks = [50, 50, 50]
actions = [
  "d dh p1 7c8d",
  "d dh p2 8c7d",
  "d dh p3 AsKs",
  "p1 up 7c",
  "p2 up 7d",
  "p3 up As",
  "p3 f",
  "p1 cc",
  "p2 cc",
  "d dh p1 2h",
  "d dh p2 2s",
  "p1 cc",
  "p2 cc",
  "p1 sm {shown}",
  "p2 sm 2s8c7d",
]
finishing_stacks = [51, 50, 49]
winnings = [4, 3, 0]
players = ["A", "B", "C"]
seats = [1, 2, 3]
seat_count = 3
hand = {number}
table = "T"
time = 19:00:00
day = 1
month = 1
year = 2026
"""


def test_split_pots_with_an_odd_chip() -> None:
    """Two equal seven-eights share a pot of 7: the first from the button's left gets 4."""
    texts = [_TIES.format(number=number, variant=variant, sizes=sizes, shown=shown)
             for number, (variant, sizes, shown) in enumerate([
                 ("N78", "min_bet = 2", "7c8d2h"), ("P78", "min_bet = 2", "2h8d7c"),
                 ("F78", "small_bet = 2\nbig_bet = 4", "8d2h7c")], 1)]
    block, hands = read_block("\n".join(texts).encode("utf-8"))
    assert check_block(block, hands) == (3, 3)
    outcome = replay_block(block)
    assert outcome.award_amounts.tolist() == [4, 3] * 3
    assert outcome.showdown_cards == ["7c8d2h", "2s8c7d", "2h8d7c", "2s8c7d", "8d2h7c",
                                      "2s8c7d"]
    assert outcome.showdown_categories == ["seven_eight"] * 6


def test_a_shown_hand_with_a_repeated_card_is_left_to_the_per_hand_replay() -> None:
    """The reader rejects such a hand, but the replay must not score it either (the
    evaluator raises): the hand's columns are altered after reading."""
    text = _TIES.format(number=1, variant="N78", sizes="min_bet = 2", shown="7c8d2h")
    _, [hand] = read_block(text.encode("utf-8"))
    actions = list(hand.actions)
    seven, deuce = actions[0].cards[0], actions[9].cards[0]
    actions[0] = dataclasses.replace(actions[0], cards=(seven, seven))
    actions[13] = dataclasses.replace(actions[13], cards=(seven, seven, deuce))
    hand = dataclasses.replace(hand, actions=tuple(actions))
    block = block_from_hands("repeated.phhs", [(1, hand)])
    assert check_block(block, [hand]) == (0, 1)


_HUGE_BLIND: Final = """\
format_version = 1
variant = "N78"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [50, 50, 50]
actions = ["d dh p1 7c8d", "d dh p2 8c7d", "d dh p3 AsKs", "p1 up 7c", "p2 up 7d", "p3 up As",
           "p3 f", "p1 f"]
finishing_stacks = [49, 51, 50]
winnings = [0, 2, 0]
players = ["A", "B", "C"]
seats = [1, 2, 3]
seat_count = 3
hand = 1
table = "T"
time = 19:00:00
day = 1
month = 1
year = 2026
"""
"""A hand whose blinds the test raises past the reader's bounds: the big blind, all in
for his 50 chips, wins the small blind's 1 (the rest of his blind uncalled)."""


def test_chips_beyond_the_kernels_int64_bounds_are_left_to_the_per_hand_replay() -> None:
    """The reader bounds chips far below (parsers.build.MAX_CHIPS), but the kernel must not
    overflow on other blocks: the hand's header is altered after reading."""
    text = _TIES.format(number=1, variant="N78", sizes="min_bet = 2", shown="7c8d2h")
    _, [hand] = read_block(text.encode("utf-8"))
    big = 1 << 59
    # A big blind (and so a minimum bet) of 2**62 chips, posted all in for 50 and uncalled.
    _, [huge_blind] = read_block(dumps_hands(loads_hands(_HUGE_BLIND)).encode("utf-8"))
    huge = [dataclasses.replace(hand, starting_stacks=(big, big, big),
                                finishing_stacks=(big + 1, big, big - 1)),
            dataclasses.replace(huge_blind, blinds_or_straddles=(1, 1 << 62, 0),
                                min_bet=1 << 62)]
    for altered in huge:
        assert replay(altered).nets  # the per-hand replay plays it
        block = block_from_hands("huge.phhs", [(1, altered)])
        assert check_block(block, [altered]) == (0, 1)


def test_an_empty_block_and_warm_up() -> None:
    warm_up()
    block, _ = read_block(b"")
    outcome = replay_block(block)
    assert len(outcome.accepted) == 0
    assert outcome.award_offsets.tolist() == [0]


@settings(max_examples=120, deadline=None, derandomize=True)
@given(number=st.integers(0, 1 << 30), kinds=st.lists(st.sampled_from(KINDS), min_size=1,
                                                      max_size=3),
       positions=st.lists(st.integers(0, 1 << 16), min_size=6, max_size=6))
def test_mutated_samples(number: int, kinds: list[str], positions: list[int]) -> None:
    seeds = [seed for seed in load_seeds() if seed[0].startswith("seveneight")]
    _, data = seeds[number % len(seeds)]
    mutations = [Mutation(kind, positions[2 * i], positions[2 * i + 1], positions[i] & 0xFF)
                 for i, kind in enumerate(kinds)]
    check_block(*read_block(mutate(data, mutations)))


# ---- side pots: the block settles them as SevenEightState.outcome does (pots.settle)


def test_short_stack_simulated_hands() -> None:
    """Short stacks (8 to 15 chips against blinds of 1 and 2): many all-ins, side pots, folds
    after an all-in.  The block takes every one of these valid hands, side pots too."""
    hands: list[HandHistory] = []
    shapes = [("N78", 3, 12, 0), ("N78", 6, 12, 0), ("P78", 4, 10, 0), ("F78", 5, 8, 0),
              ("N78", 9, 15, 1), ("P78", 7, 9, 1), ("F78", 3, 14, 0), ("N78", 17, 11, 0)]
    for number, (variant, players, stack, ante) in enumerate(shapes):
        hands += simulate_seveneight(60, players, 700 + number, variant=variant,
                                     starting_stack=stack, ante=ante, session_hands=20)
    block, read = read_block(dumps_hands(hands).encode("utf-8"))
    assert check_block(block, read) == (len(hands), len(hands))
    outcome = replay_block(block)
    assert (outcome.award_pots > 0).sum() > 50  # side pots were settled here


def settled(text: str) -> str:
    """A hand's text with the finishing stacks and winnings the full engine gives it."""
    _, [hand] = read_block(f"[1]\n{text}".encode())
    outcome = seveneight.replay(
        dataclasses.replace(hand, finishing_stacks=None, winnings=None))
    won = outcome.extra["winnings"]
    assert isinstance(won, tuple)
    return dumps_hand(dataclasses.replace(hand, finishing_stacks=outcome.finishing_stacks,
                                          winnings=won))


def table_fields(n: int, number: int = 1) -> str:
    """The fields a block requires besides the betting (seats, labels, date)."""
    return "\n".join([
        f"players = {[f'P{p}' for p in range(1, n + 1)]}".replace("'", '"'),
        f"seats = {list(range(1, n + 1))}", f"seat_count = {n}", f"hand = {number}",
        'table = "T"', "time = 19:00:00", "day = 1", "month = 1", "year = 2026", ""])


_ALL_INS: Final = """\
format_version = 1
variant = "N78"
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0]
min_bet = 2
starting_stacks = {stacks}
actions = [
  "d dh p1 AsKs",
  "d dh p2 7c8d",
  "d dh p3 7d8c",
  "d dh p4 QhJh",
  "p1 up As",
  "p2 up 7c",
  "p3 up 7d",
  "p4 up Qh",
{actions}
]
finishing_stacks = [0, 0, 0, 0]
winnings = [0, 0, 0, 0]
"""


def all_in_hand(stacks: list[int], actions: list[str]) -> str:
    """A four-player N78 hand (blinds 1 and 2) of these stacks and betting, settled."""
    lines = "\n".join(f'  "{action}",' for action in actions)
    return settled(_ALL_INS.format(stacks=stacks, actions=lines) + table_fields(4))


def test_four_all_ins_with_a_tie_in_the_side_pot_and_an_odd_chip() -> None:
    """Stacks 10, 21, 21, 40, p4 calls the all-ins: a main pot of 40 (everybody) and side1 of
    33 (p2, p3, p4).  p1 and p4 muck, p2 and p3 tie: 20 each of the main pot,
    17 and 16 of side1 (the odd chip to the first from the button's left)."""
    text = all_in_hand([10, 21, 21, 40], [
        "p3 cbr 21", "p4 cc", "p1 cc", "p2 cc", "d dh p1 3c", "d dh p2 2h", "d dh p3 2s",
        "d dh p4 4d", "p1 sm", "p2 sm 7c8d2h", "p3 sm 7d8c2s", "p4 sm"])
    block, hands = read_block(f"[1]\n{text}".encode())
    assert check_block(block, hands) == (1, 1)
    got = outcome_of(replay_block(block), 0)
    assert [(a.pot, a.player, a.amount) for a in got.awards] == [
        ("main", 2, 20), ("main", 3, 20), ("side1", 2, 17), ("side1", 3, 16)]
    assert got.nets == (-10, 16, 15, -21)
    assert got.finishing_stacks == (0, 37, 36, 19)
    assert got.winner == 2


def test_a_fold_after_an_all_in_and_a_side_pot_won_unshown() -> None:
    """p3 is all in for 12, p2 folds, p4 folds to p1's bet on the third card: the main pot
    (38: p1 and p3) goes to p3, whose hand is the only one shown; side1 (36) to p1, its only
    eligible player, who mucked; p1's uncalled 10 comes back."""
    text = all_in_hand([50, 40, 12, 60], [
        "p3 cbr 12", "p4 cbr 30", "p1 cc", "p2 f", "d dh p1 3c", "d dh p3 2s", "d dh p4 4d",
        "p1 cbr 10", "p4 f", "p1 sm", "p3 sm 7d8c2s"])
    block, hands = read_block(f"[1]\n{text}".encode())
    assert check_block(block, hands) == (1, 1)
    got = outcome_of(replay_block(block), 0)
    assert [(a.pot, a.player, a.amount) for a in got.awards] == [("main", 3, 38),
                                                                   ("side1", 1, 36)]
    assert got.finishing_stacks == (56, 38, 38, 30)
    assert got.winner == 3


def test_three_all_ins_with_different_stacks() -> None:
    """p3 (10) all in, p4 raises to 60, p1 (25) calls all in, p2 folds his blind: 35
    uncalled back to p4, main 32 (p1, p3, p4), side1 30 (p1, p4)."""
    text = all_in_hand([25, 40, 10, 80], [
        "p3 cbr 10", "p4 cbr 60", "p1 cc", "p2 f", "d dh p1 3c", "d dh p3 2s", "d dh p4 4d",
        "p1 sm AsKs3c", "p3 sm 7d8c2s", "p4 sm QhJh4d"])
    block, hands = read_block(f"[1]\n{text}".encode())
    assert check_block(block, hands) == (1, 1)
    got = outcome_of(replay_block(block), 0)
    assert {a.pot for a in got.awards} == {"main", "side1"}
    assert sum(a.amount for a in got.awards if a.pot == "side1") == 30
    assert got.extra["refunds"] == (0, 0, 0, 35)


def random_all_ins(rng: random.Random, number: int) -> str:
    """A random hand of 3 to 6 players with different short stacks, where every player in
    turn goes all in, calls all in or folds, on the first cards or on the third; some ranks
    repeat among the players (ties), some players muck.  Settled by the full engine; as
    written (figures of 0) when it raises (nobody contests a pot, betting it rejects)."""
    n = rng.randint(3, 6)
    stacks = rng.sample(range(3, 40), n)
    ranks = rng.sample("A23456789TJQK", 6)
    deck = [rank + suit for rank in ranks for suit in "cdhs"]
    rng.shuffle(deck)
    holes = [deck[3 * p:3 * p + 3] for p in range(n)]
    lines = [f"d dh p{p + 1} {holes[p][0]}{holes[p][1]}" for p in range(n)]
    lines += [f"p{p + 1} up {holes[p][0]}" for p in range(n)]
    paid = [0] * n
    paid[0], paid[1] = min(1, stacks[0]), min(2, stacks[1])
    in_hand = [True] * n
    late = rng.random() < 0.5  # the all-ins on the third card, everybody calls first
    orders = [[*range(2, n), 0, 1], list(range(n))]

    def orbit(order: list[int], push: bool) -> None:
        current = max(paid)
        for p in order:
            if not in_hand[p] or paid[p] == stacks[p]:
                continue
            others = any(in_hand[q] and stacks[q] > current for q in range(n) if q != p)
            if push and rng.random() < 0.25 and sum(in_hand) > 2:
                lines.append(f"p{p + 1} f")
                in_hand[p] = False
            elif push and stacks[p] > current and others:
                lines.append(f"p{p + 1} cbr {stacks[p]}")  # all in (the round's level)
                paid[p] = stacks[p]
                current = stacks[p]
            else:
                lines.append(f"p{p + 1} cc")
                paid[p] = min(current, stacks[p])

    orbit(orders[0], not late)
    lines += [f"d dh p{p + 1} {holes[p][2]}" for p in range(n) if in_hand[p]]
    if late:
        base = paid[:]
        stacks = [stack - chips for stack, chips in zip(stacks, base, strict=True)]
        paid = [0] * n
        orbit(orders[1], True)
        stacks = [stack + chips for stack, chips in zip(stacks, base, strict=True)]
    for p in range(n):
        if in_hand[p]:
            lines.append(f"p{p + 1} sm" if rng.random() < 0.15
                         else f"p{p + 1} sm {''.join(holes[p])}")
    text = "\n".join([
        f"[{number}]", "format_version = 1", 'variant = "N78"', f"antes = {[0] * n}",
        f"blinds_or_straddles = {[1, 2] + [0] * (n - 2)}", "min_bet = 2",
        f"starting_stacks = {stacks}", "actions = [",
        *[f'  "{line}",' for line in lines], "]", f"finishing_stacks = {[0] * n}",
        f"winnings = {[0] * n}", table_fields(n, number)])
    try:
        return f"[{number}]\n" + settled(text.split("\n", 1)[1])
    except RuleError:
        return text


def test_random_all_ins_ties_folds_and_mucks() -> None:
    rng = random.Random("side pots")
    texts = [random_all_ins(rng, number) for number in range(1, 401)]
    block, hands = read_block("\n".join(texts).encode("utf-8"))
    accepted, total = check_block(block, hands)
    outcome = replay_block(block)
    assert total == 400, total
    assert accepted > total // 2, (accepted, total)
    assert (outcome.award_pots > 0).sum() > 50


def test_the_ingest_rows_of_short_stack_files_are_the_per_hand_paths() -> None:
    """With side pots taken by the block, the worker's block path still gives the per-hand
    path's tables (awards of side pots, pots won, all-in rows), and takes those hands."""
    from tests.test_pipeline_blocks import assert_same
    from tests.test_warehouse_block_equities import simulated_text

    for variant, players, stack, seed in [("N78", 6, 12, 1), ("P78", 4, 10, 2),
                                          ("F78", 5, 8, 3)]:
        data = simulated_text(variant, players, 150, seed, stack=stack)
        result = assert_same(data)
        assert result.hands == 150
        block, _ = read_block(data)
        outcome = replay_block(block)
        assert outcome.accepted.all()
        assert (outcome.award_pots > 0).any()


def _blind_variants(hand: HandHistory) -> list[HandHistory]:
    """``hand`` with blinds or min_bet breaking RULES.md 3's blinds rule, every way."""
    n = hand.num_players
    blinds = tuple(hand.blinds_or_straddles or ())
    small, big = (blinds[1], blinds[0]) if n == 2 else (blinds[0], blinds[1])
    wrong: list[tuple[int, ...]] = []
    if n == 2:
        wrong += [(small, big + 1), (0, small), (big, 0)]
    else:
        wrong += [(big + 1, big, *blinds[2:]), (0, big, *blinds[2:]),
                  (small, big, *blinds[2:-1], big)]
    hands = [dataclasses.replace(hand, blinds_or_straddles=blinds_) for blinds_ in wrong]
    if hand.variant != "F78":
        hands.append(dataclasses.replace(hand, min_bet=big - 1))
    return hands


def test_blinds_against_the_rule_are_left_to_the_engine_which_rejects_them() -> None:
    """RULES.md 3's blinds (a third blind, an inverted pair, a heads-up big blind on the
    button, a min_bet below the big blind): the block accepts none, the engine rejects each
    (and the hand as simulated is accepted)."""
    hands = list(simulated()[::9])
    wrong = [variant for hand in hands for variant in _blind_variants(hand)]
    accepted, total = check_hands([*hands, *wrong])
    outcome = replay_block(read_block(dumps_hands([*hands, *wrong]).encode("utf-8"))[0])
    assert not outcome.accepted[len(hands):].any()
    assert outcome.accepted[:len(hands)].sum() > len(hands) // 2
    for hand in wrong:
        with pytest.raises(RuleError, match=r"blinds_or_straddles|min_bet"):
            seveneight.replay(hand)
    assert total == len(hands) + len(wrong) and accepted <= len(hands)


def test_antes_that_differ_are_left_to_the_engine_which_rejects_them() -> None:
    """RULES.md 3's ante is one number: a hand whose antes differ between players (its
    larger ante came back as uncalled chips, costing nothing) is accepted by neither the
    block nor the engine; one ante for all, and a 0 ante, are accepted."""
    hands = list(simulated()[::9])
    n = [hand.num_players for hand in hands]
    unequal = [dataclasses.replace(hand, antes=(0,) * (count - 1) + (5,))
               for hand, count in zip(hands, n, strict=True)]
    outcome = replay_block(read_block(dumps_hands([*hands, *unequal]).encode("utf-8"))[0])
    assert not outcome.accepted[len(hands):].any()
    assert outcome.accepted[:len(hands)].any()
    for hand in unequal:
        with pytest.raises(RuleError, match=r"every player owes the same ante"):
            seveneight.replay(hand)
