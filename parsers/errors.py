"""Errors raised or collected while reading hand histories."""

from __future__ import annotations

__all__ = ["HandlabError", "ParseError"]


class HandlabError(Exception):
    """Base class of every error handlab raises on purpose."""


class ParseError(HandlabError):
    """A problem with the text of a hand history: syntax, structure, fields, cards.

    Every parse error names where it happened (``source``, ``line``, ``column``),
    which hand of the file (``hand_index``, counted from 1), the field or action
    concerned, and what was expected.  ``str(error)`` gives one readable line:
    ``games.phhs:42:9: hand 3: actions[4]: 'p9' is not a player (this hand has 4)``.
    ``hand_header`` is the hand's table header when it has one: named too when it is not
    the hand's position (``hand 2 [10]``), so the hand is found either way.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "<string>",
        line: int | None = None,
        column: int | None = None,
        hand_index: int | None = None,
        field: str | None = None,
        hand_header: str | None = None,
    ) -> None:
        self.message = message
        self.hand_header = hand_header
        self.source = source
        self.line = line
        self.column = column
        self.hand_index = hand_index
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.hand_index is not None:
            hand = f"hand {self.hand_index}"
            header = self.hand_header
            parts.append(hand if header is None or header == str(self.hand_index)
                         else f"{hand} [{header}]")
        if self.field is not None:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def __reduce__(self) -> tuple[object, ...]:
        # Keep keyword-only state when errors cross process boundaries (ingest workers).
        return (_rebuild_parse_error, (self.message, self.source, self.line, self.column,
                                       self.hand_index, self.field, self.hand_header))

    def under_header(self, header: str | None) -> ParseError:
        """This error naming its hand's table header ``header`` too (itself when it does
        already, or there is none)."""
        if header is None or self.hand_header is not None:
            return self
        return ParseError(self.message, source=self.source, line=self.line, column=self.column,
                          hand_index=self.hand_index, field=self.field, hand_header=header)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseError):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def _rebuild_parse_error(
    message: str,
    source: str,
    line: int | None,
    column: int | None,
    hand_index: int | None,
    field: str | None,
    hand_header: str | None = None,
) -> ParseError:
    return ParseError(message, source=source, line=line, column=column,
                      hand_index=hand_index, field=field, hand_header=hand_header)
