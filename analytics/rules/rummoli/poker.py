"""The poker phase of a Rummoli round (RULES.md 1.4): betting, showdown, settlement.

A mixin of :class:`~analytics.rules.rummoli.state.RummoliState`.  The betting is
the shared :class:`~analytics.rules.betting.BettingRound` (no blinds, first to act
left of the dealer) and the settlement the shared :func:`~analytics.rules.pots.settle`
with the poker pot's board chips (or, in an end-of-game round, the chips played
for) as dead money in the main pot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from analytics.evaluator import (
    POKER_MAX_CARDS,
    POKER_MIN_CARDS,
    poker_category_of,
    poker_rank,
    poker_value_of_mask,
)
from analytics.rules.base import PotAward, RuleError, ShowdownHand, permits
from analytics.rules.betting import BettingError, BettingRound
from analytics.rules.pots import NoContenderError, build_pots, settle
from analytics.rules.rummoli.cards import NINE_POTS, POKER_POT, POT_INDEX, cards_of
from analytics.rules.rummoli.common import R_POKER, Phase, player_name
from parsers.cards import DECK, format_cards
from parsers.rule_options import Betting

__all__ = ["PokerPhase", "poker_value"]


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_PHASE_BETTING: Final = Phase.BETTING
_PHASE_OVER: Final = Phase.OVER
_PHASE_SHOWDOWN: Final = Phase.SHOWDOWN


_CARD_TEXT = tuple(str(card) for card in DECK)
"""Each card's text by code: ``format_cards`` without a ``__str__`` call per card."""


def poker_value(mask: int) -> int:
    """The dense poker value (higher is better) of the best five of the cards in ``mask``."""
    if POKER_MIN_CARDS <= mask.bit_count() <= POKER_MAX_CARDS:
        return poker_value_of_mask(mask)  # the same value, without building cards
    return poker_rank(cards_of(mask)).value  # raises the evaluator's error


