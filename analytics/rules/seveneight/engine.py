"""The 7 & 8 Poker engine (RULES.md section 3; history format in docs/format.md).

:class:`SevenEightState` is one hand in progress, built from the header's
stacks, antes, blinds and betting structure.  Players are **0-based indices**
(``pN`` is index ``N - 1``): index 0 is the small blind left of the button and
index N-1 the button; heads-up the button (index 1) posts the small blind, as
in PHH.  Antes and blinds are posted when the state is built.  The hand then
goes through :class:`Phase`: two hole cards to everyone, one card turned up by
everyone, betting round 1 (first to act left of the big blind; heads-up the
button), a third card to everyone still in, betting round 2 (first player still
in left of the button), showdown.  Betting is the shared
:class:`~analytics.rules.betting.BettingRound`; settlement is
:mod:`analytics.rules.pots` (odd chips from the button's left).

Each step has ``can_x`` / ``verify_x`` (raises :class:`RuleError`) / ``x``;
:meth:`SevenEightState.apply` plays a history :class:`Action`.
:func:`replay` replays a whole hand and returns its :class:`Outcome`.
Decisions where RULES.md is silent: docs/rules-seveneight.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from analytics.evaluator import seveneight_rank
from analytics.rules.base import (
    Outcome,
    RuleError,
    ShowdownHand,
    permits,
)
from analytics.rules.betting import (
    BettingError,
    BettingRound,
    LegalBetting,
)
from analytics.rules.pots import NoContenderError, settle
from parsers.caching import BoundedCache
from parsers.cards import UNKNOWN, Card, format_cards
from parsers.model import Action, HandHistory, Verb
from parsers.rule_options import Betting

__all__ = ["STRUCTURES", "Phase", "SevenEightLegal", "SevenEightState", "blinds_problem",
           "replay"]

STRUCTURES: dict[str, Betting] = {
    "N78": Betting.NO_LIMIT,
    "P78": Betting.POT_LIMIT,
    "F78": Betting.FIXED_LIMIT,
}
"""Betting structure of each 7 & 8 variant code."""


# Verbs as module constants: the replay loop compares every action against them.
_DEAL = Verb.DEAL_HOLE
_CHECK_CALL = Verb.CHECK_CALL
_FOLD = Verb.FOLD
_BET_RAISE = Verb.BET_RAISE
_UP = Verb.TURN_UP
_SHOW = Verb.SHOW_MUCK


class Phase(IntEnum):
    """Where a hand of 7 & 8 stands."""

    DEAL = 0  # two hole cards to every player
    TURN_UP = 1  # every player turns one card up
    BETTING1 = 2
    DEAL_THIRD = 3  # one card to every player still in
    BETTING2 = 4
    SHOWDOWN = 5  # every player still in shows or mucks
    OVER = 6


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_BETTING_FIXED_LIMIT: Final = Betting.FIXED_LIMIT
_BETTING_POT_LIMIT: Final = Betting.POT_LIMIT
_PHASE_BETTING1: Final = Phase.BETTING1
_PHASE_BETTING2: Final = Phase.BETTING2
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_DEAL_THIRD: Final = Phase.DEAL_THIRD
_PHASE_OVER: Final = Phase.OVER
_PHASE_SHOWDOWN: Final = Phase.SHOWDOWN
_PHASE_TURN_UP: Final = Phase.TURN_UP
_ROUND_OPEN: Final = frozenset({Phase.DEAL, Phase.TURN_UP, Phase.BETTING1, Phase.BETTING2})
"""The phases whose betting round holds chips not yet in ``contributions``: round 1's from
the deal on (the blinds are posted before the cards), round 2's while it is bet."""
_VERB_NOOP: Final = Verb.NOOP


_ROUND1_ORDERS: Final = {n: (1, 0) if n == 2 else (*range(2, n), 0, 1) for n in range(2, 18)}
"""Acting order of betting round 1 by table size: left of the big blind (heads-up: the button)."""
_ROUND2_ORDERS: Final = {n: tuple(range(n)) for n in range(2, 18)}
"""Acting order of betting round 2: the first player still in left of the button."""

