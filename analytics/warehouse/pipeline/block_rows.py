"""Hand ids and Arrow rows of a whole 7 & 8 block at once.

The ingest worker reads many 7 & 8 hands into one :class:`~parsers.block.SevenEightBlock`
and replays them together (:mod:`analytics.rules.seveneight.block`).  This module makes
what the per-hand path (:class:`analytics.warehouse.pipeline.rows.Batch`) makes of each of those
hands, from the columns, with numpy and pyarrow over the whole block:

* :func:`block_ids`: each hand's id, exactly :func:`~analytics.warehouse.identity.hand_id`
  (the same canonical text, put together from pieces of the columns, hashed the same way);
* :func:`block_tables`: the Arrow tables of the hands taken (any the batch replay
  accepted), exactly :meth:`Batch.tables <analytics.warehouse.pipeline.rows.Batch.tables>` after
  ``Batch.add`` of each of them in order; the all-in hands' ``allin_results`` rows are
  :mod:`~analytics.warehouse.pipeline.block_equities`'s.

tests/test_warehouse_block_rows.py checks both against the per-hand path.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from hashlib import blake2b
from itertools import chain, repeat
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from analytics.rules.seveneight.block import BlockOutcome, pot_name
from analytics.warehouse.identity import IDENTITY_VERSION, canonical_key
from analytics.warehouse.pipeline.block_equities import allin_hands, allin_rows
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, FileContext, rules_json
from parsers.block import BLOCK_VERBS, MAX_ACTION_CARDS, SevenEightBlock
from parsers.caching import BoundedCache
from parsers.cards import DECK
from parsers.knobs import Game, SevenEightRules
from parsers.model import HandHistory, Verb

__all__ = ["block_ids", "block_tables"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Texts = npt.NDArray[np.object_]
"""Texts (Python strings) in a numpy array: taken and gathered by index in C."""

_PERSON: Final = f"handlab-hand-{IDENTITY_VERSION}".encode()
"""blake2b's personalisation, as :func:`analytics.warehouse.identity.hand_id` uses it."""

_GAME: Final = str(Game.SEVENEIGHT.value)
_RULES: Final = SevenEightRules()
"""A block hand's rule set: its variant's defaults (no knob lines), the same for all three."""

_CODE: Final = {verb: code for code, verb in enumerate(BLOCK_VERBS)}
_VERB_TEXT: Final = tuple(str(verb.value) for verb in BLOCK_VERBS)
"""A verb code's text (the ``actions.verb`` column, and the id's verbs)."""
_BETTING_CODES: Final = np.array([_CODE[Verb.BET_RAISE], _CODE[Verb.CHECK_CALL],
                                  _CODE[Verb.FOLD]], dtype=np.int8)


# ---------------------------------------------------------------------------------------
# Hand ids


def block_ids(block: SevenEightBlock) -> Ints:
    """Each hand's id: :func:`~analytics.warehouse.identity.hand_id` of the hand and its
    actions, from the block's columns."""
    texts = _canonical_texts(block)
    if not texts:
        return np.zeros(0, dtype=np.int64)
    # All in C: encode, hash and digest each text (hand_id's steps), then read the 8 bytes
    # of each digest as a big-endian signed integer, as hand_id does.
    encoded = map(str.encode, texts, repeat("utf-8"), repeat("surrogatepass"))
    digests = map(_BLAKE2B_DIGEST, map(_HASHER, encoded))
    return np.frombuffer(b"".join(digests), dtype=">i8").astype(np.int64)


_HASHER: Final = partial(blake2b, digest_size=8, person=_PERSON)
_BLAKE2B_DIGEST: Final = blake2b.digest


