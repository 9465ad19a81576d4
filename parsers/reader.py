"""Streaming reader: hand histories one at a time, from a path, a stream or a string.

Like python-chess's PGN reader, a file is read lazily, hand by hand, so a 1 GB
``.phhs`` parses in bounded memory; a broken hand does not stop the rest of the
file.  In lenient mode (the default) a hand's problems are attached to it as
``hand.errors``; in strict mode the first problem is raised as a
:class:`~parsers.errors.ParseError`.

File layout: a ``.phh`` file holds one hand as top-level keys; a ``.phhs`` file
holds many, each under a table header ``[1]``, ``[2]``, ... (any bare name is
accepted).  Keys before the first header, if any, form a hand of their own.
"""

from __future__ import annotations

import io
import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Final

from parsers.build import build_hand
from parsers.errors import ParseError
from parsers.knobs import Game
from parsers.model import HandHistory
from parsers.tomlsubset import INT64_MAX, INT64_MIN, Document, Unsupported, parse_document

__all__ = ["MAX_HAND_LINES", "MAX_LINE_LENGTH", "Chunk", "iter_chunks", "loads_hands", "read_hands"]

MAX_LINE_LENGTH: Final = 64 * 1024
"""Longer lines are refused (the hand is rejected, the file goes on): no hand needs them."""

MAX_HAND_LINES: Final = 20_000
"""A hand with more lines is refused; the longest legal Rummoli round is a few hundred."""

_HEADER: Final = re.compile(r"\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(?:#.*)?\Z")
_TOML_POSITION: Final = re.compile(r"\(at line (\d+), column (\d+)\)")

Source = str | os.PathLike[str] | IO[str] | IO[bytes]


@dataclass(slots=True)
class Chunk:
    """The raw text of one hand: its lines, where it starts, and a problem found while reading."""

    index: int
    first_line: int
    lines: list[str]
    header: str | None
    problem: ParseError | None = None


_BLOCK: Final = 1 << 18


def _line_problem(text: str) -> str:
    if len(text) > MAX_LINE_LENGTH:
        return f"line longer than {MAX_LINE_LENGTH} characters"
    if "\x00" in text:
        return "binary data (NUL byte) in the line"
    return ""


def _careful_lines(raw_lines: list[bytes]) -> Iterator[tuple[str | None, str]]:
    """Decode a block line by line, so that one bad line spoils only itself."""
    for raw in raw_lines:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield None, f"not valid UTF-8 (byte {error.start + 1} of the line)"
            continue
        problem = _line_problem(text)
        yield (None, problem) if problem else (text.rstrip("\r"), "")


def _byte_lines(stream: IO[bytes]) -> Iterator[tuple[str | None, str]]:
    """Lines of a binary stream, read in blocks of bounded size and decoded block by block.

    The common case (a block of valid UTF-8 without NUL bytes or overlong lines) costs
    one decode and one split per block; a block with a problem is redone line by line.
    """
    start = stream.read(3)
    if start[:2] in (b"\xff\xfe", b"\xfe\xff"):
        yield None, "the file is UTF-16; handlab reads UTF-8"
        return
    carry = start[3:] if start == b"\xef\xbb\xbf" else start
    skipping = False  # inside a line already reported as too long
    while True:
        block = stream.read(_BLOCK)
        data = carry + block
        if not block:
            if data and not skipping:
                yield from _careful_lines([data])
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            # No line end in a whole block: the line is too long; drop it as it streams by.
            if not skipping:
                yield None, f"line longer than {MAX_LINE_LENGTH} characters"
                skipping = True
            carry = b""
            continue
        carry = data[cut + 1 :]
        complete = data[: cut + 1]
        if skipping:
            first_end = complete.find(b"\n")
            complete = complete[first_end + 1 :]
            skipping = False
        raw_lines = complete.split(b"\n")[:-1]
        try:
            text = complete.decode("utf-8")
        except UnicodeDecodeError:
            yield from _careful_lines(raw_lines)
            continue
        lines = text.split("\n")[:-1]
        if "\x00" in text or max(map(len, lines), default=0) > MAX_LINE_LENGTH:
            yield from _careful_lines(raw_lines)
            continue
        for line in lines:
            yield line.rstrip("\r") if line.endswith("\r") else line, ""