class PokerPhase:
    """Betting, showdown and settlement of the poker pot."""

    # Owned and initialised by RummoliState.
    n: int
    phase: Phase
    finale_pot: str | None
    betting: Betting
    min_bet: int
    order: tuple[int, ...]
    hands: list[int]
    stacks: list[int]
    board: list[int]
    awards: list[PotAward]
    poker: BettingRound | None
    showdown: list[ShowdownHand]
    poker_winner: int
    winner: int | None
    _contributions: list[int]
    _in_hand: list[bool]
    _pending_show: list[int]
    _strengths: list[int | None]
    expecting: Callable[[], str]
    _phase_error: Callable[[str, str], RuleError]
    _open_laying: Callable[[int], None]

    @property
    def dead_money(self) -> int:
        """Chips on the board that the poker phase plays for besides the bets."""
        pot = self.finale_pot
        if pot is None:
            return self.board[POKER_POT]
        if pot == "all":
            return sum(self.board)
        return self.board[POT_INDEX[pot]]

    def _start_poker(self) -> None:
        # No blinds: the first player left of the dealer may check; the poker pot's chips
        # on the board are already in the pot (pot limit counts them).
        self.poker = BettingRound(self.stacks, [0] * self.n, [True] * self.n, self.order,
                                  self.betting, self.min_bet, pot=self.dead_money)
        self.phase = _PHASE_BETTING
        if self.poker.is_over:  # everybody but one is all in from the antes
            self._end_betting()

    def _betting(self, player: int, what: str) -> BettingRound:
        if self.phase is not _PHASE_BETTING or self.poker is None:
            raise self._phase_error(f"p{player} {what}", R_POKER)
        return self.poker

    def _betting_error(self, error: BettingError) -> RuleError:
        return RuleError(error.message, rule=f"{R_POKER}: {error.rule}")

    def verify_bet_raise(self, player: int, amount: int) -> None:
        """Check ``pN cbr AMOUNT`` (a bet or raise to AMOUNT)."""
        try:
            self._betting(player, f"cbr {amount}").verify_bet_or_raise_to(amount, player - 1)
        except BettingError as error:
            raise self._betting_error(error) from None

    def can_bet_raise(self, player: int, amount: int) -> bool:
        """True when ``player`` may bet or raise to ``amount`` now."""
        return (self.phase is _PHASE_BETTING and self.poker is not None
                and self.poker.can_bet_or_raise_to(amount, player - 1))

    def bet_raise(self, player: int, amount: int) -> None:
        """``player`` bets or raises to ``amount``."""
        self._step(player, f"cbr {amount}", BettingRound.bet_or_raise_to, amount)

    def _step(self, player: int, what: str, step: Callable[..., object], *args: int) -> None:
        """``step(round, *args, seat)`` on the betting round, then the betting's end if it
        is over.  The betting round checks the step itself and raises what its verify_...
        raises, before changing anything: one check instead of two (verify, then act)."""
        poker = self._betting(player, what)
        try:
            step(poker, *args, player - 1)
        except BettingError as error:
            raise self._betting_error(error) from None
        if poker.is_over:
            self._end_betting()

    def verify_check_call(self, player: int) -> None:
        """Check ``pN cc``."""
        try:
            self._betting(player, "cc").verify_check_or_call(player - 1)
        except BettingError as error:
            raise self._betting_error(error) from None

    def can_check_call(self, player: int) -> bool:
        """True when ``player`` may check or call now."""
        return self.poker is not None and self.poker.actor == player - 1

    def check_call(self, player: int) -> None:
        """``player`` checks or calls."""
        self._step(player, "cc", BettingRound.check_or_call)

    def verify_fold(self, player: int) -> None:
        """Check ``pN f``."""
        try:
            self._betting(player, "f").verify_fold(player - 1)
        except BettingError as error:
            raise self._betting_error(error) from None

    def can_fold(self, player: int) -> bool:
        """True when ``player`` may fold now."""
        return self.poker is not None and self.poker.actor == player - 1

    def fold(self, player: int) -> None:
        """``player`` folds: he leaves the poker pot (he still plays the Rummoli phase)."""
        self._step(player, "f", BettingRound.fold)

    def _end_betting(self) -> None:
        poker = self.poker
        assert poker is not None
        self._contributions = list(poker.committed)
        self._in_hand = list(poker.in_hand)
        self.stacks = list(poker.stacks)
        still_in = [i for i in self.order if self._in_hand[i]]
        if len(still_in) == 1:
            self._settle(still_in[0])
        else:
            self._pending_show = still_in
            self.phase = _PHASE_SHOWDOWN

    # ----------------------------------------------------------------- showdown

    def verify_show(self, player: int, codes: Sequence[int]) -> None:
        """Check ``pN sm [CARDS]``: show the whole hand or its best five, or muck (no cards)."""
        index = player - 1
        if self.phase is not _PHASE_SHOWDOWN:
            if self.phase is _PHASE_BETTING or self.phase < _PHASE_BETTING:
                raise self._phase_error(f"p{player} sm", R_POKER)
            raise RuleError("the poker phase is over: there is no showdown now"
                            + (" (the pot was won uncontested)" if not self.showdown else ""),
                            rule=R_POKER)
        if index not in self._pending_show:
            reason = ("folded" if not self._in_hand[index] else "already showed or mucked")
            raise RuleError(f"p{player} {reason} and has nothing to show", rule=R_POKER)
        if not codes:
            problem = self._muck_problem(index)
            if problem is not None:
                raise RuleError(problem, rule=R_POKER)
            return
        hand = self.hands[index]
        shown = 0
        for code in codes:
            if code < 0 or not hand >> code & 1:
                card = "??" if code < 0 else str(DECK[code])
                raise RuleError(f"p{player} showed {card}, which is not in his hand"
                                f" ({format_cards(cards_of(hand))})", rule=R_POKER)
            shown |= 1 << code
        if shown == hand:
            return
        if len(codes) != 5 or poker_value(shown) != poker_value(hand):
            best = poker_rank(cards_of(hand)).best_five
            raise RuleError(f"p{player} must show his whole hand or his best five cards"
                            f" ({format_cards(best)}), not {format_cards(cards_of(shown))}",
                            rule=R_POKER)

    def _muck_problem(self, index: int) -> str | None:
        """Why player ``index`` may not muck: he is the last who can contest a pot."""
        layout = build_pots(self._contributions, self._in_hand, self.dead_money)
        pending, strengths = self._pending_show, self._strengths
        for number, pot in enumerate(layout.pots):
            eligible = pot.eligible
            if pot.amount == 0 or len(eligible) < 2 or index not in eligible:
                continue
            if all(i == index or (i not in pending and strengths[i] is None) for i in eligible):
                name = "the poker pot" if number == 0 else f"side pot {number}"
                return (f"{player_name(index)} may not muck: every other player in {name} mucked,"
                        " so he must show to take it")
        return None

    def can_show(self, player: int, codes: Sequence[int]) -> bool:
        """True when ``pN sm CARDS`` is legal now."""
        return permits(self.verify_show, player, codes)

    def show(self, player: int, codes: Sequence[int]) -> None:
        """``player`` shows ``codes`` (his hand or his best five) or mucks (empty)."""
        self.verify_show(player, codes)
        index = player - 1
        self._pending_show.remove(index)
        if codes:
            value = poker_value(self.hands[index])
            self._strengths[index] = value
            self.showdown.append(ShowdownHand(player, "".join([_CARD_TEXT[c] for c in codes]),
                                              poker_category_of(value).label, value))
        if not self._pending_show:
            winners = [i for i in self.order if self._strengths[i] is not None]
            if not winners:
                raise RuleError("every player at the showdown mucked: somebody must show to"
                                " win the poker pot", rule=R_POKER)
            best = max(self._strengths[i] or 0 for i in winners)
            # The first of the best hands left of the dealer opens the Rummoli phase.
            self._settle(next(i for i in winners if self._strengths[i] == best))

    # ----------------------------------------------------------------- settlement

    def _settle(self, winner: int) -> None:
        finale = self.finale_pot is not None
        main = "finale" if finale else "poker"
        try:
            result = settle(self._contributions, self._in_hand, self._strengths, self.order,
                            dead=self.dead_money, main=main, side=f"{main}_side")
        except NoContenderError as error:
            raise RuleError(str(error), rule=R_POKER) from None
        for index in range(self.n):
            self.stacks[index] += result.won[index] + result.refunds[index]
        self.awards.extend(result.awards)
        # The dead money came off the board.
        if not finale:
            self.board[POKER_POT] = 0
        elif self.finale_pot == "all":
            self.board = [0] * NINE_POTS
        else:
            self.board[POT_INDEX[self.finale_pot or ""]] = 0
        self.poker_winner = winner
        if finale:
            self.winner = winner + 1
            self.phase = _PHASE_OVER
            return
        self._open_laying(winner)
