"""A fast reader for the subset of TOML that hand histories use.

tomllib is exact but slow for our purpose (about 0.3 ms for a 1.5 KB hand), and
it cannot say on which line each array element stood.  This reader handles the
shapes the format uses -- ``key = value`` lines whose values are strings,
integers, floats, booleans, local times and (multi-line) arrays of those -- and
records the line of every value and array element.  Anything outside that
subset raises :class:`Unsupported`, and the caller falls back to tomllib for
that hand, so a valid TOML document is never rejected for using a feature this
reader does not know.  A test checks both readers agree on every file in
tests/ and docs/ (tests/test_reader.py).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Final

from parsers.caching import BoundedCache

__all__ = ["Document", "Unsupported", "parse_document"]

Value = str | int | float | bool | dt.time | list["Value"] | dict[str, "Value"]


class Unsupported(Exception):
    """The text uses TOML outside the fast subset (or is not valid TOML)."""


@dataclass(slots=True)
class Document:
    """Parsed top-level keys with their values and line numbers.

    ``lines[key]`` is the line of the key; ``element_lines[key]`` the line of each
    element when the value is an array.
    """

    values: dict[str, Value]
    lines: dict[str, int]
    element_lines: dict[str, list[int] | range]


INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+\Z")
_INTEGER: Final = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)\Z")
_FLOAT: Final = re.compile(
    r"[+-]?(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?\Z"
)
_TIME: Final = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(?:\.([0-9]+))?\Z")
_ESCAPES: Final = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_STRING_BODY: Final = re.compile(r'"((?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\.)*)"')
_LITERAL_BODY: Final = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]*")
_COMMENT_TEXT: Final = re.compile(r"#[^\x00-\x08\x0a-\x1f\x7f]*\Z")


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1] if i + 1 < len(body) else ""
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in ("u", "U"):
            width = 4 if code == "u" else 8
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise Unsupported("bad unicode escape")
            point = int(digits, 16)
            if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
                raise Unsupported("bad unicode escape")
            out.append(chr(point))
            i += 2 + width
        else:
            raise Unsupported("bad escape")
    return "".join(out)


class _Cursor:
    """Scans values across lines, tracking the current line number."""

    __slots__ = ("last_element_lines", "lines", "pos", "row", "start")

    def __init__(self, lines: list[str], start: int) -> None:
        self.lines = lines
        self.row = 0
        self.pos = 0
        self.start = start
        self.last_element_lines: list[int] = []

    @property
    def line(self) -> str:
        return self.lines[self.row]

    @property
    def number(self) -> int:
        return self.start + self.row

    def skip_blank(self, *, multiline: bool) -> None:
        """Skip spaces and comments; across lines only when ``multiline``."""
        while True:
            line = self.lines[self.row]
            length = len(line)
            while self.pos < length and line[self.pos] in " \t":
                self.pos += 1
            if self.pos < length and line[self.pos] == "#":
                if _COMMENT_TEXT.match(line, self.pos) is None:
                    raise Unsupported("control character in a comment")
                self.pos = length
            if self.pos < length or not multiline:
                return
            self.row += 1
            self.pos = 0
            if self.row >= len(self.lines):
                raise Unsupported("unterminated array")

    def value(self) -> Value:
        line = self.lines[self.row]
        if self.pos >= len(line):
            raise Unsupported("missing value")
        char = line[self.pos]
        if char == '"':
            if line.startswith('"""', self.pos):
                raise Unsupported("multi-line string")
            match = _STRING_BODY.match(line, self.pos)
            if match is None:
                raise Unsupported("bad string")
            self.pos = match.end()
            return _unescape(match.group(1))
        if char == "'":
            if line.startswith("'''", self.pos):
                raise Unsupported("multi-line literal string")
            end = line.find("'", self.pos + 1)
            if end < 0:
                raise Unsupported("bad literal string")
            text = line[self.pos + 1 : end]
            if _LITERAL_BODY.fullmatch(text) is None:
                raise Unsupported("control character in a literal string")
            self.pos = end + 1
            return text
        if char == "[":
            return self.array()
        if char == "{":
            raise Unsupported("inline table")
        end = self.pos
        length = len(line)
        while end < length and line[end] not in " \t,]#":
            end += 1
        token = line[self.pos : end]
        self.pos = end
        return _scalar(token)

    def array(self) -> list[Value]:
        self.pos += 1  # the "["
        items: list[Value] = []
        item_lines: list[int] = []
        while True:
            self.skip_blank(multiline=True)
            if self.line[self.pos] == "]":
                self.pos += 1
                self.last_element_lines = item_lines
                return items
            item_lines.append(self.number)
            items.append(self.value())
            self.skip_blank(multiline=True)
            char = self.line[self.pos]
            if char == ",":
                self.pos += 1
            elif char != "]":
                raise Unsupported("expected , or ] in array")


