"""The ``allin_results`` rows of a whole 7 & 8 block's all-in hands, from the columns.

The per-hand path (:class:`analytics.warehouse.pipeline.rows.Batch`) makes a 7 & 8 hand's all-in
rows
from its :class:`~parsers.model.HandHistory` and Action objects
(:func:`analytics.equity.allin.allin_spot`, then one
:func:`~analytics.equity.allin.allin_adjusted_many` call for the batch's spots).  This module
makes the same spots from a :class:`~parsers.block.SevenEightBlock` and its
:class:`~analytics.rules.seveneight.block.BlockOutcome`, and the same rows:

* :func:`allin_hands`: the hands with an all-in moment
  (:func:`~analytics.equity.allin.third_card_at` is not None), over the whole block;
* :func:`allin_supported`: those this module makes rows of (every one the batch replay
  accepted: its outcome carries the contributions, nets and refunds the spot reads);
* :func:`allin_spots`: each hand's :class:`~analytics.equity.allin.AllInSpot`, exactly
  :func:`~analytics.equity.allin.allin_spot` of the hand with its outcome;
* :func:`allin_rows`: the ``allin_results`` table of hands, as ``Batch.tables`` makes it
  (:func:`~analytics.warehouse.pipeline.block_rows.block_tables` makes it of its all-in hands).

The moment is read as :func:`allin_spot` reads it from an outcome with contributions (its
``_moment_from_outcome``): with no betting after the third cards, the final contributions
are those of the moment; the players still in are those dealt a third card; each player's
hole cards are his last deal before the first third card.  A block holds no unknown cards,
so the up-cards never fill in a ``??``.  tests/test_warehouse_block_equities.py checks
every function against the per-hand path.
"""

from __future__ import annotations

import operator
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from analytics.equity.allin import AllInResult, AllInSpot, allin_adjusted_many
from analytics.rules.pots import build_pots
from analytics.rules.seveneight.block import BlockOutcome
from analytics.warehouse.pipeline.equities import seed_of
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS
from parsers.block import BLOCK_VERBS, SevenEightBlock
from parsers.model import Verb

