"""Hands read together give what they give one at a time.

:func:`parsers.reader.hands_and_fields` (the ingest worker's per-hand path) reads many
chunks at once: every hand's header first, then the action lines none of their line
tables holds, all together (:func:`parsers.fastpath._writer_entries`: one regular
expression over the joined lines, the cards of all of them at once), then each hand's
actions from the tables.  It must give exactly what :func:`parsers.reader.hand_and_fields`
gives for each chunk -- the same hands, fields, errors and lines, the same interned cards --
whatever the lines (the writer's, mangled ones, other shapes) and however full the tables.
"""

from __future__ import annotations

import io
import sys
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import caching, dumps_hand, fastpath
from parsers.actions import AMOUNT, DEALER_VERBS, GAME_VERBS, NO_ARGUMENT
from parsers.knobs import Game
from parsers.model import RUMMOLI_POTS, ActionFields, HandHistory, Verb, with_actions
from parsers.reader import Chunk, hand_and_fields, hands_and_fields, iter_chunks
from tests.mutate import Mutation as _Mutation
from tests.strategies import CANONICAL_CARDS as CARDS
from tests.test_parsers_writer_lines import mangled_texts, writer_texts
from tests.test_reader_fastpath import (
    MUTATIONS,
    as_file,
    mutated_canonical,
    repository_files,
    signature,
    simulated,
)

LINE_SHAPES = ['  "{}",', '  "{}", ', ' "{}",', '  "{}" ,', '  "{}"', '  "{}",,', '  "{}",\r']


def clear_caches() -> None:
    """Forget every line the reader has seen, so the next reading meets only new lines."""
    for table in fastpath._LINE_TABLES.values():
        table.clear()
    fastpath._TYPED_LINES.clear()
    caching.clear_caches()  # the TOML subset's lines, the action tables


def same_entry(one: object, other: object) -> bool:
    """Equal entries holding the very same card objects (the reader's interned ones)."""
    if one != other:
        return False
    if isinstance(one, tuple) and isinstance(other, tuple):
        return all(a is b for a, b in zip(one[2], other[2], strict=True))
    return True


@st.composite
def game_texts(draw: st.DrawFn, game: Game, count: int) -> str:
    """An action text of ``game`` in the writer's form, mostly one the parser accepts with
    ``count`` players: a verb of the game, its actor, and the argument its verb takes (now
    and then a player beyond the hand's, a card twice, an amount of 0, a wrong argument)."""
    verb = draw(st.sampled_from(sorted(GAME_VERBS[game], key=str)))
    dealer = verb in DEALER_VERBS
    player = st.integers(1, min(count + 1, 9)).map("p{}".format)
    actor = draw(st.sampled_from(["d", "p1"]) if draw(st.integers(0, 9)) == 0
                 else st.just("d") if dealer else player)
    parts = [actor, str(verb.value)]
    if verb is Verb.DEAL_HOLE or draw(st.integers(0, 19)) == 0:
        parts.append(draw(player))
    one_card = st.sampled_from(CARDS)
    some_cards = st.lists(one_card, min_size=1, max_size=13).map("".join)
    amounts = st.one_of(st.integers(0, 10**4),
                        st.sampled_from([10**15 - 1, 10**15, 10**16 + 3])).map(str)
    argument = draw(st.one_of(some_cards, one_card, amounts, st.sampled_from(RUMMOLI_POTS),
                              st.none()) if draw(st.integers(0, 9)) == 0
                    else st.none() if verb in NO_ARGUMENT else
                    amounts if verb in AMOUNT else
                    st.sampled_from(RUMMOLI_POTS) if verb is Verb.CLAIM else
                    one_card if verb is Verb.TURN_UP else
                    st.one_of(st.none(), some_cards) if verb is Verb.SHOW_MUCK else some_cards)
    if argument is not None:
        parts.append(argument)
    return " ".join(parts)


@st.composite
def lines_of_a_game(draw: st.DrawFn) -> tuple[Game, int, list[str]]:
    game = draw(st.sampled_from(list(Game)))
    count = draw(st.integers(0, 18))
    texts = draw(st.lists(st.one_of(game_texts(game, max(count, 1)), game_texts(game, count),
                                    writer_texts(), mangled_texts()), max_size=40))
    shapes = draw(st.lists(st.sampled_from(LINE_SHAPES[:1] * 8 + LINE_SHAPES),
                           min_size=len(texts), max_size=len(texts)))
    return game, count, [shape.format(text) for text, shape in zip(texts, shapes, strict=True)]


@settings(max_examples=1000, deadline=None)
@given(lines_of_a_game())
def test_lines_read_together_read_as_one_at_a_time(found: tuple[Game, int, list[str]]) -> None:
    game, count, lines = found
    together = fastpath._writer_entries(lines, game, count)
    alone = [fastpath.writer_entry(line, game, count) for line in lines]
    assert len(together) == len(alone)
    for line, one, other in zip(lines, together, alone, strict=True):
        assert same_entry(one, other), line


