"""Mutation fuzzing of hand histories: shared by the test suite and ``benchmarks/fuzz.py``.

A case is a valid hand history (a seed, from ``data/samples/``) and a short list
of :class:`Mutation` s applied to its bytes: flip a bit, drop, duplicate or swap
bytes, truncate, drop, duplicate, swap or replace tokens and lines.  Positions
are plain non-negative integers taken modulo the current length, so a case is
reproducible from ``(seed index, mutations)`` alone and hypothesis shrinks it well.

:func:`run_case` feeds the mutated bytes through the reader and every hand that
parses through its rules engine, and checks the promise: each hand either
replays or is rejected with a ParseError (in ``hand.errors``) or a RuleError,
and every error names a line.  Then it feeds the same bytes through the ingest's
own path (:func:`analytics.warehouse.pipeline.work.process_data`: the per-hand reader, the
7 & 8 block scanner and replay, the batch rows) and checks that it
loads exactly the hands the reference replays (the same ids), rejects the others, and
meets no internal error and no failing fast path.  Anything else raises
:class:`FuzzFailure`; a case running longer than the hang bound raises :class:`Hang`.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from analytics.rules import RuleError, replay
from analytics.warehouse.pipeline.rows import Batch, FileContext
from analytics.warehouse.pipeline.work import INTERNAL_STAGE, UnitResult, process_data
from parsers import ParseError, read_hands
from parsers.reader import iter_chunks

ROOT: Final = Path(__file__).resolve().parent.parent
SAMPLES: Final = ROOT / "data" / "samples"

KINDS: Final = (
    "flip", "drop", "duplicate", "truncate", "swap_bytes", "insert_byte",
    "drop_token", "duplicate_token", "swap_tokens", "replace_token", "nudge_number",
    "drop_line", "duplicate_line", "swap_lines",
)
"""Mutation kinds: bytes, tokens, lines."""

INTERESTING: Final = (
    b"0", b"1", b"-1", b"2", b"1.5", b"-0.5", b"1e3", b"inf", b"nan", b"true",
    b"99999999999999999999", b"9223372036854775807", b"-9223372036854775808",
    b"999999999999999", b"1000000000000000", b"2147483648", b"65536", b"4294967296",
    b"p0", b"p1", b"p2", b"p9", b"p17", b"p99", b"d", b"??", b"As", b"10d", b"2c", b"3d",
    b"cbr", b"cc", b"f", b"sm", b"up", b"pl", b"ps", b"dh", b"dw", b"xw", b"pw", b"ab",
    b"ap", b"aw", b"cl", b"im", b"rummoli", b"poker", b"[", b"]", b"[[", b"{", b"}", b'"',
    b"'", b"\\", b"#", b"=", b",", b"\n", b"\r", b"\t", b"\x00", b"\xff", b"\xc3", b"\xe2\x99\xa0",
    b"[1]", b"[2]", b'"""', b"variant", b"actions", b"players", b"round", b"dealer",
    b"N78", b"F78", b"P78", b"NRM", b"PRM", b"FRM", b"B2", b"1979-05-27", b"20:15:00",
)
"""Tokens that tend to reach corner cases: numbers at type limits, verbs, cards, syntax."""

_TOKEN: Final = re.compile(rb"[A-Za-z0-9_?+\-.]+|\s+|.", re.S)
_NUMBER: Final = re.compile(rb"-?[0-9]+")
_NUDGES: Final = (-1, 1, -2, 2, 10, -10, 100, 1000)

HANG_SECONDS: Final = 5.0
"""A case (one seed, a few hands) taking longer than this is a hang, not slowness."""


@dataclass(frozen=True, slots=True)
class Mutation:
    """One edit: ``kind`` at positions ``a`` and ``b`` (taken modulo the length), argument ``c``."""

    kind: str
    a: int
    b: int = 0
    c: int = 0


class FuzzFailure(AssertionError):
    """A case broke the promise: an exception other than a located ParseError or RuleError."""


class Hang(BaseException):
    """A case ran past :data:`HANG_SECONDS` (BaseException: no ``except Exception`` eats it)."""


def _splice(items: list[bytes], mutation: Mutation) -> list[bytes]:
    """Token- or line-level edit of ``items`` (a list of byte pieces)."""
    if not items:
        return items
    kind, n = mutation.kind, len(items)
    i, j = mutation.a % n, mutation.b % n
    out = list(items)
    if kind.startswith("drop"):
        del out[i]
    elif kind.startswith("duplicate"):
        out.insert(i, out[i])
    elif kind.startswith("swap"):
        out[i], out[j] = out[j], out[i]
    elif kind == "replace_token":
        out[i] = INTERESTING[mutation.c % len(INTERESTING)]
    elif kind == "nudge_number":
        numbers = [k for k, item in enumerate(out) if _NUMBER.fullmatch(item)]
        if numbers:
            k = numbers[mutation.a % len(numbers)]
            out[k] = str(int(out[k]) + _NUDGES[mutation.c % len(_NUDGES)]).encode()
    return out


