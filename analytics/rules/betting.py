"""One betting round of ordinary poker, shared by 7 & 8 and Rummoli's poker phase.

RULES.md section 3 fixes the betting rules for both games; this module is the
only place they live.  A :class:`BettingRound` is game-agnostic: the caller
gives it the players' chips, who is still in, the acting order and the
structure, then feeds it the players' decisions.

Players are **0-based indices** into the per-player lists (player ``pN`` of a
history is index ``N - 1``; messages name players ``pN``).  Amounts follow
PHH's ``cbr``: a bet or raise *to* a total for the round, blinds included.

Usage (a Rummoli poker phase: no blinds, dead money in the pot, first to act
left of the dealer)::

    rnd = BettingRound(stacks=[40, 55, 37], committed=[0, 0, 0],
                       in_hand=[True, True, True], order=[1, 2, 0],
                       structure=Betting.NO_LIMIT, min_bet=1, pot=27)
    while not rnd.is_over:
        player = rnd.actor            # whose turn (an index)
        legal = rnd.legal_actions()   # what he may do
        rnd.check_or_call()           # or fold() / bet_or_raise_to(amount)
    rnd.committed, rnd.stacks, rnd.in_hand   # chips put in, chips left, not folded

Each action has ``can_x(...) -> bool`` and ``verify_x(...)`` (raises
:class:`BettingError` with a message a player understands); ``x(...)``
verifies and applies.  The round ends when every player still in has acted and
matched the bet (or is all in), when one player is left, or when every other
player still in is all in and the last one owes nothing (he does not check).

Rules implemented (decisions where RULES.md is silent are in
docs/rules-seveneight.md):

* minimum bet ``min_bet``; a raise is at least the last full bet or raise
  (initially ``min_bet``), as in no-limit hold'em; an all-in for less is
  always allowed;
* an all-in short of a full raise does not reopen the betting for players who
  have already acted; a player may raise again only if the bet grew by at least
  a full raise since he last acted (so several short all-ins that add up to a
  full raise do reopen it);
* a player may fold even when he could check;
* a bet or raise is not allowed when no other player still in has chips beyond
  the current bet (nobody could call any part of it);
* pot limit: at most the pot after calling, i.e. ``to <= current bet + pot
  (including all bets) + the amount to call``, but never less than a
  minimum bet or raise;
* fixed limit: every bet and raise is exactly ``min_bet`` (the round's bet
  size) more than the current bet, at most ``max_bets`` bets per round (one bet
  and three raises by default; a big blind of a full bet counts as the bet);
  an all-in for less is allowed and does not count towards the cap.

Uncalled chips are not returned here: :mod:`analytics.rules.pots` returns them
from the players' total contributions when the hand is settled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from parsers.rule_options import Betting

__all__ = ["FIXED_LIMIT_MAX_BETS", "BettingError", "BettingRound", "LegalBetting"]


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_BETTING_FIXED_LIMIT: Final = Betting.FIXED_LIMIT
_BETTING_NO_LIMIT: Final = Betting.NO_LIMIT
_BETTING_POT_LIMIT: Final = Betting.POT_LIMIT

FIXED_LIMIT_MAX_BETS: Final = 4
"""Fixed limit: one bet and three raises per betting round."""


class BettingError(ValueError):
    """An illegal betting step.  ``rule`` is a short tag (``min-raise``, ``turn``, ...).

    Engines catch it and raise :class:`~analytics.rules.base.RuleError` with the
    hand and the action attached.
    """

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


@dataclass(frozen=True, slots=True)
class LegalBetting:
    """What the player to act may do.

    ``call`` is the chips a check or call puts in (0 = check).  ``min_to`` and
    ``max_to`` bound a bet or raise (totals for the round); both are None when
    he may not bet or raise.  Folding is always allowed for the player to act.
    """

    player: int
    call: int
    min_to: int | None
    max_to: int | None

    @property
    def can_raise(self) -> bool:
        """True when a bet or raise is allowed."""
        return self.min_to is not None


class BettingRound:
    """The state of one betting round; see the module docstring for the rules.

    Arguments:
        stacks: chips each player has behind (not yet in the pot), after blinds
            and antes.  A player still in with 0 behind is all in.
        committed: chips each player has already put in *this round* (blinds;
            zeros in later rounds).  Bets and raises are totals that include them.
        in_hand: False for players who folded earlier (or are not playing).
        order: player indices in acting order, first to act first; the turn
            cycles through it.  Players not in the hand may be left out.
        structure: no limit, pot limit or fixed limit.
        min_bet: the minimum bet (no and pot limit; the big blind) or the bet
            size of this round (fixed limit).
        pot: chips in the pot before this round (earlier rounds, antes, dead
            money); only pot limit uses it.
        max_bets: fixed limit only: bets plus raises allowed in the round.

    The lists passed in are copied; read the results from :attr:`stacks`,
    :attr:`committed` and :attr:`in_hand`.
    """

    __slots__ = (
        "_acted",
        "_actor",
        "_bets",
        "_last_raise",
        "_live",
        "_players_in",
        "_pos",
        "committed",
        "current_bet",
        "in_hand",
        "max_bets",
        "min_bet",
        "order",
        "pot",
        "stacks",
        "structure",
    )

    def __init__(
        self,
        stacks: Sequence[int],
        committed: Sequence[int],
        in_hand: Sequence[bool],
        order: Sequence[int],
        structure: Betting,
        min_bet: int,
        pot: int = 0,
        max_bets: int = FIXED_LIMIT_MAX_BETS,
    ) -> None:
        if min_bet <= 0:
            raise ValueError(f"the minimum bet must be at least 1 chip, not {min_bet}")
        self.stacks: list[int] = list(stacks)
        self.committed: list[int] = list(committed)
        self.in_hand: list[bool] = list(in_hand)
        self.order: tuple[int, ...] = tuple(order)
        self.structure = structure
        self.min_bet = min_bet
        self.pot = pot
        self.max_bets = max_bets
        self.current_bet: int = max(self.committed, default=0)
        # The size of the last full bet or raise: the minimum raise increment.
        self._last_raise = min_bet
        # Fixed limit: a forced bet (big blind) of a full bet counts as the round's bet.
        self._bets = 1 if self.current_bet >= min_bet else 0
        # The bet level each player faced when he last acted; -1: not acted this round.
        self._acted: list[int] = [-1] * len(self.stacks)
        self._pos = -1
        self._actor: int | None = None
        # Counts kept up to date by the actions: players not folded, and those with chips behind.
        players_in = live = 0
        in_hand, stacks = self.in_hand, self.stacks
        for p in self.order:
            if in_hand[p]:
                players_in += 1
                if stacks[p] > 0:
                    live += 1
        self._players_in = players_in
        self._live = live
        self._advance(-1)

    # ----------------------------------------------------------------- queries

    @property
    def actor(self) -> int | None:
        """The index of the player to act, or None when the round is over."""
        return self._actor

    @property
    def is_over(self) -> bool:
        """True when nobody has to act any more."""
        return self._actor is None

    @property
    def players_in(self) -> int:
        """How many players have not folded."""
        return self._players_in

    @property
    def pot_total(self) -> int:
        """The pot before this round plus everything committed in it."""
        return self.pot + sum(self.committed)

    def to_call(self, player: int | None = None) -> int:
        """Chips ``player`` (default: the actor) must add to call, capped by his stack."""
        who = self._actor if player is None else player
        if who is None:
            return 0
        return min(self.current_bet - self.committed[who], self.stacks[who])

    def min_bet_or_raise_to(self) -> int | None:
        """The smallest legal bet or raise (a total) for the actor, or None if he may not raise.

        An all-in for less than a full raise is legal, so this is capped by his stack.
        """
        player = self._actor
        if player is None or self._why_no_raise(player) is not None:
            return None
        return self._min_to(player)

    def max_bet_or_raise_to(self) -> int | None:
        """The largest legal bet or raise (a total) for the actor, or None if he may not raise."""
        player = self._actor
        if player is None or self._why_no_raise(player) is not None:
            return None
        return self._max_to(player)

    def _min_to(self, player: int) -> int:
        reach = self.committed[player] + self.stacks[player]
        return min(self.current_bet + self._last_raise, reach)

    def _max_to(self, player: int) -> int:
        reach = self.committed[player] + self.stacks[player]
        if self.structure is _BETTING_NO_LIMIT:
            return reach
        if self.structure is _BETTING_FIXED_LIMIT:
            return min(self.current_bet + self.min_bet, reach)
        return min(self._pot_limit(player), reach)

    def legal_actions(self) -> LegalBetting | None:
        """What the actor may do, or None when the round is over."""
        player = self._actor
        if player is None:
            return None
        call = min(self.current_bet - self.committed[player], self.stacks[player])
        if self._why_no_raise(player) is not None:
            return LegalBetting(player, call, None, None)
        return LegalBetting(player, call, self._min_to(player), self._max_to(player))

    # ----------------------------------------------------------------- fold

    def can_fold(self, player: int | None = None) -> bool:
        """True when ``player`` (default: the actor) may fold now."""
        return self._turn_problem(player) is None

    def verify_fold(self, player: int | None = None) -> None:
        """Raise :class:`BettingError` unless ``player`` may fold now."""
        problem = self._turn_problem(player)
        if problem is not None:
            raise BettingError(problem, "turn")

    def fold(self, player: int | None = None) -> None:
        """``player`` (default: the actor) folds."""
        who = self._actor
        if who is None or (player is not None and player != who):
            self.verify_fold(player)  # raises: not his turn, or the round is over
            return
        self.in_hand[who] = False
        self._players_in -= 1
        if self.stacks[who] > 0:
            self._live -= 1
        self._advance(self._pos)

    # ----------------------------------------------------------------- check or call

    def can_check_or_call(self, player: int | None = None) -> bool:
        """True when ``player`` (default: the actor) may check or call now."""
        return self._turn_problem(player) is None

    def verify_check_or_call(self, player: int | None = None) -> None:
        """Raise :class:`BettingError` unless ``player`` may check or call now."""
        problem = self._turn_problem(player)
        if problem is not None:
            raise BettingError(problem, "turn")

    def check_or_call(self, player: int | None = None) -> int:
        """``player`` (default: the actor) checks or calls; returns the chips put in."""
        who = self._actor
        if who is None or (player is not None and player != who):
            self.verify_check_or_call(player)  # raises: not his turn, or the round is over
            return 0
        amount = min(self.current_bet - self.committed[who], self.stacks[who])
        if amount:
            self.stacks[who] -= amount
            self.committed[who] += amount
            if self.stacks[who] == 0:
                self._live -= 1
        self._acted[who] = self.current_bet
        self._advance(self._pos)
        return amount

    # ----------------------------------------------------------------- bet or raise

    def can_bet_or_raise_to(self, amount: int, player: int | None = None) -> bool:
        """True when ``player`` (default: the actor) may bet or raise to ``amount`` now."""
        return self._raise_problem(amount, player) is None

    def verify_bet_or_raise_to(self, amount: int, player: int | None = None) -> None:
        """Raise :class:`BettingError` unless a bet or raise to ``amount`` is legal now."""
        problem = self._raise_problem(amount, player)
        if problem is not None:
            raise BettingError(*problem)

    def bet_or_raise_to(self, amount: int, player: int | None = None) -> int:
        """Bet or raise to ``amount`` (the player's total for the round); returns chips put in."""
        problem = self._raise_problem(amount, player)
        if problem is not None:
            raise BettingError(*problem)
        who = self.order[self._pos]
        added = amount - self.committed[who]
        self.stacks[who] -= added
        if self.stacks[who] == 0:
            self._live -= 1
        self.committed[who] = amount
        increment = amount - self.current_bet
        if increment >= self._last_raise:
            # A full bet or raise: it sets the next minimum and counts towards the cap.
            self._last_raise = increment
            self._bets += 1
        self.current_bet = amount
        self._acted[who] = amount
        self._advance(self._pos)
        return added

    # ----------------------------------------------------------------- internals

    def _turn_problem(self, player: int | None) -> str | None:
        actor = self._actor
        if actor is None:
            return "the betting round is over"
        if player is not None and player != actor:
            return f"it is p{actor + 1}'s turn to act, not p{player + 1}'s"
        return None

    def _why_no_raise(self, player: int) -> tuple[str, str] | None:
        reach = self.committed[player] + self.stacks[player]
        current = self.current_bet
        if reach <= current:
            return (f"p{player + 1} has only {reach} chips in all for the round and cannot raise"
                    f" over {current}", "stack")
        acted = self._acted[player]
        if acted >= 0 and current - acted < self._last_raise:
            return (f"p{player + 1} may not raise: the betting was not reopened (an all-in short"
                    " of a full raise does not reopen it to a player who has already acted)",
                    "reopen")
        if self.structure is _BETTING_FIXED_LIMIT and self._bets >= self.max_bets:
            return ("fixed limit: the betting is capped at one bet and"
                    f" {self.max_bets - 1} raises per round", "cap")
        # Somebody else must be able to put in at least one chip more than the current bet.
        stacks, committed, in_hand = self.stacks, self.committed, self.in_hand
        for other in self.order:
            if other != player and in_hand[other] and committed[other] + stacks[other] > current:
                return None
        return (f"p{player + 1} may not bet or raise: no other player can call any part of it",
                "uncallable")

    def _raise_problem(self, amount: int, player: int | None) -> tuple[str, str] | None:
        turn = self._turn_problem(player)
        if turn is not None:
            return turn, "turn"
        who = self.order[self._pos]
        current = self.current_bet
        word = "raise" if current > 0 else "bet"
        if amount <= current:
            return (f"{word} to {amount} does not exceed the current bet of {current}"
                    " (use cc to check or call)", "raise-size")
        why = self._why_no_raise(who)
        if why is not None:
            return why
        reach = self.committed[who] + self.stacks[who]
        if amount > reach:
            return (f"{word} to {amount} is more than p{who + 1} has: {reach} in all for the round",
                    "stack")
        if self.structure is _BETTING_FIXED_LIMIT:
            target = min(current + self.min_bet, reach)
            if amount != target:
                return (f"fixed limit: a {word} must be to exactly {target}, not {amount}",
                        "fixed-size")
            return None
        minimum = min(current + self._last_raise, reach)
        if amount < minimum:
            if current == 0:
                return f"bet of {amount} is below the minimum bet of {minimum}", "min-bet"
            return f"raise to {amount} is below the minimum raise to {minimum}", "min-raise"
        if self.structure is _BETTING_POT_LIMIT:
            limit = self._pot_limit(who)
            if amount > limit:
                return (f"pot limit: {word} to {amount} is above the pot limit of {limit}",
                        "pot-limit")
        return None

    def _pot_limit(self, player: int) -> int:
        # The pot after calling, raised by that much; never below a minimum bet or raise
        # (a tiny pot still allows the minimum, as in pot-limit hold'em).
        call = self.current_bet - self.committed[player]
        return self.current_bet + max(self.pot_total + call, self._last_raise)

    def _advance(self, pos: int) -> None:
        """Find the next player to act after order position ``pos``, or end the round."""
        current = self.current_bet
        in_hand, stacks, committed = self.in_hand, self.stacks, self.committed
        order = self.order
        live = self._live
        if self._players_in <= 1 or live == 0:
            self._actor = None
            self._pos = -1
            return
        if live == 1:
            # Everybody else is all in: the last one acts only if he owes chips.
            last = next(p for p in order if in_hand[p] and stacks[p] > 0)
            if committed[last] >= current:
                self._actor = None
                self._pos = -1
                return
        acted = self._acted
        # The players after position pos, wrapping round (slices are cheaper than modulo steps).
        for offset, player in enumerate(order[pos + 1:] + order[:pos + 1]):
            if in_hand[player] and stacks[player] > 0 and (
                acted[player] < 0 or committed[player] < current
            ):
                self._pos = (pos + 1 + offset) % len(order)
                self._actor = player
                return
        self._actor = None
        self._pos = -1
