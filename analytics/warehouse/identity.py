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
from dataclasses import dataclass
from hashlib import blake2b
from typing import Final

from parsers.cards import DECK, UNKNOWN, Card
from parsers.model import Action, HandHistory, Verb

__all__ = [
    "IDENTITY_VERSION",
    "ActionColumns",
    "action_columns",
    "canonical_key",
    "cards_text",
    "hand_id",
    "hand_id_hex",
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

_ACTION_FIELDS: Final = operator.attrgetter(
    "actor", "verb", "cards", "amount", "target", "pot", "comment", "line"
)


def cards_text(cards: tuple[Card, ...]) -> str:
    """Cards in canonical notation (``AsKd``), fast for the interned cards."""
    # The reader shares one tuple among all actions of the same text: remember its text by
    # identity, holding the tuple so that its id cannot be reused while remembered.
    known = _CARDS_TEXT.get(id(cards))
    if known is not None and known[0] is cards:
        return known[1]
    try:
        text = "".join(map(_card_text, map(id, cards)))
    except KeyError:  # a Card built directly rather than interned: slower, same text
        return "".join(str(card) for card in cards)
    if len(_CARDS_TEXT) >= 50_000:
        _CARDS_TEXT.clear()
    _CARDS_TEXT[id(cards)] = (cards, text)
    return text


_CARDS_TEXT: dict[int, tuple[tuple[Card, ...], str]] = {}


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
    lines: tuple[int, ...]


def action_columns(actions: tuple[Action, ...]) -> ActionColumns:
    """Split actions into columns in one pass of C-level attribute access."""
    if not actions:
        return ActionColumns((), (), (), (), (), (), (), ())
    actors, verbs, cards, amounts, targets, pots, comments, lines = zip(
        *map(_ACTION_FIELDS, actions), strict=True
    )
    return ActionColumns(
        actors=actors,
        verbs=tuple(map(_VERB_TEXT.__getitem__, verbs)),
        cards=tuple(cards_text(group) if group else None for group in cards),
        amounts=amounts,
        targets=targets,
        pots=pots,
        comments=comments,
        lines=lines,
    )


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


_RULES_KEYS: dict[object, str] = {}


def _rules_key(rules: object) -> str:
    # Rule sets are frozen and shared by many hands: encode each distinct one once.
    key = _RULES_KEYS.get(rules)
    if key is None:
        key = _value_key(rules)
        if len(_RULES_KEYS) < 10_000:
            _RULES_KEYS[rules] = key
    return key


_PLAIN: Final = (int, str, tuple)  # repr() of these (and tuples of them) is canonical already


def canonical_key(hand: HandHistory, columns: ActionColumns | None = None) -> str:
    """The canonical text the identity hash is computed from (for debugging and tests)."""
    items: list[object] = []
    append = items.append
    for (name, default), value in zip(_FIELDS, _FIELD_VALUES(hand), strict=True):
        if value is None or value == default:
            continue
        if type(value) not in _PLAIN:
            value = _rules_key(value) if name == "rules" else _value_key(value)
        append(name)
        append(value)
    if columns is None:
        columns = action_columns(hand.actions)
    append((columns.actors, columns.verbs, columns.targets, columns.cards, columns.amounts,
            columns.pots, columns.comments))
    # One repr() of a list of ints, strings, None and tuples of them: stable, unambiguous, and
    # done in C.
    return repr(items)


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
