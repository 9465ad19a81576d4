"""The CPU-bound half of ingest: text to parsed, replayed, re-scored column batches.

A :class:`Unit` is a piece of work a worker process can do on its own: a whole
(small) source, which the worker opens and reads itself; a byte range of a large
plain file between two hands (:class:`~parsers.reader.HandCuts`), which the worker
reads and splits itself; or a list of raw hand chunks the main process has already
split off a large compressed source.  Either way
:func:`process_unit` parses each hand, replays it with its game's rules engine
(which re-scores the showdown with the shared evaluator), and returns a
:class:`UnitResult`: Arrow tables per batch (with the batch's ``seat_facts`` and
``hand_facts`` rows, :mod:`~analytics.warehouse.pipeline.fact_rows`), the rejected hands, and
counts.

A :class:`~analytics.rules.RuleError` or a parse error makes a hand a reject (bad
input).  Any other exception while one hand is read, replayed or made rows of is a bug
in handlab, and it must not take the other hands down: that hand becomes a reject of
stage ``internal`` ("internal error", the exception's type and message), its traceback
travels with the reject (:attr:`~analytics.warehouse.pipeline.rows.RejectRow.detail`) to the
ingest's error log, and the rest of the file goes on (docs/reliability.md); only a broken
installation (an engine module missing) and a lack of memory, no hand's fault, still stop
the ingest (:data:`_NOT_A_HAND_FAULT`).  A batch whose rows, made together, fail is
made again hand by hand, so the failure is pinned on the hand that causes it (its
traceback goes to the log too, :attr:`UnitResult.fallbacks`).  The 7 & 8 block path
declines hands explicitly; a bug in it makes the hands it was deciding internal errors
(:func:`_block_or_per_hand`), never redone quietly by the per-hand path.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import io
import os
import signal
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import IO, Final, cast

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from analytics.rules import Outcome, RuleError, replay
from analytics.rules.seveneight.block import replay_block
from analytics.warehouse.errors import SourceError
from analytics.warehouse.identity import block_ids
from analytics.warehouse.pipeline.block_rows import block_tables
from analytics.warehouse.pipeline.fact_rows import fact_tables
from analytics.warehouse.pipeline.rows import PASS_TABLE, Batch, FileContext, RejectRow
from analytics.warehouse.pipeline.sources import Limits, SourceRef, open_source, read_range
from analytics.warehouse.pipeline.stat_rows import (
    STAT_FACTS,
    STAT_SOURCES,
    batch_stat_facts,
    stat_games,
)
from analytics.warehouse.sql.schema import migrate
from parsers.block import SevenEightBlock
from parsers.block_scan import BLOCK_VARIANT_END, scan_seveneight, scan_texts
from parsers.fast_paths import fast_path_on
from parsers.model import HandHistory
from parsers.reader import Chunk, Cut, hand_from_chunk, iter_chunks, plain_hands
from parsers.rule_options import Game
from parsers.scoresheet import decode_sheet, read_score_sheet, sheet_hands

__all__ = ["INTERNAL_STAGE", "Unit", "UnitResult", "init_worker", "process_chunks", "process_data",
           "process_sheet", "process_unit", "process_units"]

INTERNAL_STAGE: Final = "internal"
"""The stage of a reject whose hand met a bug in handlab (an unexpected exception), not a
fault of its own; the others are ``parse`` and ``rules``."""


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
    sheet: bool = False
    """A Big Two score sheet (:mod:`parsers.scoresheet`), read whole, not a history file."""


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
    bad_lines: int = 0
    """A score sheet's bad lines that are no game (a names line, a ``Total`` row): among
    ``rejects``, not among ``hands`` nor ``rejected``."""
    # Tracebacks of batches whose rows, made together, failed and were made again hand by
    # hand (no hand is lost by it, but the bug goes to the error log).
    fallbacks: list[str] = field(default_factory=list)


def _error_text(error: BaseException) -> str:
    return str(error)


_BLOCKS: Final = fast_path_on("block")
"""Whether 7 & 8 hands of the writer's layout go as blocks (:mod:`parsers.fast_paths`)."""


