"""The writer gathers whole files in one transaction: same database, each file still all or
nothing (a failing source, a file in parts, a file another ingest loaded, a waiting reader)."""

from __future__ import annotations

import gzip
import hashlib
import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pytest

from analytics.warehouse import IngestSummary, Limits, SourceError, ingest, reader
from analytics.warehouse.connection import WriterLease
from analytics.warehouse.pipeline.sources import SourceRef
from analytics.warehouse.sql.schema import TABLES
from parsers import dumps_hands
from tests.test_warehouse_data import (
    BIGTWO,
    RULES_BROKEN,
    SEVENEIGHT,
    phhs,
    relabel,
    simulated,
    simulated_text,
    write,
)

# Columns that hold when a row was written, not what it says.
_CLOCK_COLUMNS = {"files": ("started_at", "finished_at", "seconds"), "hands": ("loaded_at",),
                  "rejects": ("rejected_at",)}


def _ingest_module() -> ModuleType:
    return importlib.import_module("analytics.warehouse.pipeline.run")


def content(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, without the clock columns."""
    tables = {}
    with reader(db) as con:
        for table in TABLES:
            skipped = _CLOCK_COLUMNS.get(table)
            columns = f"* EXCLUDE ({', '.join(skipped)})" if skipped else "*"
            rows = con.execute(f"SELECT {columns} FROM {table}").fetchall()
            tables[table] = sorted(rows, key=repr)
    return tables


def outcome(summary: IngestSummary) -> tuple[object, ...]:
    """What an ingest reports, file by file and game by game."""
    files = [(f.name, f.status, f.hands, f.loaded, f.duplicates, f.rejected, f.message)
             for f in summary.files]
    games = sorted((game, c.loaded, c.duplicates, c.rejected)
                   for game, c in summary.by_game.items())
    return files, games, summary.exit_code


def count_commits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the ingest's commit to count the transactions that commit something."""
    module = _ingest_module()
    commits: list[int] = []
    real: Callable[..., None] = module.commit

    def counting(con: Any) -> None:
        commits.append(1)
        real(con)

    monkeypatch.setattr(module, "commit", counting)
    return commits


def make_inputs(folder: Path) -> Path:
    """Five files: overlapping 7 & 8 files (six duplicates across files), a reject, Big Two:
    38 hands to load."""
    hands = simulated("seveneight", 30, seed=5)
    write(folder / "a.phhs", dumps_hands(hands[:12]))
    write(folder / "b.phhs", dumps_hands(hands[8:20]))  # four hands of a.phhs again
    write(folder / "c.phhs", phhs(SEVENEIGHT, RULES_BROKEN))
    write(folder / "d.phhs", simulated_text("bigtwo", 6, seed=2))
    write(folder / "e.phhs", phhs(BIGTWO) + "\n" + dumps_hands(hands[18:]))  # two of b again
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2])
def test_grouped_files_give_the_database_of_one_transaction_per_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    folder = make_inputs(tmp_path / "in")
    module = _ingest_module()
    commits = count_commits(monkeypatch)
    monkeypatch.setattr(module, "GROUP_ROWS", 0)  # every file commits alone
    alone = ingest([folder], tmp_path / "alone.duckdb", workers=workers)
    assert len(commits) == 5
    monkeypatch.setattr(module, "GROUP_ROWS", 10**9)
    commits.clear()
    grouped = ingest([folder], tmp_path / "grouped.duckdb", workers=workers)
    assert len(commits) == 1
    assert outcome(grouped) == outcome(alone)
    assert (grouped.loaded, grouped.duplicates, grouped.rejected) == (38, 6, 1)
    assert grouped.exit_code == 1
    assert content(tmp_path / "grouped.duckdb") == content(tmp_path / "alone.duckdb")
    again = ingest([folder], tmp_path / "grouped.duckdb", workers=workers)
    assert {f.status for f in again.files} == {"already loaded"}


