"""kill -9 of ``handlab lake compact`` and ``handlab lake vacuum`` at random moments: the lake
stays readable with exactly the same rows in every table, and a rerun finishes the job (as
tests/test_warehouse_kill.py does for the database's ingest)."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse.lake.catalogue import open_lake
from analytics.warehouse.lake.core import (
    MANIFEST_DIR,
    latest_manifest,
    table_source,
)
from analytics.warehouse.lake.engine import ingest_lake
from analytics.warehouse.lake.maintenance import compact, vacuum
from analytics.warehouse.sql.schema import TABLES
from parsers import write_hands
from tests.fork_server import ForkServer, alive

HANDLAB_COMMANDS = """
import os, sys
from analytics.cli import app
import analytics.warehouse.lake.maintenance  # imported once, before the forks


def run(words):
    try:
        app(words, prog_name="handlab")
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        return 3
    return 0
"""
"""The fork server's script: each line of input is one ``handlab`` command."""

KILLS = 3
"""Kills that must land inside each command (and more until each phase was hit)."""

ATTEMPTS = 12 * KILLS
"""Runs tried before giving up on a phase.  A vacuum deletes its files within a few
milliseconds and ends soon after, so a kill between its last deletion and its end is not
required: on a fresh CI machine none landed in 37 runs.  :func:`test_a_vacuum_stopped`
stops one among its deletions and one after them."""

RANGE = 12 * 1024
"""Bytes per range of the lake under test: small, so its 170 hands are in about 120 small files
(a compaction writes about 24, one per table and game; a vacuum after it deletes the rest)."""


@pytest.fixture(scope="module")
def small_files_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lake of the three games in about 120 small files (one commit)."""
    folder = tmp_path_factory.mktemp("kill-histories")
    write_hands(simulate_seveneight(120, 6, 31), folder / "seveneight.phhs")
    write_hands(simulate_bigtwo(20, 4, 32), folder / "bigtwo.phhs")
    write_hands(simulate_rummoli(30, 4, 33), folder / "rummoli.phhs")
    lake = tmp_path_factory.mktemp("kill-lakes") / "small-files"
    summary = ingest_lake([folder], lake, engine="local", workers=0, range_bytes=RANGE)
    assert summary.loaded == 170
    return lake


def differences(lake: Path, reference: Path) -> dict[str, tuple[int, int, int]]:
    """Per table of the newest manifests: rows of ``lake``, of ``lake EXCEPT ALL reference``
    and of ``reference EXCEPT ALL lake`` (only the differing tables)."""
    ours, theirs = latest_manifest(lake), latest_manifest(reference)
    con = duckdb.connect()
    try:
        found = {}
        for table in TABLES:
            mine = f"SELECT * FROM {table_source(lake, table, ours.files(table))}"
            other = f"SELECT * FROM {table_source(reference, table, theirs.files(table))}"
            counts = tuple(con.execute(f"SELECT count(*) FROM ({query})").fetchall()[0][0]
                           for query in (mine, f"{mine} EXCEPT ALL {other}",
                                         f"{other} EXCEPT ALL {mine}"))
            if counts[1] or counts[2]:
                found[table] = counts
        return found
    finally:
        con.close()


def fingerprints(lake: Path) -> dict[str, tuple[int, int]]:
    """Per table of the newest manifest: its rows and the sum of their hashes (a multiset's
    fingerprint: a row lost, added, repeated or changed changes it), one read of the files
    where :func:`differences` reads both lakes twice."""
    manifest = latest_manifest(lake)
    con = duckdb.connect()
    try:
        found = {}
        for table in TABLES:
            rows = f"SELECT * FROM {table_source(lake, table, manifest.files(table))}"
            count, hashes = con.execute(
                f"SELECT count(*), coalesce(sum(hash(r)), 0) FROM ({rows}) r").fetchall()[0]
            found[table] = (int(count), int(hashes))
        return found
    finally:
        con.close()


REFERENCE_PRINTS: dict[Path, dict[str, tuple[int, int]]] = {}
"""The reference lakes' :func:`fingerprints` (read once; they do not change)."""


def assert_readable_and_same(lake: Path, reference: Path) -> None:
    """The lake opens as the warehouse (every view) and holds the reference's rows (the
    tables that differ named with :func:`differences`'s counts)."""
    con = open_lake(lake)
    try:
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 170
        con.execute("SELECT count(*) FROM v_seat_results").fetchall()
    finally:
        con.close()
    if reference not in REFERENCE_PRINTS:
        REFERENCE_PRINTS[reference] = fingerprints(reference)
    if fingerprints(lake) != REFERENCE_PRINTS[reference]:
        assert differences(lake, reference) == {}
        raise AssertionError(f"{lake}: the same rows, yet other fingerprints")