def apply(data: bytes, mutation: Mutation) -> bytes:
    """``data`` with one mutation applied."""
    kind, n = mutation.kind, len(data)
    if kind in ("drop_line", "duplicate_line", "swap_lines"):
        return b"".join(_splice(data.splitlines(keepends=True), mutation))
    if kind in ("drop_token", "duplicate_token", "swap_tokens", "replace_token", "nudge_number"):
        return b"".join(_splice(_TOKEN.findall(data), mutation))
    if kind == "insert_byte":
        at = mutation.a % (n + 1)
        return data[:at] + bytes([mutation.c % 256]) + data[at:]
    if n == 0:
        return data
    i, j = mutation.a % n, mutation.b % n
    if kind == "flip":
        return data[:i] + bytes([data[i] ^ (1 << (mutation.c % 8))]) + data[i + 1 :]
    if kind == "truncate":
        return data[:i]
    low, high = min(i, j), max(i, j)
    span = data[low : min(high + 1, low + 64)]  # at most 64 bytes: a local edit
    if kind == "drop":
        return data[:low] + data[low + len(span) :]
    if kind == "duplicate":
        return data[:low] + span + data[low:]
    if kind == "swap_bytes":
        swapped = bytearray(data)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return bytes(swapped)
    raise ValueError(f"unknown mutation kind {kind!r}")


def mutate(data: bytes, mutations: list[Mutation] | tuple[Mutation, ...]) -> bytes:
    """``data`` with every mutation applied in order."""
    for mutation in mutations:
        data = apply(data, mutation)
    return data


def load_seeds(per_file: int = 12) -> list[tuple[str, bytes]]:
    """Valid hands of each game from the sample files: ``(name, .phhs bytes with header)``.

    Each seed is one hand under its ``[N]`` header; every third seed carries the
    next hand too, so that mutations can merge or split hands.
    """
    seeds: list[tuple[str, bytes]] = []
    for path in sorted(SAMPLES.glob("*.phhs")):
        with path.open("rb") as stream:
            chunks = []
            for chunk in iter_chunks(stream, path.name):
                chunks.append(chunk)
                if len(chunks) > per_file:
                    break
        for number, chunk in enumerate(chunks[:per_file]):
            parts = [chunk] if number % 3 else chunks[number : number + 2]
            text = "".join(f"[{c.header}]\n" + "\n".join(c.lines) + "\n" for c in parts)
            seeds.append((f"{path.stem}#{chunk.index}", text.encode("utf-8")))
    return seeds


@contextmanager
def hang_guard(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread if the body runs longer than ``seconds``."""

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"a case ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_CONTEXT: Final = FileContext("fuzz.phhs", "0" * 64, dt.datetime(2026, 1, 1))


def run_case(data: bytes, *, text: bool = False, rows: bool = True) -> dict[str, int]:
    """Read ``data`` and replay each hand; return counts of ``ok``, ``parse`` and ``rules``.

    ``text=True`` reads it as a string (decoded with replacement characters)
    instead of bytes.  ``rows=True`` also turns every replayed hand into the
    warehouse's column batches, as ingest does.  Raises :class:`FuzzFailure` on
    any other exception or an error that names no line.
    """
    counts = {"ok": 0, "parse": 0, "rules": 0}
    source: io.BytesIO | io.StringIO = (io.StringIO(data.decode("utf-8", "replace"))
                                        if text else io.BytesIO(data))
    batch = Batch(_CONTEXT)
    try:
        for hand in read_hands(source, name="fuzz.phhs"):
            if hand.errors:
                for error in hand.errors:
                    if not isinstance(error, ParseError):
                        raise FuzzFailure(f"hand.errors holds a {type(error).__name__}")
                    if error.line is None:
                        raise FuzzFailure(f"parse error without a line: {error}")
                counts["parse"] += 1
                continue
            try:
                outcome = replay(hand)
            except RuleError as error:
                if error.line is None:
                    raise FuzzFailure(f"rule error without a line: {error}") from error
                counts["rules"] += 1
                continue
            counts["ok"] += 1
            if rows:
                batch.add(hand, outcome)
        if rows and len(batch):
            batch.tables()
    except (FuzzFailure, Hang):
        raise
    except Exception as error:
        raise FuzzFailure(f"{type(error).__name__}: {error}") from error
    if rows:
        # The reader of text reads what the bytes decode to: the ingest reads those bytes.
        _check_ingest_path(data.decode("utf-8", "replace").encode() if text else data,
                           counts, batch)
    return counts


INGEST_BATCH: Final = 50
"""Hands per batch on the ingest path: small, so that a case's hands span batches."""


def _check_ingest_path(data: bytes, counts: dict[str, int], reference: Batch) -> None:
    """Raise :class:`FuzzFailure` unless the ingest's path (:func:`process_data`) loads
    exactly the hands the reference loaded (``reference``'s ids, its repeats counted as
    duplicates) and rejects the others, with no internal error and no fast path failing."""
    result = UnitResult(0, True)
    try:
        process_data(data, _CONTEXT, INGEST_BATCH, result)
    except Exception as error:
        raise FuzzFailure(f"ingest path: {type(error).__name__}: {error}") from error
    internal = [reject for reject in result.rejects if reject.stage == INTERNAL_STAGE]
    if internal:
        last = (internal[0].detail or "").strip().splitlines()[-1:]
        raise FuzzFailure(f"ingest path: {internal[0].error} [{' '.join(last)}]")
    if result.fallbacks:
        heading, _, trace = result.fallbacks[0].partition("\n")
        raise FuzzFailure(f"ingest path: {heading} [{trace.strip().splitlines()[-1]}]")
    ids: set[int] = set()
    for tables in result.batches:
        ids.update(tables["hands"]["hand_id"].to_pylist())
    rejected = counts["parse"] + counts["rules"]
    duplicates = sum(result.batch_duplicates.values())
    if (ids != reference.ids or len(result.rejects) != rejected
            or duplicates != sum(reference.duplicates.values())):
        raise FuzzFailure(f"ingest path disagrees with the reader and engines: {len(ids)} "
                          f"loaded, {duplicates} repeated, {len(result.rejects)} rejected; "
                          f"the reference {len(reference.ids)}, "
                          f"{sum(reference.duplicates.values())}, {rejected}")
