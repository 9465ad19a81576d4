"""Concurrent use at the API level: several uploads, readers and a CLI ingest at once.

What the dashboard does per browser session -- ``ingest`` an upload in the
server's process, read the warehouse with ``reader`` -- runs here in several
threads of one process, while ``handlab ingest`` loads other (overlapping)
files from a separate process.  Nobody crashes (a reader may be told
WarehouseBusy, which the dashboard shows as "busy, retrying"), and at the end
the warehouse holds every hand exactly once: the same hands as one undisturbed
ingest of everything.  (The browser version of this test is left to
tests/browser/.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from analytics import ingest
from analytics.warehouse import WarehouseBusy, reader
from analytics.warehouse.sql import queries as q
from analytics.warehouse.sql import views
from analytics.warehouse.sql.views import HandFilter
from parsers import dumps_hands
from tests.test_warehouse_data import SEVENEIGHT, phhs, simulated, write
from tests.test_warehouse_kill import check_consistent

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = 3


def make_uploads(folder: Path) -> list[list[Path]]:
    """Per session two files; neighbouring sessions share a file's worth of hands."""
    hands = simulated("bigtwo", 10 * (SESSIONS + 2), seed=21)
    uploads = []
    for session in range(SESSIONS + 1):  # the last one is the CLI's
        first = write(folder / f"s{session}" / "a.phhs",
                      dumps_hands(hands[session * 10 : session * 10 + 10]))
        shared = write(folder / f"s{session}" / "b.phhs",
                       dumps_hands(hands[session * 10 + 10 : session * 10 + 20]))
        uploads.append([first, shared])
    write(folder / "s0" / "broken.phhs", phhs(SEVENEIGHT.replace('"p2 f"', '"p9 f"')))
    uploads[0].append(folder / "s0" / "broken.phhs")
    return uploads


SESSION_SCRIPT = """
import sys
from analytics import ingest
summary = ingest(sys.argv[2:], sys.argv[1], workers=0, wait=120.0, hold=0.1)
sys.exit(summary.exit_code)
"""


def run_at_once(tmp_path: Path, in_threads: bool) -> None:
    """Sessions ingest their uploads (in threads of this process, or in processes of their
    own) while two threads read and a CLI ingest runs; then compare with the reference."""
    uploads = make_uploads(tmp_path / "in")
    everything = [path for session in uploads for path in session]
    reference = ingest(everything, tmp_path / "reference.duckdb", workers=0)
    db = tmp_path / "shared.duckdb"
    ingest([uploads[0][0]], db, workers=0)  # the dashboard's database exists already

    errors: list[BaseException] = []
    outcomes = {"ok": 0, "busy": 0}
    done = threading.Event()
    environment = dict(os.environ, PYTHONPATH=str(ROOT))

    def session(paths: list[Path]) -> None:
        try:
            if in_threads:
                ingest(paths, db, workers=0, wait=120.0, hold=0.1)
                return
            completed = subprocess.run(
                [sys.executable, "-c", SESSION_SCRIPT, str(db), *map(str, paths)], cwd=ROOT,
                env=environment, capture_output=True, text=True, timeout=300)
            assert completed.returncode in (0, 1), completed.stderr[-2000:]
        except BaseException as error:  # any exception is a failure of the test
            errors.append(error)

    def read() -> None:
        while not done.is_set():
            try:
                with reader(db, wait=0.5) as con:
                    con.execute("BEGIN TRANSACTION")  # one snapshot for the three questions
                    stats = views.player_results(con, HandFilter())
                    files = q.files(con)
                    hands = int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
                    seats = int(con.execute("SELECT count(*) FROM seats").fetchall()[0][0])
                    con.execute("COMMIT")
                # A reader sees whole files only.
                assert int(files["loaded"].sum()) == hands
                assert int(stats["hands"].sum()) == seats
                outcomes["ok"] += 1
            except WarehouseBusy:
                outcomes["busy"] += 1
            except BaseException as error:
                errors.append(error)
                return

    cli = subprocess.Popen(
        [sys.executable, "-m", "analytics.cli", "ingest", *map(str, uploads[-1]), "--db",
         str(db), "-q"], cwd=ROOT, env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    writers = [threading.Thread(target=session, args=(paths,)) for paths in uploads[:-1]]
    readers = [threading.Thread(target=read) for _ in range(2)]
    for thread in writers + readers:
        thread.start()
    for thread in writers:
        thread.join(timeout=300)
    output, _ = cli.communicate(timeout=300)
    done.set()
    for thread in readers:
        thread.join(timeout=60)
    print(f"reads during the ingests: {outcomes}")  # pytest -s
    assert not errors, errors
    assert cli.returncode in (0, 1), output
    assert sum(outcomes.values()) > 0

    assert check_consistent(db) == reference.loaded
    with reader(db) as con, reader(tmp_path / "reference.duckdb") as ref:
        for sql in ("SELECT hand_id FROM hands ORDER BY ALL",
                    "SELECT sha256, hand_index FROM rejects ORDER BY ALL"):
            assert con.execute(sql).fetchall() == ref.execute(sql).fetchall(), sql


@pytest.mark.slow
def test_sessions_in_processes_readers_and_a_cli_ingest_at_once(tmp_path: Path) -> None:
    """Several ingesting processes (CLI runs, or dashboards on one database) and readers."""
    run_at_once(tmp_path, in_threads=False)


@pytest.mark.slow
def test_sessions_in_threads_of_one_server_readers_and_a_cli_ingest_at_once(
        tmp_path: Path) -> None:
    """Several browser sessions of one Streamlit server upload at once (threads).

    The per-database writer lock of ``analytics.warehouse.connection`` serialises them;
    without it two connections of one process write at once and a hand can load twice.
    """
    run_at_once(tmp_path, in_threads=True)