def test_lines_of_both_kinds_read_together_as_one_at_a_time() -> None:
    """Fixed lines, so that the comparison surely meets both branches: a simulated Big Two
    game's lines (read) and the same lines spoilt in ways the writer never writes (left to
    the hands: a space too many, no comma, a player beyond the hand's, a card twice)."""
    hand = simulated()["bigtwo"][0]
    lines = dumps_hand(hand).splitlines()
    opening = lines.index("actions = [")
    written = lines[opening + 1 : lines.index("]", opening)]
    spoilt = [line.replace(" ", "  ", 2) for line in written[:3]] + [
        written[0].rstrip(","), written[0].replace("p1", "p9", 1),
        '  "p1 pl 3c3c",', '  "p1 pl 3c",  ']
    lines = written + spoilt
    together = fastpath._writer_entries(lines, Game.BIGTWO, 4)
    alone = [fastpath.writer_entry(line, Game.BIGTWO, 4) for line in lines]
    for line, one, other in zip(lines, together, alone, strict=True):
        assert same_entry(one, other), line
    assert None not in alone[: len(written)]
    assert alone[len(written):] == [None] * len(spoilt)


def test_the_writers_lines_are_all_taken_together() -> None:
    """Every new line of simulated hands of each game is read by the bulk reading, none left
    to the hands one at a time (or the test above compares mostly Nones)."""
    for hands in simulated().values():
        by_table: dict[tuple[Game, int], dict[str, None]] = {}
        for hand in hands[:200]:
            assert hand.game is not None
            lines = dumps_hand(hand).splitlines()
            opening = lines.index("actions = [")
            closing = lines.index("]", opening)
            by_table.setdefault((hand.game, hand.num_players), {}).update(
                dict.fromkeys(lines[opening + 1 : closing]))
        for (game, count), wanted in by_table.items():
            lines = [*wanted]
            together = fastpath._writer_entries(lines, game, count)
            assert None not in together
            assert together == [fastpath.writer_entry(line, game, count) for line in lines]


def test_a_line_break_inside_a_line_reads_each_line_alone() -> None:
    lines = ['  "p1 pl 3h",', '  "p2 pl 4h",\n  "p3 pl 5h",', '  "p1 ps",']
    assert fastpath._writer_entries(lines, Game.BIGTWO, 4) == [
        fastpath.writer_entry(line, Game.BIGTWO, 4) for line in lines]


def readings(chunks: list[Chunk], source: str, size: int
             ) -> Iterator[tuple[tuple[HandHistory, ActionFields | None],
                                 tuple[HandHistory, ActionFields | None]]]:
    """Each chunk read alone and read together (``size`` at a time), both from empty caches."""
    clear_caches()
    alone = [hand_and_fields(chunk, source) for chunk in chunks]
    clear_caches()
    together = [found for start in range(0, len(chunks), size)
                for found in hands_and_fields(chunks[start : start + size], source)]
    yield from zip(alone, together, strict=True)


def full(found: tuple[HandHistory, ActionFields | None]) -> HandHistory:
    hand, fields = found
    return hand if fields is None else with_actions(hand, fields)


def assert_read_alike(data: bytes | str, source: str = "<test>", size: int = 500) -> int:
    """Read ``data``'s chunks both ways; how many came by the fast path."""
    stream = io.BytesIO(data) if isinstance(data, bytes) else io.StringIO(data)
    chunks = list(iter_chunks(stream, source))
    fast = 0
    for alone, together in readings(chunks, source, size):
        assert (alone[1] is None) == (together[1] is None)
        assert alone[1] == together[1]
        assert signature(full(alone)) == signature(full(together))
        assert full(alone) == full(together)
        fast += together[1] is not None
    return fast


@pytest.mark.parametrize("path", list(repository_files()), ids=str)
def test_repository_files(path: object) -> None:
    assert_read_alike(path.read_bytes(), str(path))  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bigtwo", "rummoli", "seveneight"])
@pytest.mark.parametrize("size", [1, 7, 500])
def test_simulated_hands(game: str, size: int) -> None:
    texts = [dumps_hand(hand) for hand in simulated()[game]][:600]
    assert assert_read_alike(as_file(texts), game, size) == len(texts)


