"""Charts that show hands link to them, in real Chromium: a click on a bar of the Win rates
page lists the hands behind it, as many as the warehouse says; the screenshot saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analytics.warehouse import reader
from analytics.warehouse.stat_views import stat_hands
from analytics.warehouse.views import HandFilter
from tests.browser.conftest import SCREENSHOTS

pytestmark = pytest.mark.browser


@pytest.fixture
def patient_page(browser_page: Any) -> Iterator[Any]:
    """The shared page, waiting up to 3 minutes a step (a plotly page on the shared
    machine's busiest minutes took over one), as before afterwards."""
    browser_page.set_default_timeout(180_000)
    try:
        yield browser_page
    finally:
        browser_page.set_default_timeout(60_000)


def _settle(page: Any) -> None:
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state') === 'notRunning'")


def test_a_win_rate_bar_lists_its_players_hands(server: str, patient_page: Any,
                                                browser_db: Path) -> None:
    page = patient_page
    page.goto(f"{server}/win_rates")
    page.get_by_role("heading", name="Win rates").first.wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    _settle(page)
    bars = chart.locator(".barlayer .point")
    assert bars.count() >= 2
    # The first bar is the first player of the chart (the rows in the page's order).
    player = str(chart.locator(".xaxislayer-above .xtick text").first.text_content())
    with reader(browser_db) as con:
        behind = stat_hands(con, HandFilter(game="seveneight"), game="seveneight",
                            player=player)
    bars.first.click(force=True)  # plotly's drag layer lies over the bars
    words = f"{player}: {len(behind):,} hands."
    page.get_by_text(words).first.wait_for()
    _settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert len(behind) > 0
    page.get_by_text(words).first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "win-rates-bar-hands.png"), full_page=True)
    assert (SCREENSHOTS / "win-rates-bar-hands.png").stat().st_size > 10_000
