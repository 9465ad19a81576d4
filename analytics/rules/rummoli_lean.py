"""A straight-line replay of the usual legal Rummoli round (the full engine is the reference).

Most rounds are legal and take one shape: the deal, the widow (kept, exchanged
or auctioned), one betting round, perhaps a showdown where every player still
in shows his whole hand or mucks, the poker pot (side pots go to the shared
settlement), then the Rummoli phase with pots paid automatically, to the end of
the round or an impasse (an end-of-game round ends with its poker).
:func:`play_lean` deals the cards into the state the header made (a
:class:`LeanState`), plays the widow and any auction on it (a few actions), then
the betting, showdown, settlement and laying with local variables only (no
per-action method layers) and returns the round's
:class:`~analytics.rules.base.Outcome`.  At the first step it does not plainly
accept it gives up (None), and :func:`analytics.rules.rummoli.replay` starts
over with the full engine, which raises every :class:`RuleError`.  So the lean
replay only needs to be right about the rounds it accepts:
tests/test_rules_rummoli_lean.py checks that it gives the full engine's
outcome on them and gives up on everything illegal.  It reads the actions as columns:
:func:`play_lean_fields` takes them as the ingest worker reads them
(:class:`~parsers.model.ActionFields`, no Action objects made), :func:`play_lean` from a
hand's Actions; only the widow's few actions are applied by the state as Actions.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType
from typing import Final

import numpy as np

from analytics.evaluator import poker_category_of
from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand
from analytics.rules.lean_betting import CANNOT_ACT, lean_betting_columns
from analytics.rules.pots import NoContenderError, build_pots, settle
from analytics.rules.rummoli_cards import (
    AKD_MASK,
    AKD_POT,
    BLACK,
    CARD_POT,
    FULL_DECK,
    NINE_POTS,
    PAY_CARDS,
    POKER_POT,
    POT_INDEX,
    RANK_MASK,
    RED,
    RUMMOLI_POT,
    SEVEN_EIGHT_NINE,
    SEVEN_EIGHT_NINE_POT,
    codes_of,
)
from analytics.rules.rummoli_common import Phase
from analytics.rules.rummoli_poker import poker_value
from analytics.rules.rummoli_state import RummoliState
from parsers._fastinit import positional_constructor
from parsers.cards import DECK, Card
from parsers.model import RUMMOLI_POTS, Action, ActionFields, Verb

__all__ = ["LeanState", "play_lean", "play_lean_fields"]

_NEW_OUTCOME: Final[Callable[..., Outcome]] = positional_constructor(Outcome)
"""Outcome's fields in order (nets, awards, showdown, finishing_stacks, board_after,
finishing_order, winner, extra), set through its slots: see parsers._fastinit."""
_NEW_AWARD: Final[Callable[[str, int, int], PotAward]] = positional_constructor(PotAward)
_NEW_SHOWN: Final[Callable[[int, str, str, int], ShowdownHand]] = positional_constructor(
    ShowdownHand)
_NEW_ACTION: Final[Callable[..., Action]] = positional_constructor(Action)
"""Action's fields in order (actor, verb, cards, amount, target, pot, comment, line)."""

# Enum members as module constants (an enum attribute read costs a descriptor call).
_PHASE_BETTING: Final = Phase.BETTING
_PLAY: Final = Verb.PLAY
_DEAL_HOLE: Final = Verb.DEAL_HOLE
_DEAL_WIDOW: Final = Verb.DEAL_WIDOW
_SHOW: Final = Verb.SHOW_MUCK
_IMPASSE: Final = Verb.IMPASSE

_CARD_TEXT: Final = tuple(str(card) for card in DECK)
_POT_CARDS: Final = PAY_CARDS | SEVEN_EIGHT_NINE[0] | SEVEN_EIGHT_NINE[1] | (
    SEVEN_EIGHT_NINE[2] | SEVEN_EIGHT_NINE[3])
