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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, pairwise, repeat
from operator import not_
from typing import IO, Any, Final, cast, overload

from parsers.build import build_hand
from parsers.errors import ParseError
from parsers.model import HandHistory
from parsers.rule_options import Game
from parsers.tomlsubset import INT64_MAX, INT64_MIN, Document, Unsupported, parse_document

__all__ = [
    "MAX_HAND_LINES",
    "MAX_LINE_LENGTH",
    "Chunk",
    "Cut",
    "HandCuts",
    "HandTexts",
    "hand_from_chunk",
    "iter_chunks",
    "loads_hands",
    "plain_hands",
    "read_hands",
]

MAX_LINE_LENGTH: Final = 64 * 1024
"""Longer lines are refused (the hand is rejected, the file goes on): no hand needs them."""

MAX_HAND_LINES: Final = 20_000
"""A hand with more lines is refused; the longest legal Rummoli round is a few hundred."""

_HEADER_TEXT: Final = (r"\ufeff?[ \t]*\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*"
                       r"(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")
"""The format's one rule for a table header line (``[1]``, `` [ name ] # comment``): spaces
or tabs (TOML's whitespace, no other), ``[``, a bare name, ``]``, a comment at most; a
byte-order mark may open it (two files saved with one, joined).  Every splitter of a file
into hands finds the hands by it, in two forms: :data:`_HEADER` for one line,
:data:`_HEADER_LINE` in a text.  A header line inside a value left open by the hand before
it (a multi-line string or array) is not a header: :func:`open_value`."""

_HEADER: Final = re.compile(_HEADER_TEXT + r"\Z")
"""A line (without its line end) that is a table header: ``_HEADER.match(line)``."""

_HEADER_LINE: Final = re.compile(r"\n" + _HEADER_TEXT + r"(?=\n|\Z)")
"""A line end and the table header line after it, in a text of whole lines with a line end
put before the first (whitespace but the line end, so a match never runs past its line).
Its literal first character lets the engine skip from line end to line end in C."""

_OPEN_STRING: Final = "string"
_OPEN_ARRAY: Final = "array"
_LEXEMES: Final = re.compile(
    r'"""(?:[^"\\]|\\[\s\S]|""?(?!"))*"""|\'\'\'(?:[^\']|\'\'?(?!\'))*\'\'\''
    r'|"""|\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]]')
"""What decides whether a TOML text ends inside a value: multi-line strings (whole, or
unclosed), one-line strings and comments (their brackets do not count), brackets."""


