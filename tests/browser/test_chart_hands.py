"""Charts that show hands link to them, in real Chromium: a click on a bar of the Win rates
page (per player, and by position), of the Overview, Hand types and Pot accumulation pages,
or on a point of the Statistics page's results by hand number lists the hands behind it,
exactly those the warehouse says (the list's CSV download read back); the screenshots
saved.  The bars of the pages tests/browser/test_e2e.py opens anyway (Overview, Pot
accumulation, Hand types, Win rates) are clicked there, by the functions here (``*_bar``):
opening a page again cost a second or two a page."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from analytics.warehouse import reader
from analytics.warehouse.sql.stat_views import stat_hands
from analytics.warehouse.sql.views import HandFilter, bar_hands, pot_streak_hands
from analytics.words import counted
from tests.browser.conftest import SCREENSHOTS, rerun, settle

pytestmark = pytest.mark.browser

__all__ = ["hand_types_bar", "overview_bar", "pots_bar", "win_rates_bar"]


def _listed(page: Any, key: str) -> list[int]:
    """The hand ids of the list drawn under ``key`` (``hand_list.list_behind``'s key), from
    its CSV download: what the list holds, not what a chart says."""
    return [int(h) for h in _listed_rows(page, key)["hand_id"]]


def _listed_rows(page: Any, key: str) -> pd.DataFrame:
    """The rows of the list drawn under ``key``, as its CSV download gives them."""
    with page.expect_download() as download_info:
        page.locator(f".st-key-dl_{key}_csv button").first.click()
    return pd.read_csv(io.BytesIO(Path(download_info.value.path()).read_bytes()))


def win_rates_bar(page: Any, db: Path) -> None:
    """On the Win rates page (open, its chart drawn): a player's bar lists his hands."""
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    settle(page)
    bars = chart.locator(".barlayer .point")
    assert bars.count() >= 2
    # The first bar is the first player of the chart (the rows in the page's order).
    player = str(chart.locator(".xaxislayer-above .xtick text").first.text_content())
    with reader(db) as con:
        behind = stat_hands(con, HandFilter(game="seveneight"), game="seveneight",
                            player=player)
    bars.first.click(force=True)  # plotly's drag layer lies over the bars
    words = f"{player}: {counted(len(behind), 'hand')}."
    page.get_by_text(words).first.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert len(behind) > 0
    # A win rate's bar lists each hand with its net; a statistic's counts would mean
    # nothing there.
    rows = _listed_rows(page, "bar_players_seveneight")
    assert sorted(rows["hand_id"]) == sorted(behind["hand_id"])
    assert "net (chips)" in rows.columns and not {"counted", "opportunities"} & set(rows.columns)
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
    found = _clicked_title(page, bars.first, r"Position (\d+) at (\d+)-player tables")
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
    page.locator('[data-testid="stRadio"]').get_by_text("hand number", exact=True).click()
    chart = page.locator(".js-plotly-plot").first
    # The first line's points (every hand of his is a point; by date his 20 hands are one
    # day's point, so a fifth point means the chart by hand number is drawn).
    points = chart.locator(".scatterlayer .trace").first.locator(".points path")
    points.nth(4).wait_for(state="attached")
    settle(page)
    chart.scroll_into_view_if_needed()
    points.nth(4).click(force=True)  # the fifth point: the player's fifth hand alone
    title = page.get_by_text(re.compile(r"^.+, hands? [\d,]+( to [\d,]+)?: [\d,]+ hands?, "
                                        r"-?[\d,.]+ big blinds \(net "))
    title.first.wait_for()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    found = re.fullmatch(r"(.+), hand ([\d,]+): ([\d,]+) hand, (-?[\d,.]+) big blinds "
                         r"\(net (-?[\d,]+) chips\)\.", str(title.first.text_content()))
    assert found is not None
    player, number = found[1], int(found[2])
    assert (player, number) == ("Fay", 5)
    with reader(browser_db) as con:
        played = stat_hands(con, HandFilter(), game="seveneight", player=player,
                            order="play")
        # Independently: his hands in order of play (day, time, place in the file, id).
        mine = con.execute("""
            SELECT h.hand_id, s.net, s.net / coalesce(h.small_bet, h.min_bet) AS blinds
            FROM seats s JOIN hands h USING (hand_id)
            WHERE h.game = 'seveneight' AND s.player = $player
            ORDER BY coalesce(h.played_on, CAST(h.loaded_at AS DATE)),
                     h.played_time NULLS LAST, h.source_index, h.hand_id
        """, {"player": player}).fetchdf()
    assert list(played["hand_id"]) == list(mine["hand_id"])
    fifth = mine.iloc[4:5]
    assert int(found[3]) == 1 and int(found[5].replace(",", "")) == int(fifth["net"].sum())
    assert found[4] == f"{float(fifth['blinds'].sum()):,.2f}"  # the chart's unit
    title.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "statistics-point-hands.png"), full_page=True)
    assert _listed(page, "numbered_seveneight") == list(fifth["hand_id"])