def process_chunks(chunks: Iterable[Chunk], context: FileContext, batch_hands: int,
                   result: UnitResult, *, blocks: bool = _BLOCKS) -> None:
    """Parse, replay and batch ``chunks`` into ``result``, one batch per ``batch_hands`` chunks
    (less its rejects and the hands it holds twice).

    With ``blocks`` (the default, unless the block fast path is off: :mod:`parsers.fast_paths`),
    the 7 & 8 hands of the writer's layout in each batch are read, replayed and made rows of
    together (:func:`_block_batch`); every other hand goes
    through :func:`_per_hand_batch`.  Without, every hand does: the two give the same
    batches (tests/test_pipeline_blocks.py).
    """
    iterator = iter(chunks)
    while group := list(islice(iterator, batch_hands)):
        result.hands += len(group)
        _add(result, _block_or_per_hand(group, context, result,
                                        partial(scan_seveneight, group, context.path))
             if blocks else _per_hand_batch(group, range(len(group)), context, result))


def process_data(data: bytes, context: FileContext, batch_hands: int, result: UnitResult,
                 start: Cut | None = None) -> None:
    """:func:`process_chunks` of the chunks of ``data`` (a whole source, or the part of a
    plain file from cut ``start`` on), with the same result.

    A text of 7 & 8 hands whose split is simple (:func:`parsers.reader.plain_hands`: the
    usual file) is not split into chunks: the block scanner reads each batch's hands from
    their texts (:func:`parsers.block_scan.scan_texts`), and only the hands it declines or
    the batch replay leaves are made chunks, for the per-hand path.
    """
    # A text without a line ending as the block's variants do has no hand for the scanner,
    # and goes the chunks' way at once.
    hands = (plain_hands(data, context.path, start)
             if _BLOCKS and _VARIANT_LINE_END in data else None)
    if hands is None:
        process_chunks(iter_chunks(io.BytesIO(data), context.path, start=start), context,
                       batch_hands, result)
        return
    for begin in range(0, len(hands), batch_hands):
        end = min(begin + batch_hands, len(hands))
        group = hands.chunks(begin, end)
        result.hands += len(group)
        scan = partial(scan_texts, hands.raws[begin:end], hands.first_lines[begin:end],
                       hands.indexes[begin:end], context.path)
        _add(result, _block_or_per_hand(group, context, result, scan))


_VARIANT_LINE_END: Final = (BLOCK_VARIANT_END + "\n").encode()


def process_sheet(data: bytes, context: FileContext, batch_hands: int, result: UnitResult
                  ) -> None:
    """Read a Big Two score sheet (:func:`parsers.scoresheet.read_score_sheet`), replay its
    games (outcome-only, :func:`analytics.rules.replay`) and batch them into ``result``.

    Each bad line is a reject (stage ``parse``) naming the file and line: a losses line
    under its game number, a game rejected; any other line under minus its line number, a
    bad line (``UnitResult.bad_lines``) that is no game, and the rejects' key is the file
    and that number.  Its losses lines are the file's hands, so ``hands = loaded +
    duplicates + rejected`` holds.
    """
    name = context.path
    sheet = read_score_sheet(decode_sheet(data))
    refused = 0
    for problem in sheet.problems:
        result.rejects.append(RejectRow(
            hand_index=problem.position if problem.position is not None else -problem.line,
            line=problem.line, stage="parse", game=Game.BIGTWO.value,
            error=problem.describe(name), raw=problem.text))
        if problem.position is not None:
            refused += 1
        else:
            result.bad_lines += 1
    if refused:
        result.rejected[Game.BIGTWO.value] += refused
    hands = sheet_hands(sheet.games, name)
    result.hands += len(hands) + refused
    for begin in range(0, len(hands), batch_hands):
        batch = Batch(context)
        rejects: list[RejectRow] = []
        for hand in hands[begin:begin + batch_hands]:
            try:
                outcome = replay(hand)
            except RuleError as error:
                rejects.append(RejectRow(
                    hand_index=hand.index, line=hand.line, stage="rules",
                    game=Game.BIGTWO.value, error=_error_text(error), raw=hand.raw))
                continue
            batch.add(hand, outcome)
        _add(result, (batch.tables() if len(batch) else None, rejects, batch.duplicates))


