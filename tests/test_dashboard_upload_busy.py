"""The Upload page when another writer holds the database as the Load button is pressed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analytics.dashboard import ui
from analytics.warehouse import ENV_VAR, WarehouseBusy
from tests.test_dashboard_app import count_rows, open_app
from tests.test_dashboard_data import dashboard_db, extra_histories

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest


def test_a_press_the_busy_notice_cuts_short_loads_on_its_rerun(
        dashboard_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI ingest holding the database when the run of a Load press starts: the run stops
    at the busy notice before the page is drawn, and the notice's rerun loads the files
    (Streamlit's button is true on the pressed run only: the press is kept by its callback)."""
    db = tmp_path / "own.duckdb"
    shutil.copy(dashboard_db, db)
    monkeypatch.setenv(ENV_VAR, str(db))
    monkeypatch.setattr("analytics.dashboard.ui._RETRY_SECONDS", 0.0)
    at = open_app("upload")
    at.file_uploader(key="upload_files").set_value(
        ("more.phhs", extra_histories(tmp_path / "more.phhs").read_bytes(),
         "application/octet-stream"))
    at.run()
    real = ui.data_version
    held = ["by a CLI ingest"]

    def version_once_busy(path: str) -> tuple[int, str, int]:
        if held:
            raise WarehouseBusy(held.pop())
        return real(path)

    monkeypatch.setattr(ui, "data_version", version_once_busy)
    at.button(key="upload_go").click().run()
    if not at.dataframe:  # the notice's rerun, if this AppTest did not make it
        at.run()
    assert not held and not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["file"]) == ["upload: more.phhs"]
    assert list(table["loaded"]) == [25]
    assert count_rows(db, "SELECT count(*) FROM hands "
                          "WHERE source_file = 'upload: more.phhs'") == 25
    at.run()  # a later run loads nothing again
    assert count_rows(db, "SELECT count(*) FROM files WHERE path = 'upload: more.phhs'") == 1


def test_the_busy_notice_says_what_happens_and_keeps_the_details_small(
        dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice is one plain sentence; DuckDB's message (a path, a process id, a link)
    follows in small print rather than inside it."""
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    monkeypatch.setattr("analytics.dashboard.ui._MAX_RETRIES", 0)  # the button, no rerun
    detail = (f"{dashboard_db} is being written by another process; try again in a moment "
              "(IO Error: Could not set lock on file: Conflicting lock is held in python)")

    def busy(path: str) -> tuple[int, str, int]:
        raise WarehouseBusy(detail)

    monkeypatch.setattr(ui, "data_version", busy)
    at = open_app("overview")
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == [
        "The database is busy: an ingest is writing to it. Retrying in 2 s…"]
    assert f"Details: {ui.literal(detail)}" in [c.value for c in at.caption]  # as written
    assert [b.label for b in at.button] == ["Retry now"]
