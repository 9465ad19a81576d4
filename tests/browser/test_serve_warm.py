"""The server ``handlab serve`` starts (``streamlit run serve.py``): it warms up once at start
(analytics/dashboard/startup.py), says so, and then serves the dashboard as app.py does, its
files compressed and the plotly chunk fetched once the first page has settled
(analytics/dashboard/assets.py); the Overview's chart opens on demand."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from analytics.dashboard.startup import WARM_MARK
from tests.browser.conftest import REDUCED_MOTION, SCREENSHOTS, settle
from tests.browser.server import streamlit_server
from tests.test_dashboard_data import build_dashboard_db

pytestmark = pytest.mark.browser


def test_the_served_dashboard_warms_up_then_draws_the_overview(tmp_path: Path,
                                                              chromium: Any) -> None:
    db = tmp_path / "served.duckdb"
    shutil.copy(build_dashboard_db(tmp_path / "source"), db)
    with streamlit_server(db, tmp_path / "streamlit.log", script="serve.py") as server:
        deadline = time.monotonic() + 300
        while WARM_MARK not in server.output():
            assert server.alive() and time.monotonic() < deadline, server.output()
            time.sleep(0.2)
        line = next(text for text in server.output().splitlines() if WARM_MARK in text)
        assert "modules imported" in line and "the first page run in" in line, line
        assert line.endswith("(ok)"), line
        context = chromium.new_context(reduced_motion=REDUCED_MOTION,
                                       viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(90_000)
        scripts: list[tuple[str, str | None, str | None]] = []
        page.on("response", lambda answer: scripts.append(
            (answer.url, answer.headers.get("content-encoding"),
             answer.headers.get("cache-control"))) if answer.url.endswith(".js") else None)
        try:
            page.goto(server.url)
            page.get_by_role("heading", name="Overview").first.wait_for()
            settle(page)
            label = page.locator('[data-testid="stMetricLabel"]',
                                 has_text=re.compile(r"^\s*Hands\s*$"))
            metric = page.locator('[data-testid="stMetric"]', has=label).first
            assert metric.locator('[data-testid="stMetricValue"]').inner_text() == "190"
            assert page.locator('[data-testid="stException"]').count() == 0
            page.screenshot(path=str(SCREENSHOTS / "served-overview.png"), full_page=True)
            # The players: a tab per game, the shown one drawn; another tab draws its own.
            assert page.get_by_text("7 & 8: big blinds per 100 hands").count() == 1
            assert page.get_by_text("Big Two: points per game").count() == 0
            page.get_by_role("tab", name="Big Two").click()
            page.get_by_text("Big Two: points per game").first.wait_for()
            settle(page)
            assert page.get_by_text("7 & 8: big blinds per 100 hands").count() == 0
            page.get_by_text("Big Two: points per game").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "served-overview-players.png"))
            page.get_by_role("tab", name="7 & 8").click()
            page.get_by_text("7 & 8: big blinds per 100 hands").first.wait_for()
            settle(page)
            # The first view has no chart; its JavaScript came compressed and cacheable.
            assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
            assert [(kind, cache) for _, kind, cache in scripts] == [
                ("gzip", "public, immutable, max-age=31536000")] * len(scripts)
            assert any("/static/js/index." in url for url, _, _ in scripts)
            # Once it has settled, the browser fetches plotly's chunk by itself...
            page.wait_for_function("() => performance.getEntriesByType('resource')"
                                   ".some(entry => entry.name.includes('/PlotlyChart.'))")
            # ... and the chart, opened, draws the hands over time.
            page.get_by_text("Hands over time (chart)").click()
            chart = page.locator('[data-testid="stPlotlyChart"] .main-svg').first
            chart.wait_for()
            chart.scroll_into_view_if_needed()
            assert page.locator('[data-testid="stException"]').count() == 0
            page.screenshot(path=str(SCREENSHOTS / "served-overview-chart.png"))
        finally:
            context.close()
