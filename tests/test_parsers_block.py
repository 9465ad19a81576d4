"""The 7 & 8 block scanner (parsers/block_scan.py) takes exactly what the per-hand path reads.

:func:`parsers.block_scan.scan_seveneight` reads many chunks at once into a
:class:`~parsers.block.SevenEightBlock` and declines the others.  Its contract, checked
here over every history file of the repository, simulated hands of the three 7 & 8
variants and 2 to 17 players, systematic line and value edits and hypothesis-driven
mutations:

* a chunk it takes holds exactly the values :func:`tests.block_reference.block_from_hands` makes
  of the per-hand path's reading (:func:`parsers.reader.hand_from_chunk`), types
  included: whole blocks are compared field by field (:func:`assert_blocks_equal`);
* it declines every chunk that path reads with a problem, as another game, or as a hand
  a block cannot hold;
* it never raises, whatever the text.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import io
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.simulate.seveneight import simulate_seveneight
from parsers import dumps_hand, dumps_hands
from parsers.block import SevenEightBlock
from parsers.block_scan import scan_seveneight
from parsers.build import MAX_CHIPS
from parsers.errors import ParseError
from parsers.model import HandHistory
from parsers.reader import Chunk, hand_from_chunk, iter_chunks
from tests.block_reference import block_from_hands
from tests.canonical import (
    MUTATIONS,
    as_file,
    line_edits,
    mutated_canonical,
    repository_files,
    simulated,
    simulated_game,
)
from tests.mutate import Mutation, apply

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "<test>"


def typed(value: object) -> object:
    """``value`` with the type of every part spelled out: equal means identical (``1`` and
    ``True`` are equal in Python, a list and a tuple are not here)."""
    if isinstance(value, tuple | list):
        return type(value).__name__, tuple(typed(item) for item in value)
    if isinstance(value, np.ndarray):
        return "ndarray", value.dtype.str, value.shape, value.tolist()
    return type(value).__name__, value


def assert_blocks_equal(a: SevenEightBlock, b: SevenEightBlock) -> None:
    """Every field of the two blocks is the same: arrays in dtype, shape and values, lists
    element by element with their types."""
    assert a.source == b.source
    for name in SevenEightBlock.__slots__:
        left, right = getattr(a, name), getattr(b, name)
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            assert isinstance(left, np.ndarray) and isinstance(right, np.ndarray), name
            assert left.dtype == right.dtype, (name, left.dtype, right.dtype)
            assert left.shape == right.shape, (name, left.shape, right.shape)
            assert np.array_equal(left, right), name
        else:
            assert typed(left) == typed(right), name


Reading = tuple[int, HandHistory]


def blockable(chunk: Chunk, position: int) -> Reading | None:
    """The per-hand path's reading of ``chunk`` if a block can hold it, else None."""
    hand = hand_from_chunk(chunk, SOURCE)
    if hand.errors:
        return None
    try:
        block_from_hands(SOURCE, [(position, hand)])
    except ValueError:
        return None
    return position, hand


def check_chunks(chunks: list[Chunk]) -> tuple[int, int]:
    """Scan ``chunks`` and check the contract; how many chunks it took, and how many it
    could have taken (the per-hand path reads them as blockable hands)."""
    block, declined = scan_seveneight(chunks, SOURCE)
    taken = block.positions.tolist()
    assert declined == sorted(declined) and taken == sorted(taken)
    assert sorted(taken + declined) == list(range(len(chunks))), "every chunk, once"
    readings = {position: blockable(chunk, position) for position, chunk in enumerate(chunks)}
    wrongly_taken = [position for position in taken if readings[position] is None]
    assert not wrongly_taken, [chunks[p].lines for p in wrongly_taken[:3]]
    reference = block_from_hands(SOURCE, [readings[position] for position in taken])  # type: ignore[misc]
    assert_blocks_equal(block, reference)
    return len(taken), sum(reading is not None for reading in readings.values())