"""The cards whose laying may win a pot: the seven pay cards and the four suits' 7, 8, 9."""
_OTHER_COLOUR: Final = tuple(RED if suit in (0, 3) else BLACK for suit in range(4))
"""By the suit of the card just laid, the colour to switch to (clubs, spades: red)."""
# The laying loop's per-card tests as look-ups by card code: a card's bit is above 2**30
# for most codes, and every shift or mask of such an int makes a new int object.
_BITS: Final = tuple(1 << code for code in range(52))
_IS_POT_CARD: Final = tuple(bool(_POT_CARDS >> code & 1) for code in range(52))
_IS_PAY_CARD: Final = tuple(bool(PAY_CARDS >> code & 1) for code in range(52))
_SUIT_SEVEN_EIGHT_NINE: Final = tuple(SEVEN_EIGHT_NINE[code & 3] for code in range(52))
_PAST_THE_ACES: Final = (-1,) * 4
"""Holders of the four codes after the aces (nobody): the holder of the card after any
card is then one look-up, without a test for the end of the suit."""
_ONLY_EXPECTED: Final = -2
"""The laying loop's ``expected`` while the cards that may be laid are its ``allowed``
(the opening lay, a switch of colour): no card, known or not, has this code."""
_POKER_NAME: Final = RUMMOLI_POTS[POKER_POT]
_FINALE_NAME: Final = "finale"
"""The end-of-game round's poker pot (its side pots: ``finale_side1``...)."""


class LeanState(RummoliState):
    """The state of a round the lean replay plays: as :class:`RummoliState`, but its
    poker phase only begins (the lean replay bets with local variables, so the state's
    betting round is not built), and it keeps no card holders (``_holder`` stays as
    made): only the laying reads them, and the lean replay's laying finds them from the
    hands (:func:`_holders`; the numba kernel does the same)."""

    def _start_poker(self) -> None:
        self.phase = _PHASE_BETTING

    def _hold_widow(self, index: int, old: int, new: int) -> None:
        pass  # no holders kept (above)


def play_lean(state: LeanState, actions: Sequence[Action]) -> Outcome | None:
    """The outcome of a round (claim = auto) whose header made ``state``, or None for
    the full engine to replay it (anything unusual or illegal).

    The stated ``finishing_stacks`` and ``winnings`` are not checked here.
    """
    # The columns the lean replay reads: five comprehensions cost less than
    # ActionFields.of, which reads every field into a row and transposes the rows.
    return _play_columns(state, [action.actor for action in actions],
                         [action.verb for action in actions],
                         [action.cards for action in actions],
                         [action.amount for action in actions],
                         [action.target for action in actions], actions.__getitem__,
                         _python_laying)


def play_lean_fields(state: LeanState, fields: ActionFields) -> Outcome | None:
    """:func:`play_lean` of a round read without its Action objects, whose actions are
    ``fields`` (the ingest worker's form): the same outcome, or None.

    Its laying phase goes through the numba kernel (:func:`_kernel_laying`), which imports
    numba on a process's first round; :func:`play_lean` (the library's ``replay``) stays
    in Python."""
    def action_at(index: int) -> Action:  # the widow's few actions, for the state to apply
        return _NEW_ACTION(fields.actors[index], fields.verbs[index], fields.cards[index],
                           fields.amounts[index], fields.targets[index], fields.pots[index],
                           fields.comments[index], fields.lines[index])

    return _play_columns(state, fields.actors, fields.verbs, fields.cards, fields.amounts,
                         fields.targets, action_at, _kernel_laying)


_Laying = Callable[[Sequence[int], Sequence[Verb], Sequence[tuple[Card, ...]], int, int,
                    list[int], list[int], list[int], list[PotAward]],
                   tuple[int, int | None]]
"""The laying phase's signature (:func:`_lean_laying`'s without the holders, which are
found from the hands)."""


