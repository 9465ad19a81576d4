"""The 7 & 8 block scanner's bulk reading of new action lines gives what the one-line reading
gives.

:class:`parsers.block_scan.ActionTable` reads the new action lines of a batch in the
writer's strict form together (:func:`parsers.block_scan.strict_rows`: one regular
expression over the joined lines, numpy over the pieces) and every other line one at a
time (:func:`parsers.block_scan.line_row`, the reader's own action parser).  Here lines
made of valid and mangled pieces (bad cards, cards given twice, ``??``, ``10d``, comments,
odd spacing, unknown verbs, players beyond the most a hand may have, line breaks...) are
read both ways: every row and card text must be the one-line reading's.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import block_scan
from parsers.block_scan import ActionTable, line_row, strict_rows
from tests.strategies import CANONICAL_CARDS as CARDS
from tests.strategies import card_tokens

actors = st.sampled_from(["d", "p1", "p2", "p3", "p8", "p9", "p10", "p16", "p17", "p18",
                          "p20", "p99", "p100", "p0", "p01", "P1", "q1", "dd", ""])
verbs = st.sampled_from(["dh", "up", "sm", "cbr", "cc", "f", "pl", "ps", "dw", "xw", "cl",
                         "DH", "Up", "c", ""])
cards = card_tokens(4)
amounts = st.one_of(st.integers(0, 10**16).map(str),
                    st.sampled_from(["012", "00", "-5", "+5", "1_000", "1e3", "٣", "5 5"]))
spaces = st.sampled_from([" ", " ", " ", " ", " ", " ", "  ", "\t", " \t"])


@st.composite
def writer_texts(draw: st.DrawFn) -> str:
    """An action text in the writer's strict form (valid or not for its verb)."""
    player = f"p{draw(st.integers(1, 17))}"
    verb = draw(st.sampled_from(["dh", "up", "sm", "cbr", "cc", "f"]))
    if verb == "dh":
        dealt = draw(st.lists(st.sampled_from(CARDS), min_size=1, max_size=3))
        return f"d dh {player} {''.join(dealt)}"
    if verb in ("up", "sm"):
        given_cards = draw(st.lists(st.sampled_from(CARDS), min_size=verb == "up", max_size=3))
        return f"{player} {verb} {''.join(given_cards)}".rstrip()
    if verb == "cbr":
        return f"{player} cbr {draw(st.integers(1, 10**15 - 1))}"
    return f"{player} {verb}"


pieces = st.one_of(actors, verbs, cards, amounts)


@st.composite
def action_texts(draw: st.DrawFn) -> str:
    """An action text of the writer's form with a few pieces mangled: a token replaced,
    added or taken out, odd spacing, something before or after."""
    tokens = draw(writer_texts()).split(" ")
    for _ in range(draw(st.integers(1, 3))):
        change = draw(st.integers(0, 3))
        at = draw(st.integers(0, len(tokens)))
        if change == 0 and at < len(tokens):
            tokens[at] = draw(pieces)
        elif change == 1:
            tokens.insert(at, draw(pieces))
        elif change == 2 and len(tokens) > 1 and at < len(tokens):
            del tokens[at]
        else:
            tokens[-1] += draw(st.sampled_from([" ", " # note", "# x", "\t", '"', "\\",
                                                "\x00", "\n", "\r", "A", "s", "0"]))
    separators = [draw(spaces) for _ in tokens[1:]]
    text = tokens[0] + "".join(map(str.__add__, separators, tokens[1:]))
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from([" ", "  ", "\t"])) + text
    return text


def line_of(text: str) -> str:
    """The action line as the scanner cuts it: its text up to the closing ``",``."""
    return f'  "{text}'


lines = st.lists(st.one_of(writer_texts().map(line_of), action_texts().map(line_of),
                           st.sampled_from(["", '  "', ' "p1 cc', '  "p1 cc", "p2 f', "x"])),
                 max_size=40)


def expected(line: str) -> tuple[tuple[int, ...], str | None]:
    return line_row(line)


@settings(max_examples=400, deadline=None)
@given(lines)
def test_strict_rows_are_the_one_line_readings(lines: list[str]) -> None:
    rows, texts, taken = strict_rows(lines)
    assert len(taken) == len(lines)
    picked = [line for line, take in zip(lines, taken.tolist(), strict=True) if take]
    assert rows.shape == (len(picked), 9)
    assert len(texts) == len(picked)
    for line, row, text in zip(picked, rows.tolist(), texts, strict=True):
        assert (tuple(row), text) == expected(line), line


@settings(max_examples=300, deadline=None)
@given(st.lists(lines, min_size=1, max_size=4))
def test_the_table_gives_every_line_its_one_line_reading(batches: list[list[str]]) -> None:
    table = ActionTable()
    for batch in batches:
        rows = table.rows(batch)
        values, texts = table.arrays()
        assert rows.dtype == np.intp and len(rows) == len(batch)
        for line, row in zip(batch, rows.tolist(), strict=True):
            assert (tuple(values[row].tolist()), texts[row]) == expected(line), line


@settings(max_examples=100, deadline=None)
@given(st.lists(writer_texts().map(line_of), min_size=1, max_size=30))
def test_of_the_writers_lines_only_unusable_ones_are_declined(lines: list[str]) -> None:
    """The bulk reading declines only what it must: of the writer's strict lines, those the
    one-line reading finds unusable (a verb without its arguments, a card given twice)."""
    _, _, taken = strict_rows(lines)
    for line, take in zip(lines, taken.tolist(), strict=True):
        row, _ = expected(line)
        assert take == (row[4] != block_scan._UNUSABLE), line


def test_a_line_break_inside_a_line_sends_the_batch_to_the_one_line_reading() -> None:
    lines = ['  "p1 cc', '  "p1 cc", # x\n  "p2 f', '  "d dh p1 AsKd']
    _, _, taken = strict_rows(lines)
    assert not taken.any()
    table = ActionTable()
    rows = table.rows(lines)
    values, texts = table.arrays()
    assert [(tuple(values[row].tolist()), texts[row]) for row in rows.tolist()] == [
        expected(line) for line in lines]


def test_the_table_grows_and_starts_over_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(block_scan, "_CACHE_LIMIT", 3000)
    table = ActionTable()
    deals = [line_of(f"d dh p{1 + n % 17} {CARDS[n % 52]}{CARDS[(n // 52 + 1 + n) % 52]}")
             for n in range(2500)]
    for start in (0, 1000, 1500, 0):
        batch = [*deals[start:start + 1000], line_of("p1 cc"), line_of("p1 ?? x")]
        rows = table.rows(batch)
        values, texts = table.arrays()
        assert [(tuple(values[row].tolist()), texts[row]) for row in rows.tolist()] == [
            expected(line) for line in batch]
