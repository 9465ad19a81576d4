"""Keeping a Parquet lake fast and small: compaction and vacuum (docs/scale-out.md).

* :func:`compact` rewrites the small Parquet files of each table's partition (a folder: one
  ``game=G`` of ``hands``, the whole of ``actions``; an older layout's ``game=G/month=M``
  files go into their game's folder) into files of about ``target_bytes``, and commits a new
  manifest version listing them instead: the same exclusive create as an ingest's commit, so
  readers see the state before or after, never a mix, and a compaction stopped or killed
  before its commit leaves the old state visible (its files are listed by no manifest, and
  :func:`vacuum` deletes them later).
* :func:`vacuum` deletes the files no manifest among the last ``keep`` versions lists (an
  older state's, a failed job's), and those older manifests, but never a file younger than
  ``grace_seconds``: a job still running has written files that only its commit will list.

Every question reads the same rows after a compaction: it moves rows between files, it never
changes, adds or drops one (tests/test_lake.py checks each table with ``EXCEPT ALL`` both
ways).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pyarrow as pa

from analytics.warehouse.lake.core import (
    LAKE_TABLES,
    MANIFEST_DIR,
    LakeConflict,
    conformed,
    latest_manifest,
    manifest_name,
    manifest_versions,
    new_job_id,
    partition_folder,
    publish,
    read_manifest,
    warehouse_schemas,
)
from analytics.warehouse.lake.store import LakeStore, open_store

__all__ = ["GRACE_SECONDS", "TARGET_BYTES", "CompactResult", "VacuumResult", "compact",
           "vacuum"]

TARGET_BYTES: Final = 128 * 1024**2
"""Bytes of Parquet per compacted file: large enough that a question over a billion hands
opens hundreds of footers rather than tens of thousands, small enough that rewriting one is
a worker's memory and a fraction of a minute."""

GRACE_SECONDS: Final = 24 * 3600
"""An unlisted file younger than this is kept by :func:`vacuum`: it may be a running job's,
which only its commit will list.  Longer than the longest ingest."""

_ROWS_PER_GROUP: Final = 1 << 20
"""Rows gathered from the small files before a row group is written (as pyarrow's default
row group): a compacted file's row groups are as large as a freshly written file's."""

_COMMIT_ATTEMPTS: Final = 8


@dataclass(frozen=True, slots=True)
class CompactResult:
    """A compaction: the manifest version it committed (None when every partition was
    compact already), and the files it read and wrote."""

    version: int | None
    files_before: int
    files_after: int
    merged: int
    written: int


def compact(root: LakeStore | Path | str, *, target_bytes: int = TARGET_BYTES,
            before_commit: Callable[[], None] | None = None,
            attempts: int = _COMMIT_ATTEMPTS) -> CompactResult:
    """Merge each partition's small files into files of about ``target_bytes`` and commit a
    manifest listing them instead.

    A partition's files, in the manifest's order, are packed into runs whose sizes add up to
    at most ``target_bytes``; a run of two or more is rewritten as one file
    (``<folder>/c<version>-<n>-<job>.parquet``), a file alone is kept as it is (unless it
    is in an older layout's folder), so a compacted lake compacts to itself.  When another
    job commits first, the compaction is done again on top of its state (up to
    ``attempts`` times, then :class:`LakeConflict`).
    ``before_commit`` runs between the last file written and the commit (tests stop a
    compaction there).
    """
    if target_bytes < 1:
        raise ValueError(f"target_bytes must be positive, not {target_bytes}")
    store = open_store(root)
    job = new_job_id()
    for _ in range(attempts):
        base = latest_manifest(store)
        before = sum(len(files) for files in base.tables.values())
        sizes = {file.relative: file.size for file in store.files()}
        version = base.version + 1
        tables: dict[str, list[str]] = {}
        written: list[str] = []
        merged = 0
        for name, files in base.tables.items():
            tables[name] = []
            for folder, run in _runs(name, files, sizes, target_bytes):
                if len(run) == 1 and run[0].rsplit("/", 1)[0] == folder:
                    tables[name].extend(run)
                    continue
                relative = f"{folder}/c{version:06d}-{len(written):05d}-{job}.parquet"
                schema = warehouse_schemas()[name]
                store.write_parquet_parts(relative, schema,
                                          _row_groups(store, run, schema))
                tables[name].append(relative)
                written.append(relative)
                merged += len(run)
        if not written:
            return CompactResult(None, before, before, 0, 0)
        if before_commit is not None:
            before_commit()
        if publish(store, version, job, tables):
            return CompactResult(version, before, before - merged + len(written), merged,
                                 len(written))
        for relative in written:  # another job committed first: these are listed nowhere
            store.delete(relative)
    raise LakeConflict(f"{store.url}: other jobs kept committing first ({attempts} tries); "
                       "the compaction changed nothing: run it again")


