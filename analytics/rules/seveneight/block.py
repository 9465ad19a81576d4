"""The 7 & 8 replay of a whole :class:`~parsers.block.SevenEightBlock` at once.

:func:`replay_block` plays every hand of a block and gives their outcomes as
columns (:class:`BlockOutcome`).  Like any fast path it only ever needs to be right about
the hands it accepts: a hand it does not plainly accept (``accepted`` is False) is left to
the per-hand replay (:func:`analytics.rules.seveneight.engine.replay`, the specification), which
gives the outcome or the :class:`~analytics.rules.RuleError` a player reads.
tests/test_rules_seveneight_block.py checks that every accepted hand's outcome
(:func:`outcome_of`) is the per-hand replay's.

Layout: as the block's.  Per-seat arrays follow the block's seats; the awards and
showdown rows of hand ``i`` are rows ``award_offsets[i]:award_offsets[i + 1]`` and
``showdown_offsets[i]:showdown_offsets[i + 1]``.  Players are numbered as in
:class:`~analytics.rules.base.Outcome` (``winners``, ``award_players``,
``showdown_players``: 1 for ``p1``).  A hand that is not accepted has no award and no
showdown row; its per-seat values are unspecified.

The replay is one numba kernel (:mod:`analytics.rules.seveneight.kernels`, loaded on the
first call, or by :func:`warm_up`) that plays the usual shapes hand after hand, but for the
few it cannot do in int64 (2**60 chips or more on the table, bet sizes of 2**62 or more),
side pots included: it settles them as
:meth:`~analytics.rules.seveneight.engine.SevenEightState.outcome` does
(:func:`analytics.rules.pots.settle`: main and side pots, each to its best eligible hand,
odd chips from the button's left); an award's pot is :attr:`BlockOutcome.award_pots`.
Shown hands are scored by a table of the evaluator's values of every triple of cards; a
showdown row's cards text is the show action's (the cards in the order shown, as the
per-hand replay writes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any, Final, TypeVar, cast

import numpy as np
import numpy.typing as npt

from analytics.evaluator.seveneight import (
    SevenEightCategory,
    seveneight_category_of,
    seveneight_rank_batch,
)
from analytics.rules.base import Outcome, PotAward, ShowdownHand
from analytics.rules.betting import FIXED_LIMIT_MAX_BETS
from analytics.rules.seveneight.engine import STRUCTURES
from parsers.block import BLOCK_VERBS, MAX_ACTION_CARDS, SevenEightBlock
from parsers.model import Verb
from parsers.rule_options import Betting

__all__ = ["BlockOutcome", "outcome_of", "pot_name", "replay_block", "warm_up"]

Ints = npt.NDArray[np.int64]

CANNOT_ACT: Final = 1 << 62
"""Above every bet: the kernel's mark of a player who has folded or is all in (it takes only
hands whose chips add up to less, see :mod:`analytics.rules.seveneight.kernels`)."""


def _no_offsets() -> Ints:
    return np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True, eq=False)
class BlockOutcome:
    """The outcomes of a block's hands (see the module)."""

    accepted: npt.NDArray[np.bool_]
    """(n) whether the hand was replayed here; False: the per-hand replay must do it."""
    winners: Ints
    """(n) ``Outcome.winner`` (the first award's player), -1 for None."""
    # ---- per seat (s)
    nets: Ints
    won: Ints
    """``Outcome.extra["winnings"]``: chips won from pots."""
    refunds: Ints
    contributions: Ints
    finishing_stacks: Ints
    # ---- awards, in Outcome.awards' order (pot after pot, main first)
    award_offsets: Ints
    award_players: Ints
    award_amounts: Ints
    # ---- showdown rows, in Outcome.showdown's order
    showdown_offsets: Ints
    showdown_players: Ints
    showdown_cards: list[str]
    showdown_categories: list[str]
    showdown_ranks: Ints
    seat_offsets: Ints = field(default_factory=_no_offsets)
    """(n + 1) the block's ``seat_offsets`` (what :func:`outcome_of` reads the per-seat
    arrays by); :func:`replay_block` sets it, an outcome built without it has none."""
    award_pots: Ints = field(default_factory=_no_offsets)
    """(awards) each award's pot as a number: 0 for ``main``, k for ``side<k>``
    (:func:`pot_name`); empty (an outcome built without it): every award is of ``main``."""


