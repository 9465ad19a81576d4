"""Arrow rows of a whole 7 & 8 block at once.

The ingest worker reads many 7 & 8 hands into one :class:`~parsers.block.SevenEightBlock`
and replays them together (:mod:`analytics.rules.seveneight.block`).  This module makes
what the per-hand path (:class:`analytics.warehouse.pipeline.rows.Batch`) makes of each of those
hands, from the columns, with numpy and pyarrow over the whole block:
:func:`block_tables`, the Arrow tables of the hands taken (any the batch replay accepted),
exactly :meth:`Batch.tables <analytics.warehouse.pipeline.rows.Batch.tables>` after
``Batch.add`` of each of them in order; the all-in hands' ``allin_results`` rows are
:mod:`~analytics.warehouse.pipeline.block_equities`'s.  The hands' ids are
:func:`analytics.warehouse.identity.block_ids`.

tests/test_warehouse_block_rows.py checks both against the per-hand path.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from analytics.rules.seveneight.block import BlockOutcome, pot_name
from analytics.warehouse.pipeline.block_equities import allin_hands, allin_rows
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, FileContext, rules_json
from parsers.block import BLOCK_VERBS, MAX_ACTION_CARDS, SevenEightBlock
from parsers.cards import DECK
from parsers.model import Verb
from parsers.rule_options import Game, SevenEightRules

__all__ = ["block_tables"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Texts = npt.NDArray[np.object_]
"""Texts (Python strings) in a numpy array: taken and gathered by index in C."""

_GAME: Final = str(Game.SEVENEIGHT.value)
_RULES: Final = SevenEightRules()
"""A block hand's rule set: its variant's defaults (no knob lines), the same for all three."""

_CODE: Final = {verb: code for code, verb in enumerate(BLOCK_VERBS)}
_VERB_TEXT: Final = tuple(str(verb.value) for verb in BLOCK_VERBS)
"""A verb code's text (the ``actions.verb`` column)."""
_BETTING_CODES: Final = np.array([_CODE[Verb.BET_RAISE], _CODE[Verb.CHECK_CALL],
                                  _CODE[Verb.FOLD]], dtype=np.int8)


# ---------------------------------------------------------------------------------------
# Numbers as text, cards by combination

_INT_TEXT_LIMIT: Final = 1 << 16
_INT_TEXTS: list[Texts] = []
"""The text of each number below :data:`_INT_TEXT_LIMIT` (made at first use)."""


def _int_texts(values: Ints) -> Texts:
    """``str()`` of each value: looked up in a table for the usual small ones."""
    if not _INT_TEXTS:
        _INT_TEXTS.append(np.array([str(value) for value in range(_INT_TEXT_LIMIT)],
                                   dtype=object))
    table = _INT_TEXTS[0]
    inside = (values >= 0) & (values < _INT_TEXT_LIMIT)
    if inside.all():
        texts: Texts = table[values]
        return texts
    texts = table[np.where(inside, values, 0)]
    outside = np.flatnonzero(~inside)
    texts[outside] = [str(value) for value in values[outside].tolist()]
    return texts


_CARD_CODES: Final = len(DECK) + 1
"""Codes per card slot: -1 (no card) and the 52 cards."""


def _card_combination(cards: npt.NDArray[np.int8]) -> Ints:
    """A number for each action's (up to three) card codes."""
    assert cards.shape[1] == MAX_ACTION_CARDS == 3
    codes = cards.astype(np.int64) + 1
    return (codes[:, 0] * _CARD_CODES + codes[:, 1]) * _CARD_CODES + codes[:, 2]


# ---------------------------------------------------------------------------------------
# Arrow tables


_SCHEMAS: Final = ARROW_SCHEMAS
_I16: Final = pa.int16()
_I32: Final = pa.int32()
_I64: Final = pa.int64()
_STR: Final = pa.string()

_STREETS: Final = ("deal", "up", "round1", "third", "round2", "showdown")
"""7 & 8's streets (:func:`analytics.warehouse.pipeline.rows.street_of`), by code."""
_DEAL, _UP, _ROUND1, _THIRD, _ROUND2, _SHOWDOWN = range(len(_STREETS))
_STREET_NAMES: Final = pa.array(_STREETS, _STR)
_VERB_NAMES: Final = pa.array(_VERB_TEXT, _STR)


