"""The Parquet lake: the warehouse's tables as hive-partitioned Parquet files under a folder,
made visible by versioned manifests, so many machines can ingest and DuckDB can read.

The ingest's core in four steps that any engine can run (docs/scale-out.md):

* **plan** (:func:`plan`): the sources (:func:`~analytics.warehouse.pipeline.sources.expand`),
  hashed, those the lake already holds dropped, cut into :class:`LakeRange` s of about
  ``range_bytes`` that start on hand boundaries
  (:class:`~parsers.reader.HandCuts`; a part remembers the hands and lines before it, so
  its hands are numbered as in the whole file), small sources grouped whole;
* **work** and **write** (:func:`write_range`): a pure function of its range, the same
  :func:`~analytics.warehouse.pipeline.work.process_units` the single-machine ingest runs, then
  every table's rows as Parquet files named after the range and the job, so a retried task
  overwrites its own output and nothing else;
* **commit** (:func:`commit`): duplicates removed (in DuckDB: against the lake's ids and the
  job's earlier ranges), the ``pot_facts`` of the Rummoli games the job touches computed
  again, the sources' ``files`` rows written, and last a manifest
  ``_manifest/v000042.json`` listing every visible file, created exclusively
  (a hard link of a complete temporary file on a disk, a conditional put on an object store):
  readers only ever see a committed state, and of two jobs committing at once the second sees
  the first's manifest and commits again on top of it.

The lake is a folder or any fsspec URL: every file goes through
:class:`~analytics.warehouse.lake.store.LakeStore`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.warehouse.errors import SourceError, WarehouseBusy, WarehouseError
from analytics.warehouse.lake.store import LakeStore, open_store
from analytics.warehouse.pipeline.continuity import BoardChain, board_breaks
from analytics.warehouse.pipeline.reading import SCORE_SHEET, source_format
from analytics.warehouse.pipeline.rows import FileContext, first_of_hands, reject_table
from analytics.warehouse.pipeline.sources import Limits, SourceRef, content_digest, open_source
from analytics.warehouse.pipeline.work import Unit, process_units
from analytics.warehouse.sql.arrow_scan import arrow_over
from analytics.warehouse.sql.facts import POT_ROWS_SELECT, with_streaks
from analytics.warehouse.sql.schema import LAKE_FILES_SINCE, LATEST_VERSION, TABLES, migrate
from parsers.foreign import ForeignFormat
from parsers.reader import Cut, HandCuts

__all__ = [
    "BATCH_HANDS",
    "LAKE_TABLES",
    "MANIFEST_DIR",
    "PARTITIONS",
    "RANGE_BYTES",
    "CommitResult",
    "LakeConflict",
    "LakeRange",
    "Manifest",
    "PlannedSource",
    "RangeOutput",
    "SourceCounts",
    "commit",
    "conformed",
    "hive_keys",
    "known_sources",
    "latest_manifest",
    "latest_version",
    "manifest_name",
    "manifest_versions",
    "new_job_id",
    "partition_folder",
    "plan",
    "publish",
    "read_manifest",
    "table_source",
    "warehouse_schemas",
    "warehouse_sql_types",
    "write_range",
]

RANGE_BYTES: Final = 128 * 1024**2
"""Bytes of history text per range (task): a large archive is thousands of tasks, not
millions, and a range's Arrow tables (about twice its text) fit a worker's memory."""

BATCH_HANDS: Final = 5_000
"""Hands per batch inside a range, as the single-machine ingest's batches."""

MANIFEST_DIR: Final = "_manifest"
_MANIFEST_NAME: Final = re.compile(r"^v(\d{6,})\.json$")
_FORMAT: Final = 1

LAKE_TABLES: Final = TABLES
"""The tables written as Parquet files: every warehouse table.  The workers write all but
``pot_facts``, whose streak columns span a Rummoli game's whole history, which no range sees:
the commit writes it (:func:`commit`)."""

