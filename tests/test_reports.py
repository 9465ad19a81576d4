"""Exports: tables as CSV/XLSX/Parquet, the self-contained HTML report, ``handlab report``."""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from typer.testing import CliRunner

from analytics import reports
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.warehouse import ingest
from analytics.warehouse.sql.views import HandFilter
from parsers import write_hands
from parsers.rule_options import BigTwoRules, Straights
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]

FRAME = pd.DataFrame({"player": ["Ann", "Bo"], "net": [12, -12],
                      "mean": [1.5, None], "day": pd.to_datetime(["2026-01-01", "2026-01-02"])})


def _xlsx(data: bytes) -> tuple[list[str], str]:
    """Sheet names and all text of a workbook, read as the zip of XML it is (no openpyxl)."""
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        workbook = book.read("xl/workbook.xml").decode("utf-8")
        text = " ".join(book.read(name).decode("utf-8") for name in book.namelist()
                        if name.endswith(".xml"))
    return re.findall(r'<sheet name="([^"]+)"', workbook), text


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_tables_round_trip_through_every_format(fmt: str) -> None:
    data = reports.table_bytes(FRAME, fmt)
    if fmt == "csv":
        back = pd.read_csv(io.BytesIO(data), parse_dates=["day"])
    else:
        back = pd.read_parquet(io.BytesIO(data))
    assert list(back["player"]) == ["Ann", "Bo"]
    assert list(back["net"]) == [12, -12]
    assert back["mean"].isna().tolist() == [False, True]
    with pytest.raises(ValueError, match="unknown table format"):
        reports.table_bytes(FRAME, "pdf")


def test_xlsx_holds_the_table() -> None:
    sheets, text = _xlsx(reports.table_bytes(FRAME, "xlsx"))
    assert sheets == ["data"]
    assert "Ann" in text and "player" in text


HOSTILE = pd.DataFrame({"player": ["=1+2", "+SUM(A1)", "-2+3", "@cmd", "Bo", "\t=1",
                                   "http://example.com"],
                        "net": [-5, 3, 0, 1, 1, 0, 0]})
"""Player names a spreadsheet would run as formulas or turn into links."""


def test_csv_keeps_text_that_starts_a_formula_as_text() -> None:
    """A name that begins with = + - @ (or a tab) gets a leading quote in CSV, which a
    spreadsheet shows as the text; other names and the numbers (-5 too) as they are."""
    back = pd.read_csv(io.BytesIO(reports.table_bytes(HOSTILE, "csv")))
    assert back["player"].tolist() == ["'=1+2", "'+SUM(A1)", "'-2+3", "'@cmd", "Bo", "'\t=1",
                                       "http://example.com"]
    assert back["net"].tolist() == [-5, 3, 0, 1, 1, 0, 0]


def test_csv_opens_with_a_byte_order_mark_for_spreadsheets() -> None:
    """Without the mark Excel reads UTF-8 as Windows-1252 (``Zoë`` as ``ZoÃ«``); readers
    that know UTF-8 take the mark as such, not as part of the first header."""
    data = reports.table_bytes(pd.DataFrame({"player": ["Zoë", "李小龙"], "net": [1, -1]}),
                               "csv")
    assert data.startswith(b"\xef\xbb\xbfplayer,net")
    assert data.decode("utf-8-sig").splitlines() == ["player,net", "Zoë,1", "李小龙,-1"]
    assert pd.read_csv(io.BytesIO(data)).columns.tolist() == ["player", "net"]


def test_xlsx_writes_every_text_as_a_string_cell() -> None:
    """No formula (``<f>``) and no link in the workbook: each name is a shared string."""
    data = reports.table_bytes(HOSTILE, "xlsx")
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        sheet = book.read("xl/worksheets/sheet1.xml").decode("utf-8")
        strings = book.read("xl/sharedStrings.xml").decode("utf-8")
        assert not [name for name in book.namelist() if "rels" in name and "sheet1" in name]
    assert "<f>" not in sheet and "hyperlink" not in sheet
    assert all(name in strings for name in ("=1+2", "+SUM(A1)", "@cmd", "http://example.com"))


