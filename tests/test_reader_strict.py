"""The reader refuses what TOML and the format refuse, and gives out values no other read
shares: the reviewer's cases (values shared through a cache, TOML the fast subset read
more loosely than tomllib, lone carriage returns), each as a test."""

from __future__ import annotations

import dataclasses
import io
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import loads_hands, read_hands
from parsers.reader import iter_chunks
from parsers.tomlsubset import Unsupported, parse_document
from tests.test_hand_cuts import assert_same_chunks

HAND = """format_version = 1
variant = "B2"
players = ["Ann", "Bo"]
actions = [
  "d dh p1 3d",
  "p1 pl 3d",
]
"""


def test_a_user_array_edited_in_one_hand_is_not_in_the_next() -> None:
    """The fast subset remembers one-line fields by their text; the list it gives a hand is
    that hand's own, so editing it changes no other read."""
    text = HAND + '_tags = ["friday", "home"]\n'
    (first,) = loads_hands(text)
    tags = first.user_fields[0][1]
    assert isinstance(tags, list)
    tags.append("EDITED")
    (other,) = loads_hands(text.replace('"Bo"', '"Cy"'))
    assert other.user_fields == (("_tags", ["friday", "home"]),)


@pytest.mark.parametrize("line", [
    "_e = [,]",
    "_e = [ , ]",
    '_e = [",", ,]',
    "_e = [1,,]",
    "min_bet\u00a0= 2",
    "_e = 2\x0c",
    "_e = 2 # \x01",
    '_e = "x" # \x7f',
    "_e = [1, 2] # \x1b",
    "_e = 'a\x01b'",
    "\x0c",
    "# \x01 a comment with a control character",
    "\u3000_e = 1",
], ids=repr)
def test_the_subset_declines_what_tomllib_refuses(line: str) -> None:
    """Each line is invalid TOML: the fast subset must not read it (it declines, and the
    hand's error is tomllib's)."""
    lines = [*HAND.splitlines(), line]
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads("\n".join(lines))
    with pytest.raises(Unsupported):
        parse_document(lines)
    (hand,) = loads_hands("\n".join(lines) + "\n")
    assert "malformed TOML" in str(hand.errors[0]), hand.errors


@pytest.mark.parametrize("body", [
    ['  "d dh p1 3d"', '  "p1 pl 3d"', "]"],  # no comma between two elements
    ['  "d dh p1 3d",', '  "p1 pl 3d" "p2 ps",', "]"],
    ['  "d dh p1 3d"', "  # a comment", '  "p1 pl 3d",', "]"],
    ['  "d dh p1 3d", # \x01', "]"],
    ['  "d dh p1 3d",', "\x0c", "]"],
    ['  "d dh p1 3d",', "] # \x01"],
], ids=repr)
def test_a_multi_line_array_needs_its_commas_and_clean_comments(body: list[str]) -> None:
    lines = ['variant = "B2"', 'players = ["Ann", "Bo"]', "actions = [", *body]
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads("\n".join(lines))
    with pytest.raises(Unsupported):
        parse_document(lines)


@pytest.mark.parametrize("opening", ["actions = [ # \x01", "actions = [ \x0c"], ids=repr)
def test_the_opening_line_of_an_array_is_checked_too(opening: str) -> None:
    lines = ['variant = "B2"', opening, '  "p1 ps",', "]"]
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads("\n".join(lines))
    with pytest.raises(Unsupported):
        parse_document(lines)


def test_the_last_element_may_go_without_its_comma() -> None:
    lines = ['variant = "B2"', "actions = [", '  "d dh p1 3d",', '  "p1 pl 3d" # last',
             "  # after it", "]"]
    document = parse_document(lines)
    assert document.values == tomllib.loads("\n".join(lines))
    assert document.element_lines["actions"] == [3, 4]


def test_a_carriage_return_that_ends_no_line_is_refused() -> None:
    """``\\r\\n`` is a line end; a ``\\r`` anywhere else is not TOML (``2\\r\\r\\n`` read as
    ``2`` before)."""
    good = HAND.replace("\n", "\r\n").encode()
    (hand,) = read_hands(io.BytesIO(good))
    assert hand.ok, hand.errors
    bad = HAND.replace('variant = "B2"\n', 'variant = "B2"\r\r\n').encode()
    (hand,) = read_hands(io.BytesIO(bad), name="cr.phh")
    assert str(hand.errors[0]).startswith("cr.phh:2: hand 1: a carriage return")


