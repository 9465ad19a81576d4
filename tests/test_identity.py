"""The hand id is exactly the one IDENTITY_VERSION 2 defines, for both packers, for good.

:func:`reference_key` spells the definition out the slow, obvious way, from the module's
docstring (a field number and a typed value per field given, the actions as columns);
:func:`~analytics.warehouse.identity.hand_key` must give the same bytes on the sample
histories, on simulated hands of every game and on hands built with unusual values (the 7 &
8 block's packer, :func:`~analytics.warehouse.identity.block_keys`, is checked against
``hand_key`` in tests/test_warehouse_block_rows.py).  The ids of the sample files are
pinned (:data:`PINNED`): an id, once given, never changes.  And the identity rules:
formatting, comments, key order, ``10d`` versus ``Td`` and the file do not change an id;
a card, an amount or a header field does.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import hashlib
import struct
from pathlib import Path

import pytest
from hypothesis import given, strategies

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse.identity import (
    FIELD_NUMBERS,
    VERB_CODES,
    action_columns,
    hand_id,
    hand_id_hex,
    hand_key,
)
from parsers import dumps_hands, loads_hands
from parsers.caching import clear_caches
from parsers.cards import Card, Rank, Suit
from parsers.model import FORMAT_VERSION, Action, HandHistory, Verb

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.phhs")) + sorted(
    (ROOT / "tests" / "data" / "warehouse_rows").glob("*.phhs"))


def _u32(count: int) -> bytes:
    return count.to_bytes(4, "little")


def _i64(value: int) -> bytes:
    return value.to_bytes(8, "little", signed=True)


def _text(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return _u32(len(data)) + data


def reference_value(value: object) -> bytes:
    """A value as the definition packs it: a type letter, then the value."""
    if isinstance(value, bool):
        return b"b" + bytes([value])
    if isinstance(value, enum.Enum):
        return b"e" + reference_value(value.value)
    if isinstance(value, int):
        if -(1 << 63) <= value < 1 << 63:
            return b"i" + _i64(value)
        data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
        return b"j" + _u32(len(data)) + data
    if isinstance(value, float):
        return b"f" + struct.pack("<d", value)
    if isinstance(value, str):
        return b"s" + _text(value)
    if isinstance(value, dt.datetime):
        return b"W" + _text(value.isoformat())
    if isinstance(value, dt.date):
        return b"D" + _text(value.isoformat())
    if isinstance(value, dt.time):
        return b"T" + _text(value.isoformat())
    if type(value) is tuple and all(type(item) in (int, bool) for item in value) and all(
            -(1 << 63) <= item < 1 << 63 for item in value):
        return b"n" + _u32(len(value)) + b"".join(_i64(item) for item in value)
    if type(value) is tuple and value and all(type(item) is str for item in value):
        encoded = [item.encode("utf-8", "surrogatepass") for item in value]
        return (b"u" + _u32(len(value)) + b"".join(_u32(len(item)) for item in encoded)
                + b"".join(encoded))
    if isinstance(value, tuple | list):
        return b"t" + _u32(len(value)) + b"".join(reference_value(item) for item in value)
    if isinstance(value, dict):
        pairs = sorted((reference_value(k), reference_value(v)) for k, v in value.items())
        return b"m" + _u32(len(pairs)) + b"".join(k + v for k, v in pairs)
    assert dataclasses.is_dataclass(value) and not isinstance(value, type)
    knobs = [reference_value(spec.name) + reference_value(getattr(value, spec.name))
             for spec in dataclasses.fields(value) if getattr(value, spec.name) != spec.default]
    return b"r" + _text(type(value).__name__) + _u32(len(knobs)) + b"".join(knobs)


def reference_actions(actions: tuple[Action, ...]) -> bytes:
    """The actions' ``a`` value: their count, then each column some action gives."""
    count = len(actions)
    out = b"a" + _u32(count)
    if not count:
        return out
    out += b"\x01" + b"".join(_i64(action.actor) for action in actions)
    out += b"\x02" + bytes(VERB_CODES[action.verb] for action in actions)
    if any(action.cards for action in actions):
        out += b"\x03" + b"".join(_u32(len(action.cards)) for action in actions)
        out += "".join(str(card) for action in actions for card in action.cards).encode()
    for number, name in ((4, "amount"), (5, "target")):
        values = [getattr(action, name) for action in actions]
        if any(value is not None for value in values):
            out += bytes([number]) + bytes(value is not None for value in values)
            out += b"".join(_i64(value) for value in values if value is not None)
    for number, name in ((6, "pot"), (7, "comment")):
        texts = [getattr(action, name) for action in actions]
        if any(text is not None for text in texts):
            out += bytes([number]) + bytes(text is not None for text in texts)
            out += b"".join(_text(text) for text in texts if text is not None)
    return out