_PHASE_WORDS = {
    Phase.DEAL: "the deal of two cards",
    Phase.TURN_UP: "turning cards up",
    Phase.BETTING1: "betting round 1",
    Phase.DEAL_THIRD: "the deal of the third card",
    Phase.BETTING2: "betting round 2",
    Phase.SHOWDOWN: "the showdown",
    Phase.OVER: "the end of the hand",
}


@dataclass(frozen=True, slots=True)
class SevenEightLegal:
    """What may happen next.

    ``players`` are the indices who may act now (everyone still owed a card,
    an up card or a showdown decision; the one player to act while betting).
    ``betting`` details the bet sizes while betting, else None.
    """

    phase: Phase
    players: tuple[int, ...]
    betting: LegalBetting | None


def _error(message: str, rule: str) -> RuleError:
    return RuleError(message, rule=rule)


def _p(player: int) -> str:
    return f"p{player + 1}"


def blinds_problem(blinds: Sequence[int], structure: Betting, bet_sizes: tuple[int, int]
                   ) -> str | None:
    """What is wrong with a hand's blinds (``blinds_or_straddles``) and its bet sizes
    (``min_bet`` in no-limit and pot-limit; ``small_bet`` and ``big_bet`` in fixed limit);
    None when nothing is (RULES.md 3).

    The blinds are exactly a small and a big blind (each at least 1, the small no larger
    than the big) posted by the two seats after the button, ``p1`` and ``p2``, every other
    seat posting 0; heads-up the button ``p2`` posts the small blind and ``p1`` the big.
    The minimum bet is the big blind; in fixed limit the small bet (round 1's) is the big
    blind and the big bet (round 2's) twice it.  The block replay
    (:func:`analytics.rules.seveneight.block.replay_block`) applies the same rule to a
    block's columns at once, leaving the hands it refuses to this engine.
    """
    n = len(blinds)
    if n < 2:
        return None  # the player count's own error comes first
    if n == 2:
        big, small = blinds
        if small < 1 or big < 1:
            return (f"blinds_or_straddles {list(blinds)}: heads-up the button p2 posts the small"
                    " blind and p1 the big blind, each at least 1")
        if small > big:
            return (f"blinds_or_straddles {list(blinds)}: heads-up the button p2 posts the small"
                    f" blind, not the big: p2's {small} is more than p1's {big}")
    else:
        small, big = blinds[0], blinds[1]
        if small < 1 or big < 1:
            return (f"blinds_or_straddles {list(blinds)}: p1 posts the small blind and p2 the"
                    " big blind, each at least 1")
        if small > big:
            return (f"blinds_or_straddles {list(blinds)}: the small blind (p1, {small}) is more"
                    f" than the big blind (p2, {big})")
        third = next((seat for seat in range(2, n) if blinds[seat]), None)
        if third is not None:
            return (f"blinds_or_straddles {list(blinds)}: {_p(third)} posts {blinds[third]}, but"
                    " only the small and the big blind post (p1 and p2); every other seat 0")
    first, second = bet_sizes
    if structure is _BETTING_FIXED_LIMIT:
        if first != big:
            return (f"fixed limit: small_bet {first} is not the big blind {big} (round 1's bet"
                    " is the big blind)")
        if second != 2 * first:
            return (f"fixed limit: big_bet {second} is not twice the small bet {first} (round"
                    " 2's bet is double round 1's)")
    elif first != big:
        side = "below" if first < big else "above"
        return f"min_bet {first} is {side} the big blind {big} (the big blind is the minimum bet)"
    return None