def stale(lake: Path) -> set[str]:
    """Files under the tables' folders (temporary files included) that the newest manifest
    does not list."""
    listed = {f for files in latest_manifest(lake).tables.values() for f in files}
    return {str(p.relative_to(lake)) for table in TABLES for p in (lake / table).rglob("*")
            if p.is_file()} - listed


COMPACT_PHASES = ("before its first file", "among its writes", "after its commit")
"""Where a killed compaction was, as its lake shows it (:func:`compact_phase`)."""

VACUUM_PHASES = ("before its deletions", "among its deletions", "after its deletions")
"""Where a killed vacuum was, as its lake shows it (:func:`vacuum_phase`); among and after
its deletions (milliseconds before its end) a kill rarely lands, so
:func:`test_a_vacuum_stopped` stops one there."""


def written(lake: Path) -> int:
    """The files (and temporary files) a compaction to version 2 has written so far."""
    return sum(1 for table in TABLES for p in (lake / table).rglob("*")
               if p.is_file() and "c000002-" in p.name)


def compaction_steps(lake: Path, _replaced: int) -> int:
    """A compaction's steps so far: its files written, then its commit (one more)."""
    return written(lake) + (lake / MANIFEST_DIR / "v000002.json").exists()


def compact_phase(lake: Path, _replaced: int) -> str:
    """The :data:`COMPACT_PHASES` entry of a killed compaction of ``lake``."""
    if latest_manifest(lake).version == 2:
        return COMPACT_PHASES[2]
    return COMPACT_PHASES[1] if written(lake) else COMPACT_PHASES[0]


def vacuum_phase(lake: Path, replaced: int) -> str:
    """The :data:`VACUUM_PHASES` entry of a killed vacuum of ``lake``, whose compaction
    replaced ``replaced`` files."""
    left = len(stale(lake))
    return VACUUM_PHASES[0] if left == replaced else VACUUM_PHASES[1 if left else 2]


def deleted(lake: Path, replaced: int) -> int:
    """The files a vacuum of ``lake`` has deleted so far (of the ``replaced``)."""
    return replaced - len(stale(lake))


