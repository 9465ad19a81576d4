"""How a source is read: what it holds, decided once, and its hands.

A source (:class:`~analytics.warehouse.pipeline.sources.SourceRef`: a file, a zip member, a
gzip file) holds handlab's histories, a Big Two score sheet (docs/format.md, "Score
sheets"), or a foreign format (a poker site's export, CSV, JSON: :mod:`parsers.foreign`).
:func:`source_format` decides which from the source's first bytes, decompressed; the
ingest's plan decides by it how each source is read (its workers read a sheet with
``work.process_sheet``, histories with the chunk reader), and :func:`source_hands` reads a
source as the ingest's per-hand path does.  ``handlab validate`` reads every source through
both, after the ingest's own expansion (``sources.expand``), so it checks exactly what an
ingest would load: zip members, gzip files and score sheets included.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Literal

from analytics.warehouse.pipeline.sources import Limits, SourceRef, open_source, read_head
from parsers.foreign import HEAD_BYTES, ForeignFormat, foreign_format
from parsers.model import HandHistory
from parsers.reader import hand_from_chunk, iter_chunks
from parsers.scoresheet import (
    SHEET_PROBE_BYTES,
    SheetProblem,
    decode_sheet,
    read_score_sheet,
    sheet_hands,
    starts_like_score_sheet,
)

__all__ = ["HISTORIES", "SCORE_SHEET", "SourceFormat", "source_format", "source_hands"]

HISTORIES: Final = "histories"
"""A source of handlab's own histories (or of anything unrecognised: the reader names the
lines it cannot read)."""

SCORE_SHEET: Final = "score sheet"
"""A Big Two score sheet (:func:`parsers.scoresheet.starts_like_score_sheet`)."""

SourceFormat = Literal["histories", "score sheet"] | ForeignFormat
"""What a source holds: histories, a score sheet, or a foreign format (not read)."""


def source_format(ref: SourceRef, limits: Limits | None = None) -> SourceFormat:
    """What ``ref`` holds, from its first bytes (decompressed): a foreign format
    (:func:`parsers.foreign.foreign_format` of its first :data:`~parsers.foreign.HEAD_BYTES`),
    else a score sheet (:func:`parsers.scoresheet.starts_like_score_sheet`), else histories.

    The one place a source's kind is decided, for the ingest and for ``validate``.  Raises
    :class:`~analytics.warehouse.errors.SourceError` when the source cannot be read.
    """
    head = read_head(ref, limits, max(HEAD_BYTES, SHEET_PROBE_BYTES))
    foreign = foreign_format(head[:HEAD_BYTES])
    if foreign is not None:
        return foreign
    return SCORE_SHEET if starts_like_score_sheet(head) else HISTORIES


def source_hands(ref: SourceRef, kind: SourceFormat, limits: Limits | None = None
                 ) -> Iterator[HandHistory | SheetProblem]:
    """The hands of ``ref`` (of kind ``kind``, :func:`source_format`), each as the ingest
    reads it, named by ``ref.name``: a history's hands with their problems
    (``hand.errors``); a score sheet's games and its bad lines, in the order of their lines.
    A foreign format has none.

    Raises :class:`~analytics.warehouse.errors.SourceError` when the source cannot be read,
    possibly after some hands (a corrupt gzip stream, a limit passed).
    """
    if isinstance(kind, ForeignFormat):
        return
    with open_source(ref, limits) as stream:
        if kind == SCORE_SHEET:
            yield from _sheet_in_line_order(stream.read(), ref.name)
            return
        for chunk in iter_chunks(stream.as_io(), ref.name):
            yield hand_from_chunk(chunk, ref.name)


def _sheet_in_line_order(data: bytes, name: str) -> list[HandHistory | SheetProblem]:
    """A score sheet's games (as ``work.process_sheet`` makes them) and bad lines, by line."""
    sheet = read_score_sheet(decode_sheet(data))
    found: list[HandHistory | SheetProblem] = [*sheet_hands(sheet.games, name),
                                               *sheet.problems]
    return sorted(found, key=lambda item: item.line or 0)
