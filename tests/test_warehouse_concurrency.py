"""The dashboard reading while an ingest writes: neither side crashes.

DuckDB lets one process hold a file for writing and locks every other process
out.  A reader must then either succeed or raise WarehouseBusy, which the
dashboard can catch and retry; a writer waits for readers to finish.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from analytics.warehouse import (
    WarehouseBusy,
    WarehouseMissing,
    WarehouseNotADatabase,
    WarehouseSchemaError,
    connection,
    ingest,
    open_reader,
    open_writer,
    reader,
    writer,
)
from analytics.warehouse.connection import WriterLease, kept_writers, leased
from analytics.warehouse.sql import queries as q
from analytics.warehouse.sql import views
from analytics.warehouse.sql.schema import migrate
from analytics.warehouse.sql.views import HandFilter
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs, simulated_text, write

ROOT = Path(__file__).resolve().parent.parent

HOLD_SCRIPT = """
import sys
from analytics.warehouse import open_writer
con = open_writer(sys.argv[1])
print("holding", flush=True)
sys.stdin.read()  # hold the file until the test closes our stdin
con.close()
"""

INGEST_SCRIPT = """
import sys
from analytics.warehouse import ingest
print("start", flush=True)
summary = ingest([sys.argv[1]], sys.argv[2], workers=0, hold=0.05)
sys.exit(summary.exit_code)
"""


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert process.stdout is not None
    process.stdout.readline()
    return process


class SteppedClock:
    """The clock of :mod:`analytics.warehouse.connection` in a test: it moves only by the
    sleeps asked of it, so a wait is checked without reading the real time."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.slow
def test_reader_gets_busy_while_another_process_writes(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", SEVENEIGHT)], db, workers=0)
    holder = spawn(HOLD_SCRIPT, str(db))
    try:
        clock = SteppedClock()
        with monkeypatch.context() as patched:
            patched.setattr(connection, "time", clock)
            with pytest.raises(WarehouseBusy, match="another process"):
                open_reader(db, wait=0.3)
        assert 0 < clock.now <= 0.3  # it retried within its wait, then gave a clear answer
        with pytest.raises(WarehouseBusy):
            open_writer(db, wait=0.2)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait()
    with reader(db) as con:
        assert views.overview(con, HandFilter())["hands"].tolist() == [1]


@pytest.mark.slow
def test_dashboard_reads_during_an_ingest(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    for number in range(6):
        write(folder / f"p{number}.phhs", simulated_text("bigtwo", 12, seed=number + 10))
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "first.phhs", BIGTWO)], db, workers=0)
    process = spawn(INGEST_SCRIPT, str(folder), str(db))
    outcomes = {"ok": 0, "busy": 0}
    while process.poll() is None:
        try:
            with reader(db, wait=0.5) as con:
                stats = views.player_results(con, HandFilter())
                files = q.files(con)
                # A reader sees whole files only.
                assert int(stats["hands"].sum()) == int(
                    con.execute("SELECT count(*) FROM seats").fetchall()[0][0])
                assert int(files["loaded"].sum()) == int(
                    con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
            outcomes["ok"] += 1
        except WarehouseBusy:
            outcomes["busy"] += 1
        time.sleep(0.01)
    print(f"reads during the ingest: {outcomes}")  # pytest -s shows how often each happened
    assert process.returncode == 0
    assert sum(outcomes.values()) > 0
    with reader(db) as con:
        assert int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 73


def test_reader_in_the_writing_process_shares_its_database(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT, BIGTWO))], db, workers=0)
    con = open_writer(db)
    try:
        with reader(db) as read:
            assert views.overview(read, HandFilter())["hands"].sum() == 2
    finally:
        con.close()


