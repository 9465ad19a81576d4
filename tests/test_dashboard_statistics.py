"""The statistics page: its plain functions (the grid as HTML, the definitions) and the page
itself under AppTest (tabs, split, threshold, filters)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import cast

import duckdb
import numpy as np
import pandas as pd
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from analytics import reports
from analytics.dashboard.statistics import definitions_frame, definitions_markdown, grid_html
from analytics.stats import RESULTS, stats_of
from analytics.warehouse import ENV_VAR, reader
from analytics.warehouse.sql import views
from analytics.warehouse.sql.stat_views import results_over_time, stat_grid
from analytics.warehouse.sql.views import HandFilter
from parsers.rule_options import Game
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the shared warehouse fixture, imported for pytest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 180


def _grid() -> pd.DataFrame:
    rows: dict[str, list[float]] = {name: [0, 0] for stat in stats_of("seveneight")
            for name in (stat.name, stat.opps_column)}
    rows |= {"vpip": [12, 3], "vpip_opps": [40, 29], "hands": [40, 29], "net": [10, -10],
             "bb_per_100": [12.5, -17.25], "allin_adj_bb_per_100": [10.0, -15.0]}
    return pd.DataFrame({"player": ["Ann", "Bo<b>"], **rows})


def test_grid_html_cells_tooltips_and_grey() -> None:
    html = grid_html(_grid(), "seveneight", min_opportunities=30)
    assert '<td title="95% interval 18.1% to 45.4% (Wilson)">12/40 (30%)</td>' in html
    assert re.search(r'<td class="hl-grey" title="95% interval [^"]+">3/29 \(10%\)</td>',
                     html)
    # Every column header carries its definition in words.
    for stat in stats_of("seveneight"):
        assert f'title="{stat.words}">{stat.label}</th>'.replace("'", "&#x27;") in html
    for result in RESULTS[Game.SEVENEIGHT]:
        assert f">{result.label}</th>" in html
    assert "Bo&lt;b&gt;" in html and "Bo<b>" not in html  # names are escaped
    assert "<td>-17.25</td>" in html
    # With a threshold of 0 nothing is grey.
    assert "hl-grey" not in grid_html(_grid(), "seveneight", min_opportunities=0)


def test_grid_html_names_the_currency_of_its_nets() -> None:
    """A grid in one currency heads its nets with it; a grid over several currencies names
    each row's (a row over two has no Net); bb/100 is in big blinds, never a currency."""
    chips = grid_html(_grid().assign(currency=["chips", "chips"]), "seveneight")
    assert '">Net (chips)</th>' in chips and '">bb/100</th>' in chips
    assert "<td>10</td>" in chips and "<td>12.50</td>" in chips
    mixed = _grid().assign(currency=["USD", "JPY"], net=pd.array([10, -10], dtype="Int64"))
    html = grid_html(mixed, "seveneight")
    assert '">Net</th>' in html and "<td>10 USD</td>" in html and "<td>-10 JPY</td>" in html
    assert "<td>12.50</td>" in html
    # A row over both currencies has no Net: the others' share the header's.
    one = grid_html(mixed.assign(currency=pd.Series(["USD", None], dtype=object),
                                 net=pd.array([10, None], "Int64")), "seveneight")
    assert '">Net (USD)</th>' in one and "<td>10</td>" in one and "<td>—</td>" in one


def test_definitions_name_every_column() -> None:
    for game in (Game.SEVENEIGHT, Game.BIGTWO, Game.RUMMOLI):
        table = definitions_frame(game)
        named = ", ".join(table["column"])
        for stat in stats_of(game):
            assert stat.name in named and stat.opps_column in named
        assert table["definition"].str.len().min() > 10
        assert definitions_markdown(game).count("\n- ") == len(table) - 1
        # The currency column of the games played for chips is defined too.
        assert ("currency" in set(table["column"])) is (game is not Game.BIGTWO)