PARTITIONS: Final = {
    "hands": ("game",), "seats": ("game",), "showdowns": ("game",),
    "seat_facts": ("game",), "hand_facts": ("game",),
}
"""Each table's hive partition keys: ``game`` for the tables that have one.  A question that
names a game reads only its folder; one over dates skips row groups by their statistics on
``day``.  Not a month as well (lakes of session 18, still read): no question filters on a
month, and a range of an archive spread over five years wrote a file per month and table,
so a 300,000-hand lake was 1,845 files whose footers every question opened (2.3 s for the
filter options, where the database takes 0.1 s; docs/scale-out.md)."""

_SCAN_BLOCK: Final = 1024**2


class LakeConflict(WarehouseBusy):
    """Other jobs kept committing first: this job's commit gave up (nothing of it visible)."""


@cache
def warehouse_schemas() -> dict[str, pa.Schema]:
    """Each warehouse table's columns as Arrow types, from the schema's own migrations (an
    in-memory database migrated to the latest version), every field nullable."""
    con = duckdb.connect()
    try:
        migrate(con)
        return {name: pa.schema([f.with_nullable(True) for f in con.sql(
            f"SELECT * FROM {name} LIMIT 0").to_arrow_table().schema]) for name in TABLES}
    finally:
        con.close()


@cache
def warehouse_sql_types() -> dict[str, dict[str, str]]:
    """Each table's column types as DuckDB names them (a migrated scratch database)."""
    con = duckdb.connect()
    try:
        migrate(con)
        rows = con.execute("SELECT table_name, column_name, data_type FROM "
                           "information_schema.columns").fetchall()
    finally:
        con.close()
    types: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        types.setdefault(table, {})[column] = kind
    return types


def table_source(root: LakeStore | Path | str, name: str, files: Sequence[str]) -> str:
    """SQL reading warehouse table ``name`` from ``files`` (relative to the lake at
    ``root``): ``read_parquet`` with the table's partition keys as text, or, when there is
    no file, the table's columns and types without rows.  Paths go in as literals (a view
    cannot bind parameters); ``name`` must be a warehouse table."""
    if name not in TABLES:
        raise ValueError(f"not a warehouse table: {name!r}")
    if not files:
        types = warehouse_sql_types()[name]
        columns = ", ".join(f'CAST(NULL AS {types[f.name]}) AS "{f.name}"'
                            for f in warehouse_schemas()[name])
        return f"(SELECT {columns} WHERE false)"
    store = open_store(root)
    paths = ", ".join("'" + store.location(f).replace("'", "''") + "'" for f in files)
    layouts = {hive_keys(f) for f in files}
    if name not in PARTITIONS or len(layouts) > 1:
        # Files of two layouts (a lake of session 18 partitioned by month as well, added to
        # since): DuckDB refuses to mix them, and every file holds its partition columns.
        return f"read_parquet([{paths}], hive_partitioning = false)"
    types_of_keys = ", ".join(f"'{key}': VARCHAR" for key in layouts.pop())
    return (f"read_parquet([{paths}], hive_partitioning = true, "
            f"hive_types = {{{types_of_keys}}})")


def hive_keys(relative: str) -> tuple[str, ...]:
    """The hive partition keys in the folders of ``relative`` (a path in the lake):
    ``("game",)`` for ``hands/game=bigtwo/x.parquet``."""
    return tuple(part.split("=", 1)[0] for part in relative.split("/")[1:-1] if "=" in part)


def partition_folder(name: str, relative: str) -> str:
    """The folder where a file of table ``name`` at ``relative`` belongs in this layout
    (:data:`PARTITIONS`): its own folder's ``key=value`` parts of this layout's keys, so a
    file of an older layout (``hands/game=x/month=m/``) belongs in ``hands/game=x``."""
    keys = PARTITIONS.get(name, ())
    kept = [part for part in relative.split("/")[1:-1]
            if "=" in part and part.split("=", 1)[0] in keys]
    return "/".join([name, *kept])


# -- plan ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PlannedSource:
    """A source of the job: its content hash, name and size, and its number in the plan."""

    number: int
    sha256: str
    name: str
    size: int


@dataclass(frozen=True, slots=True)
class LakeRange:
    """One task: a part of a large plain file between two hand boundaries, or a group of
    whole sources.  ``name`` (the first source's hash and the part's number) and ``job`` name
    its files."""

    index: int
    name: str
    job: str
    units: tuple[Unit, ...]


