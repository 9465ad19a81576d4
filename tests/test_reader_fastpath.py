"""The reader's fast path (parsers/fastpath.py) builds exactly what the general path builds.

``hand_from_chunk`` tries :func:`parsers.fastpath.fast_hand` first and takes the
general path (``parse_document`` then ``build_hand``, ``reader.general_hand``)
when it declines.  Every chunk below is read both ways and compared field for
field -- types included (``1`` and ``True`` are equal in Python, not here),
every action's line, the errors with their positions, ``raw``, ``line``,
``index`` -- over every file of the repository, simulated hands of the three
games, systematic line edits of canonical hands and hypothesis-driven mutations.
"""

from __future__ import annotations

import functools
import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory, dumps_hand, fastpath, reader, tomlsubset
from parsers.reader import Chunk, general_hand, hand_from_chunk, iter_chunks
from tests.mutate import INTERESTING, KINDS, Mutation, apply
from tests.strategies import hands

ROOT = Path(__file__).resolve().parent.parent


def signature(hand: HandHistory) -> tuple[object, ...]:
    """Everything a hand holds, in a form where equal means identical."""
    return (
        repr(hand),  # every compared field, with types, and each action with its line
        hand.source, hand.line, hand.index, hand.raw,
        tuple((e.message, e.source, e.line, e.column, e.hand_index, e.field, str(e))
              for e in hand.errors),
        tuple(a.line for a in hand.actions),
        tuple(type(v).__name__ for _, v in hand.user_fields),
        type(hand.rules).__name__,
    )


def differences(data: bytes | str, source: str = "<test>") -> tuple[list[int], int]:
    """The indexes of the chunks of ``data`` the two paths read differently, and how many
    chunks the fast path took."""
    stream: io.BytesIO | io.StringIO = (io.BytesIO(data) if isinstance(data, bytes)
                                        else io.StringIO(data))
    different: list[int] = []
    taken = 0
    for chunk in iter_chunks(stream, source):
        raw = "\n".join(chunk.lines)
        fast = (fastpath.fast_hand(chunk.lines, chunk.first_line, source, chunk.index, raw)
                if chunk.problem is None else None)
        general = general_hand(chunk, source, raw)
        if fast is not None:
            taken += 1
            if signature(fast) != signature(general) or fast != general:
                different.append(chunk.index)
        if signature(hand_from_chunk(chunk, source)) != signature(general):
            different.append(chunk.index)
    return different, taken


def assert_same(data: bytes | str, source: str = "<test>") -> int:
    different, taken = differences(data, source)
    assert not different, f"{source}: hands {different[:10]} differ between the two paths"
    return taken


def repository_files() -> Iterator[Path]:
    yield from sorted(p for p in (ROOT / "tests" / "data").rglob("*") if p.is_file())
    yield from sorted(p for p in (ROOT / "docs").rglob("*.phh*") if p.is_file())
    yield from sorted(p for p in (ROOT / "data" / "samples").glob("*") if p.is_file())


