"""The CPU-bound half of ingest: text to parsed, replayed, re-scored column batches.

A :class:`Unit` is a piece of work a worker process can do on its own: a whole
(small) source, which the worker opens and reads itself; a byte range of a large
plain file between two hands (:class:`~parsers.reader.HandCuts`), which the worker
reads and splits itself; or a list of raw hand chunks the main process has already
split off a large compressed source.  Either way
:func:`process_unit` parses each hand, replays it with its game's rules engine
(which re-scores the showdown with the shared evaluator), and returns a
:class:`UnitResult`: Arrow tables per batch (with the batch's ``seat_facts`` and
``hand_facts`` rows, :mod:`~analytics.warehouse.fact_rows`), the rejected hands, and
counts.

Only :class:`~analytics.rules.RuleError` and parse errors make a hand a
reject.  Any other exception, a missing engine module included, is a bug and
propagates: it must stop the ingest, not be filed as bad input.
"""

from __future__ import annotations

import ctypes
import io
import os
import signal
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from analytics.rules import RuleError, replay, replay_fields
from analytics.warehouse.errors import SourceError
from analytics.warehouse.fact_rows import fact_tables
from analytics.warehouse.rows import Batch, FileContext, RejectRow
from analytics.warehouse.sources import Limits, SourceRef, open_source, read_range
from parsers.knobs import Game
from parsers.model import with_actions
from parsers.reader import Chunk, Cut, hand_and_fields, iter_chunks

__all__ = ["Unit", "UnitResult", "init_worker", "process_chunks", "process_unit"]


@dataclass(frozen=True, slots=True)
class Unit:
    """Work for one worker call: a whole source (``ref``), a part of one (``ref`` and
    ``end``: its bytes from ``start``, or 0, to ``end``), or chunks split off one."""

    file_no: int
    context: FileContext
    last: bool
    batch_hands: int
    limits: Limits
    ref: SourceRef | None = None
    chunks: tuple[Chunk, ...] = ()
    size: int = 0  # bytes of content this unit covers, for the progress bar
    start: Cut | None = None
    end: int | None = None


@dataclass(slots=True)
class UnitResult:
    """What a unit came to.  ``error`` is set when its source could not be read."""

    file_no: int
    last: bool
    size: int = 0
    hands: int = 0
    batches: list[dict[str, pa.Table]] = field(default_factory=list)
    rejects: list[RejectRow] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)
    batch_duplicates: Counter[str] = field(default_factory=Counter)
    error: str | None = None


_READS_FIELDS = (Game.SEVENEIGHT, Game.BIGTWO)
"""The games whose engines replay the actions as columns (``replay_fields``)."""


def _error_text(error: BaseException) -> str:
    return str(error)


def process_chunks(chunks: Iterable[Chunk], context: FileContext, batch_hands: int,
                   result: UnitResult) -> None:
    """Parse, replay and batch ``chunks`` into ``result`` (batches of ``batch_hands``)."""
    batch = Batch(context)
    name = context.path
    for chunk in chunks:
        result.hands += 1
        # The fast path's hands come without Action objects, their actions as columns
        # (fields): 7 & 8's replay, the ids and the rows read those.
        hand, fields = hand_and_fields(chunk, name)
        game = hand.game.value if hand.game is not None else None
        if hand.errors:
            first = hand.errors[0]
            result.rejects.append(RejectRow(
                hand_index=hand.index, line=first.line if first.line is not None else hand.line,
                stage="parse", game=game, error="\n".join(str(e) for e in hand.errors),
                raw=hand.raw))
            result.rejected[game or "unknown"] += 1
            continue
        if fields is not None and hand.game not in _READS_FIELDS:
            hand = with_actions(hand, fields)  # the other engines replay Action objects
        try:
            outcome = (replay(hand) if fields is None or hand.actions
                       else replay_fields(hand, fields))
        except RuleError as error:
            result.rejects.append(RejectRow(
                hand_index=hand.index, line=error.line if error.line is not None else hand.line,
                stage="rules", game=game, error=_error_text(error), raw=hand.raw))
            result.rejected[game or "unknown"] += 1
            continue
        batch.add(hand, outcome, fields)
        if len(batch) >= batch_hands:
            _flush(batch, result)
            batch = Batch(context)
    _flush(batch, result)


def _flush(batch: Batch, result: UnitResult) -> None:
    result.batch_duplicates.update(batch.duplicates)
    if len(batch):
        tables = batch.tables()
        # The derived seat_facts and hand_facts rows travel with the batch, so the single
        # writer only filters and inserts them (None: rare data the SQL must fill).
        facts = fact_tables(tables)
        if facts is not None:
            tables.update(facts)
        result.batches.append(tables)


def process_unit(unit: Unit) -> UnitResult:
    """Do one unit of work (in a worker process, or inline)."""
    result = UnitResult(unit.file_no, unit.last, unit.size)
    if unit.ref is None:
        process_chunks(unit.chunks, unit.context, unit.batch_hands, result)
        return result
    try:
        if unit.end is not None:
            _process_part(unit, unit.ref, unit.end, result)
        else:
            with open_source(unit.ref, unit.limits) as stream:
                chunks = iter_chunks(stream.as_io(), unit.context.path)
                process_chunks(chunks, unit.context, unit.batch_hands, result)
    except SourceError as error:
        # The whole file is dropped (its transaction never starts): report, don't load half.
        return UnitResult(unit.file_no, unit.last, unit.size, error=str(error))
    return result


def _process_part(unit: Unit, ref: SourceRef, end: int, result: UnitResult) -> None:
    """Read and split a part of a plain file between two cuts, numbering hands and lines
    as in the whole file."""
    begin = 0 if unit.start is None else unit.start.offset
    part = io.BytesIO(read_range(ref, begin, end))
    chunks = iter_chunks(part, unit.context.path, start=unit.start)
    process_chunks(chunks, unit.context, unit.batch_hands, result)


def init_worker() -> None:
    """Worker start-up: die with the parent, leave Ctrl-C to the parent.

    On Linux, PR_SET_PDEATHSIG makes the kernel kill a worker whose parent dies,
    even by ``kill -9``, so no orphan keeps burning a core after a killed ingest.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        except OSError:
            pass
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
