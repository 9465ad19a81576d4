"""kill -9 at random moments: every file is in completely or not at all; a rerun completes.

The writer gathers whole files in a transaction (all eight of these small files by default,
three in half the runs); a kill inside one leaves none of its files."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest

from analytics.warehouse import ingest, reader
from analytics.warehouse.connection import current_version, reader_unchecked
from analytics.warehouse.sql.schema import LATEST_VERSION
from parsers import dumps_hands
from tests.fork_server import ForkServer, alive
from tests.test_warehouse_data import PARSE_BROKEN, phhs, simulated, write

MARKER = "handlab-kill-test"

INGESTS = f"""# {MARKER}
import os, sys, time
from analytics.warehouse import ingest
from analytics.rules import replay
from parsers import read_hands
for hand in read_hands(sys.argv[1]):  # imports and the evaluator's JIT, once, before the forks
    if hand.ok:
        replay(hand)


def run(words):
    folder, db, workers, group_rows, batches = words

    def batch_done(progress):  # one line per batch of hands read, replayed and handed over
        with open(batches, "a", encoding="utf-8") as record:
            print(time.monotonic(), file=record)

    try:
        if int(group_rows):  # files per transaction: all eight, or three
            sys.modules["analytics.warehouse.pipeline.run"].GROUP_ROWS = int(group_rows)
        ingest([folder], db, workers=int(workers), hold=0.3, progress=batch_done)
    except BaseException:
        return 3
    return 0
"""
"""The fork server's script: each line of input is one ingest (folder, database, workers,
the writer's :data:`GROUP_ROWS` or 0 to leave it, a file to which each batch done adds a
line: the ingest's progress, which the test waits on to aim a kill among the commits)."""


def make_inputs(folder: Path, per_file: int = 24) -> None:
    """Eight files, overlapping in pairs (four hands), one with a rejected hand."""
    hands = simulated("seveneight", 8 * per_file, seed=3)
    step = per_file - 4
    for number in range(8):
        chosen = hands[number * step : number * step + per_file]
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
        # The derived per-seat facts commit with their file: one row per seat, no more.
        assert one("SELECT count(*) FROM (SELECT DISTINCT hand_id, seat FROM seat_facts)"
                   ) == one("SELECT count(*) FROM seat_facts") == one("SELECT count(*) FROM seats")
        return hands