@pytest.mark.parametrize("path", list(repository_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_files(path: Path) -> None:
    assert_same(path.read_bytes(), str(path))


@functools.cache
def simulated() -> dict[str, list[HandHistory]]:
    """Over a thousand hands of each game, with every variant, player count and knob set
    (Big Two games are slow to simulate: fewer of them, each read three times below)."""
    seveneight = [h for i, (variant, players) in enumerate(
        (v, p) for v in ("N78", "P78", "F78") for p in (2, 4, 7, 17))
        for h in simulate_seveneight(120, players, 40 + i, variant=variant, ante=i % 2)]
    bigtwo = [h for players in (2, 3, 4)
              for h in simulate_bigtwo(70, players, players, random_knobs=True)]
    rummoli = [h for i, (variant, finale, claim) in enumerate(
        (v, f, c) for v in ("NRM", "PRM", "FRM") for f in ("single", "per_pot", "none")
        for c in ("auto", "manual"))
        for h in simulate_rummoli(70, 2 + i % 7, 60 + i, variant=variant, finale=finale,
                                  claim=claim)]
    return {"seveneight": seveneight, "bigtwo": bigtwo, "rummoli": rummoli}


def as_file(texts: list[str], extra: str = "") -> str:
    """Hand texts as a .phhs file, as bench_ingest writes them (each with a user field)."""
    return "\n".join(f"[{n + 1}]\n{text}{extra}_copy = {n}\n" for n, text in enumerate(texts))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bigtwo", "rummoli", "seveneight"])
def test_simulated_hands(game: str) -> None:
    texts = [dumps_hand(hand) for hand in simulated()[game]]
    texts = texts * 5 if game == "bigtwo" else texts
    assert len(texts) >= 1_000
    taken = assert_same(as_file(texts), game)
    assert taken == len(texts), "every simulated hand should take the fast path"
    # Again, from the caches the first reading filled, shifted by a line.
    assert assert_same("\n" + as_file(texts[:300]), game) == 300
    assert assert_same("".join(texts[:1])) == 1  # a .phh file: keys at the top


@functools.cache
def _canonical_samples() -> list[str]:
    """A few canonical hands of each game, knobs and user fields included."""
    picked = [dumps_hand(h) for hands_of_game in simulated().values()
              for h in hands_of_game[::251][:3]]
    return [text + '_note = "x"\n_n = 1\n' if i % 3 == 0 else text
            for i, text in enumerate(picked)]


_LINE_EDITS = (
    "", "   ", "# a comment", "  # indented comment", "]", "  ]", "[", "actions = [",
    "actions = []", 'actions = ["p1 cc"]', "_user = true", "_user = 1.5", "x = 1",
    "format_version = 2", "format_version = true", 'variant = "B2"', 'variant = "N78"',
    'variant = "XX"', "dealer = 0", "dealer = 99", "time = 25:00:00", 'time = "19:05:00"',
    "time = 19:05:00.5", "seats = [1, 2]", "starting_stacks = [-1, 5]", "min_bet = 0",
    "small_bet = 2", "big_bet = 4", "ante = true", "ante = 1", "ante = -1", 'claim = "x"',
    "four_card_plays = 1", 'suit_order = "cdhx"', 'lead_card = "3c"', "players = [1, 2]",
    'players = ["a"]', "hand = true", "hand = 1.0", 'table = ["x"]', 'finale_pot = "TS"',
    'finale_pot = "zz"', "board_before = [0, 0]", "round = -1", "year = 99999999999",
    '  "p1 cc",', '  "d dh p1 AsAs",', '  "d dh p9 As",', '  "p1 xx",', '  "p1 cc" ,',
    '  "p1 cc", # c', '  "",', '  "# note",', '  "p1 \\u0063c",', "  'p1 cc',", '  "p1 cc"',
    "\t\"p1 f\",",
)


def line_edits(text: str) -> Iterator[str]:
    """``text`` with each line in turn dropped, doubled, edited or preceded by an odd line."""
    lines = text.split("\n")
    for row, line in enumerate(lines):
        yield "\n".join(lines[:row] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line] + lines[row:])
        yield "\n".join(lines[:row] + [" " + line] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line + " # c"] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line.replace(" = ", "=")] + lines[row + 1 :])
    rng = random.Random(len(text))
    for edit in _LINE_EDITS:
        for row in rng.sample(range(len(lines)), min(3, len(lines))):
            yield "\n".join(lines[:row] + [edit] + lines[row:])
            yield "\n".join(lines[:row] + [edit] + lines[row + 1 :])


@pytest.mark.slow
def test_line_edits_of_canonical_hands() -> None:
    taken = 0
    for text in _canonical_samples():
        variants = list(line_edits(text))
        taken += assert_same(as_file(variants), "edits")
    assert taken > 0


def test_a_card_dealt_twice_and_repeated_lines() -> None:
    text = dumps_hand(simulated()["seveneight"][0])
    deal = next(line for line in text.split("\n") if line.startswith('  "d dh p1'))
    doubled = text.replace(deal, f"{deal}\n{deal}", 1)
    assert assert_same(as_file([text, doubled, text])) == 2