def _text_lines(stream: IO[str]) -> Iterator[tuple[str | None, str]]:
    """Lines of a text stream; ``readline`` with a limit keeps memory bounded."""
    first = True
    while True:
        raw = stream.readline(MAX_LINE_LENGTH + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_LENGTH:
            while raw and not raw.endswith("\n"):
                raw = stream.readline(MAX_LINE_LENGTH + 1)
            first = False
            yield None, f"line longer than {MAX_LINE_LENGTH} characters"
            continue
        if first and raw.startswith("\ufeff"):
            raw = raw[1:]
        first = False
        problem = _line_problem(raw)
        yield (None, problem) if problem else (raw.rstrip("\r\n"), "")


def _decoded_lines(stream: IO[bytes] | IO[str], source: str) -> Iterator[tuple[str | None, str]]:
    """Yield ``(line, problem)``: the line without its end, or None and why it is unreadable."""
    if isinstance(stream, io.TextIOBase) or isinstance(stream.read(0), str):
        return _text_lines(stream)  # type: ignore[arg-type]
    return _byte_lines(stream)  # type: ignore[arg-type]


def iter_chunks(stream: IO[bytes] | IO[str], source: str) -> Iterator[Chunk]:
    """Split a stream into per-hand chunks without parsing them (bounded memory)."""
    index = 0
    current: Chunk | None = None
    pending: list[str] = []  # blank and comment lines before any key of a headerless hand
    line_number = 0
    for line, problem in _decoded_lines(stream, source):
        line_number += 1
        if line is None:
            if current is None:
                index += 1
                current = Chunk(index, line_number, [], None)
            if current.problem is None:
                current.problem = ParseError(problem, source=source, line=line_number,
                                             hand_index=current.index)
            current.lines.append("")
            continue
        first_char = line[:1]
        header = (_HEADER.match(line)
                  if first_char == "[" or (first_char in (" ", "\t") and "[" in line) else None)
        if header is not None:
            if current is not None:
                yield current
            index += 1
            current = Chunk(index, line_number + 1, [], header.group(1))
            pending = []
            continue
        if current is None:
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                pending.append(line)
                continue
            index += 1
            current = Chunk(index, line_number - len(pending), pending, None)
            pending = []
        if len(current.lines) >= MAX_HAND_LINES:
            if current.problem is None:
                current.problem = ParseError(f"hand longer than {MAX_HAND_LINES} lines",
                                             source=source, line=line_number,
                                             hand_index=current.index)
            continue
        current.lines.append(line)
    if current is not None:
        yield current


def _parse_chunk(chunk: Chunk, source: str) -> tuple[Document | None, ParseError | None]:
    try:
        return parse_document(chunk.lines, chunk.first_line), None
    except (Unsupported, IndexError, RecursionError):
        pass
    text = "\n".join(chunk.lines)
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        position = _TOML_POSITION.search(message)
        line = column = None
        if position:
            line = chunk.first_line + int(position.group(1)) - 1
            column = int(position.group(2))
            message = message[: position.start()].strip()
        return None, ParseError(f"malformed TOML: {message}", source=source, line=line,
                                column=column, hand_index=chunk.index)
    except (RecursionError, ValueError) as error:
        # tomllib raises ValueError for integers of more than 4300 digits.
        reason = ("nested too deeply" if isinstance(error, RecursionError)
                  else "integer out of the 64-bit range (TOML integers are 64-bit)")
        return None, ParseError(f"malformed TOML: {reason}", source=source,
                                line=chunk.first_line, hand_index=chunk.index)
    out_of_range = _first_out_of_range(values)
    if out_of_range is not None:
        key, line = out_of_range, _key_lines(chunk).get(out_of_range, chunk.first_line)
        return None, ParseError(f"{key}: integer out of the 64-bit range (TOML integers are"
                                " 64-bit)", source=source, line=line, hand_index=chunk.index)
    key_lines = _key_lines(chunk)
    return Document(values, {k: key_lines.get(k, chunk.first_line) for k in values}, {}), None


def _out_of_range(value: object) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return not INT64_MIN <= value <= INT64_MAX
    if isinstance(value, list):
        return any(_out_of_range(item) for item in value)
    if isinstance(value, dict):
        return any(_out_of_range(item) for item in value.values())
    return False


def _first_out_of_range(values: dict[str, object]) -> str | None:
    """The first key holding an integer TOML cannot represent (tomllib accepts any size)."""
    return next((key for key, value in values.items() if _out_of_range(value)), None)


def _key_lines(chunk: Chunk) -> dict[str, int]:
    """Best-effort key positions when tomllib parsed the hand (it reports none)."""
    found: dict[str, int] = {}
    for offset, line in enumerate(chunk.lines):
        key, equals, _ = line.partition("=")
        key = key.strip().strip('"')
        if equals and key and key not in found:
            found[key] = chunk.first_line + offset
    return found


def _hand_from_chunk(chunk: Chunk, source: str) -> HandHistory:
    raw = "\n".join(chunk.lines)
    if chunk.problem is not None:
        return _broken(chunk, source, raw, chunk.problem)
    document, error = _parse_chunk(chunk, source)
    if document is None:
        assert error is not None
        return _broken(chunk, source, raw, error)
    return build_hand(document, source=source, index=chunk.index, start_line=chunk.first_line,
                      raw=raw)


def _broken(chunk: Chunk, source: str, raw: str, error: ParseError) -> HandHistory:
    return HandHistory(game=None, variant="", rules=None, source=source, line=chunk.first_line,
                       index=chunk.index, raw=raw, errors=(error,))


def _open(source: Source) -> tuple[IO[bytes] | IO[str], str, bool]:
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and "=" not in source
    ):
        path = os.fspath(source)
        return open(path, "rb"), path, True  # closed by read_hands
    if isinstance(source, str):
        return io.StringIO(source), "<string>", True
    name = getattr(source, "name", None)
    return source, str(name) if isinstance(name, str) else "<stream>", False


def read_hands(
    source: Source,
    *,
    strict: bool = False,
    games: Iterable[Game] | None = None,
    name: str | None = None,
) -> Iterator[HandHistory]:
    """Yield the hands of ``source`` one at a time.

    ``source`` is a path, a text or binary stream, or a string holding the
    histories themselves (a string with a newline or ``=`` is taken as text).
    ``name`` overrides the source name used in errors.  With ``strict=True`` the
    first problem raises :class:`ParseError`; otherwise problems are attached to
    the hand they belong to (``hand.errors``) and reading goes on.  ``games``
    keeps only hands of those games (hands with errors are always yielded).
    """
    stream, source_name, owned = _open(source)
    if name is not None:
        source_name = name
    wanted = frozenset(games) if games is not None else None
    try:
        for chunk in iter_chunks(stream, source_name):
            hand = _hand_from_chunk(chunk, source_name)
            if hand.errors:
                if strict:
                    raise hand.errors[0]
            elif wanted is not None and hand.game not in wanted:
                continue
            yield hand
    finally:
        if owned:
            stream.close()


def loads_hands(text: str, *, strict: bool = False, name: str = "<string>") -> list[HandHistory]:
    """All hands of ``text`` (the histories themselves, never a path), as a list."""
    return list(read_hands(io.StringIO(text), strict=strict, name=name))