def pot_name(number: int) -> str:
    """The name :func:`analytics.rules.pots.build_pots` gives pot ``number`` of a hand (0:
    ``main``, then ``side1``, ``side2``...), as :attr:`BlockOutcome.award_pots` numbers them."""
    return f"side{number}" if number else "main"


KERNEL_STRUCTURES: Final = (Betting.NO_LIMIT, Betting.POT_LIMIT, Betting.FIXED_LIMIT)
"""The kernel's code of a betting structure is its index here (``seveneight_kernels``'s
NO_LIMIT, POT_LIMIT, FIXED_LIMIT)."""
_FIXED_LIMIT_CODE: Final = KERNEL_STRUCTURES.index(Betting.FIXED_LIMIT)
_STRUCTURE_CODES: Final = {variant: KERNEL_STRUCTURES.index(structure)
                           for variant, structure in STRUCTURES.items()}
"""Each 7 & 8 variant code's betting structure, as the kernel numbers them (-1: none)."""
_VERB_CODES: Final = np.array([BLOCK_VERBS.index(verb) for verb in (
    Verb.DEAL_HOLE, Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD, Verb.SHOW_MUCK, Verb.TURN_UP)],
    dtype=np.int64)
"""The block's codes of the verbs the replay reads, in the kernel's order (_DEAL...)."""
_LABELS: Final = tuple(category.label for category in SevenEightCategory)
"""Category labels by category code (``ShowdownHand.category``)."""


@cache
def _kernels() -> ModuleType:
    """The kernel module, imported on first use: it imports numba (about half a second),
    which importing this module for :class:`BlockOutcome` alone should not cost."""
    from analytics.rules.seveneight import kernels as seveneight_kernels

    return seveneight_kernels


@cache
def rank_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]]:
    """The evaluator's value and category code of every ordered triple of card codes, as
    (52, 52, 52) arrays (triples with a repeated card hold values nobody reads): one batch
    evaluation, once per process, instead of a call per shown hand."""
    codes = np.indices((52, 52, 52), dtype=np.int64).reshape(3, -1).T
    values = seveneight_rank_batch(codes)
    categories = seveneight_category_of(values)
    return (np.ascontiguousarray(values.reshape(52, 52, 52)),
            np.ascontiguousarray(categories.reshape(52, 52, 52)))


# The kernel's arguments always have the same types (contiguous, writable, these dtypes):
# numba compiles (about 10 s) for each new combination of argument types it is called with.
def _int64(values: npt.NDArray[Any]) -> Ints:
    return _writable(np.ascontiguousarray(values, dtype=np.int64))


def _int8(values: npt.NDArray[Any]) -> npt.NDArray[np.int8]:
    return _writable(np.ascontiguousarray(values, dtype=np.int8))


_A = TypeVar("_A", bound=npt.NDArray[Any])


def _writable(values: _A) -> _A:
    # A read-only array (one made on a buffer) is another type to numba.
    return values if values.flags.writeable else values.copy()


