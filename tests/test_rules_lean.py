"""The lean replay of Big Two agrees with the full engine, for any input.

``analytics.rules.bigtwo.replay`` first tries a lean replay that only accepts legal
hands of the usual shapes and gives up (None) on anything else; the full engine
(``replay_full``) then replays the hand and raises every :class:`RuleError`.  (The 7 & 8
lean replay is gone: the ingest's block kernel takes its hands.)  These tests check:

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
import io
import random
from collections.abc import Callable
from functools import cache
from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules import Outcome, bigtwo
from parsers import HandHistory, loads_hands, read_hands
from parsers.caching import BoundedCache
from parsers.cards import UNKNOWN, Card
from parsers.knobs import BigTwoRules, BigTwoScoring, Game
from parsers.model import Action
from tests.mutate import KINDS, Mutation, load_seeds, mutate
from tests.test_rules_golden import _mutated, _simulated, result, stated_figures_off

ENGINES: Final = {"bigtwo": bigtwo}


def lean_replay(game: str) -> Callable[[HandHistory], Outcome | None]:
    """The game's lean replay (an Outcome, or None: left to the full engine)."""
    found: Callable[[HandHistory], Outcome | None] = ENGINES[game]._replay_lean
    return found

def assert_same(game: str, hand: HandHistory) -> None:
    """``replay`` (lean first) and ``replay_full`` agree on ``hand``."""
    engine = ENGINES[game]
    full = result(engine.replay_full, hand)
    assert result(engine.replay, hand) == full
    lean = lean_replay(game)(hand)
    if lean is not None:  # the lean replay accepts only what the full engine accepts
        assert full == ("outcome", (lean, lean.extra))


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


@pytest.mark.parametrize("game", ENGINES)
def test_replay_matches_the_full_engine_when_stated_figures_are_off(game: str) -> None:
    for hand in simulated(game)[::5]:
        for variant in stated_figures_off(hand):
            assert_same(game, variant)


def test_bigtwo_odd_shapes_match_the_full_engine() -> None:
    """Deals and plays the lean replay must hand over: a deal split in two, cards built by
    hand, unknown cards, no-ops, actions after the end, rank scoring, stated figures."""
    hands = simulated("bigtwo")
    for hand in hands[::4]:
        actions = list(hand.actions)
        n = hand.num_players
        deal = actions[0]
        variants = [
            _strip_lines(hand, actions + [Action(0, bigtwo._VERB_NOOP)]),
            _strip_lines(hand, actions + [actions[-1]]),
            _strip_lines(hand, actions[:-1]),
            _strip_lines(hand, [*actions[:n], Action(0, bigtwo._VERB_NOOP), *actions[n:]]),
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
    return "bigtwo" if hand.game is Game.BIGTWO else None


@settings(max_examples=150, deadline=None, derandomize=True)
@given(number=st.integers(0, 1 << 30), kinds=st.lists(st.sampled_from(KINDS), min_size=1,
                                                      max_size=3),
       positions=st.lists(st.integers(0, 1 << 16), min_size=6, max_size=6))
def test_replay_matches_the_full_engine_on_mutated_samples(number: int, kinds: list[str],
                                                           positions: list[int]) -> None:
    seeds = [seed for seed in load_seeds() if seed[0].startswith("bigtwo")]
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


def test_play_masks_remembered_by_identity_change_nothing(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The lean replay remembers a play's mask by its cards tuple's identity: the same
    outcomes with the reader's shared tuples, with equal tuples made afresh for every
    action (every look-up a miss), and with the memo cleared at every play."""
    hands = simulated("bigtwo")[:60]
    shared = [bigtwo.replay(hand) for hand in hands]
    for hand, expected in zip(hands, shared, strict=True):
        fresh = tuple(dataclasses.replace(action, cards=(*action.cards,))
                      for action in hand.actions)
        assert all(new.cards is not old.cards for new, old
                   in zip(fresh, hand.actions, strict=True) if old.cards)
        assert bigtwo.replay(dataclasses.replace(hand, actions=fresh)) == expected
    monkeypatch.setattr(bigtwo, "_GROUP_MASKS",
                        BoundedCache[int, Any]("tests.rules_lean.group_masks", 1))
    for hand, expected in zip(hands, shared, strict=True):
        assert bigtwo.replay(hand) == expected
        assert len(bigtwo._GROUP_MASKS) <= 1
    assert shared == [bigtwo.replay_full(hand) for hand in hands]
