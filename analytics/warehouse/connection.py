"""Opening the warehouse: where it lives, the one writer, and readers that never crash.

DuckDB lets one process open a database file for writing; while it has it
open, other processes cannot open the file at all, not even read-only, and
fail at once with a lock error.  handlab's answer (docs/warehouse.md):

* **Writers** (``handlab ingest``, the dashboard's uploads) use
  :func:`open_writer`: it waits, retrying, while a reader or another writer
  holds the file, then migrates the schema.  A long ingest releases the file
  between files when someone is waiting for it (:class:`WriterLease`) so readers get in.
* **Readers** (the dashboard, queries) use :func:`open_reader` for each
  question and close it at once.  While a writer holds the file the reader
  retries for a short while, then raises :class:`WarehouseBusy`, which the
  dashboard turns into "an ingest is running, retrying" instead of a crash.
* In one process, DuckDB refuses a read-only connection next to a read-write one
  to the same file; there a reader shares the process's database instead, which is
  safe because DuckDB isolates transactions within a process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import duckdb

from analytics.warehouse.errors import (
    WarehouseBusy,
    WarehouseMissing,
    WarehouseNotADatabase,
    WarehouseSchemaError,
    WarehouseUnreadable,
)
from analytics.warehouse.sql.queries import database_file
from analytics.warehouse.sql.schema import LATEST_VERSION, migrate, schema_version

__all__ = [
    "DEFAULT_DB",
    "ENV_VAR",
    "KEEP_POLL",
    "LAKE_ENV_VAR",
    "LEASE_SETTINGS",
    "UNASKED_RELEASE",
    "WriterLease",
    "current_version",
    "is_lock_error",
    "kept_writers",
    "leased",
    "open_reader",
    "open_writer",
    "project_root",
    "reader",
    "reader_unchecked",
    "resolve_db",
    "turn_request_path",
    "writer",
]

ENV_VAR: Final = "HANDLAB_DB"
LAKE_ENV_VAR: Final = "HANDLAB_LAKE"
"""Names a Parquet lake (docs/scale-out.md) that readers use instead of a database file."""
DEFAULT_DB: Final = Path("data") / "handlab.duckdb"
"""Relative to the project root (the folder holding ``pyproject.toml``), else the working dir."""

_WRITER_MEMORY: Final = "512MB"  # keeps ingest's peak (with workers) under 1 GiB


def project_root() -> Path:
    """The folder holding handlab's ``pyproject.toml`` (a source checkout), else the working dir."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "analytics").is_dir():
            return parent
    return Path.cwd()


def resolve_db(db: Path | str | None = None) -> Path:
    """The database file to use: ``db``, else the catalogue of the Parquet lake that
    ``$HANDLAB_LAKE`` names (:func:`~analytics.warehouse.lake.catalogue.catalogue`: views over
    its files, read as a database), else ``$HANDLAB_DB``, else ``data/handlab.duckdb``."""
    if db is not None and str(db) != "":
        return Path(db)
    lake = os.environ.get(LAKE_ENV_VAR)
    if lake:
        from analytics.warehouse.lake.catalogue import catalogue

        return catalogue(lake)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return project_root() / DEFAULT_DB


def is_lock_error(error: BaseException) -> bool:
    """True for DuckDB's "another process holds the file" and "same file, other config" errors."""
    text = str(error)
    if isinstance(error, duckdb.IOException):
        return "lock" in text.lower()
    if isinstance(error, duckdb.ConnectionException):
        return "different configuration" in text
    return False


def turn_request_path(path: Path) -> Path:
    """The file a process waiting for the database at ``path`` touches to ask the writer's
    lease for a turn (:class:`WriterLease`): ``<database>.waiting``, next to it."""
    return path.with_name(path.name + ".waiting")