def _blinds_right(block: SevenEightBlock, fixed: npt.NDArray[np.bool_], size1: Ints,
                  size2: Ints) -> npt.NDArray[np.bool_]:
    """Per hand of ``block``, whether its blinds and bet sizes (``size1`` and ``size2``:
    fixed limit's ``small_bet`` and ``big_bet``, else ``min_bet`` twice) keep the rule
    :func:`analytics.rules.seveneight.engine.blinds_problem` states (on the columns, at once):
    a small and a big blind of at least 1, the small no larger, on ``p1`` and ``p2``
    (heads-up ``p2`` the small, ``p1`` the big), 0 elsewhere; the first bet size the big
    blind, the second twice it in fixed limit (no-limit's two are its ``min_bet``); one
    ante for every player (the engine's antes check)."""
    offsets = _int64(block.seat_offsets)
    blinds = _int64(block.blinds)
    counts = np.diff(offsets)
    right = counts >= 2
    if not len(blinds):
        return right
    starts = np.minimum(offsets[:-1], len(blinds) - 1)
    first = blinds[starts]
    second = blinds[np.minimum(starts + 1, len(blinds) - 1)]
    heads_up = counts == 2
    small = np.where(heads_up, second, first)
    big = np.where(heads_up, first, second)
    # Seats posting something, per hand: exactly the two blinds.
    posting = np.add.reduceat((blinds != 0).astype(np.int64), starts) * (counts > 0)
    antes = _int64(block.antes)
    one_ante = (np.maximum.reduceat(antes, starts) == np.minimum.reduceat(antes, starts)
                if len(antes) == len(blinds) else np.zeros(len(counts), np.bool_))
    kept: npt.NDArray[np.bool_] = (right & (small >= 1) & (small <= big) & (posting == 2)
                                   & (size1 == big) & (~fixed | (size2 == 2 * size1))
                                   & one_ante)
    return kept


def replay_block(block: SevenEightBlock) -> BlockOutcome:
    """Replay every hand of ``block`` the kernel plainly accepts (blinds and bet sizes by the
    rule, chips within int64; see the module), with its outcome; the others are left to
    the full engine, :func:`analytics.rules.seveneight.engine.replay` (:class:`BlockOutcome`)."""
    structures = np.array([_STRUCTURE_CODES.get(variant, -1) for variant in block.variants],
                          dtype=np.int64)
    fixed = structures == _FIXED_LIMIT_CODE
    min_bets = _int64(block.min_bets)
    size1 = np.where(fixed, _int64(block.small_bets), min_bets)
    size2 = np.where(fixed, _int64(block.big_bets), min_bets)
    # A hand whose blinds or bet sizes break the rule is left to the engine, which says why.
    structures[~_blinds_right(block, fixed, size1, size2)] = -1
    values, categories = rank_tables()
    (accepted, winners, nets, won, refunds, contributions, finishing, award_offsets,
     award_players, award_amounts, award_pots, showdown_offsets, showdown_players, showdown_actions,
     showdown_ranks, showdown_categories) = _kernels().replay_hands(
        structures, size1, size2, _int64(block.seat_offsets), _int64(block.starting_stacks),
        _int64(block.antes), _int64(block.blinds), _int64(block.finishing_stacks),
        _int64(block.winnings), _int64(block.action_offsets), _int64(block.actors),
        _int8(block.verbs), _int64(block.targets), _int64(block.amounts),
        _int8(block.card_counts), _int8(block.cards).reshape(-1, MAX_ACTION_CARDS), values,
        categories, _VERB_CODES, CANNOT_ACT, FIXED_LIMIT_MAX_BETS)
    texts = block.card_texts
    # The text of a shown hand is its show action's cards as written (format_cards of the
    # cards in shown order, as _showdown_hand gives it).
    cards = [cast(str, texts[row]) for row in showdown_actions.tolist()]
    labels = [_LABELS[code] for code in showdown_categories.tolist()]
    return BlockOutcome(
        accepted=accepted, winners=winners, nets=nets, won=won, refunds=refunds,
        contributions=contributions, finishing_stacks=finishing, award_offsets=award_offsets,
        award_players=award_players, award_amounts=award_amounts,
        showdown_offsets=showdown_offsets, showdown_players=showdown_players,
        showdown_cards=cards, showdown_categories=labels, showdown_ranks=showdown_ranks,
        seat_offsets=_int64(block.seat_offsets), award_pots=award_pots)