def kill_rounds(zygote: ForkServer, prepare: Path, reference: Path, command: list[str],
                tmp_path: Path, rng: random.Random, progress: Callable[[Path, int], int],
                phase: Callable[[Path, int], str], required: tuple[str, ...]
                ) -> tuple[list[Path], dict[str, int]]:
    """Copies of ``prepare``, each with ``handlab COMMAND <copy>`` killed -9, until
    :data:`KILLS` kills landed and each phase of ``required`` was hit; the copies and the
    kills by phase (``phase(lake, replaced)``).  Each killed copy reads as ``reference``.

    A third of the kills come at a random moment of the first half of an undisturbed run's
    start (before its ``progress(lake, replaced)`` moves: files written, files deleted), a
    third a random moment after a random step of it but the first and the last, a third as
    soon as its last step is seen (the commit; the last deletion): the steps waited for,
    not timed."""
    timing = tmp_path / "timing"
    shutil.copytree(prepare, timing)
    replaced = len(stale(prepare))
    started = time.monotonic()
    pid = zygote.start(*command, str(timing))
    first = last = None
    steps = 0
    while alive(pid):
        now = progress(timing, replaced)
        if now > steps:
            steps, last = now, time.monotonic() - started
            first = last if first is None else first
        time.sleep(0.002)
    assert zygote.wait() == 0
    duration = time.monotonic() - started
    if progress(timing, replaced) > steps or first is None or last is None:
        steps, first, last = progress(timing, replaced), duration, duration
    print(f"handlab {' '.join(command)}: {duration:.2f} s undisturbed from the fork, "
          f"{steps} steps from {first:.2f} s to {last:.2f} s")
    lakes: list[Path] = []
    hit = dict.fromkeys(required, 0)
    kills = attempts = 0
    while kills < KILLS or not all(hit.values()):
        attempts += 1
        assert attempts <= ATTEMPTS, f"only {kills} kills landed in {attempts} runs: {hit}"
        lake = tmp_path / f"killed{attempts}"
        shutil.copytree(prepare, lake)
        pid = zygote.start(*command, str(lake))
        aim = attempts % 3
        if aim == 0 or not steps:  # a random moment of the start's first half (a run
            time.sleep(rng.uniform(0.0, first / 2))  # may start faster than the timed one)
        else:  # after a random step but the last, or after the last: waited for
            # (from the second step: the first whole; a compaction's first file, its
            # largest table's, takes a good part of its writes)
            done = rng.randint(2, steps - 1) if aim == 1 and steps > 2 else steps
            while progress(lake, replaced) < done and alive(pid):
                time.sleep(0.002)
            if aim == 1:
                time.sleep(rng.uniform(0.0, (last - first) / steps))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        status = zygote.wait()
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            kills += 1
            lakes.append(lake)
            assert_readable_and_same(lake, reference)
            where = phase(lake, replaced)
            hit[where] = hit.get(where, 0) + 1
        else:
            assert os.WEXITSTATUS(status) == 0
            shutil.rmtree(lake)
    print(f"handlab {' '.join(command)}: kills by phase {hit}")
    return lakes, hit


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="uses fork and kill -9")
def test_kill_nine_of_compact_and_vacuum(small_files_lake: Path, tmp_path: Path) -> None:
    """Compaction, then vacuum, each killed -9 at random moments (:func:`kill_rounds`: at
    least three kills each, and in each phase: a compaction before its first file and among
    its writes, after its commit when a kill lands there before the command ends; a vacuum
    before its deletions, and after them when a kill lands there): every killed lake reads
    the same rows as before; rerun, the command finishes (a compaction: nothing left to
    compact; a vacuum: nothing unlisted left, one manifest) with the rows unchanged."""
    files_before = sum(len(f) for f in latest_manifest(small_files_lake).tables.values())
    assert files_before > 100
    rng = random.Random(20261205)
    zygote = ForkServer(HANDLAB_COMMANDS)
    try:
        compact_lakes, _ = kill_rounds(
            zygote, small_files_lake, small_files_lake, ["lake", "compact"],
            tmp_path / "compact", rng, compaction_steps, compact_phase, COMPACT_PHASES[:2])
        compacted = tmp_path / "compacted"
        shutil.copytree(small_files_lake, compacted)
        assert compact(compacted).version == 2
        vacuum_lakes, _ = kill_rounds(
            zygote, compacted, small_files_lake,
            ["lake", "vacuum", "--keep", "1", "--grace-hours", "0"], tmp_path / "vacuum",
            rng, deleted, vacuum_phase, VACUUM_PHASES[:1])
    finally:
        zygote.close()

    killed_at = []
    for lake in compact_lakes:
        version = latest_manifest(lake).version
        killed_at.append(version)
        assert version in (1, 2)  # before the commit, or after it (read by kill_rounds)
        again = compact(lake)
        assert (again.version is None) == (version == 2)
        assert compact(lake).version is None
        assert sum(len(f) for f in latest_manifest(lake).tables.values()) < files_before // 4
        vacuum(lake, keep=1, grace_seconds=0)
        assert stale(lake) == set()
        assert_readable_and_same(lake, small_files_lake)
    assert 1 in killed_at  # some kills landed before the commit

    for lake in vacuum_lakes:
        assert latest_manifest(lake).version == 2  # read as the reference by kill_rounds
        vacuum(lake, keep=1, grace_seconds=0)
        assert stale(lake) == set()
        assert sorted(p.name for p in (lake / MANIFEST_DIR).iterdir()) == ["v000002.json"]
        assert_readable_and_same(lake, small_files_lake)


@pytest.mark.slow
@pytest.mark.parametrize("stop", VACUUM_PHASES[1:])
def test_a_vacuum_stopped(stop: str, small_files_lake: Path, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Deleting about 95 files takes milliseconds and the vacuum ends soon after, so random
    kills rarely land among or after them: a vacuum stopped after its 50th deletion, or
    after its last file's before the older manifest's, leaves the newest version readable
    with every row, and a rerun finishes (nothing stale, one manifest)."""
    from analytics.warehouse.lake.store import LakeStore

    lake = tmp_path / "stopped-vacuum"
    shutil.copytree(small_files_lake, lake)
    assert compact(lake).version == 2
    replaced = len(stale(lake))
    deletions: list[str] = []
    real_delete = LakeStore.delete

    def delete(self: LakeStore, relative: str) -> None:
        among = stop == VACUUM_PHASES[1] and len(deletions) == 50
        if among or relative.startswith(f"{MANIFEST_DIR}/"):
            raise KeyboardInterrupt
        deletions.append(relative)
        real_delete(self, relative)

    monkeypatch.setattr(LakeStore, "delete", delete)
    with pytest.raises(KeyboardInterrupt):
        vacuum(lake, keep=1, grace_seconds=0)
    monkeypatch.setattr(LakeStore, "delete", real_delete)
    assert vacuum_phase(lake, replaced) == stop
    assert len(stale(lake)) == replaced - len(deletions)
    assert len(deletions) == (50 if stop == VACUUM_PHASES[1] else replaced)
    assert_readable_and_same(lake, small_files_lake)
    vacuum(lake, keep=1, grace_seconds=0)
    assert stale(lake) == set()
    assert sorted(p.name for p in (lake / MANIFEST_DIR).iterdir()) == ["v000002.json"]
    assert_readable_and_same(lake, small_files_lake)
