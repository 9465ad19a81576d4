"""The Big Two score keeper's summary in real Chromium (issue 29): a dashboard over a
warehouse holding two score sheets and a file of played games shows the summary table with
the regular players marked, the three scatter plots, and, on the Hand types page, that the
outcome-only games are left out of the deals and plays.  Screenshots go to
tests/artifacts/screenshots/ (``win-rates-bigtwo-sheets.png``, ``hand-types-bigtwo-sheets.png``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analytics.warehouse import ingest
from tests.browser.conftest import CHROMIUM, REDUCED_MOTION, ROOT, SCREENSHOTS, settle
from tests.browser.server import streamlit_server

pytestmark = pytest.mark.browser

SHEETS = ROOT / "tests" / "data" / "scoresheets"


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A dashboard over the two example sheets and the bundled Big Two club games (its URL,
    and its database, which the test only reads)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium")
    folder = tmp_path_factory.mktemp("sheets")
    db = folder / "sheets.duckdb"
    summary = ingest([SHEETS / "2023-03-03.txt", SHEETS / "simple.txt",
                      ROOT / "data" / "samples" / "bigtwo-club.phhs"], db, workers=0)
    assert summary.rejected == 0
    with streamlit_server(db, folder / "streamlit.log") as server:
        yield server.url, db


def test_score_keeper_summary_page(sheet_server: tuple[str, Path], chromium: Any) -> None:
    from analytics.warehouse import reader

    url, db = sheet_server
    with reader(db) as con:
        taker = con.execute("SELECT hand_id FROM bigtwo_scores WHERE takes_all_losses "
                            "LIMIT 1").fetchall()[0][0]

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(reduced_motion=REDUCED_MOTION,
                                   viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{url}/win_rates?game=bigtwo")
        page.get_by_role("heading", name="Score keeper's summary").first.wait_for()
        page.get_by_text("Net score per game against real losses").first.wait_for()
        settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        text = page.inner_text("body")
        assert "14 of the games are outcome-only (score sheets)" in text
        assert "s = 4(l* − l)" in text
        assert page.get_by_text("Win fraction against real losses").count() >= 1
        assert page.get_by_text("Fry fraction against real losses").count() >= 1
        page.get_by_role("heading", name="Result by deal strength").first.wait_for()
        # The tab's charts are of one scoring rule at a time: the sheets are zero_sum.
        page.get_by_role("combobox", name="Results under the scoring rule").click()
        page.get_by_role("option", name="zero_sum").click()
        page.get_by_text(re.compile(r"14 outcome-only game\(s\) \(score sheets\) record "
                                    "no deal")).first.wait_for()
        settle(page)
        page.get_by_role("heading", name="Score keeper's summary").first \
            .scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / "win-rates-bigtwo-sheets.png"),
                        full_page=True)
        page.get_by_text("Net score per game against real losses").first \
            .scroll_into_view_if_needed()
        page.mouse.wheel(0, 250)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SCREENSHOTS / "win-rates-bigtwo-sheets-scatter.png"))
        page.goto(f"{url}/hand_types?game=bigtwo")
        page.get_by_role("heading", name="Big Two").first.wait_for()
        settle(page)
        assert "14 of the Big Two games are outcome-only" in page.inner_text("body")
        assert page.locator('[data-testid="stException"]').count() == 0
        page.screenshot(path=str(SCREENSHOTS / "hand-types-bigtwo-sheets.png"),
                        full_page=True)
        # A sheet's game in the replayer: no plays, its settlement from the cards left.
        page.goto(f"{url}/replayer?hand={taker}")
        page.get_by_role("heading", name="Hand replayer").first.wait_for()
        settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        page.screenshot(path=str(SCREENSHOTS / "replayer-bigtwo-sheet.png"),
                        full_page=True)
    finally:
        context.close()


def test_report_has_the_score_keeper_section(tmp_path: Path) -> None:
    """The HTML report carries the summary table and the three scatter plots."""
    from analytics.reports import build_report, render_html
    from analytics.warehouse import reader
    from analytics.warehouse.sql.views import HandFilter

    db = tmp_path / "r.duckdb"
    ingest([SHEETS / "2023-03-03.txt"], db, workers=0)
    with reader(db) as con:
        report = build_report(con, HandFilter())
    section = next(s for s in report.sections if s.title == "Big Two score keeper")
    assert len(section.figures) == 3
    table = section.tables["bigtwo_score_keeper"]
    assert list(table["player"]) == ["L", "C", "En", "T", "Js", "table (all players)"]
    assert list(table["regular"]) == ["✓", "✓", "✓", "✓", "", "✓"]
    html = render_html(report)
    assert "Big Two score keeper" in html and "Net score per game against real losses" in html