def new_job_id() -> str:
    """A job's id: when it started and a random suffix (in its files' names)."""
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def plan(refs: Sequence[SourceRef], limits: Limits, known: set[str], job: str, *,
         range_bytes: int = RANGE_BYTES, loaded_at: dt.datetime | None = None
         ) -> tuple[list[PlannedSource], list[LakeRange], list[tuple[str, str | None, str]]]:
    """The job's sources and ranges, and the sources not loaded (name, sha256, why).

    Each source is hashed (sha256 of its content, as the single-machine ingest does) and
    dropped when ``known`` (the lake's ``files``) or an earlier source of the job has it.
    A plain file larger than ``range_bytes`` is cut into parts by
    :class:`~parsers.reader.HandCuts`; smaller sources (and compressed ones, which cannot be
    read from an offset) are grouped whole into ranges of up to ``range_bytes``.  What a
    source holds is decided as the single-machine ingest decides it
    (:func:`~analytics.warehouse.pipeline.reading.source_format`): a foreign format is not
    loaded, a Big Two score sheet goes whole (never cut) to be read as a sheet.  A source
    skipped on purpose (a link or a pipe inside a folder) or with a problem is never read.
    """
    sources: list[PlannedSource] = []
    ranges: list[LakeRange] = []
    skipped: list[tuple[str, str | None, str]] = []
    now = loaded_at or dt.datetime.now()
    group: list[Unit] = []
    group_bytes = 0

    def close_group() -> None:
        nonlocal group, group_bytes
        if group:
            first = group[0].context.sha256
            ranges.append(LakeRange(len(ranges), f"{first[:16]}-g", job, tuple(group)))
        group, group_bytes = [], 0

    first_seen: dict[str, str] = {}
    for ref in refs:
        unread = ref.problem if ref.problem is not None else ref.skipped
        if unread is not None:
            skipped.append((ref.name, None, f"{ref.name}: {unread}"))
            continue
        try:
            sha, size = content_digest(ref, limits)
        except SourceError as error:
            skipped.append((ref.name, None, str(error)))
            continue
        if sha in known:
            skipped.append((ref.name, sha, "this content was loaded before"))
            continue
        if sha in first_seen:
            skipped.append((ref.name, sha, f"same content as {first_seen[sha]}"))
            continue
        try:
            kind = source_format(ref, limits)
        except SourceError as error:
            skipped.append((ref.name, sha, str(error)))
            continue
        if isinstance(kind, ForeignFormat):
            skipped.append((ref.name, sha, f"{ref.name}: {kind.message}"))
            continue
        first_seen[sha] = ref.name
        source = PlannedSource(len(sources), sha, ref.name, size)
        sources.append(source)
        context = FileContext(ref.name, sha, now)
        sheet = kind == SCORE_SHEET
        if ref.kind == "file" and size > range_bytes and not sheet:
            close_group()
            try:
                for part, unit in enumerate(_parts(source, ref, context, limits, range_bytes)):
                    ranges.append(LakeRange(len(ranges), f"{sha[:16]}-{part:05d}", job,
                                            (unit,)))
            except SourceError as error:
                sources.pop()
                ranges[:] = [r for r in ranges if r.units[0].context.sha256 != sha]
                skipped.append((ref.name, sha, str(error)))
            continue
        if group and group_bytes + size > range_bytes:
            close_group()
        group.append(Unit(source.number, context, True, BATCH_HANDS, limits, ref, size=size,
                          sheet=sheet))
        group_bytes += size
    close_group()
    return sources, ranges, skipped