@pytest.mark.slow
def test_statistics_page(dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("analytics/dashboard/pages/statistics.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Statistics"
    assert [t.label for t in at.tabs] == ["7 & 8", "Big Two", "Rummoli"]
    html = at.get("html")[0].proto.body
    with reader(dashboard_db) as con:
        grid = stat_grid(con, HandFilter(), game="seveneight")
    first = grid.iloc[0]
    share = 100 * first["vpip"] / first["vpip_opps"]
    assert f">{first['vpip']}/{first['vpip_opps']} ({share:.0f}%)</a></td>" in html
    words = " ".join(m.value for m in at.markdown)
    assert "**VPIP** (`vpip, vpip_opps`; share)" in words
    # Every cell links to the hands behind it: the link picks its row and statistic.
    player = str(first["player"])
    assert (f'href="?cell_row_seveneight={player}&amp;cell_stat_seveneight=VPIP">'
            f"{first['vpip']}/{first['vpip_opps']}") in html
    # Picking a cell (as its link does) lists the hands behind it: the count and
    # opportunities over them, each opening in the replayer.
    at.selectbox(key="cell_row_seveneight").select(player).run()
    at.selectbox(key="cell_stat_seveneight").select("VPIP").run()
    assert not at.exception, [e.value for e in at.exception]
    words = " ".join(m.value for m in at.markdown)
    assert (f"**{player}, VPIP**: {first['vpip']} counted of {first['vpip_opps']} "
            "opportunities") in words
    listed = next(f.value for f in at.dataframe if "counted" in f.value.columns)
    assert len(listed) == first["vpip_opps"]  # every hand he acted in
    listed_words = f"{len(listed):,} hand" + ("" if len(listed) == 1 else "s")  # never "1 hands"
    assert f"opportunities ({first['vpip'] / first['vpip_opps']:.0%}), in {listed_words} (" in words
    assert int(listed["counted"].sum()) == first["vpip"]
    assert listed["replay"].str.fullmatch(r"replayer\?hand=[0-9a-f]{16}").all()
    assert listed["players"].str.contains(player).all()
    at.selectbox(key="cell_stat_seveneight").select("WTSD").run()
    listed = next(f.value for f in at.dataframe if "counted" in f.value.columns)
    assert (int(listed["counted"].sum()), len(listed)) == (first["wtsd"], first["wtsd_opps"])
    # Split by position: a row per player and position.
    at.selectbox(key="stats_split_seveneight").select("position").run()
    assert not at.exception
    assert ">big blind</td>" in at.get("html")[0].proto.body
    # A split row's cell: the hands of that position only.
    with reader(dashboard_db) as con:
        split = stat_grid(con, HandFilter(), game="seveneight", split="position")
    row = split[(split["player"] == player) & (split["position"] == "big blind")].iloc[0]
    at.selectbox(key="cell_row_seveneight").select(f"{player} · position: big blind").run()
    at.selectbox(key="cell_stat_seveneight").select("PFR").run()
    assert not at.exception, [e.value for e in at.exception]
    listed = next(f.value for f in at.dataframe if "counted" in f.value.columns)
    assert (int(listed["counted"].sum()), len(listed)) == (row["pfr"], row["pfr_opps"])
    assert len(at.get("plotly_chart")) == 1  # the results over time
    # A point of the results by date lists that player's hands of that day.
    with reader(dashboard_db) as con:
        results = results_over_time(con, HandFilter(), game="seveneight", by="date", top=4)
    first_player = sorted(set(results["player"]))[0]  # the figure's first trace: his actual
    day = results[results["player"] == first_player]["day"].iloc[1]
    at.session_state["results_seveneight"] = {"selection": {
        "points": [{"curve_number": 0, "x": str(day)[:10], "point_index": 1}],
        "point_indices": [1], "box": [], "lasso": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    with reader(dashboard_db) as con:
        hands = count_rows_of(con, first_player, pd.Timestamp(day).date())
        chips, blinds = day_result_of(con, first_player, pd.Timestamp(day).date())
    words = " ".join(m.value for m in at.markdown)
    assert f"**{first_player}, {str(day)[:10]}**: {hands:,} hands" in words
    listed = [f.value for f in at.dataframe if "net (chips)" in f.value.columns][-1]  # below
    assert hands > 0 and len(listed) == hands
    assert "counted" not in listed.columns  # 1 of 1 for every hand says nothing
    # In the chart's unit, big blinds (never chips of several stakes alone), and the chips.
    assert f"{blinds:,.2f} big blinds (net {chips:,} chips)." in words
    assert int(listed["net (chips)"].sum()) == chips
    assert (listed["day"] == pd.Timestamp(day)).all()
    assert not any("first hand (id)" in f.value.columns for f in at.dataframe)  # on asking
    at.toggle(key="stats_sessions_seveneight").set_value(True).run()
    assert not at.exception
    sessions = next(f.value for f in at.dataframe if "first hand (id)" in f.value.columns)
    assert list(sessions.columns) == [
        "player", "table or game", "stakes or scoring", "start", "end", "minutes", "hands",
        "counted in", "net (chips)", "net per hour (chips)", "best hand (chips)",
        "worst hand (chips)", "first hand (id)", "unit", "replay", "start_at", "end_at"]
    # unit, start_at and end_at hidden: what a selected session is looked up by
    assert sessions["start"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d").all()
    assert sessions["replay"].str.fullmatch(r"replayer\?hand=[0-9a-f]{16}").all()
    assert sessions["hands"].sum() == grid["hands"].sum()  # every seat in one session
    # Selecting a session lists its hands.
    at.session_state["sessions_table_seveneight"] = {
        "selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    listed = [f.value for f in at.dataframe if "players" in f.value.columns][-1]  # below
    assert len(listed) == sessions["hands"].iloc[0]
    assert int(listed["net (chips)"].sum()) == sessions["net (chips)"].iloc[0]  # with its unit
    assert sessions["replay"].iloc[0] == listed["replay"].iloc[-1]  # its first hand, last:
    # the latest first (newest day first, oldest first within a day, it was)
    # Big Two's tab, and a player filter keeps his row only.
    at.query_params["tab"] = "Big Two"
    at.run()
    assert not at.exception
    assert "Win rate</th>" in at.get("html")[0].proto.body
    at.selectbox(key="f_game").select("bigtwo").run()
    assert [t.label for t in at.tabs] == ["Big Two"]


def count_rows_of(con: duckdb.DuckDBPyConnection, player: str, day: object) -> int:
    """A player's 7 & 8 hands of one day, counted from ``seats`` and ``hands``."""
    return int(con.execute("""
        SELECT count(*) FROM seats s JOIN hands h USING (hand_id)
        WHERE h.game = 'seveneight' AND s.player = $player
          AND coalesce(h.played_on, CAST(h.loaded_at AS DATE)) = $day""",
        {"player": player, "day": day}).fetchall()[0][0])


def day_result_of(con: duckdb.DuckDBPyConnection, player: str, day: object
                  ) -> tuple[int, float]:
    """A player's 7 & 8 net of one day in chips and in big blinds (each hand's chips over
    its stake's opening bet: the small bet in fixed limit, else the minimum bet), counted
    from ``seats`` and ``hands``."""
    chips, blinds = con.execute("""
        SELECT sum(s.net), sum(s.net / coalesce(h.small_bet, h.min_bet))
        FROM seats s JOIN hands h USING (hand_id)
        WHERE h.game = 'seveneight' AND s.player = $player
          AND coalesce(h.played_on, CAST(h.loaded_at AS DATE)) = $day""",
        {"player": player, "day": day}).fetchall()[0]
    return int(chips), float(blinds)


@pytest.mark.slow
def test_results_over_time_draws_the_players_chosen(dashboard_db: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """At first the four with most hands, as the chart's title says ("showing 4 of N");
    the picker draws any others (it used to draw the top four, saying neither which nor
    why)."""
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("analytics/dashboard/pages/statistics.py").run()
    with reader(dashboard_db) as con:
        top = results_over_time(con, HandFilter(), game="seveneight", by="date", top=4)
        everyone = sorted(stat_grid(con, HandFilter(), game="seveneight")["player"])
    picker = at.multiselect(key="stats_results_players_seveneight")
    assert picker.value == sorted(set(top["player"])) and picker.options == everyone

    def drawn() -> tuple[set[str], str]:
        chart, = at.get("plotly_chart")
        figure = plotly.io.from_json(chart.proto.spec)
        return {trace.legendgroup for trace in figure.data}, figure.layout.title.text

    players, title = drawn()
    assert players == set(top["player"])
    assert title.endswith(f"; showing 4 of {len(everyone)} players)")
    others = [name for name in everyone if name not in players][:2]
    picker.set_value(others).run()
    assert not at.exception, [e.value for e in at.exception]
    players, title = drawn()
    assert players == set(others) and title.endswith(f"showing 2 of {len(everyone)} players)")


@pytest.mark.slow
def test_report_has_a_statistics_section_per_game(dashboard_db: Path) -> None:
    from analytics.reports import build_report, render_html

    with reader(dashboard_db) as con:
        report = build_report(con, HandFilter())
        grid = stat_grid(con, HandFilter(), game="bigtwo")
    titles = [section.title for section in report.sections]
    assert "Statistics: 7 & 8" in titles and "Statistics: Big Two" in titles
    html = render_html(report)
    row = grid.iloc[0]
    share = 100 * row["win_rate"] / row["win_rate_opps"]
    assert f">{row['win_rate']}/{row['win_rate_opps']} ({share:.0f}%)</td>" in html
    assert 'class="hl-stats"' in html
    tables = report.tables()
    # The numbers behind the grid under the grid's headers, not the column names.
    counts = tables["Statistics counts (Big Two)"]
    win_rate = next(s for s in stats_of(Game.BIGTWO) if s.name == "win_rate")
    assert list(counts.columns[:3]) == ["player", win_rate.label,
                                        f"{win_rate.label} opportunities"]
    assert not any("_" in str(column) for column in counts.columns)
    with reader(dashboard_db) as con:
        only = build_report(con, HandFilter(game="rummoli"))
    assert [s.title for s in only.sections if s.title.startswith("Statistics")] == [
        "Statistics: Rummoli"]


def test_results_figure_draws_the_lines_each_game_has() -> None:
    from analytics.dashboard.statistics import results_figure

    frame = pd.DataFrame({"player": ["Ann", "Ann", "Bo", "Bo"], "hand_no": [1, 2, 1, 2],
                          "hands": [1, 2, 1, 2], "actual": [1.0, 2.0, -1.0, -2.0],
                          "adjusted": [1.0, 1.5, -1.0, -2.0],
                          "showdown": [1.0, 1.0, 0.0, 0.0],
                          "no_showdown": [0.0, 1.0, -1.0, -2.0]})
    names = [trace.name for trace in results_figure(frame, unit="big blinds").data]
    # Bo's adjusted line equals his actual one: left out.
    assert names == ["Ann: actual", "Ann: all-in adjusted", "Ann: won at showdown",
                     "Ann: won without showdown", "Bo: actual", "Bo: won at showdown",
                     "Bo: won without showdown"]
    points = frame.assign(showdown=None, no_showdown=None, adjusted=frame["actual"])
    names = [trace.name for trace in results_figure(points, unit="points").data]
    assert names == ["Ann: actual", "Bo: actual"]


def test_results_figure_colours_players_as_every_chart_and_marks_days() -> None:
    """A player's colour is his colour on every other chart (charts.player_colours), not
    his place in this chart's list; against the date the ticks are whole days."""
    from analytics.dashboard.charts import player_colours
    from analytics.dashboard.statistics import results_figure

    frame = pd.DataFrame({"player": ["Ann", "Zed", "Zed"],
                          "day": pd.to_datetime(["2026-08-20", "2026-08-20", "2026-08-21"]),
                          "hand_no": [1, 1, 2], "actual": [1.0, -1.0, -3.0]})
    frame = frame.assign(adjusted=frame["actual"], showdown=None, no_showdown=None)
    for players in (["Ann", "Zed"], ["Zed"]):
        figure = results_figure(frame[frame["player"].isin(players)], unit="chips", by="day")
        drawn = {trace.legendgroup: trace.line.color for trace in figure.data}
        assert drawn == {name: player_colours(players)[name] for name in players}
        assert figure.layout.xaxis.tickformat == "%Y-%m-%d"
        assert figure.layout.xaxis.dtick == 86_400_000


def test_a_note_on_a_player_is_kept(dashboard_db: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from analytics.warehouse.annotations import player_note

    copy = tmp_path / "notes.duckdb"
    shutil.copy(dashboard_db, copy)
    monkeypatch.setenv(ENV_VAR, str(copy))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("analytics/dashboard/pages/statistics.py").run()
    player = str(at.selectbox(key="stats_note_player").value)
    at.text_area(key=f"player_note_text_{player}").input("calls too much")
    at.button[-1].click().run()  # the form's "Save note"
    assert not at.exception, [e.value for e in at.exception]
    with reader(copy) as con:
        assert player_note(con, player) == "calls too much"


def _values(data: object) -> list[float]:
    """A trace's numbers as the chart's JSON holds them: a list, or plotly's typed array
    (``{"dtype": ..., "bdata": base64}``)."""
    if isinstance(data, dict):
        raw = base64.b64decode(str(data["bdata"]))
        return [float(v) for v in np.frombuffer(raw, dtype=np.dtype(str(data["dtype"])))]
    return [float(v) for v in cast(list[float], data)]


@pytest.mark.slow
def test_big_two_under_two_scoring_rules_is_split_by_rule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games under two scoring rules: the Big Two tab opens split by scoring rule (each
    row's points in one rule's unit) and says why; the running points are one rule's at a
    time (never one rule's points added to another's), picked beside the chart or in the
    sidebar."""
    from analytics.simulate.bigtwo import simulate_bigtwo
    from analytics.warehouse import ingest
    from parsers import write_hands
    from parsers.rule_options import BigTwoRules, BigTwoScoring

    write_hands([*simulate_bigtwo(10, 4, 51),
                 *simulate_bigtwo(10, 4, 52, rules=BigTwoRules(
                     scoring=BigTwoScoring.CARDS_WITH_TWOS))], tmp_path / "b2.phhs")
    db = tmp_path / "b2.duckdb"
    ingest([tmp_path / "b2.phhs"], db, workers=0)
    monkeypatch.setenv(ENV_VAR, str(db))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["tab"] = "Big Two"
    at.switch_page("analytics/dashboard/pages/statistics.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="stats_split_bigtwo").value == "scoring"
    html = at.get("html")[0].proto.body
    assert ">cards left, 2s double</td>" in html and ">cards left</td>" in html
    # Results over time: one rule's running points at a time, picked beside the chart.
    assert at.selectbox(key="stats_results_rule_bigtwo").options == [
        "cards left", "cards left, 2s double"]
    for rule in ("cards", "cards_with_twos"):
        at.selectbox(key="stats_results_rule_bigtwo").select(rule).run()
        assert not at.exception, [e.value for e in at.exception]
        chart, = at.get("plotly_chart")
        drawn = {trace.name: _values(trace.y)
                 for trace in plotly.io.from_json(chart.proto.spec).data}
        with reader(db) as con:
            frame = results_over_time(con, HandFilter(knobs=(("scoring", rule),)),
                                      game="bigtwo", by="date", top=4)
        for player, rows in frame.groupby("player"):
            assert drawn[f"{player}: actual"] == [float(v) for v in rows["actual"]], (
                rule, player)
    at.selectbox(key="stats_results_rule_bigtwo").select("cards").run()
    at.selectbox(key="stats_split_bigtwo").select("").run()  # the player's rows again
    assert any(c.value.startswith("—: his games were played under more than one scoring")
               for c in at.caption)
    assert ">—</a></td>" in at.get("html")[0].proto.body
    with reader(db) as con:  # the report's section, as the page opens
        section, = reports.statistics_sections(con, HandFilter(), ["bigtwo"],
                                                views.results_by_level(con, HandFilter()))
    assert "more than one scoring rule (cards left, cards left, 2s double)" in section.text
    assert ">cards left, 2s double</td>" in section.html
    # The report draws each rule's running points on its own, as the page's picker does.
    assert [figure.layout.title.text for figure in section.figures] == [
        "Big Two: cumulative results (points; scoring: cards left)",
        "Big Two: cumulative results (points; scoring: cards left, 2s double)"]
    with reader(db) as con:
        twos = results_over_time(con, HandFilter(knobs=(("scoring", "cards_with_twos"),)),
                                 game="bigtwo")
    first = sorted(twos["player"].unique())[0]
    assert [float(v) for v in section.figures[1].data[0].y] == [
        float(v) for v in twos.loc[twos["player"] == first, "actual"]]
    assert list(section.tables["Statistics counts (Big Two)"].columns[:2]) == [
        "player", "scoring rule"]
    one = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a link to one rule's games
    one.query_params["tab"] = "Big Two"
    one.query_params["knob"] = "scoring=cards"
    one.switch_page("analytics/dashboard/pages/statistics.py").run()
    assert not one.exception, [e.value for e in one.exception]
    assert one.selectbox(key="stats_split_bigtwo").value == ""  # no split
    assert not any("scoring rules" in i.value for i in one.info)
    assert len(one.get("plotly_chart")) == 1  # the running points


@pytest.mark.slow
def test_big_two_under_rank_scoring_runs_in_games_won(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games under rank scoring alone (no points: RULES.md 2): the results over time are
    each player's games won, on the page and in the report, not a flat line at 0 points."""
    from analytics.simulate.bigtwo import simulate_bigtwo
    from analytics.warehouse import ingest
    from parsers import write_hands
    from parsers.rule_options import BigTwoRules, BigTwoScoring

    write_hands(simulate_bigtwo(12, 4, 53, rules=BigTwoRules(scoring=BigTwoScoring.RANK)),
                tmp_path / "rank.phhs")
    db = tmp_path / "rank.duckdb"
    ingest([tmp_path / "rank.phhs"], db, workers=0)
    with reader(db) as con:
        wins = {str(name): int(won) for name, won in con.execute(
            "SELECT player, count(*) FILTER (WHERE winner) FROM seat_facts "
            "GROUP BY player").fetchall()}
        section = reports.statistics_sections(con, HandFilter(), ["bigtwo"],
                                                views.results_by_level(con, HandFilter()))[0]
    assert sum(wins.values()) == 12
    monkeypatch.setenv(ENV_VAR, str(db))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["tab"] = "Big Two"
    at.switch_page("analytics/dashboard/pages/statistics.py").run()
    assert not at.exception, [e.value for e in at.exception]
    chart, = at.get("plotly_chart")
    assert plotly.io.from_json(chart.proto.spec).layout.yaxis.title.text == "games won"
    shown, = section.figures  # the report's, from the same scope
    assert shown.layout.yaxis.title.text == "games won"
    ends = {trace.legendgroup: trace.y[-1] for trace in shown.data
            if trace.name.endswith("actual")}
    assert ends == {name: wins[name] for name in ends} and sum(ends.values()) > 0


def test_a_rows_label_names_its_split_in_words() -> None:
    from analytics.dashboard.statistics import row_label

    assert row_label("Ann") == "Ann"
    assert row_label("Ann", "A", "up_rank") == "Ann · up card rank: A"
    assert row_label("Ann", "cards", "scoring") == "Ann · scoring rule: cards left"
    assert row_label("Ann", "rank", "scoring") == "Ann · scoring rule: finishing order"
    assert row_label("Ann", None, "position") == "Ann · position: none"
