"""The streaming reader: sources, splitting into hands, the TOML subset against tomllib,
hostile input, memory."""

from __future__ import annotations

import gc
import io
import json
import random
import re
import tomllib
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import dumps_hand, loads_hands, read_hands, reader, tomlsubset
from parsers.build import rules_of
from parsers.reader import MAX_LINE_LENGTH, iter_chunks
from parsers.rule_options import Game, RummoliRules
from parsers.tomlsubset import Unsupported, parse_document
from tests.canonical import as_file, simulated_at

ROOT = Path(__file__).parent.parent
SEVENEIGHT = ROOT / "tests" / "data" / "valid" / "seveneight.phh"


def _toml_sources() -> Iterator[tuple[str, str]]:
    """Every history in tests/ and docs/, and every ```toml block of the docs."""
    for folder in (ROOT / "tests", ROOT / "docs"):
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".phh", ".phhs"):
                yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
            elif path.suffix == ".md":
                text = path.read_text(encoding="utf-8")
                for number, block in enumerate(re.findall(r"```toml\n(.*?)```", text, re.S)):
                    yield f"{path.relative_to(ROOT)}#{number}", block


SOURCES = list(_toml_sources())


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[name for name, _ in SOURCES])
def test_toml_subset_agrees_with_tomllib(name: str, text: str) -> None:
    for chunk in iter_chunks(io.StringIO(text), name):
        chunk_text = "\n".join(chunk.lines)
        try:
            expected = tomllib.loads(chunk_text)
        except tomllib.TOMLDecodeError:
            with pytest.raises(Unsupported):
                parse_document(chunk.lines, chunk.first_line)
            continue
        try:
            document = parse_document(chunk.lines, chunk.first_line)
        except Unsupported:
            continue  # the reader falls back to tomllib for this hand: nothing to compare
        assert document.values == expected


def test_written_files_need_no_tomllib_fallback() -> None:
    """The writer's own output never needs the slow fallback."""
    (hand,) = read_hands(SEVENEIGHT)
    lines = dumps_hand(hand).splitlines()
    assert parse_document(lines).values == tomllib.loads(dumps_hand(hand))


@pytest.mark.parametrize(("body", "lines"), [
    (['  "p1 cc",', '  "d dh p1 AsKd",', "]"], range(11, 13)),  # the writer's layout
    (['  "p1 cc",', "  # a comment", '  "p2 f",', "]"], [11, 13]),
    (['  "p1 cc",', "", '  "p2 f" ,', "]"], [11, 13]),
    (['  "p1 cc", # called', '  "p2 f",', "]"], [11, 12]),
    (['  "p1 cc",', '  "p2 \\u0066",', "]"], None),  # an escape: the general scanner
    (['  "p1 cc",', '  "p2 f"', "]"], [11, 12]),  # no comma after the last
    (["]"], range(11, 11)),
])
def test_an_array_of_strings_reads_the_same_in_every_layout(
        body: list[str], lines: range | list[int] | None) -> None:
    """The writer's layout is split in one step (a range of lines); any other goes line by
    line: the same strings as tomllib, each with its own line."""
    text = ["variant = \"bt\"", "actions = ["] + body
    document = parse_document(text, first_line=9)
    assert document.values == tomllib.loads("\n".join(text))
    found = document.element_lines["actions"]
    if lines is not None:
        assert found == lines and type(found) is type(lines)
    else:
        assert list(found) == [11, 12]


def test_docs_examples_read_without_errors() -> None:
    blocks = [text for name, text in SOURCES if name.startswith("docs/format.md#")]
    assert len(blocks) >= 3
    games = set()
    for text in blocks:
        # The Rummoli excerpt elides the rest of the round with a "..." line.
        for hand in loads_hands(text.replace('  "...",\n', "")):
            assert hand.errors == (), [str(e) for e in hand.errors]
            games.add(hand.game)
    assert games == set(Game)