_ELEMENT_CHARACTERS = st.sampled_from(
    ['"', "\\", "\t", "\x00", "\x1f", "\x7f", "\x85", "\xa0", "\u2028", "\ufeff", "#", ",",
     " ", "p", "1", "c", "\u00e9", "\U0001f0a1"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(0, 60), st.lists(_ELEMENT_CHARACTERS, max_size=4),
       st.booleans())
def test_element_lines_in_the_writers_shape(pick: int, at: int, inserted: list[str],
                                            replace: bool) -> None:
    """An action line as the writer puts it (two spaces, the quoted text, a comma) with
    quotes, backslashes, control or unusual characters in its text: the quick test of that
    shape (tomlsubset.element_text, which both paths read element lines with) gives what
    the regex reads, or leaves the line to it; and the two paths read the same hand."""
    text = _canonical_samples()[pick % len(_canonical_samples())]
    lines = text.split("\n")
    elements = [row for row, line in enumerate(lines) if line.startswith('  "')]
    row = elements[pick % len(elements)]
    body = lines[row][3:-2]
    cut = at % (len(body) + 1)
    edited = body[:cut] + "".join(inserted) + body[cut + (1 if replace else 0):]
    lines[row] = f'  "{edited}",'
    tomlsubset._ELEMENT_CACHE.pop(lines[row], None)
    match = tomlsubset._SIMPLE_ELEMENT.match(lines[row])
    assert tomlsubset.element_text(lines[row]) == (None if match is None else match.group(1))
    assert_same(as_file(["\n".join(lines), text]))


MUTATIONS = st.lists(st.builds(Mutation, st.sampled_from(KINDS), st.integers(0, 10**6),
                               st.integers(0, 10**6), st.integers(0, len(INTERESTING) * 8)),
                     min_size=1, max_size=3)
"""One to three byte or token mutations (tests/mutate.py) for :func:`mutated_canonical`."""


def mutated_canonical(pick: int, mutations: list[Mutation]) -> bytes:
    """Two neighbouring canonical sample hands (``pick``, cycling) as one file, mutated."""
    texts = _canonical_samples()
    data = as_file([texts[pick % len(texts)], texts[(pick + 1) % len(texts)]]).encode()
    for mutation in mutations:
        data = apply(data, mutation)
    return data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS)
def test_mutated_canonical_hands(pick: int, mutations: list[Mutation]) -> None:
    assert_same(mutated_canonical(pick, mutations))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_generated_hands(hand: HandHistory) -> None:
    assert_same(dumps_hand(hand))
    assert_same(as_file([dumps_hand(hand)] * 2))


def test_the_comparison_notices_a_wrong_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a fast path that puts actions one line off is caught."""
    texts = [dumps_hand(hand) for hand in simulated()["bigtwo"][:20]]
    assert differences(as_file(texts))[0] == []
    right = fastpath._NEW_ACTIONS
    monkeypatch.setattr(fastpath, "_NEW_ACTIONS",
                        lambda heads, lines: right(heads, [line + 1 for line in lines]))
    different, taken = differences(as_file(texts))
    assert taken == len(texts) and len(different) == 2 * len(texts)


def test_chunks_with_a_problem_take_the_general_path() -> None:
    chunk = Chunk(1, 1, ['variant = "N78"'], None, problem=None)
    assert fastpath.fast_hand(chunk.lines, 1, "s", 1, chunk.lines[0]) is None
    assert hand_from_chunk(chunk, "s").errors


def chunk_list(data: bytes) -> list[tuple[object, ...]]:
    return [(c.index, c.first_line, c.lines, c.header, str(c.problem))
            for c in iter_chunks(io.BytesIO(data), "s")]


_ODD_HEADERS = ("[7]", " [7]", "\t[7]", " \u3000[7]", "[ 7 ] # c", "\u3000[7]", "[7] x", "[x y]",
                "  [7]", "[1, 2]", " [", "[", "[[7]]", "\x0c[7]", " \x0b [7]")


@pytest.mark.parametrize("block", [7, 64, 1000, 1 << 18])
def test_splitting_finds_the_same_chunks_line_by_line(block: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """iter_chunks' batch search for header lines agrees with its line-by-line loop."""
    texts = [dumps_hand(hand) for hand in simulated()["rummoli"][:30]]
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