def _play_columns(state: LeanState, actors: Sequence[int], verbs: Sequence[Verb],
                  cards: Sequence[tuple[Card, ...]], amounts: Sequence[int | None],
                  targets: Sequence[int | None], action_at: Callable[[int], Action],
                  laying: _Laying) -> Outcome | None:
    """:func:`play_lean` on the actions as columns (each one's actor, verb, cards, amount and
    target); ``action_at(index)`` makes an action the state applies itself (the widow's);
    ``laying`` plays the Rummoli phase (:func:`_python_laying` or :func:`_kernel_laying`:
    the same answers)."""
    index = _play_widow(state, verbs, targets, cards, action_at)
    if index < 0:
        return None
    n = state.n
    stacks = state.stacks[:]
    if sum(stacks) + sum(state.board) >= CANNOT_ACT:
        return None
    committed = [0] * n
    in_hand = [True] * n
    order = state.order
    dead = state.dead_money
    index = lean_betting_columns(actors, verbs, amounts, index, stacks, committed, in_hand,
                                 order, state.betting, state.min_bet, dead)
    if index < 0:
        return None
    showdown: list[ShowdownHand] = []
    strengths: list[int | None] = [None] * n
    if in_hand.count(True) > 1:
        index = _lean_showdown(actors, verbs, cards, index, state.hands, committed, in_hand,
                               order, dead, strengths, showdown)
        if index < 0:
            return None
    awards = state.awards[:]  # the auction's, if any
    finale = state.finale_pot
    main = _POKER_NAME if finale is None else _FINALE_NAME
    winner = _lean_settle(committed, in_hand, strengths, order, dead, stacks, awards, main)
    if winner < 0:
        return None
    board = state.board[:]
    hands = state.hands
    if finale is None:
        board[POKER_POT] = 0
        hands = hands[:]
        index, emptied = laying(actors, verbs, cards, index, winner, hands, stacks, board,
                                awards)
    else:  # the end-of-game poker: its winner wins the round; there is no Rummoli phase
        if finale == "all":
            board = [0] * NINE_POTS
        else:
            board[POT_INDEX[finale]] = 0
        emptied = winner + 1
    if index != len(verbs):  # anything after the end (even a no-op): the full engine
        return None
    starting = state.starting_stacks
    return _NEW_OUTCOME(
        tuple([s - b for s, b in zip(stacks, starting, strict=True)]), tuple(awards),
        tuple(showdown), tuple(stacks), tuple(board), (), emptied,
        {"poker_winner": winner + 1, "impasse": emptied is None,
         "exchanged": state.exchanged, "auction_price": state.auction_price,
         "antes": tuple(state.antes), "cards_left": tuple([hand.bit_count() for hand in hands])})


def _play_widow(state: LeanState, verbs: Sequence[Verb], targets: Sequence[int | None],
                cards: Sequence[tuple[Card, ...]], action_at: Callable[[int], Action]) -> int:
    """The deal, the widow and any auction, on the state itself (``action_at(index)``: the
    action the state applies); the index of the first betting action, or -1 when the
    betting does not follow (or a step is illegal)."""
    start = _lean_deal(state, verbs, targets, cards)
    if start < 0:
        return -1
    apply = state.apply
    for index in range(start, len(verbs)):
        if state.phase is _PHASE_BETTING:  # the poker phase begins: the lean betting's
            return index
        try:
            apply(action_at(index))
        except RuleError:
            return -1
    return -1


def _lean_deal(state: LeanState, verbs: Sequence[Verb], targets: Sequence[int | None],
               cards: Sequence[tuple[Card, ...]]) -> int:
    """Deal the cards of the first actions, all deals until the deck is out, into the
    state's hands and widow, as RummoliState.deal does (not its holders: see
    :class:`LeanState`); the index of the next action, or -1 at anything else (a repeated
    or unknown card, a deal of no card, another action before the deck is out, hand sizes
    too far apart).  On -1 the state is left half dealt: it is not used again."""
    n = state.n
    hands = state.hands
    widow = dealt = 0
    hole, to_widow, bits = _DEAL_HOLE, _DEAL_WIDOW, _BITS
    for index, verb in enumerate(verbs):
        if verb is hole:
            target = targets[index]
            if target is None or not 1 <= target <= n:
                return -1
            seat = target - 1
        elif verb is to_widow:
            seat = -1
        else:
            return -1
        mask = 0
        for card in cards[index]:
            code = card.code
            if code < 0:
                return -1
            bit = bits[code]  # a look-up: a shift makes a new int for most codes
            if mask & bit:
                return -1
            mask |= bit
        if not mask or dealt & mask:
            return -1
        dealt |= mask
        if seat >= 0:
            hands[seat] |= mask
        else:
            widow |= mask
        if dealt == FULL_DECK:
            state.widow, state._dealt = widow, dealt
            try:
                state._finish_deal()  # the hand sizes
            except RuleError:
                return -1
            return index + 1
    return -1


