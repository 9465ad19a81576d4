"""A hand's identity: its game plus a stable 64-bit hash of its content.

Two hands are the same hand exactly when :class:`~parsers.model.HandHistory`
says they are equal: every field counts except where the hand was read from
(source, line, index, raw text, errors).  Formatting, TOML comments, key order,
``10d`` versus ``Td``, or the file a hand sits in do not change its identity;
any change of a played card, an amount or a header field does.

The hash is blake2b over a canonical encoding of those fields: the same
information as :func:`parsers.dumps_hand`, encoded several times faster, which
matters at thousands of hands a second, and sharing its per-action work with the
``actions`` rows (:func:`action_columns`).  Fields at their default value are left
out, so adding an optional field to the model later does not change the identity
of hands already loaded.  Changing the encoding itself needs a new
:data:`IDENTITY_VERSION` and a schema migration that re-keys the database.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import operator
import threading
from collections.abc import Callable
from dataclasses import dataclass
from hashlib import blake2b
from typing import Final

from parsers.caching import BoundedCache
from parsers.cards import DECK, UNKNOWN, Card
from parsers.fastinit import positional_constructor
from parsers.knobs import BigTwoRules, Game, RummoliRules, SevenEightRules
from parsers.model import Action, HandHistory, Verb

__all__ = [
    "IDENTITY_VERSION",
    "ActionColumns",
    "action_columns",
    "canonical_key",
    "cards_text",
    "hand_id",
    "hand_id_hex",
    "parse_hand_id",
]

IDENTITY_VERSION: Final = 1

_PERSON: Final = f"handlab-hand-{IDENTITY_VERSION}".encode()

# Cards are interned (53 objects), so id() is a fast key that is stable within a process.
_CARD_TEXT: Final = {id(card): str(card) for card in (*DECK, UNKNOWN)}
_card_text = _CARD_TEXT.__getitem__
_VERB_TEXT: Final = {verb: str(verb.value) for verb in Verb}

# Compared fields in declaration order, with their defaults; provenance fields have compare=False.
_FIELDS: Final = tuple(
    (spec.name, spec.default)
    for spec in dataclasses.fields(HandHistory)
    if spec.compare and spec.name != "actions"
)

_FIELD_VALUES: Final = operator.attrgetter(*(name for name, _ in _FIELDS))
"""Every compared field's value in one call (a tuple, in the order of ``_FIELDS``)."""


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
    """A hand's actions as columns: what the ``actions`` table stores and the hash reads."""

    actors: tuple[int, ...]
    verbs: tuple[str, ...]
    cards: tuple[str | None, ...]
    amounts: tuple[int | None, ...]
    targets: tuple[int | None, ...]
    pots: tuple[str | None, ...]
    comments: tuple[str | None, ...]
    lines: tuple[int, ...] | range


_NO_ACTIONS: Final = ActionColumns((), (), (), (), (), (), (), ())
_NEW_COLUMNS: Final[Callable[..., ActionColumns]] = positional_constructor(ActionColumns)
"""ActionColumns' fields in order, set through its slots (see parsers.fastinit)."""


def action_columns(actions: tuple[Action, ...]) -> ActionColumns:
    """Split actions into columns: the verbs and cards as text, the other fields as they
    are."""
    if not actions:
        return _NO_ACTIONS
    actors, verbs, groups, amounts, targets, pots, comments, lines = zip(*[
        (action.actor, action.verb, action.cards, action.amount, action.target, action.pot,
         action.comment, action.line) for action in actions], strict=True)
    try:  # all in C when every cards tuple was seen before (the usual case)
        names = tuple(map(_GROUP_TEXT.__getitem__, map(id, groups)))
    except KeyError:  # new deals (most hands have some): look up in C, then fill the gaps
        names = _texts_with_gaps(groups)
    return _NEW_COLUMNS(actors, tuple(map(_VERB_TEXT.__getitem__, verbs)), names, amounts,
                        targets, pots, comments, lines)


def _texts_with_gaps(groups: tuple[tuple[Card, ...], ...]) -> tuple[str | None, ...]:
    """The groups' texts when some are not remembered yet: a look-up that yields the group
    itself for a miss (all in C), then only the misses (tuples) are made and remembered."""
    found: map[str | tuple[Card, ...] | None] = map(_GROUP_TEXT.get, map(id, groups), groups)
    return tuple([_remember_group(text) if isinstance(text, tuple) else text for text in found])


