"""The lean Rummoli replay agrees with the full engine, for any input.

``analytics.rules.rummoli.replay`` first tries a lean replay
(:mod:`analytics.rules.rummoli_lean`) that only accepts ordinary legal rounds
(claim = auto; every shown hand shown whole) and gives
up (None) on anything else; the full engine (``replay_full``) then replays the
round and raises every :class:`RuleError`.  These tests check, as
tests/test_rules_lean.py does for 7 & 8 and Big Two:

* on valid simulated rounds of many shapes, the lean replay accepts the
  ordinary ones and its :class:`Outcome` is the full engine's (``extra`` too);
* on rounds altered at one action, with bets at and around the legal bounds,
  odd shapes (no-ops, unknown cards, the best five shown, actions after the end),
  stated figures off, byte-level mutations of the sample files and the sample
  files themselves, ``replay`` gives exactly what ``replay_full`` gives: the same
  Outcome, or an error of the same type, message, rule, line and action.

Every round is also replayed as the ingest worker reads it, its actions as columns
(``replay_fields`` on :class:`~parsers.model.ActionFields`, the hand without its
Actions): the same outcome or error, the lean replay of the columns taking exactly the
rounds the lean replay of the Actions takes; and the round's cards for the strength
kernel (``rummoli_round_deal``) read from the columns are those read from the Actions.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.equity.rummoli import rummoli_round_deal
from analytics.evaluator import EvaluationError
from analytics.rules import rummoli
from analytics.simulate.rummoli import simulate_rummoli
from parsers import HandHistory, loads_hands, read_hands
from parsers.cards import UNKNOWN, Card
from parsers.knobs import Claim, Game, RummoliRules
from parsers.model import Action, ActionFields, Verb
from tests.mutate import KINDS, Mutation, load_seeds, mutate
from tests.test_rules_golden import _mutated, _simulated
from tests.test_rules_lean import result, stated_figures_off


def assert_same(hand: HandHistory) -> None:
    """``replay`` (lean first) and ``replay_full`` agree on ``hand``, and so do the replay
    of its actions as columns and the round's cards read from them."""
    full = result(rummoli.replay_full, hand)
    assert result(rummoli.replay, hand) == full
    try:
        lean = rummoli._replay_lean(hand)
    except Exception:  # a header the full engine refuses: lean_first hands it over
        lean = None
    if lean is not None:  # the lean replay accepts only what the full engine accepts
        assert full == ("outcome", (lean, lean.extra))
    assert_same_fields(hand, full, lean)


def _without_actions(hand: HandHistory) -> tuple[HandHistory, ActionFields]:
    """``hand`` as the reader's column form gives it: no actions, and their fields."""
    return dataclasses.replace(hand, actions=()), ActionFields.of(hand.actions)


def _deal(hand: HandHistory, fields: ActionFields | None = None) -> object:
    """The round's cards for the strength kernel, or the evaluator's error."""
    try:
        return rummoli_round_deal(hand, fields)
    except EvaluationError as error:
        return "error", str(error)


def assert_same_fields(hand: HandHistory, full: object, lean: object) -> None:
    """The column form of ``hand``: ``replay_fields`` gives ``full`` (what ``replay_full``
    gives on the hand), the lean replay of the columns gives ``lean`` (its result on the
    Actions: the same rounds taken, the same outcome), and the deal is the same."""
    bare, fields = _without_actions(hand)
    assert result(functools.partial(rummoli.replay_fields, fields=fields), bare) == full
    try:
        lean_fields = rummoli._replay_lean_fields(bare, fields)
    except Exception:
        lean_fields = None
    assert lean_fields == lean
    if lean_fields is not None and lean is not None:
        assert lean_fields.extra == lean.extra
    assert _deal(bare, fields) == _deal(hand)


@cache
def simulated() -> tuple[HandHistory, ...]:
    """The golden tests' rounds of many shapes, and short-stacked ones (side pots)."""
    hands = list(_simulated("rummoli"))
    hands += simulate_rummoli(150, 4, 7)
    hands += simulate_rummoli(60, 3, 11, variant="PRM")
    hands += simulate_rummoli(60, 5, 12, variant="FRM")
    return tuple(hands)


