"""One poker betting round played straight through, for the lean replays of 7 & 8 and of
Rummoli's poker phase.

The lean replays (``seveneight._replay_lean``, ``rummoli_lean.play_lean``) play the usual
hands with local variables instead of the full engine's objects.  Both bet by the same
rules as :class:`analytics.rules.betting.BettingRound`, so they share this one round: it
returns -1 at anything it does not take, and the full engine then replays the hand and
decides (tests/test_rules_lean.py and tests/test_rules_rummoli_lean.py check that both
engines agree).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Final, Generic, Protocol, TypeVar

from analytics.rules.betting import FIXED_LIMIT_MAX_BETS
from parsers.knobs import Betting
from parsers.model import Action, Verb

__all__ = ["CANNOT_ACT", "lean_betting_columns", "lean_betting_round"]

_FIXED_LIMIT: Final = Betting.FIXED_LIMIT
_POT_LIMIT: Final = Betting.POT_LIMIT
_BET_RAISE: Final = Verb.BET_RAISE
_CHECK_CALL: Final = Verb.CHECK_CALL
_FOLD: Final = Verb.FOLD

_SCANS: dict[tuple[int, ...], list[tuple[tuple[int, int], ...]]] = {}


def _scans(order: tuple[int, ...]) -> list[tuple[tuple[int, int], ...]]:
    """Per order position ``pos`` (and -1, the last item: none yet), the ``(position,
    player)`` pairs after it, wrapping round: where BettingRound._advance looks next."""
    found = _SCANS.get(order)
    if found is None:
        seats = len(order)
        found = _SCANS[order] = [
            tuple(((pos + step) % seats, order[(pos + step) % seats])
                  for step in range(1, seats + 1))
            for pos in range(seats)]
        found.append(found[-1])  # index -1: from the start of the order
    return found


CANNOT_ACT: Final = 1 << 62
"""Above every bet: a lean replay takes only hands whose chips add up to less."""


def lean_betting_round(actions: Sequence[Action], index: int, stacks: list[int],
                       committed: list[int], in_hand: list[bool], order: tuple[int, ...],
                       structure: Betting, min_bet: int, pot: int) -> int:
    """:func:`lean_betting_columns` on a hand's :class:`Action` objects (Rummoli's poker phase),
    read through column views: a round reads a few actions, not worth copying them all."""
    return lean_betting_columns(_Column(actions, _ACTOR), _Column(actions, _VERB),
                                _Column(actions, _AMOUNT), index, stacks, committed, in_hand,
                                order, structure, min_bet, pot)


_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Indexed(Protocol[_T_co]):
    """What a betting round reads of a column: its items by index, and its length."""

    def __getitem__(self, index: int, /) -> _T_co: ...

    def __len__(self) -> int: ...

_ACTOR: Final[Callable[[Action], int]] = attrgetter("actor")
_VERB: Final[Callable[[Action], Verb]] = attrgetter("verb")
_AMOUNT: Final[Callable[[Action], int | None]] = attrgetter("amount")


class _Column(Generic[_T]):
    """One field of each action, read on demand (only indexing and ``len``)."""

    __slots__ = ("_actions", "_field")

    def __init__(self, actions: Sequence[Action], field: Callable[[Action], _T]) -> None:
        self._actions = actions
        self._field = field

    def __getitem__(self, index: int) -> _T:
        return self._field(self._actions[index])

    def __len__(self) -> int:
        return len(self._actions)


def lean_betting_columns(actors: Indexed[int], verbs: Indexed[Verb],
                         amounts: Indexed[int | None], index: int, stacks: list[int],
                         committed: list[int], in_hand: list[bool], order: tuple[int, ...],
                         structure: Betting, min_bet: int, pot: int) -> int:
    """Play one betting round from action ``index`` (the actions given as columns: each one's
    actor, verb and amount), as :class:`BettingRound` does (``committed``: what each player
    has put in already, as blinds; ``pot``: the chips in the pot before the round, for pot
    limit).

    Updates ``stacks``, ``committed`` and ``in_hand`` in place; returns the index
    of the first action after the round, or -1 at anything but a legal check,
    call, fold, bet or raise by the player to act (the full engine then decides).
    """
    current = max(committed)
    last_raise = min_bet
    bets = 1 if current >= min_bet else 0
    # The bet level each player last acted on (then equal to his ``committed``): -1 before
    # he acts, CANNOT_ACT once he has folded or is all in.  So the players still to act
    # are those whose level is below the current bet: one comparison per player.
    if 0 in stacks or False in in_hand:
        faced = [-1 if in_hand[p] and stacks[p] > 0 else CANNOT_ACT for p in range(len(stacks))]
    else:  # round 1 as a rule: everybody may act
        faced = [-1] * len(stacks)
    players_in = in_hand.count(True)
    live = faced.count(-1)
    fixed = structure is _FIXED_LIMIT
    pot_limit = structure is _POT_LIMIT
    count = len(verbs)
    scans = _scans(order)
    pos = -1
    while True:
        # Who acts next (BettingRound._advance): nobody once one player is left, or
        # everybody else is all in and the last one owes nothing.
        if players_in <= 1 or live == 0:
            return index
        if live == 1:
            last = next(p for p in order if in_hand[p] and stacks[p] > 0)
            if committed[last] >= current:
                return index
        for at, player in scans[pos]:
            if faced[player] < current:  # (the current bet is never below 0)
                pos = at
                break
        else:
            return index
        if index >= count:
            return -1
        if actors[index] - 1 != player:
            return -1
        verb = verbs[index]
        if verb is _CHECK_CALL:
            paid = min(current - committed[player], stacks[player])
            stacks[player] -= paid
            committed[player] += paid
            if stacks[player]:
                faced[player] = current
            else:
                live -= 1
                faced[player] = CANNOT_ACT
        elif verb is _FOLD:
            in_hand[player] = False
            players_in -= 1
            live -= 1  # he could act, so he had chips
            faced[player] = CANNOT_ACT
        elif verb is _BET_RAISE:
            amount = amounts[index]
            if amount is None:
                return -1
            reach = committed[player] + stacks[player]
            if amount <= current or reach <= current or amount > reach:
                return -1
            mark = faced[player]
            if mark >= 0 and current - mark < last_raise:
                return -1  # the betting was not reopened to him
            if fixed:
                if bets >= FIXED_LIMIT_MAX_BETS or amount != min(current + min_bet, reach):
                    return -1
            elif amount < min(current + last_raise, reach) or (
                    pot_limit and amount > current + max(
                        pot + sum(committed) + current - committed[player], last_raise)):
                return -1
            # Somebody else must be able to call at least a chip of it.
            for other in order:
                if other != player and in_hand[other] and (
                        committed[other] + stacks[other] > current):
                    break
            else:
                return -1
            stacks[player] -= amount - committed[player]
            committed[player] = amount
            if stacks[player]:
                faced[player] = amount
            else:
                live -= 1
                faced[player] = CANNOT_ACT
            if amount - current >= last_raise:  # a full bet or raise
                last_raise = amount - current
                bets += 1
            current = amount
        else:
            return -1
        index += 1