def _value_key(value: object) -> str:
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, dt.time | dt.date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = []
        for spec in dataclasses.fields(value):
            item = getattr(value, spec.name)
            if item != spec.default:
                parts.append(f"{spec.name}:{_value_key(item)}")
        return f"{type(value).__name__}({','.join(parts)})"
    return repr(value)


_RULES_KEYS: Final = BoundedCache[object, str]("analytics.warehouse.identity.rules_keys", 10_000)


def _rules_key(rules: object) -> str:
    # Rule sets are frozen and shared by many hands: encode each distinct one once.
    key = _RULES_KEYS.get(rules)
    if key is None:
        key = _RULES_KEYS.put(rules, _value_key(rules))
    return key


def _remembered_key(value: object) -> str:
    """:func:`_value_key`, remembered by identity for enum members and times (every hand
    of a game repeats its ``game``, and the reader shares each time line's value).

    The value is held while its id is remembered, so the id is not reused meanwhile;
    only these immutable types are remembered.
    """
    found = _REMEMBERED_KEYS.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    key = _value_key(value)
    if isinstance(value, enum.Enum | dt.time | dt.date):
        _REMEMBERED_KEYS[id(value)] = (value, key)
    return key


_REMEMBERED_KEYS: Final = BoundedCache[int, tuple[object, str]](
    "analytics.warehouse.identity.remembered_keys", 10_000)

_PLAIN: Final = (int, str, tuple)  # repr() of these (and tuples of them) is canonical already

_NAMES: Final = tuple(name for name, _ in _FIELDS)
_DEFAULTS: Final = {name: default for name, default in _FIELDS
                    if default is not None and default is not dataclasses.MISSING}
"""Fields whose default is a value (``format_version``, ``user_fields``): left out at it."""


def _column_repr(column: tuple[object, ...]) -> str:
    """``repr(column)``, remembered: hands share many columns (seats, verbs, pots)."""
    text = _COLUMN_REPRS.get(column)
    if text is None:
        text = _COLUMN_REPRS.put(column, repr(column))
    return text


# Column values are ints, strings and None (the reader's types), whose equal values have
# equal repr(), so a column's text can be looked up by the column.
_COLUMN_REPRS: Final = BoundedCache[tuple[object, ...], str](
    "analytics.warehouse.identity.column_reprs", 20_000)


def canonical_key(hand: HandHistory, columns: ActionColumns | None = None) -> str:
    """The canonical text the identity hash is computed from (for debugging and tests).

    It is ``repr()`` of a list: the compared fields not at their default, as name and
    value (enums, times and rule sets as text), then the tuple of the action columns.
    The text is put together from pieces, most of them looked up (hands share most
    header values and many columns), byte for byte what one ``repr()`` of the list gives.
    """
    rare = _RARE_VALUES(hand)
    # count(None): a None is found by identity, so this costs next to nothing.
    header = _usual_header(hand) if rare.count(None) == len(rare) else None
    if header is None:
        values = _FIELD_VALUES(hand)
        header = _header_by_lookup(values)
        if header is None:
            header = _header_in_general(values)
    if columns is None:
        columns = action_columns(hand.actions)
    actions = _actions_text(columns)
    return f"[{header}, {actions}]" if header else f"[{actions}]"


_USER_FIELDS: Final = len(_NAMES) - 1
assert _NAMES[_USER_FIELDS] == "user_fields"  # the one field never looked up: the last
_HEAD_NAMES: Final = _NAMES[:_USER_FIELDS]

_LOOKUP_TYPES: Final = frozenset({type(None), int, str, tuple, Game, dt.time, RummoliRules,
                                  BigTwoRules, SevenEightRules})
"""Types whose values :func:`_header_by_lookup` finds pieces for by equality: values of
these types (and the reader's tuples of ints and strings) that are equal give the same
text.  A bool (equal to 1, but encoded ``'True'``) or a float is not among them."""

_PIECES_LIMIT: Final = 20_000


def _new_piece_table(name: str) -> BoundedCache[object, str]:
    """A field's pieces by value, with the values that are left out already in (after the
    table empties itself, they are made again as any other value)."""
    table = BoundedCache[object, str](f"analytics.warehouse.identity.field_pieces.{name}",
                                      _PIECES_LIMIT)
    table[None] = ""
    if name in _DEFAULTS:
        table[_DEFAULTS[name]] = ""
    return table


