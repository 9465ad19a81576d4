"""The hand id of IDENTITY_VERSION 1 (before issue #31), kept for the tests of the
migration that re-keys a database (migration 13) and nowhere else.

Version 1 hashed ``repr()`` of a list: the compared fields of the hand not at their
default, as name and value (enums, times and rule sets as text), then the tuple of the
action columns; blake2b, 8 bytes, personalised ``handlab-hand-1``.  This is its
definition spelled out the slow, obvious way (it was tests/test_identity_text.py's
reference, which the fast version matched byte for byte).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from hashlib import blake2b

from parsers.model import HandHistory

__all__ = ["hand_id_v1", "key_v1"]


def _value_text(value: object) -> str:
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, dt.time | dt.date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [f"{spec.name}:{_value_text(getattr(value, spec.name))}"
                 for spec in dataclasses.fields(value)
                 if getattr(value, spec.name) != spec.default]
        return f"{type(value).__name__}({','.join(parts)})"
    return repr(value)


def key_v1(hand: HandHistory) -> str:
    """Version 1's text: ``repr()`` of [name, value, ..., action columns]."""
    items: list[object] = []
    for spec in dataclasses.fields(HandHistory):
        if not spec.compare or spec.name == "actions":
            continue
        value = getattr(hand, spec.name)
        if value is None:
            continue
        default = spec.default
        if default is not None and default is not dataclasses.MISSING and value == default:
            continue
        if type(value) not in (int, str, tuple):
            value = _value_text(value)
        items += [spec.name, value]
    actions = hand.actions
    items.append((
        tuple(action.actor for action in actions),
        tuple(str(action.verb.value) for action in actions),
        tuple(action.target for action in actions),
        tuple("".join(str(card) for card in action.cards) or None for action in actions),
        tuple(action.amount for action in actions),
        tuple(action.pot for action in actions),
        tuple(action.comment for action in actions),
    ))
    return repr(items)


def hand_id_v1(hand: HandHistory) -> int:
    """Version 1's id of the hand."""
    key = key_v1(hand).encode("utf-8", "surrogatepass")
    digest = blake2b(key, digest_size=8, person=b"handlab-hand-1").digest()
    return int.from_bytes(digest, "big", signed=True)
