"""The Rummoli phase of a round (RULES.md 1.5-1.6): laying, claims, impasse, end of round.

A mixin of :class:`~analytics.rules.rummoli.state.RummoliState`, which owns the
attributes declared here.  After each card the next player and the cards he may
lay are computed once (``_turn``, ``_allowed``): the holder of the next card of
the suit is one look-up in ``_holder``; otherwise the colour switch scans the
players clockwise from the last to lay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from analytics.rules.base import PotAward, RuleError, permits
from analytics.rules.rummoli.cards import (
    AKD_MASK,
    BLACK,
    CARD_POT,
    PAY_CARDS,
    POKER_POT,
    POT_INDEX,
    RANK_MASK,
    RED,
    RUMMOLI_POT,
    SEVEN_EIGHT_NINE,
    cards_of,
    codes_of,
    lowest_of,
)
from analytics.rules.rummoli.common import (
    R_CLAIM,
    R_END,
    R_IMPASSE,
    R_LAY,
    LayReason,
    Phase,
    player_name,
)
from parsers.cards import DECK, Card
from parsers.model import RUMMOLI_POTS
from parsers.rule_options import Claim, RummoliRules

__all__ = ["LayingPhase"]


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_CLAIM_AUTO: Final = Claim.AUTO
_LAY_REASON_COLOUR: Final = LayReason.COLOUR
_LAY_REASON_OPEN: Final = LayReason.OPEN
_LAY_REASON_PASSED: Final = LayReason.PASSED
_LAY_REASON_SEQUENCE: Final = LayReason.SEQUENCE
_PHASE_IMPASSE: Final = Phase.IMPASSE
_PHASE_OVER: Final = Phase.OVER
_PHASE_RUMMOLI: Final = Phase.RUMMOLI
_POT_CARDS: Final = PAY_CARDS | SEVEN_EIGHT_NINE[0] | SEVEN_EIGHT_NINE[1] | (
    SEVEN_EIGHT_NINE[2] | SEVEN_EIGHT_NINE[3])
"""The cards whose laying may win a pot: the seven pay cards and the four suits' 7, 8, 9."""