_PIECE_TABLES: Final = tuple(_new_piece_table(name) for name in _HEAD_NAMES)
"""For each field but ``user_fields``: ``'name', repr(value)`` by value ("" when left out)."""


def _header_by_lookup(values: tuple[object, ...]) -> str | None:
    """The fields' part of the text, each field's piece looked up by its value, all in C
    but for the values not seen before; None when a value is not of a type that can be
    looked up (then :func:`_header_in_general` makes the text)."""
    pieces = _looked_up(values[:_USER_FIELDS], _HEAD_NAMES, _PIECE_TABLES)
    if pieces is None:
        return None
    return _joined(pieces, values[_USER_FIELDS])


def _looked_up(head: tuple[object, ...], names: tuple[str, ...],
               tables: tuple[dict[object, str], ...]) -> list[str | None] | None:
    """The pieces of ``head``'s values (its fields are ``names``, their pieces by value in
    ``tables``), the new ones made and remembered; None when a value is not of a type that
    can be looked up."""
    if not _LOOKUP_TYPES.issuperset(map(type, head)):
        return None
    try:
        pieces = list(map(dict.get, tables, head))
    except TypeError:  # an unhashable value (a list inside a tuple)
        return None
    if None in pieces:
        _add_pieces(pieces, head, names, tables)
    return pieces


def _joined(pieces: list[str | None], user: object) -> str | None:
    """The header's text: its pieces and then ``user_fields``' (None if they are not a
    tuple)."""
    if user:
        if type(user) is not tuple:
            return None
        pieces.append(f"'user_fields', {user!r}")  # unique per hand, and may hold booleans
    return ", ".join(filter(None, pieces))


def _add_pieces(pieces: list[str | None], head: tuple[object, ...], names: tuple[str, ...],
                tables: tuple[dict[object, str], ...]) -> None:
    """Make the pieces of the values not seen before (found by ``list.index``, in C: most
    fields hit), and remember them (``head``'s fields are ``names``, their pieces by value
    in ``tables``)."""
    index = -1
    for _ in range(pieces.count(None)):  # one scan for the count, not one per miss
        index = pieces.index(None, index + 1)
        name, value = names[index], head[index]
        piece = pieces[index] = _piece(name, value)
        # An aware time equals another one with another offset and another text.
        if type(value) is not dt.time or value.tzinfo is None:
            tables[index][value] = piece


_RARE: Final = ("currency", "event", "author", "venue", "url", "city", "region", "country",
                 "time_zone")
"""Header fields hardly any hand gives: when none of them is given (checked with one
``count``), :func:`_usual_header` leaves them out instead of looking each one up."""
_RARE_VALUES: Final = operator.attrgetter(*_RARE)
_USUAL_NAMES: Final = tuple(name for name in _HEAD_NAMES if name not in _RARE and name != "rules")
_USUAL_VALUES: Final = operator.attrgetter(*_USUAL_NAMES)
_USUAL_TABLES: Final = tuple(table for name, table in zip(_HEAD_NAMES, _PIECE_TABLES, strict=True)
                             if name in _USUAL_NAMES)
_RULES_AT: Final = _HEAD_NAMES.index("rules")
assert _USUAL_NAMES[:_RULES_AT] == _HEAD_NAMES[:_RULES_AT]  # the rules' piece goes there


def _usual_header(hand: HandHistory) -> str | None:
    """:func:`_header_by_lookup` for a hand without any of the :data:`_RARE` fields (their
    pieces are empty), the rule set's piece found by identity (a rule set's own hash is a
    Python call); None when a value is not of a type that can be looked up."""
    pieces = _looked_up(_USUAL_VALUES(hand), _USUAL_NAMES, _USUAL_TABLES)
    if pieces is None:
        return None
    rules = _rules_piece(hand.rules)
    if rules is None:
        return None
    pieces.insert(_RULES_AT, rules)
    return _joined(pieces, hand.user_fields)