def check_data(data: bytes | str) -> tuple[int, int]:
    stream: io.BytesIO | io.StringIO = (io.BytesIO(data) if isinstance(data, bytes)
                                        else io.StringIO(data))
    return check_chunks(list(iter_chunks(stream, SOURCE)))


@functools.cache
def seveneight_texts() -> list[str]:
    """The simulated 7 & 8 hands (N78, P78, F78; 2, 4, 7 and 17 players), as written."""
    return [dumps_hand(hand) for hand in simulated_game("seveneight")]


# ---- the repository's files and simulated hands


@pytest.mark.slow
@pytest.mark.parametrize("path", list(repository_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_files(path: Path) -> None:
    taken, blockable_count = check_data(path.read_bytes())
    assert taken == blockable_count, "every hand the block could take is taken"
    if "seveneight" in path.name and path.suffix == ".phhs" and "samples" in path.parts:
        assert blockable_count > 0, "the writer's hands are blockable"


@pytest.mark.slow
def test_simulated_hands_of_every_variant_and_player_count_are_all_taken() -> None:
    hands = simulated()["seveneight"]
    assert {hand.variant for hand in hands} == {"N78", "P78", "F78"}
    assert {len(hand.players or ()) for hand in hands} == {2, 4, 7, 17}
    texts = seveneight_texts()
    taken, blockable_count = check_data(as_file(texts))
    assert taken == blockable_count == len(texts)
    # Again from filled caches, shifted by a line, and as .phh files (keys at the top).
    assert check_data("\n" + as_file(texts[:300])) == (300, 300)
    assert check_data(texts[0]) == (1, 1)


@pytest.mark.slow
def test_as_the_ingest_benchmark_writes_them() -> None:
    """A block of hands, each with its ``_copy`` user field after the simulator's
    ``_rebuys`` (benchmarks/bench_ingest.py), in the middle of other games' hands."""
    texts = seveneight_texts()
    others = [dumps_hand(hand) for hand in simulated()["bigtwo"][:20]]
    mixed = texts[:200] + others + texts[200:400]
    taken, blockable_count = check_data(as_file(mixed))
    assert taken == blockable_count == 400


def test_no_chunks_and_only_declined_ones() -> None:
    block, declined = scan_seveneight([], SOURCE)
    assert len(block) == 0 and declined == []
    assert_blocks_equal(block, block_from_hands(SOURCE, []))
    chunk = Chunk(1, 1, ['variant = "N78"'], None)
    block, declined = scan_seveneight([chunk], SOURCE)
    assert len(block) == 0 and declined == [0]
    assert_blocks_equal(block, block_from_hands(SOURCE, []))


def test_a_chunk_with_a_problem_is_declined() -> None:
    good = list(iter_chunks(io.StringIO(as_file(seveneight_texts()[:2])), SOURCE))
    good[1].problem = ParseError("line too long", source=SOURCE, line=1, hand_index=2)
    block, declined = scan_seveneight(good, SOURCE)
    assert declined == [1] and block.positions.tolist() == [0]


# ---- edits


def _edited(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def value_edits(text: str) -> Iterator[str]:
    """``text`` (a canonical 7 & 8 hand) with one value or line changed in the ways a block
    scanner may misread: numbers out of range or in other spellings, strings with escapes,
    keys missing, added or moved, wrong lengths, odd dates, times and cards, comments,
    carriage returns, trailing spaces."""
    lines = text.split("\n")
    numbers = ("0", "-1", "-0", "+5", "1_000", "007", "00", "1.0", "1e3", "5.", "inf", "nan",
               str(MAX_CHIPS), str(MAX_CHIPS + 1), str(2**31 - 1), str(2**31), str(2**63),
               "9" * 25, "true", '"5"', "0x10", "1 # c", "٣", "1\t", "[]", "[1]")
    for row, line in enumerate(lines):
        key, equals, value = line.partition(" = ")
        if not equals:
            continue
        for number in numbers:
            if value.startswith("["):
                items = value[1:-1].split(", ")
                for at in {0, len(items) - 1}:
                    changed = items[:at] + [number] + items[at + 1:]
                    yield "\n".join(lines[:row] + [f"{key} = [{', '.join(changed)}]"]
                                    + lines[row + 1:])
            else:
                yield "\n".join(lines[:row] + [f"{key} = {number}"] + lines[row + 1:])
        for odd in ('"a\\"b"', '"a\\\\b"', '"\\u0041"', '"é☃"', '"a b"', "'lit'", '""',
                    '"x" # c', '"\x7f"', '"\u2028"', '["a", "b"]', '["a"]', "[1, 2]",
                    "[1,2]", "[ 1, 2 ]", "[1, 2,]", "[\n1]", "{a = 1}", "1979-05-27",
                    "25:00:00", "19:05:60", "19:05", "19:05:00.5", "7:05:00", '"19:05:00"'):
            yield "\n".join(lines[:row] + [f"{key} = {odd}"] + lines[row + 1:])
        yield "\n".join(lines[:row] + lines[row + 1:])  # missing
        yield "\n".join(lines[:row] + [line, line] + lines[row + 1:])  # twice
        yield "\n".join(lines[:row] + [line + " "] + lines[row + 1:])
        yield "\n".join(lines[:row] + [line + "\r"] + lines[row + 1:])
        yield "\n".join(lines[:row] + [line + " # c"] + lines[row + 1:])
        yield "\n".join(lines[:row] + [line.replace(" = ", " =  ")] + lines[row + 1:])
        yield "\n".join(lines[:row + 1] + ["\n".join(lines[row + 1:row + 2]), line]
                        + lines[row + 2:])  # moved down a line
    for extra in ("currency = \"EUR\"", "dealer = 1", "event = \"x\"", "ante = 1", "x = 1",
                  "_u = 1", "_copy = 2", "_u = true", "_u = 1.5", '_u = "a\\tb"', "_u = [1, 2]",
                  '_u = ["a", "b"]', "_u = []", "_u = -3", "_ = 0", "_u-v = 1", "[x]",
                  "time_zone = \"UTC\"", "round = 1", "# note", ""):
        for row in (0, len(lines) - 2, len(lines) - 1):
            yield "\n".join(lines[:row] + [extra] + lines[row:])
    for old, new in (("day = ", "day = 31\nmonth = 2\n_was_day = "),
                     ('"d dh p1 ', '"d dh p1 10d'), ('"d dh p1 ', '"d dh p1 1x'),
                     ('"d dh p1 ', '"d dh p1 ??'), ('"d dh p2 ', '"d dh p9 '),
                     ('"d dh p1 ', '"d  dh  p1 '), (" up ", " up ??"), (" up ", " up 10c"),
                     ('"p1 cc"', '"p1 cc # c"'), ('"p1 cc"', '"p1 cbr 0"'),
                     ('"p1 cc"', '"p1 cbr 1000000000000000"'), ('"p1 cc"', '"p1 cbr 01"'),
                     ('"p1 cc"', '"p1 cc 5"'), ('"p1 cc"', '"p1 xx"'), ('"p1 cc"', '""'),
                     ('"p1 cc"', '"#"'), ('"p1 cc"', '"p1 sm AsAs"'),
                     ('"p1 cc"', '"p1 sm AsKsQsJs"'),
                     ('"p1 cc"', '"p1 sm"'), ('"p1 cc"', '"p1 sm AsKs"'), ('"p1 cc"', '"p18 f"'),
                     ('"p1 cc"', '"p01 f"'), ('"p1 cc"', '"P1 f"'), ('"p1 cc"', '"p1 f ]"'),
                     ('"p1 cc",', '"p1 cc" ,'), ('"p1 cc",', '"p1 cc"'), ("  \"p1 cc", "\t\"p1 cc"),
                     ('actions = [\n', 'actions = [ # c\n'), ('actions = [\n', 'actions = [\n\n'),
                     ("\n]\n", "\n  ]\n"), ("\n]\n", "\n] # c\n"), ("\n]\n", ",\n]\n"),
                     ('variant = "N78"', 'variant = "F78"'), ('variant = "P78"', 'variant = "F78"'),
                     ('variant = "F78"', 'variant = "N78"'), ("min_bet", "small_bet"),
                     ("small_bet = ", "min_bet = "), ("format_version = 1", "format_version = 2")):
        if old in text:
            yield text.replace(old, new, 1)
    for row, line in enumerate(lines):  # seating: a repeated or blank name, a seat twice
        key, _, value = line.partition(" = ")  # or off the table (parsers.build says which)
        if key not in ("players", "seats") or not value.startswith("["):
            continue
        items = value[1:-1].split(", ")
        swaps = [(1, items[0])] + ([(0, '" "'), (0, '""')] if key == "players"
                                   else [(len(items) - 1, "99"), (0, "0")])
        for at, item in swaps:
            changed = items[:at] + [item] + items[at + 1:]
            yield "\n".join(lines[:row] + [f"{key} = [{', '.join(changed)}]"] + lines[row + 1:])
    actions = [row for row, line in enumerate(lines) if line.startswith('  "')]
    deal = lines[actions[0]]
    yield "\n".join(lines[:actions[0]] + [deal] + lines[actions[0]:])  # dealt twice
    yield "\n".join(lines[:actions[0]] + lines[actions[-1] + 1:])  # no actions
    yield "\n".join(lines[:actions[0] - 1] + ["actions = []"] + lines[actions[-1] + 2:])
    yield text.replace("\n", "\r\n")


@functools.cache
def canonical_samples() -> list[str]:
    """A few simulated 7 & 8 hands of each variant and size, with user fields."""
    texts = seveneight_texts()
    picked = texts[::97][:12]
    return [text + ('_rebuys = ["Ann"]\n' if i % 2 else "") + f"_copy = {i}\n"
            for i, text in enumerate(picked)]


@pytest.mark.slow
def test_value_edits_of_canonical_hands() -> None:
    taken = could = 0
    for text in canonical_samples():
        edits = list(value_edits(text))
        assert len(edits) > 200
        result = check_data("\n".join(f"[{n + 1}]\n{edit}" for n, edit in enumerate(edits)))
        taken, could = taken + result[0], could + result[1]
    assert 0 < taken <= could


@pytest.mark.slow
def test_line_edits_of_canonical_hands() -> None:
    """Each line of canonical hands dropped, doubled or edited (tests/canonical.py)."""
    for text in canonical_samples():
        check_data(as_file(list(line_edits(text))))


def test_a_card_dealt_twice_declines_only_its_hand() -> None:
    texts = seveneight_texts()[:3]
    deal = next(line for line in texts[1].split("\n") if line.startswith('  "d dh p1'))
    doubled = texts[1].replace(deal, f"{deal}\n{deal}", 1)
    block, declined = scan_seveneight(
        list(iter_chunks(io.StringIO(as_file([texts[0], doubled, texts[2]])), SOURCE)), SOURCE)
    assert declined == [1] and block.positions.tolist() == [0, 2]
    assert check_data(as_file([texts[0], doubled, texts[2]])) == (2, 2)


@pytest.mark.parametrize(("date", "taken"), [
    ({"day": "31", "month": "2", "year": "2026"}, 0),  # the per-hand path refuses these
    ({"day": "29", "month": "2", "year": "2025"}, 0),
    ({"day": "0"}, 0), ({"day": "99"}, 0), ({"month": "13"}, 0), ({"year": "0"}, 0),
    ({"year": "99999"}, 0),
    ({"day": "29", "month": "2", "year": "2024"}, 1),  # odd but real: taken
    ({"day": "31", "month": "12", "year": "9999", "time": "00:00:00"}, 1),
])
def test_dates_are_read_as_the_per_hand_path_reads_them(date: dict[str, str],
                                                         taken: int) -> None:
    """An impossible date is the per-hand path's error, so the block declines the hand."""
    text = seveneight_texts()[5]
    lines = [f"{key} = {date[key]}" if (key := line.partition(" = ")[0]) in date else line
             for line in text.split("\n")]
    assert check_data(as_file(["\n".join(lines)])) == (taken, taken)


# ---- hypothesis


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS)
def test_mutated_canonical_hands(pick: int, mutations: list[Mutation]) -> None:
    check_data(mutated_canonical(pick, mutations))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_seveneight_hands(data: st.DataObject) -> None:
    """Byte and token mutations (tests/mutate.py) of simulated 7 & 8 hands only."""
    texts = canonical_samples()
    pick = data.draw(st.integers(0, len(texts) - 1))
    raw = as_file([texts[pick], texts[(pick + 1) % len(texts)]]).encode()
    for mutation in data.draw(MUTATIONS):
        raw = apply(raw, mutation)
    check_data(raw)


_HOSTILE = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_HOSTILE, max_size=30), max_size=4), st.binary(max_size=300))
def test_never_raises_on_hostile_chunks(lines: list[list[str]], junk: bytes) -> None:
    """Chunks made directly (any line text, even a line end inside) and junk bytes."""
    chunks = [Chunk(n + 1, 1 + 40 * n, hand, None) for n, hand in enumerate(lines)]
    block, declined = scan_seveneight(chunks, SOURCE)
    assert len(block) + len(declined) == len(chunks)
    check_data(junk)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_never_raises_on_lines_of_a_hand_replaced_by_hostile_text(data: st.DataObject) -> None:
    text = canonical_samples()[data.draw(st.integers(0, 11))]
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        row = data.draw(st.integers(0, len(lines) - 1))
        key = lines[row].partition(" = ")[0]
        value = data.draw(_HOSTILE | st.integers().map(str) | st.floats().map(repr))
        lines[row] = f"{key} = {value}" if data.draw(st.booleans()) else value
    check_data(as_file(["\n".join(lines)]))