def reference_key(hand: HandHistory) -> bytes:
    """The key by its definition: each compared field given (not None, not at a default
    value), in the order of its number: the number, then the value."""
    parts = []
    for name, number in sorted(FIELD_NUMBERS.items(), key=lambda item: item[1]):
        value = getattr(hand, name)
        if name == "actions":
            parts.append(bytes([number]) + reference_actions(value))
        elif value is None or (name == "format_version" and value == FORMAT_VERSION) or (
                name == "user_fields" and value == ()):
            continue
        else:
            parts.append(bytes([number]) + reference_value(value))
    return b"".join(parts)


def reference_id(hand: HandHistory) -> int:
    digest = hashlib.blake2b(reference_key(hand), digest_size=8,
                             person=b"handlab-hand-2").digest()
    return int.from_bytes(digest, "big", signed=True)


@functools.cache
def _simulated() -> list[HandHistory]:
    hands = [*simulate_seveneight(120, 4, 3), *simulate_seveneight(40, 6, 4),
             *simulate_bigtwo(30, 4, 5), *simulate_rummoli(30, 4, 6)]
    return loads_hands(dumps_hands(hands))  # as the reader gives them (shared tuples)


@pytest.mark.slow
@pytest.mark.parametrize("source", SAMPLES, ids=lambda path: path.name)
def test_the_key_of_every_sample_hand_is_the_reference_key(source: Path) -> None:
    hands = [hand for hand in loads_hands(source.read_text(encoding="utf-8")) if hand.ok]
    assert hands
    for _ in range(2):  # cold, then warm rule sets
        for hand in hands:
            assert hand_key(hand) == reference_key(hand)
            assert hand_key(hand, action_columns(hand.actions)) == reference_key(hand)
            assert hand_id(hand) == reference_id(hand)


def test_the_key_of_simulated_hands_is_the_reference_key() -> None:
    for hand in _simulated():
        assert hand_key(hand, action_columns(hand.actions)) == reference_key(hand)
        assert hand_id(hand) == reference_id(hand)


def _base() -> HandHistory:
    return _simulated()[0]


@pytest.mark.parametrize("change", [
    {"min_bet": True},  # equal to 1, but its own text
    {"min_bet": 1},
    {"min_bet": 2.0},
    {"format_version": 2},
    {"format_version": True},
    {"starting_stacks": [200, 200, 200, 200]},  # a list: not hashable, general path
    {"user_fields": (("flag", True),)},
    {"user_fields": (("flag", 1),)},
    {"user_fields": (("list", [1, 2]),)},
    {"user_fields": ()},
    {"user_fields": None},
    {"time": dt.time(10, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))},
    {"time": dt.time(9, 0, tzinfo=dt.UTC)},
    {"time": dt.time(9, 0)},
    {"table": "Den's \"back\" room"},
    {"hand": "A-17"},
    {"variant": "N78", "game": None},
    {"rules": None},
    {"currency": "USD"},  # the rarely given fields: the general look-up, not the usual one
    {"event": "Cup", "time_zone": "UTC", "country": "CA"},
    {"author": ""},
    {"starting_stacks": None, "user_fields": (("_copy", 3),)},
])
def test_unusual_values_give_the_reference_key(change: dict[str, object]) -> None:
    hand = dataclasses.replace(_base(), **change)  # type: ignore[arg-type]
    for _ in range(2):
        assert hand_key(hand) == reference_key(hand)