def _add(result: UnitResult, found: _Found) -> None:
    """Add a batch's tables (their facts made here), rejects and repeats to ``result``."""
    tables, rejects, duplicates = found
    for reject in rejects:
        result.rejects.append(reject)
        result.rejected[reject.game or "unknown"] += 1
    result.batch_duplicates.update(duplicates)
    if tables is not None:
        result.batches.append(_with_facts(tables))


def _block_or_per_hand(group: Sequence[Chunk], context: FileContext, result: UnitResult,
                       scan: Callable[[], tuple[SevenEightBlock, list[int]]]) -> _Found:
    """The batch of ``group``: its 7 & 8 hands of the writer's layout by the block path
    (:func:`_block_batch`, the scanner's block from ``scan()``), the rest by the per-hand
    path; the per-hand path takes the whole batch when the block path declines it (returns
    None).  The one place the block path is chosen.

    The block path declines explicitly (the scanner's declined positions, the batch
    replay's ``accepted``, :func:`_block_batch`'s None); any exception in it is a bug, never
    redone quietly by the per-hand path: it makes the hands it was deciding internal-error
    rejects (:func:`_internal_batch`), with its traceback in the error log, so the ingest
    says so (exit code 1) and a rerun after the fix loads them."""
    try:
        block, declined = scan()
    except _NOT_A_HAND_FAULT:
        raise
    except Exception as error:  # a bug of the scanner: every hand of the batch
        return _internal_batch(error, group, range(len(group)), context.path, None)
    try:
        found = _block_batch(group, context, (block, declined), result)
    except _NOT_A_HAND_FAULT:
        raise
    except Exception as error:  # a bug of the block's replay or rows: the block's hands
        rejects = _internal_batch(error, group, block.positions.tolist(), context.path,
                                  Game.SEVENEIGHT.value)[1]
        tables, others, duplicates = _per_hand_batch(group, declined, context, result)
        return tables, [*rejects, *others], duplicates
    return found or _per_hand_batch(group, range(len(group)), context, result)


def _internal_batch(error: Exception, group: Sequence[Chunk], positions: Iterable[int],
                    name: str, game: str | None) -> _Found:
    """The chunks of ``group`` at ``positions`` (hands of ``game``, when known) as
    internal-error rejects of ``error``, a bug that cannot be pinned on one of them (the
    block path decides them together)."""
    rejects = [_internal_reject(error, name, chunk.index, chunk.first_line, game,
                                "\n".join(chunk.lines))
               for chunk in (group[position] for position in positions)]
    return None, rejects, Counter()


def _fallback_text(path_name: str, file: str, group: Sequence[Chunk]) -> str:
    """A log entry for a fast path that failed on the batch ``group`` of ``file``."""
    if len(group):
        first, last = group[0], group[len(group) - 1]  # a lazy sequence: no index -1
        where = f"hands {first.index}-{last.index} (lines {first.first_line}-{last.first_line})"
    else:
        where = "no hand"
    return (f"{file}: {path_name} failed on {where}; the per-hand path took them\n"
            f"{traceback.format_exc()}")


_NOT_A_HAND_FAULT: Final = (MemoryError, ImportError, SourceError)
"""Exceptions that are no hand's fault and are never made a reject: the machine out of
memory, handlab's installation broken (an engine module missing: every hand would be
rejected and its file recorded as loaded), the source unreadable (which fails the whole
file, :func:`process_unit`).  They stop the ingest (or fail the file) as before."""


_Found = tuple[dict[str, pa.Table] | None, list[RejectRow], Counter[str]]
"""A batch's tables (None when no hand was added; the facts not yet made), its rejects, and
the hands it held twice by game."""