def test_workbook_sheet_names_are_valid_and_unique() -> None:
    data = reports.tables_xlsx({"a/b": FRAME, "A/B": FRAME, "x" * 40: FRAME,
                                "The nine pots: how often won, and by whom": FRAME,
                                "Score by 2s held (scoring cards_with_twos)": FRAME})
    sheets, text = _xlsx(data)
    assert len(sheets) == len({s.lower() for s in sheets}) == 6
    assert all(len(name) <= 31 and not set("[]:*?/\\") & set(name) for name in sheets)
    # A long title is cut at a word, not in one: what a person reads on the tab.
    assert sheets[4:] == ["The nine pots - how often won…", "Score by 2s held (scoring…"]
    # The first sheet names each sheet's table in full.
    assert sheets[0] == "contents"
    assert "The nine pots: how often won, and by whom" in text
    assert "Score by 2s held (scoring cards_with_twos)" in text


def _report(db: Path, hand_filter: HandFilter) -> reports.Report:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return reports.build_report(con, hand_filter, title="Test <report>")
    finally:
        con.close()


def _report_html(db: Path, hand_filter: HandFilter) -> str:
    return reports.render_html(_report(db, hand_filter))


@pytest.fixture(scope="module")
def whole_report(dashboard_db: Path) -> tuple[reports.Report, str]:
    """The report of every hand of ``dashboard_db`` and its HTML, built once for the tests
    that read it (about a second each)."""
    report = _report(dashboard_db, HandFilter())
    return report, reports.render_html(report)


def test_html_report_is_self_contained(whole_report: tuple[reports.Report, str]) -> None:
    html = whole_report[1]
    assert html.startswith("<!DOCTYPE html>")
    assert "Test &lt;report&gt;" in html  # escaped
    assert re.search(r"<script[^>]+src=", html) is None  # nothing fetched from the network
    assert "<link" not in html
    assert html.count("plotly.js v") >= 1 or "Plotly" in html  # the library is inline
    assert html.count('class="plotly-graph-div"') >= 8
    for heading in ("Contents", "Overview", "7 &amp; 8", "Big Two", "Rummoli"):
        assert f"<h2>{heading}</h2>" in html


def test_html_tables_have_no_column_of_their_columns_name(
        whole_report: tuple[reports.Report, str]) -> None:
    """Rummoli's "Result by part" table drew an extra first column headed "part" (its
    columns' name), empty in every row, and its left-aligned columns were one off."""
    html = whole_report[1]
    bodies = re.findall(r"<tbody>(.*?)</tbody>", html, flags=re.DOTALL)
    assert "Result by part" in html and len(bodies) > 10
    assert not [body for body in bodies if "<th" in body]


def test_the_report_says_what_went_in_whatever_the_filter(
        dashboard_db: Path, whole_report: tuple[reports.Report, str]) -> None:
    """The report's last section lists every file loaded and the rejected hand, as the
    Overview does, under a filter too (files and rejects follow none)."""
    con = duckdb.connect(str(dashboard_db), read_only=True)
    try:
        files = con.execute("SELECT path, status, rejected FROM files").fetchall()
        for report in (whole_report[0], reports.build_report(
                con, HandFilter(game="bigtwo", players=("Cy",)))):
            section = report.sections[-1]
            assert section.title == "Files and data quality"
            listed = section.tables["Files loaded"]
            assert sorted(listed["full path"]) == sorted(path for path, _, _ in files)
            assert int(listed["rejected"].sum()) == sum(n for _, _, n in files) == 1
            rejected = section.tables["Rejected hands"]
            assert list(rejected["game"]) == ["7 & 8"] and list(rejected["line"]) == [12]
            assert "p9" in rejected["reason"].iloc[0]
            assert ":12: hand" not in rejected["reason"].iloc[0]  # said by its own columns
    finally:
        con.close()


def test_html_report_has_the_stored_equities(whole_report: tuple[reports.Report, str]) -> None:
    report, html = whole_report
    tables = report.tables()
    for name in ("Best-hand share against strength", "Calibration of the strength",
                 "By 2s held (scoring: cards left)", "What the deals hold against theory"):
        assert not tables[name].empty, name
    titles = [figure.layout.title.text for figure in reports.figures_of(report)]
    assert any("realised against expected" in t for t in titles)
    assert any("Calibration" in t for t in titles)
    assert any("holding each kind" in t for t in titles)
    held = tables["What the deals hold against theory"]
    assert held["exact share (%)"].between(0, 100).all()
    assert "<h2>Rummoli</h2>" in html