def test_a_rule_set_equal_to_the_shared_one_gives_the_same_key() -> None:
    base = _base()
    assert base.rules is not None
    twin = dataclasses.replace(base, rules=dataclasses.replace(base.rules))  # not the same object
    assert twin.rules is not base.rules
    assert hand_key(twin) == hand_key(base) == reference_key(twin)


def test_actions_built_by_hand_give_the_reference_key() -> None:
    base = _base()
    odd = Card(Rank.ACE, Suit.SPADES)  # a card built directly, not the interned one
    actions = (
        Action(0, Verb.DEAL_HOLE, (odd,), target=1),
        Action(1, Verb.BET_RAISE, (), amount=4, pot="main", comment="it's \"big\""),
        Action(2, Verb.CHECK_CALL),
    )
    for hand in (dataclasses.replace(base, actions=actions),
                 dataclasses.replace(base, actions=actions[:1]),
                 dataclasses.replace(base, actions=())):
        assert hand_key(hand) == reference_key(hand)
        columns = action_columns(hand.actions)
        assert hand_key(hand, columns) == reference_key(hand)


def test_the_key_is_unchanged_after_the_memos_are_cleared() -> None:
    hands = _simulated()[:40]
    before = [hand_key(hand) for hand in hands]
    clear_caches()  # the texts of card groups and the rule sets' values among them
    assert [hand_key(hand) for hand in hands] == before
    assert before == [reference_key(hand) for hand in hands]

PINNED: dict[str, tuple[int, list[str], str]] = {
    "bigtwo-club.phhs": (400, ['640d04d8edc64818', '8012be5723968689'],
        "f12b885698832fcd9909273eb292f00d"),
    "bigtwo-house-rules.phhs": (150, ['3dfe60f7c7d04b71', '522a865c854779d4'],
        "250b87da8ca30a11904b691c65c711e2"),
    "rummoli-family.phhs": (240, ['a4c19e1f20d6ce2b', 'f2c3920ebac3a668'],
        "43cd049b816136aa5ff44546c89dd091"),
    "rummoli-manual-claims.phhs": (120, ['77fe14cb45dc8034', 'f9823b3a378bf2fb'],
        "33d0a70574882b92e8c2fb68defbcdb0"),
    "seveneight-fl-headsup.phhs": (300, ['16a2076eb15ecf58', 'e29eab512c049879'],
        "e7fdae1c15b6d5e29cbf4e562698457d"),
    "seveneight-nl-6max.phhs": (1200, ['e57d42ab2b1b8506', '4f3f34290d844ed8'],
        "399e9c94e07100eb9dd9a607d6274227"),
    "seveneight-pl-4max.phhs": (500, ['e46bf27dcfd2a0e9', 'aa0aed225c3c2da3'],
        "be689d6748cd58be640d25f1e1a51b53"),
}
"""The ids of each sample file's hands as IDENTITY_VERSION 2 gave them first: how many, the
first two (hex), and the sha256 of all of them (hex, in file order, joined by spaces).  They
never change: a change of the packing is a new version and a migration."""


@pytest.mark.parametrize("source", sorted((ROOT / "data" / "samples").glob("*.phhs")),
                         ids=lambda path: path.name)
def test_the_ids_of_the_samples_are_those_pinned(source: Path) -> None:
    hands = [hand for hand in loads_hands(source.read_text(encoding="utf-8")) if hand.ok]
    ids = [hand_id_hex(hand_id(hand)) for hand in hands]
    count, first, digest = PINNED[source.name]
    assert (len(ids), ids[:2]) == (count, first)
    assert hashlib.sha256(" ".join(ids).encode()).hexdigest()[:32] == digest


_TEXT = """variant = 'N78'
antes = [1, 1]
blinds_or_straddles = [0, 0]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 AsTd', 'd dh p2 7c7h', 'p1 up As', 'p2 up 7c', 'p1 cbr 4', 'p2 f']
players = ['Ann', 'Bo']
"""


