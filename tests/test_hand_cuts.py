"""Splitting a file at :class:`parsers.reader.HandCuts` gives the chunks of the whole file.

Ingest workers read large files in parts (from one cut to the next) and call
``iter_chunks(part, source, start=cut)``: the chunks of all parts together must
be exactly the chunks of the whole file -- lines, header, index, first line and
problem -- whatever the bytes, and however the scan is fed.
"""

from __future__ import annotations

import functools
import importlib
import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse.pipeline.sources import SourceRef, read_range
from parsers import dumps_hands
from parsers.reader import (
    MAX_HAND_LINES,
    MAX_LINE_LENGTH,
    Chunk,
    Cut,
    HandCuts,
    iter_chunks,
    plain_hands,
)

ROOT = Path(__file__).resolve().parent.parent


def chunk_key(chunk: Chunk) -> tuple[object, ...]:
    problem = chunk.problem
    return (chunk.index, chunk.first_line, tuple(chunk.lines), chunk.header,
            None if problem is None else (str(problem), problem.line, problem.hand_index))


def cuts_of(data: bytes, hands: int, size: int, block: int) -> list[Cut]:
    scan = HandCuts(hands, size)
    for start in range(0, len(data), block):
        scan.feed(data[start:start + block])
    return scan.cuts


def plain_keys(data: bytes, start: Cut | None = None) -> list[tuple[object, ...]]:
    """The chunks of ``data`` by iter_chunks; checks that plain_hands, when it takes
    the text, gives the same ones (raws, lines, indexes, first lines, headers)."""
    keys = [chunk_key(c) for c in iter_chunks(io.BytesIO(data), "f", start=start)]
    hands = plain_hands(data, "f", start)
    if hands is not None:
        assert [chunk_key(c) for c in hands.chunks(0, len(hands))] == keys
        assert hands.raws == ["\n".join(key[2]) for key in keys]  # type: ignore[arg-type]
        assert hands.first_lines == [key[1] for key in keys]
        assert hands.indexes == [key[0] for key in keys]
        view = hands.chunks(1, len(hands) + 5)
        assert [chunk_key(c) for c in view[:]] == keys[1:]
        with pytest.raises(IndexError):
            view[len(view)]
    return keys


def by_parts(data: bytes, cuts: list[Cut]) -> list[tuple[object, ...]]:
    starts: list[Cut | None] = [None, *cuts]
    ends = [cut.offset for cut in cuts] + [len(data)]
    keys: list[tuple[object, ...]] = []
    for start, end in zip(starts, ends, strict=True):
        begin = 0 if start is None else start.offset
        keys.extend(plain_keys(data[begin:end], start))
    return keys


def assert_same_chunks(data: bytes, hands: int = 1, size: int = 1 << 30,
                       block: int = 1 << 20) -> list[Cut]:
    cuts = cuts_of(data, hands, size, block)
    whole = plain_keys(data)
    assert by_parts(data, cuts) == whole
    assert [c.offset for c in cuts] == sorted({c.offset for c in cuts})
    return cuts


@functools.cache
def simulated() -> bytes:
    """Simulated 7 & 8 hands and Rummoli rounds as one file, made once per process."""
    text = dumps_hands(simulate_seveneight(30, 4, 3)) + dumps_hands(simulate_rummoli(3, 4, 3))
    return text.encode()


def test_simulated_hands_are_cut_at_every_hand() -> None:
    data = simulated()
    cuts = assert_same_chunks(data, hands=1)
    assert len(cuts) == data.count(b"\n[") and cuts[0].hands == 1
    for block in (1, 7, 100, 4096):
        assert cuts_of(data, 1, 1 << 30, block) == cuts


def test_plain_hands_takes_the_usual_text_only() -> None:
    data = simulated()
    hands = plain_hands(data, "f")
    assert hands is not None and len(hands) == data.count(b"\n[") + 1
    for unusual in (b"\xef\xbb\xbf" + data, data[:-1], b"# a comment\n" + data,
                    data.replace(b"\n", b"\r\n", 1), data + b"\x00\n", b"", b"a = 1\n"):
        assert plain_hands(unusual, "f") is None
    long_hand = b"[1]\n" + b"a = 1\n" * (MAX_HAND_LINES + 1)
    assert plain_hands(long_hand, "f") is None
    assert plain_keys(long_hand + b"[2]\n")[0][4] is not None  # the problem iter_chunks reports
    assert plain_hands(b"[1]\n" + b"a = 1\n" * MAX_HAND_LINES + b"[2]\n", "f") is not None
    empty = plain_hands(b"[1]\n[2]\n\n[3]\n", "f")
    assert empty is not None
    assert [c.lines for c in empty.chunks(0, 3)] == [[], [""], []]