def test_each_held_chart_is_of_one_deal_size_and_one_set_of_rules(tmp_path: Path) -> None:
    """What a deal holds depends on the rules for straights (and four-card plays): the
    report draws one chart per size and rules, as the Hand types page does, never two
    rules' shares of the same kind side by side in one chart."""
    histories = tmp_path / "bigtwo.phhs"
    write_hands([*simulate_bigtwo(12, 4, 31),
                 *simulate_bigtwo(12, 4, 32, rules=BigTwoRules(straights=Straights.VIETNAMESE))],
                histories)
    db = tmp_path / "held.duckdb"
    ingest([histories], db, workers=0)
    con = duckdb.connect(str(db), read_only=True)
    try:
        report = reports.build_report(con, HandFilter())
    finally:
        con.close()
    held = [figure for figure in reports.figures_of(report)
            if "holding each kind" in figure.layout.title.text]
    assert sorted(figure.layout.title.text for figure in held) == [
        "Big Two: deals holding each kind (13-card deals, Singapore and Hong Kong straights)",
        "Big Two: deals holding each kind (13-card deals, Vietnamese straights (3-7 up to T-A"
        " only))"]
    for figure in held:
        kinds = list(figure.data[0].x)
        assert len(kinds) == len(set(kinds)), figure.layout.title.text


def test_html_report_follows_the_filter(dashboard_db: Path) -> None:
    html = _report_html(dashboard_db, HandFilter(game="bigtwo"))
    assert "Filters: Big Two" in html and "bigtwo" not in html.split("<h2>")[0]
    assert "<h2>Big Two</h2>" in html and "<h2>Rummoli</h2>" not in html
    assert "<h2>7 &amp; 8</h2>" not in html
    assert "30 hands in 1 game." in html