def block_tables(block: SevenEightBlock, outcome: BlockOutcome, take: Ints, ids: Ints,
                 context: FileContext) -> dict[str, pa.Table]:
    """The tables of hands ``take`` (indexes into the block, increasing) of ``block``, whose
    ids are ``ids`` (:func:`~analytics.warehouse.identity.block_ids`, one per hand of the
    block): exactly
    :meth:`Batch.tables <analytics.warehouse.pipeline.rows.Batch.tables>` after ``Batch.add`` of
    each
    hand in turn with its outcome.  Every hand taken must be accepted by the batch replay
    (``outcome.accepted``), and the ids of those taken distinct.  The all-in hands'
    ``allin_results`` rows are :func:`~analytics.warehouse.pipeline.block_equities.allin_rows`'s."""
    take = np.asarray(take, dtype=np.int64)
    hand_ids = ids[take]
    seat_rows, seat_hands = _rows_of(block.seat_offsets, take)
    action_rows, action_hands = _rows_of(block.action_offsets, take)
    award_rows, award_hands = _rows_of(outcome.award_offsets, take)
    showdown_rows, showdown_hands = _rows_of(outcome.showdown_offsets, take)
    tables = {
        "hands": _hands_table(block, outcome, take, hand_ids, context),
        "seats": _seats_table(block, outcome, take, hand_ids, seat_rows, seat_hands,
                              award_rows),
        "actions": _actions_table(block, hand_ids, action_rows, action_hands),
        "showdowns": _table("showdowns", [
            hand_ids[showdown_hands], _repeated(_GAME, len(showdown_rows)),
            _ints(outcome.showdown_players[showdown_rows], _I16),
            _strings(outcome.showdown_cards, showdown_rows),
            _strings(outcome.showdown_categories, showdown_rows),
            _ints(outcome.showdown_ranks[showdown_rows], _I64)]),
        "awards": _table("awards", [
            hand_ids[award_hands], _pot_names(outcome, award_rows),
            _ints(outcome.award_players[award_rows], _I16),
            _ints(outcome.award_amounts[award_rows], _I64)]),
    }
    allins = take[allin_hands(block)[take]]
    if len(allins):
        tables["allin_results"] = allin_rows(block, outcome, allins, ids)
    for name, schema in _SCHEMAS.items():
        if name not in tables:  # board, the other equity tables: none for these hands
            tables[name] = schema.empty_table()
    return {name: tables[name] for name in _SCHEMAS}