def _ask_for_turn(path: Path) -> None:
    """Tell the writer holding ``path`` that another process is waiting for it (its lease
    lets go between two files).  Best effort: in a folder this process cannot write, the
    writer still lets go every :data:`UNASKED_RELEASE` seconds."""
    request = turn_request_path(path)
    try:
        request.touch()
        os.utime(request)  # touch() leaves an existing file's time as it is on some systems
    except OSError:
        pass


_NOT_A_DATABASE: Final = "is not a valid DuckDB database file"
"""What DuckDB's IOException says of an existing file that is no DuckDB database."""


_IN_MEMORY: Final = "in-memory database"
"""What DuckDB's CatalogException says when a data file named as a database (a CSV,
Parquet or JSON file: DuckDB opens one as an in-memory database with a view over it) is
opened read-only."""


def _retrying_connect(path: Path, *, read_only: bool, wait: float,
                      config: dict[str, str | bool | int | float | list[str]]
                      ) -> duckdb.DuckDBPyConnection:
    """Connect, retrying lock conflicts with jittered backoff until ``wait`` seconds pass.

    A folder, or a file that is not a DuckDB database, raises :class:`WarehouseNotADatabase`
    (before DuckDB's own error: its message may say "lock" in the path, read as a conflict)."""
    if path.is_dir():
        raise WarehouseNotADatabase(f"{path} is a folder, not a database")
    deadline = time.monotonic() + wait
    delay = 0.01
    while True:
        # Readers whose questions overlap would keep a read-only instance alive for ever
        # and starve this process's writer: while one waits, a reader joins (or starts) the
        # read-write instance it waits for instead, and the read-only one drains.
        shared = read_only and _any_counted(_OPENING, path)
        try:
            con = duckdb.connect(str(path), read_only=read_only and not shared, config=config)
        except duckdb.CatalogException as error:
            if _IN_MEMORY not in str(error):
                raise
            raise WarehouseNotADatabase(
                f"{path} is not a handlab database (not a DuckDB file)") from None
        except (duckdb.IOException, duckdb.ConnectionException) as error:
            if _NOT_A_DATABASE in str(error):
                raise WarehouseNotADatabase(
                    f"{path} is not a handlab database (not a DuckDB file)") from None
            if not is_lock_error(error):
                raise
            if isinstance(error, duckdb.IOException):  # another process holds the file
                _ask_for_turn(path)
            if read_only and not shared and isinstance(error, duckdb.ConnectionException):
                # This process already has the file open read-write: share that instance.
                try:
                    return duckdb.connect(str(path), config=config)
                except (duckdb.IOException, duckdb.ConnectionException) as shared_error:
                    # The instance changed between the two attempts (the writer closed and
                    # a read-only reader opened it): wait and try again like any conflict.
                    if not is_lock_error(shared_error):
                        raise
            if time.monotonic() >= deadline:
                who = "being written by another process" if read_only else "in use"
                raise WarehouseBusy(f"{path} is {who}; try again in a moment "
                                    f"({error})") from error
        else:
            # DuckDB opens a CSV, Parquet or JSON file named as a database as an in-memory
            # database with a view over it (an ingest into it stored nothing, and said
            # nothing).  Asked of DuckDB: opening the file here to look at its first bytes
            # would drop this process's lock on a database it holds (POSIX locks go with
            # any close of the file).
            if database_file(con) is not None:
                return con
            con.close()
            raise WarehouseNotADatabase(f"{path} is not a handlab database (not a DuckDB file)")
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())) * random.uniform(0.5, 1.0))
        delay = min(delay * 2, 0.1)


def open_writer(db: Path | str | None = None, *, wait: float = 60.0) -> duckdb.DuckDBPyConnection:
    """Open the database for writing (creating it and its folder), migrated to the latest schema.

    Waits up to ``wait`` seconds while other processes hold the file, then raises
    :class:`WarehouseBusy`.
    """
    path = resolve_db(db)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _counted(_OPENING, path):
        con = _retrying_connect(path, read_only=False, wait=wait, config={})
    try:
        # A setting, not connect() config: in-process readers must connect with the same config.
        con.execute(f"SET memory_limit = '{_WRITER_MEMORY}'")
        version = _reader_version(con)  # the cheap look (~1 ms, not ~10)
        if version != LATEST_VERSION:
            migrate(con, current=version)
    except BaseException:
        con.close()
        raise
    return con