def _canonical_texts(block: SevenEightBlock) -> list[str]:
    """Each hand's :func:`~analytics.warehouse.identity.canonical_key`, from the columns.

    The text is ``repr()`` of a list of the header fields given (name, value; the fields
    a block hand leaves at their default are left out) and then of the tuple of the
    action columns.  Its pieces are made for the whole block: tuples of numbers and of
    cards from their items' texts (:func:`_tuple_texts`), header values looked up by value
    (hands of a table share most of them), each hand's action columns but its cards looked
    up by its actions (hands repeat a few hundred betting sequences); then one join per
    hand puts them together with the text between them, all in C.
    """
    if not len(block):
        return []
    offsets = block.seat_offsets
    stacks, antes, blinds, finishing, winnings = (
        _tuple_texts(_int_texts(values), offsets) for values in (
            block.starting_stacks, block.antes, block.blinds, block.finishing_stacks,
            block.winnings))
    bets = _remembered(list(zip(block.min_bets.tolist(), block.small_bets.tolist(),
                                block.big_bets.tolist(), strict=True)), _BETS_PIECES,
                       _bets_piece)
    heads, tails = _action_texts(block)
    cards = _card_tuple_texts(block)
    user_names, user_values = _user_pieces(list(map(repr, block.user_fields)))
    pieces = (  # in the order of HandHistory's fields, then the actions
        repeat("["), _remembered(block.variants, _VARIANT_PIECES, _variant_piece),
        repeat(", 'starting_stacks', ("), stacks, repeat("), 'antes', ("), antes,
        repeat("), 'blinds_or_straddles', ("), blinds, repeat("), "), bets,
        repeat("'finishing_stacks', ("), finishing, repeat("), 'winnings', ("), winnings,
        repeat("), 'players', "), _remembered(block.players, _NAME_REPRS, repr),
        repeat(", 'seats', "), _remembered(block.seats, _SEAT_REPRS, repr),
        repeat(", 'seat_count', "), _int_texts(block.seat_counts).tolist(),
        repeat(", 'hand', "), _int_texts(block.hand_numbers).tolist(),
        repeat(", 'table', "), _remembered(block.tables, _TABLE_REPRS, repr),
        repeat(", 'time', "), _remembered(block.times, _TIME_PIECES, _time_piece, _naive),
        repeat(", 'day', "), _int_texts(block.days).tolist(),
        repeat(", 'month', "), _int_texts(block.months).tolist(),
        repeat(", 'year', "), _int_texts(block.years).tolist(), user_names, user_values,
        heads, cards, tails)
    return list(map("".join, zip(*pieces)))  # noqa: B905  # the repeats never end


_REMEMBERED_LIMIT: Final = 20_000
"""The most pieces each cache here holds."""


def _remembered_at(keys: Sequence[bytes], pieces: BoundedCache[bytes, str],
                   make: Callable[[list[int]], list[str]]) -> list[str]:
    """The piece of each hand by its key (``keys``: one per hand): looked up in ``pieces``
    (all in C); the keys not there yet made together (``make`` of the index of each one's
    first hand) and remembered.

    The new keys of a block repeat within it (a betting sequence new to the worker), so
    each is made once and every hand's piece then looked up in C: no Python step per
    hand."""
    found: list[str | None] = list(map(pieces.get, keys))
    if None not in found:
        return found  # type: ignore[return-value]  # no None
    # Each key's first hand: the reversed pairs leave the first index last.
    first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))
    new = {key: index for key, index in first.items() if found[index] is None}
    made = dict(zip(new, make(list(new.values())), strict=True))
    pieces.put_many(made)
    return list(map(made.get, keys, found))  # type: ignore[arg-type]  # a miss is in made


K = TypeVar("K")


def _always(_: object) -> bool:
    return True


def _remembered(values: Sequence[K], pieces: BoundedCache[K, str], make: Callable[[K], str],
                keep: Callable[[K], bool] = _always) -> list[str]:
    """``make(value)`` of each value: looked up in ``pieces`` (all in C), the values not
    there yet made and (when ``keep(value)``) remembered."""
    found: list[str | None] = list(map(pieces.get, values))
    if None in found:
        index = -1
        for _ in range(found.count(None)):  # one scan for the count, not one per miss
            index = found.index(None, index + 1)
            value = values[index]
            piece = pieces.get(value)  # an earlier miss may have made it
            if piece is None:
                piece = make(value)
                if keep(value):
                    pieces[value] = piece
            found[index] = piece
    return found  # type: ignore[return-value]  # no None left


_EMPTY_ACTIONS: Final = ", ((), (), (), (), (), (), ())]"
"""The end of the canonical text of a hand without actions."""


def _variant_piece(variant: str) -> str:
    """``'game', ..., 'variant', ..., 'rules', ...`` of a block hand of ``variant``: the
    identity's own text of a hand with only these fields."""
    key = canonical_key(HandHistory(game=Game.SEVENEIGHT, variant=variant, rules=_RULES))
    assert key.startswith("[") and key.endswith(_EMPTY_ACTIONS), key
    return key[1:-len(_EMPTY_ACTIONS)]