class LayingPhase:
    """Laying cards, claiming pots, the impasse and the end of the round."""

    # Owned and initialised by RummoliState.
    n: int
    rules: RummoliRules
    phase: Phase
    finale_pot: str | None
    hands: list[int]
    stacks: list[int]
    board: list[int]
    awards: list[PotAward]
    laid_by: list[int]
    winner: int | None
    impasse: bool
    _holder: list[int]
    _turn: int
    _allowed: int
    _why: LayReason
    _missing: int
    _last: int
    _last_layer: int
    _claimable: list[int]
    expecting: Callable[[], str]
    _phase_error: Callable[[str, str], RuleError]

    def _open_laying(self, winner: int) -> None:
        """The poker winner opens the Rummoli phase with one of his lowest cards."""
        self.phase = _PHASE_RUMMOLI
        self._why = _LAY_REASON_OPEN
        self._turn = winner
        hand = self.hands[winner]
        self._allowed = hand & RANK_MASK[lowest_of(hand) >> 2]

    def _allowed_text(self) -> str:
        return " or ".join(str(DECK[c]) for c in codes_of(self._allowed))

    def _lay_problem(self, index: int, code: int) -> str | None:
        """Why player ``index`` may not lay ``code`` now, or None."""
        if self.phase is not _PHASE_RUMMOLI:
            if self.phase is _PHASE_OVER and self.finale_pot is None:
                return "the round is over: " + (
                    "it ended at an impasse" if self.impasse
                    else f"p{self.winner} laid his last card")
            if self.finale_pot is not None and self.phase is _PHASE_OVER:
                return "the end-of-game round is poker only: there is no Rummoli phase"
            return f"laying a card is not allowed now: {self.expecting()}"
        if code < 0:
            return (f"{player_name(index)} lays ??: a card laid in the Rummoli phase must be"
                    " known (who must lay next depends on it)")
        if not self.hands[index] >> code & 1:
            return f"{player_name(index)} does not hold {DECK[code]}"
        if index == self._turn and self._allowed >> code & 1:
            return None
        turn, need = player_name(self._turn), self._allowed_text()
        laid = f"{player_name(index)} laid {DECK[code]}"
        why = self._why
        if why is _LAY_REASON_OPEN:
            if index != self._turn:
                return f"{laid} but {turn} won the poker phase and opens the Rummoli phase"
            return f"{laid} but must open with his lowest card ({need})"
        if why is _LAY_REASON_SEQUENCE:
            if index != self._turn:
                return f"{laid} but {turn} holds {need}, the next card of the sequence"
            return f"{laid} but must lay {need}, the next card of the sequence"
        colour = "red" if self._allowed & RED else "black"
        if self._missing >= 0:
            gone = f"nobody holds {DECK[self._missing]}"
        else:
            gone = f"{DECK[self._last]} ends its suit"
        if why is _LAY_REASON_COLOUR:
            return f"{laid} but {gone}: {turn} must lay his lowest {colour} card ({need})"
        last = player_name(self._last_layer)
        return (f"{laid} but {gone} and {last} holds no {colour} card: the turn passes clockwise"
                f" to {turn}, who must lay his lowest {colour} card ({need})")

    def verify_lay(self, player: int, code: int) -> None:
        """Check ``pN pl CARD``."""
        problem = self._lay_problem(player - 1, code)
        if problem is not None:
            raise RuleError(problem, rule=R_LAY if self.phase is not _PHASE_OVER else R_END)

    def can_lay(self, player: int, code: int) -> bool:
        """True when ``player`` may lay card ``code`` now."""
        return (self.phase is _PHASE_RUMMOLI and player - 1 == self._turn and code >= 0
                and bool(self._allowed >> code & 1))

    def allowed_cards(self) -> tuple[Card, ...]:
        """The cards the player to lay may lay (one unless the rules give him a choice)."""
        return cards_of(self._allowed) if self.phase is _PHASE_RUMMOLI else ()

    def lay(self, player: int, code: int) -> None:
        """``player`` lays card ``code``; pots it completes are won (claim = auto) or claimable."""
        index = player - 1
        if (self.phase is not _PHASE_RUMMOLI or index != self._turn or code < 0
                or not self._allowed >> code & 1):
            self.verify_lay(player, code)
        bit = 1 << code
        hand = self.hands[index] ^ bit
        self.hands[index] = hand
        holders = self._holder
        holders[code] = -1
        laid = self.laid_by[index] | bit
        self.laid_by[index] = laid
        self._last = code
        self._last_layer = index
        if self._claimable:
            self._claimable = []
        if bit & _POT_CARDS:  # one test for the few cards that may win a pot
            self._pots_won_by(index, code, bit, laid)
        if not hand:
            self._end_round(index)
            return
        following = code + 4
        if following < 52:
            holder = holders[following]
            if holder >= 0:  # the usual case: he holds the next card of the suit
                self._turn = holder
                self._allowed = 1 << following
                self._why = _LAY_REASON_SEQUENCE
                return
            self._missing = following
        else:
            self._missing = -1  # an ace ends its suit
        self._switch_colour(index, code)

    def _pots_won_by(self, index: int, code: int, bit: int, laid: int) -> None:
        """Pay the pots player ``index`` wins by laying ``code`` (``bit``; ``laid``: all
        the cards he has laid): a pay card's pot, AKD, his suit's 7-8-9."""
        if bit & PAY_CARDS:
            pot = CARD_POT.get(code)
            if pot is not None:
                self._pay_card(index, pot)
            elif laid & AKD_MASK == AKD_MASK:
                self._pay_card(index, POT_INDEX["AKD"])
        seq = SEVEN_EIGHT_NINE[code & 3]
        if bit & seq and laid & seq == seq:
            self._pay_card(index, POT_INDEX["789"])

    def _pay_card(self, index: int, pot: int) -> None:
        if self.rules.claim is _CLAIM_AUTO:
            self._award_pot(index, pot)
        else:
            self._claimable.append(pot)

    def _award_pot(self, index: int, pot: int) -> None:
        amount = self.board[pot]
        if amount:
            self.board[pot] = 0
            self.stacks[index] += amount
            self.awards.append(PotAward(RUMMOLI_POTS[pot], index + 1, amount))

    def _switch_colour(self, index: int, code: int) -> None:
        """Nobody holds the card after ``code``, just laid by player ``index``: he, or
        the first player clockwise who can, lays his lowest card of the other colour."""
        colour = RED if (code & 3) in (0, 3) else BLACK
        hands, n = self.hands, self.n
        for step in range(n):
            other = (index + step) % n
            cards = hands[other] & colour
            if cards:
                self._turn = other
                lowest = (cards & -cards).bit_length() - 1  # lowest_of(cards), inline
                self._allowed = cards & RANK_MASK[lowest >> 2]
                self._why = _LAY_REASON_COLOUR if step == 0 else _LAY_REASON_PASSED
                return
        self.phase = _PHASE_IMPASSE

    # ----------------------------------------------------------------- claims

    def verify_claim(self, player: int, pot: str) -> None:
        """Check ``pN cl POT`` (claim = manual): right after laying the card that wins it."""
        if self.rules.claim is _CLAIM_AUTO:
            raise RuleError("pots are paid automatically (claim = 'auto'): cl is only used"
                            " with claim = 'manual'", rule=R_CLAIM)
        number = POT_INDEX.get(pot)
        if number is None or number in (POKER_POT, RUMMOLI_POT):
            raise RuleError(f"{pot} is not a pot won by laying cards: only TS JD QC KH AS AKD"
                            " 789 are claimed", rule=R_CLAIM)
        if self.phase not in (_PHASE_RUMMOLI, _PHASE_IMPASSE, _PHASE_OVER) or self._last < 0:
            raise RuleError(f"p{player} cannot claim {pot}: no card has been laid yet",
                            rule=R_CLAIM)
        if player - 1 != self._last_layer or number not in self._claimable:
            raise RuleError(f"p{player} cannot claim {pot}: a pot is claimed by the player who"
                            " laid the card that wins it, before the next card is laid",
                            rule=R_CLAIM)

    def can_claim(self, player: int, pot: str) -> bool:
        """True when ``player`` may claim ``pot`` now."""
        return permits(self.verify_claim, player, pot)

    def claim(self, player: int, pot: str) -> None:
        """``player`` claims ``pot`` (claim = manual) and wins its chips."""
        self.verify_claim(player, pot)
        number = POT_INDEX[pot]
        self._claimable.remove(number)
        self._award_pot(player - 1, number)

    def claimable(self) -> tuple[str, ...]:
        """Pots the last player to lay may claim now (claim = manual)."""
        return tuple(RUMMOLI_POTS[p] for p in self._claimable)

    # ----------------------------------------------------------------- impasse and end

    def verify_impasse(self) -> None:
        """Check ``d im``: nobody holds a card of the required colour."""
        if self.phase is not _PHASE_IMPASSE:
            if self.phase is _PHASE_RUMMOLI:
                raise RuleError(f"there is no impasse: {self.expecting()}", rule=R_IMPASSE)
            raise self._phase_error("d im", R_IMPASSE)

    def can_impasse(self) -> bool:
        """True when the dealer must declare an impasse now."""
        return self.phase is _PHASE_IMPASSE

    def declare_impasse(self) -> None:
        """The round ends without a winner: each player pays a chip per card into ``rummoli``."""
        self.verify_impasse()
        self._claimable = []
        for index, hand in enumerate(self.hands):
            pay = min(hand.bit_count(), self.stacks[index])
            if pay:
                self.stacks[index] -= pay
                self.board[RUMMOLI_POT] += pay
                self.awards.append(PotAward("impasse", index + 1, -pay))
        self.impasse = True
        self.phase = _PHASE_OVER

    def _end_round(self, index: int) -> None:
        self._award_pot(index, RUMMOLI_POT)
        total = 0
        for other, hand in enumerate(self.hands):
            if other == index or not hand:
                continue
            pay = min(hand.bit_count(), self.stacks[other])  # he pays what he has
            if pay:
                self.stacks[other] -= pay
                total += pay
                self.awards.append(PotAward("payments", other + 1, -pay))
        if total:
            self.stacks[index] += total
            self.awards.append(PotAward("payments", index + 1, total))
        self.winner = index + 1
        self.phase = _PHASE_OVER