def open_reader(db: Path | str | None = None, *, wait: float = 3.0) -> duckdb.DuckDBPyConnection:
    """Open the database for reading; close it as soon as the question is answered.

    Raises :class:`WarehouseMissing` when the file does not exist,
    :class:`WarehouseBusy` when a writer holds it for more than ``wait`` seconds,
    and :class:`WarehouseSchemaError` when its schema is not the one this code
    reads (a writer migrates it: run ``handlab ingest`` or open the dashboard).
    """
    path = resolve_db(db)
    if not path.exists():
        raise WarehouseMissing(f"{path} does not exist yet: load hands with `handlab ingest`")
    con = _retrying_connect(path, read_only=True, wait=wait, config={})
    version = _reader_version(con)
    if version != LATEST_VERSION:
        con.close()
        advice = ("a newer handlab wrote it: upgrade handlab" if version > LATEST_VERSION else
                  "open it once for writing (handlab ingest) to migrate it")
        raise WarehouseSchemaError(
            f"{path} is at schema version {version}, this handlab reads {LATEST_VERSION}; "
            f"{advice}")
    return con


def _reader_version(con: duckdb.DuckDBPyConnection) -> int:
    """:func:`schema_version` of a connection just opened (no transaction open): looking the
    version table up in ``information_schema`` cost 12-18 ms of CPU on a fresh connection,
    a third of opening one, and the dashboard opens one per script run (the benchmark per
    question); ``pragma_table_info`` of the one table costs about 1 ms.

    Without the table it raises a catalog error: the version is 0.  Outside a transaction
    the failed statement leaves the connection usable (inside one it would abort it, hence
    not in :func:`schema_version`, which migrations call).  The table is not simply
    selected from: a missing table would make DuckDB's Python client scan a Python object
    of that name instead (a replacement scan: this module imports ``schema_version``)."""
    try:
        con.execute("SELECT 1 FROM pragma_table_info('schema_version') LIMIT 1").fetchall()
    except duckdb.CatalogException:
        return 0
    rows = con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()
    return int(rows[0][0])


@contextmanager
def reader(db: Path | str | None = None, *, wait: float = 3.0
           ) -> Iterator[duckdb.DuckDBPyConnection]:
    """``with reader(db) as con:`` a read connection, closed on exit.  A table file that
    cannot be read (a lake's Parquet file missing or damaged) raises
    :class:`WarehouseUnreadable` naming it, not DuckDB's error."""
    con = open_reader(db, wait=wait)
    try:
        yield con
    except (duckdb.IOException, duckdb.InvalidInputException) as error:
        raise WarehouseUnreadable(f"{resolve_db(db)}: a file its tables are read from "
                                  f"cannot be read: {error}") from error
    finally:
        con.close()


_LOCKS_GUARD = threading.Lock()
_WRITER_LOCKS: dict[Path, threading.Lock] = {}
_WAITING: Counter[Path] = Counter()  # threads of this process waiting for a writer lock
_OPENING: Counter[Path] = Counter()  # threads of this process opening a file to write it


@contextmanager
def _counted(threads: Counter[Path], path: Path) -> Iterator[None]:
    """Count this thread in ``threads`` (:data:`_WAITING`, :data:`_OPENING`) for ``path``
    while inside, so other threads can see that one waits (:func:`_any_counted`)."""
    key = path.resolve()
    with _LOCKS_GUARD:
        threads[key] += 1
    try:
        yield
    finally:
        with _LOCKS_GUARD:
            threads[key] -= 1
            if not threads[key]:
                del threads[key]


def _any_counted(threads: Counter[Path], path: Path) -> bool:
    """Whether a thread of this process is counted in ``threads`` for ``path``."""
    with _LOCKS_GUARD:
        return threads[path.resolve()] > 0