def _parts(source: PlannedSource, ref: SourceRef, context: FileContext, limits: Limits,
           range_bytes: int) -> Iterator[Unit]:
    """A large plain file's parts from cut to cut (each a worker reads itself): the cuts of
    :class:`~parsers.reader.HandCuts` every ``range_bytes``, the hands and lines before each
    remembered.  Where the scan gives up (an unusual byte) the rest is one part."""
    scan = HandCuts(1 << 62, range_bytes)
    start: Cut | None = None
    with open_source(ref, limits) as stream:
        while block := stream.read(_SCAN_BLOCK):
            scan.feed(block)
            for cut in scan.take():
                begin = 0 if start is None else start.offset
                yield Unit(source.number, context, False, BATCH_HANDS, limits, ref,
                           size=cut.offset - begin, start=start, end=cut.offset)
                start = cut
        size = stream.count
    begin = 0 if start is None else start.offset
    yield Unit(source.number, context, True, BATCH_HANDS, limits, ref, size=size - begin,
               start=start, end=size)


# -- work and write ------------------------------------------------------------------------

@dataclass(slots=True)
class SourceCounts:
    """What a range read of one source: hands, rejects and repeats inside the range by game."""

    hands: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    duplicates: Counter[str] = field(default_factory=Counter)
    first_reject: str | None = None
    bad_lines: int = 0  # a score sheet's bad lines that are no game (work.UnitResult)


@dataclass(slots=True)
class RangeOutput:
    """What :func:`write_range` wrote: the files (relative to the lake) by table, each kept
    hand's id, game and source, counts by source, and the sources that failed."""

    index: int
    files: dict[str, list[str]] = field(default_factory=dict)
    hands: pa.Table | None = None  # hand_id, game, source_sha256 of the hands written
    sources: dict[str, SourceCounts] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    rows: int = 0

    def kept_hands(self) -> pa.Table | None:
        """The hands written (``hand_id``, ``game``, ``source_sha256``, texts decoded)."""
        if self.hands is None:
            return None
        return pa.table({"hand_id": self.hands["hand_id"],
                         "game": self.hands["game"].cast(pa.string()),
                         "source_sha256": self.hands["source_sha256"].cast(pa.string())})


def write_range(task: LakeRange, root: str) -> RangeOutput:
    """Do one range: every unit through :func:`~analytics.warehouse.pipeline.work.process_units`
    (parse, replay, re-score, Arrow tables with their facts), a hand repeated in the range
    kept once (the first, as the single writer keeps it), then each table's rows written
    under ``root`` as Parquet, partitioned (:data:`PARTITIONS`), named ``<range>-<job>``.

    Pure in its output: run twice (a retried task) it writes the same files again.
    """
    output = RangeOutput(task.index)
    collected: dict[str, list[pa.Table]] = {name: [] for name in LAKE_TABLES}
    _collect(task, output, collected)
    schemas = warehouse_schemas()
    stem = f"{task.name}-{task.job}"
    for name, parts in collected.items():
        if not parts:
            continue
        table = conformed(pa.concat_tables(parts, promote_options="permissive"), schemas[name])
        if not table.num_rows:
            continue
        output.rows += table.num_rows
        output.files[name] = _write_table(open_store(root), name, table, stem)
        if name == "hands":
            # Sent back to the driver: the texts as dictionaries (a source's 64-character
            # hash once, not once per hand).
            output.hands = pa.table({
                "hand_id": table["hand_id"],
                "game": pc.dictionary_encode(table["game"]),
                "source_sha256": pc.dictionary_encode(table["source_sha256"])})
    return output


def _collect(task: LakeRange, output: RangeOutput, collected: dict[str, list[pa.Table]]
             ) -> None:
    """Process the range's units into ``collected`` (rows per table) and ``output``'s counts,
    a hand repeated in the range kept once (the first)."""
    seen = pa.array([], pa.int64())
    chains: dict[str, BoardChain] = {}  # each source's Rummoli rounds in the range
    for unit, result in zip(task.units, process_units(task.units), strict=True):
        sha = unit.context.sha256
        if result.error is not None:
            output.errors[sha] = result.error
            continue
        counts = output.sources.setdefault(sha, SourceCounts())
        counts.hands += result.hands
        counts.bad_lines += result.bad_lines
        counts.rejected.update(result.rejected)
        counts.duplicates.update(result.batch_duplicates)
        rejects = list(result.rejects)
        for batch in result.batches:  # with their facts (work._with_facts)
            # The board as the single writer checks it (continuity.board_breaks), here
            # within the range: a source split over ranges is not checked across them.
            tables, broken = board_breaks(chains.setdefault(sha, BoardChain()), batch,
                                          unit.context)
            counts.rejected.update({"rummoli": len(broken)} if broken else {})
            rejects += broken
            tables, repeated, seen = first_of_hands(tables, seen)
            counts.duplicates.update(repeated)
            for name in collected:
                if name in tables:
                    collected[name].append(tables[name])
        if rejects:
            collected["rejects"].append(reject_table(unit.context, rejects))
            if counts.first_reject is None:
                counts.first_reject = rejects[0].error.splitlines()[0]