def _lean_showdown(actors: Sequence[int], verbs: Sequence[Verb],
                   cards: Sequence[tuple[Card, ...]], index: int, hands: list[int],
                   committed: list[int], in_hand: list[bool], order: tuple[int, ...], dead: int,
                   strengths: list[int | None], showdown: list[ShowdownHand]) -> int:
    """Every player still in shows his whole hand or mucks (any order), as
    :meth:`PokerPhase.show` takes it (no best five: the full engine checks those); fills
    ``strengths`` and ``showdown`` and returns the next action's index, or -1 at anything
    else."""
    pending = [player for player in order if in_hand[player]]
    end = index + len(pending)
    if end > len(verbs):
        return -1
    n = len(hands)
    for at in range(index, end):
        player = actors[at] - 1
        if verbs[at] is not _SHOW or not 0 <= player < n or player not in pending:
            return -1
        codes = [card.code for card in cards[at]]
        if not codes:
            if _may_not_muck(player, committed, in_hand, dead, pending, strengths):
                return -1
            pending.remove(player)
            continue
        pending.remove(player)
        hand = hands[player]
        mask = 0
        for code in codes:
            if code < 0 or not hand >> code & 1:
                return -1
            mask |= 1 << code
        if mask != hand:
            return -1  # the best five: the full engine checks it
        value = poker_value(hand)
        strengths[player] = value
        showdown.append(_NEW_SHOWN(player + 1, "".join([_CARD_TEXT[c] for c in codes]),
                                   poker_category_of(value).label, value))
    return end


def _may_not_muck(player: int, committed: list[int], in_hand: list[bool], dead: int,
                  pending: list[int], strengths: list[int | None]) -> bool:
    """True when ``player`` may not muck (PokerPhase._muck_problem): in some pot with
    chips he can win, every other player has mucked, so he must show to take it."""
    for pot in build_pots(committed, in_hand, dead).pots:
        eligible = pot.eligible
        if pot.amount == 0 or len(eligible) < 2 or player not in eligible:
            continue
        if all(other == player or (other not in pending and strengths[other] is None)
               for other in eligible):
            return True
    return False


def _lean_settle(contributions: list[int], in_hand: list[bool], strengths: list[int | None],
                 order: tuple[int, ...], dead: int, stacks: list[int],
                 awards: list[PotAward], main: str) -> int:
    """Settle the poker pot when it is the only one (as :func:`analytics.rules.pots.settle`
    does: uncalled chips back, the dead money in, odd chips in ``order``); pay ``stacks``,
    add the ``awards`` and return the player who opens the Rummoli phase, or -1 (side pots,
    or nobody to take the pot: the full engine decides)."""
    eligible = [player for player in order if in_hand[player]]
    if len(eligible) == 1:
        winners = eligible
    else:
        contenders = [player for player in eligible if strengths[player] is not None]
        if not contenders:
            return -1
        best = max([strengths[player] or 0 for player in contenders])
        winners = [player for player in contenders if strengths[player] == best]
    paid = contributions[:]
    # Uncalled chips: the largest contribution beyond the second largest goes back.
    ordered = sorted(contributions)
    first, second = ordered[-1], ordered[-2]
    refund = first - second
    top = paid.index(first)
    paid[top] = second
    level = paid[eligible[0]]
    for player in eligible:
        if paid[player] != level:  # side pots (a player all in from the antes, say)
            return _settle_pots(contributions, in_hand, strengths, order, dead, stacks,
                                awards, main, winners[0])
    stacks[top] += refund
    amount = sum(paid) + dead
    if amount:
        share, odd = divmod(amount, len(winners))
        for position, player in enumerate(winners):  # winners in order from the dealer's left
            chips = share + 1 if position < odd else share
            if chips:
                awards.append(_NEW_AWARD(main, player + 1, chips))
                stacks[player] += chips
    return winners[0]


