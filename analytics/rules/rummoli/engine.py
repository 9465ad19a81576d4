"""Rummoli rules engine (RULES.md section 1): replay a round, check rounds against each other.

:func:`replay` rebuilds a round with :class:`~analytics.rules.rummoli.state.RummoliState`
from the history's header, applies every action (the first illegal one raises
:class:`~analytics.rules.base.RuleError` naming the hand, the action index, the
source line and the rule), derives the :class:`~analytics.rules.base.Outcome`,
checks that chips balance and that any stated ``finishing_stacks`` and
``winnings`` agree with the replay.  :func:`check_board_continuity` checks that a
round starts with the board the previous round of its game left.

Outcome of a Rummoli round:

* ``nets``: each player's final stack minus his starting stack;
* ``awards``: chips won from pots (``poker``, ``poker_side1``..., ``TS`` ...
  ``rummoli``; ``finale``/``finale_side1`` in an end-of-game round) and the
  side transfers (``auction``: +price to the dealer, -price to the bidder;
  ``payments``: -cards to each payer, +total to the winner; ``impasse``:
  -cards paid into the ``rummoli`` pot);
* ``showdown``: hands shown, with the evaluator's category and dense value;
* ``board_after``: the nine pots after the round;
* ``winner``: who emptied his hand (None at an impasse; the poker winner in an
  end-of-game round).

Conservation: ``sum(nets) + sum(board_after) - sum(board_before) == 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from analytics.rules.base import Outcome, RuleError
from analytics.rules.rummoli.cards import NINE_POTS
from analytics.rules.rummoli.state import Phase, RummoliState
from parsers.model import RUMMOLI_POT_WORDS, RUMMOLI_POTS, HandHistory, Verb
from parsers.rule_options import Betting, Game, RummoliRules

__all__ = [
    "Phase",
    "RummoliState",
    "board_difference",
    "check_board_continuity",
    "replay",
    "state_from_hand",
    "stated_winnings",
]

_BETTING_OF_VARIANT = {"NRM": Betting.NO_LIMIT, "PRM": Betting.POT_LIMIT,
                       "FRM": Betting.FIXED_LIMIT}
_PLAY: Final = Verb.PLAY
_PAYMENT_POTS = frozenset({"auction", "payments", "impasse"})


def state_from_hand(hand: HandHistory) -> RummoliState:
    """A fresh :class:`RummoliState` for the round described by ``hand``'s header.

    Raises :class:`RuleError` (naming the hand) when the header is not a
    playable Rummoli round.
    """
    if hand.game is not Game.RUMMOLI:
        raise RuleError(f"not a Rummoli hand (variant {hand.variant!r})", hand=hand)
    betting = _BETTING_OF_VARIANT.get(hand.variant)
    if betting is None:
        raise RuleError(f"unknown Rummoli variant {hand.variant!r}", hand=hand)
    if hand.starting_stacks is None:
        raise RuleError("a Rummoli round needs starting_stacks", hand=hand)
    if hand.dealer is None:
        raise RuleError("a Rummoli round needs dealer", hand=hand)
    rules = hand.rules if isinstance(hand.rules, RummoliRules) else RummoliRules()
    if betting is Betting.FIXED_LIMIT:
        if hand.small_bet is None:
            raise RuleError("a fixed-limit Rummoli round (FRM) needs small_bet", hand=hand)
        min_bet = hand.small_bet
    else:
        min_bet = hand.min_bet if hand.min_bet is not None else 1
    try:
        return RummoliState(hand.starting_stacks, hand.dealer, rules=rules, betting=betting,
                            min_bet=min_bet, board_before=hand.board_before,
                            finale_pot=hand.finale_pot)
    except RuleError as error:
        raise error.located(hand) from None


def stated_winnings(outcome: Outcome, players: int) -> tuple[int, ...]:
    """What each player won from pots, as a history's ``winnings`` states it.

    Chips taken from the board's pots and from the poker pot (including the
    dead money); not the auction price, end-of-round payments or returned
    uncalled bets, which are transfers rather than pots.
    """
    won = [0] * players
    for award in outcome.awards:
        if award.pot not in _PAYMENT_POTS:
            won[award.player - 1] += award.amount
    return tuple(won)


def replay(hand: HandHistory) -> Outcome:
    """Replay one Rummoli round and return its outcome; raise :class:`RuleError` if illegal."""
    if hand.errors:
        raise RuleError(f"the hand has parse errors: {hand.errors[0]}", hand=hand)
    state = state_from_hand(hand)
    apply, lay = state.apply, state.lay
    for index, action in enumerate(hand.actions):
        try:
            # Most actions lay a card: take them straight to lay() (no dispatch).
            if action.verb is _PLAY and len(action.cards) == 1:
                lay(action.actor, action.cards[0].code)
            else:
                apply(action)
        except RuleError as error:
            raise error.located(hand, index, action) from None
    try:
        outcome = state.outcome()
    except RuleError as error:
        raise error.located(hand) from None
    _check_totals(hand, outcome)
    return outcome


def _check_totals(hand: HandHistory, outcome: Outcome) -> None:
    before = hand.board_before if hand.board_before is not None else (0,) * NINE_POTS
    board_after = outcome.board_after or (0,) * NINE_POTS
    missing = sum(outcome.nets) + sum(board_after) - sum(before)
    if missing:
        raise RuleError(f"chips do not balance: {-missing} missing" if missing < 0
                        else f"chips do not balance: {missing} too many",
                        hand=hand, rule="conservation")
    derived = outcome.finishing_stacks or ()
    if hand.finishing_stacks is not None and tuple(hand.finishing_stacks) != derived:
        raise RuleError(_difference("finishing_stacks", hand.finishing_stacks, derived),
                        hand=hand, rule="finishing_stacks")
    if hand.winnings is not None:
        won = stated_winnings(outcome, hand.num_players)
        if tuple(hand.winnings) != won:
            raise RuleError(_difference("winnings", hand.winnings, won), hand=hand,
                            rule="winnings")


def _difference(field: str, stated: tuple[int, ...], derived: tuple[int, ...]) -> str:
    first = next(i for i in range(len(derived)) if stated[i] != derived[i])
    return (f"{field} stated {list(stated)} but the replay gives {list(derived)}"
            f" (p{first + 1}: {stated[first]} stated, {derived[first]} derived)")


def board_difference(left: Sequence[int] | None, begins: Sequence[int] | None, *,
                     left_words: str = "it left", begins_words: str = "this round begins with"
                     ) -> str | None:
    """Where a round's board (``begins``, its ``board_before``) is not the board the round
    before it ``left`` (its ``board_after``), pot by pot in words (``10♠: it left 3, this
    round begins with 5``); None when they agree (RULES.md 1.6: pots not won stay on the
    board and carry to the next round).  None stands for an empty board."""
    after = tuple(left) if left is not None else (0,) * NINE_POTS
    before = tuple(begins) if begins is not None else (0,) * NINE_POTS
    if after == before:
        return None
    return "; ".join(f"{RUMMOLI_POT_WORDS[pot]}: {left_words} {a}, {begins_words} {b}"
                     for pot, a, b in zip(RUMMOLI_POTS, after, before, strict=True) if a != b)


def check_board_continuity(previous: Outcome | HandHistory, following: HandHistory) -> None:
    """Raise :class:`RuleError` unless ``following`` starts with the board ``previous`` left
    (:func:`board_difference`).

    ``previous`` is the earlier round's outcome, or its history (then it is
    replayed; its ``game_id`` must match and ``following.round`` must be the
    next number).  An absent ``board_before`` means an empty board.
    """
    if isinstance(previous, HandHistory):
        if previous.game_id != following.game_id:
            raise RuleError(f"round of game {following.game_id!r} does not follow a round of"
                            f" game {previous.game_id!r}", hand=following, rule="board continuity")
        if (previous.round is not None and following.round is not None
                and following.round != previous.round + 1):
            raise RuleError(f"round {following.round} does not follow round {previous.round}",
                            hand=following, rule="board continuity")
        previous = replay(previous)
    differs = board_difference(previous.board_after, following.board_before)
    if differs is not None:
        raise RuleError(f"board_before is not the board the previous round left: {differs}",
                        hand=following, rule="board continuity")