_PIECES = st.sampled_from([
    "_k", "min_bet", " ", "\t", "\u00a0", "\x0c", "\x0b", "\u3000", "\x01", "\x7f", "=", ",",
    "[", "]", '"', "'", "#", "1", "-", "_", "a", "\u00e9", ":", ".", "\\", "\\u0041"])


@settings(max_examples=600, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=10).map("".join), min_size=1, max_size=4))
def test_what_the_subset_reads_tomllib_reads_the_same(lines: list[str]) -> None:
    """Lines of TOML's delimiters and whitespace, TOML's and others: whatever the subset
    reads, tomllib reads to the same values (else the subset declines)."""
    lines = ["_k0 = 1", *lines]
    try:
        document = parse_document(lines)
    except (Unsupported, IndexError, RecursionError):
        return
    assert document.values == tomllib.loads("\n".join(lines))


# ---- splitting a file into hands

def _hands(text: str) -> list[tuple[int, str | None, tuple[str, ...]]]:
    """Each hand's index, header and problems, read from bytes (the streaming path) and
    checked against the plain split and the cut parts (tests/test_hand_cuts.py)."""
    assert_same_chunks(text.encode(), hands=1, block=7)
    chunks = list(iter_chunks(io.BytesIO(text.encode()), "f"))
    hands = list(read_hands(io.BytesIO(text.encode()), name="f"))
    return [(hand.index, chunk.header, tuple(str(e) for e in hand.errors))
            for chunk, hand in zip(chunks, hands, strict=True)]


@pytest.mark.parametrize("element", ["  [3]", "[3]", "\t[ 3 ] # the last group"])
def test_a_header_line_inside_an_open_array_is_its_last_element(element: str) -> None:
    text = f"[1]\n{HAND}_groups = [\n  [1, 2],\n{element}\n\n  # end\n]\n[2]\n{HAND}"
    assert tomllib.loads(text)["1"]["_groups"] == [[1, 2], [3]]
    assert _hands(text) == [(1, "1", ()), (2, "2", ())]
    (first, _) = loads_hands(text)
    assert first.user_fields == (("_groups", [[1, 2], [3]]),)


def test_a_header_line_inside_a_multi_line_string_is_text() -> None:
    text = f'[1]\n{HAND}_note = """\nSecond game\n[2]\nwas wild"""\n[3]\n{HAND}'
    assert _hands(text) == [(1, "1", ()), (2, "3", ())]
    (first, _) = loads_hands(text)
    assert first.user_fields == (("_note", "Second game\n[2]\nwas wild"),)


def test_an_array_left_open_by_mistake_spoils_its_own_hand_only() -> None:
    """A header line after an unclosed array is a header when a key follows it (no array
    element could): the next hand is read as ever."""
    text = f"[1]\n{HAND}_groups = [\n  [1, 2],\n[2]\n{HAND}"
    found = _hands(text)
    assert [(index, header) for index, header, _ in found] == [(1, "1"), (2, "2")]
    assert found[0][2] and not found[1][2]


@pytest.mark.parametrize("indent", ["\u3000", "\x0c", "\u00a0"], ids=repr)
def test_only_spaces_and_tabs_may_indent_a_header(indent: str) -> None:
    """TOML's whitespace: a header indented by anything else is no header (tomllib refuses
    it too), so the line is part of the hand before and spoils it."""
    text = f"[1]\n{HAND}{indent}[2]\n{HAND}"
    found = _hands(text)
    assert len(found) == 1 and "malformed TOML" in found[0][2][0]


def test_a_byte_order_mark_before_a_header_is_skipped() -> None:
    """Two files saved with a byte-order mark, joined: every hand of both is read."""
    text = f"\ufeff[1]\n{HAND}\ufeff[1]\n{HAND}[2]\n{HAND}"
    assert _hands(text[1:]) == [(1, "1", ()), (2, "1", ()), (3, "2", ())]
    (hand,) = read_hands(io.BytesIO(f"{HAND}\ufeff{HAND}".encode()), name="j.phh")
    assert "byte-order mark" in str(hand.errors[0])


def test_a_repeated_header_is_a_label_not_a_key() -> None:
    """Files may be joined, so a header name may come again: each hand is read (its id is
    its content; docs/format.md, Files)."""
    text = f"[1]\n{HAND}[1]\n{HAND.replace('Bo', 'Cy')}"
    assert _hands(text) == [(1, "1", ()), (2, "1", ())]


# ---- fields and actions

def _errors(text: str, name: str = "f.phhs") -> list[str]:
    return [str(error) for hand in read_hands(io.BytesIO(text.encode()), name=name)
            for error in hand.errors]


