"""The identity text is exactly the one IDENTITY_VERSION 1 defines, however it is put together.

:func:`reference_key` spells the definition out the slow, obvious way (``repr()`` of one
list, see :func:`analytics.warehouse.identity.canonical_key`); the fast function, with
its per-field and per-column look-ups, must give the same text byte for byte on the
sample histories, on simulated hands of every game (read twice, so the second pass runs
on warm look-ups), and on hands built with unusual values.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
from hashlib import blake2b
from pathlib import Path

import pytest
from hypothesis import given, strategies

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse.identity import action_columns, canonical_key, hand_id
from parsers import dumps_hands, loads_hands
from parsers.caching import clear_caches
from parsers.cards import Card, Rank, Suit
from parsers.model import Action, HandHistory, Verb

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.phhs")) + sorted(
    (ROOT / "tests" / "data" / "warehouse_rows").glob("*.phhs"))


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


def reference_key(hand: HandHistory) -> str:
    """The identity text by its definition: ``repr()`` of [name, value, ..., action columns]."""
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


@functools.cache
def _simulated() -> list[HandHistory]:
    hands = [*simulate_seveneight(120, 4, 3), *simulate_seveneight(40, 6, 4),
             *simulate_bigtwo(30, 4, 5), *simulate_rummoli(30, 4, 6)]
    return loads_hands(dumps_hands(hands))  # as the reader gives them (shared tuples)


@pytest.mark.parametrize("source", SAMPLES, ids=lambda path: path.name)
def test_the_text_of_every_sample_hand_is_the_reference_text(source: Path) -> None:
    hands = [hand for hand in loads_hands(source.read_text(encoding="utf-8")) if hand.ok]
    assert hands
    for _ in range(2):  # cold, then warm look-ups
        for hand in hands:
            assert canonical_key(hand) == reference_key(hand)
            assert canonical_key(hand, action_columns(hand.actions)) == reference_key(hand)


def test_the_text_of_simulated_hands_is_the_reference_text() -> None:
    hands = _simulated()
    for _ in range(2):
        for hand in hands:
            expected = reference_key(hand)
            assert canonical_key(hand, action_columns(hand.actions)) == expected
            digest = blake2b(expected.encode("utf-8", "surrogatepass"), digest_size=8,
                             person=b"handlab-hand-1").digest()
            assert hand_id(hand) == int.from_bytes(digest, "big", signed=True)


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
def test_unusual_values_give_the_reference_text(change: dict[str, object]) -> None:
    hand = dataclasses.replace(_base(), **change)  # type: ignore[arg-type]
    for _ in range(2):
        assert canonical_key(hand) == reference_key(hand)


def test_a_rule_set_equal_to_the_shared_one_gives_the_same_text() -> None:
    base = _base()
    assert base.rules is not None
    twin = dataclasses.replace(base, rules=dataclasses.replace(base.rules))  # not the same object
    assert twin.rules is not base.rules
    assert canonical_key(twin) == canonical_key(base) == reference_key(twin)


def test_actions_built_by_hand_give_the_reference_text() -> None:
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
        assert canonical_key(hand) == reference_key(hand)
        columns = action_columns(hand.actions)
        assert canonical_key(hand, columns) == reference_key(hand)


def test_the_text_is_unchanged_after_the_memos_are_cleared() -> None:
    hands = _simulated()[:40]
    before = [canonical_key(hand) for hand in hands]
    clear_caches()  # the ids' pieces, texts of card groups and rule sets among them
    assert [canonical_key(hand) for hand in hands] == before
    assert before == [reference_key(hand) for hand in hands]


@given(strategies.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1))
def test_parse_hand_id_reads_the_hex_shown_and_the_stored_decimal(value: int) -> None:
    from analytics.warehouse.identity import hand_id_hex, parse_hand_id

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
