"""The dashboard's read connection per script run (``ui.run_connection``): one open for all
the run's questions, closed when the run ends, and let go before an upload writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from analytics.dashboard import ui
from analytics.warehouse import WarehouseBusy, open_reader, writer
from analytics.warehouse.sql import views
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest


@pytest.fixture
def own_db(dashboard_db: Path, tmp_path: Path) -> Path:
    """A private copy: these tests open it for writing."""
    copy = tmp_path / "own.duckdb"
    shutil.copy(dashboard_db, copy)
    return copy


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The databases ``ui`` opens, one entry per open."""
    seen: list[str] = []

    def counting(db: Path | str | None = None, *, wait: float = 3.0
                 ) -> duckdb.DuckDBPyConnection:
        seen.append(str(db))
        return open_reader(db, wait=wait)

    monkeypatch.setattr(ui, "open_reader", counting)
    return seen


def _hands(db: Path) -> int:
    with ui.reading(str(db)) as con:
        return int(views.overview(con, views.HandFilter())["hands"].sum())


def _writable(db: Path) -> bool:
    """Whether this process can open ``db`` for writing right now (as an upload does)."""
    try:
        with writer(db, wait=0.3):
            return True
    except WarehouseBusy:
        return False


def test_questions_of_one_run_share_one_open(own_db: Path, opens: list[str]) -> None:
    with ui.run_connection():
        first, second = _hands(own_db), _hands(own_db)
        with ui.reading(str(own_db)) as con:
            version = views.data_version(con)
    assert first == second > 0
    assert version[0] > 0
    assert opens == [str(own_db)]


def test_the_run_lets_go_of_the_file_when_it_ends(own_db: Path, opens: list[str]) -> None:
    with ui.run_connection():
        _hands(own_db)
        assert not _writable(own_db)  # DuckDB: no read-write open next to a read-only one
    assert _writable(own_db)


def _failing_run(db: Path) -> None:
    with ui.run_connection():
        _hands(db)
        raise RuntimeError("a page failed")


def test_the_run_lets_go_of_the_file_when_it_fails(own_db: Path, opens: list[str]) -> None:
    with pytest.raises(RuntimeError, match="a page failed"):
        _failing_run(own_db)
    assert _writable(own_db)


def test_release_lets_an_upload_write_and_the_next_question_reopens(
        own_db: Path, opens: list[str]) -> None:
    with ui.run_connection():
        before = _hands(own_db)
        ui.release_connection()
        assert _writable(own_db)
        assert _hands(own_db) == before
    assert opens == [str(own_db), str(own_db)]


def test_outside_a_run_each_question_closes_its_own(own_db: Path) -> None:
    assert _hands(own_db) > 0
    assert _writable(own_db)
    ui.release_connection()  # no run: nothing to release, no error


def _run_version(db: Path) -> tuple[int, str, int]:
    """The data version as a script run reads it (inside its run connection)."""
    with ui.run_connection():
        return ui.data_version(str(db))


def test_the_data_version_is_asked_again_only_when_the_files_change(
        own_db: Path, opens: list[str]) -> None:
    from analytics.warehouse.pipeline.run import SAMPLES, ingest

    first = _run_version(own_db)
    assert _run_version(own_db) == first
    assert opens == [str(own_db)]  # the second run reused it: the files had not changed
    with ui.reading(str(own_db)) as con:
        assert views.data_version(con) == first
    summary = ingest([SAMPLES / "rummoli-family.phhs"], own_db, workers=1)
    assert summary.hands > 0
    loaded = _run_version(own_db)
    with ui.reading(str(own_db)) as con:
        assert loaded == views.data_version(con)
    assert loaded[0] == first[0] + 1  # one more file: every cached answer is asked again
    assert opens == [str(own_db), str(own_db)]