def test_a_lease_sets_only_listed_settings_and_restores_them(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT))], db, workers=0)

    def current(con: duckdb.DuckDBPyConnection) -> list[object]:
        return list(con.execute(
            "SELECT current_setting('threads'), current_setting('checkpoint_threshold')"
        ).fetchall()[0])

    with WriterLease(db) as lease:
        before = current(lease.con)
        lease.configure({"threads": 1, "checkpoint_threshold": "64MB"})
        assert current(lease.con) == [1, "61.0 MiB"]
        with pytest.raises(ValueError, match="memory_limit"):
            lease.configure({"memory_limit": "1GB'; DROP TABLE hands; --"})
        with reader(db) as read:  # shares the writer's instance: the settings are global
            assert current(read) == [1, "61.0 MiB"]
            lease.close()
            assert current(read) == before
        assert current(lease.con) == [1, "61.0 MiB"]  # reopened: applied again
    with reader(db) as read:
        assert int(read.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 1


@pytest.mark.parametrize("opening", [open_reader, open_writer])
def test_a_folder_or_a_file_of_another_kind_is_no_database(tmp_path: Path,
                                                            opening: object) -> None:
    """A mistyped path is named for what it is, neither opened nor overwritten: a folder,
    or a file that is not a DuckDB database (even with "lock" in its path, which DuckDB's
    lock errors are told by)."""
    assert callable(opening)
    folder = tmp_path / "blocks"
    folder.mkdir()
    with pytest.raises(WarehouseNotADatabase, match=r"blocks is a folder, not a database$"):
        opening(folder)
    history = folder / "hands.phhs"
    history.write_text('variant = "N78"\n')
    with pytest.raises(WarehouseNotADatabase,
                       match=r"hands.phhs is not a handlab database \(not a DuckDB file\)$"):
        opening(history)
    assert history.read_text() == 'variant = "N78"\n'


def test_reader_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(WarehouseMissing):
        open_reader(tmp_path / "none.duckdb")
    import duckdb

    old = tmp_path / "old.duckdb"
    with duckdb.connect(str(old)) as con:
        migrate(con, target=1)
    with pytest.raises(WarehouseSchemaError, match="schema version 1"):
        open_reader(old)
    open_writer(old).close()  # a writer migrates it
    with reader(old) as con:
        assert q.files(con).empty


READ_SCRIPT = """
import sys
from analytics.warehouse import reader
print("start", flush=True)
with reader(sys.argv[1], wait=10) as con:
    print(con.execute("select count(*) from hands").fetchall()[0][0], flush=True)
"""


def _settings(con: duckdb.DuckDBPyConnection) -> list[object]:
    return list(con.execute("SELECT current_setting('threads'), "
                            "current_setting('checkpoint_threshold')").fetchall()[0])


@pytest.mark.slow
def test_a_kept_lease_serves_the_next_ingest_and_goes_when_another_process_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "w.duckdb"
    with WriterLease(db) as lease:
        defaults = _settings(lease.con)
    opened: list[Path] = []
    real_open = connection.open_writer

    def counted(path: Path, *, wait: float) -> duckdb.DuckDBPyConnection:
        opened.append(path)
        return real_open(path, wait=wait)

    monkeypatch.setattr(connection, "open_writer", counted)
    first = ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT))], db, workers=0, keep=30)
    assert first.loaded == 1 and db.resolve() in kept_writers()
    with reader(db) as read:  # this process's readers share the kept instance
        assert int(read.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 1
        assert _settings(read) == defaults  # the ingest's settings went back when kept
    second = ingest([write(tmp_path / "b.phhs", phhs(BIGTWO))], db, workers=0, keep=30)
    assert second.loaded == 1 and len(opened) == 1  # the second ingest opened nothing
    process = spawn(READ_SCRIPT, str(db))  # locked out: it asks, the keeper lets go
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "2"
    finally:
        process.communicate(timeout=30)
    assert process.returncode == 0 and db.resolve() not in kept_writers()


def test_a_writer_of_this_process_takes_the_file_from_a_kept_lease(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT))], db, workers=0, keep=30)
    assert db.resolve() in kept_writers()
    with writer(db, wait=0.5) as con:  # no waiting for the keeper: the lease goes at once
        assert db.resolve() not in kept_writers()
        assert int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 1


def test_a_kept_lease_goes_after_its_time_and_after_an_error(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT))], db, workers=0, keep=0.2)
    deadline = time.monotonic() + 10
    while db.resolve() in kept_writers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert db.resolve() not in kept_writers()
    with pytest.raises(RuntimeError, match="planted"), leased(db, keep=30):
        raise RuntimeError("planted")
    assert db.resolve() not in kept_writers()
    with reader(db) as read:
        assert int(read.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 1


def test_readers_of_this_process_never_starve_its_writer(tmp_path: Path) -> None:
    """Readers whose questions overlap (several dashboard sessions) kept a read-only
    instance of the file alive without a break, and an upload waiting to write gave up
    after its whole wait.  Once a writer of this process waits, new readers join the
    read-write instance it will use, the read-only one drains, and the writer gets in."""
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", simulated_text("seveneight", 20, 11))], db, workers=0)
    stop = threading.Event()
    answers: list[int] = []

    def read_again_and_again(offset: float) -> None:
        time.sleep(offset)
        while not stop.is_set():
            with reader(db, wait=10.0) as con:  # each reader overlaps the next one
                answers.append(int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0]))
                time.sleep(0.06)

    threads = [threading.Thread(target=read_again_and_again, args=(i * 0.02,)) for i in range(3)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(0.3)
        with writer(db, wait=3.0) as con:  # failed with WarehouseBusy after 3 s before
            con.execute("CREATE TABLE written AS SELECT 1 AS x")
        time.sleep(0.2)  # readers go on afterwards
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert answers and set(answers) == {20}
    with reader(db) as con:
        assert con.execute("SELECT x FROM written").fetchall() == [(1,)]
