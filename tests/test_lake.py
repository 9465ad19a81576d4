"""The Parquet lake (issue #32): the lake ingest on Dask and on the local pool gives exactly the
single-machine database, table for table and question for question; nothing twice; a job that
fails or is killed leaves the previous state; a rerun completes it identically."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fsspec
import pandas as pd
import pytest

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest, reader
from analytics.warehouse.annotations import (
    HandNote,
    hand_note,
    player_note,
    set_hand_note,
    set_player_note,
)
from analytics.warehouse.connection import LAKE_ENV_VAR, resolve_db, writer
from analytics.warehouse.lake import core as lake_module
from analytics.warehouse.lake.catalogue import (
    catalogue,
    open_lake,
    table_differences,
)
from analytics.warehouse.lake.core import MANIFEST_DIR, LakeConflict, latest_manifest
from analytics.warehouse.lake.engine import ingest_lake
from analytics.warehouse.lake.maintenance import compact, vacuum
from analytics.warehouse.lake.store import NOTES_FILE
from analytics.warehouse.pipeline.run import SAMPLES, IngestSummary
from analytics.warehouse.sql import views
from analytics.warehouse.sql.schema import TABLES
from analytics.warehouse.sql.views import HandFilter
from parsers import write_hands
from tests.lake_questions import canonical, compare_questions
from tests.test_dashboard_data import write_histories

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow  # every test ingests hundreds of hands twice or more, some on Dask

RANGE = 96 * 1024
"""Bytes per range in these tests: the large files come in several parts, small ones grouped."""

LAKE_SAMPLES = ("rummoli-manual-claims.phhs", "seveneight-fl-headsup.phhs",
                "seveneight-pl-4max.phhs")
"""The samples in these tests: the lake keeps files, ranges and rows whatever the rules, so
not the 2,400-hand one nor Big Two's house rules (19 rule sets, 5 s each time a process
reads them again): together 6-8 s of each of some twenty ingests here."""

# ---- data --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three of the samples, simulated histories of the three games (one 7 & 8 file of
    several ranges), a file with rejects, and a file repeating hands of two others."""
    folder = tmp_path_factory.mktemp("histories")
    samples = folder / "samples"
    samples.mkdir()
    for name in LAKE_SAMPLES:
        shutil.copyfile(SAMPLES / name, samples / name)
    simulated = folder / "simulated"
    simulated.mkdir()
    write_hands(simulate_seveneight(600, 6, 21), simulated / "seveneight.phhs")
    write_hands(simulate_bigtwo(60, 4, 22), simulated / "bigtwo.phhs")
    write_hands(simulate_rummoli(80, 4, 23), simulated / "rummoli.phhs")
    small = write_histories(folder / "small")
    repeats = folder / "repeats.phhs"
    # The rummoli file's hands again (whole), then the 7 & 8 file's first part: a hand held
    # by another range of the same job, and (on a second ingest) by the lake.
    texts = [(simulated / "rummoli.phhs").read_text(encoding="utf-8"),
             (simulated / "seveneight.phhs").read_text(encoding="utf-8")[:40_000]]
    cut = texts[1].rfind("\n\n")
    repeats.write_text(texts[0] + "\n" + texts[1][:cut] + "\n", encoding="utf-8")
    return [samples, simulated, *small, repeats]