@pytest.mark.slow
def test_groups_close_at_the_row_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "in"
    for number in range(6):  # six files of the same size: four distinct copies of one hand
        write(folder / f"f{number}.phhs",
              phhs(*(relabel(SEVENEIGHT, 10 * number + copy) for copy in range(4))))
    module = _ingest_module()
    commits = count_commits(monkeypatch)
    summary = ingest([folder], tmp_path / "one.duckdb", workers=0)
    assert len(commits) == 1 and summary.loaded == 24
    rows = sum(len(table_rows) for table, table_rows in content(tmp_path / "one.duckdb").items()
               if table != "files")
    # Over two files' rows: the third file's load reaches it, so 3 + 3.
    monkeypatch.setattr(module, "GROUP_ROWS", rows // 3 + 1)
    commits.clear()
    summary = ingest([folder], tmp_path / "two.duckdb", workers=0)
    assert len(commits) == 2 and summary.loaded == 24
    assert content(tmp_path / "two.duckdb") == content(tmp_path / "one.duckdb")


def plan_unreadable_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let sources that fail while being hashed through the plan (as if they broke after
    it), so that their failure comes as the worker's result, among the other files'."""
    module = _ingest_module()
    real = module.content_digest

    def digest(ref: SourceRef, limits: Limits) -> tuple[str, int]:
        try:
            return real(ref, limits)  # type: ignore[no-any-return]
        except SourceError:
            raw = Path(ref.path).read_bytes()
            return hashlib.sha256(raw).hexdigest(), 4 * len(raw)

    monkeypatch.setattr(module, "content_digest", digest)


def broken_gzip(path: Path, hands: int, kept: float) -> None:
    """A gzip file of ``hands`` distinct copies of a 7 & 8 hand, cut after ``kept`` of its
    bytes."""
    data = gzip.compress(phhs(*(relabel(SEVENEIGHT, label) for label in range(hands))).encode())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data[: int(len(data) * kept)])


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.slow)])
def test_a_failing_source_in_a_group_loads_nothing_and_the_others_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    plan_unreadable_sources(monkeypatch)
    folder = tmp_path / "in"
    write(folder / "a.phhs", simulated_text("seveneight", 5, seed=3))
    broken_gzip(folder / "b.phhs.gz", 20, 0.5)
    write(folder / "c.phhs", BIGTWO)
    commits = count_commits(monkeypatch)
    db = tmp_path / "w.duckdb"
    summary = ingest([folder], db, workers=workers)
    assert [f.status for f in summary.files] == ["loaded", "error", "loaded"]
    assert summary.loaded == 6 and summary.exit_code == 2
    assert len(commits) == 1  # a.phhs and c.phhs together: b's failure rolled nothing back
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(6,)]
        assert con.execute("SELECT count(*) FROM files").fetchall() == [(2,)]


def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the writer's load to record the hands of every load (a part of a file, or
    whole files together)."""
    module = _ingest_module()
    loaded: list[int] = []
    real_load = module.load_new

    def load(con: Any, tables: Any, *rest: Any) -> Any:
        loaded.append(tables["hands"].num_rows)
        return real_load(con, tables, *rest)

    monkeypatch.setattr(module, "load_new", load)
    return loaded


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2])
def test_a_file_in_parts_failing_late_takes_back_the_files_gathered_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """A compressed file split by the main process, whose stream breaks after its first
    parts were loaded, in the transaction of the whole file before it: the transaction
    rolls back, that file is loaded again, the one after it loads; the database and the
    summary are those of an ingest without the broken file."""
    plan_unreadable_sources(monkeypatch)
    module = _ingest_module()
    monkeypatch.setattr(module, "BATCH_HANDS", 500)
    monkeypatch.setattr(module, "WHOLE_SOURCE_BYTES", 10_000)  # b.phhs.gz in parts, a whole
    folder = tmp_path / "in"
    write(folder / "a.phhs", simulated_text("seveneight", 3, seed=6))
    # Its stream breaks after some parts (the reader reads ahead: the file must be large).
    broken_gzip(folder / "b.phhs.gz", 3_000, 0.9)
    write(folder / "c.phhs", simulated_text("bigtwo", 3, seed=7))
    loaded_parts = count_loads(monkeypatch)
    commits = count_commits(monkeypatch)
    summary = ingest([folder], tmp_path / "w.duckdb", workers=workers)
    assert [f.status for f in summary.files] == ["loaded", "error", "loaded"]
    assert [f.loaded for f in summary.files] == [3, 0, 3]
    assert [f.hands for f in summary.files] == [3, 0, 3]  # a's first load is not counted
    assert sorted((game, c.loaded) for game, c in summary.by_game.items()) == [
        ("bigtwo", 3), ("seveneight", 3)]
    # a.phhs, then at the end c.phhs and a.phhs again, whole files loaded together
    assert loaded_parts[0] == 3 and loaded_parts[-1] == 6
    assert len(loaded_parts) >= 4  # a, some of b's parts before its stream broke, c with a
    assert len(commits) == 1  # c and a again, together at the end
    (folder / "b.phhs.gz").unlink()
    reference = ingest([folder], tmp_path / "reference.duckdb", workers=workers)
    assert content(tmp_path / "w.duckdb") == content(tmp_path / "reference.duckdb")
    assert outcome(reference)[1] == outcome(summary)[1]