def test_the_comparison_notices_a_wrong_value() -> None:
    """assert_blocks_equal can fail: a value one off, an int where a bool was, a list where
    a tuple was."""
    chunks = list(iter_chunks(io.StringIO(as_file(seveneight_texts()[:5])), SOURCE))
    block, _ = scan_seveneight(chunks, SOURCE)
    readings = [blockable(chunk, position) for position, chunk in enumerate(chunks)]
    reference = block_from_hands(SOURCE, readings)  # type: ignore[arg-type]
    assert_blocks_equal(block, reference)
    reference.action_lines[3] += 1
    with pytest.raises(AssertionError):
        assert_blocks_equal(block, reference)
    reference.action_lines[3] -= 1
    for name, wrong in (("seats", [tuple(map(bool, seats)) for seats in block.seats]),
                        ("players", [list(names) for names in block.players]),
                        ("times", [dt.datetime(2026, 1, 1) for _ in block.times])):
        changed = SevenEightBlock(**{**{field: getattr(block, field)
                                        for field in SevenEightBlock.__slots__}, name: wrong})
        with pytest.raises(AssertionError):
            assert_blocks_equal(changed, reference)


def test_a_large_random_mix_of_edited_hands() -> None:
    """Many edited hands at once: a declined hand leaves its neighbours' values in place."""
    rng = random.Random(7)
    texts = seveneight_texts()
    edits = [edit for text in canonical_samples()[:4] for edit in value_edits(text)]
    mixed = [rng.choice(edits) if rng.random() < 0.3 else rng.choice(texts) for _ in range(600)]
    taken, could = check_data(as_file(mixed))
    assert taken > 300 and taken <= could


def test_names_the_reader_refuses_are_left_to_it() -> None:
    """A padded name, an invisible one and one holding a C1 control character: the reader
    refuses each (parsers.build's seating check), so the scanner takes none (it took the
    first and the last, which then loaded by the block path)."""
    hands = list(simulate_seveneight(3, 3, 5))
    names = [(" Ann", "Bo", "Cy"), ("\u200b", "Bo", "Cy"), ("A\x85nn", "Bo", "Cy")]
    odd = [dataclasses.replace(hand, players=players)
           for hand, players in zip(hands, names, strict=True)]
    taken, _ = check_data(dumps_hands(odd).encode())
    assert taken == 0