def _per_hand_batch(group: Sequence[Chunk], positions: Iterable[int], context: FileContext,
                    result: UnitResult | None = None) -> _Found:
    """The batch of the chunks of ``group`` at ``positions`` (increasing), each hand read,
    replayed and added on its own: the path that takes every hand and gives every error.

    A hand whose replay raises anything but a :class:`RuleError` is an internal-error
    reject (:func:`_internal_reject`).  When reading a hand or making the batch's rows
    fails (a bug; the rows are made as one, so it cannot be pinned on one hand), the batch is
    done again one hand at a time (:func:`_hand_by_hand`), and the traceback goes to
    ``result.fallbacks``.
    """
    chosen = list(positions)
    try:
        return _hands_together(group, chosen, context)
    except _NOT_A_HAND_FAULT:
        raise
    except Exception:  # a bug of the batch's reading or rows: find its hand, keep the rest
        if result is not None:
            result.fallbacks.append(_fallback_text("the batch's reading or rows", context.path,
                                                   [group[p] for p in chosen]))
        return _hand_by_hand(group, chosen, context)


def _hands_together(group: Sequence[Chunk], positions: list[int], context: FileContext
                    ) -> _Found:
    """:func:`_per_hand_batch` the usual way: the hands read in turn, their rows made as one
    batch."""
    batch = Batch(context)
    rejects: list[RejectRow] = []
    name = context.path
    for hand in (hand_from_chunk(group[position], name) for position in positions):
        found = _replayed(hand, name)
        if isinstance(found, RejectRow):
            rejects.append(found)
        else:
            batch.add(hand, found)
    return (batch.tables() if len(batch) else None), rejects, batch.duplicates


def _hand_by_hand(group: Sequence[Chunk], positions: list[int], context: FileContext
                  ) -> _Found:
    """:func:`_per_hand_batch` with each hand read, replayed and made rows of alone (slow:
    only after a failure of the usual way), an exception at any step making that hand an
    internal-error reject.  Its rows are put together as the usual way's, a hand the batch
    already holds counted as a duplicate."""
    parts: list[dict[str, pa.Table]] = []
    rejects: list[RejectRow] = []
    duplicates: Counter[str] = Counter()
    ids: set[int] = set()
    name = context.path
    for position in positions:
        chunk = group[position]
        try:
            hand = hand_from_chunk(chunk, name)
        except _NOT_A_HAND_FAULT:
            raise
        except Exception as error:
            rejects.append(_internal_reject(error, name, chunk.index, chunk.first_line, None,
                                            "\n".join(chunk.lines)))
            continue
        found = _replayed(hand, name)
        if isinstance(found, RejectRow):
            rejects.append(found)
            continue
        batch = Batch(context)
        try:
            batch.add(hand, found)
            tables = batch.tables()
        except _NOT_A_HAND_FAULT:
            raise
        except Exception as error:
            rejects.append(_internal_reject(error, name, hand.index, hand.line,
                                            _game_of(hand), hand.raw))
            continue
        (key,) = batch.ids
        if key in ids:
            duplicates[_game_of(hand) or "unknown"] += 1
            continue
        ids.add(key)
        parts.append(tables)
    if not parts:
        return None, rejects, duplicates
    together = {table: pa.concat_tables([part[table] for part in parts])
                for table in parts[0]}
    return together, rejects, duplicates


def _replayed(hand: HandHistory, name: str) -> Outcome | RejectRow:
    """The outcome of ``hand``, or its reject: a parse error, a rules error, or an internal
    error (any other exception)."""
    game = _game_of(hand)
    if hand.errors:
        first = hand.errors[0]
        return RejectRow(
            hand_index=hand.index, line=first.line if first.line is not None else hand.line,
            stage="parse", game=game, error="\n".join(str(e) for e in hand.errors),
            raw=hand.raw)
    try:
        return replay(hand)
    except RuleError as error:
        return RejectRow(
            hand_index=hand.index, line=error.line if error.line is not None else hand.line,
            stage="rules", game=game, error=_error_text(error), raw=hand.raw)
    except _NOT_A_HAND_FAULT:
        raise
    except Exception as error:  # a bug in an engine: this hand only
        return _internal_reject(error, name, hand.index, hand.line, game, hand.raw)


