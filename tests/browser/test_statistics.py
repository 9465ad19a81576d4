"""The Statistics page in real Chromium: the grid draws, a header's tooltip is its
definition, a cell's tooltip its interval; the page's screenshot is saved."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from analytics.dashboard import statistics
from analytics.stats import stats_of
from analytics.warehouse import reader
from analytics.warehouse.identity import hand_id_hex, parse_hand_id
from analytics.warehouse.sql.search import describe_hands
from analytics.warehouse.sql.stat_views import player_sessions, stat_hands
from analytics.warehouse.sql.views import HandFilter
from tests.browser.conftest import SCREENSHOTS, settle

pytestmark = pytest.mark.browser


def test_statistics_page_in_the_browser(server: str, browser_page: Any,
                                        browser_db: Path) -> None:
    page = browser_page
    page.goto(f"{server}/statistics")
    page.get_by_role("heading", name="Statistics").first.wait_for()
    table = page.locator("table.hl-stats").first
    table.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    vpip = stats_of("seveneight")[0]
    header = table.locator("th", has_text=re.compile(r"^VPIP$"))
    assert header.get_attribute("title") == vpip.words
    cell = table.locator("tbody tr").first.locator("td").nth(1)
    assert re.fullmatch(r"\d+/\d+ \(\d+%\)", cell.inner_text())
    assert (cell.get_attribute("title") or "").startswith("95% interval")
    cell.hover()
    page.screenshot(path=str(SCREENSHOTS / "statistics.png"), full_page=True)
    assert (SCREENSHOTS / "statistics.png").stat().st_size > 10_000
    # The results over time below the grid: four lines per player (7 & 8).
    page.get_by_role("heading", name="Results over time").first.scroll_into_view_if_needed()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    chart.scroll_into_view_if_needed()
    assert chart.locator(".scatterlayer .trace").count() >= 4
    page.screenshot(path=str(SCREENSHOTS / "statistics-results.png"), full_page=True)
    # The cell links to the hands behind it: a click lists them, counted of opportunities.
    player = table.locator("tbody tr").first.locator("td").first.inner_text()
    with reader(browser_db) as con:
        behind = stat_hands(con, HandFilter(), game="seveneight", player=player, stat="vpip")
        listed = describe_hands(con, behind["hand_id"].head(500).tolist())
    cell.locator("a").click()
    words = (f"{player}, VPIP: {int(behind['counted'].sum())} counted of "
             f"{int(behind['opportunities'].sum())} opportunities")
    assert cell.inner_text().startswith(f"{int(behind['counted'].sum())}/{len(behind)}")
    page.get_by_text(words).first.wait_for()
    settle(page)
    assert "cell_stat_seveneight=VPIP" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text(words).first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "statistics-cell-hands.png"), full_page=True)
    # The sessions of the page, shown.
    page.get_by_role("heading", name="Sessions").first.scroll_into_view_if_needed()
    page.get_by_text("Show the sessions").first.click()
    settle(page)
    page.get_by_text(re.compile("A gap longer than")).first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    with reader(browser_db) as con:
        first = statistics.sessions_table(player_sessions(con, HandFilter(),
                                                          game="seveneight"), "seveneight")
    link = str(first["replay"].iloc[0])
    # The cell's first hand opens in the replayer (the link the list's "open" carries) ...
    page.goto(f"{server}/{listed['replay'].iloc[0]}")
    page.get_by_role("heading", name="Hand replayer").first.wait_for()
    page.get_by_text(re.compile(r"Step \d+ of \d+")).wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    # The player's name comes with the hand's tables, which may draw after the step line
    # (under load, once, not yet there when the page had settled).
    page.wait_for_function("name => document.documentElement.outerHTML.includes(name)",
                           arg=player)
    # ... and a session's link its first hand, by the hex id.
    page.goto(f"{server}/{link}")
    page.get_by_role("heading", name="Hand replayer").first.wait_for()
    page.get_by_text(re.compile(r"Step \d+ of \d+")).wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    hand = parse_hand_id(link.rsplit("=", 1)[1])
    assert hand is not None and f"hand={hand_id_hex(hand)}" in page.url