_VARIANT_PIECES: Final = BoundedCache[str, str]("analytics.warehouse.pipeline.block_rows.variant",
                                                _REMEMBERED_LIMIT)


def _bets_piece(bets: tuple[int, int, int]) -> str:
    """The pieces of ``min_bet``, ``small_bet`` and ``big_bet`` (each left out when -1),
    each followed by ``, ``."""
    return "".join(f"{name!r}, {value}, " for name, value in zip(
        ("min_bet", "small_bet", "big_bet"), bets, strict=True) if value >= 0)


_BETS_PIECES: Final = BoundedCache[tuple[int, int, int], str](
    "analytics.warehouse.pipeline.block_rows.bets", _REMEMBERED_LIMIT)
_NAME_REPRS: Final = BoundedCache[tuple[str, ...], str](
    "analytics.warehouse.pipeline.block_rows.names", _REMEMBERED_LIMIT)
_SEAT_REPRS: Final = BoundedCache[tuple[int, ...], str](
    "analytics.warehouse.pipeline.block_rows.seats", _REMEMBERED_LIMIT)


def _time_piece(time: dt.time) -> str:
    """The time's text in the key: ``repr`` of its ISO form."""
    return repr(time.isoformat())


def _naive(time: dt.time) -> bool:
    # An aware time equals another one with another offset and another text: not kept.
    return time.tzinfo is None


_TIME_PIECES: Final = BoundedCache[dt.time, str]("analytics.warehouse.pipeline.block_rows.time",
                                                 _REMEMBERED_LIMIT)

_TABLE_REPRS: Final = BoundedCache[str, str]("analytics.warehouse.pipeline.block_rows.table_reprs",
                                             _REMEMBERED_LIMIT)
_USER_NAME: Final = ", 'user_fields', "


def _user_pieces(values: list[str]) -> tuple[Iterable[str], list[str]]:
    """The ``user_fields`` piece of each hand (``values``: ``repr()`` of its user fields),
    in two: its name and its value (both "" when there are none: the field's default)."""
    if "()" not in values:
        return repeat(_USER_NAME), values
    names = [_USER_NAME] * len(values)
    values = [*values]  # the caller's list stays as it is
    index = -1
    for _ in range(values.count("()")):
        index = values.index("()", index + 1)
        names[index] = values[index] = ""
    return names, values


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


def _tuple_texts(items: Texts, offsets: Ints, lengths: Ints | None = None) -> list[str]:
    """The inside of ``repr()`` of each hand's tuple (what goes between its parentheses),
    whose items' texts are ``items[start:end]`` (the hand's ``start`` and ``end`` in
    ``offsets``): ``1, 2``, ``1,`` for one item, "" for none.  ``lengths``: the items'
    lengths, when the caller knows them.

    When every hand has as many items (a table's hands have as many seats), the items
    are joined by one ``zip`` of one iterator; else all of them are joined into one text,
    cut into the hands' pieces where their items' lengths say (all in C).
    """
    counts = offsets[1:] - offsets[:-1]
    if not len(counts):
        return []
    texts = items[offsets[0]:offsets[-1]].tolist()
    if (counts == counts[0]).all() and counts[0] > 1:
        parts = iter(texts)
        return list(map(", ".join, zip(*([parts] * int(counts[0])), strict=True)))
    if lengths is None:
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    else:
        lengths = lengths[offsets[0]:offsets[-1]]
    joined = ", ".join(texts)
    at = np.zeros(len(texts) + 1, dtype=np.int64)  # where each item starts in the text
    np.cumsum(lengths + 2, out=at[1:])
    first = offsets - offsets[0]
    # A hand's piece ends 2 before its next item would start (", "); empty for no items.
    found = list(map(joined.__getitem__, map(slice, at[first[:-1]].tolist(),
                                             (at[first[1:]] - 2).tolist())))
    for hand in np.flatnonzero(counts == 1).tolist():  # repr((x,)) is "(x,)"
        found[hand] += ","
    for hand in np.flatnonzero(counts == 0).tolist():  # a negative slice is "" already
        found[hand] = ""
    return found


_CARD_CODES: Final = len(DECK) + 1
"""Codes per card slot: -1 (no card) and the 52 cards."""


