"""The lean replays of 7 & 8 and Big Two agree with the full engines, for any input.

``analytics.rules.seveneight.replay`` and ``analytics.rules.bigtwo.replay``
first try a lean replay that only accepts legal hands of the usual shapes and
gives up (None) on anything else; the full engine (``replay_full``) then
replays the hand and raises every :class:`RuleError`.  These tests check:

* on valid simulated hands of many shapes, the lean replay accepts nearly all
  and its :class:`Outcome` is the full engine's (every field, ``extra`` too);
* on hands altered at one action (dropped, duplicated, swapped, another actor,
  other cards, an amount at and around the legal bounds, stated figures off) and
  on byte-level mutations of the sample files (tests/mutate.py), ``replay``
  gives exactly what ``replay_full`` gives: the same Outcome, or an error of the
  same type with the same message, rule, line and action.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import random
from collections.abc import Callable, Iterator
from functools import cache
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules import Outcome, RuleError, bigtwo, seveneight
from analytics.rules.seveneight import SevenEightState
from parsers import HandHistory, loads_hands, read_hands
from parsers.cards import UNKNOWN, Card
from parsers.knobs import BigTwoRules, BigTwoScoring, Game
from parsers.model import Action, ActionFields
from tests.mutate import KINDS, Mutation, load_seeds, mutate
from tests.test_rules_golden import _mutated, _simulated

ENGINES: Final = {"seveneight": seveneight, "bigtwo": bigtwo}


def lean_replay(game: str) -> Callable[[HandHistory], Outcome | None]:
    """The game's lean replay (an Outcome, or None: left to the full engine)."""
    found: Callable[[HandHistory], Outcome | None] = ENGINES[game]._replay_lean
    return found

Result = tuple[str, object]


def result(replay: Callable[[HandHistory], Outcome], hand: HandHistory) -> Result:
    """What ``replay`` gives for ``hand``: the outcome (with ``extra``), or the error's fields."""
    try:
        outcome = replay(hand)
    except RuleError as error:
        return "rule", (str(error), error.message, error.rule, error.line, error.action_index,
                        error.action_text)
    except Exception as error:  # the full engine's other errors must match too
        return "other", (type(error).__name__, str(error))
    return "outcome", (outcome, outcome.extra)


def assert_same(game: str, hand: HandHistory) -> None:
    """``replay`` (lean first) and ``replay_full`` agree on ``hand``; for 7 & 8 also the
    ingest worker's replay of the actions as columns (``replay_fields``: the hand without
    its Actions, their fields beside it)."""
    engine = ENGINES[game]
    full = result(engine.replay_full, hand)
    assert result(engine.replay, hand) == full
    lean = lean_replay(game)(hand)
    if lean is not None:  # the lean replay accepts only what the full engine accepts
        assert full == ("outcome", (lean, lean.extra))
    if game == "seveneight":
        bare = dataclasses.replace(hand, actions=())
        replay_columns = functools.partial(seveneight.replay_fields,
                                           fields=ActionFields.of(hand.actions))
        assert result(replay_columns, bare) == full


@cache
def simulated(game: str) -> tuple[HandHistory, ...]:
    return tuple(_simulated(game))


@pytest.mark.parametrize("game", ENGINES)
def test_lean_replay_takes_valid_hands_and_gives_the_full_outcome(game: str) -> None:
    hands = simulated(game)
    taken = 0
    for hand in hands:
        lean = lean_replay(game)(hand)
        full = ENGINES[game].replay_full(hand)
        if lean is not None:
            taken += 1
            assert lean == full
            assert lean.extra == full.extra
    # Side pots (short stacks) and the rare shapes go the long way; the usual ones must not.
    assert taken >= 0.75 * len(hands), (taken, len(hands))


def _strip_lines(hand: HandHistory, actions: list[Action]) -> HandHistory:
    return dataclasses.replace(hand, actions=tuple(actions))


@pytest.mark.parametrize("game", ENGINES)
def test_replay_matches_the_full_engine_on_altered_hands(game: str) -> None:
    rng = random.Random(f"lean-{game}")
    for hand in simulated(game):
        for kind in ("any", "any", "sized"):
            if hand.actions:
                assert_same(game, _mutated(hand, rng, kind))


def stated_figures_off(hand: HandHistory) -> Iterator[HandHistory]:
    """``hand`` with each player's stated finishing stack, then winnings, one chip off, and
    with neither stated."""
    n = hand.num_players
    for stated in (hand.finishing_stacks or (0,) * n, hand.winnings or (0,) * n):
        for player in range(n):
            changed = list(stated)
            changed[player] += 1
            if stated is hand.winnings:
                yield dataclasses.replace(hand, winnings=tuple(changed))
            else:
                yield dataclasses.replace(hand, finishing_stacks=tuple(changed))
    yield dataclasses.replace(hand, finishing_stacks=None, winnings=None)


@pytest.mark.parametrize("game", ENGINES)
def test_replay_matches_the_full_engine_when_stated_figures_are_off(game: str) -> None:
    for hand in simulated(game)[::5]:
        for variant in stated_figures_off(hand):
            assert_same(game, variant)


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


def test_seveneight_bets_at_the_bounds_match_the_full_engine() -> None:
    for hand in simulated("seveneight")[::2]:
        for index, action in enumerate(hand.actions):
            if action.amount is None:
                continue
            for amount in _betting_bounds(hand, index):
                actions = list(hand.actions)
                actions[index] = dataclasses.replace(action, amount=amount)
                assert_same("seveneight", _strip_lines(hand, actions))


