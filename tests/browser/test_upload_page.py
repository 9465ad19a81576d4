"""The Upload page in real Chromium says what happened (issue #27.6): a warning when some
files or hands were left out, an error when nothing loaded, every message readable in full,
a file in another format named as such.  A server of its own (its database changes)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from analytics.simulate.seveneight import simulate_seveneight
from parsers import write_hands
from tests.browser.conftest import REDUCED_MOTION, SCREENSHOTS, settle
from tests.browser.server import streamlit_server
from tests.browser.test_e2e import open_page
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs

pytestmark = pytest.mark.browser

LONG_FIELD = "the_name_of_the_" + "very_" * 40 + "long_field"

STARS = ("PokerStars Hand #254446474436:  Hold'em No Limit ($0.01/$0.02 USD) - 2024/12/01\n"
         "Table 'Aase II' 6-max Seat #3 is the button\nSeat 1: player1 ($2.00 in chips)\n")


def _alert(page: Any, kind: str) -> Any:
    """The page's alert of a kind (Warning, Error, Success, Info) once drawn."""
    alert = page.locator(f'[data-testid="stAlertContent{kind}"]').first
    alert.wait_for()
    return alert


def _upload(page: Any, server: str, files: list[Path]) -> None:
    open_page(page, f"{server}/upload", "Upload hand histories")
    page.locator('input[type="file"]').set_input_files([str(f) for f in files])
    page.get_by_text(files[-1].name).first.wait_for()
    page.get_by_role("button", name="Load into the database").click()
    page.get_by_role("heading", name="Per file").wait_for()
    settle(page)


def test_upload_summary_says_what_happened(browser_page: Any, browser_db: Path,
                                           tmp_path: Path) -> None:
    db = tmp_path / "upload.duckdb"
    shutil.copy(browser_db, db)
    # Hands of their own (the end-to-end test uploads its evening.phhs to the shared
    # database this test copies).
    good = tmp_path / "evening.phhs"
    write_hands(simulate_seveneight(25, 3, 4242), good)
    mixed = tmp_path / "mixed.phhs"
    mixed.write_text(phhs(BIGTWO, SEVENEIGHT + f"{LONG_FIELD} = 1\n"), encoding="utf-8")
    stars = tmp_path / "stars.txt"
    stars.write_text(STARS, encoding="utf-8")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The session's Chromium (one Playwright per process), a page of its own.
    context = browser_page.context.browser.new_context(reduced_motion=REDUCED_MOTION,
                                                       viewport={"width": 1400, "height": 1000})
    with streamlit_server(db, tmp_path / "streamlit.log") as server:
        try:
            page = context.new_page()
            page.set_default_timeout(60_000)

            # Some loaded, a hand rejected, a file in another format: a warning, not success.
            _upload(page, server.url, [good, mixed, stars])
            warning = _alert(page, "Warning").inner_text()
            assert re.search(r"Loaded 26 new hands, but 1 hand rejected and 1 file not read",
                             warning), warning
            assert page.locator('[data-testid="stAlertContentSuccess"]').count() == 0
            full = page.locator('[data-testid="stCode"]').first.inner_text()
            # The whole reason, however long, and the foreign file's message, readable.
            assert f"unknown field '{LONG_FIELD}'" in full
            assert "upload: stars.txt: this looks like a PokerStars hand history" in full
            assert "malformed TOML" not in page.locator("body").inner_text()
            page.screenshot(path=str(SCREENSHOTS / "upload-warning.png"), full_page=True)
            page.locator('[data-testid="stCode"]').first.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "upload-messages.png"))

            # Nothing new and nothing readable: an error, and no "every page shows" promise
            # (the page opened anew).
            _upload(page, server.url, [stars])
            error = _alert(page, "Error").inner_text()
            assert error.startswith("Nothing was loaded: 1 file not read"), error
            assert "Every page shows" not in page.locator("body").inner_text()
            page.screenshot(path=str(SCREENSHOTS / "upload-error.png"), full_page=True)
        finally:
            context.close()