def test_tables_too_small_for_the_new_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables that fill up while a group is read (cleared, or too small for the group's new
    lines) only cost speed."""
    texts = [dumps_hand(hand) for hand in simulated()["bigtwo"]][:120]
    for limit in (5, 60, 400):
        monkeypatch.setattr(fastpath, "_LINE_CACHE_LIMIT", limit)
        assert assert_read_alike(as_file(texts), "bigtwo", 40) == len(texts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS)
def test_mutated_canonical_hands(pick: int, mutations: list[_Mutation]) -> None:
    assert_read_alike(mutated_canonical(pick, mutations) * 2)


HEADER_KEYS = ["format_version", "variant", "game_id", "round", "starting_stacks",
               "finishing_stacks", "players", "hand", "table", "time", "day", "month", "year",
               "dealer", "seat_count", "min_bet", "antes", "board_before", "finale_pot",
               "currency", "_copy", "_note", "actions", "ante", "bad-key", "x y"]
_INTS = st.one_of(st.integers(-10**6, 10**6), st.integers(-10**19, 10**19))
HEADER_VALUES = st.one_of(
    _INTS.map(str), st.sampled_from(["012", "-0", "+5", "1_000", "0x10", "1.5", "true", "1e3"]),
    st.lists(_INTS, max_size=9).map(lambda values: "[" + ", ".join(map(str, values)) + "]"),
    st.lists(_INTS, max_size=4).map(lambda values: "[" + ",".join(map(str, values)) + ",]"),
    st.sampled_from(["[]", "[ ]", "[1,2]", "[1, 2,]", "[01]", "[1, \"a\"]", "[[1]]"]),
    st.text(max_size=8).map(lambda text: f'"{text}"'),
    st.sampled_from(['"Back room"', '"B2"', '"N78"', '"a\\"b"', '"x" # c', "'lit'", '""']),
    st.builds("{:02d}:{:02d}:{:02d}".format, st.integers(0, 30), st.integers(0, 70),
              st.integers(0, 70)),
    st.sampled_from(["19:30:00.5", "19:30", "1979-05-27", "all", "per_pot", "false", "True"]))
HEADER_SHAPES = ["{} = {}"] * 8 + ["{}={}", "{}  = {}", "{} = {} ", "{} = {} # c", " {} = {}",
                                   "{} = {}\r", "{} =\t{}"]


@st.composite
def header_lines(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 15)) == 0:
        return draw(st.sampled_from(["", "   ", "# note", "[3]", "actions = [", "]", "x"]))
    shape = draw(st.sampled_from(HEADER_SHAPES))
    return shape.format(draw(st.sampled_from(HEADER_KEYS)), draw(HEADER_VALUES))


def compare_typed_together(headers: list[list[str]]) -> Counter[bool]:
    """Type the lines of ``headers`` one at a time, then together, and check that every line
    typed together is typed as alone; how many were typed together (True) and left (False)."""
    clear_caches()
    alone = {line: fastpath._type_lines([line], [None]) for header in headers
             for line in header}
    clear_caches()
    fastpath._type_new_header_lines(headers)
    typed: Counter[bool] = Counter()
    for line, found in alone.items():
        pair = fastpath._TYPED_LINES.get(line)
        typed[pair is not None] += 1
        if pair is not None:  # else left to the hand's own reading, which gives ``found``
            assert found == [pair], line
            assert type(found[0][1]) is type(pair[1]), line
            assert [*map(type, found[0][1])] == [*map(type, pair[1])] \
                if type(pair[1]) is tuple else True, line
            assert pair[0] is sys.intern(pair[0])
    return typed


@settings(max_examples=800, deadline=None)
@given(st.lists(st.lists(header_lines(), max_size=12), max_size=4))
def test_header_lines_typed_together_as_one_at_a_time(headers: list[list[str]]) -> None:
    compare_typed_together(headers)


def test_header_lines_of_both_kinds_typed_together_or_left() -> None:
    """Fixed lines, so that the comparison surely meets both branches: lines of the
    writer's form (typed together) and lines it leaves to the hand (odd spacing, a comment,
    a number TOML does not allow, a value of another type)."""
    typed = compare_typed_together([
        ["round = 3", "starting_stacks = [100, 200, -5]", 'table = "B2"', "time = 19:30:00",
         "min_bet = 0", "finishing_stacks = []", '_note = "a b"'],
        ["round=3", "round = 012", "min_bet = 1_000", 'table = "x" # c', " round = 4",
         "day = 1979-05-27", "seat_count = 1.5", "players = [[1]]"],
    ])
    assert typed[True] >= 5 and typed[False] >= 5, typed


def test_the_writers_header_lines_are_all_typed_together() -> None:
    """Every header line of simulated hands of each game but arrays of names (the players',
    which hardly ever change) is typed together."""
    for hands in simulated().values():
        clear_caches()
        texts = [dumps_hand(hand) for hand in hands[:200]]
        headers = [[line for line in text.splitlines() if " = " in line and
                    not line.startswith("actions") and '["' not in line] for text in texts]
        fastpath._type_new_header_lines(headers)
        for header in headers:
            for line in header:
                assert line in fastpath._TYPED_LINES, line
                pair = fastpath._TYPED_LINES[line]
                del fastpath._TYPED_LINES[line]
                assert fastpath._type_lines([line], [None]) == [pair]