def test_seveneight_odd_shapes_match_the_full_engine() -> None:
    """Headers and action orders the lean replay must hand over: antes, all-ins on the
    blinds, unknown cards, no-ops, deals out of order, showdown cards in another order."""
    hands = simulated("seveneight")
    for hand in hands[::3]:
        n = hand.num_players
        stacks = hand.starting_stacks
        assert stacks is not None
        variants = [
            dataclasses.replace(hand, antes=(1,) * n),
            dataclasses.replace(hand, antes=None, blinds_or_straddles=None),
            dataclasses.replace(hand, blinds_or_straddles=tuple(stacks)),  # all in on blinds
            dataclasses.replace(hand, starting_stacks=(*stacks[:-1], 0)),
            dataclasses.replace(hand, min_bet=0, small_bet=0, big_bet=0),
            dataclasses.replace(hand, min_bet=None, small_bet=None, big_bet=None),
            dataclasses.replace(hand, variant="X78"),
            dataclasses.replace(hand, antes=(0,) * (n + 1)),
        ]
        actions = list(hand.actions)
        variants.append(_strip_lines(hand, actions[::-1]))
        variants.append(_strip_lines(hand, actions + [Action(0, seveneight._VERB_NOOP)]))
        variants.append(_strip_lines(hand, [Action(0, seveneight._VERB_NOOP), *actions]))
        variants.append(_strip_lines(hand, actions[:-1]))
        for index, action in enumerate(actions):
            if action.cards:
                unknown = (UNKNOWN,) * len(action.cards)
                variants.append(_strip_lines(hand, [*actions[:index],
                                                    dataclasses.replace(action, cards=unknown),
                                                    *actions[index + 1:]]))
                if len(action.cards) > 1:
                    variants.append(_strip_lines(hand, [
                        *actions[:index], dataclasses.replace(action, cards=action.cards[::-1]),
                        *actions[index + 1:]]))
        for variant in variants:
            assert_same("seveneight", variant)


def test_bigtwo_odd_shapes_match_the_full_engine() -> None:
    """Deals and plays the lean replay must hand over: a deal split in two, cards built by
    hand, unknown cards, no-ops, actions after the end, rank scoring, stated figures."""
    hands = simulated("bigtwo")
    for hand in hands[::4]:
        actions = list(hand.actions)
        n = hand.num_players
        deal = actions[0]
        variants = [
            _strip_lines(hand, actions + [Action(0, seveneight._VERB_NOOP)]),
            _strip_lines(hand, actions + [actions[-1]]),
            _strip_lines(hand, actions[:-1]),
            _strip_lines(hand, [*actions[:n], Action(0, seveneight._VERB_NOOP), *actions[n:]]),
            _strip_lines(hand, [*actions[1:n], deal, *actions[n:]]),  # deals in another order
            _strip_lines(hand, [dataclasses.replace(deal, cards=deal.cards[:6]),
                                dataclasses.replace(deal, cards=deal.cards[6:]), *actions[1:]]),
            _strip_lines(hand, [dataclasses.replace(deal, cards=(UNKNOWN, *deal.cards[1:])),
                                *actions[1:]]),
            _strip_lines(hand, [dataclasses.replace(deal, cards=tuple(
                Card(card.rank, card.suit) for card in deal.cards)), *actions[1:]]),
            dataclasses.replace(hand, starting_stacks=(0,) * (n + 1)),
            dataclasses.replace(hand, starting_stacks=None, finishing_stacks=None),
        ]
        if isinstance(hand.rules, BigTwoRules):
            variants.append(dataclasses.replace(hand, rules=dataclasses.replace(
                hand.rules, scoring=BigTwoScoring.RANK)))
        for index, action in enumerate(actions[n:], n):
            if action.cards:
                built = tuple(Card(card.rank, card.suit) for card in action.cards)
                variants.append(_strip_lines(hand, [
                    *actions[:index], dataclasses.replace(action, cards=built),
                    *actions[index + 1:]]))
                break
        for variant in variants:
            assert_same("bigtwo", variant)


def _game_of(hand: HandHistory) -> str | None:
    if hand.game is Game.SEVENEIGHT:
        return "seveneight"
    return "bigtwo" if hand.game is Game.BIGTWO else None


@settings(max_examples=150, deadline=None, derandomize=True)
@given(number=st.integers(0, 1 << 30), kinds=st.lists(st.sampled_from(KINDS), min_size=1,
                                                      max_size=3),
       positions=st.lists(st.integers(0, 1 << 16), min_size=6, max_size=6))
def test_replay_matches_the_full_engine_on_mutated_samples(number: int, kinds: list[str],
                                                           positions: list[int]) -> None:
    seeds = [seed for seed in load_seeds() if not seed[0].startswith("rummoli")]
    _, data = seeds[number % len(seeds)]
    mutations = [Mutation(kind, positions[2 * i], positions[2 * i + 1], positions[i] & 0xFF)
                 for i, kind in enumerate(kinds)]
    for hand in read_hands(io.BytesIO(mutate(data, mutations)), name="lean.phhs"):
        game = _game_of(hand)
        if game is not None and not hand.errors:
            assert_same(game, hand)


def test_replay_matches_the_full_engine_on_the_sample_files() -> None:
    for name, data in load_seeds(per_file=40):
        for hand in loads_hands(data.decode("utf-8"), name=name):
            game = _game_of(hand)
            if game is not None:
                assert_same(game, hand)