@pytest.mark.parametrize("kind", ["path", "str_path", "binary", "text", "string"])
def test_every_kind_of_source(kind: str) -> None:
    text = SEVENEIGHT.read_text(encoding="utf-8")
    source: object = {
        "path": SEVENEIGHT,
        "str_path": str(SEVENEIGHT),
        "binary": io.BytesIO(text.encode()),
        "text": io.StringIO(text),
        "string": text,
    }[kind]
    (hand,) = read_hands(source)  # type: ignore[arg-type]
    assert hand.ok and hand.game is Game.SEVENEIGHT and len(hand.actions) == 16


def _two_hands_around(bad: bytes) -> bytes:
    good = b'variant = "B2"\nplayers = ["a", "b"]\nactions = []\n'
    return b"[1]\n" + good + b"[2]\n" + bad + b"\n" + good + b"[3]\n" + good


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (b'_x = "\xff\xfe"', "not valid UTF-8"),
        (b"_x = 1\x00", "NUL byte"),
        (b'_x = "' + b"a" * (MAX_LINE_LENGTH + 10) + b'"', "line longer than"),
        (b"_x = " + b"[" * 5000 + b"]" * 5000, "TOML"),
        (b"_x = 1" + b"0" * 5000, "64-bit"),
        (b"_x = 1" + b"0" * 30, "64-bit"),
    ],
    ids=["utf8", "nul", "long_line", "deep_nesting", "huge_integer", "big_integer"],
)
def test_hostile_lines_spoil_one_hand_only(bad: bytes, message: str) -> None:
    hands = list(read_hands(io.BytesIO(_two_hands_around(bad)), name="hostile.phhs"))
    assert [hand.index for hand in hands] == [1, 2, 3]
    assert hands[0].ok and hands[2].ok
    assert not hands[1].ok
    assert message in str(hands[1].errors[0])
    assert hands[1].errors[0].line == 6


def test_utf16_file_is_reported_not_misread() -> None:
    data = 'variant = "B2"\nplayers = ["a", "b"]\nactions = []\n'.encode("utf-16")
    (hand,) = read_hands(io.BytesIO(data), name="u16.phh")
    assert "UTF-16" in str(hand.errors[0])


def test_utf8_bom_is_skipped() -> None:
    data = b"\xef\xbb\xbf" + SEVENEIGHT.read_bytes()
    (hand,) = read_hands(io.BytesIO(data))
    assert hand.ok