__all__ = ["allin_hands", "allin_rows", "allin_spots", "allin_supported", "third_cards"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

_DEAL: Final = BLOCK_VERBS.index(Verb.DEAL_HOLE)
_UP: Final = BLOCK_VERBS.index(Verb.TURN_UP)
_BETTING: Final = np.array([BLOCK_VERBS.index(verb) for verb in (
    Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD)], dtype=np.int8)
_SCHEMA: Final = ARROW_SCHEMAS["allin_results"]
_DECK: Final = range(52)
"""Every card's code: the pool a spot's cards to come are drawn from, less the known ones."""


def third_cards(block: SevenEightBlock) -> Ints:
    """Each hand's :func:`~analytics.equity.allin.third_card_at` as an index into the block's
    per-action arrays, -1 for None: the first third card (a deal of one card) after the
    hand's last bet, call, check or fold, when there is one."""
    offsets = block.action_offsets
    starts, ends = offsets[:-1], offsets[1:]
    verbs = block.verbs
    count = len(verbs)
    if not count:
        return np.full(len(block), -1, dtype=np.int64)
    index = np.arange(count, dtype=np.int64)
    betting = np.isin(verbs, _BETTING)
    third = (verbs == _DEAL) & (block.card_counts == 1)
    # The last betting action up to each action (-1: none yet), and the first third card
    # from each action on (count: none left).
    last_betting = np.maximum.accumulate(np.where(betting, index, -1))
    next_third = np.minimum.accumulate(np.where(third, index, count)[::-1])[::-1]
    nonempty = ends > starts
    after = np.maximum(last_betting[np.where(nonempty, ends - 1, 0)] + 1, starts)
    # ``after`` is the first action after the hand's last betting one (its start if none).
    first = np.where(after < ends, next_third[np.minimum(after, count - 1)], count)
    found: Ints = np.where(nonempty & (first < ends), first, -1)
    return found


def allin_hands(block: SevenEightBlock) -> Bools:
    """Whether each hand has an all-in moment (:func:`~analytics.equity.allin.allin_moment`
    is not None): some third card comes after its last bet, call, check or fold."""
    found: Bools = third_cards(block) >= 0
    return found


def allin_supported(block: SevenEightBlock, outcome: BlockOutcome) -> Bools:
    """The all-in hands whose rows :func:`allin_rows` makes: those the batch replay accepted
    (the others go the per-hand path anyway)."""
    supported: Bools = allin_hands(block) & outcome.accepted
    return supported


_Moment = tuple[tuple[int, ...], list[bool], list[list[int]], list[int]]
"""Contributions, who is in, the hole cards' codes and the up cards of the folded (seen by
the whole table: out of the deck, as ``allin.allin_spot`` takes them)."""


def allin_spots(block: SevenEightBlock, outcome: BlockOutcome, hands: Ints
                ) -> list[AllInSpot | None]:
    """The :class:`~analytics.equity.allin.AllInSpot` of each of ``hands`` (indexes into the
    block): :func:`~analytics.equity.allin.allin_spot` of the hand and its outcome, None for
    a hand without an all-in moment or one the batch replay did not accept."""
    hands = np.asarray(hands, dtype=np.int64)
    thirds = third_cards(block)[hands]
    usable = (thirds >= 0) & outcome.accepted[hands]
    moments = _moments(block, outcome, hands[usable], thirds[usable])
    nets = _per_seat_tuples(outcome.nets, block.seat_offsets, hands[usable])
    spots: list[AllInSpot | None] = [None] * len(hands)
    for position, moment, hand_nets in zip(np.flatnonzero(usable).tolist(), moments, nets,
                                           strict=True):
        spots[position] = _spot(moment, hand_nets)
    return spots


def _per_seat_tuples(values: Ints, offsets: Ints, hands: Ints) -> list[tuple[int, ...]]:
    """Each hand's per-seat ``values`` as a tuple of ints."""
    starts, ends = offsets[hands].tolist(), offsets[hands + 1].tolist()
    every: list[int] = values.tolist()
    return [tuple(every[start:end]) for start, end in zip(starts, ends, strict=True)]


def _moments(block: SevenEightBlock, outcome: BlockOutcome, hands: Ints, thirds: Ints
             ) -> list[_Moment]:
    """Each hand's contributions, who is still in and the hole cards' codes at its all-in
    moment (``thirds``: its first third card), as ``_moment_from_outcome`` reads them."""
    contributions = _per_seat_tuples(outcome.contributions, block.seat_offsets, hands)
    # The deals of these hands (to a player), gathered once: the rest of each hand's actions
    # is not read.
    starts = block.action_offsets[hands]
    counts = block.action_offsets[hands + 1] - starts
    owner = np.repeat(np.arange(len(hands), dtype=np.int64), counts)
    rows = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(
        starts - (np.cumsum(counts) - counts), counts)
    verbs = block.verbs[rows]
    deals = ((verbs == _DEAL) & (block.targets[rows] >= 0)) | (verbs == _UP)
    rows, owner = rows[deals], owner[deals]
    before = (rows < thirds[owner]).tolist()
    up = (block.verbs[rows] == _UP).tolist()
    # A deal's seat is its target, an up card's its actor.
    seats = (np.where(block.verbs[rows] == _UP, block.actors[rows], block.targets[rows])
             - 1).tolist()
    cards = block.cards[rows].tolist()
    by_hand = np.searchsorted(owner, np.arange(len(hands) + 1)).tolist()
    moments: list[_Moment] = []
    for hand, paid in enumerate(contributions):
        n = len(paid)
        holes: list[list[int]] = [[] for _ in range(n)]
        in_hand = [False] * n
        turned: list[tuple[int, int]] = []
        for row in range(by_hand[hand], by_hand[hand + 1]):
            if up[row]:
                if before[row]:
                    turned += [(seats[row], code) for code in cards[row] if code >= 0]
            elif before[row]:
                holes[seats[row]] = [code for code in cards[row] if code >= 0]
            else:
                in_hand[seats[row]] = True
        moments.append((paid, in_hand, holes,
                        [code for seat, code in turned if 0 <= seat < n and not in_hand[seat]]))
    return moments


def _spot(moment: _Moment, nets: tuple[int, ...]) -> AllInSpot:
    """The spot of a moment: :func:`~analytics.equity.allin.allin_spot`'s construction, with
    shortcuts for the usual shapes (one pot everybody still in is eligible for)."""
    contributions, in_hand, holes, folded_up = moment
    contestants = tuple([p for p in range(len(in_hand)) if in_hand[p]])
    layout = build_pots(contributions, in_hand)
    pots = [pot for pot in layout.pots if pot.amount > 0]
    rows: list[tuple[int, ...]] = []
    seen: list[int] = []
    owner: list[int] = []
    pos: list[int] = []
    slots: list[int] = []
    for row, player in enumerate(contestants):
        known = holes[player]  # codes of dealt cards only: a block has no ``??``
        size = len(known)
        rows.append((*known, *_UNKNOWN_TAIL[size]))
        seen += known
        slots.append(3 - size)
        for column in range(size, 3):
            owner.append(row)
            pos.append(column)
    pool = list(_DECK)
    seen += folded_up
    for code in sorted(set(seen), reverse=True):  # a few known cards out of the deck
        del pool[code]
    if len(pots) == 1 and pots[0].eligible == contestants:
        eligible: tuple[tuple[bool, ...], ...] = ((True,) * len(contestants),)
    else:
        eligible = tuple([tuple([player in pot.eligible for player in contestants])
                          for pot in pots])
    return AllInSpot(
        contestants, contributions, layout.refunds, nets,
        sum([pot.amount for pot in pots]), tuple(rows), tuple(owner), tuple(pos),
        tuple(pool), tuple(slots), eligible, tuple([pot.amount for pot in pots]))


_UNKNOWN_TAIL: Final = ((-1, -1, -1), (-1, -1), (-1,), ())
"""The -1's that fill a row of ``size`` known cards to three, by ``size``."""


def allin_rows(block: SevenEightBlock, outcome: BlockOutcome, hands: Ints, ids: Ints
               ) -> pa.Table:
    """The ``allin_results`` rows of ``hands`` (indexes into the block, in the batch's order)
    whose ids are ``ids`` (one per hand of the block,
    :func:`~analytics.warehouse.identity.block_ids`): those ``Batch.tables`` makes after
    ``Batch.add`` of each hand, the spots
    solved by one :func:`~analytics.equity.allin.allin_adjusted_many` call seeded by
    :func:`~analytics.warehouse.pipeline.equities.seed_of` of each id.  Hands without a spot (no
    all-in moment, not accepted) have no rows."""
    hands = np.asarray(hands, dtype=np.int64)
    spots = allin_spots(block, outcome, hands)
    solved = [spot for spot in spots if spot is not None]
    if len(solved) < len(spots):
        hands = hands[[spot is not None for spot in spots]]
    keys: list[int] = ids[hands].tolist()
    results = allin_adjusted_many(solved, [seed_of(key) for key in keys], threads=1)
    return _table(block, hands.tolist(), keys, results)


def _table(block: SevenEightBlock, hands: list[int], keys: list[int],
           results: list[AllInResult]) -> pa.Table:
    """The rows of each hand's result, the values ``_add_allin`` appends: one tuple per row
    (a few attribute reads in C), then one Arrow column per field of the schema."""
    rows: list[tuple[object, ...]] = []
    for hand, key, result in zip(hands, keys, results, strict=True):
        players = block.players[hand]
        tail = (result.pot, result.pots, result.exact, result.deals)
        for player in result.players:
            seat = player.seat
            # HandHistory.player_name: the name, pN where none is recorded.
            name = (players[seat - 1] if seat <= len(players) and players[seat - 1]
                    else f"p{seat}")
            rows.append((key, seat, name, *_PLAYER_VALUES(player), *tail))
    if not rows:
        return _SCHEMA.empty_table()
    columns = zip(*rows, strict=True)
    return pa.Table.from_arrays([pa.array(column, field.type) for column, field in zip(
        columns, _SCHEMA, strict=True)], schema=_SCHEMA)


_PLAYER_VALUES: Final = operator.attrgetter(
    "contributed", "refund", "equity", "expected_won", "actual_won", "expected_net",
    "actual_net", "luck", "std_error")
"""An :class:`~analytics.equity.allin.AllInPlayer`'s values, in the schema's order."""