def outcome_of(outcome: BlockOutcome, i: int) -> Outcome:
    """The :class:`~analytics.rules.base.Outcome` of accepted hand ``i`` (``extra`` too), equal
    to the per-hand replay's.  Raises ValueError for a hand not accepted."""
    if not outcome.accepted[i]:
        raise ValueError(f"hand {i} of the block was not replayed by the block")
    if len(outcome.seat_offsets) <= i + 1:
        raise ValueError("this BlockOutcome has no seat_offsets")
    seats = slice(int(outcome.seat_offsets[i]), int(outcome.seat_offsets[i + 1]))
    awards = slice(int(outcome.award_offsets[i]), int(outcome.award_offsets[i + 1]))
    shown = slice(int(outcome.showdown_offsets[i]), int(outcome.showdown_offsets[i + 1]))
    winner = int(outcome.winners[i])
    players = _tuple(outcome.award_players, awards)
    pots = (_tuple(outcome.award_pots, awards) if len(outcome.award_pots)
            else (0,) * len(players))

    return Outcome(
        nets=_tuple(outcome.nets, seats),
        awards=tuple(PotAward(pot_name(pot), player, amount) for pot, player, amount in zip(
            pots, players, _tuple(outcome.award_amounts, awards), strict=True)),
        showdown=tuple(ShowdownHand(player, cards, category, rank) for player, cards, category,
                       rank in zip(_tuple(outcome.showdown_players, shown),
                                   outcome.showdown_cards[shown],
                                   outcome.showdown_categories[shown],
                                   _tuple(outcome.showdown_ranks, shown), strict=True)),
        finishing_stacks=_tuple(outcome.finishing_stacks, seats),
        winner=None if winner < 0 else winner,
        extra={"winnings": _tuple(outcome.won, seats), "refunds": _tuple(outcome.refunds, seats),
               "contributions": _tuple(outcome.contributions, seats)})


def _tuple(values: Ints, part: slice) -> tuple[int, ...]:
    """``values[part]`` as a tuple of ints."""
    return tuple(values[part].tolist())


def warm_up() -> None:
    """Load the kernel and the rank tables into this process (a heads-up hand to a showdown).
    The ingest calls it before forking its workers, which then start with them loaded."""
    values, categories = rank_tables()
    deal, check_call, show, up = (int(_VERB_CODES[k]) for k in (0, 2, 4, 5))

    def ints(*items: int) -> Ints:
        return np.array(items, dtype=np.int64)

    # p1 dealt 2c 2d, p2 3c 3d; both turn one up, check down, third cards, showdown.
    verbs = [deal, deal, up, up, check_call, check_call, deal, deal, check_call, check_call,
             show, show]
    cards = [[0, 1, -1], [4, 5, -1], [0, -1, -1], [4, -1, -1], [-1] * 3, [-1] * 3,
             [8, -1, -1], [12, -1, -1], [-1] * 3, [-1] * 3, [0, 1, 8], [4, 5, 12]]
    _kernels().replay_hands(
        ints(_STRUCTURE_CODES["N78"]), ints(2), ints(2), ints(0, 2), ints(100, 100), ints(0, 0),
        ints(2, 1), ints(98, 102), ints(0, 4), ints(0, len(verbs)),
        ints(0, 0, 1, 2, 2, 1, 0, 0, 2, 1, 1, 2), np.array(verbs, dtype=np.int8),
        ints(1, 2, -1, -1, -1, -1, 1, 2, -1, -1, -1, -1), ints(*[-1] * len(verbs)),
        np.array([3 - row.count(-1) for row in cards], dtype=np.int8),
        np.array(cards, dtype=np.int8), values, categories, _VERB_CODES, CANNOT_ACT,
        FIXED_LIMIT_MAX_BETS)
