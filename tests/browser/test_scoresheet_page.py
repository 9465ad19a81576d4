"""The Big Two score keeper's summary in the HTML report (issue 29).  The page itself, in
real Chromium, is walked by tests/browser/test_served_dashboard.py (part 2), on the server
that also checks the Upload page: a server of its own cost ~8 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from analytics.warehouse import ingest
from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser

SHEETS = ROOT / "tests" / "data" / "scoresheets"


def test_report_has_the_score_keeper_section(tmp_path: Path) -> None:
    """The HTML report carries the summary table and the three scatter plots."""
    from analytics.dashboard import logic
    from analytics.reports import build_report, render_html
    from analytics.warehouse import reader
    from analytics.warehouse.sql.views import HandFilter

    db = tmp_path / "r.duckdb"
    ingest([SHEETS / "2023-03-03.txt"], db, workers=0)
    with reader(db) as con:
        report = build_report(con, HandFilter())
    section = next(s for s in report.sections if s.title == "Big Two score keeper")
    assert len(section.figures) == 3
    table = section.tables["Score keeper's summary"]
    assert list(table["player"]) == ["L", "C", "En", "T", "Js", logic.TABLE_ROW]
    assert list(table["regular"]) == ["✓", "✓", "✓", "✓", "", "✓"]
    # The last row adds up the players' games (a game once per player in it), as its name
    # says: it was "table", with every game counted once per player.
    games = logic.SCORE_KEEPER_HEADERS["game_count"]
    players, everyone = table.iloc[:-1], table.iloc[-1]
    assert everyone[games] == players[games].sum()
    with reader(db) as con:
        played = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
    assert everyone[logic.SCORE_KEEPER_HEADERS["win_count"]] <= played < everyone[games]
    assert "table" not in logic.TABLE_ROW and logic.TABLE_ROW_NOTE in section.text
    html = render_html(report)
    assert "Big Two score keeper" in html and "Net score per game against real losses" in html
