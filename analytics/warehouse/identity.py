"""A hand's identity: a stable 64-bit hash of its typed content (IDENTITY_VERSION 2).

Two hands are the same hand exactly when :class:`~parsers.model.HandHistory` says they
are equal: every field counts except where the hand was read from (source, line, index,
raw text, errors).  Formatting, TOML comments, key order, ``10d`` versus ``Td``, or the
file a hand sits in do not change its identity; any change of a played card, an amount
or a header field does.

The id is blake2b (8-byte digest, personalised ``handlab-hand-2``) of the hand's **key**:
a compact binary packing of its typed values, the one definition both ingest paths use
(:func:`hand_key` for a hand, :func:`block_keys` for the columns of a 7 & 8 block, which
packs the same bytes with numpy).  The key is each field given, in the order of its
number (:data:`FIELD_NUMBERS`): the number (one byte), then the value, typed:

* ``i`` + int64, ``j`` + length + bytes (an int beyond 64 bits), ``b`` + byte (a bool),
  ``f`` + float64, ``s`` + length + UTF-8, ``n`` + count + int64s (a tuple of ints),
  ``u`` + count + lengths + UTF-8 (a tuple of texts), ``t`` + count + values (another
  tuple or list), ``m`` + count + sorted key, value pairs,
  ``e`` + value (an enum member), ``T``/``D``/``W`` + ISO text (time, date, date-time),
  ``r`` + class name + count + name, value of each knob not at its default (a rule set);
  lengths and counts are uint32, every number little-endian;
* ``a``: the actions, as columns: their count, then each column some action gives
  (``actor`` int64s, ``verb`` codes (:data:`VERB_CODES`), ``cards`` uint32 counts and
  each card's two letters, rank and suit (``As``, ``??``), ``amount`` and ``target`` a
  given-flag byte each and the int64s given, ``pot`` and ``comment`` flags and the texts
  given), each after its number (1-7).

Fields at their default (None, ``format_version`` 1, no user fields) and action columns
no action gives are left out, so adding an optional field or column later does not change
the ids of hands already loaded.  The numbers and codes never change; a new field or verb
gets the next one.  Changing the packing itself needs a new :data:`IDENTITY_VERSION` and
a migration that re-keys the database (docs/warehouse.md, "Hand identity").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import struct
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from hashlib import blake2b
from itertools import chain, compress, repeat
from operator import attrgetter, is_not
from typing import Final, TypeVar, cast

import numpy as np
import numpy.typing as npt

from parsers.block import BLOCK_VERBS, MAX_ACTION_CARDS, SevenEightBlock
from parsers.caching import BoundedCache
from parsers.cards import DECK, UNKNOWN, Card
from parsers.model import FORMAT_VERSION, Action, HandHistory, Verb
from parsers.rule_options import BigTwoRules, Game, RummoliRules, SevenEightRules

__all__ = [
    "FIELD_NUMBERS",
    "IDENTITY_VERSION",
    "VERB_CODES",
    "ActionColumns",
    "action_columns",
    "block_ids",
    "block_keys",
    "cards_text",
    "hand_id",
    "hand_id_hex",
    "hand_key",
    "ids_of_keys",
    "parse_hand_id",
]

Ints = npt.NDArray[np.int64]

IDENTITY_VERSION: Final = 2

_PERSON: Final = f"handlab-hand-{IDENTITY_VERSION}".encode()

FIELD_NUMBERS: Final[dict[str, int]] = {
    "game": 1, "variant": 2, "rules": 3, "actions": 4, "format_version": 5,
    "starting_stacks": 6, "antes": 7, "blinds_or_straddles": 8, "min_bet": 9,
    "small_bet": 10, "big_bet": 11, "finishing_stacks": 12, "winnings": 13, "currency": 14,
    "players": 15, "seats": 16, "seat_count": 17, "hand": 18, "table": 19, "event": 20,
    "author": 21, "venue": 22, "url": 23, "city": 24, "region": 25, "country": 26,
    "time": 27, "time_zone": 28, "day": 29, "month": 30, "year": 31, "dealer": 32,
    "game_id": 33, "round": 34, "board_before": 35, "finale_pot": 36, "cards_left": 37,
    "takes_all_losses": 38, "as_recorded": 39, "user_fields": 40,
}
"""Each compared field of :class:`HandHistory` and its number in the key: fixed for good
(a new field gets the next number)."""

VERB_CODES: Final[dict[Verb, int]] = {
    Verb.DEAL_HOLE: 1, Verb.BET_RAISE: 2, Verb.CHECK_CALL: 3, Verb.FOLD: 4,
    Verb.SHOW_MUCK: 5, Verb.NOOP: 6, Verb.TURN_UP: 7, Verb.DEAL_WIDOW: 8, Verb.EXCHANGE: 9,
    Verb.PASS_WIDOW: 10, Verb.BID: 11, Verb.BID_PASS: 12, Verb.AUCTION_WIN: 13,
    Verb.CLAIM: 14, Verb.IMPASSE: 15, Verb.PLAY: 16, Verb.PASS: 17,
}
"""Each verb's code in the key's ``verb`` column: fixed for good."""

_COMPARED: Final = tuple(spec.name for spec in dataclasses.fields(HandHistory) if spec.compare)
assert set(_COMPARED) == set(FIELD_NUMBERS), "every compared field needs its number"
assert set(VERB_CODES) == set(Verb), "every verb needs its code"
assert len(set(FIELD_NUMBERS.values())) == len(FIELD_NUMBERS) < 256

_HEADER_NAMES: Final = tuple(sorted((name for name in FIELD_NUMBERS if name != "actions"),
                                    key=FIELD_NUMBERS.__getitem__))
"""The header fields in the order of their numbers (``actions`` goes by its own)."""
_ACTIONS_AFTER: Final = sum(FIELD_NUMBERS[name] < FIELD_NUMBERS["actions"]
                            for name in _HEADER_NAMES)
"""How many header fields come before the actions in the key."""
_HEADER_VALUES: Final = attrgetter(*_HEADER_NAMES)
_HEADER_PREFIXES: Final = tuple(bytes([FIELD_NUMBERS[name]]) for name in _HEADER_NAMES)
_AT_DEFAULT: Final = {_HEADER_NAMES.index("format_version"): FORMAT_VERSION,
                      _HEADER_NAMES.index("user_fields"): ()}
"""Fields whose default is a value, by position: left out at it, like the None ones."""

_U32: Final = struct.Struct("<I")
_INT: Final = struct.Struct("<cq")
_FLOAT: Final = struct.Struct("<cd")


# ---------------------------------------------------------------------------------------
# Values


def _int_value(value: int) -> bytes:
    try:
        return _INT.pack(b"i", value)
    except struct.error:  # beyond 64 bits: its two's complement bytes
        data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
        return b"j" + _U32.pack(len(data)) + data


def _text_value(value: str, kind: bytes = b"s") -> bytes:
    data = value.encode("utf-8", "surrogatepass")
    return kind + _U32.pack(len(data)) + data


def _tuple_value(value: tuple[object, ...] | list[object]) -> bytes:
    """``n`` for a tuple of ints (the stacks, seats...), ``u`` for one of texts (the
    players), else ``t`` and each item."""
    count = len(value)
    if type(value) is tuple:
        first = type(value[0]) if count else int
        if first is int:
            try:
                return struct.pack(f"<cI{count}q", b"n", count, *value)
            except (struct.error, TypeError):  # not all ints, or one beyond 64 bits
                pass
        elif first is str and set(map(type, value)) == _STR_ONLY:
            texts = cast("tuple[str, ...]", value)
            data = list(map(str.encode, texts, repeat("utf-8"), repeat("surrogatepass")))
            return struct.pack(f"<cI{count}I", b"u", count, *map(len, data)) + b"".join(data)
    return b"t" + _U32.pack(count) + b"".join(map(value_bytes, value))


_STR_ONLY: Final = {str}


def _mapping_value(value: dict[object, object]) -> bytes:
    pairs = sorted((value_bytes(key), value_bytes(item)) for key, item in value.items())
    return b"m" + _U32.pack(len(pairs)) + b"".join(chain.from_iterable(pairs))


def _rules_value(rules: object) -> bytes:
    """A rule set's value: its class and its knobs not at their default, remembered by
    the rule set's identity (the reader shares one frozen rule set per set of knobs)."""
    found = _RULES_BY_ID.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    packed = _RULES_BY_VALUE.get(rules)
    if packed is None:
        assert dataclasses.is_dataclass(rules) and not isinstance(rules, type)
        given = [value_bytes(spec.name) + value_bytes(getattr(rules, spec.name))
                 for spec in dataclasses.fields(rules)
                 if getattr(rules, spec.name) != spec.default]
        packed = _RULES_BY_VALUE.put(rules, b"r" + _text_value(type(rules).__name__)[1:]
                                     + _U32.pack(len(given)) + b"".join(given))
    _RULES_BY_ID[id(rules)] = (rules, packed)  # held: its id is not reused meanwhile
    return packed