def _ordinary(hand: HandHistory) -> bool:
    rules = hand.rules
    return not isinstance(rules, RummoliRules) or rules.claim is Claim.AUTO


def _with_actions(hand: HandHistory, actions: list[Action]) -> HandHistory:
    return dataclasses.replace(hand, actions=tuple(actions))


def test_lean_replay_takes_ordinary_rounds_and_gives_the_full_outcome() -> None:
    ordinary = taken = 0
    for hand in simulated():
        lean = rummoli._replay_lean(hand)
        full = rummoli.replay_full(hand)
        assert_same_fields(hand, ("outcome", (full, full.extra)), lean)
        if _ordinary(hand):
            ordinary += 1
        if lean is not None:
            taken += 1
            assert _ordinary(hand)
            assert lean == full
            assert lean.extra == full.extra
    # Only the best five shown goes the long way among the ordinary rounds.
    assert taken >= 0.95 * ordinary, (taken, ordinary)


@pytest.mark.slow
def test_replay_matches_the_full_engine_on_altered_rounds() -> None:
    rng = random.Random("lean-rummoli")
    for hand in simulated():
        for kind in ("any", "any", "sized"):
            if hand.actions:
                assert_same(_mutated(hand, rng, kind))


def test_replay_matches_the_full_engine_when_stated_figures_are_off() -> None:
    for hand in simulated()[::5]:
        for variant in stated_figures_off(hand):
            assert_same(variant)


def _betting_bounds(hand: HandHistory, index: int) -> tuple[int, ...]:
    """Amounts around the legal bounds of the bet or raise at ``actions[index]``."""
    state = rummoli.state_from_hand(hand)
    for action in hand.actions[:index]:
        state.apply(action)
    amount = hand.actions[index].amount
    assert amount is not None
    found = {amount - 1, amount + 1, 0, 1}
    bounds = state.bet_range()
    if bounds is not None:
        low, high = bounds
        found |= {low - 1, low, high, high + 1}
    found |= {max(state.stacks) + 1}
    return tuple(sorted(found))


@pytest.mark.slow
def test_bets_at_the_bounds_match_the_full_engine() -> None:
    for hand in simulated()[::3]:
        for index, action in enumerate(hand.actions):
            if action.verb is not Verb.BET_RAISE or action.amount is None:
                continue
            for amount in _betting_bounds(hand, index):
                actions = list(hand.actions)
                actions[index] = dataclasses.replace(action, amount=amount)
                assert_same(_with_actions(hand, actions))


def _best_five(hand: HandHistory, index: int) -> HandHistory | None:
    """``hand`` with the show at ``actions[index]`` cut to the shown hand's best five."""
    from analytics.evaluator import poker_rank

    action = hand.actions[index]
    if len(action.cards) <= 5:
        return None
    best = poker_rank(action.cards).best_five
    actions = list(hand.actions)
    actions[index] = dataclasses.replace(action, cards=tuple(best))
    return _with_actions(hand, actions)


