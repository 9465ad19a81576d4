"""The dashboard in real Chromium: open it, upload a file and see the counts change (and its
name, not a temp path, stored), open a hand in the replayer and a hand with stored
equities, download the report and read it, click a bar of the Overview, Pot accumulation,
Hand types and Win rates charts for the hands behind it (tests/browser/test_chart_hands.py's
checks, made on the pages opened here); a screenshot of every page is saved to
tests/artifacts/screenshots/ for reviewers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from analytics.warehouse import reader
from tests.browser.conftest import SCREENSHOTS, settle
from tests.browser.test_chart_hands import hand_types_bar, overview_bar, pots_bar, win_rates_bar
from tests.test_dashboard_data import extra_histories

pytestmark = pytest.mark.browser


def _hands(page: Any) -> int:
    """The Overview's "Hands" metric, once the page has settled."""
    # The label exactly: a substring match also finds "Rejected hands", which the browser
    # may have drawn first (seen on a loaded machine: the reject count read as the hands).
    label = page.locator('[data-testid="stMetricLabel"]', has_text=re.compile(r"^\s*Hands\s*$"))
    metric = page.locator('[data-testid="stMetric"]', has=label).first
    metric.wait_for()
    value = metric.locator('[data-testid="stMetricValue"]').inner_text()
    return int(value.replace(",", ""))


def open_page(page: Any, url: str, title: str) -> None:
    """Open ``url`` and wait for the page titled ``title`` to finish its script run."""
    page.goto(url)
    page.get_by_role("heading", name=title).first.wait_for()
    settle(page)