def _settle_pots(contributions: list[int], in_hand: list[bool], strengths: list[int | None],
                 order: tuple[int, ...], dead: int, stacks: list[int], awards: list[PotAward],
                 main: str, opener: int) -> int:
    """:func:`_lean_settle` with side pots: the shared settlement, as the full engine
    calls it; ``opener``, or -1 when a pot has no contender."""
    try:
        result = settle(contributions, in_hand, strengths, order, dead=dead, main=main,
                        side=f"{main}_side")
    except NoContenderError:
        return -1
    for player, (won, refund) in enumerate(zip(result.won, result.refunds, strict=True)):
        stacks[player] += won + refund
    awards.extend(result.awards)
    return opener


def _python_laying(actors: Sequence[int], verbs: Sequence[Verb],
                   cards: Sequence[tuple[Card, ...]], index: int, opener: int,
                   hands: list[int], stacks: list[int], board: list[int],
                   awards: list[PotAward]) -> tuple[int, int | None]:
    """:func:`_lean_laying` with the holders found from ``hands`` (:func:`_holders`)."""
    return _lean_laying(actors, verbs, cards, index, opener, hands, _holders(hands), stacks,
                        board, awards)


def _holders(hands: list[int]) -> list[int]:
    """Each code's holder (the player whose hand holds it, else -1), then -1 for the four
    codes after the aces: :func:`_lean_laying`'s ``holder``.  The state's holders, which
    RummoliState keeps card by card through the deal and the widow (a code is a player's
    exactly when his hand holds it), found at once from the hands the laying starts with."""
    holder = [-1] * (52 + len(_PAST_THE_ACES))
    for seat, hand in enumerate(hands):
        for code in codes_of(hand):
            holder[code] = seat
    return holder


@cache
def _kernel() -> ModuleType:
    """The laying kernel's module, imported on first use: it imports numba (about half a
    second), which the library's :func:`play_lean` should not cost."""
    from analytics.rules import rummoli_kernel

    return rummoli_kernel


def _kernel_tables() -> list[int]:
    """The ``tables`` argument of :func:`analytics.rules.rummoli_kernel.lay_round` (its
    layout: CARD_POT, FLAGS, SUIT_SEQ, RANK_MASKS, OTHER_COLOUR, then four constants)."""
    return [*[CARD_POT.get(code, -1) for code in range(52)],
            *[int(_IS_POT_CARD[code]) | int(_IS_PAY_CARD[code]) << 1 for code in range(52)],
            *SEVEN_EIGHT_NINE, *RANK_MASK, *_OTHER_COLOUR,
            AKD_MASK, AKD_POT, SEVEN_EIGHT_NINE_POT, RUMMOLI_POT]


_KERNEL_TABLES: Final = np.array(_kernel_tables(), dtype=np.int64)
_KERNEL_POT_NAMES: Final = (*RUMMOLI_POTS, "impasse", "payments")
"""An award's pot name by the kernel's pot number (-1 payments, -2 impasse)."""