def _scalar(token: str) -> Value:
    if token == "true":
        return True
    if token == "false":
        return False
    if _INTEGER.match(token):
        digits = token.replace("_", "")
        if len(digits) > 20 or not INT64_MIN <= int(digits) <= INT64_MAX:
            raise Unsupported("integer out of the 64-bit range")
        return int(digits)
    if _FLOAT.match(token) and any(c in token for c in ".eE"):
        return float(token.replace("_", ""))
    if token in ("inf", "+inf", "-inf", "nan", "+nan", "-nan"):
        return float(token)
    time_match = _TIME.match(token)
    if time_match:
        hours, minutes, seconds, fraction = time_match.groups()
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        try:
            return dt.time(int(hours), int(minutes), int(seconds), micro)
        except ValueError as error:
            raise Unsupported(str(error)) from None
    raise Unsupported(f"unsupported value {token!r}")


COMMENT: Final = r"#[^\x00-\x08\x0a-\x1f\x7f]*"
"""A TOML comment: ``#`` and any character but a control character other than tab."""
_COMMENT_LINE: Final = re.compile(rf"[ \t]*(?:{COMMENT})?\Z")
"""A line that is blank or a comment, as TOML says: spaces and tabs only (``str.strip``
would also take a no-break space or a form feed, which TOML refuses)."""
_END: Final = rf"[ \t]*(?:{COMMENT})?\Z"
_SIMPLE_STRING: Final = re.compile(rf'"([^"\\\x00-\x1f\x7f]*)"{_END}')
_SIMPLE_ELEMENT: Final = re.compile(rf'[ \t]*"([^"\\\x00-\x1f\x7f]*)"[ \t]*,{_END}')
"""An element line of a multi-line array, its comma included (the last element's comma
may be left out: :data:`_LAST_ELEMENT`)."""
_LAST_ELEMENT: Final = re.compile(rf'[ \t]*"([^"\\\x00-\x1f\x7f]*)"{_END}')
"""An element line without its comma: only the last element of an array may be one."""
_SIMPLE_INTEGER: Final = re.compile(rf"(-?(?:0|[1-9][0-9]{{0,17}})){_END}")
_INT: Final = r"-?(?:0|[1-9][0-9]{0,17})"
_STR: Final = r'"[^"\\\x00-\x1f\x7f]*"'
# One or more elements, then at most one comma: TOML allows a trailing comma, not ``[,]``.
_INTEGER_ARRAY: Final = re.compile(
    rf"\[[ \t]*(?:((?:{_INT}[ \t]*,[ \t]*)*{_INT})[ \t]*,?)?[ \t]*\]{_END}")
_STRING_ARRAY: Final = re.compile(
    rf"\[[ \t]*(?:((?:{_STR}[ \t]*,[ \t]*)*{_STR})[ \t]*,?)?[ \t]*\]{_END}")
_ARRAY_END: Final = re.compile(rf"[ \t]*\]{_END}")
_ARRAY_START: Final = re.compile(rf"\[{_END}")
"""The value part of ``key = [`` opening a multi-line array (a comment may follow)."""
_TOML_BLANK: Final = " \t"
"""TOML's whitespace: what is stripped around keys and values, nothing else."""