def _rows_of(offsets: Ints, take: Ints) -> tuple[Ints, Ints]:
    """The rows of hands ``take`` in arrays laid out by ``offsets``, in order, and the
    position in ``take`` of each row's hand."""
    starts = offsets[take]
    counts = offsets[take + 1] - starts
    total = int(counts.sum())
    hands = np.repeat(np.arange(len(take), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts  # each hand's first row in the result
    rows: Ints = np.arange(total, dtype=np.int64) + np.repeat(starts - first, counts)
    return rows, hands


def _table(name: str, columns: Sequence[object]) -> pa.Table:
    schema = _SCHEMAS[name]
    arrays = [column if isinstance(column, pa.Array) else pa.array(column, field.type)
              for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _ints(values: npt.NDArray[np.integer], kind: pa.DataType,
          missing: Bools | None = None) -> pa.Array:
    """An integer column of ``kind``, null where ``missing``."""
    return pa.array(values.astype(kind.to_pandas_dtype(), copy=False), kind, mask=missing)


def _pot_names(outcome: BlockOutcome, award_rows: Ints) -> pa.Array:
    """The ``pot`` column of awards ``award_rows``: ``main`` but for side pots' awards."""
    numbers = outcome.award_pots[award_rows] if len(outcome.award_pots) else award_rows[:0]
    if not numbers.any():  # the usual case: every award is of the main pot
        return _repeated("main", len(award_rows))
    return pa.array([pot_name(number) for number in numbers.tolist()], _STR)


def _repeated(value: object, count: int, kind: pa.DataType = _STR) -> pa.Array:
    """``value`` ``count`` times (its Arrow form as the per-hand path converts it)."""
    return pa.array([value], kind).take(pa.array(np.zeros(count, dtype=np.int8)))


def _nulls(count: int, kind: pa.DataType) -> pa.Array:
    return pa.nulls(count, kind)


def _strings(values: list[str], rows: Ints) -> pa.Array:
    """The string column of ``values[rows]``."""
    if len(rows) == len(values):  # every row (the usual case: rows are 0, 1, ...)
        return pa.array(values, _STR)
    return pa.array(values, _STR).take(pa.array(rows))


T = TypeVar("T")


def _gathered(values: list[T], take: Ints) -> list[T]:
    """``values`` of hands ``take`` (increasing): all of them when every hand is taken."""
    if len(take) == len(values):
        return values
    return list(map(values.__getitem__, take.tolist()))


def _texts(values: list[str]) -> pa.Array:
    """The string column of ``str()`` of each value (the tables' names: strings, or the
    numbers a ``table`` field may also hold)."""
    try:
        return pa.array(values, _STR)
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # a number among them
        return pa.array(list(map(str, values)), _STR)


def _hands_table(block: SevenEightBlock, outcome: BlockOutcome, take: Ints, hand_ids: Ints,
                 context: FileContext) -> pa.Table:
    count = len(take)
    min_bets, small_bets, big_bets = (values[take] for values in (
        block.min_bets, block.small_bets, block.big_bets))
    winners = outcome.winners[take]
    num_actions = block.action_offsets[take + 1] - block.action_offsets[take]
    num_players = block.seat_offsets[take + 1] - block.seat_offsets[take]
    return _table("hands", [
        hand_ids, _repeated(_GAME, count), pa.array(_gathered(block.variants, take), _STR),
        _repeated(rules_json(_RULES), count),
        _ints(min_bets, _I64, min_bets < 0), _ints(small_bets, _I64, small_bets < 0),
        _ints(big_bets, _I64, big_bets < 0), _nulls(count, _STR), _nulls(count, _I32),
        pa.array(_int_texts(block.hand_numbers[take]), _STR),
        _texts(_gathered(block.tables, take)), _nulls(count, _STR),
        _dates(block.years[take], block.months[take], block.days[take]),
        pa.array(_gathered(block.times, take), pa.time64("us")),
        _nulls(count, _STR), _nulls(count, _STR), _ints(num_players, _I16),
        _nulls(count, _I16), _ints(winners, _I16, winners < 0), _ints(num_actions, _I32),
        _nulls(count, _STR), _repeated(context.path, count),
        _repeated(context.sha256, count), _ints(block.lines[take], _I32),
        _ints(block.indexes[take], _I32),
        _repeated(context.loaded_at, count, pa.timestamp("us")),
    ])


_EPOCH: Final = np.datetime64("1970-01-01", "D")


def _dates(years: Ints, months: Ints, days: Ints) -> pa.Array:
    """The ``played_on`` column: each hand's date, null where year, month and day make no
    date (``HandHistory.date``)."""
    valid_month = (months >= 1) & (months <= 12) & (years >= 1) & (years <= 9999)
    month_index = np.where(valid_month, (years - 1970) * 12 + months - 1, 0)
    first = month_index.astype("datetime64[M]").astype("datetime64[D]")
    following = (month_index + 1).astype("datetime64[M]").astype("datetime64[D]")
    length = (following - first).astype(np.int64)
    valid = valid_month & (days >= 1) & (days <= length)
    since_epoch = (first - _EPOCH).astype(np.int64) + np.where(valid, days - 1, 0)
    return pa.array(since_epoch.astype(np.int32), pa.date32(), mask=~valid)


def _seats_table(block: SevenEightBlock, outcome: BlockOutcome, take: Ints, hand_ids: Ints,
                 rows: Ints, hands: Ints, award_rows: Ints) -> pa.Table:
    offsets = block.seat_offsets
    seat = rows - offsets[take][hands] + 1
    won, pots_won = _won(block, outcome, award_rows)
    nets = outcome.nets[rows]
    winners = outcome.winners[take][hands]
    flags = seat == winners  # the main pot's (first) winner; -1, none: nobody won
    return _table("seats", [
        np.repeat(hand_ids, offsets[take + 1] - offsets[take]), _repeated(_GAME, len(rows)),
        _ints(seat, _I16), _player_names(block, take, rows), block.starting_stacks[rows],
        block.antes[rows], block.blinds[rows], outcome.finishing_stacks[rows], nets,
        won[rows], _ints(pots_won[rows], _I16), _nulls(len(rows), _I16),
        pa.array(flags, pa.bool_()),
    ])


def _won(block: SevenEightBlock, outcome: BlockOutcome, award_rows: Ints
         ) -> tuple[Ints, Ints]:
    """Per seat of the block: chips won in the awards (rows ``award_rows``), and the number
    of pots won with chips (a player has at most one award per pot: his awards)."""
    seats = len(block.starting_stacks)
    award_hands = np.searchsorted(outcome.award_offsets, award_rows, side="right") - 1
    players = outcome.award_players[award_rows]
    amounts = outcome.award_amounts[award_rows]
    counts = (block.seat_offsets[award_hands + 1] - block.seat_offsets[award_hands])
    seated = (players >= 1) & (players <= counts)  # Batch ignores other players' awards
    where = (block.seat_offsets[award_hands] + players - 1)[seated]
    won = np.bincount(where, amounts[seated], minlength=seats).astype(np.int64)
    positive = np.bincount(where[amounts[seated] > 0], minlength=seats)
    return won, positive.astype(np.int64)


def _player_names(block: SevenEightBlock, take: Ints, rows: Ints) -> pa.Array:
    """Each seat's ``HandHistory.player_name`` (seats ``rows`` of hands ``take``): its name,
    ``pN`` where none is given."""
    players = block.players
    counts = block.seat_offsets[1:] - block.seat_offsets[:-1]
    names = list(chain.from_iterable(players))
    sizes = np.fromiter(map(len, players), dtype=np.int64, count=len(players))
    if len(names) == len(block.starting_stacks) and (sizes == counts).all() and (
            "" not in names):  # the usual case: a name for every seat, one after another
        column = pa.array(names, _STR)
        return column if len(rows) == len(names) else column.take(pa.array(rows))
    names = []
    for hand in take.tolist():
        names.extend(_names(players[hand], int(counts[hand])))
    return pa.array(names, _STR)


def _names(players: tuple[str, ...], count: int) -> list[str]:
    return [players[seat - 1] if seat <= len(players) and players[seat - 1] else f"p{seat}"
            for seat in range(1, count + 1)]


def _actions_table(block: SevenEightBlock, hand_ids: Ints, rows: Ints, hands: Ints
                   ) -> pa.Table:
    count = len(rows)
    counts = np.bincount(hands, minlength=len(hand_ids))
    first = np.cumsum(counts) - counts
    seq = np.arange(count, dtype=np.int64) - np.repeat(first, counts)
    amounts, targets, lines = block.amounts[rows], block.targets[rows], block.action_lines[rows]
    streets = _streets(block)[rows]
    cards = _card_texts().take(pa.array(_card_combination(block.cards[rows])))
    return _table("actions", [
        np.repeat(hand_ids, counts), _ints(seq, _I32), _ints(block.actors[rows], _I16),
        _VERB_NAMES.take(pa.array(block.verbs[rows])), cards,
        _ints(amounts, _I64, amounts < 0), _ints(targets, _I16, targets < 0),
        _nulls(count, _STR), _STREET_NAMES.take(pa.array(streets)),
        _ints(lines, _I32, lines == 0), _nulls(count, _STR),
    ])


_CARD_TEXTS: list[pa.Array] = []


def _card_texts() -> pa.Array:
    """The ``actions.cards`` text of each :func:`_card_combination` (null for no cards),
    made at first use (53 ** 3 texts: some 40 ms, 1 MB): the column is then one ``take``."""
    if not _CARD_TEXTS:
        texts = ["", *(str(card) for card in DECK)]  # by code + 1
        every = [first + second + third for first in texts for second in texts
                 for third in texts]
        _CARD_TEXTS.append(pa.array(every, _STR, mask=np.arange(len(every)) == 0))
    return _CARD_TEXTS[0]


def _streets(block: SevenEightBlock) -> npt.NDArray[np.int8]:
    """Each action's street code (:data:`_STREETS`),
    :func:`~analytics.warehouse.pipeline.rows.street_of`
    over the whole block.

    A deal is ``third`` after an up-card of its hand, else ``deal``; an up-card is ``up``,
    a show ``showdown``: these set the street.  A bet, call, check or fold is ``round2``
    when the last action setting the street was a third card, else ``round1`` (a run of
    them keeps the street).  Any other action takes the street of the action before it
    (``deal`` for a hand's first).
    """
    verbs = block.verbs
    count = len(verbs)
    index = np.arange(count, dtype=np.int64)
    hand_start = np.repeat(block.action_offsets[:-1], np.diff(block.action_offsets))
    deal, up = verbs == _CODE[Verb.DEAL_HOLE], verbs == _CODE[Verb.TURN_UP]
    show, betting = verbs == _CODE[Verb.SHOW_MUCK], np.isin(verbs, _BETTING_CODES)
    ups_so_far = np.cumsum(up)
    ups_before_hand = np.concatenate(([0], ups_so_far))[hand_start]
    up_before = ups_so_far - up > ups_before_hand  # an up-card earlier in the hand
    streets = np.full(count, _DEAL, dtype=np.int8)
    streets[deal] = np.where(up_before[deal], _THIRD, _DEAL)
    streets[up] = _UP
    streets[show] = _SHOWDOWN
    setter = deal | up | show
    last_setter = np.maximum.accumulate(np.where(setter, index, -1))
    in_hand = last_setter >= hand_start
    after_third = in_hand & (streets[np.maximum(last_setter, 0)] == _THIRD)
    streets[betting] = np.where(after_third[betting], _ROUND2, _ROUND1)
    other = ~(setter | betting)
    if other.any():  # the street of the last action before it that is not one of these
        last_known = np.maximum.accumulate(np.where(other, -1, index))
        known = last_known >= hand_start
        streets[other] = np.where(known, streets[np.maximum(last_known, 0)], _DEAL)[other]
    return streets