def _kernel_laying(actors: Sequence[int], verbs: Sequence[Verb],
                   cards: Sequence[tuple[Card, ...]], index: int, opener: int,
                   hands: list[int], stacks: list[int], board: list[int],
                   awards: list[PotAward]) -> tuple[int, int | None]:
    """:func:`_python_laying` by the numba kernel (the same answers, the same updates of
    ``hands``, ``stacks``, ``board`` and ``awards``), for the usual shape of the phase: plays
    of one card each to the end, or to the dealer's impasse as the last action.  Anything
    else, and every round the kernel gives up on, goes to :func:`_python_laying` (which
    also gives every round it declines back to the full engine).

    The kernel finds each card's holder from the hands, as :func:`_holders` does."""
    laying = verbs[index:]
    plays = laying.count(_PLAY)
    if plays == len(laying):
        impasse_next = 0
    elif plays == len(laying) - 1 and laying[-1] is _IMPASSE:  # the plays, then "d im"
        impasse_next = 1
    else:
        return _python_laying(actors, verbs, cards, index, opener, hands, stacks, board,
                              awards)
    end = index + plays
    n = len(hands)
    layout = _LAYOUTS.get((n, plays)) or _layout(n, plays)
    try:
        # A play of other than one card is a ValueError at the unpacking; an unknown card
        # (code -1), an actor past 255 or an int past int64 is struct.error.
        packed = layout.pack(n, opener, plays, impasse_next, *hands, *stacks, *board,
                             *[card.code for (card,) in cards[index:end]], *actors[index:end])
    except (ValueError, struct.error):
        return _python_laying(actors, verbs, cards, index, opener, hands, stacks, board,
                              awards)
    out = np.empty(2 + 2 * n + NINE_POTS + 3 * _AWARD_ROWS, dtype=np.int64)
    taken = _kernel().lay_round(packed, _KERNEL_TABLES, out)
    if taken < 0:
        return _python_laying(actors, verbs, cards, index, opener, hands, stacks, board,
                              awards)
    pots = 2 + 2 * n + NINE_POTS
    count = int(out[0])
    values = out[:pots + 3 * count].tolist()  # the items written (the rest is not)
    hands[:] = values[2:2 + n]
    stacks[:] = values[2 + n:2 + 2 * n]
    board[:] = values[2 + 2 * n:pots]
    if count:
        names = _KERNEL_POT_NAMES
        items = values[pots:]
        awards.extend([_NEW_AWARD(names[pot], player, amount) for pot, player, amount
                       in zip(items[::3], items[1::3], items[2::3], strict=True)])
    return index + taken, values[1] or None


_LAYOUTS: Final[dict[tuple[int, int], struct.Struct]] = {}
"""The kernel's ``packed`` layout by players and plays (:func:`_layout`)."""


def _layout(n: int, plays: int) -> struct.Struct:
    """The layout of :func:`analytics.rules.rummoli_kernel.lay_round`'s ``packed`` for ``n``
    players and ``plays`` plays: the int64 items (n, opener, plays, impasse next, the hands,
    stacks and pots), then a byte per play's code and per its actor."""
    layout = _LAYOUTS[n, plays] = struct.Struct(f"<{4 + 2 * n + NINE_POTS}q{2 * plays}B")
    return layout


_AWARD_ROWS: Final = 32
"""Rows of the kernel's award buffer: more than a round can have (the seven card pots,
AKD, 789 and rummoli, and a payment or impasse row per player of at most 8, and one);
the kernel gives up rather than go past it."""


def warm_up() -> None:
    """Load the laying kernel into this process (its machine code from numba's on-disk
    cache): two players, p1 lays his one card, the last, and the round ends.  The ingest
    calls it (through :func:`analytics.equity.rummoli.warm_up`) before forking its
    workers, which then start with it loaded."""
    hands, stacks, board = [1, 2], [5, 5], [0] * NINE_POTS
    _kernel_laying([1], [_PLAY], [(DECK[0],)], 0, 0, hands, stacks, board, [])