def _writer_lock(path: Path) -> threading.Lock:
    """The lock that keeps two writers of one process apart for the database at ``path``.

    DuckDB's file lock only separates processes: two connections of one process
    (two browser sessions uploading to one Streamlit server) could otherwise write
    at once, and each transaction would check for duplicates only against what the
    other had not yet committed.
    """
    with _LOCKS_GUARD:
        return _WRITER_LOCKS.setdefault(path.resolve(), threading.Lock())


def _acquire(lock: threading.Lock, path: Path, wait: float) -> None:
    if lock.acquire(blocking=False):
        return
    _release_kept(path)  # a lease an ingest of this process kept (KeptWriters) goes at once
    if lock.acquire(blocking=False):
        return
    # A lease of another thread sees the count and lets go after its file.
    with _counted(_WAITING, path):
        acquired = lock.acquire(timeout=max(wait, 0.0))
    if not acquired:
        raise WarehouseBusy(f"{path} is being written by another ingest of this process; "
                            "try again in a moment")


@contextmanager
def writer(db: Path | str | None = None, *, wait: float = 60.0
           ) -> Iterator[duckdb.DuckDBPyConnection]:
    """``with writer(db) as con:`` the write connection, closed (and checkpointed) on exit.

    Only one ``writer`` or :class:`WriterLease` per database holds it at a time in
    a process; others wait up to ``wait`` seconds.
    """
    path = resolve_db(db)
    lock = _writer_lock(path)
    _acquire(lock, path, wait)
    try:
        con = open_writer(path, wait=wait)
        try:
            yield con
        finally:
            con.close()
    finally:
        lock.release()


LEASE_SETTINGS: Final = frozenset({"checkpoint_threshold", "threads"})
"""DuckDB settings a :class:`WriterLease` may change (a whitelist: a setting's name goes
into SQL as text; its value is always bound)."""


def _set(con: duckdb.DuckDBPyConnection, name: str, value: str | int) -> None:
    if name not in LEASE_SETTINGS:
        raise ValueError(f"not a setting a writer lease may change: {name!r}")
    con.execute(f"SET {name} = ?", [value])


UNASKED_RELEASE: Final = 60.0
"""Seconds after which a :class:`WriterLease` lets go even if no one asked for a turn."""