def conformed(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with exactly the warehouse table's columns and types (absent ones NULL, as
    an insert by name leaves them)."""
    columns = [table[f.name].cast(f.type) if f.name in table.column_names
               else pa.nulls(table.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _partition_keys(name: str, table: pa.Table) -> pa.ChunkedArray | None:
    """Each row's partition folder (``game=x``), or None when unpartitioned."""
    if name not in PARTITIONS:
        return None
    return pc.binary_join_element_wise("game=", table["game"], "")


def _write_table(store: LakeStore, name: str, table: pa.Table, stem: str) -> list[str]:
    """Write ``table`` as one Parquet file per partition; the files' paths in the lake."""
    keys = _partition_keys(name, table)
    if keys is None:
        relative = f"{name}/{stem}.parquet"
        store.write_parquet(relative, table)
        return [relative]
    encoded = pc.dictionary_encode(keys).combine_chunks()
    written = []
    for number, folder in enumerate(encoded.dictionary.to_pylist()):
        rows = table.filter(pc.equal(encoded.indices, number))
        relative = f"{name}/{folder}/{stem}.parquet"
        store.write_parquet(relative, rows)
        written.append(relative)
    return written


# -- manifests and commit -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Manifest:
    """A committed state of the lake: its version and the files of each table (paths
    relative to the lake).  Version 0 is the empty lake."""

    version: int
    tables: dict[str, tuple[str, ...]]
    job: str | None = None

    def files(self, name: str) -> tuple[str, ...]:
        """The visible files of table ``name``."""
        return self.tables.get(name, ())


def manifest_name(version: int) -> str:
    """Manifest ``version``'s path in the lake."""
    return f"{MANIFEST_DIR}/v{version:06d}.json"


def manifest_versions(root: LakeStore | Path | str) -> list[int]:
    """The versions of the lake's committed manifests, oldest first."""
    return sorted(int(m.group(1)) for entry in open_store(root).names(MANIFEST_DIR)
                  if (m := _MANIFEST_NAME.match(entry)))


def latest_version(root: LakeStore | Path | str) -> int:
    """The newest committed manifest's version (0 for an empty lake), from the folder's
    listing alone: a manifest file exists only complete (linked or put into place once
    written), so the highest version present is the state to read."""
    return max(manifest_versions(root), default=0)


def latest_manifest(root: LakeStore | Path | str) -> Manifest:
    """The newest committed manifest of the lake at ``root`` (version 0 when there is none)."""
    store = open_store(root)
    version = latest_version(store)
    if not version:
        return Manifest(0, {})
    return read_manifest(store, version)


def read_manifest(root: LakeStore | Path | str, version: int) -> Manifest:
    """Manifest ``version`` of the lake at ``root``."""
    store = open_store(root)
    path = store.location(manifest_name(version))
    try:
        data: dict[str, Any] = json.loads(store.read_bytes(manifest_name(version)))
    except (ValueError, UnicodeDecodeError) as error:  # a torn or foreign file
        raise WarehouseError(f"{path}: not a readable lake manifest: {error}") from None
    if data.get("format") != _FORMAT:
        raise WarehouseError(f"{path}: a lake manifest of an unknown format "
                             f"({data.get('format')!r}); upgrade handlab")
    written = int(data.get("schema_version", 0))
    if written > LATEST_VERSION:
        raise WarehouseError(f"{path}: written for warehouse schema {written}, newer than "
                             f"this handlab's ({LATEST_VERSION}); upgrade handlab")
    if written < LAKE_FILES_SINCE:  # its tables or ids are not today's
        raise WarehouseError(f"{path}: written for warehouse schema {written}, whose files "
                             f"this handlab ({LATEST_VERSION}) cannot read; ingest the "
                             "inputs again into a new lake")
    tables = {name: tuple(files) for name, files in data["tables"].items()}
    return Manifest(int(data["version"]), tables, data.get("job"))


