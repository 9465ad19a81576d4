"""Charts that show hands link to them, in real Chromium: a click on a bar of the Win rates
page (per player, and by position) or on a point of the Statistics page's results by hand
number lists the hands behind it, exactly those the warehouse says (the list's CSV download
read back); the screenshots saved."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analytics.warehouse import reader
from analytics.warehouse.stat_views import stat_hands
from analytics.warehouse.views import HandFilter, bar_hands
from tests.browser.conftest import SCREENSHOTS, settle

pytestmark = pytest.mark.browser


def _listed(page: Any, key: str) -> list[int]:
    """The hand ids of the list drawn under ``key`` (``hand_list.list_behind``'s key), from
    its CSV download: what the list holds, not what a chart says."""
    with page.expect_download() as download_info:
        page.locator(f".st-key-dl_{key}_csv button").first.click()
    data = Path(download_info.value.path()).read_bytes()
    return [int(h) for h in pd.read_csv(io.BytesIO(data))["hand_id"]]


def test_a_win_rate_bar_lists_its_players_hands(server: str, patient_page: Any,
                                                browser_db: Path) -> None:
    page = patient_page
    page.goto(f"{server}/win_rates")
    page.get_by_role("heading", name="Win rates").first.wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    settle(page)
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
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert len(behind) > 0
    page.get_by_text(words).first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "win-rates-bar-hands.png"), full_page=True)
    assert (SCREENSHOTS / "win-rates-bar-hands.png").stat().st_size > 10_000


def test_a_position_bar_lists_the_seats_of_that_position(server: str, patient_page: Any,
                                                         browser_db: Path) -> None:
    page = patient_page
    page.goto(f"{server}/win_rates?view=By%20position")
    page.get_by_role("heading", name="Win rates").first.wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    settle(page)
    bars = chart.locator(".barlayer .point")
    assert bars.count() >= 4
    bars.first.click(force=True)
    title = page.get_by_text(re.compile(r"^Position \d+ at \d+-player tables: [\d,]+ hands\.$"))
    title.first.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    found = re.fullmatch(r"Position (\d+) at (\d+)-player tables: ([\d,]+) hands\.",
                         str(title.first.text_content()))
    assert found is not None
    position, players, count = int(found[1]), int(found[2]), int(found[3].replace(",", ""))
    with reader(browser_db) as con:
        behind = bar_hands(con, HandFilter(game="seveneight"), source="seat_facts",
                           game="seveneight", bar=(("players", players), ("position", position)))
        # Independently: the seats of that seat number at tables of that size.
        seats = con.execute("""
            SELECT s.hand_id FROM seats s JOIN hands h USING (hand_id)
            WHERE h.game = 'seveneight' AND h.num_players = $players AND s.seat = $seat
        """, {"players": players, "seat": position}).fetchdf()
    assert count == len(behind) == len(seats) > 0
    title.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "win-rates-position-hands.png"), full_page=True)
    assert sorted(_listed(page, "bar_pos_seveneight")) == sorted(seats["hand_id"].head(500))


def test_a_results_point_by_hand_number_lists_its_hands(server: str, patient_page: Any,
                                                        browser_db: Path) -> None:
    page = patient_page
    # One player of 20 hands: a line of at most 60 points draws its points (the players of
    # 100 hands and more draw lines alone).
    page.goto(f"{server}/statistics?player=Fay")
    page.get_by_role("heading", name="Statistics").first.wait_for()
    page.locator("table.hl-stats").first.wait_for()
    settle(page)
    page.get_by_text("hand number", exact=True).first.click()
    settle(page)
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    # The first line's points (every hand of his is a point).
    points = chart.locator(".scatterlayer .trace").first.locator(".points path")
    assert points.count() >= 5
    points.nth(4).click(force=True)  # the fifth point: the player's fifth hand alone
    title = page.get_by_text(re.compile(r"^.+, hands [\d,]+ to [\d,]+: [\d,]+ hands, net "))
    title.first.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    found = re.fullmatch(r"(.+), hands ([\d,]+) to ([\d,]+): ([\d,]+) hands, net (-?[\d,]+)\.",
                         str(title.first.text_content()))
    assert found is not None
    player, first, last = found[1], int(found[2]), int(found[3])
    assert (player, first, last) == ("Fay", 5, 5)
    with reader(browser_db) as con:
        played = stat_hands(con, HandFilter(), game="seveneight", player=player,
                            order="play")
        # Independently: his hands in order of play (day, time, place in the file, id).
        mine = con.execute("""
            SELECT h.hand_id, s.net FROM seats s JOIN hands h USING (hand_id)
            WHERE h.game = 'seveneight' AND s.player = $player
            ORDER BY coalesce(h.played_on, CAST(h.loaded_at AS DATE)),
                     h.played_time NULLS LAST, h.source_index, h.hand_id
        """, {"player": player}).fetchdf()
    assert list(played["hand_id"]) == list(mine["hand_id"])
    fifth = mine.iloc[4:5]
    assert int(found[4]) == 1 and int(found[5].replace(",", "")) == int(fifth["net"].sum())
    title.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "statistics-point-hands.png"), full_page=True)
    assert _listed(page, "numbered_seveneight") == list(fifth["hand_id"])