def _card_combination(cards: npt.NDArray[np.int8]) -> Ints:
    """A number for each action's (up to three) card codes."""
    assert cards.shape[1] == MAX_ACTION_CARDS == 3
    codes = cards.astype(np.int64) + 1
    return (codes[:, 0] * _CARD_CODES + codes[:, 1]) * _CARD_CODES + codes[:, 2]


_CARD_REPRS: list[Texts] = []
_CARD_REPR_LENGTHS: list[Ints] = []
_CARD_REPRS_MADE: list[Bools] = []
"""By an action's cards (:func:`_card_combination`): ``repr()`` of their text (``None``
for no cards) and its length; made as the combinations first come (there are 53 ** 3)."""


def _card_tuple_texts(block: SevenEightBlock) -> list[str]:
    """The inside of each hand's cards tuple (:func:`_tuple_texts` of the actions' cards
    texts, ``'8h3c'`` or ``None``): each action's text looked up by its cards."""
    if not _CARD_REPRS:
        _CARD_REPRS.append(np.full(_CARD_CODES ** 3, "None", dtype=object))
        _CARD_REPR_LENGTHS.append(np.full(_CARD_CODES ** 3, len("None"), dtype=np.int64))
        _CARD_REPRS_MADE.append(np.zeros(_CARD_CODES ** 3, dtype=np.bool_))
        _CARD_REPRS_MADE[0][0] = True
    table, lengths, made = _CARD_REPRS[0], _CARD_REPR_LENGTHS[0], _CARD_REPRS_MADE[0]
    combinations = _card_combination(block.cards)
    fresh = np.flatnonzero(~made[combinations])
    if len(fresh):
        # The block has each action's cards in canonical notation already: the text of each
        # new combination is that of its first action (its repr: quotes around it).
        new, first = np.unique(combinations[fresh], return_index=True)
        texts = [*map(repr, map(block.card_texts.__getitem__, fresh[first].tolist()))]
        table[new] = texts
        lengths[new] = [*map(len, texts)]
        made[new] = True
    return _tuple_texts(table[combinations], block.action_offsets, lengths[combinations])


def _action_texts(block: SevenEightBlock) -> tuple[list[str], list[str]]:
    """Each hand's action tuple's text but for its cards' items: the text before them
    (the ``, `` after the header, actors, verbs, targets) and after them (amounts, pots,
    comments, and the key's end).

    Both depend only on the hand's actors, verbs, targets and amounts, packed in one
    integer per action: the bytes of the hand's run of them find the texts made for the
    same actions before (looked up in C); the others are made together
    (:func:`_new_action_texts`).
    """
    offsets = block.action_offsets
    packed = _packed_actions(block)
    if packed is None:  # a value too large to pack: every hand's texts made anew
        return _new_action_texts(block, np.arange(len(block), dtype=np.int64))
    keys = _hand_keys(packed, offsets)
    found: list[tuple[str, str] | None] = list(map(_ACTION_TEXTS.get, keys))
    if None in found:
        missing = [index for index, pair in enumerate(found) if pair is None]
        first = {keys[index]: index for index in reversed(missing)}  # of each new key
        new_heads, new_tails = _new_action_texts(
            block, np.array(list(first.values()), dtype=np.int64), packed)
        made = dict(zip(first, zip(new_heads, new_tails, strict=True), strict=True))
        _ACTION_TEXTS.put_many(made)
        for index in missing:
            found[index] = made[keys[index]]
    heads, tails = zip(*found, strict=True) if found else ((), ())
    return list(heads), list(tails)


def _hand_keys(packed: Ints, offsets: Ints, hands: Ints | None = None) -> list[bytes]:
    """The bytes of each hand's run of ``packed`` (of ``hands``, or of every hand)."""
    data = packed.tobytes()
    width = packed.itemsize
    starts, ends = (offsets[:-1], offsets[1:]) if hands is None else (
        offsets[hands], offsets[hands + 1])
    return list(map(data.__getitem__, map(slice, (starts * width).tolist(),
                                          (ends * width).tolist())))


_ACTION_TEXTS: Final = BoundedCache[bytes, tuple[str, str]](
    "analytics.warehouse.pipeline.block_rows.action_texts", _REMEMBERED_LIMIT)
"""The head and tail of :func:`_action_texts` by the bytes of a hand's packed actions."""
_MOVES: Final = BoundedCache[bytes, str]("analytics.warehouse.pipeline.block_rows.moves",
                                         _REMEMBERED_LIMIT)