class WriterLease:
    """The write connection of a long ingest, released for readers who wait for it.

    After each committed file, :meth:`maybe_release` closes the connection if it
    has been held longer than ``hold`` seconds and someone is waiting for the file (a
    process that found it locked touched :func:`turn_request_path` since the lease took
    the file, or a thread of this process waits for its writer lock), pauses ``pause``
    seconds (a reader retrying every few tens of milliseconds gets in), and reopens
    it, waiting while readers finish.  A reader therefore waits at most about ``hold``
    seconds plus one file's load.  Unasked, the lease keeps the file (up to ``every``
    seconds): each release costs a checkpoint and a reopen, tens of µs per hand of
    CPU when nobody reads (docs/performance.md, Session 5, the writer).
    """

    def __init__(self, db: Path | str | None = None, *, wait: float = 60.0, hold: float = 2.0,
                 pause: float = 0.15, every: float = UNASKED_RELEASE) -> None:
        self.path = resolve_db(db)
        self.wait = wait
        self.hold = hold
        self.pause = pause
        self.every = every
        self._lock = _writer_lock(self.path)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._settings: dict[str, str | int] = {}
        self._restore: dict[str, str] = {}
        self._requests = turn_request_path(self.path)
        self._requested: int | None = None  # the request file's time when the lease opened
        self._open()

    def _open(self) -> duckdb.DuckDBPyConnection:
        # The in-process lock first (other threads of this process), then the file (other
        # processes); the lock is held exactly as long as the connection is open.
        _acquire(self._lock, self.path, self.wait)
        try:
            self._con = open_writer(self.path, wait=self.wait)
        except BaseException:
            self._lock.release()
            raise
        self._since = time.monotonic()
        self._requested = self._request_time()
        self._apply(self._con)
        return self._con

    def restart(self) -> None:
        """A kept lease taken again: its time held counts from now (:meth:`due`)."""
        self._since = time.monotonic()

    def _request_time(self) -> int | None:
        try:
            return self._requests.stat().st_mtime_ns
        except OSError:
            return None

    def asked(self) -> bool:
        """Whether someone has been waiting for the file since this lease took it."""
        return _any_counted(_WAITING, self.path) or self._request_time() != self._requested

    def configure(self, settings: Mapping[str, str | int]) -> None:
        """Apply DuckDB ``settings`` (name to value, e.g. ``{"threads": 1}``; names from
        :data:`LEASE_SETTINGS`) to the connection now and whenever it reopens; each close
        first restores the values they replaced, since they are global to the database
        instance, which readers of this process may share (:func:`open_reader`) and keep
        open after the lease."""
        unknown = sorted(set(settings) - LEASE_SETTINGS)
        if unknown:
            raise ValueError(f"not a setting a writer lease may change: {', '.join(unknown)}")
        self._settings.update(settings)
        if self._con is not None:
            self._apply(self._con)

    def _apply(self, con: duckdb.DuckDBPyConnection) -> None:
        for name, value in self._settings.items():
            if name not in self._restore:
                self._restore[name] = con.execute(
                    "SELECT value FROM duckdb_settings() WHERE name = ?", [name]).fetchall()[0][0]
            _set(con, name, value)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The open write connection."""
        return self._con if self._con is not None else self._open()

    def due(self) -> bool:
        """Whether the lease should let go at the end of the open transaction: the file has
        been held ``hold`` seconds and someone waits for it (or held ``every`` seconds).  An
        ingest that gathers several files in a transaction commits early when it is."""
        if self._con is None:
            return False
        held = time.monotonic() - self._since
        return held >= self.hold and (held >= self.every or self.asked())

    def maybe_release(self) -> bool:
        """Between transactions: let readers in if the file has been held long enough and
        someone waits for it (or it has been held ``every`` seconds)."""
        if not self.due():
            return False
        self.close()
        time.sleep(self.pause)
        return True

    def close(self) -> None:
        """Close the connection (DuckDB checkpoints the write-ahead log)."""
        if self._con is not None:
            try:
                if self._restore:
                    # The checkpoint close() would run, done first under the lease's own
                    # settings: with the ingest's one thread it costs 10-15% less CPU than
                    # with the restored default (docs/performance.md, Session 5, the writer).
                    with contextlib.suppress(duckdb.Error):  # close() checkpoints anyway
                        self._con.execute("CHECKPOINT")
                for name, value in self._restore.items():
                    _set(self._con, name, value)
                self._restore = {}
                self._con.close()
            finally:
                self._con = None
                self._lock.release()

    def keep(self, seconds: float) -> None:
        """Instead of closing: keep the connection open for the next ingest of this process
        (:func:`leased`) until ``seconds`` pass without one or someone asks for the file
        (:func:`kept_writers`).  Its settings go back to the database's meanwhile (readers
        of this process share its instance); closed at once when someone has asked."""
        con = self._con
        if con is None:
            return
        if seconds <= 0 or self.asked():
            self.close()
            return
        for name, value in self._restore.items():
            _set(con, name, value)
        self._settings = {}  # the originals stay in _restore: the next configure only SETs
        _KEPT.put(self, seconds)

    def __enter__(self) -> WriterLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


KEEP_POLL: Final = 0.05
"""Seconds between two looks of the kept leases' keeper for someone waiting."""


