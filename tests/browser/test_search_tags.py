"""Hand search and tags in real Chromium: search a hand, open it in the replayer, tag it,
reload, the tag is there (kept in DuckDB by the hand's id)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from analytics.warehouse import reader
from analytics.warehouse.sql.search import HandSearch, search_hands
from analytics.warehouse.sql.views import HandFilter
from tests.browser.conftest import SCREENSHOTS, settle

pytestmark = pytest.mark.browser


def test_search_open_tag_reload(server: str, browser_page: Any, browser_db: Path) -> None:
    page = browser_page
    page.goto(f"{server}/search?game=seveneight")
    page.get_by_role("heading", name="Hand search").first.wait_for()
    settle(page)
    page.get_by_text("All in").first.wait_for()
    with reader(browser_db) as con:
        found = search_hands(con, HandFilter(game="seveneight"),
                             search=HandSearch(all_in=True))
    # All in: yes.  The list's count changes only when the rerun the click starts is drawn
    # (the script state can still read "notRunning" just after the click).
    page.locator('[data-testid="stRadio"]', has_text="All in").get_by_text(
        "yes", exact=True).click()
    page.get_by_text(re.compile(rf"^{len(found):,} hands?\b")).first.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SCREENSHOTS / "search.png"), full_page=True)
    link = str(found["replay"].iloc[0])
    # Open it (the link the table's "open" carries), tag it, save.
    page.goto(f"{server}/{link}")
    page.get_by_role("heading", name="Hand replayer").first.wait_for()
    settle(page)
    page.locator('[data-testid="stCheckbox"]', has_text="Starred").click()
    page.get_by_label("Tags, separated by commas").fill("review, cooler")
    page.get_by_label("Note").fill("check the equity")
    page.get_by_role("button", name=re.compile("Save")).click()
    page.get_by_text("Saved.").wait_for()
    # Reload: the tag is read back from the database.
    page.reload()
    page.get_by_role("heading", name="Hand replayer").first.wait_for()
    settle(page)
    page.get_by_text(re.compile(r"Kept: ★ review, cooler")).wait_for()
    # Waited for: once (CI) the box was still empty when the caption had been drawn.
    expect(page.get_by_label("Tags, separated by commas")).to_have_value("review, cooler")
    page.screenshot(path=str(SCREENSHOTS / "replayer-tagged.png"), full_page=True)
    # And the search by tag finds it.
    with reader(browser_db) as con:
        tagged = search_hands(con, HandFilter(), search=HandSearch(tag="cooler"))
    assert list(tagged["replay"]) == [link]