def may_be_open(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` (a hand's lines) may end inside a multi-line string or
    array: it holds a triple quote, or unbalanced brackets.  A few scans in C; when False
    the hand is taken as closed (a bracket inside a string that balances an open array
    hides it: the hand is then split there and reported broken, never misread)."""
    stop = len(text) if end is None else end
    return (text.find('"""', start, stop) >= 0 or text.find("'''", start, stop) >= 0
            or text.count("[", start, stop) != text.count("]", start, stop))


def open_value(text: str) -> str | None:
    """What ``text`` (a hand's lines so far) ends inside: ``"string"`` (a multi-line string),
    ``"array"`` (a multi-line array), or None, checked only when :func:`may_be_open`."""
    if not may_be_open(text):
        return None
    depth = 0
    for lexeme in _LEXEMES.finditer(text):
        token = lexeme.group()
        if token == "[":
            depth += 1
        elif token == "]":
            depth = max(depth - 1, 0)
        elif token in ('"""', "'''"):
            return _OPEN_STRING
    return _OPEN_ARRAY if depth else None


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

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Chunks go to worker processes by the thousand: one string of joined lines (they
        # hold no line end) pickles several times faster than the dataclass's slots state.
        lines: object = "\n".join(self.lines) if self.lines else self.lines
        return _unpickle_chunk, (self.index, self.first_line, lines, self.header, self.problem)


def _unpickle_chunk(index: int, first_line: int, lines: str | list[str], header: str | None,
                    problem: ParseError | None) -> Chunk:
    return Chunk(index, first_line, lines.split("\n") if isinstance(lines, str) else lines,
                 header, problem)


_BLOCK: Final = 1 << 18


def _has_long_line(text: str | bytes) -> bool:
    """Whether a line of ``text`` (whole lines, each with its line end) is longer than
    :data:`MAX_LINE_LENGTH`: some window of that length plus one from a line start holds no
    line end.  A few backward searches in C per block, rather than a length per line."""
    newline: Any = "\n" if isinstance(text, str) else b"\n"
    position, size = 0, len(text)
    while size - position > MAX_LINE_LENGTH:
        line_end = text.rfind(newline, position, position + MAX_LINE_LENGTH + 1)
        if line_end < 0:
            return True
        position = line_end + 1
    return False


class _BadLine:
    """A line that cannot be read, with the reason; it takes its place in the line count.

    ``text`` is what the hand's text (and so ``rejects.raw``) keeps of it: a line of bytes
    that are not UTF-8, or with a NUL byte, with those bytes backslash-escaped (``"B\\xf6"``,
    ``\\x00``), so a rejected hand's text stays complete and shows what was wrong; nothing
    of a line too long to keep."""

    __slots__ = ("problem", "text")

    def __init__(self, problem: str, text: str = "") -> None:
        self.problem = problem
        self.text = text


_Line = str | _BadLine


def _careful(raw_lines: list[bytes] | list[str]) -> list[_Line]:
    """Check (and decode) lines one by one, so that one bad line spoils only itself."""
    out: list[_Line] = []
    for raw in raw_lines:
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                out.append(_undecodable(raw, error))
                continue
        else:
            text = raw
        if len(text) > MAX_LINE_LENGTH:
            out.append(_BadLine(f"line longer than {MAX_LINE_LENGTH} characters"))
        elif "\x00" in text:
            out.append(_BadLine("binary data (NUL byte) in the line",
                                _without_line_end(text.replace("\x00", "\\x00"))))
        else:
            text = _without_line_end(text)
            if "\r" in text:
                out.append(_BadLine("a carriage return (\\r) that does not end the line: TOML"
                                    " allows one only before the line end",
                                    text.replace("\r", "\\r")))
            else:
                out.append(text)
    return out


def _undecodable(raw: bytes, error: UnicodeDecodeError) -> _BadLine:
    """A line that is not UTF-8: the first bad byte named, the line kept with every bad byte
    escaped (unless it is too long to keep, :data:`MAX_LINE_LENGTH`)."""
    problem = f"not valid UTF-8 (byte {error.start + 1} of the line)"
    if len(raw) > MAX_LINE_LENGTH:
        return _BadLine(problem)
    text = raw.decode("utf-8", "backslashreplace").replace("\x00", "\\x00")
    return _BadLine(problem, _without_line_end(text))


def _without_line_end(line: str) -> str:
    """``line`` (split at ``\\n``) without the ``\\r`` of a ``\\r\\n`` line end: one at most,
    as TOML reads line ends; any other carriage return stays, for TOML to refuse."""
    return line[:-1] if line[-1:] == "\r" else line


def _line_batches(stream: IO[bytes] | IO[str]) -> Iterator[tuple[list[_Line], str | None]]:
    """The stream's lines (without line ends), in batches, reading blocks of bounded size.

    The common case -- a block of valid UTF-8 with no NUL byte, carriage return or
    overlong line -- costs one decode and one split per block, and comes with the
    block's text (its lines joined by line ends, each line ended); a block with any
    of those is redone line by line, and comes with None.  A line with no end within
    a whole block is too long: it is reported once and skipped as it streams by, so
    memory stays bounded.
    """
    text_mode = isinstance(stream.read(0), str)
    # str for text streams, bytes for binary ones: the same slicing code serves both.
    newline: Any = "\n" if text_mode else b"\n"
    start = stream.read(3)
    if isinstance(start, bytes):
        if start[:2] in (b"\xff\xfe", b"\xfe\xff"):
            yield [_BadLine("the file is UTF-16; handlab reads UTF-8")], None
            return
        carry: Any = start[3:] if start == b"\xef\xbb\xbf" else start
    else:
        carry = start[1:] if start.startswith("\ufeff") else start
    skipping = False  # inside a line already reported as too long
    while True:
        block = stream.read(_BLOCK)
        data: Any = carry + block
        if not block:
            if data and not skipping:
                # Line ends are left here only in a stream of three bytes or less (``start``).
                lines = data.split(newline)
                if len(lines) > 1 and not lines[-1]:
                    lines.pop()
                yield _careful(lines), None
            return
        cut = data.rfind(newline)
        if cut < 0:
            if not skipping:
                yield [_BadLine(f"line longer than {MAX_LINE_LENGTH} characters")], None
                skipping = True
            carry = data[:0]
            continue
        carry = data[cut + 1 :]
        complete = data[: cut + 1]
        if skipping:
            complete = complete[complete.find(newline) + 1 :]
            skipping = False
        if isinstance(complete, bytes):
            try:
                text = complete.decode("utf-8")
            except UnicodeDecodeError:
                yield _careful(complete.split(b"\n")[:-1]), None
                continue
        else:
            text = complete
        lines = text.split("\n")
        lines.pop()
        if "\x00" in text or "\r" in text or _has_long_line(text):
            yield _careful(lines), None
        else:
            yield cast(list[_Line], lines), text  # every line a str


def _header_matches(text: str) -> Iterator[re.Match[str]]:
    """The table header lines of ``text`` (whole lines, each ending with a line end): matches
    of :data:`_HEADER_LINE` over the text with a line end put before it, so that a match's
    ``start()`` is where its line starts in ``text``.  :func:`iter_chunks`,
    :func:`plain_hands` and :class:`HandCuts` all find the hands by this rule, so they cannot
    disagree on where one starts."""
    return _HEADER_LINE.finditer("\n" + text)


def _header_rows(text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """The rows of the lines of ``text`` (a batch of str lines, each with its line end)
    that are table headers (:func:`_header_matches`), with their match."""
    row = 0
    position = 0
    count = text.count
    for header in _header_matches(text):
        start = header.start()
        row += count("\n", position, start)
        position = start
        yield row, header


def _take_lines(chunk: Chunk, batch: list[_Line], start: int, end: int, before: int,
                source: str) -> None:
    """Add ``batch[start:end]`` (all str; ``before`` lines precede the batch) to ``chunk``,
    as the line-by-line loop of :func:`iter_chunks` would."""
    lines = chunk.lines
    room = MAX_HAND_LINES - len(lines)
    if end - start <= room:
        lines += batch[start:end]  # type: ignore[arg-type]
        return
    lines += batch[start:start + room]  # type: ignore[arg-type]
    if chunk.problem is None:
        chunk.problem = ParseError(f"hand longer than {MAX_HAND_LINES} lines", source=source,
                                   line=before + start + room + 1, hand_index=chunk.index)


def _opens_with_header(line: str) -> bool:
    """Whether ``line`` is a table header (:data:`_HEADER`)."""
    return _HEADER.match(line) is not None


def iter_chunks(stream: IO[bytes] | IO[str], source: str, start: Cut | None = None
                ) -> Iterator[Chunk]:
    """Split a stream into per-hand chunks without parsing them (bounded memory).

    ``start`` says the stream is the part of a file from that cut on (found by
    :class:`HandCuts`): the chunks are numbered, and their lines counted, as in the
    whole file.

    A header line is no header inside a value the hand left open (:func:`open_value`): in a
    multi-line string it is text; in a multi-line array it is the array's last element
    when the next line that is not blank or a comment closes the array (``]``) or holds
    its comma (TOML: elements are separated by commas, so no other could follow).
    """
    splitter = _Splitter(source, start)
    for batch, text in _line_batches(stream):
        if text is None or not splitter.take_batch(batch, text):
            for line in batch:
                yield from splitter.line(line)
        yield from splitter.ready()
    yield from splitter.end()


_ARRAY_GOES_ON: Final = re.compile(r"[ \t]*[\],]")
"""A line that continues an array after an element (its comma, or its closing bracket)."""


class _Splitter:
    """The state of :func:`iter_chunks` between lines: the hand being read, the lines of a
    headerless hand's blank start, and a header line held while deciding whether it
    ends a hand or is an element of the array the hand left open."""

    def __init__(self, source: str, start: Cut | None) -> None:
        self.source = source
        self.index = 0 if start is None else start.hands
        self.line_number = 0 if start is None else start.lines
        self.current: Chunk | None = None
        self.pending: list[str] = []  # blank and comment lines before a headerless hand's keys
        self.held: list[str] = []  # a header line (first) and the blank lines after it
        self.held_name = ""
        self.held_number = 0
        self.done: list[Chunk] = []

    def ready(self) -> Iterator[Chunk]:
        """The chunks completed so far."""
        done, self.done = self.done, []
        return iter(done)

    def end(self) -> Iterator[Chunk]:
        """The chunks left at the end of the stream."""
        if self.held:
            self._start_held()
        if self.current is not None:
            self.done.append(self.current)
        return self.ready()

    def take_batch(self, batch: list[_Line], text: str) -> bool:
        """Split a batch of good lines (``text``: them joined, each ended) at its header
        lines in slices, when that is simple: inside the file's hands (or opening with the
        header of the first, as a .phhs file or a part from a cut does), no header held,
        and no hand that may end inside a value (:func:`may_be_open`).  False when not
        simple: the caller gives the batch line by line."""
        current = self.current
        if self.held or (current is None and (self.pending or not _opens_with_header(
                cast(str, batch[0])))):
            return False
        headers = [*_header_rows(text)]
        if headers and self._opens_inside(current, text, headers):
            return False
        first = 0
        line_number = self.line_number
        for row, found in headers:
            if current is not None:  # else row 0, the first header of the stream
                if not current.lines and row - first <= MAX_HAND_LINES:
                    current.lines = batch[first:row]  # type: ignore[assignment]
                else:  # begun in an earlier batch, or too long
                    _take_lines(current, batch, first, row, line_number, self.source)
                self.done.append(current)
            self.index += 1
            current = Chunk(self.index, line_number + row + 2, [], found.group(1))
            first = row + 1
        assert current is not None  # the batch's first line at least was a header
        _take_lines(current, batch, first, len(batch), line_number, self.source)
        self.current = current
        self.line_number += len(batch)
        return True

    def _opens_inside(self, current: Chunk | None, text: str,
                      headers: list[tuple[int, re.Match[str]]]) -> bool:
        """Whether a hand before one of the batch's ``headers`` may end inside a value, so
        that header may be none (:func:`may_be_open`).  A hand begun in an earlier batch is
        judged whole (its part here alone holds the closing bracket of an array opened
        there: unbalanced, yet closed).  Without a triple quote in the batch (the usual), a
        hand is open only by its brackets: two counts a hand, not may_be_open's four
        scans.  (The brackets of several hands together say nothing: an array that holds
        a header-looking line balances only after it.)"""
        opening = headers[0][1].start()
        if current is not None and (
                may_be_open("\n".join(current.lines) + "\n" + text[:opening])
                if current.lines else may_be_open(text, 0, opening)):
            return True
        if '"""' in text or "'''" in text:
            return any(may_be_open(text, previous.end(), found.start())
                       for (_, previous), (_, found) in pairwise(headers))
        count = text.count
        return any(count("[", previous.end(), found.start())
                   != count("]", previous.end(), found.start())
                   for (_, previous), (_, found) in pairwise(headers))

    def line(self, line: _Line) -> Iterator[Chunk]:
        """Take the next line; the chunks it completes."""
        self.line_number += 1
        if self.held:
            if isinstance(line, str) and _is_blank(line):
                self.held.append(line)
                return self.ready()
            if isinstance(line, str) and _ARRAY_GOES_ON.match(line):
                self._keep_held()
            else:
                self._start_held()
        if not isinstance(line, str):
            self._bad(line)
            return self.ready()
        first_char = line[:1]
        if first_char in _HEADER_FIRSTS and "[" in line:
            header = _HEADER.match(line)
            if header is not None and self._header(line, header.group(1)):
                return self.ready()
        self._append(line)
        return self.ready()

    def _header(self, line: str, name: str) -> bool:
        """Take a header line: it starts a hand, or is held (the hand left an array open);
        False when it is text of the hand's open string."""
        current = self.current
        kind = open_value("\n".join(current.lines)) if current is not None else None
        if kind == _OPEN_STRING:
            return False
        self.held, self.held_name, self.held_number = [line], name, self.line_number
        if kind is None:
            self._start_held()
        return True

    def _start_held(self) -> None:
        """The held header line starts a hand (the blank lines after it are its own)."""
        if self.current is not None:
            self.done.append(self.current)
        self.index += 1
        self.current = Chunk(self.index, self.held_number + 1, self.held[1:], self.held_name)
        self.pending = []
        self.held = []

    def _keep_held(self) -> None:
        """The held header line is an element of the open array: the hand's own lines."""
        held, self.held = self.held, []
        for line in held:
            self._append(line)

    def _bad(self, line: _BadLine) -> None:
        if self.current is None:
            self.index += 1
            self.current = Chunk(self.index, self.line_number, [], None)
        if self.current.problem is None:
            self.current.problem = ParseError(line.problem, source=self.source,
                                              line=self.line_number,
                                              hand_index=self.current.index)
        self.current.lines.append(line.text)

    def _append(self, line: str) -> None:
        current = self.current
        if current is None:
            if _is_blank(line):
                self.pending.append(line)
                return
            self.index += 1
            current = self.current = Chunk(self.index, self.line_number - len(self.pending),
                                           self.pending, None)
            self.pending = []
        lines = current.lines
        if len(lines) < MAX_HAND_LINES:
            lines.append(line)
        elif current.problem is None:
            current.problem = ParseError(f"hand longer than {MAX_HAND_LINES} lines",
                                         source=self.source, line=self.line_number,
                                         hand_index=current.index)


_HEADER_FIRSTS: Final = frozenset("[ \t\ufeff")
"""The characters a header line may begin with."""


def _is_blank(line: str) -> bool:
    """Whether ``line`` is blank or a comment (a line that neither starts nor ends a hand)."""
    stripped = line.strip()
    return not stripped or stripped[0] == "#"


class HandTexts:
    """The hands of a plain text as :func:`iter_chunks` splits it, without a :class:`Chunk`
    per hand: each hand's joined lines (``raws``), first line, index and header, and the
    chunk itself on demand (:meth:`chunk`, :meth:`chunks`).

    Made by :func:`plain_hands` for the usual text only, where the split is simple: the
    hands start where the header lines are (:func:`_header_matches`, which
    :func:`iter_chunks` uses too) and none has a problem.
    """

    __slots__ = ("_empty", "first_lines", "headers", "indexes", "raws", "source")

    def __init__(self, source: str, raws: list[str], first_lines: list[int],
                 indexes: list[int], headers: list[str], empty: frozenset[int]) -> None:
        self.source = source
        self.raws = raws
        """Each hand's lines joined by line ends (``"\\n".join(chunk.lines)``)."""
        self.first_lines = first_lines
        self.indexes = indexes
        self.headers = headers
        self._empty = empty  # hands without a line (a header right before the next)

    def __len__(self) -> int:
        return len(self.raws)

    def chunk(self, position: int) -> Chunk:
        """The chunk :func:`iter_chunks` gives for the hand at ``position``."""
        lines = [] if position in self._empty else self.raws[position].split("\n")
        return Chunk(self.indexes[position], self.first_lines[position], lines,
                     self.headers[position])

    def chunks(self, start: int, stop: int) -> _ChunkView:
        """The chunks of the hands from ``start`` to ``stop``, each made when it is read."""
        return _ChunkView(self, start, min(stop, len(self.raws)))


class _ChunkView(Sequence[Chunk]):
    """A range of a :class:`HandTexts`'s chunks, each made on access (not kept)."""

    __slots__ = ("_hands", "_start", "_stop")

    def __init__(self, hands: HandTexts, start: int, stop: int) -> None:
        self._hands, self._start, self._stop = hands, start, stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, position: int) -> Chunk: ...

    @overload
    def __getitem__(self, position: slice) -> list[Chunk]: ...

    def __getitem__(self, position: int | slice) -> Chunk | list[Chunk]:
        if isinstance(position, slice):
            return [self[at] for at in range(*position.indices(len(self)))]
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self._hands.chunk(self._start + position)


def plain_hands(data: bytes, source: str, start: Cut | None = None) -> HandTexts | None:
    """The hands of ``data`` (a whole file, or the part from cut ``start`` on) as
    :func:`iter_chunks` gives them, when its split is simple; None when it is not.

    Simple is the usual file: valid UTF-8 without a byte order mark, NUL byte, carriage
    return or overlong line, ending with a line end, its first line a table header, no hand
    over :data:`MAX_HAND_LINES` lines or that may end inside a value (:func:`may_be_open`)
    -- then no chunk has a problem, and each hand is the text between two header lines.
    The caller reads any other with :func:`iter_chunks`.
    """
    if not data.endswith(b"\n") or data.startswith(_BYTE_ORDER_MARKS):
        return None
    text = _plain_text(data)
    if text is None:
        return None
    # Split in C at the header lines, each taken with the line end before it (one put
    # before the first line, the last one's taken off): pieces[0] is what precedes the
    # first header, then each header's name and the line ends and lines of its hand.
    pieces = _HEADER_LINE.split("\n" + text[:-1])
    if pieces[0]:
        return None  # not a header first: iter_chunks' line-by-line case
    headers = pieces[1::2]
    bodies = pieces[2::2]
    if any(map(may_be_open, bodies)):
        return None  # a header line may be inside a value: iter_chunks decides
    counts = [*map(str.count, bodies, repeat("\n"))]  # each line's end before it
    if max(counts) > MAX_HAND_LINES:
        return None
    index = 0 if start is None else start.hands
    # A hand's first line: the line after its header, counting the hands before.
    first_lines = [*accumulate(counts, lambda line, count: line + count + 1,
                               initial=(0 if start is None else start.lines) + 2)]
    first_lines.pop()
    raws = [body[1:] for body in bodies]
    empty = frozenset(compress(range(len(bodies)), map(not_, bodies)))
    return HandTexts(source, raws, first_lines, [*range(index + 1, index + 1 + len(raws))],
                     headers, empty)


@dataclass(frozen=True, slots=True)
class Cut:
    """A place to split a history file between two hands: the byte offset where a table
    header line starts, and what :func:`iter_chunks` has counted before it (hands, lines)."""

    offset: int
    hands: int
    lines: int


_BYTE_ORDER_MARKS: Final = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


class HandCuts:
    """Finds where a history file can be split between hands, from its bytes fed in order.

    Lets worker processes split a large file themselves: each takes the bytes from
    one cut to the next and calls ``iter_chunks(part, source, start=cut)``, which
    gives exactly the chunks -- indexes and line numbers included -- that
    :func:`iter_chunks` gives for that part of the whole file.  The parent only
    runs this scan, a few C-speed passes over each block (it already reads every
    byte to hash the file), instead of splitting every hand itself.

    A cut is placed at the first header line after ``hands`` hands or ``size`` bytes
    since the previous one.  The scan counts header lines exactly as
    :func:`iter_chunks` finds them, which is simple in the usual file: valid UTF-8
    without NUL bytes, carriage returns, byte order marks or overlong lines.  At the
    first of those it stops finding cuts: the rest of the file is one part, and the
    reader's line-by-line rules apply to it as ever.
    """

    def __init__(self, hands: int, size: int) -> None:
        self._every_hands = hands
        self._every_size = size
        self._cuts: list[Cut] = []
        self._taken = 0  # cuts handed out by take()
        self._carry = b""
        self._offset = 0  # bytes before ``_carry``
        self._hands = 0  # chunks iter_chunks has begun before the current position
        self._lines = 0
        self._last = Cut(0, 0, 0)
        self._started = False  # a first line holding keys or a bad line starts a hand
        self._stopped = False
        self._excess = 0  # brackets opened and not closed since the last header line
        self._triple = False  # a triple quote since the last header line

    @property
    def cuts(self) -> list[Cut]:
        """The cuts found so far, in file order (none at offset 0)."""
        return self._cuts

    def take(self) -> list[Cut]:
        """The cuts found since the last call (all of them, the first time)."""
        taken = self._cuts[self._taken:]
        self._taken = len(self._cuts)
        return taken

    def feed(self, block: bytes) -> None:
        """Scan the file's next bytes."""
        if self._stopped or not block:
            return
        data = self._carry + block
        if self._offset == 0 and len(data) < 3:
            self._carry = data  # too short to rule out a byte order mark yet
            return
        if self._offset == 0 and data.startswith(_BYTE_ORDER_MARKS):
            self._stopped = True
            return
        end = data.rfind(b"\n") + 1
        self._carry = data[end:]
        if len(self._carry) > MAX_LINE_LENGTH:
            self._stopped = True  # a line too long: the reader reports it, we stop cutting
            return
        if end:
            self._scan(data[:end])

    def _scan(self, complete: bytes) -> None:
        """Count the headers and lines of whole lines ``complete``; cut where it is time."""
        text = _plain_text(complete)
        if text is None:
            self._stopped = True
            return
        ascii_only = len(text) == len(complete)
        body_start = 0
        for header in _header_matches(text):
            position = header.start()
            self._note(text, body_start, position)
            if self._triple or self._excess:
                # The hand before may end inside a value (may_be_open), where a header line
                # is not one: iter_chunks decides on the rest of the file, as one part.
                self._stopped = True
                return
            body_start = header.end()
            if not self._started:
                self._started = True
                # Keys, not just blanks and comments, before the first header: a hand of its own.
                self._hands += _opens_hand(text[:position])
            offset = self._offset + (position if ascii_only
                                     else len(text[:position].encode("utf-8")))
            if offset and (self._hands - self._last.hands >= self._every_hands
                           or offset - self._last.offset >= self._every_size):
                self._last = Cut(offset, self._hands, self._lines + text.count("\n", 0, position))
                self._cuts.append(self._last)
            self._hands += 1
        if not self._started:
            self._started = _opens_hand(text) > 0
            self._hands += self._started
        self._note(text, body_start, len(text))
        self._lines += complete.count(b"\n")
        self._offset += len(complete)


    def _note(self, text: str, start: int, end: int) -> None:
        """Count the brackets and triple quotes of ``text[start:end]``, lines of the hand
        since the last header line (:func:`may_be_open` of the hand, across blocks)."""
        self._excess += text.count("[", start, end) - text.count("]", start, end)
        self._triple = (self._triple or text.find('"""', start, end) >= 0
                        or text.find("'''", start, end) >= 0)


def _plain_text(complete: bytes) -> str | None:
    """``complete`` (whole lines) decoded, if every line is one the reader takes as it is:
    valid UTF-8, no NUL byte, no carriage return, none over MAX_LINE_LENGTH bytes (hence
    characters); else None."""
    try:
        text = complete.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text or "\r" in text:
        return None
    # Bytes: a line of at most MAX_LINE_LENGTH bytes has at most as many characters.
    return None if _has_long_line(complete) else text


def _opens_hand(text: str) -> int:
    """1 if ``text`` (lines before any header) holds a line that is not blank or a comment."""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and stripped[0] != "#":
            return 1
    return 0


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
        else:
            # "(at end of document)": the hand's text ends inside a value; name its last line.
            filled = [n for n, text_line in enumerate(chunk.lines) if text_line.strip()]
            line = chunk.first_line + (filled[-1] if filled else 0)
            message = message.replace("(at end of document)", "at the end of the hand").strip()
        plain = _plain_words(message, chunk, line)
        if plain is not None:
            key, words = plain
            return None, ParseError(words, source=source, line=line, hand_index=chunk.index,
                                    field=key)
        if "\ufeff" in chunk.lines[line - chunk.first_line]:
            message += (" (the line holds a byte-order mark, U+FEFF: files joined? A mark is"
                        " skipped only at the start of the file or of a header line)")
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


_KEY_AT: Final = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*)")
_TIME_LIKE: Final = re.compile(r"[0-9]{1,2}:[0-9]{1,2}(?::[0-9]{1,2}(?:\.[0-9]+)?)?")


def _plain_words(message: str, chunk: Chunk, line: int) -> tuple[str, str] | None:
    """The field and the format's own words for two TOML errors at ``line`` that tomllib
    words obscurely: a key given twice ("Cannot overwrite a value"), a time of day that is
    none (``25:16:00``); None for any other."""
    found = _KEY_AT.match(chunk.lines[line - chunk.first_line])
    if found is None:
        return None
    key, value = found.groups()
    if message.startswith(("Cannot overwrite a value", "Cannot declare")):
        for offset, text in enumerate(chunk.lines[: line - chunk.first_line]):
            earlier = _KEY_AT.match(text)
            if earlier is not None and earlier.group(1) == key:
                return key, f"given twice (first on line {chunk.first_line + offset})"
        return None
    time = _TIME_LIKE.match(value)
    if time is not None:
        return key, (f"{time.group()} is not a time of day (expected a local time like"
                     " 20:15:00: hours 00 to 23, minutes and seconds 00 to 59)")
    return None


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


def hand_from_chunk(chunk: Chunk, source: str) -> HandHistory:
    """Parse and build one chunk (from :func:`iter_chunks`): what ``read_hands`` does per hand,
    every shape, every problem (:mod:`parsers.tomlsubset`, with tomllib for what it declines,
    then :mod:`parsers.build`).

    Public so that a process pool can split a file in the parent and build hands in workers.
    """
    raw = "\n".join(chunk.lines)
    if chunk.problem is not None:
        return _broken(chunk, source, raw, chunk.problem)
    document, error = _parse_chunk(chunk, source)
    if document is None:
        assert error is not None
        return _broken(chunk, source, raw, error)
    return build_hand(document, source=source, index=chunk.index, start_line=chunk.first_line,
                      raw=raw, header=chunk.header)


def _broken(chunk: Chunk, source: str, raw: str, error: ParseError) -> HandHistory:
    return HandHistory(game=None, variant="", rules=None, source=source, line=chunk.first_line,
                       index=chunk.index, raw=raw, errors=(error.under_header(chunk.header),))


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
            hand = hand_from_chunk(chunk, source_name)
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