@pytest.mark.slow
def test_files_in_parts_share_a_transaction(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Large files (each read by the workers in parts) gather in one transaction as whole
    files do: one commit, the database of one transaction per file."""
    module = _ingest_module()
    monkeypatch.setattr(module, "WHOLE_SOURCE_BYTES", 4_000)
    monkeypatch.setattr(module, "PART_BYTES", 4_000)
    folder = tmp_path / "in"
    for number, game in enumerate(("seveneight", "rummoli", "seveneight", "bigtwo")):
        write(folder / f"f{number}.phhs", simulated_text(game, 12, seed=20 + number))
    loaded_parts = count_loads(monkeypatch)
    commits = count_commits(monkeypatch)
    grouped = ingest([folder], tmp_path / "grouped.duckdb", workers=2)
    assert len(commits) == 1
    assert len(loaded_parts) > 8  # every file came in parts
    monkeypatch.setattr(module, "GROUP_ROWS", 0)  # every file commits alone
    commits.clear()
    alone = ingest([folder], tmp_path / "alone.duckdb", workers=2)
    assert len(commits) == 4
    assert outcome(grouped) == outcome(alone) and grouped.loaded == 48
    assert content(tmp_path / "grouped.duckdb") == content(tmp_path / "alone.duckdb")


@pytest.mark.slow
def test_a_file_loaded_by_another_ingest_meanwhile_is_skipped_inside_the_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = make_inputs(tmp_path / "in")
    db = tmp_path / "w.duckdb"
    first = ingest([folder / "b.phhs"], db, workers=0)
    assert first.loaded == 12
    module = _ingest_module()
    # As if b.phhs had been loaded after this ingest planned its work: the plan's check
    # (the first) finds nothing, the writer's in its transaction finds it.
    real = module.known_files
    checks: list[list[str]] = []

    def blind_plan(con: Any, digests: list[str]) -> set[str]:
        checks.append(digests)
        return set() if len(checks) == 1 else real(con, digests)

    monkeypatch.setattr(module, "known_files", blind_plan)
    summary = ingest([folder], db, workers=0)
    statuses = {Path(f.name).name: (f.status, f.message) for f in summary.files}
    assert statuses["b.phhs"] == ("already loaded", "loaded by another ingest meanwhile")
    assert statuses["a.phhs"][0] == "loaded" and statuses["d.phhs"][0] == "loaded"
    reference = ingest([folder], tmp_path / "reference.duckdb", workers=0)
    with reader(db) as con, reader(tmp_path / "reference.duckdb") as ref:
        sql = "SELECT hand_id FROM hands ORDER BY hand_id"
        assert con.execute(sql).fetchall() == ref.execute(sql).fetchall()
    assert reference.loaded == first.loaded + summary.loaded


@pytest.mark.slow
def test_a_waiting_reader_makes_the_group_commit_at_the_next_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the lease is due (someone waits), the files gathered so far commit before the
    lease lets go: a reader gets in after at most one more file, and sees whole files."""
    folder = make_inputs(tmp_path / "in")
    commits = count_commits(monkeypatch)
    releases: list[int] = []
    monkeypatch.setattr(WriterLease, "due", lambda self: True)
    real_release = WriterLease.maybe_release

    def release(self: WriterLease) -> bool:
        # Called between transactions only: the files so far are committed.
        with reader(self.path) as con:
            releases.append(con.execute("SELECT count(*) FROM files").fetchall()[0][0])
        return real_release(self)

    monkeypatch.setattr(WriterLease, "maybe_release", release)
    summary = ingest([folder], tmp_path / "w.duckdb", workers=0, hold=0.0)
    assert len(commits) == 5 and releases == [1, 2, 3, 4, 5]
    assert summary.loaded == 38


@pytest.mark.slow
def test_only_the_last_commit_checkpoints_and_the_setting_is_restored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ingest's last commit checkpoints at once (nothing of it goes to the write-ahead
    log), the commits before it are logged, the database is that of logged commits, and the
    threshold is restored for a connection of this process that shares the instance."""
    folder = tmp_path / "in"
    for number in range(5):  # five files of the same size: four distinct copies of one hand
        write(folder / f"f{number}.phhs",
              phhs(*(relabel(SEVENEIGHT, 10 * number + copy) for copy in range(4))))
    module = _ingest_module()
    ingest([folder / "f0.phhs"], tmp_path / "one.duckdb", workers=0)
    rows = sum(len(table_rows) for table, table_rows in content(tmp_path / "one.duckdb").items()
               if table != "files")
    # Commits after the second and the fourth file (in the writer), and at the end.
    monkeypatch.setattr(module, "GROUP_ROWS", rows + rows // 2)
    db = tmp_path / "w.duckdb"
    with WriterLease(db):
        pass  # the file, with its schema
    wal = [Path(f"{db}.wal")]
    logged: list[int] = []
    real: Callable[..., None] = module.commit

    def commit(con: Any) -> None:
        real(con)
        logged.append(wal[0].stat().st_size if wal[0].exists() else 0)

    monkeypatch.setattr(module, "commit", commit)
    setting = "SELECT current_setting('checkpoint_threshold')"
    shared = duckdb.connect(str(db))
    try:
        before = shared.execute(setting).fetchall()
        summary = ingest([folder], db, workers=0)
        assert shared.execute(setting).fetchall() == before
    finally:
        shared.close()
    assert summary.loaded == 20 and len(logged) == 3
    assert logged[0] > 0 and logged[1] > logged[0] and logged[-1] == 0
    reference = tmp_path / "reference.duckdb"
    monkeypatch.setattr(module, "_LAST_COMMIT", {"checkpoint_threshold": "64MB"})
    logged.clear()
    wal[0] = Path(f"{reference}.wal")
    assert outcome(ingest([folder], reference, workers=0)) == outcome(summary)
    assert logged[-1] > 0  # the reference's last commit was logged
    assert content(db) == content(reference)


def one_hand_files(folder: Path) -> int:
    """A folder in PHH's own layout, a hand per file, of all three games: two files repeat
    hands of others, one is rejected.  Returns the number of files."""
    files = 0
    for game, count, seed in (("seveneight", 12, 9), ("rummoli", 6, 4), ("bigtwo", 4, 8)):
        for number, hand in enumerate(simulated(game, count, seed=seed)):
            write(folder / f"{game}-{number:02d}.phh", dumps_hands([hand]))
            files += 1
    write(folder / "again.phhs", dumps_hands(simulated("seveneight", 12, seed=9)[5:8]))
    write(folder / "more-again.phhs", dumps_hands(simulated("rummoli", 6, seed=4)[:2]))
    write(folder / "rejected.phh", phhs(SEVENEIGHT, RULES_BROKEN))
    return files + 3


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2])
def test_small_files_load_together_as_they_would_one_by_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Small files go to the workers in bundles and the writer loads them together (one
    statement per table, not a dozen per file: a thousand one-hand files loaded at ten hands
    a second); the database and the summary are those of one file at a time."""
    folder = tmp_path / "in"
    files = one_hand_files(folder)
    module = _ingest_module()
    loads = count_loads(monkeypatch)
    bundles: list[int] = []
    real_process = module.process_units

    def process(units: Any) -> Any:
        bundles.append(len(units))
        return real_process(units)

    if workers == 0:  # a worker's calls are not seen here
        monkeypatch.setattr(module, "process_units", process)
    monkeypatch.setattr(module, "BUNDLE_UNITS", 10)
    together = ingest([folder], tmp_path / "together.duckdb", workers=workers)
    assert loads == [together.loaded]  # one load of every file's new hands
    if workers == 0:
        assert bundles == [10, 10, files - 20]
    # 22 simulated hands and the 7 & 8 example beside the rejected one
    assert (together.loaded, together.duplicates, together.rejected) == (23, 5, 1)
    monkeypatch.setattr(module, "STAGED_FILES", 1)
    monkeypatch.setattr(module, "BUNDLE_UNITS", 1)
    loads.clear()
    alone = ingest([folder], tmp_path / "alone.duckdb", workers=workers)
    assert len(loads) == files  # each file alone
    assert outcome(together) == outcome(alone)
    assert content(tmp_path / "together.duckdb") == content(tmp_path / "alone.duckdb")


