"""Rummoli bots: they ask the engine what is legal and choose by the value of their hand.

A bot sees the :class:`~analytics.rules.rummoli.state.RummoliState` but looks
only at public facts and its own hand.  Its hand's value has three parts:

* poker strength: the evaluator's category of the best five of all its cards;
* pay cards held (each may win a pot in the Rummoli phase, and forbid an exchange);
* Rummoli prospects: how many of its cards follow another of its cards in the
  same suit (a run is laid in one go, every break is a stop where the turn may
  leave it) and how many low cards it holds (the poker winner opens with his
  lowest card; low cards are usually laid early).

:data:`STYLES` holds the styles: ``cautious`` (exchanges and bids rarely, bets
only good hands, mucks beaten hands), ``bold`` (bids higher, bets wider,
bluffs) and ``random`` (a uniformly random legal action: for property tests).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from analytics.evaluator import poker_category_of, poker_rank
from analytics.rules.rummoli.cards import PAY_CARDS, cards_of, codes_of
from analytics.rules.rummoli.state import Phase, RummoliState
from parsers.cards import DECK
from parsers.model import Action, Verb

__all__ = ["STYLES", "BotStyle", "HandValue", "RummoliBot", "hand_value"]


@dataclass(frozen=True, slots=True)
class HandValue:
    """What a bot thinks of a hand: its poker category, pay cards and Rummoli prospects."""

    category: int  # 0 high card .. 8 straight flush
    poker: int  # dense value 1..7462
    pay_cards: int
    runs: float  # share of cards that follow another card of the hand in sequence, 0..1
    low: float  # share of cards ranked 2..6

    @property
    def score(self) -> float:
        """0 (hopeless) to about 1 (strong): the blend the bots' decisions use."""
        poker = min(self.category, 6) / 6
        return 0.45 * poker + 0.1 * min(self.pay_cards, 3) + 0.25 * self.runs + 0.1 * self.low


def hand_value(mask: int) -> HandValue:
    """The :class:`HandValue` of the cards in ``mask`` (at least five cards)."""
    codes = codes_of(mask)
    value = poker_rank(cards_of(mask)).value
    following = sum(1 for code in codes if code >= 4 and mask >> (code - 4) & 1)
    low = sum(1 for code in codes if code < 20)
    count = len(codes)
    return HandValue(int(poker_category_of(value)), value, (mask & PAY_CARDS).bit_count(),
                     following / count, low / count)


@dataclass(frozen=True, slots=True)
class BotStyle:
    """The knobs of a playing style (probabilities and thresholds)."""

    name: str
    exchange_below: float  # the dealer takes the widow when his score is below this
    bid_budget: float  # chips: the most a hopeless hand would bid for the widow
    raise_from: int  # lowest category he bets or raises with
    call_from: int  # lowest category he calls with (high card calls only small bets)
    bluff: float  # chance of betting with a weak hand
    max_share: float  # at most this share of his stack per category point goes in
    muck_beaten: bool  # muck a hand already beaten at showdown
    forget_claim: float  # chance of forgetting to claim a pot (claim = manual)
    smart_lay: bool  # with a choice, lay the card whose successor he holds
    uniform: bool = False  # a uniformly random legal action, nothing else


STYLES: Final = {
    "cautious": BotStyle("cautious", exchange_below=0.2, bid_budget=2, raise_from=3,
                         call_from=1, bluff=0.02, max_share=0.06, muck_beaten=True,
                         forget_claim=0.0, smart_lay=True),
    "bold": BotStyle("bold", exchange_below=0.3, bid_budget=5, raise_from=1, call_from=0,
                     bluff=0.15, max_share=0.12, muck_beaten=False, forget_claim=0.1,
                     smart_lay=False),
    "random": BotStyle("random", exchange_below=0.5, bid_budget=3, raise_from=0, call_from=0,
                       bluff=0.5, max_share=1.0, muck_beaten=False, forget_claim=0.3,
                       smart_lay=False, uniform=True),
}
"""The playing styles by name."""