def orphans(zygote: int) -> list[int]:
    """Processes of a killed ingest still alive (workers must die with their parent)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == zygote:
            continue
        try:
            if MARKER.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


KILLS = 12
"""Kills that must land (each phase of :data:`PHASES` among them)."""
ROUNDS_PER_DB = 3
GROUP_ROWS_SMALL = 2_000

PHASES = ("before its schema was made", "before its first commit", "between its commits",
          "after its last commit")
"""Where in an ingest a kill can land, as the database shows it afterwards (:func:`phase`):
no database or its schema half made; the schema made and nothing of this run committed;
some of the run's files committed and not all; every file in (killed in the last commit's
checkpoint or the close)."""


def phase(db: Path, before: int, hands: int, expected: int) -> str:
    """The :data:`PHASES` entry of a run killed on ``db``, which held ``before`` hands when
    it started and ``hands`` after the kill (of ``expected``)."""
    if not db.exists() or current_version(db) < LATEST_VERSION:
        return PHASES[0]
    if hands == before:
        return PHASES[1]
    return PHASES[2] if hands < expected else PHASES[3]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="uses fork, /proc and kill -9")
def test_kill_nine_at_random_moments(tmp_path: Path) -> None:
    """Kills -9 at random moments, inline and with workers, three in a row on each database,
    then a rerun: until :data:`KILLS` landed and in each of the first three :data:`PHASES`
    (the fourth, a kill in the last checkpoint, is counted when it comes)."""
    folder = tmp_path / "in"
    make_inputs(folder)
    reference = ingest([folder], tmp_path / "reference.duckdb", workers=0)
    assert reference.rejected == 1
    expected = reference.loaded
    with reader(tmp_path / "reference.duckdb") as ref:
        reference_ids = ref.execute("SELECT hand_id FROM hands ORDER BY hand_id").fetchall()
        reference_rejects = ref.execute(
            "SELECT sha256, hand_index FROM rejects ORDER BY ALL").fetchall()

    rng = random.Random(20261129)
    hit: dict[str, int] = dict.fromkeys(PHASES, 0)
    zygote = ForkServer(INGESTS, str(folder / "part0.phhs"))
    try:
        # Measure one undisturbed run (from the fork): its first batch comes late (the
        # schema, the plan and the pool come first), the commits after it.
        started = time.monotonic()
        zygote.start(folder, tmp_path / "timing.duckdb", 0, 0, tmp_path / "timing.batches")
        assert zygote.wait() == 0
        duration = time.monotonic() - started
        moments = [float(line) - started for line in
                   (tmp_path / "timing.batches").read_text(encoding="utf-8").split()]
        first, gap = moments[0], (moments[-1] - moments[0]) / (len(moments) - 1)
        print(f"an undisturbed ingest takes {duration:.2f} s from the fork, its {len(moments)} "
              f"batches done from {first:.2f} s, {gap:.3f} s apart")
        kills = attempts = on_this_db = 0
        databases = [tmp_path / "killed0.duckdb"]
        while kills < KILLS or not all(hit[p] for p in PHASES[:3]):
            attempts += 1
            assert attempts <= 4 * KILLS, (
                f"only {kills} kills landed in {attempts} runs, in the phases {hit}")
            db = databases[-1]
            before = check_consistent(db) if db.exists() else 0
            workers = 2 if attempts % 2 else 0
            # Half the runs gather three files per transaction (a file is about 750 rows),
            # so kills land inside and between transactions of several files.
            group_rows = GROUP_ROWS_SMALL if attempts % 4 >= 2 else 0
            batches = tmp_path / f"run{attempts}.batches"
            pid = zygote.start(folder, db, workers, group_rows, batches)
            # A third of the kills at a random moment of the start (a fresh database's
            # schema: every third run when the kills land, so every other fresh one), a
            # third before the first batch, a third at a random moment after a random
            # batch (among the commits, or after the last): waited for, not timed.
            aim = (attempts // 2) % 3
            if aim == 2:
                done = rng.randint(1, len(moments))
                while len(batches.read_text(encoding="utf-8").split() if batches.exists()
                          else ()) < done and alive(pid):
                    time.sleep(0.005)
            time.sleep(rng.uniform(0.0, (first / 8, first, gap)[aim]))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            status = zygote.wait()
            killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            if killed:
                kills += 1
                on_this_db += 1
            else:
                assert os.WEXITSTATUS(status) == 0
            if not killed or on_this_db == ROUNDS_PER_DB:  # done with it: start a fresh one
                on_this_db = 0
                databases.append(tmp_path / f"killed{len(databases)}.duckdb")
            deadline = time.monotonic() + 5
            while orphans(zygote.process.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert orphans(zygote.process.pid) == []
            hands = check_consistent(db) if db.exists() else 0
            if killed:
                hit[phase(db, before, hands, expected)] += 1
            # Printed (pytest -s) to see where the kills land.
            print(f"kill {kills} (run {attempts}, aim {aim}, {workers} workers): "
                  f"{hands} of {expected} in")
    finally:
        zygote.close()
    print(f"kills by phase: {hit}")

    # Each killed database completes on a rerun, with nothing twice.
    for db in (db for db in databases if db.exists()):
        rerun = ingest([folder], db, workers=0)
        assert rerun.exit_code in (0, 1)
        assert check_consistent(db) == expected
        with reader(db) as con:
            sql = "SELECT hand_id FROM hands ORDER BY hand_id"
            assert con.execute(sql).fetchall() == reference_ids
            sql = "SELECT sha256, hand_index FROM rejects ORDER BY ALL"
            assert con.execute(sql).fetchall() == reference_rejects
        again = ingest([folder], db, workers=0)
        assert again.loaded == 0 and {f.status for f in again.files} == {"already loaded"}