def test_formatting_comments_key_order_and_ten_spelling_do_not_change_the_id() -> None:
    first = loads_hands(_TEXT)[0]
    assert first.ok, first.errors
    base = hand_id(first)
    same = """# a comment
players   =   [ 'Ann' , 'Bo' ]   # names
variant = "N78"
starting_stacks = [100, 100]
min_bet = 2
blinds_or_straddles = [0, 0]
antes = [1, 1]
actions = [
  'd dh p1 As10d', 'd dh p2 7c7h',
  'p1 up As', 'p2 up 7c', 'p1 cbr 4', 'p2 f',
]
"""
    hand = loads_hands(same, name="another-file.phhs")[0]
    assert hand.ok, hand.errors
    assert hand_id(hand) == base


@pytest.mark.parametrize("changed", [
    ("'d dh p1 AsTd'", "'d dh p1 AsJd'"),  # a card
    ("'p1 cbr 4'", "'p1 cbr 6'"),  # an amount
    ("min_bet = 2", "min_bet = 4"),  # a header field
    ("['Ann', 'Bo']", "['Ann', 'Cy']"),  # a name
    ("variant = 'N78'", "variant = 'P78'"),  # the variant
])
def test_a_card_an_amount_or_a_header_field_changes_the_id(changed: tuple[str, str]) -> None:
    old, new = changed
    assert old in _TEXT
    hands = loads_hands(_TEXT.replace(old, new))
    assert hands[0].ok, hands[0].errors
    assert hand_id(hands[0]) != hand_id(loads_hands(_TEXT)[0])


def test_a_field_at_its_default_is_left_out() -> None:
    hand = loads_hands(_TEXT)[0]
    assert dataclasses.replace(hand, user_fields=()) == hand
    assert hand_key(dataclasses.replace(hand, format_version=FORMAT_VERSION)) == hand_key(hand)
    assert bytes([FIELD_NUMBERS["currency"]]) + b"s" not in hand_key(hand)
    with_currency = dataclasses.replace(hand, currency="EUR")
    assert hand_key(with_currency) == reference_key(with_currency) != hand_key(hand)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_7_and_8_antes_and_blinds_left_out_are_rules_defaults(players: int) -> None:
    """RULES.md 3's defaults (antes 0, blinds 1 and 2: heads-up ``p1`` posts the big) for a
    7 & 8 hand that leaves ``antes`` and ``blinds_or_straddles`` out (it was rejected as
    missing them): the same hand, and id, as the one stating them; written, it states
    them."""
    hand = next(iter(simulate_seveneight(1, players, 11, starting_stack=200)))
    assert hand.antes == (0,) * players
    stated = dumps_hands([hand])
    left_out = "\n".join(line for line in stated.splitlines()
                         if not line.startswith(("antes =", "blinds_or_straddles =")))
    assert left_out != stated
    [read] = loads_hands(left_out)
    assert read.ok, read.errors
    assert read.blinds_or_straddles == hand.blinds_or_straddles
    assert read == hand and hand_id(read) == hand_id(hand)
    assert "blinds_or_straddles = " in dumps_hands([read])


@given(strategies.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1))
def test_parse_hand_id_reads_the_hex_shown_and_the_stored_decimal(value: int) -> None:
    from analytics.warehouse.identity import parse_hand_id

    assert parse_hand_id(hand_id_hex(value)) == value
    assert parse_hand_id(f" #{hand_id_hex(value).upper()} ") == value
    if len(str(value)) != 16:  # sixteen digits without a sign read as the hex shown
        assert parse_hand_id(str(value)) == value


def test_sixteen_digits_read_as_the_hex_shown() -> None:
    from analytics.warehouse.identity import parse_hand_id

    assert parse_hand_id("1000000000000000") == 1 << 60
    assert parse_hand_id("-1000000000000000") == -(10**15)


def test_parse_hand_id_refuses_what_is_no_id() -> None:
    from analytics.warehouse.identity import parse_hand_id

    for text in ["", "#", "xyz", "9" * 20, "-" + "9" * 19, "0x1f"]:
        assert parse_hand_id(text) is None, text