def known_sources(root: LakeStore | Path | str, manifest: Manifest) -> set[str]:
    """The content hashes of the sources the lake holds (its ``files`` rows)."""
    files = manifest.files("files")
    if not files:
        return set()
    store = open_store(root)
    con = store.connect()
    try:
        rows = con.execute("SELECT sha256 FROM read_parquet(?)",
                           [[store.location(f) for f in files]]).fetchall()
    finally:
        con.close()
    return {row[0] for row in rows}


@dataclass(slots=True)
class CommitResult:
    """A commit: the manifest version made, and per source (sha256) the hands loaded and
    repeated by game, or why the source was dropped."""

    version: int
    loaded: dict[str, Counter[str]] = field(default_factory=dict)
    duplicates: dict[str, Counter[str]] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)


_COMMIT_ATTEMPTS: Final = 8


def commit(root: LakeStore | Path | str, job: str, sources: Sequence[PlannedSource],
           outputs: Sequence[RangeOutput], started: dt.datetime, *,
           attempts: int = _COMMIT_ATTEMPTS) -> CommitResult:
    """Make the job's ranges visible at once: a new manifest version on top of the newest.

    Against that newest state: a source another job loaded meanwhile is dropped whole, so is
    a source one of whose ranges failed; every hand already in the lake or in an earlier
    range of the job (plan order) is a duplicate, and the ranges holding one are rewritten
    without it.  Then the sources' ``files`` rows, then the manifest, created exclusively:
    when another job took the version first, all of it is done again on top of that one
    (up to ``attempts`` times, then :class:`LakeConflict`, nothing of this job visible).
    """
    lake = open_store(root)
    ordered = sorted(outputs, key=lambda output: output.index)
    for _ in range(attempts):
        base = latest_manifest(root)
        version = base.version + 1
        result = CommitResult(version)
        known = known_sources(lake, base)
        for output in ordered:
            result.dropped.update(output.errors)
        for source in sources:
            if source.sha256 in known and source.sha256 not in result.dropped:
                result.dropped[source.sha256] = "loaded by another ingest meanwhile"
        repeated = _duplicates(lake, base, ordered, set(result.dropped))
        tables = {name: list(files) for name, files in base.tables.items()}
        new_hands: list[str] = []
        for output in ordered:
            files = _kept_files(lake, output, repeated.get(output.index),
                                set(result.dropped), version)
            for name, paths in files.items():
                tables.setdefault(name, []).extend(paths)
            new_hands.extend(files.get("hands", ()))
            _count(result, output, repeated.get(output.index))
        tables["pot_facts"] = _pot_facts(lake, tables, new_hands, version, job)
        written = _files_rows(sources, ordered, result, started)
        if written.num_rows:
            relative = f"files/v{version:06d}-{job}.parquet"
            lake.write_parquet(relative, conformed(written, warehouse_schemas()["files"]))
            tables.setdefault("files", []).append(relative)
        if publish(lake, version, job, tables):
            return result
    raise LakeConflict(f"{lake.url}: other ingests kept committing first ({attempts} tries); "
                       "nothing of this job is visible: run it again")