def _tallest(bars: Any) -> Any:
    """The tallest of ``bars`` (a short bar is a few pixels a click can miss)."""
    heights = [(bars.nth(at).bounding_box() or {"height": 0})["height"]
               for at in range(bars.count())]
    return bars.nth(heights.index(max(heights)))


def _clicked_title(page: Any, bar: Any, pattern: str) -> re.Match[str]:
    """Click ``bar`` and read the title its list opens with ("...: N hands."), once the page
    has settled.  A click that lands while the page still runs (the busy machine's minutes)
    selects nothing: it is tried again, up to three times."""
    title = page.get_by_text(re.compile(f"^{pattern}: [\\d,]+ hands?( \\([\\d,]+ seats?\\))?\\.$"))
    error = page.locator('[data-testid="stException"]')
    for attempt in range(3):
        settle(page)
        bar.click(force=True)  # plotly's drag layer lies over the bars
        try:
            title.first.or_(error.first).wait_for(timeout=90_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    settle(page)
    assert error.count() == 0, error.first.inner_text()
    found = re.fullmatch(f"{pattern}: ([\\d,]+) hands(?: \\(([\\d,]+) seats\\))?\\.",
                         str(title.first.text_content()))
    assert found is not None
    title.first.scroll_into_view_if_needed()
    return found


def overview_bar(page: Any, db: Path) -> None:
    """On the Overview (open, settled): a week's bar, its first day read from the axis as
    plotly gives it, lists that week's hands."""
    page.get_by_text("Hands over time (chart)").click()  # the chart opens on demand
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    settle(page)
    found = _clicked_title(page, chart.locator(".barlayer .point").first,
                           r"(7 & 8|Big Two|Rummoli), the week of (\d{4}-\d\d-\d\d)")
    game = {"7 & 8": "seveneight", "Big Two": "bigtwo", "Rummoli": "rummoli"}[found[1]]
    with reader(db) as con:
        week = con.execute("""
            SELECT hand_id FROM hands WHERE game = $game
            AND date_trunc('week', coalesce(played_on, CAST(loaded_at AS DATE)))
                = CAST($first AS DATE)""", {"game": game, "first": found[2]}).fetchdf()
    assert int(found[3].replace(",", "")) == len(week) > 0
    assert sorted(_listed(page, "bar_over_time")) == sorted(week["hand_id"])
    page.screenshot(path=str(SCREENSHOTS / "overview-bar-hands.png"), full_page=True)


def hand_types_bar(page: Any, db: Path) -> None:
    """On the Hand types page (open): a category of 7 & 8's first two cards (its words on
    the axis) lists the hands of its seats."""
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    settle(page)
    found = _clicked_title(page, chart.locator(".barlayer .point").first,
                           r"7 & 8: first two cards dealt \(every player\): ([a-z ]+)")
    with reader(db) as con:
        seats = con.execute("""
            SELECT hand_id FROM seat_facts WHERE game = 'seveneight'
            AND dealt_two_category = $label""",
                            {"label": found[1].replace(" ", "_")}).fetchdf()
    hands = set(seats["hand_id"])  # a hand with two such seats is listed once
    assert int(found[2].replace(",", "")) == len(hands) > 0
    assert int(found[3].replace(",", "")) == len(seats)  # the bar counts seats
    assert sorted(_listed(page, "bar_seveneight-two")) == sorted(hands)
    page.screenshot(path=str(SCREENSHOTS / "hand-types-bar-hands.png"), full_page=True)


def pots_bar(page: Any, db: Path) -> None:
    """On the Pot accumulation page (open): its carry-over part shown, a bar of the streaks'
    chart (the part's first) lists the rounds of that streak."""
    rerun(page, page.get_by_role("radio", name="Carry-over streaks and growth").click)
    page.get_by_text("Carry-over: rounds since the pot was last won").first.wait_for()
    settle(page)
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    found = _clicked_title(page, _tallest(chart.locator(".barlayer .point")),
                           r"The (\w+) pot carried over (\d+) rounds")
    with reader(db) as con:
        rounds = pot_streak_hands(con, HandFilter(), pot=found[1], since=int(found[2]))
    assert int(found[3].replace(",", "")) == len(rounds) > 0
    assert sorted(_listed(page, "bar_streaks")) == sorted(rounds["hand_id"].head(500))
    page.screenshot(path=str(SCREENSHOTS / "pots-bar-hands.png"), full_page=True)