"""The heads of :func:`_action_texts` by the bytes of a hand's actors, verbs and targets
(the packed actions without their amounts): a few hundred betting sequences, which hands
of new amounts share."""
_NONES: Final = BoundedCache[int, str]("analytics.warehouse.pipeline.block_rows.nones", 1_000)
"""The inside of a tuple of ``None`` by its length."""
_AMOUNT_LIMIT: Final = 1 << 46
_AMOUNT_SHIFT: Final = 18
_MOVE_MASK: Final = (1 << _AMOUNT_SHIFT) - 1


def _packed_actions(block: SevenEightBlock) -> Ints | None:
    """Each action's actor, verb, target and amount as one integer (6 bits each for the
    first three, the rest for the amount), None when a value does not fit."""
    actors, targets, amounts = block.actors, block.targets, block.amounts
    if len(actors) and (actors.max() >= 63 or actors.min() < 0 or targets.max() >= 62
                        or amounts.max() >= _AMOUNT_LIMIT):
        return None
    verbs = block.verbs.astype(np.int64)
    packed: Ints = (actors | (verbs << 6) | ((targets + 1) << 12)
                    | ((amounts + 1) << _AMOUNT_SHIFT))
    return packed


_VERB_REPRS: Final = np.array([repr(text) for text in _VERB_TEXT], dtype=object)


def _new_action_texts(block: SevenEightBlock, hands: Ints, packed: Ints | None = None
                      ) -> tuple[list[str], list[str]]:
    """:func:`_action_texts` of ``hands`` (indexes into the block), made from the columns:
    each column's tuple from its items' texts (:func:`_tuple_texts`).  With ``packed``
    (:func:`_packed_actions`), the heads of actors, verbs and targets seen before are looked
    up (:data:`_MOVES`) and only the others made."""
    rows, offsets = _action_rows(block, hands)
    amounts = _tuple_texts(_int_or_none_texts(block.amounts[rows]), offsets)
    count_list = np.diff(offsets).tolist()
    nothing = list(map(_NONES.get, count_list))  # the block holds no pots, no comments
    if None in nothing:
        for index, count in enumerate(count_list):
            if nothing[index] is None:
                nothing[index] = _NONES.put(count, ", ".join(["None"] * count)
                                            + ("," if count == 1 else ""))
    tails = list(map("".join, zip(repeat("), ("), amounts, repeat("), ("), nothing,
                                  repeat("), ("), nothing, repeat("))]"))))
    if packed is None:
        return _new_heads(block, hands), tails
    keys = _hand_keys(packed & _MOVE_MASK, block.action_offsets, hands)
    return _remembered_at(keys, _MOVES, lambda firsts: _new_heads(block, hands[firsts])), tails


def _new_heads(block: SevenEightBlock, hands: Ints) -> list[str]:
    """The heads of :func:`_action_texts` of ``hands``, made from the columns."""
    rows, offsets = _action_rows(block, hands)
    actors, verbs, targets = (_tuple_texts(texts, offsets) for texts in (
        _int_texts(block.actors[rows]), _VERB_REPRS[block.verbs[rows]],
        _int_or_none_texts(block.targets[rows])))
    return list(map("".join, zip(repeat(", (("), actors, repeat("), ("), verbs,
                                 repeat("), ("), targets, repeat("), ("))))


def _action_rows(block: SevenEightBlock, hands: Ints) -> tuple[Ints, Ints]:
    """The action rows of ``hands``, in order, and the n + 1 offsets of each hand's run
    of them."""
    rows, _ = _rows_of(block.action_offsets, hands)
    counts = block.action_offsets[hands + 1] - block.action_offsets[hands]
    return rows, np.concatenate(([0], np.cumsum(counts)))


def _int_or_none_texts(values: Ints) -> Texts:
    """The texts of values, ``None`` for -1 (no value)."""
    texts = _int_texts(np.maximum(values, 0))
    texts[values < 0] = "None"
    return texts



# ---------------------------------------------------------------------------------------
# Which hands the block rows take


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
    ids are ``ids`` (:func:`block_ids`, one per hand of the block): exactly
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
    # The engine names the winner where it has one; otherwise a positive net wins.
    flags = np.where(winners >= 0, seat == winners, nets > 0)
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
