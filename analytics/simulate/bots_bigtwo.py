"""Big Two bots: they ask the engine for the legal plays and choose one.

Three styles:

* :class:`SteadyBot` plays like a careful club player: the lowest play that beats
  the table, keeps control cards (2s and aces) for when they matter, leads the
  combination that gets rid of his lowest card together with as many others as
  possible, and when an opponent is down to one or two cards stops leading
  singles and plays high.
* :class:`AggressiveBot` sheds fast: leads the largest combination he has, beats
  whatever he can, spends control cards freely and slams the strongest play
  when an opponent is close to going out.
* :class:`RandomBot` picks uniformly among the legal actions (tests use it to
  reach odd corners of the rules).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, Protocol

from analytics.evaluator import bigtwo_card_key
from analytics.rules.bigtwo.engine import BigTwoState, PlayOption
from parsers.caching import BoundedCache
from parsers.cards import DECK, Rank
from parsers.model import Action, Verb
from parsers.rule_options import BigTwoRules

__all__ = ["BOT_STYLES", "AggressiveBot", "BigTwoBot", "RandomBot", "SteadyBot", "make_bot"]

# 2s and aces: the cards that win tricks and so win back the lead.
_CONTROL_MASK: Final = sum(1 << c.code for c in DECK if c.rank in (Rank.TWO, Rank.ACE))
_DANGER: Final = 2
"""An opponent with this many cards or fewer is about to go out."""


class BigTwoBot(Protocol):
    """A Big Two player: given the game, the action of the player to act."""

    style: str

    def choose(self, state: BigTwoState, rng: random.Random) -> Action:
        """The action of ``state.turn``; must be one of ``state.legal_actions()``."""
        ...


def _action(state: BigTwoState, option: PlayOption) -> Action:
    assert state.turn is not None
    # The combo lists its cards strongest first; histories read better weakest first.
    return Action(state.turn, Verb.PLAY, cards=option.combo.cards[::-1])


def _pass(state: BigTwoState) -> Action:
    assert state.turn is not None
    return Action(state.turn, Verb.PASS)


def _fewest_opponent_cards(state: BigTwoState) -> int:
    hands = state.hands
    turn = state.turn
    counts = [hands[p].bit_count() for p in range(1, state.players + 1) if p != turn and hands[p]]
    return min(counts, default=0)


def _strongest(options: Sequence[PlayOption]) -> PlayOption:
    return max(options, key=lambda o: o.strength)


def _weakest(options: Sequence[PlayOption]) -> PlayOption:
    return min(options, key=lambda o: o.strength)


class SteadyBot:
    """Lowest play that beats; keeps 2s and aces; sheds low cards in big combinations."""

    style = "steady"

    def choose(self, state: BigTwoState, rng: random.Random) -> Action:
        """Choose a play or a pass for the player to act."""
        options = state.legal_plays()
        assert state.turn is not None
        hand = state.hands[state.turn]
        danger = _fewest_opponent_cards(state) <= _DANGER
        if state.leading:
            return _action(state, self._lead(state, options, hand, danger))
        if not options:
            return _pass(state)
        if danger:
            # Someone is about to go out: take the trick with the strongest play.
            return _action(state, _strongest(options))
        cheap = [o for o in options if not o.mask & _CONTROL_MASK]
        if cheap:
            return _action(state, _weakest(cheap))
        # Only control cards beat the table: spend one when the hand is nearly gone
        # (the lead they win back is worth it), otherwise keep them.
        if hand.bit_count() <= 5 or rng.random() < 0.25:
            return _action(state, _weakest(options))
        return _pass(state)

    @staticmethod
    def _lead(state: BigTwoState, options: Sequence[PlayOption], hand: int,
              danger: bool) -> PlayOption:
        # Going out in one play beats any plan.
        for option in options:
            if option.mask == hand:
                return option
        if danger:
            multi = [o for o in options if o.size > 1]
            if multi:
                biggest = max(o.size for o in multi)
                return _weakest([o for o in multi if o.size == biggest])
            return _strongest(options)
        lowest = _lowest_bit(state.rules, hand)
        with_lowest = [o for o in options if o.mask & lowest]
        plain = [o for o in with_lowest if not o.mask & _CONTROL_MASK] or with_lowest
        biggest = max(o.size for o in plain)
        return _weakest([o for o in plain if o.size == biggest])


class AggressiveBot:
    """Sheds as many cards as it can each time and rarely passes."""

    style = "aggressive"

    def choose(self, state: BigTwoState, rng: random.Random) -> Action:
        """Choose a play or a pass for the player to act."""
        options = state.legal_plays()
        danger = _fewest_opponent_cards(state) <= _DANGER
        if state.leading:
            biggest = max(o.size for o in options)
            pool = [o for o in options if o.size == biggest]
            return _action(state, _strongest(pool) if danger else _weakest(pool))
        if not options:
            return _pass(state)
        if danger:
            return _action(state, _strongest(options))
        # Now and then hold back to keep a strong hand together.
        if rng.random() < 0.1:
            return _pass(state)
        return _action(state, _weakest(options))


class RandomBot:
    """Any legal action, uniformly at random."""

    style = "random"

    def choose(self, state: BigTwoState, rng: random.Random) -> Action:
        """Choose uniformly among the legal actions."""
        return rng.choice(state.legal_actions())


def _bits_weakest_first(rules: BigTwoRules) -> tuple[int, ...]:
    found = _BITS_WEAKEST_FIRST.get(rules)
    if found is None:
        found = _BITS_WEAKEST_FIRST.put(rules, tuple(
            1 << c.code for c in sorted(DECK, key=lambda c: bigtwo_card_key(c, rules))))
    return found


_BITS_WEAKEST_FIRST: Final = BoundedCache[BigTwoRules, tuple[int, ...]](
    "analytics.simulate.bots_bigtwo.bits_weakest_first", 1_000)


def _lowest_bit(rules: BigTwoRules, hand: int) -> int:
    """The bit of the weakest card in ``hand`` under the game's rank and suit order."""
    return next(bit for bit in _bits_weakest_first(rules) if bit & hand)


BOT_STYLES: Final[dict[str, type[SteadyBot] | type[AggressiveBot] | type[RandomBot]]] = {
    "steady": SteadyBot,
    "aggressive": AggressiveBot,
    "random": RandomBot,
}
"""Bot classes by style name."""


def make_bot(style: str) -> BigTwoBot:
    """A bot of the named style (``steady``, ``aggressive`` or ``random``)."""
    try:
        return BOT_STYLES[style]()
    except KeyError:
        raise ValueError(f"unknown Big Two bot style {style!r} "
                         f"(expected one of: {', '.join(BOT_STYLES)})") from None
