"""The writer's lease lets go of the database when someone waits for it, and only then.

A release costs a checkpoint and a reopen (docs/performance.md, Session 5, the writer), so
an ingest nobody waits for keeps the file; a reader or writer of another process that
finds the file locked asks for a turn (``<db>.waiting``), and a thread of the same
process waiting for the writer lock counts as asking too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from analytics.warehouse import ingest
from analytics.warehouse.connection import WriterLease, turn_request_path, writer
from tests.test_warehouse_data import SEVENEIGHT, phhs, write

ROOT = Path(__file__).resolve().parent.parent

READ_SCRIPT = """
import sys
from analytics.warehouse import reader
print("start", flush=True)
with reader(sys.argv[1], wait=60.0) as con:
    print(con.execute("SELECT count(*) FROM hands").fetchall()[0][0], flush=True)
"""


def database(tmp_path: Path) -> Path:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", phhs(SEVENEIGHT))], db, workers=0)
    return db


def test_an_unasked_lease_keeps_the_file(tmp_path: Path) -> None:
    db = database(tmp_path)
    with WriterLease(db, hold=0.0) as lease:
        assert not lease.asked()
        assert not lease.maybe_release()
    turn_request_path(db).touch()  # a request from before the lease: answered already
    with WriterLease(db, hold=0.0) as lease:
        assert not lease.asked()
        assert not lease.maybe_release()


def test_a_request_after_the_lease_took_the_file_releases_it(tmp_path: Path) -> None:
    db = database(tmp_path)
    request = turn_request_path(db)
    with WriterLease(db, hold=0.0) as lease:
        time.sleep(0.02)  # a file time later than the one the lease saw
        request.touch()
        os.utime(request)
        assert lease.asked()
        assert lease.maybe_release()
        lease.con.execute("SELECT 1")  # reopened on use, the request answered
        assert not lease.asked()
        assert not lease.maybe_release()


def test_hold_and_every_bound_the_lease(tmp_path: Path) -> None:
    db = database(tmp_path)
    with WriterLease(db, hold=60.0) as lease:
        time.sleep(0.02)
        turn_request_path(db).touch()
        os.utime(turn_request_path(db))
        assert lease.asked()
        assert not lease.maybe_release()  # asked, but not held for hold seconds yet
    with WriterLease(db, hold=0.0, every=0.0) as lease:
        assert not lease.asked()
        assert lease.maybe_release()  # unasked, but held for every seconds


def test_a_thread_waiting_for_the_writer_lock_is_a_request(tmp_path: Path) -> None:
    db = database(tmp_path)
    entered = threading.Event()

    def other_writer() -> None:
        with writer(db, wait=30.0):
            entered.set()

    with WriterLease(db, hold=0.0) as lease:
        thread = threading.Thread(target=other_writer)
        thread.start()
        deadline = time.monotonic() + 30
        while not lease.asked() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert lease.asked()
        assert lease.maybe_release()
        assert entered.wait(30)
        thread.join(30)
        assert not lease.asked()


@pytest.mark.slow
def test_a_reader_of_another_process_gets_its_turn(tmp_path: Path) -> None:
    db = database(tmp_path)
    with WriterLease(db, hold=0.0) as lease:
        process = subprocess.Popen(
            [sys.executable, "-c", READ_SCRIPT, str(db)], cwd=ROOT, text=True,
            stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        try:
            assert process.stdout is not None
            process.stdout.readline()
            released = False
            deadline = time.monotonic() + 60
            while not released and time.monotonic() < deadline:
                lease.con.execute("SELECT 1")  # between two files
                released = lease.maybe_release()
                time.sleep(0.01)
            assert released
            output, _ = process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert output.strip() == "1"
