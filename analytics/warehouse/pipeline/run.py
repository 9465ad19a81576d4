"""``ingest(paths, db)``: load hand histories into the warehouse, completely and once.

The flow (docs/warehouse.md has the reasoning):

1. **Plan**: expand the paths into sources, hash each source's content
   (sha256, decompressed) and drop those the ``files`` table already records:
   rerunning an ingest costs one read of each file.
2. **Work**: sources become :class:`~analytics.warehouse.pipeline.work.Unit` s --
   whole files, or parts of large ones that the workers read and split
   themselves (the main process only scans for the cuts between hands,
   :class:`~parsers.reader.HandCuts`) -- parsed, replayed and re-scored in a pool
   of worker processes (or inline), at most a few units in flight so memory
   stays bounded.
3. **Load**: the main process is the one writer.  It takes results in order and
   loads whole files, several per transaction (:data:`GROUP_ROWS`), a file never split
   between two (:mod:`analytics.warehouse.pipeline.write`).

The result is an :class:`IngestSummary`, which is also what ``handlab ingest``
prints and turns into its exit code.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from analytics.warehouse.connection import WriterLease, leased, project_root, resolve_db
from analytics.warehouse.errors import SourceError
from analytics.warehouse.pipeline.continuity import BoardChain, board_breaks
from analytics.warehouse.pipeline.errorlog import ErrorLog
from analytics.warehouse.pipeline.reading import (
    HISTORIES,
    SCORE_SHEET,
    SourceFormat,
    source_format,
)
from analytics.warehouse.pipeline.rows import FileContext, RejectRow, first_of_hands
from analytics.warehouse.pipeline.sources import (
    Limits,
    SourceRef,
    content_digest,
    expand,
    open_source,
    release_archives,
)
from analytics.warehouse.pipeline.work import (
    INTERNAL_ERROR_LOG,
    INTERNAL_STAGE,
    Unit,
    UnitResult,
    init_worker,
    process_units,
)
from analytics.warehouse.pipeline.write import (
    FileStats,
    LoadedFile,
    begin,
    commit,
    known_files,
    load_new,
    load_rejects,
    loaded_versions,
    record_files,
    rollback,
)
from analytics.warehouse.sql.facts import PotGames
from analytics.words import counted
from parsers.fields import VARIANTS
from parsers.foreign import ForeignFormat
from parsers.reader import Chunk, Cut, HandCuts, iter_chunks

__all__ = [
    "SAMPLES",
    "FileSummary",
    "GameCounts",
    "IngestProgress",
    "IngestSummary",
    "bundle_bytes",
    "bundles",
    "capped_workers",
    "compile_kernels",
    "ensure_database",
    "ingest",
    "machine_cores",
    "set_aside",
    "warm_up",
]

BATCH_HANDS: Final = 5_000
"""Hands per Arrow batch: large enough that per-insert costs vanish, small enough for memory."""

WHOLE_SOURCE_BYTES: Final = 8 * 1024**2
"""Sources up to this size go to a worker whole; larger plain files go in parts of
:data:`BATCH_HANDS` hands or :data:`PART_BYTES` (the workers read and split them), and
larger compressed ones are split by the main process."""

PART_BYTES: Final = 8 * 1024**2
"""A part of a large plain file ends at the first hand after this many bytes (or
:data:`BATCH_HANDS` hands)."""

SCAN_BLOCK: Final = 1024**2
"""Bytes read at a time while scanning a large plain file for cuts."""

GROUP_ROWS: Final = 4_000_000
"""Rows (of every table together) after which the writer commits the whole files it has
gathered in its transaction: about 25 5,000-hand 7 & 8 files (about 156,000 rows each).
DuckDB writes a table's rows as compressed row groups (122,880 rows) during the
transaction once it holds at least one row group of them ("optimistic writes"); fewer go
to the write-ahead log and are written again by a checkpoint.  At this size every table
of a 7 & 8 ingest, ``hands`` included (about 125,000 rows), is written that way, so
the log stays small and the checkpoints short: with a million rows only the large tables
were, and each checkpoint of the smaller ones (2.7-4.3 s of the writer's CPU at 300,000
hands, ~5 s at a million) stopped the writer long enough for both workers to run out of
units (docs/performance.md, Session 11)."""

_INLINE_BYTES: Final = 2 * 1024**2
"""Below this much content a worker pool costs more than it saves."""

_MOST_AUTO_WORKERS: Final = 8
"""The most workers an ingest starts when it is not told how many."""


@dataclass(slots=True)
class GameCounts:
    """Hands of one game: loaded now, already present, rejected."""

    loaded: int = 0
    duplicates: int = 0
    rejected: int = 0


@dataclass(slots=True)
class FileSummary:
    """What happened to one source.

    ``status`` is ``loaded``, ``partial`` (loaded, some hands rejected),
    ``already loaded`` (its content was loaded before: nothing to do),
    ``skipped`` (a symbolic link inside a folder or an archive: not followed; a named pipe,
    socket or device inside a folder: not opened; by design) or
    ``error`` (unreadable or over a limit: nothing of it loaded; see ``message``).
    ``earlier``: the sha256 of other contents of a score sheet loaded before under the same
    name (a sheet mended): a sheet's game is known by its line's place, so a line inserted
    or changed makes the games after it new games, and the old ones stay beside them until
    taken out (``handlab forget``), which a person is told.  (A history file that grew
    needs no word: its hands are known by their content, the old ones duplicates.)
    """

    name: str
    status: str
    sha256: str | None = None
    hands: int = 0
    loaded: int = 0
    duplicates: int = 0
    rejected: int = 0
    message: str | None = None
    earlier: tuple[str, ...] = ()
    bad_lines: int = 0
    """A score sheet's bad lines that are no game (a names line, a ``Total`` row): in the
    rejects, but not hands, so not among ``hands`` nor ``rejected``."""

    @property
    def refused_words(self) -> str:
        """What of the file was refused, in words: ``3 hands rejected``, ``1 hand rejected
        and 2 bad lines`` (a sheet's bad lines that are no game)."""
        parts = [f"{counted(self.rejected, 'hand')} rejected"] if self.rejected else []
        if self.bad_lines:
            parts.append(counted(self.bad_lines, "bad line"))
        return " and ".join(parts) or "nothing refused"

    @property
    def earlier_note(self) -> str | None:
        """What a person is told of :attr:`earlier` once this file is loaded (None when
        there is nothing to tell)."""
        if not self.earlier or self.status not in ("loaded", "partial"):
            return None
        shas = [sha[:12] for sha in self.earlier]
        both = " ".join([*shas, (self.sha256 or "")[:12]])
        return (f"loaded before with other content ({', '.join(shas)}): both versions are in "
                f"the database now, so a game in both counts twice; to keep only this one, "
                f"take them out (`handlab forget {both}`, or the Overview's \"Take a file "
                f"out\") and load this file again")


@dataclass(slots=True)
class IngestSummary:
    """The outcome of an ingest; ``exit_code`` is 0 (all loaded), 1 (rejects, or no hand at
    all) or 2 (errors)."""

    db: Path
    files: list[FileSummary] = field(default_factory=list)
    by_game: dict[str, GameCounts] = field(default_factory=dict)
    seconds: float = 0.0
    internal_errors: int = 0
    """Hands rejected for a bug in handlab (stage ``internal``; counted in ``rejected``)."""
    error_log: Path | None = None
    """The error log holding this ingest's tracebacks, when it wrote any
    (:mod:`analytics.warehouse.pipeline.errorlog`)."""

    @property
    def hands(self) -> int:
        """Hands read in this run (files already loaded are not read)."""
        return sum(f.hands for f in self.files)

    @property
    def loaded(self) -> int:
        """Hands added to the warehouse."""
        return sum(f.loaded for f in self.files)

    @property
    def duplicates(self) -> int:
        """Hands read that the warehouse already held."""
        return sum(f.duplicates for f in self.files)

    @property
    def rejected(self) -> int:
        """Hands refused (parse or rules errors), recorded in ``rejects``."""
        return sum(f.rejected for f in self.files)

    @property
    def bad_lines(self) -> int:
        """Score sheets' bad lines that are no game, recorded in ``rejects``."""
        return sum(f.bad_lines for f in self.files)

    @property
    def errors(self) -> list[FileSummary]:
        """Sources that could not be read at all."""
        return [f for f in self.files if f.status == "error"]

    @property
    def hands_per_second(self) -> float:
        """Hands read per second of the whole run."""
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def nothing_read(self) -> str | None:
        """Why not one hand was read, in words, or None when some hand was, or a source was
        found already loaded (a rerun: nothing new, nothing wrong).

        An ingest of an empty file, an empty folder, or a folder of links only used to end
        with an all-zero table and exit code 0, as if all had gone well."""
        if self.hands or any(f.status == "already loaded" for f in self.files):
            return None
        read = sum(f.status in ("loaded", "partial") for f in self.files)
        others = len(self.files) - read
        if read:
            return (f"the {counted(read, 'file')} read {'holds' if read == 1 else 'hold'} no "
                    "hand" + (f"; {counted(others, 'other')} skipped or not readable"
                              if others else ""))
        if not self.files:
            return ("no history file was found (a folder is searched for .phh, .phhs, .zip "
                    "and .gz files)")
        if all(f.status == "skipped" for f in self.files):
            return "every file was skipped"
        return "no file could be read"

    @property
    def exit_code(self) -> int:
        """2 when a source could not be read, else 1 when hands were rejected, a sheet had
        bad lines or no hand was read at all (:attr:`nothing_read`), else 0."""
        if self.errors:
            return 2
        return 1 if self.rejected or self.bad_lines or self.nothing_read is not None else 0


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """Reported after each batch: hands and content bytes done so far."""

    hands: int
    bytes_done: int
    bytes_total: int
    current: str


ProgressCallback = Callable[[IngestProgress], None]


@dataclass(slots=True)
class _Planned:
    ref: SourceRef
    context: FileContext
    size: int
    summary: FileSummary
    stats: FileStats = field(default_factory=FileStats)
    # (loaded|duplicates|rejected, game) -> hands; added to the summary when the file commits
    games: Counter[tuple[str, str]] = field(default_factory=Counter)
    started: dt.datetime | None = None  # when its load began
    sheet: bool = False  # a Big Two score sheet (read whole by work.process_sheet)
    # pending; open (its first parts loaded in the open transaction); loaded (whole, in
    # the open transaction, its files row written); done (committed, or found loaded, or
    # failed)
    state: str = "pending"

    def reset(self) -> None:
        """Back to pending: its transaction was rolled back before it committed (a file in
        parts gathered with it failed), so it is to be loaded again."""
        self.stats = FileStats()
        self.games.clear()
        self.started = None
        self.state = "pending"
        self.summary.message = None


def _plan(refs: list[SourceRef], limits: Limits, known: Callable[[list[str]], set[str]],
          summary: IngestSummary) -> list[_Planned]:
    """Hash every source; keep those whose content is not loaded yet (nor earlier in this run)."""
    planned: list[_Planned] = []
    digests: list[tuple[SourceRef, str, int]] = []
    for ref in refs:
        try:
            sha, size = content_digest(ref, limits)
        except SourceError as error:
            summary.files.append(FileSummary(ref.name, "error", message=str(error)))
            continue
        digests.append((ref, sha, size))
    loaded = known([sha for _, sha, _ in digests])
    first_seen: dict[str, str] = {}
    for ref, sha, size in digests:
        if sha in loaded:
            summary.files.append(FileSummary(ref.name, "already loaded", sha,
                                             message="this content was loaded before"))
            continue
        if sha in first_seen:
            summary.files.append(FileSummary(ref.name, "already loaded", sha,
                                             message=f"same content as {first_seen[sha]}"))
            continue
        kind = _format(ref, limits)
        if isinstance(kind, ForeignFormat):
            # Not a history at all: one clear message instead of a TOML error per "hand".
            summary.files.append(FileSummary(ref.name, "error", sha,
                                             message=f"{ref.name}: {kind.message}"))
            continue
        first_seen[sha] = ref.name
        file_summary = FileSummary(ref.name, "pending", sha)
        summary.files.append(file_summary)
        context = FileContext(ref.name, sha, dt.datetime.now())
        planned.append(_Planned(ref, context, size, file_summary, sheet=kind == SCORE_SHEET))
    return planned


def _format(ref: SourceRef, limits: Limits) -> SourceFormat:
    """What the source holds (:func:`~analytics.warehouse.pipeline.reading.source_format`:
    the one place the ingest decides how a source is read); histories when it cannot be
    read now: that is reported where the source is read."""
    try:
        return source_format(ref, limits)
    except SourceError:
        return HISTORIES


def _units(planned: list[_Planned], limits: Limits, whole_bytes: int
           ) -> Iterator[Unit | UnitResult]:
    """The work, file by file, in order.  A source that fails while the main process
    splits it yields a ready-made error result in its place."""
    for file_no, item in enumerate(planned):
        if item.sheet:
            yield Unit(file_no, item.context, True, BATCH_HANDS, limits, item.ref,
                       size=item.size, sheet=True)
        elif item.size <= whole_bytes:
            yield Unit(file_no, item.context, True, BATCH_HANDS, limits, item.ref,
                       size=item.size)
        elif item.ref.kind == "file":
            yield from _part_units(file_no, item, limits)
        else:
            yield from _split_here(file_no, item, limits)


def _part_units(file_no: int, item: _Planned, limits: Limits) -> Iterator[Unit | UnitResult]:
    """A plain file in parts from cut to cut, which the workers read and split themselves.

    The file is scanned for cuts here, a part handed out as soon as its end is found
    (a file already loaded is never scanned).  The last part runs from the last cut
    to the end: in a file the scan gave up on (an unusual byte, a line too long) a
    large last part is split here instead, so that no unit is unbounded.
    """
    scan = HandCuts(BATCH_HANDS, PART_BYTES)
    start: Cut | None = None
    try:
        with open_source(item.ref, limits) as stream:
            while block := stream.read(SCAN_BLOCK):
                scan.feed(block)
                for cut in scan.take():
                    begin = 0 if start is None else start.offset
                    yield Unit(file_no, item.context, False, BATCH_HANDS, limits, item.ref,
                               size=cut.offset - begin, start=start, end=cut.offset)
                    start = cut
            size = stream.count
    except SourceError as error:
        yield UnitResult(file_no, last=True, error=str(error))
        return
    begin = 0 if start is None else start.offset
    if size - begin > 2 * PART_BYTES:
        yield from _split_here(file_no, item, limits, start)
    else:
        yield Unit(file_no, item.context, True, BATCH_HANDS, limits, item.ref,
                   size=size - begin, start=start, end=size)


def _split_here(file_no: int, item: _Planned, limits: Limits, start: Cut | None = None
                ) -> Iterator[Unit | UnitResult]:
    """A source (from ``start`` on) split into chunks by this process, in batches."""
    def unit(last: bool, size: int, chunks: list[Chunk]) -> Unit:
        return Unit(file_no, item.context, last, BATCH_HANDS, limits, chunks=tuple(chunks),
                    size=size)

    offset = 0 if start is None else start.offset
    try:
        with open_source(item.ref, limits, offset) as stream:
            batch: list[Chunk] = []
            done = 0
            for chunk in iter_chunks(stream.as_io(), item.context.path, start=start):
                batch.append(chunk)
                if len(batch) >= BATCH_HANDS:
                    yield unit(False, stream.count - done, batch)
                    done = stream.count
                    batch = []
            yield unit(True, stream.count - done, batch)
    except SourceError as error:
        yield UnitResult(file_no, last=True, error=str(error))


_ALL_GAMES: Final = frozenset(variant.game.value for variant in VARIANTS.values())


def _run(units: Iterator[Unit | UnitResult], workers: int, *,
         most_bytes: int, kernels: frozenset[str] = _ALL_GAMES
         ) -> Iterator[UnitResult]:
    """Results in the order of ``units``: computed by a process pool, or inline, small
    units in bundles of up to ``most_bytes`` (:func:`bundles`).  ``kernels``: the games
    whose numba kernels the units are likely to need (:func:`_kernel_games`)."""
    if workers <= 0:
        for bundle in bundles(units, most_bytes):
            yield from [bundle] if isinstance(bundle, UnitResult) else process_units(bundle)
        return
    # fork: workers inherit the loaded modules (fast start).
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "fork" and workers > 1:
        # Loaded once here instead of once in every worker of every ingest (numba's start-up
        # is most of it: the CPU of a worker's first batch).
        warm_up(kernels)
    pool = _start_pool(workers, multiprocessing.get_context(method))
    pending: deque[AsyncResult[list[UnitResult]] | UnitResult] = deque()
    window = 2 * workers  # in flight: keeps workers busy, bounds memory
    try:
        for bundle in bundles(units, most_bytes):
            pending.append(bundle if isinstance(bundle, UnitResult)
                           else pool.apply_async(process_units, (bundle,)))
            while len(pending) >= window:
                yield from _take(pending.popleft())
        while pending:
            yield from _take(pending.popleft())
        pool.close()
    finally:
        pool.terminate()
        pool.join()


BUNDLE_BYTES: Final = 2 * 1024 * 1024
"""The most content a bundle holds: consecutive units go to a worker together up to it.  A
unit pays a fixed ~60-100 ms (the statistics' statement, a round trip, small Arrow
tables), so a folder or a zip of one-hand files loaded at ~10 hands a second one file at a
time.  The statistics' statement costs ~20 ms whatever its rows up to a few thousand
hands, so a folder of 750-hand files spends about 15 % less worker CPU on 2 MiB bundles
than on 256 KiB ones (docs/warehouse.md)."""

LEAST_BUNDLE_BYTES: Final = 256 * 1024
"""The least :func:`bundle_bytes` gives: below it a unit's fixed cost outweighs its work."""

BUNDLE_UNITS: Final = 100
"""The most units in one bundle, so that the files of a small folder still spread over
the workers."""


def bundle_bytes(total: int, workers: int) -> int:
    """The most content of a bundle when ``workers`` share ``total`` bytes: two bundles a
    worker at least, so that a small folder keeps every worker busy, within
    :data:`LEAST_BUNDLE_BYTES` and :data:`BUNDLE_BYTES` (inline, ``workers`` 0: the
    largest)."""
    if workers <= 0:
        return BUNDLE_BYTES
    return max(LEAST_BUNDLE_BYTES, min(BUNDLE_BYTES, total // (2 * workers)))


def bundles(units: Iterable[Unit | UnitResult], most_bytes: int = BUNDLE_BYTES
            ) -> Iterator[list[Unit] | UnitResult]:
    """``units`` in bundles of consecutive units, each yielded as soon as it is full: at
    most :data:`BUNDLE_UNITS` units and ``most_bytes`` of content, a unit that would take
    a bundle over it starting the next (a larger unit goes alone); a ready-made result (a
    source that failed while it was split) on its own, in its place."""
    bundle: list[Unit] = []
    size = 0
    for unit in units:
        if isinstance(unit, UnitResult):
            if bundle:
                yield bundle
                bundle, size = [], 0
            yield unit
            continue
        if bundle and size + unit.size > most_bytes:
            yield bundle
            bundle, size = [], 0
        bundle.append(unit)
        size += unit.size
        if size >= most_bytes or len(bundle) >= BUNDLE_UNITS:
            yield bundle
            bundle, size = [], 0
    if bundle:
        yield bundle


def _start_pool(workers: int, context: multiprocessing.context.BaseContext) -> Pool:
    """The worker pool; each worker starts with
    :func:`~analytics.warehouse.pipeline.work.init_worker`
    (which also leaves what it inherited out of its collections)."""
    return _QuietPool(workers, initializer=init_worker, initargs=(os.getpid(),),
                      context=context)


class _QuietPool(Pool):
    """A pool whose worker-handler thread sleeps while results arrive.

    CPython's (3.8-3.13) waits on the result pipe too (``_get_sentinels``), so while a
    result is in the pipe and its result-handler thread is still reading it (megabytes of
    Arrow tables per unit) it wakes again and again: 7 us of the main process's CPU per
    7 & 8 hand, and the GIL taken from the writer (docs/performance.md, Session 7 (W)).
    Without it, the thread wakes when a worker exits or the pool changes state; ``_run``
    ends every pool with ``terminate``, which notifies it.
    """

    def _get_sentinels(self) -> list[object]:
        notifier = getattr(self, "_change_notifier", None)
        if notifier is None:  # another CPython's pool: keep its own waiting
            return super()._get_sentinels()  # type: ignore[misc,no-any-return]
        return [notifier._reader]


def _take(item: AsyncResult[list[UnitResult]] | UnitResult) -> list[UnitResult]:
    return [item] if isinstance(item, UnitResult) else item.get()


PEEK_BYTES: Final = 64 * 1024
"""How much of each source's start :func:`_kernel_games` reads."""

_VARIANT: Final = re.compile(rb"""^[ \t]*variant[ \t]*=[ \t]*["']?([A-Za-z0-9]+)""", re.MULTILINE)
_GAME_OF_VARIANT: Final = {code.encode(): variant.game.value
                           for code, variant in VARIANTS.items()}


def _kernel_games(planned: list[_Planned], limits: Limits) -> frozenset[str]:
    """The games the starts of the planned sources name: those whose kernels
    :func:`warm_up` loads before the workers fork.

    A guess, good for what it decides: a hand of another game deep inside a file still
    replays, its worker loading that game's kernels itself.  A source without a known
    variant in its start, or that cannot be read, counts as every game.
    """
    games: set[str] = set()
    for item in planned:
        try:
            with open_source(item.ref, limits) as stream:
                variants = set(_VARIANT.findall(stream.read(PEEK_BYTES)))
        except SourceError:
            return _ALL_GAMES
        if not variants or not variants <= _GAME_OF_VARIANT.keys():
            return _ALL_GAMES
        games.update(_GAME_OF_VARIANT[variant] for variant in variants)
        if games == _ALL_GAMES:
            break
    return frozenset(games)


def warm_up(games: frozenset[str] = _ALL_GAMES) -> None:
    """Load into this process the numba kernels the workers use for ``games``'s hands
    (numba itself, its typing registries, each kernel's machine code from the disk cache;
    about 1 s of CPU the first time in a process, nothing after).

    The ingest calls it before forking its workers, which then start with them loaded
    instead of each loading them on its first batch.  Only kernels that run on the calling
    thread are called here: a worker forked from a process that has used numba's OpenMP
    thread pool dies when it uses the pool too.
    """
    if not games:
        return
    from analytics.evaluator.kernels import load_numba_without_scipy_linalg

    load_numba_without_scipy_linalg()
    if "seveneight" in games:
        from analytics.rules.seveneight import block as seveneight_block

        _warm_up_allin()
        seveneight_block.warm_up()  # the batch replay (pipeline's block path)
    if "bigtwo" in games:
        from analytics.equity.bigtwo import bigtwo_features_many
        from parsers.rule_options import BigTwoRules

        bigtwo_features_many([(1 << 13) - 1], [13], [BigTwoRules()])
    if "rummoli" in games:
        from analytics.equity import rummoli
        from analytics.evaluator import poker_value_of_mask
        from analytics.evaluator.categories import poker_labels

        rummoli.warm_up()
        poker_labels(["AsKsQsJsTs9s8s"], parallel=False)  # the dealt categories
        # The showdowns' rank table (a list, built from the array on first use), made once
        # here rather than by every worker on its first round (0.01 s of CPU each).  The
        # engines themselves come with the rules package, which this module imports.
        poker_value_of_mask(0b11111)


def _warm_up_allin() -> None:
    """A 7 & 8 all-in with one card to come for each of two players: the stacked exact
    kernel, which nearly every all-in of an ingest goes through."""
    from analytics.equity.allin import AllInSpot, allin_adjusted_many

    held = (0, 5, 10, 15)
    spot = AllInSpot(
        contestants=(0, 1), contributions=(10, 10), refunds=(0, 0), nets=(10, -10),
        total=20, rows=((0, 5, -1), (10, 15, -1)), owner=(0, 1), pos=(2, 2),
        pool=tuple(code for code in range(52) if code not in held), slots=(1, 1),
        eligible=((True, True),), amounts=(20,))
    allin_adjusted_many([spot], [0], threads=1)


def _auto_workers(total_bytes: int) -> int:
    """Workers asked for when none were given: none below :data:`_INLINE_BYTES`, else
    :data:`_MOST_AUTO_WORKERS` (:func:`capped_workers` then keeps them to the cores and the
    work, as it does a number given)."""
    return 0 if total_bytes < _INLINE_BYTES else _MOST_AUTO_WORKERS


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def capped_workers(requested: int, units: int) -> int:
    """Worker processes to start when ``requested`` were asked for and there are about
    ``units`` pieces of work: at most one per core and one per unit (0 stays 0: inline).

    ``handlab ingest -j 100000 one_file.phhs`` started 100,000 processes, each a copy of
    the parent, and the machine killed the ingest for lack of memory; a worker more than
    the cores or the work only waits."""
    return max(0, min(requested, machine_cores(), units))


def _work_units(planned: list[_Planned]) -> int:
    """About how many units of work the planned sources make (:func:`_units`): one per
    whole source, one per :data:`PART_BYTES` of a larger one."""
    return sum(1 if item.sheet or item.size <= WHOLE_SOURCE_BYTES
               else -(-item.size // PART_BYTES) for item in planned)


def ingest(
    paths: Sequence[Path | str] | Path | str,
    db: Path | str | None = None,
    *,
    workers: int | None = None,
    limits: Limits | None = None,
    progress: ProgressCallback | None = None,
    wait: float = 60.0,
    hold: float = 2.0,
    names: Mapping[str, str] | None = None,
    keep: float = 0.0,
) -> IngestSummary:
    """Load the hand histories under ``paths`` into the warehouse ``db``.

    ``paths`` are files, folders (searched recursively), ``.zip`` or ``.gz``
    files.  ``db`` defaults to ``$HANDLAB_DB`` or ``data/handlab.duckdb``.
    ``workers`` is the number of worker processes (0: all in this process;
    None: one per core, or none for small inputs).  ``limits`` bounds what one
    source may expand to.  ``progress`` is called after each batch.  ``wait`` is
    how long to wait for the database while another process holds it; ``hold``
    how long to keep it before letting waiting readers in (between two files: the files
    gathered in the open transaction commit first).
    ``names`` maps a path as given (``str(path)``) to the name stored and shown for it
    (an upload's ``upload: hands.phhs`` instead of its temporary path; zip members keep
    their member name after it).
    ``keep``: seconds to keep the write connection open afterwards for the next ingest of
    this process (:func:`~analytics.warehouse.connection.leased`; the recorder's hands, one
    by one), released early when another process or thread asks for the database; 0
    closes it (and checkpoints) at the end.

    Raises :class:`~analytics.warehouse.errors.SourceError` when a path does not
    exist (nothing is loaded) and
    :class:`~analytics.warehouse.errors.WarehouseBusy` when the database stays
    locked.  Unreadable sources and rejected hands are reported in the summary.
    """
    started = time.perf_counter()
    limits = limits or Limits()
    path_list = [paths] if isinstance(paths, str | Path) else list(paths)
    summary = IngestSummary(resolve_db(db))
    refs = expand(path_list, limits)
    if names:
        refs = [replace(ref, label=names[ref.path]) if ref.path in names else ref
                for ref in refs]
    refs = set_aside(refs, summary)
    with leased(summary.db, wait=wait, hold=hold, keep=keep) as lease:
        planned = _plan(refs, limits, lambda shas: known_files(lease.con, shas), summary)
        versions = loaded_versions(lease.con, [item.context.path for item in planned
                                               if item.sheet])
        for item in planned:
            item.summary.earlier = tuple(versions.get(item.context.path, ()))
        total = sum(item.size for item in planned)
        count = capped_workers(_auto_workers(total) if workers is None else workers,
                               _work_units(planned))
        lease.configure(_writer_settings(count))
        whole = WHOLE_SOURCE_BYTES if count > 0 else 0  # inline: always stream in batches
        hands_done = bytes_done = 0
        writer = _Writer(lease, summary)
        try:
            kernels = _kernel_games(planned, limits) if count > 1 else frozenset()
            todo = planned
            while todo:  # then the files a failing file in parts took back with it, if any
                for result in _run(_units(todo, limits, whole), count, kernels=kernels,
                                   most_bytes=bundle_bytes(total, count)):
                    item = todo[result.file_no]
                    bytes_done += result.size
                    hands_done += result.hands
                    writer.apply(item, result)
                    if writer.between_files() and lease.due():
                        writer.commit()
                        lease.maybe_release()
                    if progress is not None:
                        progress(IngestProgress(hands_done, bytes_done, total,
                                                item.context.path))
                todo, writer.requeued = writer.requeued, []
                total += sum(item.size for item in todo)  # their bytes are read again
            writer.commit(last=keep <= 0)  # a kept lease checkpoints when it is let go
        except BaseException:
            writer.abandon()
            raise
        finally:
            release_archives()  # an upload's zip, whose folder goes next, held no longer
    summary.seconds = time.perf_counter() - started
    return summary


def set_aside(refs: list[SourceRef], summary: IngestSummary) -> list[SourceRef]:
    """The sources to read: those skipped on purpose (a link or a pipe inside a folder) go
    into ``summary`` as ``skipped``, those with a problem (over a limit, an unsafe name) as
    ``error``, each with its reason, and none of them is ever opened.  The database's
    ingest and the lake's (:func:`~analytics.warehouse.lake.engine.ingest_lake`) both set
    them aside here."""
    for ref in refs:
        if ref.skipped is not None:
            summary.files.append(FileSummary(ref.name, "skipped", message=f"{ref.name}: "
                                             f"{ref.skipped}"))
        elif ref.problem is not None:
            summary.files.append(FileSummary(ref.name, "error", message=f"{ref.name}: "
                                             f"{ref.problem}"))
    return [ref for ref in refs if ref.problem is None and ref.skipped is None]


def _writer_settings(workers: int) -> dict[str, str | int]:
    """DuckDB settings for the ingest's connection (docs/performance.md, Session 4).

    ``checkpoint_threshold``: with DuckDB's 16 MB a 5,000-hand file's commit went past it
    and checkpointed, rewriting every table's last, partly filled row group each time;
    at 64 MB the log holds about four such files and the checkpoint comes with the
    lease's release (every ``hold`` seconds), about a third less CPU per hand.
    ``threads``: with workers on every core the writer's inserts gain nothing from a
    second DuckDB thread but its overhead (half the inserts' CPU)."""
    settings: dict[str, str | int] = {"checkpoint_threshold": "64MB"}
    if workers > 0:
        settings["threads"] = 1
    return settings


_LAST_COMMIT: Final = {"checkpoint_threshold": "0b"}
"""The setting of the ingest's last commit: a commit that passes the threshold checkpoints
instead of writing its transaction to the write-ahead log (DuckDB 1.1+), and the lease's close
then has nothing left to checkpoint.  The close would checkpoint everything anyway, so this
only saves the log write and its reading again: 0.77 s of CPU for the commit against 0.54 for
the commit and 0.37 for the close's checkpoint (20,000 Big Two games, one transaction),
after the workers' last results, while they idle (docs/performance.md, Session 11 (T)).
When DuckDB cannot checkpoint then (another connection of this process in a transaction),
the commit is logged as before."""


STAGED_ROWS: Final = 50_000
"""Rows of small whole files the writer gathers before it loads them together; a file of
more (a 5,000-hand 7 & 8 file has about 156,000) goes in alone, as soon as it comes."""

STAGED_BYTES: Final = 4 * 1024**2
"""Content of the whole files the writer gathers, at most: a file whose hands are all
rejected has no rows but keeps every hand's text (in its rejects) until it is loaded, so
rows alone let a thousand 8 MiB files of rejects wait together."""

STAGED_FILES: Final = 1_000
"""The most whole files the writer loads together."""

_NO_HANDS: Final = pa.table({"hand_id": pa.array([], pa.int64()),
                             "game": pa.array([], pa.string())})


def _joined(tables: list[pa.Table], small: bool) -> pa.Table:
    """One table of a load's ``tables``; of ``small`` files in one chunk, since DuckDB
    scans a table of a thousand small chunks (one-hand files) at ~0.2 s a statement."""
    joined = pa.concat_tables(tables, promote_options="permissive")
    return joined.combine_chunks() if small else joined


def _result_rows(result: UnitResult) -> int:
    return sum(table.num_rows for tables in result.batches for table in tables.values())


class _Writer:
    """The ingest's one transaction at a time: files gathered until :data:`GROUP_ROWS`
    rows (a file is never split between two transactions).

    A source that fails is one whose result is an error, known before anything of it is
    loaded, except for a file in parts, whose later part may fail after its first ones
    were loaded: the transaction is then rolled back, and the complete files gathered in it
    go to :attr:`requeued`, to be loaded again (the ingest's next pass).  A file in parts
    used to start a transaction of its own instead, so that its failure took nothing else
    with it; but then a folder of large files committed at every file, and those commits
    (each table's partly filled row groups written to the log, and checkpointed every few
    files) cost the writer half of a million 7 & 8 hands' time in 25,000-hand files
    (docs/performance.md, Session 13).  A late failure is rare: a compressed file cut
    short, a source over a limit, a file changed while it is read.
    """

    def __init__(self, lease: WriterLease, summary: IngestSummary) -> None:
        self.lease = lease
        self.summary = summary
        self.files: list[_Planned] = []  # loaded whole in the open transaction
        self.rows = 0
        self.parts: _Planned | None = None  # the file in parts being loaded
        self.active = False  # a transaction is open
        self.games = PotGames()  # the Rummoli games with pot rows, across the batches
        self.boards: dict[str, BoardChain] = {}  # each file's Rummoli rounds, by content
        self.log = ErrorLog(summary.db)  # the tracebacks of the bugs met
        # complete files of a transaction rolled back by a file in parts that failed
        self.requeued: list[_Planned] = []
        self.staged: list[tuple[_Planned, UnitResult]] = []  # whole files to load together
        self.staged_rows = 0
        self.staged_bytes = 0

    def between_files(self) -> bool:
        """Whether every file of the open transaction is complete (it may commit now)."""
        return self.parts is None

    def apply(self, item: _Planned, result: UnitResult) -> None:
        """Take one result; a file's last result adds the file to the transaction.

        A whole file in one result waits in :attr:`staged` with the next ones, and they go
        in together (:meth:`flush`): a statement costs ~1-3 ms whatever its rows, and a
        file's load is about a dozen of them."""
        if item.state == "done":
            return  # the file was found loaded, or failed: its remaining units are moot
        rows = _result_rows(result)
        if result.last and item.state == "pending" and result.error is None \
                and rows < STAGED_ROWS and item.size < STAGED_BYTES:
            self.staged.append((item, result))
            self.staged_rows += rows
            self.staged_bytes += item.size
            if (self.staged_rows >= STAGED_ROWS or self.staged_bytes >= STAGED_BYTES
                    or len(self.staged) >= STAGED_FILES
                    or self.rows + self.staged_rows >= GROUP_ROWS):
                self.flush()  # and commit, at GROUP_ROWS
            return
        self.flush()
        if result.error is not None:
            self._fail(item, result.error)
            return
        if item.state == "pending" and not self._start([item]):
            return
        self._load([(item, result)])
        if result.last:
            self._finish([item])
        else:
            item.state = "open"
            self.parts = item

    def flush(self) -> None:
        """Load the staged whole files, in one statement per table."""
        staged, self.staged, self.staged_rows, self.staged_bytes = self.staged, [], 0, 0
        started = self._start([item for item, _ in staged])
        if started:
            kept = {id(item) for item in started}  # by identity: _Planned compares by value
            self._load([pair for pair in staged if id(pair[0]) in kept])
            self._finish(started)

    def _start(self, items: list[_Planned]) -> list[_Planned]:
        """Open the transaction if none is, and check the files inside it; those that
        another ingest has loaded meanwhile are done, the others returned."""
        if not items:
            return []
        if not self.active:
            begin(self.lease.con)
            self.active = True
        loaded = known_files(self.lease.con, [item.context.sha256 for item in items])
        started = []
        for item in items:
            if item.context.sha256 in loaded:
                self._loaded_elsewhere(item)
                continue
            item.state = "open"
            item.started = dt.datetime.now()
            started.append(item)
        return started

    def _finish(self, items: list[_Planned]) -> None:
        """Record ``items``, whose last results are loaded, as loaded in the transaction."""
        record_files(self.lease.con, [
            LoadedFile(item.context, item.size, item.stats, item.started or item.context.loaded_at)
            for item in items])
        for item in items:
            item.state = "loaded"
            self.boards.pop(item.context.sha256, None)  # its rounds are all checked
        self.parts = None
        self.files.extend(items)
        if self.rows >= GROUP_ROWS:
            self.commit()

    @staticmethod
    def _loaded_elsewhere(item: _Planned) -> None:
        item.state = "done"
        item.summary.status = "already loaded"
        item.summary.message = "loaded by another ingest meanwhile"

    def _fail(self, item: _Planned, error: str) -> None:
        """A source that could not be read: nothing of it stays (when its first parts were
        loaded, the transaction is rolled back, and the files gathered in it requeued)."""
        self.boards.pop(item.context.sha256, None)
        if item.state == "open":
            rollback(self.lease.con)
            self.active = False
            self.parts = None
            self.rows = 0
            for gathered in self.files:
                gathered.reset()
            self.requeued.extend(self.files)
            self.files = []
        elif known_files(self.lease.con, [item.context.sha256]):
            self._loaded_elsewhere(item)
            return
        item.state = "done"
        item.summary.status = "error"
        item.summary.message = error

    def _load(self, group: list[tuple[_Planned, UnitResult]]) -> None:
        """Load the results of ``group`` (files in order) together: each file's Rummoli
        rounds checked against its board, a hand given twice kept the first time, the
        hands already stored left out and counted as its file's duplicates."""
        seen = pa.array([], pa.int64())
        kept: dict[str, list[pa.Table]] = {}
        files: list[tuple[_Planned, UnitResult, pa.Table, Counter[str]]] = []
        rejected: list[tuple[FileContext, list[RejectRow]]] = []
        for item, result in group:
            chain = self.boards.setdefault(item.context.sha256, BoardChain())
            breaks: list[RejectRow] = []  # Rummoli rounds whose board does not continue
            hands: list[pa.Table] = []
            repeated: Counter[str] = Counter(result.batch_duplicates)
            for batch in result.batches:
                tables, broken = board_breaks(chain, batch, item.context)
                tables, again, seen = first_of_hands(tables, seen)
                breaks += broken
                repeated.update(again)
                hands.append(tables["hands"].select(["hand_id", "game"]))
                for name, table in tables.items():
                    kept.setdefault(name, []).append(table)
            rejected.append((item.context, self._counted_rejects(item, result, breaks)))
            files.append((item, result, pa.concat_tables(hands) if hands else _NO_HANDS,
                          repeated))
        stored = load_new(self.lease.con, {name: _joined(tables, len(group) > 1)
                                           for name, tables in kept.items()},
                          self.games) if kept else pa.array([], pa.int64())
        load_rejects(self.lease.con, rejected)
        for item, result, file_hands, repeated in files:
            old = pc.is_in(file_hands["hand_id"], value_set=stored)
            loaded = Counter(file_hands.filter(pc.invert(old))["game"].to_pylist())
            repeated.update(file_hands.filter(old)["game"].to_pylist())
            item.stats.hands += result.hands
            item.stats.loaded += sum(loaded.values())
            item.stats.duplicates += sum(repeated.values())
            item.games.update({("loaded", g): n for g, n in loaded.items()})
            item.games.update({("duplicates", g): n for g, n in repeated.items()})
            self.rows += _result_rows(result)

    def _counted_rejects(self, item: _Planned, result: UnitResult, breaks: list[RejectRow]
                         ) -> list[RejectRow]:
        """``item``'s rejects of ``result`` and its rounds whose board does not continue,
        counted into its stats."""
        rejects = self._logged(result) + breaks
        if rejects and item.summary.message is None:
            item.summary.message = rejects[0].error.splitlines()[0]
        item.stats.rejected += len(result.rejects) - result.bad_lines + len(breaks)
        item.stats.bad_lines += result.bad_lines
        item.stats.internal += sum(r.stage == INTERNAL_STAGE for r in result.rejects)
        item.games.update({("rejected", g): n for g, n in result.rejected.items()})
        if breaks:
            item.games.update({("rejected", "rummoli"): len(breaks)})
        return rejects

    def _logged(self, result: UnitResult) -> list[RejectRow]:
        """``result``'s rejects, their tracebacks and the fast paths' written to the error
        log (an internal error's reason then names the log's path)."""
        log = self.log
        for text in result.fallbacks:
            heading, _, trace = text.partition("\n")
            log.write(heading, trace)
        rejects = result.rejects
        if not result.fallbacks and not any(r.stage == INTERNAL_STAGE for r in rejects):
            return rejects
        named: list[RejectRow] = []
        for reject in rejects:
            if reject.stage == INTERNAL_STAGE:
                log.write(reject.error.split(" (a bug in handlab")[0], reject.detail or "")
                reject = replace(reject, error=reject.error.replace(INTERNAL_ERROR_LOG,
                                                                    str(log.path)))
            named.append(reject)
        self.summary.error_log = log.path
        return named

    def commit(self, *, last: bool = False) -> None:
        """Commit the open transaction (if any): its files count from now on.

        ``last``: the ingest's last commit, which checkpoints at once (:data:`_LAST_COMMIT`).
        """
        if self.parts is not None:
            raise RuntimeError("a file in parts cannot commit before its last part")
        self.flush()
        if self.active:
            if last:
                self.lease.configure(_LAST_COMMIT)
            commit(self.lease.con)
            self.active = False
        self.rows = 0
        for item in self.files:
            self._count(item)
        self.files = []

    def _count(self, item: _Planned) -> None:
        """A committed file into the summary (only a committed file counts: a rolled-back
        one reports as an error with zeros)."""
        item.state = "done"
        stats, file_summary = item.stats, item.summary
        file_summary.status = stats.status
        file_summary.hands, file_summary.loaded = stats.hands, stats.loaded
        file_summary.duplicates, file_summary.rejected = stats.duplicates, stats.rejected
        file_summary.bad_lines = stats.bad_lines
        self.summary.internal_errors += stats.internal
        for (kind, game), n in item.games.items():
            counts = self.summary.by_game.setdefault(game, GameCounts())
            setattr(counts, kind, getattr(counts, kind) + n)

    def abandon(self) -> None:
        """Roll back the open transaction, if any (the ingest is ending with an exception)."""
        if self.active:
            rollback(self.lease.con)
            self.active = False


SAMPLES: Final = project_root() / "data" / "samples"
"""The bundled sample histories the default database is built from."""


_KERNEL_GROUPS: Final = (frozenset({"seveneight"}), frozenset({"bigtwo", "rummoli"}))
"""The games whose kernels :func:`compile_kernels` compiles in one process each: about
the same compile time on either side (~27 and ~29 s of CPU here)."""

_WARM_UP_SCRIPT: Final = ("import sys\n"
                          "from analytics.warehouse.pipeline.run import warm_up\n"
                          "warm_up(frozenset(sys.argv[1:]))\n")


def compile_kernels(games: frozenset[str] = _ALL_GAMES) -> bool:
    """Fill numba's on-disk cache with the kernels ``games``'s hands need, in two
    processes at once; True when every process succeeded.

    A fresh checkout has no compiled kernels, and whichever process first needs one
    compiles it (about a minute of CPU for all three games).  Compiling the 7 & 8
    kernels in one process and the Big Two and Rummoli ones in another cuts that wait by a
    third on two cores (59.5 -> 39.9 s for the samples here, docs/performance.md); later
    processes load the machine code from the cache.  When the cache is
    already filled each process only loads it (about a second).  Best effort: nothing
    runs on one core or for one group, and a process that fails leaves its kernels to be
    compiled where they are first used.
    """
    groups = [sorted(group & games) for group in _KERNEL_GROUPS if group & games]
    if len(groups) < 2 or (os.cpu_count() or 1) < 2:
        return True
    import subprocess
    import sys

    # The children import this package from where this process found it, installed or not.
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        part for part in (package_root, os.environ.get("PYTHONPATH", "")) if part))
    children = [subprocess.Popen([sys.executable, "-c", _WARM_UP_SCRIPT, *group], env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
                for group in groups]
    return all(child.wait() == 0 for child in children)


def ensure_database(db: Path | str | None = None, samples: Path | None = None, *,
                    progress: ProgressCallback | None = None,
                    announce: Callable[[str], None] | None = None) -> Path:
    """The database path, built from the sample histories first if the file does not exist.

    What the dashboard and the query commands call before reading, so a fresh
    checkout shows data at once.  An existing database is left alone (even an
    empty one): the samples are loaded once, not on every start.  Building it first
    compiles the kernels (:func:`compile_kernels`), the longest part on a fresh
    checkout.  ``announce`` is told each step as it starts (for a console or a
    spinner), ``progress`` follows the ingest as :func:`ingest`'s does.
    """
    path = resolve_db(db)
    if path.exists():
        return path
    folder = SAMPLES if samples is None else samples
    if folder.is_dir():
        if announce is not None:
            announce("preparing the analysis kernels (compiled once per checkout: about a "
                     "minute the first time)")
        compile_kernels()
        if announce is not None:
            announce(f"loading the sample histories of {folder}")
        ingest([folder], path, workers=0, progress=progress)
    else:
        with WriterLease(path):
            pass  # creates the file with the current schema
    return path