def _runs(name: str, files: Sequence[str], sizes: dict[str, int], target_bytes: int
          ) -> Iterator[tuple[str, list[str]]]:
    """Table ``name``'s files grouped by the folder of their partition in this layout
    (:func:`~analytics.warehouse.lake.core.partition_folder`: an older layout's month folders
    merge into their game's), each folder's packed in order into runs of at most
    ``target_bytes`` (a file larger than that alone)."""
    folders: dict[str, list[str]] = {}
    for relative in files:
        folders.setdefault(partition_folder(name, relative), []).append(relative)
    for folder, members in folders.items():
        run: list[str] = []
        run_bytes = 0
        for relative in members:
            size = sizes.get(relative, 0)
            if run and run_bytes + size > target_bytes:
                yield folder, run
                run, run_bytes = [], 0
            run.append(relative)
            run_bytes += size
        if run:
            yield folder, run


def _row_groups(store: LakeStore, files: Sequence[str], schema: pa.Schema
                ) -> Iterator[pa.Table]:
    """The rows of ``files`` in order, with the table's columns and types, gathered into
    tables of about :data:`_ROWS_PER_GROUP` rows (one file read at a time)."""
    pending: list[pa.Table] = []
    rows = 0
    for relative in files:
        table = conformed(store.read_parquet(relative), schema)
        pending.append(table)
        rows += table.num_rows
        if rows >= _ROWS_PER_GROUP:
            yield pa.concat_tables(pending)
            pending, rows = [], 0
    if pending:
        yield pa.concat_tables(pending)


@dataclass(frozen=True, slots=True)
class VacuumResult:
    """A vacuum: the manifest versions kept, and what it deleted or kept for its age."""

    kept_versions: tuple[int, ...]
    deleted_files: int
    deleted_bytes: int
    deleted_manifests: int
    young_files: int


def vacuum(root: LakeStore | Path | str, keep: int, *, grace_seconds: float = GRACE_SECONDS,
           now: float | None = None) -> VacuumResult:
    """Delete the lake's files that no manifest among the newest ``keep`` versions lists,
    and the manifests older than those.

    Only the tables' folders are swept (anything outside them is left alone, the
    catalogue's folder included); an unlisted file modified less than ``grace_seconds`` ago
    is kept (a running job's: its commit will list it), so ``grace_seconds=0`` is for a lake
    no job is writing.  The files are listed before the manifests are read, so a commit made
    meanwhile is among those kept, and the newest manifest always is: a file it lists is
    never deleted.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1 (the newest version), not {keep}")
    store = open_store(root)
    found = store.files()
    versions = manifest_versions(store)
    kept = versions[-keep:]
    listed: set[str] = set()
    for version in kept:
        for files in read_manifest(store, version).tables.values():
            listed.update(files)
    cutoff = (time.time() if now is None else now) - grace_seconds
    deleted = deleted_bytes = young = 0
    for file in found:
        top, _, name = file.relative.partition("/")
        if top == MANIFEST_DIR:  # only a killed commit's temporary file
            ours = name.startswith(".") and name.endswith(".tmp")
        else:
            ours = top in LAKE_TABLES and bool(name) and file.relative not in listed
        if not ours:
            continue
        if file.modified > cutoff:
            young += 1
            continue
        store.delete(file.relative)
        deleted += 1
        deleted_bytes += file.size
    older = [version for version in versions if kept and version < kept[0]]
    for version in older:
        store.delete(manifest_name(version))
    return VacuumResult(tuple(kept), deleted, deleted_bytes, len(older), young)