class _KeptLeases:
    """The write connections ingests of this process kept open (:meth:`WriterLease.keep`),
    by database, and the daemon thread that closes each when its time is up or someone
    asks for its file: a process that found the file locked touched the request file, or a
    thread of this process waits for the writer lock (that thread closes it itself at
    once: ``_acquire``).  Taken back by the next ingest of the same database
    (:func:`leased`), which then skips opening it: starting a DuckDB instance costs about
    30 ms of CPU, migrating checks and the close's checkpoint more (docs/recording.md)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._kept: dict[Path, tuple[WriterLease, float]] = {}  # path -> (lease, deadline)
        self._keeper: threading.Thread | None = None

    def put(self, lease: WriterLease, seconds: float) -> None:
        with self._guard:
            self._kept[lease.path.resolve()] = (lease, time.monotonic() + seconds)
            if self._keeper is None:
                self._keeper = threading.Thread(target=self._watch, name="handlab-kept-writer",
                                                daemon=True)
                self._keeper.start()

    def take(self, path: Path) -> WriterLease | None:
        """The lease kept for ``path`` (no longer kept), or None."""
        with self._guard:
            kept = self._kept.pop(path.resolve(), None)
        return None if kept is None else kept[0]

    def paths(self) -> list[Path]:
        """The databases a lease is kept open for."""
        with self._guard:
            return list(self._kept)

    def release(self, path: Path | None = None) -> None:
        """Close the lease kept for ``path`` (every kept lease when None)."""
        with self._guard:
            keys = list(self._kept) if path is None else [path.resolve()]
            leases = [self._kept.pop(key)[0] for key in keys if key in self._kept]
        for lease in leases:
            lease.close()

    def _watch(self) -> None:
        while True:
            time.sleep(KEEP_POLL)
            now = time.monotonic()
            with self._guard:
                due = [key for key, (lease, deadline) in self._kept.items()
                       if now >= deadline or lease.asked()]
                leases = [self._kept.pop(key)[0] for key in due]
                if not self._kept and not leases:
                    self._keeper = None
                    return
            for lease in leases:
                with contextlib.suppress(duckdb.Error):  # best effort: the data is committed
                    lease.close()


_KEPT: Final = _KeptLeases()
atexit.register(_KEPT.release)  # the kept connections' checkpoints, before DuckDB's teardown


def _release_kept(path: Path) -> None:
    _KEPT.release(path)


def kept_writers() -> list[Path]:
    """The databases this process keeps a write connection open to (:func:`leased`)."""
    return _KEPT.paths()


@contextmanager
def leased(db: Path | str | None = None, *, wait: float = 60.0, hold: float = 2.0,
           keep: float = 0.0) -> Iterator[WriterLease]:
    """``with leased(db) as lease:`` a :class:`WriterLease`: the one an earlier ingest of
    this process kept open for ``db`` if there is one, else a new one.  On leaving without
    an exception the lease is kept ``keep`` seconds for the next (:meth:`WriterLease.keep`;
    0: closed now, as a ``with WriterLease(...)`` would); an exception closes it.

    What the recorder files each finished hand through: its hands come a few seconds
    apart, and a kept connection spares each the DuckDB instance's start, the schema
    check and the close's checkpoint (the checkpoint comes when it is let go)."""
    path = resolve_db(db)
    lease = _KEPT.take(path)
    if lease is None or lease.asked():
        if lease is not None:
            lease.close()
        lease = WriterLease(path, wait=wait, hold=hold)
    else:
        lease.wait, lease.hold = wait, hold
        lease.restart()
    try:
        yield lease
    except BaseException:
        lease.close()
        raise
    lease.keep(keep)


def current_version(db: Path | str | None = None) -> int:
    """The schema version of ``db`` (0 when it is empty); opens it read-only."""
    with reader_unchecked(db) as con:
        return schema_version(con)


@contextmanager
def reader_unchecked(db: Path | str | None = None, *, wait: float = 3.0
                     ) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read connection without the schema check (for inspecting old databases)."""
    path = resolve_db(db)
    if not path.exists():
        raise WarehouseMissing(f"{path} does not exist")
    con = _retrying_connect(path, read_only=True, wait=wait, config={})
    try:
        yield con
    finally:
        con.close()