@pytest.fixture(scope="module")
def database(histories: list[Path], tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[Path, IngestSummary]:
    """The single-machine database of the same histories: what every lake must equal."""
    db = tmp_path_factory.mktemp("db") / "single.duckdb"
    return db, ingest(histories, db, workers=0)


def two_workers() -> Iterator[Any]:
    """A client of a Dask cluster of two worker processes on localhost, as CI's two cores."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       preload=["analytics.warehouse.lake.engine"])
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """The module's shared cluster (:func:`two_workers`)."""
    yield from two_workers()


@pytest.fixture(scope="module")
def dask_lake(histories: list[Path], client: Any, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[Path, IngestSummary]:
    lake = tmp_path_factory.mktemp("lakes") / "dask"
    return lake, ingest_lake(histories, lake, engine="dask", client=client, range_bytes=RANGE)


# ---- comparing a lake with the database --------------------------------------------------

def assert_same_tables(lake: Path | str, db: Path) -> None:
    found = table_differences(lake, db)
    different = {table: counts for table, counts in found.items() if not counts.equal}
    assert not different, different
    assert found["hands"].rows > 1500 and found["rejects"].rows > 0
    assert found["pot_facts"].rows > 0


def assert_same_summary(lake: IngestSummary, single: IngestSummary) -> None:
    """The same hands loaded, repeated and rejected, by game and by file."""
    def by_file(summary: IngestSummary) -> list[tuple[object, ...]]:
        return sorted((f.name, f.status, f.hands, f.loaded, f.duplicates, f.rejected)
                      for f in summary.files)

    assert by_file(lake) == by_file(single)
    assert lake.by_game == single.by_game


# ---- the tables ----------------------------------------------------------------------------

def test_the_dask_lake_holds_the_database(dask_lake: tuple[Path, IngestSummary],
                                          database: tuple[Path, IngestSummary]) -> None:
    lake, summary = dask_lake
    assert_same_tables(lake, database[0])
    assert_same_summary(summary, database[1])
    assert summary.duplicates > 0 and summary.rejected > 0
    assert latest_manifest(lake).version == 1


def test_the_local_engine_lake_holds_the_database(histories: list[Path],
                                                  database: tuple[Path, IngestSummary],
                                                  tmp_path: Path) -> None:
    """The local engine's lake, its inputs named by paths and by ``file://`` URLs (the same
    files and folders) and the lake by a ``file://`` URL: the database's."""
    lake = tmp_path / "local"
    sources = [f"file://{path}" if number % 2 else str(path)
               for number, path in enumerate(histories)]
    summary = ingest_lake(sources, f"file://{lake}", engine="local", workers=2,
                          range_bytes=RANGE)
    assert latest_manifest(f"file://{lake}").version == 1
    assert_same_tables(lake, database[0])
    assert_same_summary(summary, database[1])


def test_ranges_start_on_hands_and_keep_their_sizes(histories: list[Path]) -> None:
    """A large file's parts start where a hand starts, each remembering the hands and lines
    before it; small sources are grouped; no range is much larger than asked."""
    from analytics.warehouse.pipeline.sources import Limits, expand

    refs = expand([histories[1], *histories[2:6]], Limits())
    _, ranges, _ = lake_module.plan(refs, Limits(), set(), "job", range_bytes=RANGE)
    large = [r for r in ranges if r.units[0].context.path.endswith("simulated/seveneight.phhs")]
    assert len(large) >= 3
    text = (histories[1] / "seveneight.phhs").read_bytes()
    for task in large:
        (unit,) = task.units
        begin = 0 if unit.start is None else unit.start.offset
        assert begin == 0 or text[begin - 1:begin] == b"\n"
        assert text[begin:].startswith(b"variant") or text[begin:].lstrip().startswith(b"[")
        if unit.start is not None:
            assert unit.start.lines == text[:begin].count(b"\n")
        assert unit.end is not None and unit.end - begin < RANGE + 16_384
    grouped = [r for r in ranges if len(r.units) > 1]
    assert grouped and all(sum(u.size for u in r.units) <= RANGE for r in grouped)


# ---- the dashboard's questions -----------------------------------------------------------

def test_every_dashboard_question_answers_the_same(dask_lake: tuple[Path, IngestSummary],
                                                   database: tuple[Path, IngestSummary]
                                                   ) -> None:
    with reader(catalogue(dask_lake[0])) as ours, reader(database[0]) as theirs:
        asked, different = compare_questions(ours, theirs)
    assert not different, different[:3]
    assert asked > 100


# ---- nothing twice, nothing half-done ----------------------------------------------------

def _state(lake: Path) -> dict[str, int]:
    con = open_lake(lake)
    try:
        return {t: int(con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0])
                for t in TABLES}
    finally:
        con.close()


def test_reingest_loads_nothing_twice(dask_lake: tuple[Path, IngestSummary],
                                      histories: list[Path], client: Any,
                                      tmp_path: Path) -> None:
    lake = tmp_path / "again"
    shutil.copytree(dask_lake[0], lake)
    before = _state(lake)
    again = ingest_lake(histories, lake, engine="dask", client=client, range_bytes=RANGE)
    assert {f.status for f in again.files} == {"already loaded"}
    assert latest_manifest(lake).version == 1 and _state(lake) == before
    # The same hands in a file of other content: every one a duplicate of the lake's.
    copy = tmp_path / "copy.phhs"
    copy.write_text("# the same hands again\n" + (histories[1] / "bigtwo.phhs").read_text(
        encoding="utf-8"), encoding="utf-8")
    repeated = ingest_lake([copy], lake, engine="local", workers=0, range_bytes=RANGE)
    assert repeated.loaded == 0 and repeated.duplicates == 60
    after = _state(lake)
    assert after["files"] == before["files"] + 1
    assert {t: n for t, n in after.items() if t != "files"} == {
        t: n for t, n in before.items() if t != "files"}


def test_a_job_stopped_before_its_commit_leaves_the_previous_state(
        histories: list[Path], database: tuple[Path, IngestSummary], tmp_path: Path) -> None:
    lake = tmp_path / "stopped"
    ingest_lake(histories[:1], lake, engine="local", workers=0, range_bytes=RANGE)
    before = _state(lake)

    def stop() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # the simulated histories: several ranges
        ingest_lake(histories[1:2], lake, engine="local", workers=2, range_bytes=RANGE,
                    before_commit=stop)
    assert latest_manifest(lake).version == 1 and _state(lake) == before
    assert any(lake.glob("hands/**/*.parquet"))  # its files were written, never listed
    ingest_lake(histories, lake, engine="local", workers=2, range_bytes=RANGE)
    assert latest_manifest(lake).version == 2
    assert_same_tables(lake, database[0])


def test_two_jobs_at_once_are_serialised_by_the_commit(
        histories: list[Path], database: tuple[Path, IngestSummary], tmp_path: Path) -> None:
    """A job that finds another's commit made while it worked commits on top of it: the
    sources the other loaded are dropped, the rest deduplicated against its hands."""
    lake = tmp_path / "both"

    def the_other_job() -> None:
        ingest_lake(histories[1:3], lake, engine="local", workers=0, range_bytes=RANGE)

    first = ingest_lake(histories, lake, engine="local", workers=2, range_bytes=RANGE,
                        before_commit=the_other_job)
    assert latest_manifest(lake).version == 2
    meanwhile = [f for f in first.files if f.message == "loaded by another ingest meanwhile"]
    assert len(meanwhile) == 4
    assert_same_tables(lake, database[0])


def test_a_commit_that_loses_the_race_commits_again_or_gives_up(
        histories: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The next version is created exclusively: a job that read a manifest another job has
    since superseded finds the version taken, and reads the newest again."""
    lake = tmp_path / "race"
    ingest_lake(histories[4:5], lake, engine="local", workers=0, range_bytes=RANGE)
    stale = latest_manifest(lake)
    ingest_lake(histories[5:6], lake, engine="local", workers=0, range_bytes=RANGE)
    real = lake_module.latest_manifest
    calls: list[int] = []

    def first_stale(root: Path | str) -> lake_module.Manifest:
        calls.append(1)
        return stale if len(calls) == 1 else real(root)  # the commit's first read is stale

    monkeypatch.setattr(lake_module, "latest_manifest", first_stale)
    summary = ingest_lake(histories[6:7], lake, engine="local", workers=0, range_bytes=RANGE)
    assert summary.loaded > 0 and len(calls) == 2
    monkeypatch.setattr(lake_module, "latest_manifest", lambda root: stale)
    with pytest.raises(LakeConflict):
        ingest_lake(histories[2:3], lake, engine="local", workers=0, range_bytes=RANGE)
    monkeypatch.setattr(lake_module, "latest_manifest", real)
    assert latest_manifest(lake).version == 3
    assert sorted(p.name for p in (lake / MANIFEST_DIR).iterdir()) == [
        "v000001.json", "v000002.json", "v000003.json"]


# ---- readers -----------------------------------------------------------------------------

def test_handlab_lake_makes_every_reader_read_the_lake(dask_lake: tuple[Path, IngestSummary],
                                                      database: tuple[Path, IngestSummary],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    """``$HANDLAB_LAKE`` makes every reader (the dashboard's, ``handlab report`` and
    ``handlab stats``) read the lake, with the database's answers."""
    from typer.testing import CliRunner

    from analytics.cli import app

    monkeypatch.setenv(LAKE_ENV_VAR, str(dask_lake[0]))
    assert resolve_db() == catalogue(dask_lake[0])
    with reader() as con:
        got = views.overview(con, HandFilter())
    with reader(database[0]) as con:
        expected = views.overview(con, HandFilter())
    pd.testing.assert_frame_equal(canonical(got), canonical(expected), check_dtype=False)
    out = tmp_path / "report.csv"
    result = CliRunner().invoke(app, ["report", "--out", str(out), "--lake",
                                      str(dask_lake[0])])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").count("\n") > 5
    # handlab stats on the lake ($HANDLAB_LAKE) writes the database's rows (the averages
    # to the last bits: DuckDB sums the floats in another order over Parquet files).
    for game in ("seveneight", "bigtwo"):
        on_lake, on_db = tmp_path / f"{game}-lake.csv", tmp_path / f"{game}-db.csv"
        assert CliRunner().invoke(app, ["stats", game, "--out", str(on_lake)]).exit_code == 0
        assert CliRunner().invoke(app, ["stats", game, "--db", str(database[0]),
                                        "--out", str(on_db)]).exit_code == 0
        lake_rows = pd.read_csv(on_lake)
        pd.testing.assert_frame_equal(lake_rows, pd.read_csv(on_db), check_exact=False,
                                      rtol=1e-9)
        assert len(lake_rows) > 1


def test_notes_kept_on_a_lake_outlive_its_versions(histories: list[Path], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A star, tags and notes saved through the catalogue (as the dashboard saves them on a
    lake) are kept in the lake's notes file; the next version's catalogue has them again,
    and ``handlab report --lake`` lists them (it failed: the catalogue had no notes
    tables)."""
    from typer.testing import CliRunner

    from analytics.cli import app

    lake = tmp_path / "lake"
    small = histories[2:5]  # the simulated 7 & 8, Big Two and Rummoli files of write_histories
    ingest_lake(small[:1], lake, engine="local", workers=0)
    first = catalogue(lake)
    with reader(first) as con:
        hand = int(con.execute("SELECT min(hand_id) FROM hands").fetchall()[0][0])
        player = str(con.execute("SELECT min(player) FROM seats").fetchall()[0][0])
    with writer(first) as con:
        set_hand_note(con, hand, HandNote(True, ("bluff", "review"), "check the river"))
        set_player_note(con, player, "calls too wide")
    assert (lake / NOTES_FILE).exists()
    ingest_lake(small[1:], lake, engine="local", workers=0)
    second = catalogue(lake)
    assert second != first and not first.exists()
    with reader(second) as con:
        assert hand_note(con, hand) == HandNote(True, ("bluff", "review"), "check the river")
        assert player_note(con, player) == "calls too wide"
    with open_lake(lake) as con:
        assert hand_note(con, hand).tags == ("bluff", "review")
    out = tmp_path / "report.html"
    monkeypatch.delenv(LAKE_ENV_VAR, raising=False)
    result = CliRunner().invoke(app, ["report", "--lake", str(lake), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "check the river" in out.read_text(encoding="utf-8")


def test_a_file_that_changes_mid_job_is_dropped_whole(histories: list[Path],
                                                      tmp_path: Path) -> None:
    """A large file cut short after the plan: the range that reads past its new end fails,
    and its other ranges' rows go too (rewritten without them); the other sources load."""
    from analytics.warehouse.pipeline.sources import Limits, expand

    source = tmp_path / "changing.phhs"
    shutil.copyfile(histories[1] / "seveneight.phhs", source)
    other = histories[1] / "bigtwo.phhs"
    lake = tmp_path / "changed"
    refs = expand([source, other], Limits())
    sources, ranges, _ = lake_module.plan(refs, Limits(), set(), "job1", range_bytes=RANGE)
    assert sum(1 for r in ranges if r.units[0].context.path == str(source)) >= 3
    with source.open("r+b") as stream:
        stream.truncate(source.stat().st_size - 10_000)
    outputs = [lake_module.write_range(task, str(lake)) for task in ranges]
    assert sum(1 for output in outputs if output.errors) == 1
    started = dt.datetime.now()
    result = lake_module.commit(lake, "job1", sources, outputs, started)
    changed = next(s.sha256 for s in sources if s.name == str(source))
    assert result.dropped == {changed: next(o.errors[changed] for o in outputs if o.errors)}
    assert "changed while it was loaded" in result.dropped[changed]
    state = _state(lake)
    con = open_lake(lake)
    try:
        assert con.execute("SELECT DISTINCT game FROM hands").fetchall() == [("bigtwo",)]
        assert con.execute("SELECT count(*) FROM files").fetchall()[0][0] == 1
        orphans = con.execute("SELECT count(*) FROM seats WHERE hand_id NOT IN "
                              "(SELECT hand_id FROM hands)").fetchall()[0][0]
    finally:
        con.close()
    assert orphans == 0 and state["hands"] == 60 and state["seat_facts"] == state["seats"]


def test_handlab_ingest_lake_on_a_scheduler(histories: list[Path], client: Any,
                                            tmp_path: Path) -> None:
    """``handlab ingest PATHS --lake DIR --engine dask --scheduler ADDRESS``: the command's
    summary and exit code (1: some hands rejected), the lake committed once."""
    from typer.testing import CliRunner

    from analytics.cli import app

    lake = tmp_path / "cli"
    arguments = ["ingest", *map(str, histories[2:6]), "--lake", str(lake), "--engine", "dask",
                 "--scheduler", client.scheduler.address, "--range-mb", "1", "-q"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 1, result.output
    assert "190" in result.output and "broken.phhs" in result.output
    assert latest_manifest(lake).version == 1
    assert _state(lake)["hands"] == 190
    again = CliRunner().invoke(app, arguments)
    assert again.exit_code == 0 and "4 files already loaded" in again.output, again.output
    bad = CliRunner().invoke(app, ["ingest", str(histories[2]), "--lake", str(lake),
                                   "--engine", "spark"])
    assert bad.exit_code == 2


# ---- fsspec: inputs and lakes by URL -----------------------------------------------------

def _to_memory(histories: list[Path], folder: str) -> list[str]:
    """The histories copied into fsspec's in-memory filesystem under ``folder``: their URLs."""
    memory = fsspec.filesystem("memory")
    urls = []
    for source in histories:
        files = sorted(source.rglob("*")) if source.is_dir() else [source]
        for path in files:
            if path.is_file():
                relative = path.relative_to(source.parent)
                memory.pipe_file(f"{folder}/{relative}", path.read_bytes())
        urls.append(f"memory://{folder}/{source.name}")
    return urls


def test_a_lake_on_another_fsspec_filesystem(histories: list[Path], tmp_path: Path) -> None:
    """Inputs and lake on fsspec's ``memory://`` filesystem (one process: its workers run
    inline): the lake equals a database ingested from the same URLs, nothing is written
    twice, and the manifest's version is created only once."""
    memory = fsspec.filesystem("memory")
    try:
        urls = _to_memory(histories, "/inputs")
        db = tmp_path / "from-urls.duckdb"
        single = ingest(urls, db, workers=0)
        lake = "memory://lake"
        summary = ingest_lake(urls, lake, engine="local", workers=0, range_bytes=RANGE)
        assert summary.loaded > 1000 and summary.duplicates > 0 and summary.rejected > 0
        assert_same_summary(summary, single)
        assert_same_tables(lake, db)
        names = memory.find("/lake")
        assert not [name for name in names if name.endswith(".tmp")]
        assert memory.exists("/lake/_manifest/v000001.json")
        again = ingest_lake(urls, lake, engine="local", workers=0, range_bytes=RANGE)
        assert {f.status for f in again.files} == {"already loaded"}
        assert latest_manifest(lake).version == 1
        # The commit's exclusive create: a version that exists is not made again.
        first = memory.cat_file("/lake/_manifest/v000001.json")
        assert not lake_module.publish(lake, 1, "another-job", {})
        assert memory.cat_file("/lake/_manifest/v000001.json") == first
        tables = {name: list(files) for name, files in latest_manifest(lake).tables.items()}
        assert lake_module.publish(lake, 2, "another-job", tables)
        assert latest_manifest(lake).version == 2 and latest_manifest(lake).job == "another-job"
    finally:
        for folder in ("/inputs", "/lake"):
            if memory.exists(folder):
                memory.rm(folder, recursive=True)


# ---- compaction and vacuum ---------------------------------------------------------------

def _listed_files(lake: Path) -> list[str]:
    return [f for files in latest_manifest(lake).tables.values() for f in files]


def _unlisted_files(lake: Path) -> set[str]:
    """The tables' files the newest manifest does not list (a commit's rewrites' originals,
    a stopped job's)."""
    found = {str(p.relative_to(lake)) for table in TABLES for p in (lake / table).rglob("*")
             if p.is_file()}
    return found - set(_listed_files(lake))


def test_compaction_keeps_every_row_in_fewer_files(dask_lake: tuple[Path, IngestSummary],
                                                   database: tuple[Path, IngestSummary],
                                                   tmp_path: Path) -> None:
    """Each partition's small files merged: every table still equals the database
    (``EXCEPT ALL`` both ways), in fewer files, as a new version; compacting again changes
    nothing; an ingest after it commits on top of it."""
    lake = tmp_path / "compacted"
    shutil.copytree(dask_lake[0], lake)
    before = _listed_files(lake)
    result = compact(lake)
    after = _listed_files(lake)
    assert result.version == 2 and latest_manifest(lake).version == 2
    assert result.files_before == len(before) and result.files_after == len(after)
    assert len(after) < len(before) // 2
    # One file per (table, partition) at the default target (the lake is small).
    assert len(after) == len({f.rsplit("/", 1)[0] for f in before})
    assert_same_tables(lake, database[0])
    assert compact(lake).version is None and latest_manifest(lake).version == 2
    # A smaller target packs into several files, none merged past it.
    again = tmp_path / "smaller"
    shutil.copytree(dask_lake[0], again)
    sizes = {f: (again / f).stat().st_size for f in before}
    target = max(sizes.values()) * 3
    compact(again, target_bytes=target)
    merged = [f for f in _listed_files(again) if f.rsplit("/", 1)[1].startswith("c000002-")]
    assert merged and len(_listed_files(again)) > len(after)
    assert_same_tables(again, database[0])
    more = tmp_path / "more.phhs"
    write_hands(simulate_bigtwo(30, 4, 99), more)
    extra = ingest_lake([more], lake, engine="local", workers=0, range_bytes=RANGE)
    assert extra.loaded == 30 and latest_manifest(lake).version == 3
    assert _state(lake)["hands"] == _state(dask_lake[0])["hands"] + 30


def _to_month_folders(lake: Path, share: int) -> int:
    """Move every ``share``-th file of each partitioned table into the layout of session 18's
    lakes (``TABLE/game=G/month=YYYY-MM/``, split by the month of the hand's day) and commit
    that as a new version; return how many files now sit in month folders."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    manifest = latest_manifest(lake)
    tables = {name: list(files) for name, files in manifest.tables.items()}
    moved = 0
    for name in ("hands", "seat_facts", "hand_facts"):  # the tables with a day
        for number, relative in enumerate(list(tables.get(name, ()))[::share]):
            rows = pq.read_table(lake / relative)
            day = rows["day"] if "day" in rows.column_names else pc.coalesce(
                rows["played_on"], pc.cast(rows["loaded_at"], "date32"))
            months = pc.strftime(day, format="%Y-%m")
            tables[name].remove(relative)
            for month in sorted(set(months.to_pylist())):
                target = (f"{relative.rsplit('/', 1)[0]}/month={month}/"
                          f"old-{number:03d}.parquet")
                (lake / target).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(rows.filter(pc.equal(months, month)), lake / target)
                tables[name].append(target)
                moved += 1
    assert lake_module.publish(lake, manifest.version + 1, "month-layout", tables)
    return moved


def test_a_lake_with_month_folders_is_read_and_compacted_into_game_folders(
        dask_lake: tuple[Path, IngestSummary], database: tuple[Path, IngestSummary],
        tmp_path: Path) -> None:
    """A lake of session 18 partitioned by game and month, some of its files then added in
    game folders (two layouts, which DuckDB's hive reading refuses to mix), reads as the
    database; a compaction moves every file into its game's folder, rows unchanged."""
    lake = tmp_path / "months"
    shutil.copytree(dask_lake[0], lake)
    assert not any("month=" in f for f in _listed_files(lake))
    assert _to_month_folders(lake, 2) > 0
    listed = _listed_files(lake)
    assert any("month=" in f for f in listed) and any(
        "month=" not in f and f.startswith("hands/game=") for f in listed)
    assert_same_tables(lake, database[0])
    result = compact(lake)
    assert result.version == 3
    compacted = _listed_files(lake)
    assert not any("month=" in f for f in compacted)
    assert {f.rsplit("/", 1)[0] for f in compacted if f.startswith("hands/")} == {
        f"hands/game={game}" for game in ("bigtwo", "rummoli", "seveneight")}
    assert_same_tables(lake, database[0])
    assert compact(lake).version is None


def test_a_compaction_stopped_before_its_commit_leaves_the_old_state(
        dask_lake: tuple[Path, IngestSummary], database: tuple[Path, IngestSummary],
        tmp_path: Path) -> None:
    """Stopped between its writes and its commit: the old version stays, its files unlisted;
    vacuum deletes those (not a listed file), and a compaction then completes."""
    lake = tmp_path / "stopped-compaction"
    shutil.copytree(dask_lake[0], lake)
    before = sorted(_listed_files(lake))

    def stop() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        compact(lake, before_commit=stop)
    assert latest_manifest(lake).version == 1 and sorted(_listed_files(lake)) == before
    orphans = {str(p.relative_to(lake)) for p in lake.glob("**/c000002-*.parquet")}
    unlisted = _unlisted_files(lake)
    assert orphans and orphans <= unlisted
    assert_same_tables(lake, database[0])
    young = vacuum(lake, keep=1)  # a day's grace: they may be a running job's
    assert young.deleted_files == 0 and young.young_files == len(unlisted)
    swept = vacuum(lake, keep=1, grace_seconds=0)
    assert swept.deleted_files == len(unlisted) and swept.kept_versions == (1,)
    assert not _unlisted_files(lake)
    assert not any(lake.glob("**/c000002-*.parquet"))
    assert all((lake / f).exists() for f in before)
    assert compact(lake).version == 2
    assert_same_tables(lake, database[0])


def test_vacuum_deletes_only_files_no_kept_manifest_lists(
        dask_lake: tuple[Path, IngestSummary], database: tuple[Path, IngestSummary],
        tmp_path: Path) -> None:
    """``handlab lake compact`` then ``handlab lake vacuum --keep N``: with 2 versions kept
    nothing listed by either goes; with 1, the small files the compaction replaced and the
    older manifest go, every file the newest lists stays, and a file outside the tables'
    folders is left alone."""
    from typer.testing import CliRunner

    from analytics.cli import app

    lake = tmp_path / "vacuumed"
    shutil.copytree(dask_lake[0], lake)
    original = set(_listed_files(lake))
    (lake / "README.txt").write_text("not the lake's", encoding="utf-8")
    compacted = CliRunner().invoke(app, ["lake", "compact", str(lake)])
    assert compacted.exit_code == 0, compacted.output
    assert latest_manifest(lake).version == 2
    current = set(_listed_files(lake))
    keep_two = CliRunner().invoke(app, ["lake", "vacuum", str(lake), "--keep", "2",
                                        "--grace-hours", "0"])
    assert keep_two.exit_code == 0, keep_two.output
    assert all((lake / f).exists() for f in original | current)
    keep_one = CliRunner().invoke(app, ["lake", "vacuum", str(lake), "--keep", "1",
                                        "--grace-hours", "0"])
    assert keep_one.exit_code == 0, keep_one.output
    assert f"deleted {len(original - current):,} files" in keep_one.output
    assert all((lake / f).exists() for f in current)
    assert not any((lake / f).exists() for f in original - current)
    assert sorted(p.name for p in (lake / MANIFEST_DIR).iterdir()) == ["v000002.json"]
    assert (lake / "README.txt").exists()
    assert_same_tables(lake, database[0])
    assert vacuum(lake, keep=1, grace_seconds=0).deleted_files == 0
    with pytest.raises(ValueError, match="at least 1"):
        vacuum(lake, keep=0)
    nowhere = CliRunner().invoke(app, ["lake", "vacuum", str(tmp_path / "typo")])
    assert nowhere.exit_code == 2 and "no lake here" in " ".join(nowhere.output.split())


# ---- last: a worker of the module's cluster killed ---------------------------------------

def test_a_worker_killed_mid_job_changes_nothing(histories: list[Path], client: Any,
                                                 database: tuple[Path, IngestSummary],
                                                 tmp_path: Path) -> None:
    """``kill -9`` of a worker process while the job's ranges run: Dask runs its task again
    elsewhere and the job ends as an undisturbed one (or fails with nothing new visible).

    On the module's cluster, and the module's last test: no test after it waits for the
    nanny to restart the killed worker (minutes on a busy machine), nor needs a cluster of
    its own started (two worker processes importing the ingest)."""
    lake = tmp_path / "killed"
    pids = sorted(client.run(os.getpid).values())
    killed = threading.Event()

    def kill_when_writing() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not any(lake.glob("hands/**/*.parquet")):
            time.sleep(0.05)
        os.kill(pids[0], signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_when_writing, daemon=True)
    killer.start()
    try:
        summary: IngestSummary | None = ingest_lake(histories, lake, engine="dask",
                                                    client=client, range_bytes=RANGE // 4)
    except distributed.scheduler.KilledWorker:  # a task that failed on every worker it tried
        summary = None
    killer.join()
    assert killed.is_set()
    if summary is None:
        assert latest_manifest(lake).version == 0
        client.wait_for_workers(1, timeout=180)  # the survivor suffices
        summary = ingest_lake(histories, lake, engine="dask", client=client,
                              range_bytes=RANGE // 4)
    assert_same_tables(lake, database[0])
    assert_same_summary(summary, database[1])