def test_a_line_without_end_is_read_in_bounded_pieces() -> None:
    """A 'file' of 2 MB with no newline at all: one clear error, bounded memory."""
    data = b"x" * (2 * 1024 * 1024)
    tracemalloc.start()
    hands = list(read_hands(io.BytesIO(data), name="blob"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(hands) == 1 and "line longer than" in str(hands[0].errors[0])
    assert peak < 1024 * 1024


@pytest.mark.slow
def test_large_file_parses_in_bounded_memory(tmp_path: Path) -> None:
    """Peak memory is independent of the file's size: hands are streamed, not accumulated."""
    (hand,) = read_hands(SEVENEIGHT)
    one = "[{}]\n" + dumps_hand(hand) + "\n"

    def peak_for(count: int) -> tuple[int, int]:
        path = tmp_path / f"big{count}.phhs"
        with path.open("w", encoding="utf-8") as stream:
            for number in range(1, count + 1):
                stream.write(one.format(number))
        gc.collect()
        tracemalloc.start()
        seen = 0
        for parsed in read_hands(path):
            assert parsed.ok
            seen += 1
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return seen, peak

    # Past the reader's block size (a few thousand hands), the peak stops growing.
    small_count, small_peak = peak_for(1500)
    big_count, big_peak = peak_for(6000)
    assert (small_count, big_count) == (1500, 6000)
    assert big_peak < small_peak * 1.25, (small_peak, big_peak)


def test_games_filter_keeps_only_the_named_games() -> None:
    path = ROOT / "tests" / "data" / "valid" / "mixed.phhs"
    assert {h.game for h in read_hands(path, games=[Game.BIGTWO])} == {Game.BIGTWO}


def chunk_list(data: bytes) -> list[tuple[object, ...]]:
    return [(c.index, c.first_line, c.lines, c.header, str(c.problem))
            for c in iter_chunks(io.BytesIO(data), "s")]


_ODD_HEADERS = ("[7]", " [7]", "\t[7]", " \u3000[7]", "[ 7 ] # c", "\u3000[7]", "[7] x", "[x y]",
                "  [7]", "[1, 2]", " [", "[", "[[7]]", "\x0c[7]", " \x0b [7]")


@pytest.mark.parametrize("block", [7, 64, 1000, 1 << 18])
def test_splitting_finds_the_same_chunks_line_by_line(block: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """iter_chunks' split of plain batches at header lines agrees with its line-by-line loop."""
    texts = [dumps_hand(hand) for hand in simulated_at("rummoli", range(30))]
    lines = as_file(texts).split("\n")
    rng = random.Random(block)
    for odd in _ODD_HEADERS * 3:
        lines.insert(rng.randrange(len(lines) + 1), odd)
    data = "\n".join(lines).encode()
    monkeypatch.setattr(reader, "_BLOCK", block)
    batched = chunk_list(data)
    assert len(batched) > 30
    batches = reader._line_batches
    monkeypatch.setattr(reader, "_line_batches",
                        lambda stream: ((batch, None) for batch, _ in batches(stream)))
    assert chunk_list(data) == batched


_ELEMENT_CHARACTERS = st.sampled_from(
    ['"', "\\", "\t", "\x00", "\x1f", "\x7f", "\x85", "\xa0", "\u2028", "\ufeff", "#", ",",
     " ", "p", "1", "c", "\u00e9", "\U0001f0a1"])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_ELEMENT_CHARACTERS, max_size=12),
       st.sampled_from(['  "{}",', '  "{}"', ' "{}",', '  "{}" ,', '  "{}", # c', "  '{}',"]))
def test_element_lines_read_as_the_element_rule_says(text: str, shape: str) -> None:
    """An action line of a multi-line array, in the writer's shape or near it, with quotes,
    backslashes, control or unusual characters in its text: tomlsubset's quick test of the
    writer's shape gives what its element rule (``_SIMPLE_ELEMENT``) reads, or None."""
    line = shape.format(text)
    tomlsubset._ELEMENT_CACHE.pop(line, None)
    match = tomlsubset._SIMPLE_ELEMENT.match(line)
    assert tomlsubset.element_text(line) == (None if match is None else match.group(1))
    assert tomlsubset.element_text(line) == (None if match is None else match.group(1))


@pytest.mark.parametrize("knobs", [
    {},
    {"four_card_plays": True, "straights": "vietnamese", "suit_order": "cdhs"},
    {"scoring": "zero_sum", "fry_threshold": 8, "lead_card": "3c", "deal": "all"},
    {"flush_order": "suit_first", "scoring": "rank"},
])
def test_rules_of_reads_knobs_as_a_header_does(knobs: dict[str, object]) -> None:
    """``rules_of`` (the CLI's ``--rule``) gives the rule set the reader gives for the same
    knobs in a history's header."""
    header = "".join(f"{key} = {json.dumps(value)}\n" for key, value in knobs.items())
    hand, = loads_hands(f'variant = "B2"\n{header}players = ["a", "b"]\nactions = []\n')
    assert not hand.errors
    assert rules_of(Game.BIGTWO, knobs) == hand.rules


def test_rules_of_refuses_what_the_reader_refuses() -> None:
    with pytest.raises(ValueError, match="'x' is not a knob of Big Two"):
        rules_of(Game.BIGTWO, {"x": 1})
    with pytest.raises(ValueError, match=r"'weird' is not a value of knob straights .*; knob "
                                         "fry_threshold must be 1 or more, not 0"):
        rules_of(Game.BIGTWO, {"straights": "weird", "fry_threshold": 0})
    with pytest.raises(ValueError, match="is not a knob of 7 & 8 \\(its knobs: none\\)"):
        rules_of(Game.SEVENEIGHT, {"ante": 1})
    assert rules_of(Game.RUMMOLI, {"ante": 2}) == RummoliRules(ante=2)