def _duplicates(lake: LakeStore, base: Manifest, outputs: Sequence[RangeOutput],
                dropped: set[str]) -> dict[int, pa.Array]:
    """Per range, the ids of its hands that are duplicates: already in the lake, or in an
    earlier range of the job (a window over the job's ids in plan order, and a semi-join
    with the lake's ``hands`` ids, in DuckDB)."""
    parts = [hands.append_column("range_index", pa.array(
        np.full(hands.num_rows, output.index, np.int32)))
        for output in outputs if (hands := output.kept_hands()) is not None and hands.num_rows]
    if not parts:
        return {}
    new = pa.concat_tables(parts)
    new = new.filter(pc.invert(pc.is_in(new["source_sha256"],
                                        value_set=pa.array(sorted(dropped), pa.string()))))
    lake_files = [lake.location(f) for f in base.files("hands")]
    lake_ids = ("SELECT hand_id FROM read_parquet($files)" if lake_files
                else "SELECT NULL::BIGINT AS hand_id WHERE false")
    con = lake.connect()
    try:
        # The lake's ids are distinct (nothing is loaded twice), so an inner join finds each
        # first copy held by the lake once; a join, not IN (subquery), so DuckDB builds its
        # hash table on the smaller side (the job's ids) rather than on the lake's.
        found = arrow_over(con, f"""
            WITH job AS (
                SELECT range_index, hand_id,
                       row_number() OVER (PARTITION BY hand_id ORDER BY range_index) AS copy
                FROM _handlab_new)
            SELECT range_index, hand_id FROM job WHERE copy > 1
            UNION ALL
            SELECT j.range_index, j.hand_id
            FROM job j JOIN ({lake_ids}) l ON l.hand_id = j.hand_id
            WHERE j.copy = 1
        """, {"_handlab_new": new}, {"files": lake_files} if lake_files else None)
    finally:
        con.close()
    repeated: dict[int, pa.Array] = {}
    for index in set(found["range_index"].to_pylist()):
        ids = found.filter(pc.equal(found["range_index"], index))["hand_id"]
        repeated[int(index)] = ids.combine_chunks()
    return repeated


def _kept_files(lake: LakeStore, output: RangeOutput, repeated: pa.Array | None, dropped: set[str],
                version: int) -> dict[str, list[str]]:
    """The range's files to list: as written, or (holding duplicates or hands of a dropped
    source) rewritten without those rows under a name with the commit's version."""
    gone = set(output.sources) & dropped
    if repeated is None and not gone:
        return {name: list(paths) for name, paths in output.files.items()}
    gone_shas = pa.array(sorted(gone), pa.string())
    hands = output.kept_hands() or pa.table(
        {"hand_id": pa.array([], pa.int64()), "source_sha256": pa.array([], pa.string())})
    of_gone = hands.filter(pc.is_in(hands["source_sha256"], value_set=gone_shas))
    ids = pa.concat_arrays([of_gone["hand_id"].combine_chunks().cast(pa.int64()),
                            *([] if repeated is None else [repeated.cast(pa.int64())])])
    kept: dict[str, list[str]] = {}
    for name, paths in output.files.items():
        for relative in paths:
            table = lake.read_parquet(relative)
            if name == "rejects":
                table = table.filter(pc.invert(pc.is_in(table["sha256"], value_set=gone_shas)))
            else:
                table = table.filter(pc.invert(pc.is_in(table["hand_id"], value_set=ids)))
            if not table.num_rows:
                continue
            target = relative.removesuffix(".parquet") + f"-v{version:06d}.parquet"
            lake.write_parquet(target, table)
            kept.setdefault(name, []).append(target)
    return kept


def _count(result: CommitResult, output: RangeOutput, repeated: pa.Array | None) -> None:
    """Add the range's loaded and repeated hands, by source and game, to ``result``."""
    for sha, counts in output.sources.items():
        result.duplicates.setdefault(sha, Counter()).update(counts.duplicates)
        result.loaded.setdefault(sha, Counter())
    hands = output.kept_hands()
    if hands is None:
        return
    is_repeat = (pc.is_in(hands["hand_id"], value_set=repeated) if repeated is not None
                 else pa.array(np.zeros(hands.num_rows, bool)))
    for sha, game, repeat in zip(hands["source_sha256"].to_pylist(), hands["game"].to_pylist(),
                                 is_repeat.to_pylist(), strict=True):
        (result.duplicates if repeat else result.loaded)[sha][game] += 1