@pytest.mark.parametrize(("fields", "message"), [
    ("day = 31\nmonth = 2\nyear = 2026", "f.phhs:8: hand 1: day/month/year: day 31, month 2,"
     " year 2026 is not a date (February 2026 has 28 days)"),
    ("day = 29\nmonth = 2\nyear = 2025", "February 2025 has 28 days"),
    ("day = 30\nmonth = 2", "day 30, month 2 is not a date (February has 29 days)"),
    ("day = 0", "day: day must be 1 to 31, not 0"),
    ("day = 99", "day must be 1 to 31, not 99"),
    ("month = 13", "month: month must be 1 to 12, not 13"),
    ("year = 0", "year: year must be 1 to 9999, not 0"),
    ("year = 99999", "year must be 1 to 9999, not 99999"),
    ('time_zone = "Mars/Olympus"', "time_zone: 'Mars/Olympus' is not an IANA time zone name"),
    ('format_version = "1"', "format_version: must be the integer 1 (a whole number, no"
     " quotes), not a string '1'"),
    ("time = 25:16:00", "f.phhs:8: hand 1: time: 25:16:00 is not a time of day"),
    ("_x = 1\n_x = 2", "f.phhs:9: hand 1: _x: given twice (first on line 8)"),
    ('players = ["\u200b", "Bo"]', "players: p1 has no name (only spaces or invisible"),
    ('players = ["\u3164", "\u00a0"]', "p2 has no name"),
    ('players = [" Ann", "Bo"]', "p1's name ' Ann' begins or ends with a space: write 'Ann'"),
], ids=repr)
def test_a_field_the_format_refuses_is_named(fields: str, message: str) -> None:
    text = "[1]\n" + HAND.replace('players = ["Ann", "Bo"]\n', "") + fields + "\n"
    if "format_version" in fields:
        text = text.replace("format_version = 1\n", "")
    if "players" not in fields:
        text += 'players = ["Ann", "Bo"]\n'
    errors = _errors(text)
    assert any(message in error for error in errors), errors


@pytest.mark.parametrize(("fields", "date"), [
    ("day = 29\nmonth = 2\nyear = 2024", "2024-02-29"),
    ('day = 1\nmonth = 1\nyear = 1\ntime_zone = "Europe/Amsterdam"', "0001-01-01"),
])
def test_real_dates_and_zones_are_read(fields: str, date: str) -> None:
    (hand,) = loads_hands(HAND + fields + "\n")
    assert hand.ok, hand.errors
    assert hand.date is not None and hand.date.isoformat() == date


def test_an_impossible_date_of_a_made_hand_is_not_dropped() -> None:
    (hand,) = loads_hands(HAND)
    made = dataclasses.replace(hand, day=31, month=2, year=2026)
    with pytest.raises(ValueError, match="year 2026, month 2, day 31 is not a date"):
        made.date  # noqa: B018


def test_an_error_names_the_hand_header_when_it_is_not_the_position() -> None:
    text = f"[1]\n{HAND}[10]\n{HAND}_x = 1\n_x = 2\n[11]\n{HAND}variant = 3\n"
    errors = _errors(text)
    assert errors == ["f.phhs:18: hand 2 [10]: _x: given twice (first on line 17)",
                      "f.phhs:27: hand 3 [11]: variant: given twice (first on line 21)"]
    assert _errors(f"[1]\n{HAND}[2]\nvariant = 3\n")[0].startswith("f.phhs:10: hand 2: ")


@pytest.mark.parametrize(("action", "message"), [
    ("p\uff12 pl 3d", "'p\uff12' is not an actor"),
    ("p\u0662 pl 3d", "is not an actor"),
    ("p1\u00a0pl 3d", "'p1\\xa0pl' is not an actor"),
    ("p1\tpl 3d", "'p1\\tpl' is not an actor"),
    ("", "'' is an empty action"),
    ("  #  ", "is an empty action"),
], ids=repr)
def test_actions_take_ascii_numbers_and_words_split_at_spaces(action: str,
                                                                message: str) -> None:
    text = HAND.replace('  "p1 pl 3d",', f'  "{action}",')
    errors = _errors(text)
    assert any(message in error for error in errors), errors


def test_a_note_is_still_an_action() -> None:
    (hand,) = loads_hands(HAND.replace('  "p1 pl 3d",', '  "# a note",\n  "p1  pl 3d",'))
    assert hand.ok and hand.actions[1].comment == "a note"