@pytest.mark.slow
def test_odd_shapes_match_the_full_engine() -> None:
    """Rounds the lean replay must hand over or get right: no-ops anywhere, actions after
    the end, the end cut off, unknown cards, the best five shown, cards in another order,
    a duplicated show, a muck by the last to show, claims, an end-of-game round, deals of
    a card twice, of an unknown card, of no card or of a card too few."""
    noop = Action(0, Verb.NOOP)
    for hand in simulated()[::4]:
        actions = list(hand.actions)
        variants = [
            _with_actions(hand, actions + [noop]),
            _with_actions(hand, [noop, *actions]),
            _with_actions(hand, actions + [actions[-1]]),
            _with_actions(hand, actions[:-1]),
            _with_actions(hand, actions[:-2]),
            dataclasses.replace(hand, finale_pot="all"),
            dataclasses.replace(hand, finale_pot="TS"),
            dataclasses.replace(hand, finale_pot=None),
            dataclasses.replace(hand, board_before=None),
            dataclasses.replace(hand, min_bet=0),
        ]
        if isinstance(hand.rules, RummoliRules):
            other = Claim.MANUAL if hand.rules.claim is Claim.AUTO else Claim.AUTO
            variants.append(dataclasses.replace(
                hand, rules=dataclasses.replace(hand.rules, claim=other)))
        for index, action in enumerate(actions):
            if action.verb is Verb.SHOW_MUCK:
                variants.append(_with_actions(hand, [*actions[:index], noop, *actions[index:]]))
                variants.append(_with_actions(hand, [
                    *actions[:index], dataclasses.replace(action, cards=()),
                    *actions[index + 1:]]))
                if action.cards:
                    variants.append(_with_actions(hand, [
                        *actions[:index],
                        dataclasses.replace(action, cards=action.cards[::-1]),
                        *actions[index + 1:]]))
                    variants.append(_with_actions(hand, [
                        *actions[:index],
                        dataclasses.replace(action, cards=(*action.cards, action.cards[0])),
                        *actions[index + 1:]]))
                    five = _best_five(hand, index)
                    if five is not None:
                        variants.append(five)
            elif action.verb is Verb.PLAY and action.cards:
                variants.append(_with_actions(hand, [
                    *actions[:index], dataclasses.replace(action, cards=(UNKNOWN,)),
                    *actions[index + 1:]]))
                variants.append(_with_actions(hand, [
                    *actions[:index], dataclasses.replace(action, cards=action.cards * 2),
                    *actions[index + 1:]]))
            elif action.cards and index < 6:
                variants.append(_with_actions(hand, [
                    *actions[:index], dataclasses.replace(action, cards=action.cards[::-1]),
                    *actions[index + 1:]]))
                # A deal with a card twice, an unknown card, no card, or one card fewer; and
                # with a card twice in place of the card of the next code (the two bits add
                # up to that card's bit).
                codes = {card.code for card in action.cards}
                twin = next((card for card in action.cards if card.code + 1 in codes), None)
                odd_deals: list[tuple[Card, ...]] = [
                    (*action.cards, action.cards[0]), (UNKNOWN, *action.cards[1:]), (),
                    action.cards[1:]]
                if twin is not None:
                    odd_deals.append(tuple(twin if card.code == twin.code + 1 else card
                                           for card in action.cards))
                for cards in odd_deals:
                    variants.append(_with_actions(hand, [
                        *actions[:index], dataclasses.replace(action, cards=cards),
                        *actions[index + 1:]]))
        for variant in variants:
            assert_same(variant)


def test_a_round_nobody_can_bet_in_matches_the_full_engine() -> None:
    """Everybody but one all in from the antes: the betting is over before it begins."""
    for hand in simulated()[::7]:
        stacks = hand.starting_stacks
        assert stacks is not None
        short = (stacks[0], *(min(stack, 9) for stack in stacks[1:]))
        assert_same(dataclasses.replace(hand, starting_stacks=short, finishing_stacks=None))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(number=st.integers(0, 1 << 30), kinds=st.lists(st.sampled_from(KINDS), min_size=1,
                                                      max_size=3),
       positions=st.lists(st.integers(0, 1 << 16), min_size=6, max_size=6))
def test_replay_matches_the_full_engine_on_mutated_samples(number: int, kinds: list[str],
                                                           positions: list[int]) -> None:
    seeds = [seed for seed in load_seeds() if seed[0].startswith("rummoli")]
    _, data = seeds[number % len(seeds)]
    mutations = [Mutation(kind, positions[2 * i], positions[2 * i + 1], positions[i] & 0xFF)
                 for i, kind in enumerate(kinds)]
    for hand in read_hands(io.BytesIO(mutate(data, mutations)), name="lean.phhs"):
        if hand.game is Game.RUMMOLI and not hand.errors:
            assert_same(hand)


def test_replay_matches_the_full_engine_on_the_sample_files() -> None:
    for name, data in load_seeds(per_file=40):
        for hand in loads_hands(data.decode("utf-8"), name=name):
            if hand.game is Game.RUMMOLI:
                assert_same(hand)