def test_cuts_every_so_many_hands_or_bytes() -> None:
    data = simulated()
    by_hands = assert_same_chunks(data, hands=10)
    assert [c.hands for c in by_hands] == [10, 20, 30]
    by_size = assert_same_chunks(data, hands=10**9, size=len(data) // 4)
    assert 3 <= len(by_size) <= 4


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted((ROOT / "data" / "samples").glob("*.phh*"))
                         + sorted((ROOT / "tests" / "data").rglob("*.phh*")),
                         ids=lambda p: p.name)
def test_repository_files(path: Path) -> None:
    data = path.read_bytes()
    for block in (5, 1 << 20):
        assert_same_chunks(data, hands=1, block=block)


PREFIXES = [
    b"",
    b"\n\n# a comment\n\n",
    b"variant = 'x'\n",  # keys before the first header: a hand of its own
    b"  \n\t# indented comment\n",
    b"[[not]]\n",
    b"  [1]\n",  # an indented header
]

ODDITIES = [
    b"\xef\xbb\xbf",  # a UTF-8 byte order mark: no cuts at all
    b"\xff\xfe",
    b"bad \xff byte\n",
    b"a NUL \x00 byte\n",
    b"a carriage return\r\n",
    b"x" * (MAX_LINE_LENGTH + 1) + b"\n",
    b"x" * (MAX_LINE_LENGTH - 1) + b"\n",
    "h\u00e9llo = '\u00e9\u00e9'\n".encode(),
    b"[2] # a header with a comment\n",
    b"[2]\t\n",
    b"\x0b[3]\n",
    b" \x0b[3]\n",
]


@pytest.mark.slow
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("oddity", ODDITIES)
def test_odd_bytes_anywhere(prefix: bytes, oddity: bytes) -> None:
    data = simulated()
    lines = data.split(b"\n")
    rng = random.Random(len(prefix) * 31 + len(oddity))
    for _ in range(3):
        at = rng.randrange(len(lines))
        mixed = prefix + b"\n".join(lines[:at]) + b"\n" + oddity + b"\n".join(lines[at:])
        for block in (3, 64, 1 << 20):
            assert_same_chunks(mixed, hands=rng.choice((1, 2, 5)), block=block)
    if oddity.startswith((b"\xef\xbb\xbf", b"\xff\xfe")):
        assert cuts_of(oddity + data, 1, 1 << 30, 1 << 20) == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["[1]", " [2]", "\t[x]", "[", "a = 1", "", "# c", "  ",
                                 "[3] # c", "b = [", "]", "\u00e9 = 2", "[[a]]", "[4",
                                 "\x00", "\r", "\u00a0[5]", 'n = """', '"""', "l = '''",
                                 "\ufeff[6]", "  [7],", "b = [ # c", 's = "]"']),
                max_size=40),
       st.integers(1, 4), st.integers(1, 50), st.booleans())
def test_any_line_mix(lines: list[str], hands: int, block: int, end_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if end_newline else "")
    assert_same_chunks(text.encode(), hands=hands, size=1 << 30, block=block)


