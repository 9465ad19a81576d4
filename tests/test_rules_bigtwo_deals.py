"""The Big Two lean replay's memos: the deals it read and the plays it met (by cards tuple).

``analytics.rules.bigtwo`` remembers the deals of each game its lean replay took
whole (by the identity of the game's actions tuple), which
:func:`analytics.equity.bigtwo.bigtwo_game_deals` gives back instead of reading
the cards again, and, per rule set, the mask, strength and size of every play of
two cards or more by the identity of its cards tuple (the reader shares one tuple
among actions of the same text).  These tests check that the answers are the ones
computed from scratch, and that nothing that could change is remembered.
"""

from __future__ import annotations

import dataclasses

from analytics.equity.bigtwo import _game_deals_by_lists, bigtwo_game_deals
from analytics.evaluator import bigtwo_combo
from analytics.rules import bigtwo
from analytics.rules.bigtwo import replay_full, replayed_deals
from analytics.simulate.bigtwo import simulate_bigtwo
from parsers import dumps_hands, loads_hands
from parsers.knobs import BigTwoRules
from parsers.model import HandHistory, Verb


def _games(count: int, players: int, seed: int) -> list[HandHistory]:
    """Simulated games as the reader gives them (shared cards tuples, as in ingest)."""
    return loads_hands(dumps_hands(simulate_bigtwo(count, players, seed, random_knobs=True)))


def test_replayed_deals_are_the_deals_read_from_the_cards() -> None:
    taken = 0
    for players in (2, 3, 4):
        for hand in _games(15, players, 40 + players):
            outcome = bigtwo.replay(hand)
            assert outcome == replay_full(hand)
            deals = replayed_deals(hand.actions)
            if deals is None:  # left to the full engine (``scoring = "rank"``, say)
                assert bigtwo._replay_lean(hand) is None
            else:
                assert deals == _game_deals_by_lists(hand)
                taken += 1
            assert bigtwo_game_deals(hand) == _game_deals_by_lists(hand)
    assert taken >= 10


def test_deals_are_not_remembered_for_games_the_lean_replay_declines() -> None:
    hand = _games(1, 4, 7)[0]
    # A no-op after the end: the lean replay leaves the game to the full engine.
    noop = dataclasses.replace(hand.actions[-1], verb=Verb.NOOP, cards=())
    declined = dataclasses.replace(hand, actions=(*hand.actions, noop))
    assert bigtwo._replay_lean(declined) is None
    assert replayed_deals(declined.actions) is None
    assert bigtwo_game_deals(declined) == _game_deals_by_lists(declined)


def test_remembered_plays_match_their_cards() -> None:
    hands = _games(30, 4, 11)
    for hand in hands:
        bigtwo.replay(hand)
    checked = 0
    for hand in hands:
        assert isinstance(hand.rules, BigTwoRules)
        lean = bigtwo._lean_rules(hand.rules)
        for action in hand.actions:
            known = lean.plays.get(id(action.cards))
            if action.verb is not Verb.PLAY or known is None:
                continue
            mask, key, size, cards = known
            assert cards is action.cards
            assert mask == bigtwo.mask_of(cards)
            assert size == len(cards) >= 2
            combo = bigtwo_combo(cards, lean.play_rules)
            assert combo is not None and key == combo.key
            checked += 1
    assert checked > 50


def test_a_play_given_as_a_list_is_not_remembered() -> None:
    hand = _games(1, 4, 13)[0]
    assert isinstance(hand.rules, BigTwoRules)
    lean = bigtwo._lean_rules(hand.rules)
    # Plays as lists (the type says tuple, but nothing enforces it): same outcome, no entry.
    listed = dataclasses.replace(hand, actions=tuple(
        dataclasses.replace(action, cards=list(action.cards))  # type: ignore[arg-type]
        if action.verb is Verb.PLAY and len(action.cards) > 1 else action
        for action in hand.actions))
    assert bigtwo.replay(listed) == replay_full(hand)
    assert not any(id(action.cards) in lean.plays for action in listed.actions
                   if isinstance(action.cards, list))