def _fast_value(text: str) -> Value | None:
    """The common one-line shapes, without the general scanner; None when not one of them."""
    first = text[:1]
    if first == '"':
        match = _SIMPLE_STRING.match(text)
        return match.group(1) if match else None
    if first == "[":
        match = _INTEGER_ARRAY.match(text)
        if match:
            body = match.group(1)
            return [*map(int, body.split(","))] if body else []
        match = _STRING_ARRAY.match(text)
        if match:
            return re.findall(r'"([^"]*)"', match.group(1) or "")
        return None
    if first.isdigit() or first == "-":
        match = _SIMPLE_INTEGER.match(text)
        if match:
            return int(match.group(1))
    return None


_BARE_TOKEN: Final = re.compile(r"[^ \t,\]#\"'\[{]+\Z")


_LINE_CACHE_LIMIT: Final = 20_000
_LINE_CACHE: Final = BoundedCache[str, tuple[str, Value]]("parsers.tomlsubset.lines",
                                                         _LINE_CACHE_LIMIT)


def _cached_line(line: str) -> tuple[str, Value] | None:
    """``key = value`` of a one-line field, remembered: headers repeat from hand to hand.

    The remembered value is shared by every document holding the line: a list among them
    must be copied before it is given out (:func:`parse_document` does), or an edit of one
    hand's user field would show in the next hand read.
    """
    found = _LINE_CACHE.get(line)
    if found is not None:
        return found
    key, equals, rest = line.partition("=")
    key = key.strip(_TOML_BLANK)
    if not equals or not _BARE_KEY.match(key):
        return None
    text = rest.strip(_TOML_BLANK)
    value = _fast_value(text)
    if value is None:
        # One bare scalar -- a time (``19:05:00``), a float, a boolean -- read as the general
        # scanner reads it (which skips only spaces and tabs around it).
        if not _BARE_TOKEN.match(text):
            return None
        try:
            value = _scalar(text)
        except Unsupported:
            return None
    return _LINE_CACHE.put(line, (key, value))


_ELEMENT_CACHE: Final = BoundedCache[str, str]("parsers.tomlsubset.elements", _LINE_CACHE_LIMIT)
"""The string held by a one-element line of a multi-line array (``  "p1 cc",``), by line."""


def element_text(line: str) -> str | None:
    """The string a one-element line of a multi-line array holds (``_SIMPLE_ELEMENT``'s
    group), remembered by line; None for a line of any other shape."""
    text = _ELEMENT_CACHE.get(line)
    if text is not None:
        return text
    if line[-2:] == '",' and line[:3] == '  "':
        # The writer's element line, tested in C (a third of the regex's cost): its text is
        # what _SIMPLE_ELEMENT's group would be when it holds no quote, backslash or control
        # character (isprintable is stricter: anything else goes to the regex).
        text = line[3:-2]
        if '"' in text or "\\" in text or not text.isprintable():
            text = None
    if text is None:
        match = _SIMPLE_ELEMENT.match(line)
        if match is None:
            return None
        text = match.group(1)
    return _ELEMENT_CACHE.put(line, text)


_WRITER_ELEMENT: Final = r'  "[^"\\\x00-\x1f\x7f]*",'
_WRITER_ELEMENTS: Final = re.compile(rf"{_WRITER_ELEMENT}(?:\n{_WRITER_ELEMENT})*")
"""The lines of an array as the writer writes it (``  "p1 cc",`` each): what
:func:`element_text` reads from each, tested all at once."""