def _lean_laying(actors: Sequence[int], verbs: Sequence[Verb],
                 cards: Sequence[tuple[Card, ...]], index: int, opener: int, hands: list[int],
                 holder: list[int], stacks: list[int], board: list[int],
                 awards: list[PotAward]) -> tuple[int, int | None]:
    """The Rummoli phase from action ``index``, the poker winner ``opener`` first, as
    LayingPhase.lay plays it with claim = auto, to the end of the round or the impasse
    declared: the index after it and the winner (1-based; None at an impasse), or
    (-1, None) at anything else.  ``hands``, ``holder`` (each code's holder, then -1 for
    the four codes after the aces: :data:`_PAST_THE_ACES`), ``stacks``, ``board`` and
    ``awards`` are updated in place."""
    n = len(hands)
    # The cards each player laid, of those that may win a pot (the rest never counts).
    laid = [0] * n
    turn = opener
    hand = hands[turn]
    low = (hand & -hand).bit_length() - 1
    # The cards that may be laid next: the one card ``expected`` (the next of the suit,
    # nearly every time), else those of ``allowed``.
    allowed = hand & RANK_MASK[low >> 2]
    expected = _ONLY_EXPECTED
    play, bits, is_pot_card = _PLAY, _BITS, _IS_POT_CARD
    # One pass over the rest of the columns (zip of slices: no indexing per card).
    for verb, actor, laid_cards in zip(verbs[index:], actors[index:], cards[index:],
                                       strict=True):
        if verb is not play or actor - 1 != turn or len(laid_cards) != 1:
            return -1, None
        index += 1
        code = laid_cards[0].code
        if code != expected and (code < 0 or expected >= 0 or not allowed >> code & 1):
            return -1, None
        bit = bits[code]
        hand = hands[turn] ^ bit
        hands[turn] = hand
        holder[code] = -1
        if is_pot_card[code]:
            done = laid[turn] | bit
            laid[turn] = done
            # A pay card may win its pot (or AKD's); a 7, 8 or 9 only with its suit's
            # other two laid by the same player.
            seq = _SUIT_SEVEN_EIGHT_NINE[code]
            if _IS_PAY_CARD[code] or done & seq == seq:
                _pots_won_by(turn, code, bit, done, stacks, board, awards)
        if not hand:
            _end_round(turn, hands, stacks, board, awards)
            return index, turn + 1
        following = code + 4
        next_holder = holder[following]  # -1 after an ace
        if next_holder >= 0:  # he holds the next card of the suit
            turn = next_holder
            expected = following
            continue
        # Nobody holds the next card: he, or the first player clockwise who can, lays
        # his lowest card of the other colour.
        colour = _OTHER_COLOUR[code & 3]
        for step in range(n):
            other = (turn + step) % n
            cards_of_colour = hands[other] & colour
            if cards_of_colour:
                turn = other
                low = (cards_of_colour & -cards_of_colour).bit_length() - 1
                allowed = cards_of_colour & RANK_MASK[low >> 2]
                expected = _ONLY_EXPECTED
                break
        else:
            return _impasse(verbs, index, hands, stacks, board, awards), None
    return -1, None


def _pots_won_by(player: int, code: int, bit: int, laid: int, stacks: list[int],
                 board: list[int], awards: list[PotAward]) -> None:
    """Pay the pots ``player`` wins by laying ``code`` (``bit``; ``laid``: the pot cards
    he has laid): a pay card's pot, AKD, his suit's 7-8-9."""
    if bit & PAY_CARDS:
        pot = CARD_POT.get(code)
        if pot is not None:
            _award(player, pot, stacks, board, awards)
        elif laid & AKD_MASK == AKD_MASK:
            _award(player, AKD_POT, stacks, board, awards)
    seq = SEVEN_EIGHT_NINE[code & 3]
    if bit & seq and laid & seq == seq:
        _award(player, SEVEN_EIGHT_NINE_POT, stacks, board, awards)


def _award(player: int, pot: int, stacks: list[int], board: list[int],
           awards: list[PotAward]) -> None:
    amount = board[pot]
    if amount:
        board[pot] = 0
        stacks[player] += amount
        awards.append(_NEW_AWARD(RUMMOLI_POTS[pot], player + 1, amount))


def _end_round(player: int, hands: list[int], stacks: list[int], board: list[int],
               awards: list[PotAward]) -> None:
    """He laid his last card: the rummoli pot, and a chip per card from the others."""
    _award(player, RUMMOLI_POT, stacks, board, awards)
    total = 0
    for other, hand in enumerate(hands):
        if other == player or not hand:
            continue
        pay = min(hand.bit_count(), stacks[other])  # he pays what he has
        if pay:
            stacks[other] -= pay
            total += pay
            awards.append(_NEW_AWARD("payments", other + 1, -pay))
    if total:
        stacks[player] += total
        awards.append(_NEW_AWARD("payments", player + 1, total))


def _impasse(verbs: Sequence[Verb], index: int, hands: list[int], stacks: list[int],
             board: list[int], awards: list[PotAward]) -> int:
    """Nobody can lay: the next action must be the dealer's ``d im``; each player pays a
    chip per card into the rummoli pot.  The index after it, or -1."""
    if index >= len(verbs) or verbs[index] is not _IMPASSE:
        return -1
    for player, hand in enumerate(hands):
        pay = min(hand.bit_count(), stacks[player])
        if pay:
            stacks[player] -= pay
            board[RUMMOLI_POT] += pay
            awards.append(_NEW_AWARD("impasse", player + 1, -pay))
    return index + 1