def _game_of(hand: HandHistory) -> str | None:
    return hand.game.value if hand.game is not None else None


INTERNAL_ERROR_LOG: Final = "the ingest's error log"
"""How a worker's internal-error reject names the log its traceback goes to; the writer
puts the log's path in its place (:mod:`analytics.warehouse.pipeline.errorlog`)."""


def _internal_reject(error: Exception, name: str, index: int, line: int | None,
                     game: str | None, raw: str) -> RejectRow:
    """The reject of a hand that met a bug: where, the exception's type and message, and
    (in ``detail``, for the log) the traceback."""
    where = f"{name}:{line}" if line is not None else name
    message = str(error).splitlines()[0] if str(error) else ""
    text = (f"{where}: hand {index}: internal error: {type(error).__name__}"
            f"{': ' + message if message else ''} (a bug in handlab, not a fault of the hand;"
            f" the traceback is in {INTERNAL_ERROR_LOG})")
    return RejectRow(hand_index=index, line=line, stage=INTERNAL_STAGE, game=game, error=text,
                     raw=raw, detail=traceback.format_exc())


def _with_facts(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """The batch with its seat_facts and hand_facts rows (and, once the unit is done, its
    stat_facts: :func:`_add_stat_facts`), which travel with it, so the single writer only
    filters and inserts them.  Rows the engine never writes (a hand id or a seat twice)
    raise ``fact_rows.FactRowsError``, naming the hand: a bug in handlab, which stops the
    ingest (the file's transaction rolls back) rather than filling its facts some other
    way."""
    tables.update(fact_tables(tables))
    tables.pop(PASS_TABLE, None)  # in the seat facts now
    return tables


def _add_stat_facts(results: Sequence[UnitResult]) -> None:
    """Give each batch of ``results`` its stat_facts rows (``stat_rows.batch_stat_facts``),
    from one statement over all of them: the statement costs ~30-45 ms whatever the number
    of hands, and a unit can be many small batches, a bundle many small files, a lake's
    range thousands.  A hand's rows depend on its own rows only; a hand repeated in a
    later batch is counted once and its rows go with both batches (the writer keeps the
    first).  Sorted ids, not a membership test per batch: with one-hand batches that was
    quadratic in the batches.  Results without hands of those games (Big Two) open no
    scratch database."""
    batches = [batch for result in results for batch in result.batches]
    if not any(stat_games(batch["hands"]) for batch in batches):
        return
    ids = [batch["hands"]["hand_id"].to_numpy() for batch in batches]
    hand_ids, first_at = np.unique(np.concatenate(ids), return_index=True)
    first_batch = np.repeat(np.arange(len(batches)), [len(b) for b in ids])[first_at]
    sources = {name: pa.concat_tables([_first_rows(batch[name], number, hand_ids, first_batch)
                                       for number, batch in enumerate(batches)],
                                      promote_options="permissive")
               for name in STAT_SOURCES}
    stats = batch_stat_facts(_scratch(), sources)
    stat_ids = stats["hand_id"].to_numpy()
    order = np.argsort(stat_ids, kind="stable")
    ordered = stat_ids[order]
    for batch, batch_ids in zip(batches, ids, strict=True):
        low = np.searchsorted(ordered, batch_ids, "left")
        lengths = np.searchsorted(ordered, batch_ids, "right") - low
        ends = np.cumsum(lengths)
        rows = order[np.repeat(low - ends + lengths, lengths) + np.arange(ends[-1] if len(ends)
                                                                          else 0)]
        batch[STAT_FACTS] = stats.take(np.sort(rows))


def _first_rows(table: pa.Table, number: int, hand_ids: npt.NDArray[np.int64],
                first_batch: npt.NDArray[np.int64]) -> pa.Table:
    """The rows of batch ``number``'s ``table`` whose hand first appears in that batch
    (``hand_ids`` sorted, ``first_batch`` the batch each first appears in)."""
    rows = table["hand_id"].to_numpy()
    kept = first_batch[np.searchsorted(hand_ids, rows)] == number
    return table if kept.all() else table.filter(pa.array(kept))


_SCRATCH: Final = threading.local()
_INHERITED: Final[list[object]] = []
"""Scratch connections a forked worker inherited: kept, never closed or freed, since
DuckDB's teardown in the child of a fork touches threads that exist only in the parent
(a segmentation fault); the worker ends by ``os._exit``."""


def _scratch() -> duckdb.DuckDBPyConnection:
    """This thread's scratch database for the statistics' SQL: in memory, at the latest
    schema, one DuckDB thread (a worker is one core's work).  One per process and thread:
    a connection serves one thread at a time, and one made before a fork (an inline
    ingest, then a pool) must not be used by the child."""
    made: tuple[int, duckdb.DuckDBPyConnection] | None = getattr(_SCRATCH, "made", None)
    if made is None or made[0] != os.getpid():
        if made is not None:
            _INHERITED.append(made)
        con = duckdb.connect(config={"threads": 1})
        migrate(con)
        made = (os.getpid(), con)
        _SCRATCH.made = made
    return made[1]


def _block_batch(group: Sequence[Chunk], context: FileContext,
                 scanned: tuple[SevenEightBlock, list[int]], result: UnitResult | None = None
                 ) -> _Found | None:
    """The batch of ``group`` with its 7 & 8 hands of the writer's layout done as one block
    (:mod:`parsers.block`): scanned, replayed (:func:`replay_block`) and made rows of
    (:mod:`~analytics.warehouse.pipeline.block_rows`, all-in equity rows included) together.  The
    hands the block declines or cannot finish (an unusual layout, a hand its replay leaves
    to the engine) go through :func:`_per_hand_batch`, and the two parts' rows are put back
    in the order of the chunks, as one batch of the per-hand path has them.  None when
    there is no block (no hand of that layout), or when a hand of the block and one of the
    other part are the same hand: the per-hand path then takes the whole batch (it keeps
    the first of two equal hands), which is rare enough not to matter.  ``scanned``: the
    scanner's block of ``group`` and the positions it declined.
    """
    block, declined = scanned
    if not len(block):
        return None
    outcome = replay_block(block)
    ids = block_ids(block)
    left = ~outcome.accepted  # the hands the batch replay left to the engine
    taken = np.flatnonzero(~left)
    # The first of equal hands in the block is kept, as Batch.add keeps the first.
    _, first = np.unique(ids[taken], return_index=True)
    kept = taken[np.sort(first)]
    duplicates: Counter[str] = Counter()
    if len(kept) < len(taken):
        duplicates["seveneight"] += len(taken) - len(kept)
    others = sorted([*declined, *block.positions[left].tolist()])
    other_tables, rejects, other_duplicates = _per_hand_batch(group, others, context, result)
    duplicates.update(other_duplicates)
    kept_ids = ids[kept]
    other_ids = (np.empty(0, np.int64) if other_tables is None
                 else other_tables["hands"]["hand_id"].to_numpy())
    if np.isin(kept_ids, other_ids).any():
        return None
    if not len(kept):
        return other_tables, rejects, duplicates
    block_part = block_tables(block, outcome, kept, ids, context)
    if other_tables is None:
        return block_part, rejects, duplicates
    # Hands are numbered in the order of the chunks (Chunk.index is the hand's source_index).
    order = np.concatenate([block.indexes[kept],
                            other_tables["hands"]["source_index"].to_numpy()])
    merged = _merged(block_part, other_tables, np.concatenate([kept_ids, other_ids]), order)
    return merged, rejects, duplicates


def _merged(first: dict[str, pa.Table], second: dict[str, pa.Table], ids: npt.NDArray[np.int64],
            order: npt.NDArray[np.int64]) -> dict[str, pa.Table]:
    """The rows of two batches of distinct hands (``ids``, hand ``ids[k]`` the ``order[k]``-th)
    as one, every table's rows in the order of their hands and, within a hand, as they were
    (a stable sort: each batch holds a hand's rows together and in order)."""
    by_id = np.argsort(ids)
    sorted_ids, sorted_order = ids[by_id], order[by_id]
    merged: dict[str, pa.Table] = {}
    for name in {**first, **second}:  # a table only one batch has (PASS_TABLE) as well
        both = pa.concat_tables([found for found in (first.get(name), second.get(name))
                                 if found is not None])
        if both.num_rows:
            rows = both["hand_id"].to_numpy()
            keys = sorted_order[np.searchsorted(sorted_ids, rows)]
            both = both.take(np.argsort(keys, kind="stable"))
        merged[name] = both
    return merged


def process_unit(unit: Unit) -> UnitResult:
    """Do one unit of work (in a worker process, or inline): its batches of rows with
    their facts, its rejects."""
    return process_units([unit])[0]


def process_units(units: Sequence[Unit]) -> list[UnitResult]:
    """Do several units of work in one call, each as :func:`process_unit` does, their
    statistics' rows made together: a bundle of small files (a folder or a zip of one-hand
    files) pays the statistics' statement and a worker's round trip once, not per file."""
    results = [_processed(unit) for unit in units]
    _add_stat_facts(results)
    return results


def _processed(unit: Unit) -> UnitResult:
    result = UnitResult(unit.file_no, unit.last, unit.size)
    ref = unit.ref
    if ref is None:
        process_chunks(unit.chunks, unit.context, unit.batch_hands, result)
        return result
    try:
        if unit.end is not None:
            # A part of a plain file between two cuts: hands and lines numbered as in the
            # whole file.
            begin = 0 if unit.start is None else unit.start.offset
            process_data(read_range(ref, begin, unit.end), unit.context, unit.batch_hands,
                         result, unit.start)
        else:
            with open_source(ref, unit.limits) as stream:
                if unit.sheet:
                    data = stream.read()
                    _check_planned(unit, data)
                    process_sheet(data, unit.context, unit.batch_hands, result)
                    return result
                if ref.kind == "file":
                    # A whole (small) plain file is read at once -- unless it grew since it
                    # was planned: then the rest is streamed after what was read.
                    data = stream.read(unit.size + 1)
                    _check_planned(unit, data[:unit.size])
                    if len(data) <= unit.size:
                        process_data(data, unit.context, unit.batch_hands, result)
                        return result
                    source = cast(IO[bytes], _Prefixed(data, stream.as_io()))
                    hashed = None
                else:
                    hashed = _Hashing(stream.as_io(), unit.size)
                    source = cast(IO[bytes], hashed)
                chunks = iter_chunks(source, unit.context.path)
                process_chunks(chunks, unit.context, unit.batch_hands, result)
                if hashed is not None:
                    _check_digest(unit, hashed.hexdigest())
    except SourceError as error:
        # The whole file is dropped (its transaction never starts): report, don't load half.
        return UnitResult(unit.file_no, unit.last, unit.size, error=str(error))
    return result


def _check_planned(unit: Unit, content: bytes) -> None:
    """Raise :class:`SourceError` unless ``content`` is the content the plan hashed (the
    file's ``files`` row names that hash: a file replaced between the plan and this read
    would be recorded as loaded with hands it does not hold, and never loaded again)."""
    _check_digest(unit, hashlib.sha256(content).hexdigest())


def _check_digest(unit: Unit, digest: str) -> None:
    if digest != unit.context.sha256:
        raise SourceError(f"{unit.context.path}: changed while it was being loaded (not the "
                          "content hashed when the ingest began): nothing of it is loaded; "
                          "load it again")


class _Hashing(io.RawIOBase):
    """A binary stream of ``raw`` that hashes (sha256) its first ``size`` bytes as they are
    read: a compressed source's content, checked once read (:func:`_check_digest`)."""

    def __init__(self, raw: IO[bytes], size: int) -> None:
        super().__init__()
        self._raw = raw
        self._left = size
        self._digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        if self._left > 0:
            self._digest.update(data[:self._left])
            self._left -= len(data)
        return data

    def hexdigest(self) -> str:
        """The digest of what was read, once all of it was (the rest read now if not)."""
        while self._left > 0 and self.read(1 << 20):
            pass
        return self._digest.hexdigest()


class _Prefixed(io.RawIOBase):
    """A binary stream of ``first`` and then the rest of ``rest``."""

    def __init__(self, first: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._first = memoryview(first)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._first:
            taken = self._first if size < 0 else self._first[:size]
            self._first = self._first[len(taken):]
            return bytes(taken)
        return self._rest.read(size)


_YOUNG_THRESHOLD: Final = 500_000
"""Container objects a worker allocates between two young collections (CPython's is 700).

Nearly everything a worker allocates is freed by reference counting; what a young
collection walks is what is alive, and in a Big Two or Rummoli batch that is chiefly the
batch's own column lists (hundreds of thousands of items each: every item is visited), so
each collection cost 25-150 ms and they added up to ~20-25 us per Rummoli round and ~40
per Big Two game (gc.callbacks, docs/performance.md, session 11 (R)).  At 500,000 a
unit of 5,000 rounds or games runs none; cyclic garbage (rare here: no exception is kept)
waits longer, which is all a higher threshold costs."""

# glibc's mallopt parameters (malloc.h) and the values a worker sets.
_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3
_KEPT_FREE_BYTES: Final = 256 << 20
"""Freed memory at the heap's top a worker keeps instead of giving it back to the kernel."""
_MAPPED_BYTES: Final = 64 << 20
"""Allocations from this size on get pages of their own (glibc's default starts at 128 KiB)."""


def init_worker(parent: int | None = None) -> None:
    """Worker start-up: die with the parent, leave Ctrl-C to the parent, collect less, and
    keep the memory it frees for its next unit.

    On Linux, PR_SET_PDEATHSIG makes the kernel kill a worker whose parent dies,
    even by ``kill -9``, so no orphan keeps burning a core after a killed ingest.
    ``parent``: the pid of the process that started the pool, which tells a worker whose
    parent died before the request took effect (None: only a worker handed to init tells).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pool ends its workers by SIGTERM: a handler the parent had (handlab serve's, run
    # in-process before an ingest) must not keep a worker alive, the pool waiting for it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # A unit makes hundreds of thousands of short-lived tuples, lists and chunks, which at
    # CPython's threshold means a young collection every 700 and a full one every 70,000.
    # A worker's cycles are rare (an exception's traceback) and its garbage dies with the
    # unit, so collecting every 50,000 costs little memory.  Freezing what the worker
    # inherited (modules, numba's registries) keeps the full collections from walking it --
    # and from copying every page of it on write after the fork.  Together about a third
    # of a worker's CPU per 7 & 8 hand (docs/performance.md, session 8 (A)).
    gc.freeze()
    gc.set_threshold(_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        except OSError:
            libc = None
        # The parent died before prctl took effect: the worker was handed to init, or to a
        # subreaper (a container's init, a service manager), so compare with the parent's pid.
        orphaned = os.getppid() == 1 if parent is None else os.getppid() != parent
        if orphaned:
            os._exit(1)
        if libc is not None:
            _keep_freed_memory(libc)


def _keep_freed_memory(libc: ctypes.CDLL) -> None:
    """Make glibc's malloc keep what a unit frees for the next one.

    Each unit allocates and frees megabytes (its text, its columns, its pickled result);
    by default malloc maps the large blocks afresh and gives the heap's free top back, so
    every unit faults its pages in again (2.3 page faults per 7 & 8 hand).  Kept, the
    worker's resident size stays at its peak, which it reaches anyway.
    """
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:  # glibc
        mallopt(_M_TRIM_THRESHOLD, _KEPT_FREE_BYTES)
        mallopt(_M_MMAP_THRESHOLD, _MAPPED_BYTES)