_RULES_BY_ID: Final = BoundedCache[int, tuple[object, bytes]](
    "analytics.warehouse.identity.rules_by_id", 10_000)
_RULES_BY_VALUE: Final = BoundedCache[object, bytes](
    "analytics.warehouse.identity.rules_by_value", 10_000)


def _other_value(value: object) -> bytes:
    """The value of a type :data:`_VALUE_OF` has no entry for (subclasses, rare types)."""
    if isinstance(value, bool):
        return b"b\x01" if value else b"b\x00"
    if isinstance(value, enum.Enum):
        return b"e" + value_bytes(value.value)
    if isinstance(value, int):
        return _int_value(int(value))
    if isinstance(value, float):
        return _FLOAT.pack(b"f", value)
    if isinstance(value, str):
        return _text_value(str(value))
    if isinstance(value, dt.datetime):
        return _text_value(value.isoformat(), b"W")
    if isinstance(value, dt.date):
        return _text_value(value.isoformat(), b"D")
    if isinstance(value, dt.time):
        return _text_value(value.isoformat(), b"T")
    if isinstance(value, tuple | list):
        return _tuple_value(value)
    if isinstance(value, dict):
        return _mapping_value(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _rules_value(value)
    raise TypeError(f"a hand's field holds a {type(value).__name__}, which has no identity")


_GAME_VALUES: Final = {game: b"e" + _text_value(str(game.value)) for game in Game}

_VALUE_OF: Final[dict[type, Callable[..., bytes]]] = {
    RummoliRules: _rules_value, BigTwoRules: _rules_value, SevenEightRules: _rules_value,
    int: _int_value, str: _text_value, tuple: _tuple_value, list: _tuple_value,
    dict: _mapping_value, Game: _GAME_VALUES.__getitem__,
    float: partial(_FLOAT.pack, b"f"),
    bool: {True: b"b\x01", False: b"b\x00"}.__getitem__,
    dt.time: lambda value: _text_value(value.isoformat(), b"T"),
    dt.date: lambda value: _text_value(value.isoformat(), b"D"),
    dt.datetime: lambda value: _text_value(value.isoformat(), b"W"),
}


def value_bytes(value: object) -> bytes:
    """One value of a hand as the key packs it (type byte, then the value)."""
    return _VALUE_OF.get(type(value), _other_value)(value)


# ---------------------------------------------------------------------------------------
# Actions


_CARD_TEXT: Final = {id(card): str(card) for card in (*DECK, UNKNOWN)}
_card_text = _CARD_TEXT.__getitem__
_VERB_TEXT: Final = {verb: str(verb.value) for verb in Verb}


def cards_text(cards: tuple[Card, ...]) -> str:
    """Cards in canonical notation (``AsKd``), fast for the interned cards."""
    try:
        return "".join(map(_card_text, map(id, cards)))
    except KeyError:  # a Card built directly rather than interned: slower, same text
        return "".join(str(card) for card in cards)


def _remember_group(cards: tuple[Card, ...]) -> str | None:
    """An action's cards as text (None for none), remembered by the tuple's identity.

    The reader shares one tuple among all actions of the same text, so look-ups mostly
    hit.  The tuple is held while its id is remembered: the id cannot be reused by
    another object meanwhile.
    """
    text = cards_text(cards) if cards else None
    with _GROUPS_LOCK:  # the cache and the tuples it names change together
        if len(_GROUPS_HELD) >= _GROUP_TEXT.limit:
            _GROUP_TEXT.clear()
            _GROUPS_HELD.clear()
        _GROUPS_HELD.append(cards)
        _GROUP_TEXT[id(cards)] = text
    return text


_GROUP_TEXT: Final = BoundedCache[int, str | None]("analytics.warehouse.identity.group_text",
                                                  50_000)
"""Text of a cards tuple by id(); every id here is that of a tuple in ``_GROUPS_HELD``
(which holds at least as many as the cache, so the cache never empties itself first)."""
_GROUPS_HELD: list[tuple[Card, ...]] = []
_GROUPS_LOCK: Final = threading.Lock()


@dataclass(frozen=True, slots=True)
class ActionColumns:
    """A hand's actions as columns: what the ``actions`` table stores (verbs and cards as
    text) and the key packs (the cards themselves, ``groups``)."""

    actors: tuple[int, ...]
    verbs: tuple[str, ...]
    cards: tuple[str | None, ...]
    amounts: tuple[int | None, ...]
    targets: tuple[int | None, ...]
    pots: tuple[str | None, ...]
    comments: tuple[str | None, ...]
    groups: tuple[tuple[Card, ...], ...]


_NO_ACTIONS: Final = ActionColumns((), (), (), (), (), (), (), ())


def action_columns(actions: tuple[Action, ...]) -> ActionColumns:
    """Split actions into columns: the verbs and cards as text, the other fields as they
    are."""
    if not actions:
        return _NO_ACTIONS
    actors, verbs, groups, amounts, targets, pots, comments = zip(*[
        (action.actor, action.verb, action.cards, action.amount, action.target, action.pot,
         action.comment) for action in actions], strict=True)
    try:  # all in C when every cards tuple was seen before (the usual case)
        names = tuple(map(_GROUP_TEXT.__getitem__, map(id, groups)))
    except KeyError:  # new deals (most hands have some): look up in C, then fill the gaps
        names = _texts_with_gaps(groups)
    return ActionColumns(actors, tuple(map(_VERB_TEXT.__getitem__, verbs)), names, amounts,
                         targets, pots, comments, groups)


def _texts_with_gaps(groups: tuple[tuple[Card, ...], ...]) -> tuple[str | None, ...]:
    """The groups' texts when some are not remembered yet: a look-up that yields the group
    itself for a miss (all in C), then only the misses (tuples) are made and remembered."""
    found: map[str | tuple[Card, ...] | None] = map(_GROUP_TEXT.get, map(id, groups), groups)
    return tuple([_remember_group(text) if isinstance(text, tuple) else text for text in found])


_VERB_CODE_OF_TEXT: Final = {str(verb.value): code for verb, code in VERB_CODES.items()}
_ACTOR, _VERB, _CARDS, _AMOUNT, _TARGET, _POT, _COMMENT = (bytes([n]) for n in range(1, 8))


def _given_ints(values: tuple[int | None, ...]) -> bytes:
    """An optional int column: a flag byte each, then the int64s given; b"" when none is."""
    flags = bytes(map(is_not, values, repeat(None)))
    given = flags.count(1)
    if not given:
        return b""
    return flags + struct.pack(f"<{given}q", *compress(values, flags))


def _given_texts(values: tuple[str | None, ...]) -> bytes:
    """An optional text column: a flag byte each, then each text given."""
    flags = bytes(map(is_not, values, repeat(None)))
    return flags + b"".join(_text_value(value)[1:] for value in values if value is not None)


def _actions_value(columns: ActionColumns) -> bytes:
    """The ``a`` value of a hand's actions (the module's docstring)."""
    count = len(columns.actors)
    if not count:
        return b"a\x00\x00\x00\x00"
    parts = [b"a", _U32.pack(count), _ACTOR, struct.pack(f"<{count}q", *columns.actors),
             _VERB, bytes(map(_VERB_CODE_OF_TEXT.__getitem__, columns.verbs))]
    cards = "".join(filter(None, columns.cards))
    if cards:
        parts += (_CARDS, struct.pack(f"<{count}I", *map(len, columns.groups)),
                  cards.encode("ascii"))
    amounts = _given_ints(columns.amounts)
    if amounts:
        parts += (_AMOUNT, amounts)
    targets = _given_ints(columns.targets)
    if targets:
        parts += (_TARGET, targets)
    if columns.pots.count(None) != count:
        parts += (_POT, _given_texts(columns.pots))
    if columns.comments.count(None) != count:
        parts += (_COMMENT, _given_texts(columns.comments))
    return b"".join(parts)


# ---------------------------------------------------------------------------------------
# A hand's key and id


_ACTIONS_PREFIX: Final = bytes([FIELD_NUMBERS["actions"]])
_POSITIONS: Final = range(len(_HEADER_NAMES))
_NONES: Final = (None,) * len(_HEADER_NAMES)


def hand_key(hand: HandHistory, columns: ActionColumns | None = None) -> bytes:
    """The bytes the hand's id hashes (the module's docstring); ``columns``: the hand's
    :func:`action_columns`, when the caller has them."""
    values = _HEADER_VALUES(hand)
    parts: list[bytes] = []
    append = parts.append
    for position in compress(_POSITIONS, map(is_not, values, _NONES)):
        value = values[position]
        if position in _AT_DEFAULT and value == _AT_DEFAULT[position]:
            continue
        append(_HEADER_PREFIXES[position])
        append(_VALUE_OF.get(type(value), _other_value)(value))
    if columns is None:
        columns = action_columns(hand.actions)
    # After the fields numbered before the actions (two parts each; none of them has a
    # default other than None).
    at = 2 * sum(map(is_not, values[:_ACTIONS_AFTER], _NONES))
    parts[at:at] = (_ACTIONS_PREFIX, _actions_value(columns))
    return b"".join(parts)


def ids_of_keys(keys: list[bytes]) -> Ints:
    """The ids of keys: blake2b of each (8 bytes), read as big-endian signed 64-bit
    integers (DuckDB ``BIGINT``); all in C."""
    if not keys:
        return np.zeros(0, dtype=np.int64)
    digests = map(_DIGEST, map(_HASHER, keys))
    return np.frombuffer(b"".join(digests), dtype=">i8").astype(np.int64)


_HASHER: Final = partial(blake2b, digest_size=8, person=_PERSON)
_DIGEST: Final = blake2b.digest


def hand_id(hand: HandHistory, columns: ActionColumns | None = None) -> int:
    """The hand's id: a signed 64-bit integer (DuckDB ``BIGINT``), stable across runs.

    ``columns`` (from :func:`action_columns`) saves recomputing them when the caller has
    them.  The game and variant are part of the key, so the same actions under another
    variant are another hand.  64 bits make an accidental collision unlikely (about 3 in
    100 million at a million hands).
    """
    digest = blake2b(hand_key(hand, columns), digest_size=8, person=_PERSON).digest()
    return int.from_bytes(digest, "big", signed=True)


# ---------------------------------------------------------------------------------------
# The keys of a 7 & 8 block


Bools = npt.NDArray[np.bool_]

_BLOCK_VERB_CODES: Final = np.array([VERB_CODES[verb] for verb in BLOCK_VERBS], dtype=np.uint8)
_BLOCK_RULES: Final = SevenEightRules()
"""A block hand's rule set: its variant's defaults (no knob lines)."""
_CARD_LETTERS: Final = np.array([str(card).encode("ascii") for card in DECK], dtype="S2")
"""The two letters of each card, by its code (the block's card codes)."""
_FIXED_INT: Final = np.dtype([("number", "u1"), ("kind", "S1"), ("value", "<i8")])
_COUNTED: Final = np.dtype([("number", "u1"), ("kind", "S1"), ("count", "<u4")])


def block_keys(block: SevenEightBlock) -> list[bytes]:
    """Each hand's :func:`hand_key`, packed from the block's columns: the numbers with
    numpy over the whole block and cut into each hand's pieces, the other values packed
    once per distinct value (hands of a table share them), then one join per hand (the
    fields a block hand never gives are left out, as in :func:`hand_key`)."""
    if not len(block):
        return []
    seats = block.seat_offsets
    pieces = [
        _per_value(block.variants, _variant_head),
        *_actions_pieces(block),
        *_int_tuples("starting_stacks", block.starting_stacks, seats),
        *_int_tuples("antes", block.antes, seats),
        *_int_tuples("blinds_or_straddles", block.blinds, seats),
        _fixed_ints("min_bet", block.min_bets), _fixed_ints("small_bet", block.small_bets),
        _fixed_ints("big_bet", block.big_bets),
        *_int_tuples("finishing_stacks", block.finishing_stacks, seats),
        *_int_tuples("winnings", block.winnings, seats),
        _per_value(block.players, partial(_field_piece, "players")),
        _per_value(block.seats, partial(_field_piece, "seats")),
        _int_fields({"seat_count": block.seat_counts, "hand": block.hand_numbers}),
        _per_value(block.tables, partial(_field_piece, "table"),
                   list(map(type, block.tables))),
        *_time_pieces(block.times),
        _int_fields({"day": block.days, "month": block.months, "year": block.years}),
        [_field_piece("user_fields", fields) if fields else b""
         for fields in block.user_fields],
    ]
    return list(map(b"".join, zip(*pieces, strict=True)))


def block_ids(block: SevenEightBlock) -> Ints:
    """Each hand's :func:`hand_id`, from the block's columns (:func:`block_keys`)."""
    return ids_of_keys(block_keys(block))


def _field_piece(name: str, value: object) -> bytes:
    """A field's number and value, as :func:`hand_key` packs them."""
    return bytes([FIELD_NUMBERS[name]]) + value_bytes(value)


def _variant_head(variant: str) -> bytes:
    """The key's start for a block hand of ``variant``: its game, variant and rule set."""
    return (_field_piece("game", Game.SEVENEIGHT) + _field_piece("variant", variant)
            + _field_piece("rules", _BLOCK_RULES))


V = TypeVar("V")


def _per_value(values: Sequence[V], make: Callable[[V], bytes],
               kinds: Sequence[object] | None = None) -> list[bytes]:
    """``make(value)`` of each value, made once per distinct value (and kind: equal values
    of different types or texts, ``1`` and ``True``, are told apart by ``kinds``)."""
    keys: Sequence[object] = values if kinds is None else list(zip(values, kinds, strict=True))
    made = dict(zip(dict.fromkeys(keys), map(make, _firsts(keys, values)), strict=True))
    return list(map(made.__getitem__, keys))


def _firsts(keys: Sequence[object], values: Sequence[V]) -> list[V]:
    """The value of each distinct key's first hand, in the order of first appearance."""
    first = dict(zip(reversed(keys), reversed(values), strict=True))  # the first wins
    return [first[key] for key in dict.fromkeys(keys)]


def _cut(data: bytes, starts: Ints, ends: Ints) -> list[bytes]:
    """``data[start:end]`` of each pair, all in C."""
    return list(map(data.__getitem__, map(slice, starts.tolist(), ends.tolist())))


def _where(given: Bools, piece: bytes) -> list[bytes]:
    """``piece`` where given, else b""."""
    return list(map((b"", piece).__getitem__, given.tolist()))


def _fixed_ints(name: str, values: Ints) -> list[bytes]:
    """Each hand's ``i`` field (left out where the block has no value, -1)."""
    records = np.zeros(len(values), dtype=_FIXED_INT)
    records["number"] = FIELD_NUMBERS[name]
    records["kind"] = b"i"
    records["value"] = values
    width = _FIXED_INT.itemsize
    starts = np.arange(len(values), dtype=np.int64) * width
    return _cut(records.tobytes(), starts, np.where(values >= 0, starts + width, starts))


def _int_fields(columns: dict[str, Ints]) -> list[bytes]:
    """Each hand's ``i`` fields of ``columns`` (every hand gives them; their numbers
    follow each other), as one piece."""
    names = list(columns)
    assert [FIELD_NUMBERS[name] for name in names] == list(range(
        FIELD_NUMBERS[names[0]], FIELD_NUMBERS[names[0]] + len(names)))
    kind = np.dtype([(f"{part}{index}", code) for index in range(len(names))
                     for part, code in (("number", "u1"), ("kind", "S1"), ("value", "<i8"))])
    count = len(columns[names[0]])
    records = np.zeros(count, dtype=kind)
    for index, name in enumerate(names):
        records[f"number{index}"] = FIELD_NUMBERS[name]
        records[f"kind{index}"] = b"i"
        records[f"value{index}"] = columns[name]
    starts = np.arange(count, dtype=np.int64) * kind.itemsize
    return _cut(records.tobytes(), starts, starts + kind.itemsize)


def _time_pieces(times: list[dt.time]) -> tuple[list[bytes], list[bytes]]:
    """Each hand's ``time`` field: its number, kind and length, then its ISO text (what
    :func:`value_bytes` packs; all in C)."""
    texts = list(map(str.encode, map(dt.time.isoformat, times)))
    heads = {length: bytes([FIELD_NUMBERS["time"]]) + b"T" + _U32.pack(length)
             for length in set(map(len, texts))}
    return list(map(heads.__getitem__, map(len, texts))), texts


def _int_tuples(name: str, values: Ints, offsets: Ints) -> tuple[list[bytes], list[bytes]]:
    """Each hand's ``n`` field of a per-seat column: its number, kind and count, then its
    int64s."""
    counts = np.diff(offsets)
    records = np.zeros(len(counts), dtype=_COUNTED)
    records["number"] = FIELD_NUMBERS[name]
    records["kind"] = b"n"
    records["count"] = counts
    width = _COUNTED.itemsize
    starts = np.arange(len(counts), dtype=np.int64) * width
    data = values.astype("<i8").tobytes()
    return (_cut(records.tobytes(), starts, starts + width),
            _cut(data, offsets[:-1] * 8, offsets[1:] * 8))


def _actions_pieces(block: SevenEightBlock) -> list[list[bytes]]:
    """Each hand's actions field (the ``a`` value: :func:`_actions_value`), in pieces."""
    offsets = block.action_offsets
    counts = np.diff(offsets)
    records = np.zeros(len(counts), dtype=_COUNTED)
    records["number"] = FIELD_NUMBERS["actions"]
    records["kind"] = b"a"
    records["count"] = counts
    width = _COUNTED.itemsize
    starts = np.arange(len(counts), dtype=np.int64) * width
    acting = counts > 0
    first, last = offsets[:-1], offsets[1:]
    pieces = [_cut(records.tobytes(), starts, starts + width),
              _where(acting, _ACTOR), _cut(block.actors.astype("<i8").tobytes(), first * 8,
                                           last * 8),
              _where(acting, _VERB), _cut(_BLOCK_VERB_CODES[block.verbs].tobytes(), first,
                                          last)]
    card_counts = block.card_counts.astype(np.int64)
    dealt = np.concatenate(([0], np.cumsum(card_counts)))  # cards before each action
    with_cards = dealt[last] > dealt[first]
    held = np.arange(MAX_ACTION_CARDS)[None, :] < card_counts[:, None]
    letters = _CARD_LETTERS[block.cards[held]].tobytes()  # each action's cards in order
    pieces += [_where(with_cards, _CARDS),
               _cut(card_counts.astype("<u4").tobytes(), first * 4,
                    np.where(with_cards, last, first) * 4),
               _cut(letters, dealt[first] * 2,
                    np.where(with_cards, dealt[last], dealt[first]) * 2)]
    for prefix, values in ((_AMOUNT, block.amounts), (_TARGET, block.targets)):
        given = values >= 0
        before = np.concatenate(([0], np.cumsum(given)))  # values given before each action
        some = before[last] > before[first]
        pieces += [_where(some, prefix),
                   _cut(given.astype(np.uint8).tobytes(), first, np.where(some, last, first)),
                   _cut(values[given].astype("<i8").tobytes(), before[first] * 8,
                        before[last] * 8)]
    return pieces


def hand_id_hex(value: int) -> str:
    """The id as 16 hex digits, the form shown to people."""
    return f"{value & 0xFFFF_FFFF_FFFF_FFFF:016x}"


def parse_hand_id(text: str) -> int | None:
    """The id a person typed or pasted: 16 hex digits (:func:`hand_id_hex`, an optional
    ``#`` before them), or the signed decimal the database stores; None for anything else.

    Links made before ids were shown in hex carry the decimal form, so both are accepted;
    sixteen digits with no sign read as hex, the form shown (one stored id in a thousand
    has sixteen decimal digits, and its old link then names another hand or none).
    """
    cleaned = text.strip().lstrip("#").strip().lower()
    if len(cleaned) == 16 and all(c in "0123456789abcdef" for c in cleaned):
        value = int(cleaned, 16)
        return value - (1 << 64) if value >= 1 << 63 else value
    if cleaned.lstrip("-").isdigit() and len(cleaned) <= 20:
        value = int(cleaned)
        return value if -(1 << 63) <= value < 1 << 63 else None
    return None