class SevenEightState:
    """One hand of 7 & 8 in progress; see the module docstring.

    Arguments:
        starting_stacks: chips of each player before antes and blinds (all > 0).
        antes: each player's ante (posted first; all in if short).
        blinds: each player's blind (``blinds_or_straddles``), posted after antes.
        structure: the betting structure.
        bet_sizes: the minimum bet (no and pot limit) or the fixed bet size of
            betting rounds 1 and 2 (``small_bet``, ``big_bet`` in fixed limit).

    ``stacks`` and ``contributions`` are brought up to date at the end of each
    betting round; during a round, its live figures are on :attr:`betting`.
    """

    __slots__ = (
        "_betting",
        "_pending",
        "bet_sizes",
        "contributions",
        "holes",
        "in_hand",
        "n",
        "phase",
        "shown",
        "stacks",
        "starting_stacks",
        "structure",
        "up_cards",
    )

    def __init__(
        self,
        starting_stacks: Sequence[int],
        antes: Sequence[int],
        blinds: Sequence[int],
        structure: Betting,
        bet_sizes: tuple[int, int],
    ) -> None:
        n = len(starting_stacks)
        if not 2 <= n <= 17:
            raise _error(f"7 & 8 is played by 2 to 17 players, not {n}", "players")
        if len(antes) != n or len(blinds) != n:
            raise _error("antes and blinds_or_straddles need one entry per player", "header")
        blinds_wrong = blinds_problem(blinds, structure, bet_sizes)
        if blinds_wrong is not None:
            raise _error(blinds_wrong, "blinds")
        if len(set(antes)) > 1:  # a player short of it posts what he has, all in
            raise _error(f"antes {list(antes)}: every player owes the same ante (RULES.md 3's "
                         "antes knob is one number)", "antes")
        if min(starting_stacks) <= 0:
            for player, stack in enumerate(starting_stacks):
                if stack <= 0:
                    raise _error(f"{_p(player)} has no chips ({stack}) and cannot be dealt in",
                                 "stacks")
        self.n = n
        self.starting_stacks: tuple[int, ...] = tuple(starting_stacks)
        self.structure = structure
        self.bet_sizes = bet_sizes
        stacks = list(starting_stacks)
        # Antes, then blinds, each all in when short.
        if any(antes):
            contributions = [min(ante, stack) for ante, stack in zip(antes, stacks, strict=True)]
            stacks = [stack - paid for stack, paid in zip(stacks, contributions, strict=True)]
        else:
            contributions = [0] * n
        posted = [min(blind, stack) for blind, stack in zip(blinds, stacks, strict=True)]
        stacks = [stack - paid for stack, paid in zip(stacks, posted, strict=True)]
        self.stacks: list[int] = stacks
        self.contributions: list[int] = contributions
        self.in_hand: list[bool] = [True] * n
        self.holes: list[list[Card]] = [[] for _ in range(n)]
        self.up_cards: list[Card | None] = [None] * n
        self.shown: list[tuple[Card, ...] | None] = [None] * n
        self.phase = _PHASE_DEAL
        # Who still has to act in a non-betting phase (a set of indices).
        self._pending: set[int] = set(range(n))
        # Round 1 is prepared now (blinds are in); it starts when the cards are up.
        self._betting = BettingRound(stacks, posted, self.in_hand, self._round1_order(),
                                     structure, bet_sizes[0], pot=sum(contributions))

    @classmethod
    def from_hand(cls, hand: HandHistory) -> SevenEightState:
        """The state at the start of ``hand`` (raises :class:`RuleError` for a bad header)."""
        structure = STRUCTURES.get(hand.variant)
        if structure is None:
            raise RuleError(f"{hand.variant!r} is not a 7 & 8 variant (expected N78, P78 or F78)",
                            hand=hand, rule="header")
        if hand.starting_stacks is None:
            raise RuleError("missing starting_stacks", hand=hand, rule="header")
        n = len(hand.starting_stacks)
        if structure is _BETTING_FIXED_LIMIT:
            if hand.small_bet is None or hand.big_bet is None:
                raise RuleError("fixed limit needs small_bet and big_bet", hand=hand,
                                rule="header")
            sizes = (hand.small_bet, hand.big_bet)
        else:
            if hand.min_bet is None:
                raise RuleError("no-limit and pot-limit need min_bet", hand=hand, rule="header")
            sizes = (hand.min_bet, hand.min_bet)
        try:
            return cls(hand.starting_stacks, hand.antes or (0,) * n,
                       hand.blinds_or_straddles or (0,) * n, structure, sizes)
        except RuleError as error:
            raise error.located(hand) from None

    # ----------------------------------------------------------------- orders

    def _round1_order(self) -> tuple[int, ...]:
        return _ROUND1_ORDERS[self.n]

    # ----------------------------------------------------------------- queries

    @property
    def betting(self) -> BettingRound | None:
        """The betting round in progress, or None outside the betting phases."""
        if self.phase is _PHASE_BETTING1 or self.phase is _PHASE_BETTING2:
            return self._betting
        return None

    @property
    def actor(self) -> int | None:
        """The player to bet, check, call or fold, or None outside betting."""
        return self._betting.actor if self.betting is not None else None

    @property
    def round_bets(self) -> tuple[int, ...]:
        """What each player has put in during the betting round under way, or about to
        start: round 1's blinds from the deal on; zeros between the rounds and after."""
        if self.phase in _ROUND_OPEN:
            return tuple(self._betting.committed)
        return (0,) * self.n

    @property
    def pot(self) -> int:
        """All chips put in so far (antes, blinds, bets; uncalled chips not yet returned)."""
        return sum(self.contributions) + sum(self.round_bets)

    def legal_actions(self) -> SevenEightLegal:
        """What may happen next (see :class:`SevenEightLegal`)."""
        betting = self.betting
        if betting is not None:
            legal = betting.legal_actions()
            players = (legal.player,) if legal is not None else ()
            return SevenEightLegal(self.phase, players, legal)
        return SevenEightLegal(self.phase, tuple(sorted(self._pending)), None)

    def waiting_for(self) -> str:
        """Words for what the hand is waiting for (used when a history stops early)."""
        if self.phase is _PHASE_OVER:
            return "nothing: the hand is over"
        betting = self.betting
        if betting is not None and betting.actor is not None:
            return f"{_PHASE_WORDS[self.phase]} is not finished: {_p(betting.actor)} is to act"
        names = " ".join(_p(p) for p in sorted(self._pending))
        return f"{_PHASE_WORDS[self.phase]} is not finished: waiting for {names}"

    # ----------------------------------------------------------------- dealing

    def verify_deal(self, player: int, cards: Sequence[Card]) -> None:
        """Raise :class:`RuleError` unless ``cards`` may be dealt to ``player`` now."""
        phase = self.phase
        if phase is _PHASE_DEAL:
            if player not in self._pending:
                raise _error(f"{_p(player)} has already been dealt his two cards", "deal")
            if len(cards) != 2:
                raise _error(f"the deal gives each player two cards, not {len(cards)}", "deal")
            return
        if phase is _PHASE_DEAL_THIRD:
            if not self.in_hand[player]:
                raise _error(f"{_p(player)} has folded and gets no third card", "deal")
            if player not in self._pending:
                raise _error(f"{_p(player)} has already been dealt his third card", "deal")
            if len(cards) != 1:
                raise _error(f"the third deal gives each player one card, not {len(cards)}",
                             "deal")
            return
        if phase is _PHASE_TURN_UP or phase is _PHASE_BETTING1:
            raise _error(f"no card is dealt during {_PHASE_WORDS[phase]}"
                         f" ({self.waiting_for()})", "order")
        if phase is _PHASE_BETTING2 or phase is _PHASE_SHOWDOWN:
            raise _error(f"every player still in already has three cards ({self.waiting_for()})",
                         "deal")
        raise _error(self._over_message(), "order")

    def can_deal(self, player: int, cards: Sequence[Card]) -> bool:
        """True when ``cards`` may be dealt to ``player`` now."""
        return permits(self.verify_deal, player, cards)

    def deal(self, player: int, cards: Sequence[Card]) -> None:
        """Deal ``cards`` face down to ``player`` (two at first, one as the third card)."""
        self.verify_deal(player, cards)
        self._dealt(player, cards)

    def _dealt(self, player: int, cards: Sequence[Card]) -> None:
        """Apply a deal that :meth:`verify_deal` allows."""
        self.holes[player].extend(cards)
        pending = self._pending
        pending.discard(player)
        if pending:
            return
        if self.phase is _PHASE_DEAL:
            self.phase = _PHASE_TURN_UP
            self._pending = set(range(self.n))
        else:
            self._start_round2()

    # ----------------------------------------------------------------- turning up

    def verify_turn_up(self, player: int, card: Card) -> None:
        """Raise :class:`RuleError` unless ``player`` may turn ``card`` face up now."""
        if self.phase is not _PHASE_TURN_UP:
            if self.phase is _PHASE_DEAL:
                raise _error("cards are turned up after every player has his two cards"
                             f" ({self.waiting_for()})", "order")
            raise _error(f"{_p(player)} can turn a card up only before betting round 1", "order")
        if player not in self._pending:
            raise _error(f"{_p(player)} has already turned up {self.up_cards[player]}", "up")
        hole = self.holes[player]
        # Cards are interned (parsers.cards), so identity is equality and much cheaper.
        if hole[0] is card or hole[1] is card:
            if card is UNKNOWN:
                raise _error(f"{_p(player)} turned up an unknown card (??)", "up")
            return
        # A card nobody recorded at the deal may be revealed by turning it up.
        if (hole[0] is UNKNOWN or hole[1] is UNKNOWN) and card is not UNKNOWN:
            for other in self.holes:
                if any(dealt is card for dealt in other):
                    raise _error(f"{card} is another player's card", "up")
            return
        raise _error(f"{_p(player)} turned up {card}, which is not one of his cards"
                     f" {format_cards(hole)}", "up")

    def can_turn_up(self, player: int, card: Card) -> bool:
        """True when ``player`` may turn ``card`` face up now."""
        return permits(self.verify_turn_up, player, card)

    def turn_up(self, player: int, card: Card) -> None:
        """``player`` turns ``card``, one of his two hole cards, face up."""
        self.verify_turn_up(player, card)
        hole = self.holes[player]
        if hole[0] is not card and hole[1] is not card:
            hole[0 if hole[0] is UNKNOWN else 1] = card
        self._turned_up(player, card)

    def _turned_up(self, player: int, card: Card) -> None:
        """Apply a turn-up that :meth:`verify_turn_up` allows, of a card already in his hole."""
        self.up_cards[player] = card
        pending = self._pending
        pending.discard(player)
        if not pending:
            self.phase = _PHASE_BETTING1
            if self._betting.is_over:  # everybody all in on the blinds
                self._end_betting()

    # ----------------------------------------------------------------- betting

    def _betting_for(self, player: int) -> BettingRound:
        phase = self.phase
        betting = self._betting if phase is _PHASE_BETTING1 or phase is _PHASE_BETTING2 else None
        if betting is None:
            if self.phase is _PHASE_OVER:
                raise _error(self._over_message(), "order")
            if self.phase is _PHASE_SHOWDOWN:
                raise _error("the betting is over: the showdown has begun", "order")
            raise _error(f"no betting during {_PHASE_WORDS[self.phase]} ({self.waiting_for()})",
                         "order")
        actor = betting.actor
        if actor is not None and actor != player and not self.in_hand[player]:
            raise _error(f"{_p(player)} has folded", "turn")
        return betting

    def verify_fold(self, player: int) -> None:
        """Raise :class:`RuleError` unless ``player`` may fold now."""
        try:
            self._betting_for(player).verify_fold(player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None

    def can_fold(self, player: int) -> bool:
        """True when ``player`` may fold now (always when it is his turn)."""
        return permits(self.verify_fold, player)

    def fold(self, player: int) -> None:
        """``player`` folds."""
        betting = self._betting_for(player)
        try:
            betting.fold(player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None
        self.in_hand[player] = False
        if betting.is_over:
            self._end_betting()

    def verify_check_or_call(self, player: int) -> None:
        """Raise :class:`RuleError` unless ``player`` may check or call now."""
        try:
            self._betting_for(player).verify_check_or_call(player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None

    def can_check_or_call(self, player: int) -> bool:
        """True when ``player`` may check or call now."""
        return permits(self.verify_check_or_call, player)

    def check_or_call(self, player: int) -> int:
        """``player`` checks or calls; returns the chips he put in."""
        betting = self._betting_for(player)
        try:
            amount = betting.check_or_call(player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None
        if betting.is_over:
            self._end_betting()
        return amount

    def verify_bet_or_raise_to(self, player: int, amount: int) -> None:
        """Raise :class:`RuleError` unless ``player`` may bet or raise to ``amount`` now."""
        try:
            self._betting_for(player).verify_bet_or_raise_to(amount, player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None

    def can_bet_or_raise_to(self, player: int, amount: int) -> bool:
        """True when ``player`` may bet or raise to ``amount`` (his total for the round) now."""
        return permits(self.verify_bet_or_raise_to, player, amount)

    def bet_or_raise_to(self, player: int, amount: int) -> int:
        """``player`` bets or raises to ``amount``; returns the chips he put in."""
        betting = self._betting_for(player)
        try:
            added = betting.bet_or_raise_to(amount, player)
        except BettingError as error:
            raise _error(error.message, error.rule) from None
        if betting.is_over:
            self._end_betting()
        return added

    def _end_betting(self) -> None:
        betting = self._betting
        contributions = self.contributions
        contributions[:] = [paid + chips for paid, chips in zip(contributions, betting.committed,
                                                                strict=True)]
        self.stacks = betting.stacks
        if betting.players_in <= 1:
            self.phase = _PHASE_OVER
            self._pending = set()
            return
        in_hand = self.in_hand
        self._pending = {p for p in range(self.n) if in_hand[p]}
        self.phase = _PHASE_DEAL_THIRD if self.phase is _PHASE_BETTING1 else _PHASE_SHOWDOWN

    def _start_round2(self) -> None:
        self.phase = _PHASE_BETTING2
        n = self.n
        self._betting = BettingRound(self.stacks, [0] * n, self.in_hand, _ROUND2_ORDERS[n],
                                     self.structure, self.bet_sizes[1],
                                     pot=sum(self.contributions))
        if self._betting.is_over:  # everybody (but perhaps one) is all in
            self._end_betting()

    # ----------------------------------------------------------------- showdown

    def verify_show_or_muck(self, player: int, cards: Sequence[Card]) -> None:
        """Raise :class:`RuleError` unless ``player`` may show ``cards`` (or muck: empty) now."""
        if self.phase is not _PHASE_SHOWDOWN:
            if self.phase is _PHASE_OVER:
                raise _error(self._over_message(), "order")
            raise _error(f"cards are shown at the showdown, after betting round 2"
                         f" ({self.waiting_for()})", "order")
        if not self.in_hand[player]:
            raise _error(f"{_p(player)} has folded and has nothing to show", "showdown")
        if player not in self._pending:
            raise _error(f"{_p(player)} has already shown or mucked", "showdown")
        if not cards:
            return
        hole = self.holes[player]
        # Identity comparisons: cards are interned, and dataclass hashing is slow.
        if any(card is UNKNOWN for card in hole):
            raise _error(f"{_p(player)}'s cards were dealt unseen ({format_cards(hole)}): a"
                         " showdown with unknown cards cannot be settled", "unknown")
        if len(cards) != len(hole) or sorted(map(id, cards)) != sorted(map(id, hole)):
            raise _error(f"{_p(player)} shows {format_cards(cards)} but was dealt"
                         f" {format_cards(hole)}", "showdown")

    def can_show_or_muck(self, player: int, cards: Sequence[Card]) -> bool:
        """True when ``player`` may show ``cards`` (or muck with no cards) now."""
        return permits(self.verify_show_or_muck, player, cards)

    def show_or_muck(self, player: int, cards: Sequence[Card]) -> None:
        """``player`` shows ``cards`` (all the cards he was dealt) or mucks (no cards)."""
        self.verify_show_or_muck(player, cards)
        if cards:
            self.shown[player] = tuple(cards)
        pending = self._pending
        pending.discard(player)
        if not pending:
            self.phase = _PHASE_OVER

    def _over_message(self) -> str:
        if sum(self.in_hand) == 1:
            winner = self.in_hand.index(True)
            return f"the hand is over: {_p(winner)} won when everyone else folded"
        return "the hand is over after the showdown"

    # ----------------------------------------------------------------- history

    def apply(self, action: Action) -> None:
        """Play one history action (raises :class:`RuleError` if it is not allowed now)."""
        verb = action.verb
        player = action.actor - 1
        if verb is _DEAL:
            assert action.target is not None  # the parser guarantees a target
            self.deal(action.target - 1, action.cards)
        elif verb is _CHECK_CALL:
            self.check_or_call(player)
        elif verb is _FOLD:
            self.fold(player)
        elif verb is _BET_RAISE:
            assert action.amount is not None  # the parser guarantees an amount
            self.bet_or_raise_to(player, action.amount)
        elif verb is _UP:
            if len(action.cards) != 1:
                raise _error(f"a player turns up exactly one card, not {len(action.cards)}",
                             "up")
            self.turn_up(player, action.cards[0])
        elif verb is _SHOW:
            self.show_or_muck(player, action.cards)
        elif verb is not _VERB_NOOP:
            raise _error(f"{verb.value!r} is not a 7 & 8 action", "verb")

    def outcome(self) -> Outcome:
        """Settle a finished hand: pots, awards, showdown hands, nets, finishing stacks."""
        if self.phase is not _PHASE_OVER:
            raise _error(f"the hand is not finished: {self.waiting_for()}", "incomplete")
        n = self.n
        strengths: list[int | None] = [None] * n
        showdown: list[ShowdownHand] = []
        in_hand = self.in_hand
        for player, cards in enumerate(self.shown):
            if cards is not None and in_hand[player]:
                scored = _showdown_hand(player, cards)
                strengths[player] = scored.rank
                showdown.append(scored)
        try:
            result = settle(self.contributions, list(in_hand), strengths, range(n))
        except NoContenderError as error:
            raise _error(str(error), "showdown") from None
        nets = result.nets
        if sum(nets) != 0:  # pragma: no cover - settle() conserves by construction
            raise _error(f"chips do not balance: {sum(nets)} unaccounted for", "conservation")
        finishing = tuple([s + d for s, d in zip(self.starting_stacks, nets, strict=True)])
        main_winner = None
        for award in result.awards:
            if award.pot == "main":
                main_winner = award.player
                break
        return Outcome(
            nets=nets,
            awards=result.awards,
            showdown=tuple(showdown),
            finishing_stacks=finishing,
            winner=main_winner,
            extra={"winnings": result.won, "refunds": result.refunds,
                   "contributions": tuple(self.contributions)},
        )


_MAX_SHOWN: Final = 200_000
_RANKS: Final = BoundedCache[tuple[int, ...], tuple[int, str, str]](
    "analytics.rules.seveneight.engine.ranks", _MAX_SHOWN)


def _rank(cards: tuple[Card, ...]) -> tuple[int, str, str]:
    """The evaluator's value and category label of shown cards, and their text, memoised.

    There are only 22,100 three-card hands (132,600 in shown order), and a
    replay scores the same ones over and over; a dictionary hit is much cheaper
    than a fresh evaluation.
    """
    key = tuple(map(id, cards))  # cards are interned: their ids identify them
    found = _RANKS.get(key)
    if found is None:
        rank = seveneight_rank(cards)
        found = _RANKS.put(key, (rank.value, rank.category.label, format_cards(cards)))
    return found


_SHOWN: Final = BoundedCache[tuple[int, ...], tuple[tuple[Card, ...], ShowdownHand]](
    "analytics.rules.seveneight.engine.shown", _MAX_SHOWN)


def _showdown_hand(player: int, cards: tuple[Card, ...]) -> ShowdownHand:
    """``player``'s shown ``cards`` as a :class:`ShowdownHand`, memoised like :func:`_rank`.

    The memo keeps the cards it was keyed on alive, so their ids cannot be reused
    by other cards while the entry stands.
    """
    key = (player, *map(id, cards))
    found = _SHOWN.get(key)
    if found is None:
        value, label, text = _rank(cards)
        found = _SHOWN.put(key, (cards, ShowdownHand(player + 1, text, label, value)))
    return found[1]


def replay(hand: HandHistory) -> Outcome:
    """Replay a 7 & 8 hand; return its :class:`Outcome` or raise :class:`RuleError`.

    Checks every action, that the hand is complete, that chips balance, and the
    stated ``finishing_stacks`` and ``winnings`` (chips won from pots, uncalled
    chips not included) against the derived ones.  The ingest's 7 & 8 hands of the
    writer's layout are replayed together instead, by the block kernel
    (:mod:`analytics.rules.seveneight.block`), which leaves every hand it does not
    plainly accept here.
    """
    state = SevenEightState.from_hand(hand)
    _play(state, hand)
    try:
        outcome = state.outcome()
    except RuleError as error:
        raise error.located(hand) from None
    _check_stated(hand, outcome)
    return outcome


def _play(state: SevenEightState, hand: HandHistory) -> None:
    """Play every action of ``hand`` on ``state``, as :meth:`SevenEightState.apply` does.

    The common legal steps go straight to the state's pieces: a deal, a turn-up
    or a betting step that is plainly allowed (right phase, the player to act,
    the right number of cards) is applied without the per-action layers of the
    public API.  Anything else, legal or not, goes through ``apply``, which
    checks it in full and raises the :class:`RuleError` a player reads.  A
    guard below only ever sends more actions to ``apply``, never fewer checks.
    """
    holes, in_hand = state.holes, state.in_hand
    apply = state.apply
    for index, action in enumerate(hand.actions):
        verb = action.verb
        phase = state.phase
        try:
            if verb is _DEAL:
                target = action.target
                cards = action.cards
                if target is not None and (target - 1) in state._pending and (
                        (phase is _PHASE_DEAL and len(cards) == 2)
                        or (phase is _PHASE_DEAL_THIRD and len(cards) == 1
                            and in_hand[target - 1])):
                    state._dealt(target - 1, cards)
                    continue
            elif verb is _UP:
                cards = action.cards
                player = action.actor - 1
                if phase is _PHASE_TURN_UP and len(cards) == 1 and player in state._pending:
                    card = cards[0]
                    hole = holes[player]
                    if card is not UNKNOWN and (hole[0] is card or hole[1] is card):
                        state._turned_up(player, card)
                        continue
            elif phase is _PHASE_BETTING1 or phase is _PHASE_BETTING2:
                betting = state._betting
                player = action.actor - 1
                if player == betting._actor:
                    if verb is _CHECK_CALL:
                        betting.check_or_call(player)
                    elif verb is _FOLD:
                        betting.fold(player)
                        in_hand[player] = False
                    elif verb is _BET_RAISE and action.amount is not None:
                        try:
                            betting.bet_or_raise_to(action.amount, player)
                        except BettingError as error:
                            raise _error(error.message, error.rule) from None
                    else:
                        apply(action)
                        continue
                    if betting._actor is None:
                        state._end_betting()
                    continue
            elif verb is _SHOW:
                state.show_or_muck(action.actor - 1, action.cards)
                continue
            apply(action)
        except RuleError as error:
            raise error.located(hand, index, action) from None


def _check_stated(hand: HandHistory, outcome: Outcome) -> None:
    derived_stacks = outcome.finishing_stacks or ()
    won = outcome.extra["winnings"]
    assert isinstance(won, tuple)
    for field, stated, derived in (("finishing_stacks", hand.finishing_stacks, derived_stacks),
                                   ("winnings", hand.winnings, won)):
        if stated is None or tuple(stated) == tuple(derived):
            continue
        for player, (said, got) in enumerate(zip(stated, derived, strict=True)):
            if said != got:
                error = RuleError(f"{field}: {_p(player)} is stated as {said}, the replay gives"
                                  f" {got}", hand=hand, rule=field)
                raise _at_field(error, hand, field)


def _at_field(error: RuleError, hand: HandHistory, field: str) -> RuleError:
    """Point ``error`` at the source line of header ``field`` when the raw text has it."""
    for offset, text in enumerate(hand.raw.splitlines()):
        if text.startswith(field) and text[len(field):].lstrip().startswith("="):
            error.line = hand.line + offset
            Exception.__init__(error, str(error))  # keep args in step with the new line
            break
    return error