def test_bundles_keep_a_large_unit_alone_and_every_worker_busy() -> None:
    """A unit that would take a bundle over its bytes starts the next: two 1.4 MiB files
    went to one worker together under 2 MiB, and a 16 MiB part joined a 1.9 MiB file.
    A small folder is cut into two bundles a worker at least, so that no worker idles."""
    from types import SimpleNamespace

    from analytics.warehouse.pipeline.run import (
        BUNDLE_BYTES,
        LEAST_BUNDLE_BYTES,
        bundle_bytes,
        bundles,
    )

    kib = 1024

    def sizes(units_kib: list[int], most_bytes: int) -> list[list[int]]:
        units: Any = [SimpleNamespace(size=size * kib) for size in units_kib]
        made: Any = list(bundles(units, most_bytes))
        return [[unit.size // kib for unit in bundle] for bundle in made]

    assert sizes([1434] * 4, 2048 * kib) == [[1434]] * 4
    assert sizes([1946, 16384, 100], 2048 * kib) == [[1946], [16384], [100]]
    assert sizes([496] * 8, 2048 * kib) == [[496] * 4, [496] * 4]
    assert sizes([496] * 8, 256 * kib) == [[496]] * 8
    assert sizes([1] * 250, 2048 * kib) == [[1] * 100, [1] * 100, [1] * 50]
    assert bundle_bytes(19 * 1024 * kib, 2) == BUNDLE_BYTES == 2048 * kib
    assert bundle_bytes(4 * 1024 * kib, 8) == LEAST_BUNDLE_BYTES
    assert bundle_bytes(6 * 1024 * kib, 2) == 1536 * kib  # four bundles for two workers
    assert bundle_bytes(1, 0) == BUNDLE_BYTES  # inline


def test_staged_files_are_bounded_by_their_bytes_too(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose hands are all rejected has no rows but keeps every hand's text in its
    rejects: staged by rows alone, a thousand such files waited together (8 MiB each).
    Staging stops at STAGED_BYTES of content: six files of rejects, three at a time."""
    folder = tmp_path / "in"
    for number in range(6):
        write(folder / f"f{number}.phhs", phhs(*(relabel(RULES_BROKEN, 10 * number + copy)
                                                 for copy in range(3))))
    size = (folder / "f0.phhs").stat().st_size
    module = _ingest_module()
    monkeypatch.setattr(module, "STAGED_BYTES", int(2.5 * size))
    loads: list[int] = []
    real = module.load_rejects

    def counting(con: Any, rejected: Any) -> None:
        loads.append(len(rejected))
        real(con, rejected)

    monkeypatch.setattr(module, "load_rejects", counting)
    summary = ingest([folder], tmp_path / "r.duckdb", workers=0)
    assert summary.rejected == 18 and summary.loaded == 0
    assert loads == [3, 3]  # the third file reached the bytes: three, then the other three
