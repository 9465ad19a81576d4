"""The dashboard on a Parquet lake (``handlab serve --lake``: ``$HANDLAB_LAKE``): the pages show
the lake's hands, and an upload goes into the lake as a job of its own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from analytics.warehouse.lake.core import latest_manifest
from analytics.warehouse.lake.engine import ingest_lake
from tests.browser.conftest import REDUCED_MOTION, SCREENSHOTS, settle
from tests.browser.server import streamlit_server
from tests.test_dashboard_data import extra_histories, write_histories

pytestmark = pytest.mark.browser


def _hands(page: Any) -> int:
    """The Overview's "Hands" metric."""
    label = page.locator('[data-testid="stMetricLabel"]', has_text=re.compile(r"^\s*Hands\s*$"))
    metric = page.locator('[data-testid="stMetric"]', has=label).first
    metric.wait_for()
    return int(metric.locator('[data-testid="stMetricValue"]').inner_text().replace(",", ""))


def _open(page: Any, url: str, title: str) -> None:
    page.goto(url)
    page.get_by_role("heading", name=title).first.wait_for()
    settle(page)


def test_the_dashboard_reads_and_loads_a_lake(tmp_path: Path, chromium: Any) -> None:
    lake = tmp_path / "lake"
    ingest_lake(write_histories(tmp_path / "histories"), lake, workers=0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # HANDLAB_DB names a file that must stay absent: every reader goes to the lake.
    unused = tmp_path / "unused.duckdb"
    with streamlit_server(unused, tmp_path / "streamlit.log",
                          env={"HANDLAB_LAKE": str(lake)}) as server:
        context = chromium.new_context(reduced_motion=REDUCED_MOTION,
                                       viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(90_000)
        try:
            _open(page, server.url, "Overview")
            assert _hands(page) == 190
            assert page.locator('[data-testid="stException"]').count() == 0
            page.screenshot(path=str(SCREENSHOTS / "lake-overview.png"), full_page=True)

            _open(page, f"{server.url}/upload", "Upload hand histories")
            extra = extra_histories(tmp_path / "evening.phhs")
            page.locator('input[type="file"]').set_input_files(str(extra))
            page.get_by_text("evening.phhs").first.wait_for()
            page.get_by_role("button", name="Load into the database").click()
            page.get_by_text(re.compile(r"Loaded 25 new hands")).wait_for()
            page.screenshot(path=str(SCREENSHOTS / "lake-upload.png"), full_page=True)

            _open(page, server.url, "Overview")
            assert _hands(page) == 215
            _open(page, f"{server.url}/win_rates", "Win rates")
            page.locator(".js-plotly-plot").first.wait_for()
            assert page.locator('[data-testid="stException"]').count() == 0
            page.screenshot(path=str(SCREENSHOTS / "lake-win-rates.png"), full_page=True)
        finally:
            context.close()
    assert latest_manifest(lake).version == 2
    assert not unused.exists()