def _writer_strings(lines: list[str], row: int) -> tuple[list[Value], int] | None:
    """The strings of an array in the writer's layout from ``row`` on, and the row of its
    closing ``]``: found, tested and split in C, as :func:`_fast_multiline_strings` would
    read them one line at a time; None for any other layout (a comment, a blank line)."""
    try:
        end = lines.index("]", row)
    except ValueError:
        return None
    if end == row:
        return [], end
    block = "\n".join(lines[row:end])
    if _WRITER_ELEMENTS.fullmatch(block) is None:
        return None
    items: list[Value] = [*block[3:-2].split('",\n  "')]
    return items, end


def _fast_multiline_strings(
    lines: list[str], row: int
) -> tuple[list[Value], list[int], int] | None:
    """An array of plain strings, one per line, closed by ``]`` alone: the actions' usual shape.

    Returns the items, their row offsets and the row of the closing bracket, or None
    when the array has any other shape.
    """
    items: list[Value] = []
    rows: list[int] = []
    total = len(lines)
    known = _ELEMENT_CACHE.get  # element lines repeat from hand to hand ("p1 cc",)
    last = False  # an element without its comma was read: only the end may follow
    while row < total:
        line = lines[row]
        item = None if last else known(line)
        if item is None and not last:
            item = element_text(line)
            if item is None:
                found = _LAST_ELEMENT.match(line)
                if found is not None:
                    item, last = found.group(1), True
        if item is not None:
            items.append(item)
            rows.append(row)
        elif _ARRAY_END.match(line):
            return items, rows, row
        elif _COMMENT_LINE.match(line) is None:
            return None
        row += 1
    return None


def parse_document(lines: list[str], first_line: int = 1) -> Document:
    """Parse ``lines`` (without line ends) as top-level ``key = value`` pairs.

    ``first_line`` is the number of ``lines[0]`` in the source, so that every
    recorded line number is absolute.  Raises :class:`Unsupported` for anything
    outside the subset, including duplicate keys and table headers.
    """
    values: dict[str, Value] = {}
    key_lines: dict[str, int] = {}
    element_lines: dict[str, list[int] | range] = {}
    cursor: _Cursor | None = None  # the general scanner, made when first needed
    total = len(lines)
    row = 0
    cached = _LINE_CACHE.get
    while row < total:
        line = lines[row]
        simple = cached(line)  # a header line seen before: no other work
        if simple is None:
            if _COMMENT_LINE.match(line) is not None:
                row += 1
                continue
            simple = _cached_line(line)
        if simple is not None:
            key, value = simple
            if key in values:
                raise Unsupported("duplicate key")
            if isinstance(value, list):  # the cache's own: a copy for this document
                value = value.copy()
                element_lines[key] = [first_line + row] * len(value)
            values[key] = value
            key_lines[key] = first_line + row
            row += 1
            continue
        equals = line.find("=")
        if equals < 0:
            raise Unsupported("expected key = value")
        key = line[:equals].strip(_TOML_BLANK)
        if not _BARE_KEY.match(key):
            raise Unsupported("non-bare key")
        if key in values:
            raise Unsupported("duplicate key")
        key_lines[key] = first_line + row
        text = line[equals + 1 :].strip(_TOML_BLANK)
        if text == "[":
            written = _writer_strings(lines, row + 1)
            if written is not None:
                values[key], end = written
                element_lines[key] = range(first_line + row + 1, first_line + end)
                row = end + 1
                continue
        if _ARRAY_START.match(text) is not None:
            found = _fast_multiline_strings(lines, row + 1)
            if found is not None:
                items, rows, end = found
                values[key] = items
                element_lines[key] = [first_line + r for r in rows]
                row = end + 1
                continue
        # The general scanner, for every other shape.
        if cursor is None:
            cursor = _Cursor(lines, first_line)
        cursor.row = row
        cursor.pos = equals + 1
        cursor.skip_blank(multiline=False)
        value = cursor.value()
        if isinstance(value, list):
            element_lines[key] = cursor.last_element_lines
        values[key] = value
        cursor.skip_blank(multiline=False)
        if cursor.pos < len(cursor.line):
            raise Unsupported("trailing text after value")
        row = cursor.row + 1
    return Document(values, key_lines, element_lines)
