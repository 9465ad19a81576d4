"""The state of one Rummoli round (RULES.md section 1), action by action.

:class:`RummoliState` is built from a round's header (stacks, dealer, knobs,
board) and fed the round's steps.  Every step ``x`` has ``can_x(...) -> bool``,
``verify_x(...)`` (raises :class:`~analytics.rules.base.RuleError` with a message
a player understands) and ``x(...)`` (verifies, then applies).  :meth:`apply`
dispatches a parsed :class:`~parsers.model.Action`; :meth:`legal_actions` and
:attr:`turn` tell the bots and the replayer what may happen next.

Players are numbered 1..N as in the history (``pN``); internally they are
0-based indices.  Cards are integer codes and hands 52-bit masks
(:mod:`analytics.rules.rummoli.cards`); ``_holder[code]`` says which player holds
a card (-1: widow, dead or laid), so "who holds the next card" is one look-up.

The poker phase (:mod:`analytics.rules.rummoli.poker`, on the shared betting
engine and pot settlement) and the Rummoli phase
(:mod:`analytics.rules.rummoli.laying`) are mixins of the state.  Decisions
where RULES.md is silent are listed in docs/rules-rummoli.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand, permits
from analytics.rules.betting import BettingRound
from analytics.rules.rummoli.cards import (
    FULL_DECK,
    NINE_POTS,
    PAY_CARDS,
    POT_INDEX,
    cards_of,
    codes_of,
    lowest_of,
)
from analytics.rules.rummoli.common import (
    CODE_BY_ID,
    R_DEAL,
    R_END,
    R_FINALE,
    R_HEADER,
    R_LAY,
    R_POKER,
    R_WIDOW,
    LayReason,
    Phase,
    card_codes,
    player_name,
)
from analytics.rules.rummoli.laying import LayingPhase
from analytics.rules.rummoli.poker import PokerPhase
from parsers.cards import DECK, Card
from parsers.model import DEALER, RUMMOLI_POTS, Action, Verb
from parsers.rule_options import Betting, RummoliRules

__all__ = ["CODE_BY_ID", "Phase", "RummoliState"]


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_LAY_REASON_OPEN: Final = LayReason.OPEN
_PHASE_AUCTION: Final = Phase.AUCTION
_PHASE_AUCTION_CLOSE: Final = Phase.AUCTION_CLOSE
_PHASE_BETTING: Final = Phase.BETTING
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_IMPASSE: Final = Phase.IMPASSE
_PHASE_OVER: Final = Phase.OVER
_PHASE_RUMMOLI: Final = Phase.RUMMOLI
_PHASE_SHOWDOWN: Final = Phase.SHOWDOWN
_PHASE_WIDOW: Final = Phase.WIDOW
_VERB_AUCTION_WIN: Final = Verb.AUCTION_WIN
_VERB_BET_RAISE: Final = Verb.BET_RAISE
_VERB_BID: Final = Verb.BID
_VERB_BID_PASS: Final = Verb.BID_PASS
_VERB_CHECK_CALL: Final = Verb.CHECK_CALL
_VERB_CLAIM: Final = Verb.CLAIM
_VERB_DEAL_HOLE: Final = Verb.DEAL_HOLE
_VERB_DEAL_WIDOW: Final = Verb.DEAL_WIDOW
_VERB_EXCHANGE: Final = Verb.EXCHANGE
_VERB_FOLD: Final = Verb.FOLD
_VERB_IMPASSE: Final = Verb.IMPASSE
_VERB_NOOP: Final = Verb.NOOP
_VERB_PASS_WIDOW: Final = Verb.PASS_WIDOW
_VERB_PLAY: Final = Verb.PLAY
_VERB_SHOW_MUCK: Final = Verb.SHOW_MUCK

_PAY_NAMES: Final = {code: str(DECK[code]).upper() for code in codes_of(PAY_CARDS)}
_BIT_OF_CODE: Final = tuple(1 << code for code in range(52))
_BETTING_VERBS: Final = frozenset({Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD})


class RummoliState(PokerPhase, LayingPhase):
    """One Rummoli round, replayed or played step by step.

    Arguments:
        starting_stacks: each player's chips before the antes (all above 0: a
            player with no chips sits out and is not in the round).
        dealer: the dealing player, 1..N.
        rules: the knobs ``ante``, ``claim`` and ``finale``.
        betting: the poker phase's structure (the variant code's letter).
        min_bet: minimum bet (no and pot limit) or the fixed bet (fixed limit).
        board_before: the nine pots before the antes (``RUMMOLI_POTS`` order).
        finale_pot: None for an ordinary round; ``"all"`` or a pot name for a
            round of the end-of-game poker (no antes, no Rummoli phase).

    Raises :class:`RuleError` when the header itself is inconsistent.
    """

    def __init__(
        self,
        starting_stacks: Sequence[int],
        dealer: int,
        *,
        rules: RummoliRules | None = None,
        betting: Betting = Betting.NO_LIMIT,
        min_bet: int = 1,
        board_before: Sequence[int] | None = None,
        finale_pot: str | None = None,
    ) -> None:
        self.rules = rules if rules is not None else RummoliRules()
        self.n = n = len(starting_stacks)
        self.dealer = dealer
        self.betting = betting
        self.min_bet = min_bet
        self.finale_pot = finale_pot
        self.starting_stacks = tuple(starting_stacks)
        self.board_before = tuple(board_before) if board_before is not None else (0,) * NINE_POTS
        self._check_header()
        self.stacks = list(starting_stacks)
        self.board = list(self.board_before)
        self.antes = [0] * n
        if finale_pot is None:
            self._pay_antes()
        # Cards
        self.hands = [0] * n
        self.widow = 0
        self._dealt = 0
        self._holder = [-1] * 52
        self.laid_by = [0] * n
        # Widow and auction
        self.exchanged: int | None = None  # 1-based player who took the widow
        self.auction_price = 0
        self.high_bid = 0
        self.high_bidder = -1
        self._passed = [False] * n
        self._auction_at = -1
        # Poker phase
        d0 = dealer - 1
        self.order = tuple((d0 + 1 + i) % n for i in range(n))  # clockwise from the dealer's left
        self.poker: BettingRound | None = None
        self._contributions: list[int] = [0] * n
        self._in_hand = [True] * n
        self._pending_show: list[int] = []
        self._strengths: list[int | None] = [None] * n
        self.showdown: list[ShowdownHand] = []
        self.poker_winner = -1
        # Rummoli phase
        self._turn = -1
        self._allowed = 0
        self._why = _LAY_REASON_OPEN
        self._missing = -1  # the next card nobody holds (for messages)
        self._last = -1  # the last card laid
        self._last_layer = -1
        self._claimable: list[int] = []
        self.awards: list[PotAward] = []
        self.winner: int | None = None  # 1-based: who emptied his hand (finale: poker winner)
        self.impasse = False
        self.phase = _PHASE_DEAL

    # ================================================================= header and antes

    def _check_header(self) -> None:
        n = self.n
        if not 2 <= n <= 8:
            raise RuleError(f"Rummoli is played by 2 to 8 players, not {n}", rule=R_HEADER)
        for index, stack in enumerate(self.starting_stacks):
            if stack <= 0:
                raise RuleError(f"{player_name(index)} has no chips and sits out the round: a"
                                " history lists only the players who play it", rule=R_HEADER)
        if not 1 <= self.dealer <= n:
            raise RuleError(f"dealer {self.dealer} is not a player (expected 1..{n})",
                            rule=R_HEADER)
        if len(self.board_before) != NINE_POTS or min(self.board_before) < 0:
            raise RuleError("board_before must hold nine chip counts >= 0", rule=R_HEADER)
        if self.min_bet <= 0:
            raise RuleError(f"the minimum bet must be at least 1, not {self.min_bet}",
                            rule=R_POKER)
        pot, finale = self.finale_pot, self.rules.finale
        if pot is None:
            return
        if finale.value == "none":
            raise RuleError(f"finale_pot = {pot!r} but the game is played with finale = 'none'",
                            rule=R_FINALE)
        if finale.value == "single" and pot != "all":
            raise RuleError(f"with finale = 'single' the end-of-game round plays for the whole"
                            f" board (finale_pot = 'all'), not for {pot!r}", rule=R_FINALE)
        if finale.value == "single" and not any(self.board_before):
            raise RuleError("the board is empty: an end-of-game round plays for the chips left"
                            " on the board (board_before), and there are none", rule=R_FINALE)
        if finale.value == "per_pot":
            if pot == "all":
                raise RuleError("with finale = 'per_pot' the end-of-game rounds play for one pot"
                                " each: finale_pot names the pot, not 'all'", rule=R_FINALE)
            chips = self.board_before[POT_INDEX[pot]]
            if chips == 0:
                raise RuleError(f"finale_pot {pot!r} has no chips: per_pot plays only pots"
                                " with chips", rule=R_FINALE)
            smaller = [(c, RUMMOLI_POTS[i]) for i, c in enumerate(self.board_before)
                       if 0 < c < chips]
            if smaller:
                count, name = min(smaller)
                raise RuleError(f"per_pot plays the smallest pot first: {name} has {count} chips,"
                                f" {pot} has {chips}", rule=R_FINALE)

    def _pay_antes(self) -> None:
        """Every player pays ``ante`` into each pot; a short player is all in for the ante.

        A short player pays a full ante into each pot in board order (poker, TS, JD, QC,
        KH, AS, AKD, 789, rummoli) while he can, and what is left into the next pot
        (RULES.md 1): with ante 2 and 5 chips, 2 to poker, 2 to TS and 1 to JD.
        """
        ante = self.rules.ante
        full = ante * NINE_POTS
        board = self.board
        if min(self.stacks) >= full:  # the usual case: everybody pays in full
            self.board = [chips + ante * self.n for chips in board]
            self.stacks = [stack - full for stack in self.stacks]
            self.antes = [full] * self.n
            return
        for index, stack in enumerate(self.stacks):
            paid = full if stack >= full else stack
            whole, rest = divmod(paid, ante)
            for pot in range(whole):  # a full ante into each pot while he can
                board[pot] += ante
            if rest:  # what is left into the next pot
                board[whole] += rest
            self.stacks[index] = stack - paid
            self.antes[index] = paid

    # ================================================================= whose turn

    @property
    def turn(self) -> int | None:
        """Who acts next: a player 1..N, :data:`DEALER` (0) for ``d``, None when it is over."""
        phase = self.phase
        if phase is _PHASE_DEAL or phase is _PHASE_IMPASSE:
            return DEALER
        if phase is _PHASE_WIDOW:
            return self.dealer
        if phase is _PHASE_AUCTION:
            return self._auction_at + 1
        if phase is _PHASE_AUCTION_CLOSE:
            return self.high_bidder + 1
        if phase is _PHASE_BETTING:
            assert self.poker is not None and self.poker.actor is not None
            return self.poker.actor + 1
        if phase is _PHASE_SHOWDOWN:
            return self._pending_show[0] + 1
        if phase is _PHASE_RUMMOLI:
            return self._turn + 1
        return None

    @property
    def is_over(self) -> bool:
        """True when the round has ended (only a claim of the last card may follow)."""
        return self.phase is _PHASE_OVER

    def expecting(self) -> str:
        """What the round waits for, in words (used in error messages)."""
        phase = self.phase
        if phase is _PHASE_DEAL:
            return f"the deal is not complete ({52 - self._dealt.bit_count()} cards not dealt)"
        if phase is _PHASE_WIDOW:
            return (f"the dealer p{self.dealer} must exchange with the widow (xw) or put it"
                    " up for auction (pw)")
        if phase is _PHASE_AUCTION:
            return f"p{self._auction_at + 1} is to bid (ab) or pass (ap) in the widow auction"
        if phase is _PHASE_AUCTION_CLOSE:
            return (f"p{self.high_bidder + 1} won the widow auction and must take it"
                    f" (aw {self.high_bid})")
        if phase is _PHASE_BETTING:
            actor = self.poker.actor if self.poker is not None else None
            return f"{player_name(actor or 0)} is to act in the poker phase"
        if phase is _PHASE_SHOWDOWN:
            names = ", ".join(player_name(i) for i in self._pending_show)
            return f"the showdown is not over ({names} to show or muck)"
        if phase is _PHASE_RUMMOLI:
            return f"{player_name(self._turn)} is to lay {self._allowed_text()}"
        if phase is _PHASE_IMPASSE:
            return "the round is at an impasse: the dealer must declare it (d im)"
        return "the round is over"

    def _phase_error(self, what: str, rule: str) -> RuleError:
        return RuleError(f"{what} is not allowed now: {self.expecting()}", rule=rule)

    def hand_of(self, player: int) -> tuple[Card, ...]:
        """The cards player ``player`` (1..N) holds now, lowest first."""
        return cards_of(self.hands[player - 1])

    def hand_mask(self, player: int) -> int:
        """The mask of the cards player ``player`` (1..N) holds now."""
        return self.hands[player - 1]

    # ================================================================= deal

    def verify_deal(self, player: int | None, codes: Sequence[int]) -> None:
        """Check ``d dh pN CARDS`` (``player`` = N) or ``d dw CARDS`` (``player`` None)."""
        self._verify_deal(player, codes)

    def _verify_deal(self, player: int | None, codes: Sequence[int]) -> int:
        """Check a deal step; return the mask of its cards."""
        if self.phase is not _PHASE_DEAL:
            raise RuleError("all 52 cards are already dealt", rule=R_DEAL)
        if player is not None and not 1 <= player <= self.n:
            raise RuleError(f"p{player} is not a player", rule=R_DEAL)
        seen = self._dealt
        for code in codes:
            if code < 0:
                raise RuleError("every card of a Rummoli deal must be known (no ??): the"
                                " Rummoli phase depends on who holds each card", rule=R_DEAL)
            bit = 1 << code
            if seen & bit:
                raise RuleError(f"card {DECK[code]} is dealt twice", rule=R_DEAL)
            seen |= bit
        return seen & ~self._dealt

    def can_deal(self, player: int | None, codes: Sequence[int]) -> bool:
        """True when the deal step is legal now."""
        return permits(self.verify_deal, player, codes)

    def deal(self, player: int | None, codes: Sequence[int]) -> None:
        """Deal cards to player ``player`` (1..N), or to the widow when ``player`` is None."""
        self._give(player, codes, self._verify_deal(player, codes))

    def _give(self, player: int | None, codes: Sequence[int], mask: int) -> None:
        """Put the checked cards ``codes`` (bits ``mask``) in player ``player``'s hand or
        the widow; the deal ends when the whole deck is out."""
        self._dealt |= mask
        if player is None:
            self.widow |= mask
        else:
            index = player - 1
            self.hands[index] |= mask
            holder = self._holder
            for code in codes:
                holder[code] = index
        if self._dealt == FULL_DECK:
            self._finish_deal()

    def _deal_cards(self, player: int | None, cards: Sequence[Card]) -> None:
        """:meth:`deal` of a history's cards, with one pass over them for the usual deal.

        The usual deal (the deal phase, a seated player, known cards none of
        which was dealt before) is applied at once; anything else goes to
        :meth:`deal`, which checks card by card and raises the error.
        """
        codes = [card.code for card in cards]
        if not codes or min(codes) < 0:  # ?? (code -1): deal() raises its error
            self.deal(player, codes)
            return
        # Summing bits is or-ing them when no card repeats; a repeat carries, so the bit
        # count comes out short.
        mask = sum(map(_BIT_OF_CODE.__getitem__, codes))
        if (self.phase is not _PHASE_DEAL or mask.bit_count() != len(codes)
                or mask & self._dealt or (player is not None and not 1 <= player <= self.n)):
            self.deal(player, codes)
            return
        self._give(player, codes, mask)

    def _finish_deal(self) -> None:
        sizes = [hand.bit_count() for hand in self.hands]
        widow = self.widow.bit_count()
        everything = [*sizes, widow]
        if max(everything) - min(everything) > 1:
            small = min(range(len(everything)), key=everything.__getitem__)
            large = max(range(len(everything)), key=everything.__getitem__)

            def name(i: int) -> str:
                return "the widow" if i == self.n else player_name(i)

            raise RuleError(f"hand sizes differ by more than one: {name(large)} has"
                            f" {everything[large]} cards, {name(small)} {everything[small]}",
                            rule=R_DEAL)
        self.phase = _PHASE_WIDOW

    # ================================================================= widow

    def _pay_card_of(self, index: int) -> str | None:
        held = self.hands[index] & PAY_CARDS
        return _PAY_NAMES[lowest_of(held)] if held else None

    def verify_exchange(self, player: int) -> None:
        """Check ``pD xw``: the dealer exchanges his hand for the widow."""
        if self.phase is not _PHASE_WIDOW:
            raise self._phase_error(f"p{player} xw", R_WIDOW)
        if player != self.dealer:
            raise RuleError(f"only the dealer p{self.dealer} may exchange with the widow"
                            " directly; the others bid for it", rule=R_WIDOW)
        pay = self._pay_card_of(player - 1)
        if pay is not None:
            raise RuleError(f"p{player} exchanged with the widow while holding the pay card"
                            f" {pay}", rule=R_WIDOW)

    def can_exchange(self, player: int) -> bool:
        """True when ``player`` may exchange with the widow now (he is the dealer, no pay card)."""
        return self.phase is _PHASE_WIDOW and player == self.dealer and (
            self.hands[player - 1] & PAY_CARDS == 0)

    def exchange(self, player: int) -> None:
        """The dealer exchanges his hand for the widow."""
        self.verify_exchange(player)
        self._take_widow(player - 1)

    def _take_widow(self, index: int) -> None:
        old, new = self.hands[index], self.widow
        self._hold_widow(index, old, new)
        self.hands[index], self.widow = new, old
        self.exchanged = index + 1
        self._start_poker()

    def _hold_widow(self, index: int, old: int, new: int) -> None:
        """The holders after player ``index`` swaps his hand ``old`` for the widow ``new``."""
        holder = self._holder
        for code in codes_of(old):
            holder[code] = -1  # his old hand becomes the widow: dead for the round
        for code in codes_of(new):
            holder[code] = index

    def verify_pass_widow(self, player: int) -> None:
        """Check ``pD pw``: the dealer keeps his hand and the widow is auctioned."""
        if self.phase is not _PHASE_WIDOW:
            raise self._phase_error(f"p{player} pw", R_WIDOW)
        if player != self.dealer:
            raise RuleError(f"only the dealer p{self.dealer} decides on the widow", rule=R_WIDOW)

    def can_pass_widow(self, player: int) -> bool:
        """True when ``player`` may put the widow up for auction now."""
        return self.phase is _PHASE_WIDOW and player == self.dealer

    def pass_widow(self, player: int) -> None:
        """The dealer keeps his hand; the widow is auctioned."""
        self.verify_pass_widow(player)
        self.phase = _PHASE_AUCTION
        self._auction_at = self.dealer - 1
        self._next_bidder()

    # ================================================================= auction

    def _may_bid(self, index: int) -> bool:
        return (index != self.dealer - 1 and not self._passed[index]
                and self.hands[index] & PAY_CARDS == 0 and self.stacks[index] > self.high_bid
                and index != self.high_bidder)

    def _next_bidder(self) -> None:
        """Clockwise from the last bidder, the next player who may still bid; else close."""
        n = self.n
        start = self._auction_at
        for step in range(1, n + 1):
            index = (start + step) % n
            if self._may_bid(index):
                self._auction_at = index
                return
        # Nobody can outbid the high bid: the auction is over.
        if self.high_bidder >= 0:
            self.phase = _PHASE_AUCTION_CLOSE
        else:
            self._start_poker()

    def _verify_bidder(self, player: int, what: str) -> None:
        if self.phase is not _PHASE_AUCTION:
            raise self._phase_error(f"p{player} {what}", R_WIDOW)
        index = player - 1
        if index == self.dealer - 1:
            raise RuleError(f"the dealer p{player} may not bid for the widow", rule=R_WIDOW)
        pay = self._pay_card_of(index)
        if pay is not None:
            raise RuleError(f"p{player} may not bid for the widow while holding the pay card"
                            f" {pay} (a hand with a pay card may not be exchanged)", rule=R_WIDOW)
        if self._passed[index]:
            raise RuleError(f"p{player} passed and is out of the auction", rule=R_WIDOW)
        if index != self._auction_at:
            raise RuleError(f"it is p{self._auction_at + 1}'s turn to bid or pass, not"
                            f" p{player}'s", rule=R_WIDOW)

    def verify_bid(self, player: int, amount: int) -> None:
        """Check ``pN ab AMOUNT``."""
        self._verify_bidder(player, f"ab {amount}")
        if amount <= self.high_bid:
            if self.high_bidder < 0:
                raise RuleError(f"a bid is at least 1 chip, not {amount}", rule=R_WIDOW)
            raise RuleError(f"bid of {amount} does not beat the high bid of {self.high_bid}"
                            f" (p{self.high_bidder + 1})", rule=R_WIDOW)
        stack = self.stacks[player - 1]
        if amount > stack:
            raise RuleError(f"p{player} bid {amount} but has only {stack} chips", rule=R_WIDOW)

    def can_bid(self, player: int, amount: int) -> bool:
        """True when ``player`` may bid ``amount`` now."""
        return permits(self.verify_bid, player, amount)

    def bid_range(self) -> tuple[int, int] | None:
        """The smallest and largest bid the player to bid may make, or None."""
        if self.phase is not _PHASE_AUCTION:
            return None
        return self.high_bid + 1, self.stacks[self._auction_at]

    def bid(self, player: int, amount: int) -> None:
        """``player`` bids ``amount`` chips for the widow."""
        self.verify_bid(player, amount)
        self.high_bid = amount
        self.high_bidder = player - 1
        self._next_bidder()

    def verify_pass_bid(self, player: int) -> None:
        """Check ``pN ap``."""
        self._verify_bidder(player, "ap")

    def can_pass_bid(self, player: int) -> bool:
        """True when ``player`` may pass in the auction now."""
        return self.phase is _PHASE_AUCTION and player - 1 == self._auction_at

    def pass_bid(self, player: int) -> None:
        """``player`` passes and is out of the auction."""
        self.verify_pass_bid(player)
        self._passed[player - 1] = True
        self._next_bidder()

    def verify_win_auction(self, player: int, amount: int) -> None:
        """Check ``pN aw AMOUNT``: the high bidder pays the dealer and takes the widow."""
        if self.phase is not _PHASE_AUCTION_CLOSE:
            raise self._phase_error(f"p{player} aw {amount}", R_WIDOW)
        if player - 1 != self.high_bidder:
            raise RuleError(f"p{player} did not win the auction: p{self.high_bidder + 1} bid"
                            f" highest ({self.high_bid})", rule=R_WIDOW)
        if amount != self.high_bid:
            raise RuleError(f"p{player} won the auction with his bid of {self.high_bid}, not"
                            f" {amount}", rule=R_WIDOW)

    def can_win_auction(self, player: int, amount: int) -> bool:
        """True when ``pN aw AMOUNT`` is the step due now."""
        return (self.phase is _PHASE_AUCTION_CLOSE and player - 1 == self.high_bidder
                and amount == self.high_bid)

    def win_auction(self, player: int, amount: int) -> None:
        """The high bidder pays his bid to the dealer and exchanges hands with the widow."""
        self.verify_win_auction(player, amount)
        index, dealer = player - 1, self.dealer - 1
        self.stacks[index] -= amount
        self.stacks[dealer] += amount
        self.auction_price = amount
        if amount:
            self.awards.append(PotAward("auction", dealer + 1, amount))
            self.awards.append(PotAward("auction", player, -amount))
        self._take_widow(index)

    # ================================================================= actions

    def apply(self, action: Action) -> None:
        """Verify and apply one parsed action (no-ops are ignored)."""
        verb = action.verb
        actor = action.actor
        if verb is _VERB_PLAY:
            if len(action.cards) != 1:
                raise RuleError("a Rummoli player lays one card at a time", rule=R_LAY)
            self.lay(actor, action.cards[0].code)
        elif verb in _BETTING_VERBS:
            if verb is _VERB_CHECK_CALL:
                self.check_call(actor)
            elif verb is _VERB_FOLD:
                self.fold(actor)
            else:
                self.bet_raise(actor, action.amount or 0)
        elif verb is _VERB_DEAL_HOLE:
            self._deal_cards(action.target, action.cards)
        elif verb is _VERB_DEAL_WIDOW:
            self._deal_cards(None, action.cards)
        elif verb is _VERB_EXCHANGE:
            self.exchange(actor)
        elif verb is _VERB_PASS_WIDOW:
            self.pass_widow(actor)
        elif verb is _VERB_BID:
            self.bid(actor, action.amount or 0)
        elif verb is _VERB_BID_PASS:
            self.pass_bid(actor)
        elif verb is _VERB_AUCTION_WIN:
            self.win_auction(actor, action.amount or 0)
        elif verb is _VERB_SHOW_MUCK:
            self.show(actor, card_codes(action.cards))
        elif verb is _VERB_CLAIM:
            self.claim(actor, action.pot or "")
        elif verb is _VERB_IMPASSE:
            self.declare_impasse()
        elif verb is not _VERB_NOOP:
            raise RuleError(f"{verb.value!r} is not a Rummoli action", rule=R_HEADER)

    def legal_actions(self) -> list[Action]:
        """The actions allowed now.

        Deals are templates without cards (which cards is the dealer's business);
        a bet or bid range is given by its two ends (:meth:`bet_range`,
        :meth:`bid_range` give the same), every amount in between is legal too.
        Claims (claim = manual) belong to the last player to lay, whoever lays next.
        """
        phase = self.phase
        actions: list[Action] = []
        if phase is _PHASE_DEAL:
            actions = [Action(DEALER, _VERB_DEAL_HOLE, target=p) for p in range(1, self.n + 1)]
            actions.append(Action(DEALER, _VERB_DEAL_WIDOW))
        elif phase is _PHASE_WIDOW:
            if self.can_exchange(self.dealer):
                actions.append(Action(self.dealer, _VERB_EXCHANGE))
            actions.append(Action(self.dealer, _VERB_PASS_WIDOW))
        elif phase is _PHASE_AUCTION:
            player = self._auction_at + 1
            low, high = self.high_bid + 1, self.stacks[self._auction_at]
            actions = [Action(player, _VERB_BID, amount=low)]
            if high > low:
                actions.append(Action(player, _VERB_BID, amount=high))
            actions.append(Action(player, _VERB_BID_PASS))
        elif phase is _PHASE_AUCTION_CLOSE:
            actions = [Action(self.high_bidder + 1, _VERB_AUCTION_WIN, amount=self.high_bid)]
        elif phase is _PHASE_BETTING:
            assert self.poker is not None
            legal = self.poker.legal_actions()
            assert legal is not None
            player = legal.player + 1
            actions = [Action(player, _VERB_FOLD), Action(player, _VERB_CHECK_CALL)]
            if legal.min_to is not None and legal.max_to is not None:
                actions.append(Action(player, _VERB_BET_RAISE, amount=legal.min_to))
                if legal.max_to > legal.min_to:
                    actions.append(Action(player, _VERB_BET_RAISE, amount=legal.max_to))
        elif phase is _PHASE_SHOWDOWN:
            index = self._pending_show[0]
            actions = [Action(index + 1, _VERB_SHOW_MUCK, cards=cards_of(self.hands[index]))]
            # No muck by the last to show when nobody showed: show() refuses a showdown
            # everybody mucked (an empty pot, which _muck_problem leaves alone, included).
            last_and_alone = len(self._pending_show) == 1 and not self.showdown
            if self._muck_problem(index) is None and not last_and_alone:
                actions.append(Action(index + 1, _VERB_SHOW_MUCK))
        elif phase is _PHASE_RUMMOLI:
            actions = [Action(self._turn + 1, _VERB_PLAY, cards=(card,))
                       for card in cards_of(self._allowed)]
        elif phase is _PHASE_IMPASSE:
            actions = [Action(DEALER, _VERB_IMPASSE)]
        actions.extend(Action(self._last_layer + 1, _VERB_CLAIM, pot=RUMMOLI_POTS[p])
                       for p in self._claimable)
        return actions

    def bet_range(self) -> tuple[int, int] | None:
        """The smallest and largest bet or raise (totals) for the player to act, or None."""
        if self.phase is not _PHASE_BETTING or self.poker is None:
            return None
        legal = self.poker.legal_actions()
        if legal is None or legal.min_to is None or legal.max_to is None:
            return None
        return legal.min_to, legal.max_to

    def to_call(self) -> int:
        """The chips a check or call puts in for the player to act in the poker phase (0: a
        check, and outside the betting)."""
        betting = self._betting_under_way()
        legal = betting.legal_actions() if betting is not None else None
        return legal.call if legal is not None else 0

    def poker_bets(self) -> tuple[int, ...]:
        """What each player has put in during the poker phase's betting (his ante aside);
        () outside it."""
        betting = self._betting_under_way()
        return tuple(betting.committed) if betting is not None else ()

    def poker_folded(self) -> tuple[bool, ...]:
        """Who has folded in the poker phase's betting (he still plays the laying phase);
        () outside it."""
        betting = self._betting_under_way()
        return tuple(not playing for playing in betting.in_hand) if betting is not None else ()

    def chips_behind(self) -> tuple[int, ...]:
        """Each player's chips not yet in a pot: during the poker phase's betting, less
        what he has bet so far (:attr:`stacks` takes the bets when the betting ends)."""
        betting = self._betting_under_way()
        return tuple(betting.stacks if betting is not None else self.stacks)

    def _betting_under_way(self) -> BettingRound | None:
        """The poker phase's betting round while it goes on, else None."""
        return self.poker if self.phase is _PHASE_BETTING else None

    # ================================================================= outcome

    def outcome(self) -> Outcome:
        """The round's result; raises :class:`RuleError` if the round is not over."""
        if self.phase is not _PHASE_OVER:
            raise RuleError(f"the history ends before the round is over: {self.expecting()}",
                            rule=R_END)
        nets = tuple(s - b for s, b in zip(self.stacks, self.starting_stacks, strict=True))
        return Outcome(
            nets=nets,
            awards=tuple(self.awards),
            showdown=tuple(self.showdown),
            finishing_stacks=tuple(self.stacks),
            board_after=tuple(self.board),
            winner=self.winner,
            extra={
                "poker_winner": self.poker_winner + 1,
                "impasse": self.impasse,
                "exchanged": self.exchanged,
                "auction_price": self.auction_price,
                "antes": tuple(self.antes),
                "cards_left": tuple(hand.bit_count() for hand in self.hands),
            },
        )