class RummoliBot:
    """A player of one style; :meth:`act` picks one of the state's legal actions."""

    def __init__(self, style: BotStyle, rng: random.Random) -> None:
        self.style = style
        self.rng = rng
        self._values: dict[int, HandValue] = {}

    def value(self, mask: int) -> HandValue:
        """The value of a hand (cached: a bot asks about the same hand several times)."""
        value = self._values.get(mask)
        if value is None:
            if len(self._values) > 64:
                self._values.clear()
            value = self._values[mask] = hand_value(mask)
        return value

    def act(self, state: RummoliState, player: int) -> Action:
        """Choose ``player``'s next action (he must be the player to act)."""
        phase = state.phase
        if phase is Phase.RUMMOLI:
            return self._lay(state, player)
        legal = state.legal_actions()
        if self.style.uniform:
            return self._uniform(state, legal)
        if phase is Phase.WIDOW:
            return self._widow(state, player)
        if phase is Phase.AUCTION:
            return self._auction(state, player)
        if phase is Phase.BETTING:
            return self._bet(state, player)
        if phase is Phase.SHOWDOWN:
            return self._show(state, player, legal)
        return legal[0]  # aw: the only action

    def claims(self, state: RummoliState, player: int) -> list[str]:
        """The pots ``player`` claims right after laying a card (claim = manual)."""
        return [pot for pot in state.claimable() if self.rng.random() >= self.style.forget_claim]

    # ----------------------------------------------------------------- decisions

    def _uniform(self, state: RummoliState, legal: list[Action]) -> Action:
        legal = [a for a in legal if a.verb is not Verb.CLAIM]
        choice = self.rng.choice(legal)
        if choice.verb is Verb.BET_RAISE:
            low_high = state.bet_range()
            if low_high is not None:
                return Action(choice.actor, Verb.BET_RAISE,
                              amount=self.rng.randint(low_high[0], low_high[1]))
        if choice.verb is Verb.BID:
            bids = state.bid_range()
            if bids is not None:
                top = min(bids[1], bids[0] + 3)
                return Action(choice.actor, Verb.BID, amount=self.rng.randint(bids[0], top))
        return choice

    def _widow(self, state: RummoliState, player: int) -> Action:
        mask = state.hand_mask(player)
        if state.can_exchange(player) and self.value(mask).score < self.style.exchange_below:
            return Action(player, Verb.EXCHANGE)
        return Action(player, Verb.PASS_WIDOW)

    def _auction(self, state: RummoliState, player: int) -> Action:
        bids = state.bid_range()
        assert bids is not None
        score = self.value(state.hand_mask(player)).score
        # A weak hand is worth swapping for an unknown one; never risk much of the stack.
        worth = int(self.style.bid_budget * max(0.0, 0.6 - score) / 0.6 + 0.5)
        worth = min(worth, state.stacks[player - 1] // 4)
        if bids[0] <= worth and self.rng.random() < 0.8:
            return Action(player, Verb.BID, amount=bids[0])
        return Action(player, Verb.BID_PASS)

    def _bet(self, state: RummoliState, player: int) -> Action:
        style, rng = self.style, self.rng
        poker = state.poker
        assert poker is not None
        category = self.value(state.hand_mask(player)).category
        index = player - 1
        to_call = poker.to_call(index)
        total = poker.committed[index] + poker.stacks[index]
        # How far this hand will go: a share of the stack per category point.
        limit = int(total * style.max_share * (category + 1))
        bets = state.bet_range()
        wants_raise = category >= style.raise_from or rng.random() < style.bluff
        if bets is not None and wants_raise and poker.current_bet < limit:
            low, high = bets
            pot = poker.pot_total
            target = poker.current_bet + max(1, pot // 2)
            return Action(player, Verb.BET_RAISE, amount=max(low, min(high, target, limit)))
        if to_call == 0:
            return Action(player, Verb.CHECK_CALL)
        cheap = to_call * 8 <= total
        if category >= style.call_from and (cheap or poker.current_bet <= limit):
            return Action(player, Verb.CHECK_CALL)
        if cheap and rng.random() < 0.3:
            return Action(player, Verb.CHECK_CALL)
        return Action(player, Verb.FOLD)

    def _show(self, state: RummoliState, player: int, legal: list[Action]) -> Action:
        show = legal[0]
        if not self.style.muck_beaten:
            return show
        mine = self.value(state.hand_mask(player)).poker
        poker = state.poker
        assert poker is not None
        committed = poker.committed
        for hand in state.showdown:
            # Beaten by a player who is in every pot this one is in: nothing left to win.
            if (hand.rank > mine and committed[hand.player - 1] >= committed[player - 1]
                    and len(legal) > 1):
                return legal[1]
        return show

    def _lay(self, state: RummoliState, player: int) -> Action:
        allowed = state.allowed_cards()
        if len(allowed) == 1:
            return Action(player, Verb.PLAY, cards=allowed)
        if self.style.smart_lay:
            mask = state.hand_mask(player)
            for card in allowed:
                following = card.code + 4
                if following < 52 and mask >> following & 1:
                    return Action(player, Verb.PLAY, cards=(card,))
        return Action(player, Verb.PLAY, cards=(DECK[self.rng.choice(allowed).code],))