def test_cli_writes_every_format(dashboard_db: Path, tmp_path: Path) -> None:
    from analytics.cli import app

    runner = CliRunner()
    for name in ("r.html", "r.xlsx", "r.csv", "r.parquet"):
        result = runner.invoke(app, ["report", "--db", str(dashboard_db), "--game",
                                     "seveneight", "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    players = pd.read_csv(tmp_path / "r.csv")
    assert set(players["game"]) == {"seveneight"}
    assert {"ci_low", "ci_high"} <= set(players.columns)
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(players)
    sheets, _ = _xlsx((tmp_path / "r.xlsx").read_bytes())
    assert "Hands by game" in sheets and "Win rates (big blinds per 100…" in sheets
    assert "Filters: 7 &amp; 8" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_cli_filters_by_player_and_table(dashboard_db: Path, tmp_path: Path) -> None:
    from analytics.cli import app

    con = duckdb.connect(str(dashboard_db), read_only=True)
    player = con.execute("SELECT min(player) FROM seats WHERE game = 'rummoli'").fetchall()[0][0]
    con.close()
    out = tmp_path / "sessions.csv"
    result = CliRunner().invoke(app, ["report", "--db", str(dashboard_db), "--player", player,
                                      "--table", "sessions", "--out", str(out)])
    assert result.exit_code == 0, result.output
    sessions = pd.read_csv(out)
    assert len(sessions) > 0 and "session" in sessions.columns


@pytest.mark.parametrize(("arguments", "message"), [
    (["--out", "r.txt"], "use .html"),
    (["--out", "r.csv", "--table", "secrets"], "unknown table"),
    (["--out", "r.html", "--knob", "nonsense"], "name=value"),
    (["--out", "r.html", "--knob", "evil=1"], "unknown house rule"),
    (["--out", "r.html", "--rule", "evil=1"], "unknown house rule"),
    (["--out", "r.html", "--from", "yesterday"], "not a date"),
])
def test_cli_refuses_bad_arguments(dashboard_db: Path, tmp_path: Path, arguments: list[str],
                                   message: str) -> None:
    from analytics.cli import app

    arguments = [a if not a.startswith("r.") else str(tmp_path / a) for a in arguments]
    result = CliRunner().invoke(app, ["report", "--db", str(dashboard_db), *arguments])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())  # rich wraps at the terminal width


def test_cli_reports_a_missing_database(tmp_path: Path) -> None:
    from analytics.cli import app

    result = CliRunner().invoke(app, ["report", "--db", str(tmp_path / "none.duckdb"),
                                      "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    # rich wraps the message at the terminal width, wherever the temp path ends.
    assert "does not exist" in " ".join(result.output.split())


def test_every_exported_table_of_results_says_its_unit(dashboard_db: Path) -> None:
    """``handlab report --table players`` and ``--table positions``: a row per level, and
    the unit its numbers are in (7 & 8's chips per hand, Big Two's points per game)."""
    con = duckdb.connect(str(dashboard_db), read_only=True)
    try:
        tables = reports.report_tables(con, HandFilter())
    finally:
        con.close()
    units = {"seveneight": "chips per hand", "bigtwo": "points per game",
             "rummoli": "chips per round"}
    for name in ("players", "positions"):
        table = tables[name]
        assert list(table.columns[:3]) == ["game", "level", "unit"], name
        assert (table["unit"] == table["game"].map(units)).all(), name


def test_report_tables_group_counts_by_thousands() -> None:
    """A report's counts read as the dashboard's (``2,000`` hands), missing ones blank; the
    numbers that name a line or a hand stay as they are; fractions keep their rounding."""
    table = pd.DataFrame({
        "hands": [2000, 1_000_300], "net (chips)": pd.array([-12345, None], dtype="Int64"),
        "line": [1170, 12], "share": [1234.5678, 0.5]})
    report = reports.Report("t", "all hands", dt.datetime(2026, 12, 7),
                            [reports.Section("Numbers", tables={"counts": table})])
    html = reports.render_html(report)
    cells = re.findall(r"<td>([^<]*)</td>", html)
    assert cells == ["2,000", "-12,345", "1170", "1,234.568",
                     "1,000,300", "", "12", "0.5"]


def test_report_tables_set_text_left_and_numbers_right() -> None:
    """Words read from the left (a session's game, a reject's reason), numbers and days
    line up on the right; the first column is left by the style sheet already."""
    table = pd.DataFrame({"session": ["Den 2026-11-11"], "game": ["7 & 8"], "hands": [23],
                          "first day": [dt.date(2026, 11, 11)], "reason": ["p9 acts"]})
    report = reports.Report("t", "all hands", dt.datetime(2026, 12, 7),
                            [reports.Section("Sessions", tables={"sessions": table})])
    html = reports.render_html(report)
    rule = re.search(r"<style>([^<]*)</style>\s*<table[^>]*id=\"s1-t1-rows\"", html)
    assert rule is not None
    assert rule[1] == ("#s1-t1-rows td:nth-child(2),#s1-t1-rows th:nth-child(2),"
                       "#s1-t1-rows td:nth-child(5),#s1-t1-rows th:nth-child(5)"
                       "{text-align:left}")
    numbers = pd.DataFrame({"player": ["Ann"], "hands": [3]})
    only = reports.Report("t", "all hands", dt.datetime(2026, 12, 7),
                          [reports.Section("Players", tables={"players": numbers})])
    assert "<style>#s1" not in reports.render_html(only)


def test_rank_scoring_rows_export_no_net(tmp_path: Path) -> None:
    """Big Two's rank scoring has no points, but the players and positions tables (CSV,
    Parquet) held its games won in ``net`` (Lu 14, Gus 8), so summing ``net`` over Big Two
    added wins to points.  The net is empty there; ``wins`` holds the games won."""
    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    db = tmp_path / "bigtwo.duckdb"
    ingest([samples / "bigtwo-house-rules.phhs"], db, workers=0)  # rank scoring and others
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = reports.report_tables(con, HandFilter())
    finally:
        con.close()
    for name in ("players", "positions"):
        rank = tables[name]["level"] == "scoring rank"
        assert rank.any() and (~rank).any(), name
        assert tables[name].loc[rank, "net"].isna().all(), name
        assert tables[name].loc[~rank, "net"].notna().all(), name
    players = tables["players"]
    assert players.loc[players["level"] == "scoring rank", "wins"].sum() > 0
    for fmt in ("csv", "parquet"):
        read = (pd.read_csv(io.BytesIO(reports.table_bytes(players, fmt))) if fmt == "csv"
                else pd.read_parquet(io.BytesIO(reports.table_bytes(players, fmt))))
        assert read.loc[read["level"] == "scoring rank", "net"].isna().all(), fmt
