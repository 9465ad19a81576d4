"""kill -9 at random moments: every file is in completely or not at all; a rerun completes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analytics.warehouse import ingest, reader
from analytics.warehouse.connection import current_version, reader_unchecked
from analytics.warehouse.schema import LATEST_VERSION
from parsers import dumps_hands
from tests.test_warehouse_data import PARSE_BROKEN, phhs, simulated, write

ROOT = Path(__file__).resolve().parent.parent
MARKER = "handlab-kill-test"

SCRIPT = f"""# {MARKER}
import sys
from analytics.warehouse import ingest
import analytics.rules.seveneight  # imported before "start", so the kill window is the ingest
print("start", flush=True)
ingest([sys.argv[1]], sys.argv[2], workers=int(sys.argv[3]), hold=0.3)
"""


def make_inputs(folder: Path) -> None:
    """Eight files, overlapping in pairs, one with a rejected hand."""
    hands = simulated("seveneight", 490, seed=3)
    for number in range(8):
        chosen = hands[number * 60 : number * 60 + 70]  # ten hands shared with the next file
        text = dumps_hands(chosen)
        if number == 5:
            text += phhs(PARSE_BROKEN).replace("[1]", "[99]")
        write(folder / f"part{number}.phhs", text)


def check_consistent(db: Path) -> int:
    """Assert that every recorded file is fully loaded and nothing else is; return hand count."""
    if current_version(db) < LATEST_VERSION:
        # Killed while creating the schema: each migration is atomic, and data comes after.
        with reader_unchecked(db) as con:
            tables = {row[0] for row in con.execute(
                "SELECT table_name FROM information_schema.tables").fetchall()}
            assert "hands" not in tables or not con.execute(
                "SELECT count(*) FROM hands").fetchall()[0][0]
        return 0
    with reader(db) as con:
        def one(sql: str) -> int:
            return int(con.execute(sql).fetchall()[0][0])

        hands = one("SELECT count(*) FROM hands")
        assert hands == one("SELECT count(DISTINCT hand_id) FROM hands")
        assert one("SELECT count(*) FROM hands WHERE source_sha256 NOT IN "
                   "(SELECT sha256 FROM files)") == 0
        assert one("SELECT count(*) FROM rejects WHERE sha256 NOT IN "
                   "(SELECT sha256 FROM files)") == 0
        mismatched = one("""
            SELECT count(*) FROM files f
            WHERE f.loaded <> (SELECT count(*) FROM hands h WHERE h.source_sha256 = f.sha256)
               OR f.rejected <> (SELECT count(*) FROM rejects r WHERE r.sha256 = f.sha256)""")
        assert mismatched == 0
        assert one("SELECT coalesce(sum(loaded), 0) FROM files") == hands
        # Each hand has all its seats and actions: no half-written children.
        assert one("""SELECT count(*) FROM hands h WHERE h.num_players <>
                      (SELECT count(*) FROM seats s WHERE s.hand_id = h.hand_id)""") == 0
        assert one("""SELECT count(*) FROM hands h WHERE h.num_actions <>
                      (SELECT count(*) FROM actions a WHERE a.hand_id = h.hand_id)""") == 0
        for table in ("seats", "actions", "showdowns", "awards"):
            assert one(f"SELECT count(*) FROM {table} WHERE hand_id NOT IN "
                       "(SELECT hand_id FROM hands)") == 0
        return hands


def orphans() -> list[int]:
    """Processes of a killed ingest still alive (workers must die with their parent)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if MARKER.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def start(folder: Path, db: Path, workers: int, environment: dict[str, str]
          ) -> subprocess.Popen[str]:
    """Start an ingest subprocess and return once it has imported everything."""
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(folder), str(db),
                                str(workers)], env=environment, cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "start"
    return process


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="uses /proc and kill -9")
def test_kill_nine_at_random_moments(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    make_inputs(folder)
    reference = ingest([folder], tmp_path / "reference.duckdb", workers=0)
    assert reference.rejected == 1
    expected = reference.loaded

    db = tmp_path / "killed.duckdb"
    rng = random.Random(20261129)
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    # Measure one run (from its "start" line) to spread the kills over the ingest itself.
    timing = start(folder, tmp_path / "timing.duckdb", 0, environment)
    started = time.monotonic()
    assert timing.wait() == 0
    duration = time.monotonic() - started
    kills = 0
    for attempt in range(6):
        workers = 2 if attempt % 2 else 0
        process = start(folder, db, workers, environment)
        time.sleep(rng.uniform(0.0, duration))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
        deadline = time.monotonic() + 5
        while orphans() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert orphans() == []
        if db.exists():
            # Printed (pytest -s) to see that kills land between and inside files.
            print(f"kill {attempt}: {check_consistent(db)} of {expected} hands in")
    assert kills >= 1  # the test means nothing if every run finished first

    rerun = ingest([folder], db, workers=0)
    assert check_consistent(db) == expected
    assert rerun.exit_code in (0, 1)
    with reader(db) as con, reader(tmp_path / "reference.duckdb") as ref:
        sql = "SELECT hand_id FROM hands ORDER BY hand_id"
        assert con.execute(sql).fetchall() == ref.execute(sql).fetchall()
        sql = "SELECT sha256, hand_index FROM rejects ORDER BY ALL"
        assert con.execute(sql).fetchall() == ref.execute(sql).fetchall()
    again = ingest([folder], db, workers=0)
    assert again.loaded == 0 and {f.status for f in again.files} == {"already loaded"}