def _rules_piece(rules: object) -> str | None:
    """The ``rules`` field's piece, remembered by the rule set's identity (the reader shares
    one frozen rule set per set of knobs); None for a value that is not a rule set."""
    found = _RULES_PIECES.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    if type(rules) not in _LOOKUP_TYPES:
        return None
    piece = _piece("rules", rules)
    _RULES_PIECES[id(rules)] = (rules, piece)  # held: its id is not reused meanwhile
    return piece


_RULES_PIECES: Final = BoundedCache[int, tuple[object, str]](
    "analytics.warehouse.identity.rules_pieces", 10_000)


def _piece(name: str, value: object) -> str:
    """``'name', repr(value)`` as the key's list shows it, "" for a value left out."""
    if value is None or (name in _DEFAULTS and value == _DEFAULTS[name]):
        return ""
    if type(value) not in _PLAIN:
        value = _rules_key(value) if name == "rules" else _remembered_key(value)
    return f"{name!r}, {value!r}"


def _header_in_general(values: tuple[object, ...]) -> str:
    """The fields' part of the text for any values (:func:`_header_by_lookup` for the
    reader's usual ones)."""
    parts: list[str] = []
    append = parts.append
    for name, value in zip(_NAMES, values, strict=True):
        if value is None:
            continue
        if isinstance(value, _PLAIN) and type(value) in _PLAIN and name != "user_fields":
            append(_field_piece(name, value))
        elif name in _DEFAULTS and value == _DEFAULTS[name]:
            continue
        else:
            if type(value) not in _PLAIN:
                value = _rules_key(value) if name == "rules" else _remembered_key(value)
            append(f"{name!r}, {value!r}")
    return ", ".join(filter(None, parts))


def _actions_text(columns: ActionColumns) -> str:
    """``repr()`` of the tuple of the action columns the key holds."""
    reprs = list(map(_COLUMN_REPRS.get, (columns.actors, columns.verbs, columns.targets,
                                         columns.pots, columns.comments)))
    if None in reprs:
        reprs = [_column_repr(column) for column in (columns.actors, columns.verbs,
                                                     columns.targets, columns.pots,
                                                     columns.comments)]
    actors, verbs, targets, pots, comments = reprs
    return (f"({actors}, {verbs}, {targets}, {columns.cards!r}, "
            f"{_amounts_repr(columns.amounts)}, {pots}, {comments})")


def _amounts_repr(amounts: tuple[int | None, ...]) -> str:
    """``repr(amounts)``; a column of Nones (Big Two has no amounts) looked up by length."""
    if amounts.count(None) != len(amounts):
        return repr(amounts)
    text = _NONE_REPRS.get(len(amounts))
    if text is None:
        text = _NONE_REPRS.put(len(amounts), repr(amounts))
    return text


_NONE_REPRS: Final = BoundedCache[int, str]("analytics.warehouse.identity.none_reprs", 1_000)


def _field_piece(name: str, value: int | str | tuple[object, ...]) -> str:
    """``'name', repr(value)`` (empty at the field's default), remembered by (name, value).

    Only for the reader's ints, strings and tuples of them, whose equal values have
    equal repr() (``user_fields`` may hold booleans, equal to 1 and 0: never looked up).
    """
    key = (name, value)
    try:
        piece = _PIECES.get(key)
    except TypeError:  # an unhashable value (a list inside a tuple): not remembered
        return "" if name in _DEFAULTS and value == _DEFAULTS[name] else f"{name!r}, {value!r}"
    if piece is None:
        piece = "" if name in _DEFAULTS and value == _DEFAULTS[name] else f"{name!r}, {value!r}"
        _PIECES[key] = piece
    return piece


_PIECES: Final = BoundedCache[tuple[str, object], str]("analytics.warehouse.identity.pieces",
                                                       50_000)


def hand_id(hand: HandHistory, columns: ActionColumns | None = None) -> int:
    """The hand's id: a signed 64-bit integer (DuckDB ``BIGINT``), stable across runs.

    ``columns`` (from :func:`action_columns`) saves recomputing them when the
    caller has them.  The game and variant are part of the key, so the same
    actions under another variant are another hand.  64 bits make an accidental
    collision unlikely (about 3 in 100 million at a million hands).
    """
    key = canonical_key(hand, columns).encode("utf-8", "surrogatepass")
    digest = blake2b(key, digest_size=8, person=_PERSON).digest()
    return int.from_bytes(digest, "big", signed=True)


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