def _files_rows(sources: Sequence[PlannedSource], outputs: Sequence[RangeOutput],
                result: CommitResult, started: dt.datetime) -> pa.Table:
    """The ``files`` rows of the sources this commit loads (as the single writer's
    ``record_files`` writes them; one finish time, the commit's)."""
    hands: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    for output in outputs:
        for sha, counts in output.sources.items():
            hands[sha] += counts.hands
            rejected[sha] += sum(counts.rejected.values())
            bad[sha] += counts.bad_lines
    finished = dt.datetime.now()
    rows = []
    for source in sources:
        sha = source.sha256
        if sha in result.dropped:
            continue
        rows.append({
            "sha256": sha, "path": source.name, "size": source.size,
            "status": "partial" if rejected[sha] or bad[sha] else "loaded", "hands": hands[sha],
            "loaded": sum(result.loaded.get(sha, Counter()).values()),
            "duplicates": sum(result.duplicates.get(sha, Counter()).values()),
            "rejected": rejected[sha], "started_at": started, "finished_at": finished,
            "seconds": (finished - started).total_seconds()})
    return pa.Table.from_pylist(rows, schema=warehouse_schemas()["files"])


def _pot_facts(lake: LakeStore, tables: dict[str, list[str]], new_hands: Sequence[str],
               version: int, job: str) -> list[str]:
    """The ``pot_facts`` files of the state being committed: the rows of every Rummoli game
    the job's new hands touch are computed again over the whole state (the warehouse's
    definition, ``facts.POT_ROWS_SELECT`` and ``facts.with_streaks``: a game's streaks span
    its whole history, which no range sees) into one file of this commit, and an older
    file holding rows of those games is rewritten without them.  Untouched games keep
    their files."""
    kept = list(tables.get("pot_facts", ()))
    if not new_hands:
        return kept
    con = lake.connect()
    try:
        touched = con.execute(
            f"SELECT DISTINCT game_id FROM {table_source(lake, 'hands', new_hands)} "
            "WHERE game = 'rummoli'").fetchall()
        if not touched:
            return kept
        ids = [row[0] for row in touched if row[0] is not None]
        scope = ("(game_id IN (SELECT unnest(CAST($ids AS VARCHAR[]))) OR "
                 f"{'game_id IS NULL' if len(ids) < len(touched) else 'FALSE'})")
        for name in ("hands", "board", "seats"):
            con.execute(f"CREATE TEMPORARY VIEW {name} AS "
                        f"SELECT * FROM {table_source(lake, name, tables.get(name, ()))}")
        rows = with_streaks(con.sql(f"SELECT * FROM ({POT_ROWS_SELECT}) WHERE {scope}",
                                    params={"ids": ids}).to_arrow_table())
        result: list[str] = []
        for relative in kept:
            older = {"ids": ids, "file": lake.location(relative)}
            stale = con.sql(f"SELECT count(*) FROM read_parquet($file) WHERE {scope}",
                            params=older).fetchall()[0][0]
            if not stale:
                result.append(relative)
                continue
            remaining = con.sql(f"SELECT * FROM read_parquet($file) WHERE NOT {scope}",
                                params=older).to_arrow_table()
            if remaining.num_rows:
                target = relative.removesuffix(".parquet") + f"-v{version:06d}.parquet"
                lake.write_parquet(target, remaining)
                result.append(target)
    finally:
        con.close()
    if rows.num_rows:
        relative = f"pot_facts/v{version:06d}-{job}.parquet"
        lake.write_parquet(relative, conformed(rows, warehouse_schemas()["pot_facts"]))
        result.append(relative)
    return result


def publish(root: LakeStore | Path | str, version: int, job: str,
            tables: dict[str, list[str]]) -> bool:
    """Create manifest ``version`` listing ``tables``' files, exclusively (a hard link on a
    disk, a conditional put on an object store: :meth:`LakeStore.create_exclusive`); False
    when another job made that version first."""
    body = {"format": _FORMAT, "version": version, "job": job,
            "committed_at": dt.datetime.now(dt.UTC).isoformat(),
            "schema_version": LATEST_VERSION,
            "tables": {name: tables[name] for name in sorted(tables)}}
    data = json.dumps(body, indent=1).encode("utf-8")
    return open_store(root).create_exclusive(manifest_name(version), data)
