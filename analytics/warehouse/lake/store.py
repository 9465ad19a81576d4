"""Where a Parquet lake's files live: a local folder or any fsspec URL (``s3://bucket/lake``,
``gs://``, ``abfs://``; ``memory://`` in tests).

:class:`LakeStore` is the one way the lake's code (the workers' writes, the commit, the
catalogue, compaction and vacuum) reads, writes, lists and deletes its files, so a lake on an
object store behaves as one on a disk:

* a file is written whole or not at all: on a local disk to a temporary name renamed into
  place, on an object store by a single put (an object exists only once uploaded whole);
* a manifest is created exclusively (:meth:`LakeStore.create_exclusive`): on a disk a complete
  temporary file hard-linked to its name, elsewhere fsspec's ``open(..., "xb")``, which the
  object stores' filesystems implement as a conditional put (``If-None-Match: *``; s3fs
  2025.7 or newer, gcsfs, adlfs), so of two jobs committing the same version one fails;
* DuckDB reads the files by their locations (:meth:`LakeStore.location`): a local path, or
  the URL; :meth:`LakeStore.connect` gives a connection that can read them (DuckDB's own
  ``httpfs``/``azure`` extensions for the clouds' URLs, docs/scale-out.md; any other fsspec
  filesystem registered with the connection).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from analytics.warehouse.errors import WarehouseError
from analytics.warehouse.urls import url_filesystem

__all__ = ["CATALOGUE_DIR", "DUCKDB_PROTOCOLS", "NOTES_FILE", "LakeFile", "LakeStore",
           "open_store"]

DUCKDB_PROTOCOLS: Final = frozenset({"s3", "s3a", "s3n", "gs", "gcs", "r2", "az", "azure",
                                     "abfss", "http", "https", "hf"})
"""URL schemes DuckDB reads itself (its ``httpfs`` and ``azure`` extensions, loaded on first
use); a lake under another fsspec scheme is read through fsspec registered with the
connection."""

CATALOGUE_DIR: Final = "_catalogue"
"""A local lake's folder of the readers' DuckDB catalogues
(:func:`~analytics.warehouse.lake.catalogue.catalogue`)."""

NOTES_FILE: Final = "_notes.json"
"""A local lake's file of the stars, tags and notes people keep
(:meth:`LakeStore.notes_file`)."""

@dataclass(frozen=True, slots=True)
class LakeFile:
    """A file under a lake: its path relative to the lake, size and modification time
    (seconds since the epoch; 0 where the store does not say)."""

    relative: str
    size: int
    modified: float


@dataclass(frozen=True, slots=True)
class LakeStore:
    """A lake's folder on a filesystem: ``fs`` (fsspec), ``root`` (the folder in ``fs``'s own
    terms, without a scheme) and ``url`` (as the user named it)."""

    url: str
    fs: Any  # fsspec.AbstractFileSystem (untyped)
    root: str

    @property
    def is_local(self) -> bool:
        """Whether the lake is a folder of this machine."""
        return isinstance(self.fs, LocalFileSystem)

    @property
    def protocol(self) -> str:
        """The filesystem's URL scheme (``file`` for a local folder)."""
        protocols = self.fs.protocol
        return str(protocols if isinstance(protocols, str) else protocols[0])

    def path(self, relative: str) -> str:
        """``relative`` (a path under the lake) in the filesystem's terms."""
        return f"{self.root}/{relative}" if relative else self.root

    def location(self, relative: str) -> str:
        """``relative`` as DuckDB reads it: a local path, else a URL."""
        path = self.path(relative)
        return path if self.is_local else str(self.fs.unstrip_protocol(path))

    # -- reading ------------------------------------------------------------------------

    def read_bytes(self, relative: str) -> bytes:
        """The content of the file at ``relative``."""
        return bytes(self.fs.cat_file(self.path(relative)))

    def read_parquet(self, relative: str) -> pa.Table:
        """The rows of the Parquet file at ``relative``."""
        with self.fs.open(self.path(relative), "rb") as stream:
            return pq.read_table(stream)

    def names(self, folder: str) -> list[str]:
        """The names of the entries of ``folder`` (relative to the lake); none when it does
        not exist (or the lake's path is a file)."""
        try:
            entries = self.fs.ls(self.path(folder), detail=False)
        except (FileNotFoundError, NotADirectoryError):  # no lake, or a file where it would be
            return []
        return [str(entry).rstrip("/").rsplit("/", 1)[-1] for entry in entries]

    def files(self) -> list[LakeFile]:
        """Every file under the lake (relative paths, sizes, modification times)."""
        found = self.fs.find(self.root, detail=True)
        prefix = self.root.rstrip("/") + "/"
        files = []
        for path, info in found.items():
            relative = str(path)[len(prefix):] if str(path).startswith(prefix) else str(path)
            files.append(LakeFile(relative, int(info.get("size") or 0), _modified(info)))
        return sorted(files, key=lambda file: file.relative)

    def size(self, relative: str) -> int:
        """The size in bytes of the file at ``relative``."""
        return int(self.fs.size(self.path(relative)))

    # -- writing ------------------------------------------------------------------------

    def make_root(self) -> None:
        """Create the lake's folder (nothing to do on an object store).  A file where the
        folder would be raises :class:`WarehouseError` saying what it is (a DuckDB database:
        ``--db`` was meant), never written into."""
        if self.is_local and os.path.isfile(self.root):
            with open(self.root, "rb") as stream:
                database = stream.read(16)[8:12] == b"DUCK"
            raise WarehouseError(f"{self.root} is " + (
                "a DuckDB database, not a lake folder: use --db for it" if database
                else "a file, not a lake folder"))
        self.fs.makedirs(self.root, exist_ok=True)

    def write_parquet(self, relative: str, table: pa.Table) -> None:
        """Write ``table`` as the zstd Parquet file ``relative``, whole or not at all."""
        self.write_parquet_parts(relative, table.schema, [table])

    def write_parquet_parts(self, relative: str, schema: pa.Schema,
                            parts: Iterable[pa.Table]) -> None:
        """Write the tables ``parts`` (of ``schema``, taken one at a time: a large file
        without holding it all) as the zstd Parquet file ``relative``, whole or not at all:
        on a disk a temporary file renamed into place, on an object store one upload."""
        path = self.path(relative)
        if self.is_local:
            folder = os.path.dirname(path)
            os.makedirs(folder, exist_ok=True)
            temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
            try:
                _write_parts(temporary, schema, parts)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
            return
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with self.fs.open(path, "wb") as stream:  # one put: the object appears whole
            _write_parts(stream, schema, parts)

    def create_exclusive(self, relative: str, data: bytes) -> bool:
        """Create the file ``relative`` holding ``data``, complete when it appears; False
        (nothing written) when the name exists already."""
        path = self.path(relative)
        if self.is_local:
            folder = os.path.dirname(path)
            os.makedirs(folder, exist_ok=True)
            temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
            with open(temporary, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            try:
                os.link(temporary, path)
            except FileExistsError:
                return False
            finally:
                os.unlink(temporary)
            return True
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        try:
            with self.fs.open(path, "xb") as stream:
                stream.write(data)
        except FileExistsError:
            return False
        except (ValueError, NotImplementedError, TypeError) as error:
            raise WarehouseError(
                f"{self.url}: this filesystem ({self.protocol}) cannot create a file only if "
                f"it does not exist (fsspec mode 'xb'), which a lake's commit needs: {error}"
            ) from error
        return True

    def delete(self, relative: str) -> None:
        """Delete the file ``relative`` (nothing when it is gone already)."""
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm_file(self.path(relative))

    # -- DuckDB ---------------------------------------------------------------------------

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection that reads the lake's files by their
        :meth:`location` (an fsspec filesystem DuckDB does not know registered with it)."""
        con = duckdb.connect()
        if not self.is_local and self.protocol not in DUCKDB_PROTOCOLS:
            con.register_filesystem(self.fs)
        return con

    def catalogue_folder(self) -> Path:
        """Where the readers' DuckDB catalogue files of this lake go: ``_catalogue`` in a
        local lake; for a lake elsewhere, a folder of this machine's cache named after its
        URL (DuckDB writes its files on a local disk only)."""
        if self.is_local:
            return Path(self.root) / CATALOGUE_DIR
        if self.protocol not in DUCKDB_PROTOCOLS:
            raise WarehouseError(
                f"{self.url}: DuckDB reads lakes on a local disk or at s3://, gs://, r2://, "
                f"az://, abfss:// and http(s):// URLs; a reader cannot open one on "
                f"{self.protocol}://")
        return self._cache_folder()

    def _cache_folder(self) -> Path:
        """This machine's cache folder for a lake elsewhere, named after its URL."""
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        name = hashlib.sha256(self.location("").encode()).hexdigest()[:16]
        return cache / "handlab" / "lakes" / name

    def notes_file(self) -> Path:
        """Where the stars, tags and notes people keep on this lake's hands and players are
        kept (``annotations``' JSON): ``_notes.json`` in a local lake, in this machine's
        cache folder of the lake (beside its catalogues) for a lake elsewhere (written as a
        local file, replaced atomically)."""
        if self.is_local:
            return Path(self.root) / NOTES_FILE
        return self._cache_folder() / NOTES_FILE.lstrip("_")


def _write_parts(target: Any, schema: pa.Schema, parts: Iterable[pa.Table]) -> None:
    """The tables ``parts`` into one zstd Parquet file at ``target`` (a path or a stream)."""
    with pq.ParquetWriter(target, schema, compression="zstd") as writer:
        for part in parts:
            writer.write_table(part)


def _modified(info: dict[str, Any]) -> float:
    """A listing entry's modification time as seconds since the epoch (fsspec's
    filesystems name and type it differently: ``mtime``, ``LastModified``, ``created``)."""
    for key in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, int | float):
            return float(value)
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        try:
            return dt.datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
    return 0.0


def open_store(lake: LakeStore | Path | str) -> LakeStore:
    """The store of the lake named by ``lake``: a folder path, a ``file://`` URL or any
    fsspec URL (its filesystem's package installed: s3fs for ``s3://``; else
    :class:`~analytics.warehouse.errors.UnsupportedURL`)."""
    if isinstance(lake, LakeStore):
        return lake
    text = os.fspath(lake)
    fs, root = url_filesystem(text)
    root = root.rstrip("/") or "/"
    if isinstance(fs, LocalFileSystem):
        root = os.path.abspath(root)
    return LakeStore(text, fs, root)