def _one(db: Path, sql: str) -> int:
    """One number from the server's database, read through ``reader``: it asks for a turn
    when the server holds the file (it keeps its write connection between recorded hands)."""
    with reader(db) as con:
        return int(con.execute(sql).fetchall()[0][0])


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_the_dashboard_end_to_end(server: str, patient_page: Any, browser_db: Path,
                                  tmp_path: Path) -> None:
    page = patient_page  # the bars of test_chart_hands.py waited 3 min a step
    open_page(page, server, "Overview")
    assert _hands(page) == 190
    _shot(page, "overview")

    # A filter in the URL is applied (a shared link opens as sent).
    open_page(page, f"{server}/?game=bigtwo", "Overview")
    page.wait_for_function("() => document.body.innerText.includes('Filters: Big Two')")
    assert _hands(page) == 30

    # Upload a new file: the counts change everywhere.
    open_page(page, f"{server}/upload", "Upload hand histories")
    extra = extra_histories(tmp_path / "evening.phhs")
    page.locator('input[type="file"]').set_input_files(str(extra))
    page.get_by_text("evening.phhs").first.wait_for()
    page.get_by_role("button", name="Load into the database").click()
    page.get_by_text(re.compile(r"Loaded 25 new hands")).wait_for()
    settle(page)
    _shot(page, "upload")
    open_page(page, server, "Overview")
    page.wait_for_function("() => !document.body.innerText.includes('Filters: Big Two')")
    assert _hands(page) == 215

    # The report of the current filters (none) downloads and holds what the page shows.
    with page.expect_download() as download_info:
        page.get_by_role("button", name=re.compile("HTML report of these filters")).click()
    report = Path(download_info.value.path()).read_text(encoding="utf-8")
    assert "<h2>Contents</h2>" in report and "<h2>Overview</h2>" in report
    assert "<h2>7 &amp; 8</h2>" in report
    assert "215 hands in 3 games" in report
    assert re.search(r"<script[^>]+src=", report) is None  # opens offline
    # A week's bar of the hands over time lists that week's hands.
    overview_bar(page, browser_db)

    # The replayer: a hand opened by its link, stepped through, cards drawn as cards.
    open_page(page, f"{server}/replayer", "Hand replayer")
    page.locator(".hl-card").first.wait_for()
    page.get_by_text(re.compile(r"Step \d+ of \d+")).wait_for()
    hand = re.search(r"hand=([0-9a-f]{16})\b", page.url)  # the short id people copy
    assert hand is not None
    cards_at_end = page.locator(".hl-card").count()
    settle(page)
    page.get_by_role("button", name="Start").click()
    page.get_by_text(re.compile(r"Step 0 of \d+")).wait_for()
    settle(page)
    page.get_by_role("button", name="Next").click()
    page.get_by_text(re.compile(r"Step 1 of \d+")).wait_for()
    assert page.locator(".hl-card").count() < cards_at_end  # one player dealt so far
    _shot(page, "replayer")

    # An uploaded hand says where it came from: the uploaded name, not a temp path.
    uploaded = _one(browser_db, "SELECT min(hand_id) FROM hands "
                                "WHERE source_file = 'upload: evening.phhs'")
    open_page(page, f"{server}/replayer?hand={uploaded}", "Hand replayer")
    page.get_by_text(re.compile(r"from upload: evening\.phhs")).first.wait_for()
    assert "handlab-upload" not in page.locator("body").inner_text()

    # A 7 & 8 hand all in with cards to come: the stored equities beside the seats.
    all_in = _one(browser_db, "SELECT min(hand_id) FROM allin_results")
    open_page(page, f"{server}/replayer?hand={all_in}", "Hand replayer")
    seats = page.locator("table.hl-seats").first
    seats.wait_for()
    assert "equity at the all-in" in seats.inner_text()
    assert re.search(r"\d+\.\d% · adjusted [+-]\d+\.\d.* vs actual [+-]\d+",
                     seats.inner_text())
    page.get_by_text(re.compile("Stored equities")).first.wait_for()
    _shot(page, "replayer-equities")
    page.get_by_role("button", name="Start").click()
    page.get_by_text(re.compile(r"Step 0 of \d+")).wait_for()
    settle(page)
    assert "vs actual" not in page.locator("table.hl-seats").first.inner_text()

    # Every other page renders without an error; a screenshot of each; then a bar of its
    # chart lists the hands behind it.
    for path, title, name, bar in (("pots", "Pot accumulation (Rummoli)", "pots", pots_bar),
                                   ("hand_types", "Hand types", "hand-types", hand_types_bar),
                                   ("win_rates", "Win rates", "win-rates", win_rates_bar)):
        open_page(page, f"{server}/{path}", title)
        page.locator(".js-plotly-plot").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        _shot(page, name)
        bar(page, browser_db)

    # Win rates (open) draws only the shown tab: a click on another runs that game's part,
    # and the URL names the tab, so the link opens it again.
    page.get_by_role("tab", name="Big Two").click()
    page.get_by_text(re.compile(r"Win rate per player \(scoring: ")).first.wait_for()
    settle(page)
    assert re.search(r"[?&]tab=Big(\+|%20)Two", page.url), page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(".js-plotly-plot").last.wait_for()
    _shot(page, "win-rates-bigtwo")

    # Big Two deals against the exact theory; Rummoli strengths against the poker pots won.
    for path, title, heading, name in (
            ("hand_types?game=bigtwo", "Hand types", "Combinations the deals hold",
             "hand-types-bigtwo"),
            ("win_rates?game=rummoli&view_rummoli=Best+hand+against+strength", "Win rates",
             "Best poker hand: realised against expected from strength",
             "win-rates-rummoli")):
        open_page(page, f"{server}/{path}", title)
        section = page.get_by_role("heading", name=heading).first
        section.wait_for()
        section.scroll_into_view_if_needed()
        page.locator(".js-plotly-plot").last.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        _shot(page, name)

    # Reviewers look at these (checked here, where they are written: the tests of a file
    # may run on different xdist workers).
    for name in ("overview", "upload", "replayer", "replayer-equities", "win-rates", "pots",
                 "hand-types", "hand-types-bigtwo", "win-rates-rummoli", "win-rates-bigtwo",
                 "overview-bar-hands", "pots-bar-hands", "hand-types-bar-hands",
                 "win-rates-bar-hands"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000
