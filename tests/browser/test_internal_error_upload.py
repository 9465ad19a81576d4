"""The Upload page when handlab has a bug for one hand: the page stays up, says the hand was
rejected and that the others loaded (issue #26, defect 1).

A private server starts with the planted bug of tests/planted_bug/sitecustomize.py on its
PYTHONPATH (its engine raises ValueError for a hand whose table is ``planted bug``); a
file holding such a hand and good ones, and a good file, are uploaded together.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from analytics.warehouse.connection import WriterLease
from analytics.warehouse.pipeline.errorlog import error_log_path
from tests.browser.conftest import REDUCED_MOTION, ROOT, SCREENSHOTS, settle
from tests.browser.server import streamlit_server
from tests.test_internal_errors import PLANTED, files

pytestmark = pytest.mark.browser


def test_upload_with_a_hand_that_meets_a_bug(tmp_path: Path, chromium: Any) -> None:
    bad, good, _ = files(tmp_path / "in")
    db = tmp_path / "upload.duckdb"
    with WriterLease(db):
        pass  # an empty warehouse (the server would otherwise build one from the samples)
    env = {"PYTHONPATH": os.pathsep.join([str(PLANTED), str(ROOT)]),
           "HANDLAB_PLANTED_BUG": "1"}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with streamlit_server(db, tmp_path / "streamlit.log", env=env) as server:
        context = chromium.new_context(reduced_motion=REDUCED_MOTION,
                                       viewport={"width": 1400, "height": 1100})
        try:
            page = context.new_page()
            page.set_default_timeout(180_000)
            page.goto(f"{server.url}/upload")
            page.get_by_role("heading", name="Upload hand histories").first.wait_for()
            settle(page)
            page.locator('input[type="file"]').set_input_files([str(bad), str(good)])
            page.get_by_text("good.phhs").first.wait_for()
            page.get_by_role("button", name="Load into the database").click()
            page.get_by_text(re.compile(r"Loaded 11 new hands, but 1 hand rejected")
                             ).wait_for()
            page.get_by_text("Rejected hands").first.wait_for()
            settle(page)
            # Both tables drawn (the per-file summary and the rejected hands): their grids.
            page.wait_for_function("() => document.querySelectorAll("
                                   "'[data-testid=\"stDataFrame\"] canvas').length >= 2")
            page.screenshot(path=str(SCREENSHOTS / "upload-internal-error.png"), full_page=True)
            assert page.locator('[data-testid="stException"]').count() == 0
            assert "Traceback" not in page.locator("body").inner_text()
        finally:
            context.close()
        assert server.alive()
        assert "Traceback" not in server.output()
    with duckdb.connect(str(db), read_only=True) as con:
        stages = con.execute("SELECT file, hand_index, stage, error FROM rejects").fetchall()
        files_rows = con.execute("SELECT path, status, loaded, rejected FROM files "
                                 "ORDER BY path").fetchall()
    ((file, index, stage, error),) = stages
    assert (file, index, stage) == ("upload: bad.phhs", 3, "internal")
    assert "internal error: ValueError: planted bug" in error
    assert files_rows == [("upload: bad.phhs", "partial", 5, 1),
                          ("upload: good.phhs", "loaded", 6, 0)]
    assert "ValueError: planted bug" in error_log_path(db).read_text(encoding="utf-8")