def load_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, workers: int,
               whole: bool) -> tuple[Path, int]:
    """Ingest ``text`` as one file, in parts (small thresholds) or whole; return the
    database and how many parts were read inline (``workers == 0``)."""
    import analytics.warehouse.pipeline.work as pipeline
    from analytics.warehouse import ingest

    ingest_module = importlib.import_module("analytics.warehouse.pipeline.run")

    if whole:
        monkeypatch.setattr(ingest_module, "WHOLE_SOURCE_BYTES", 1 << 30)
    else:
        monkeypatch.setattr(ingest_module, "WHOLE_SOURCE_BYTES", 1_000)
        monkeypatch.setattr(ingest_module, "PART_BYTES", 4_000)
        monkeypatch.setattr(ingest_module, "BATCH_HANDS", 7)
        # Scanned in blocks of 4 KiB: the scan stops at the block with the NUL.
        monkeypatch.setattr(ingest_module, "SCAN_BLOCK", 4096)
    reads: list[tuple[int, int]] = []

    def counted(ref: SourceRef, begin: int, end: int) -> bytes:
        reads.append((begin, end))
        return read_range(ref, begin, end)

    monkeypatch.setattr(pipeline, "read_range", counted)
    folder = tmp_path / f"in-{workers}-{whole}"
    folder.mkdir()
    (folder / "big.phhs").write_text(text, encoding="utf-8")
    db = tmp_path / f"w-{workers}-{whole}.duckdb"
    big = str(folder / "big.phhs")
    summary = ingest([big], db, workers=workers, names={big: "big.phhs"})
    assert summary.exit_code == 1 and summary.rejected == 2
    monkeypatch.undo()
    return db, len(reads)


@pytest.mark.slow
def test_ingest_in_parts_loads_what_whole_files_load(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from analytics.warehouse import reader
    from tests.test_warehouse_data import RULES_BROKEN, simulated_text

    hands = simulated_text("seveneight", 60).split("\n[")
    # A rules reject among the parts, and a NUL byte late on: the scan stops there and the
    # rest of the file (over two parts long) is split by the main process.
    hands[20] = "21]\n" + RULES_BROKEN.strip()
    hands[45] += "\nbroken = '\x00'"
    text = "\n[".join(hands) + "\n"
    reference, _ = load_parts(tmp_path, monkeypatch, text, workers=1, whole=True)
    inline, parts = load_parts(tmp_path, monkeypatch, text, workers=0, whole=False)
    assert parts >= 4  # the parts before the NUL byte: the rest was split here
    pooled, _ = load_parts(tmp_path, monkeypatch, text, workers=2, whole=False)
    queries = ["SELECT hand_id, game, source_file, source_line, source_index FROM hands",
               "SELECT * EXCLUDE (rejected_at) FROM rejects",
               "SELECT * FROM actions", "SELECT * FROM seats"]
    for sql in queries:
        with reader(reference) as a:
            expected = sorted(a.execute(sql).fetchall())
        for db in (inline, pooled):
            with reader(db) as b:
                assert sorted(b.execute(sql).fetchall()) == expected, sql


def test_a_part_that_cannot_be_read_loads_nothing_of_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that shrank after it was hashed: its later part is short, the whole file is
    rolled back and reported, and a rerun (of the file as it now is) loads it."""
    import analytics.warehouse.pipeline.work as pipeline
    from analytics.warehouse import SourceError, ingest, reader
    from tests.test_warehouse_data import simulated_text

    ingest_module = importlib.import_module("analytics.warehouse.pipeline.run")
    monkeypatch.setattr(ingest_module, "WHOLE_SOURCE_BYTES", 1_000)
    monkeypatch.setattr(ingest_module, "BATCH_HANDS", 5)
    big = tmp_path / "big.phhs"
    big.write_text(simulated_text("seveneight", 20), encoding="utf-8")
    other = tmp_path / "other.phhs"
    other.write_text(simulated_text("seveneight", 3).replace("\n[", "\n_o = 1\n[") + "_o = 1\n",
                     encoding="utf-8")
    parts: list[int] = []

    def shrinking(ref: SourceRef, begin: int, end: int) -> bytes:
        parts.append(begin)
        if ref.path == str(big) and len(parts) == 3:
            raise SourceError(f"{ref.name}: cannot be read: the file changed while it was loaded")
        return read_range(ref, begin, end)

    monkeypatch.setattr(pipeline, "read_range", shrinking)
    db = tmp_path / "w.duckdb"
    summary = ingest([big, other], db, workers=0)
    assert [f.status for f in summary.files] == ["error", "loaded"]
    assert "changed while it was loaded" in (summary.files[0].message or "")
    assert summary.exit_code == 2
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 3
        assert con.execute("SELECT count(*) FROM files").fetchall()[0][0] == 1
    monkeypatch.setattr(pipeline, "read_range", read_range)
    again = ingest([big, other], db, workers=0)
    assert [f.status for f in again.files] == ["loaded", "already loaded"]
    assert again.loaded == 20
