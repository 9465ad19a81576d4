"""Writing hands back in the format: ``read(write(h)) == h`` for every game.

The output is canonical: fields in :data:`~parsers.fields.FIELD_ORDER`, knobs
only where they differ from the default, one action per line, cards without
separators.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import os
from collections.abc import Iterable
from dataclasses import fields as dataclass_fields
from typing import IO

from parsers.cards import format_cards
from parsers.fields import FIELD_ORDER
from parsers.model import Action, HandHistory, Verb, actor_name

__all__ = ["dumps_hand", "dumps_hands", "format_action", "toml_value", "write_hands"]


def format_action(action: Action) -> str:
    """One action in notation: ``d dh p1 AsKd``, ``p2 cbr 6``, ``p1 pl 3d # opens``."""
    if action.verb is Verb.NOOP:
        words: list[str] = []
    else:
        words = [actor_name(action.actor), action.verb.value]
        if action.target is not None:
            words.append(actor_name(action.target))
        if action.cards:
            words.append(format_cards(action.cards))
        if action.amount is not None:
            words.append(str(action.amount))
        if action.pot is not None:
            words.append(action.pot)
    if action.comment is not None:
        words.append(f"# {action.comment}" if action.comment else "#")
    return " ".join(words)


def _string(text: str) -> str:
    out = ['"']
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def toml_value(value: object) -> str:
    """A TOML literal for a field value (strings, numbers, booleans, times, arrays, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(f"cannot write a value of type {type(value).__name__} in TOML")


def _key(key: str) -> str:
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return _string(key)


def _header_values(hand: HandHistory) -> dict[str, object]:
    values: dict[str, object] = {}
    rules = hand.rules
    if rules is not None:
        default = type(rules)()
        for spec in dataclass_fields(rules):
            value = getattr(rules, spec.name)
            if value != getattr(default, spec.name):
                values[spec.name] = value.value if hasattr(value, "value") else value
    for name in FIELD_ORDER:
        if name in values or name == "actions":
            continue
        value = getattr(hand, name, None)
        if value is not None:
            values[name] = value
    return values


def dumps_hand(hand: HandHistory) -> str:
    """The hand as the text of a ``.phh`` file."""
    values = _header_values(hand)
    lines: list[str] = []
    for name in FIELD_ORDER:
        if name == "actions" and not hand.actions:
            lines.append("actions = []")
        elif name == "actions":
            lines.append("actions = [")
            lines.extend(f"  {_string(format_action(a))}," for a in hand.actions)
            lines.append("]")
        elif name in values:
            lines.append(f"{name} = {toml_value(values[name])}")
    for key, value in hand.user_fields:
        lines.append(f"{_key(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def dumps_hands(hands: Iterable[HandHistory]) -> str:
    """Hands as the text of a ``.phhs`` file: ``[1]``, ``[2]``, ... tables."""
    buffer = io.StringIO()
    write_hands(hands, buffer, single=False)
    return buffer.getvalue()


def write_hands(
    hands: Iterable[HandHistory], target: str | os.PathLike[str] | IO[str], *,
    single: bool | None = None,
) -> int:
    """Write hands to a path or a text stream; return how many were written.

    A path ending in ``.phh`` (or ``single=True``) gets exactly one hand as top-level
    keys; otherwise hands are written as ``[N]`` tables, streamed one at a time.
    """
    if isinstance(target, str | os.PathLike):
        path = os.fspath(target)
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            return write_hands(hands, stream, single=path.endswith(".phh") if single is None
                               else single)
    if single:
        items = list(hands)
        if len(items) != 1:
            raise ValueError(f"a .phh file holds exactly one hand, not {len(items)}")
        target.write(dumps_hand(items[0]))
        return 1
    count = 0
    for count, hand in enumerate(hands, start=1):
        target.write(("\n" if count > 1 else "") + f"[{count}]\n" + dumps_hand(hand))
    return count
