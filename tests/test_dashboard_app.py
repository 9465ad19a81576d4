"""AppTest for every page: no exception, the expected elements, filters change the numbers,
the URL carries the filters, uploads show everywhere, the replayer steps through a hand."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.dashboard import logic
from analytics.dashboard.logic import POT_VIEWS, SEVENEIGHT_VIEWS, WIN_RATE_VIEWS
from analytics.dashboard.ui import literal
from analytics.warehouse import ENV_VAR
from analytics.warehouse.connection import current_version
from analytics.warehouse.pipeline.fact_rows import PASS_COLUMNS
from analytics.warehouse.sql import views
from analytics.warehouse.sql.equity_views import BIGTWO_FEATURES
from analytics.warehouse.sql.schema import LATEST_VERSION, TABLES, migrate
from analytics.warehouse.sql.views import PLAY_KIND_COLUMNS, HandFilter
from tests.test_dashboard_data import dashboard_db, extra_histories

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = "analytics/dashboard/pages"
TIMEOUT = 180


@pytest.fixture
def db(dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    return dashboard_db


@pytest.fixture
def own_db(dashboard_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy, for tests that load more hands."""
    copy = tmp_path / "own.duckdb"
    shutil.copy(dashboard_db, copy)
    monkeypatch.setenv(ENV_VAR, str(copy))
    return copy


def open_app(page: str | None = None, **params: str | list[str]) -> AppTest:
    """The dashboard run once with ``params`` in its URL, on ``page`` (the default page,
    Overview, if None) as a link to that page opens it, with no exception; other dashboard
    test files open it through here too."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    if page is not None:  # before the first run: the page named by its file, as its URL does
        at.switch_page(f"{PAGES}/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at: AppTest, label: str) -> int:
    for metric in at.metric:
        if metric.label == label:
            return int(str(metric.value).replace(",", ""))
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def count_rows(db: Path, sql: str) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute(sql).fetchall()[0][0])
    finally:
        con.close()


def test_overview_shows_counts_tables_and_the_reject(db: Path) -> None:
    at = open_app()
    assert at.title[0].value == "Overview"
    assert _metric(at, "Hands") == 190
    assert _metric(at, "Rejected hands") == 1
    assert _metric(at, "Players") == count_rows(db, "SELECT count(DISTINCT player) FROM seats")
    # The chart over time opens on demand (a new browser's first page without plotly).
    assert len(at.get("plotly_chart")) == 0
    at.session_state["overview_over_time"] = True
    at.run()
    assert not at.exception and len(at.get("plotly_chart")) == 1
    assert len(at.dataframe) >= 4  # games, players, sessions, rejects (summary and list)
    rejects = at.dataframe[-1].value
    assert list(rejects["line"]) == [12]
    assert "p9" in rejects["reason"].iloc[0]
    assert len(at.get("download_button")) >= 4 * 3 + 1  # tables x formats + the report
    # Counts grouped by thousands in the browser (2,000 hands, as the metrics write them);
    # a line or hand number stays as it is.
    grouped = {"type_config": {"type": "number", "format": "localized"}}
    games = json.loads(at.dataframe[0].proto.columns)
    assert games["hands (games, rounds)"] == grouped and games["sessions"] == grouped
    listed = json.loads(at.dataframe[-1].proto.columns)
    assert "line" not in listed and "hand" not in listed
    players = json.loads(at.dataframe[1].proto.columns)  # 7 & 8's, in big blinds (1888.5)
    assert players["net (big blinds)"] == grouped


def test_overview_players_are_a_tab_per_game_only_the_shown_one_drawn(db: Path) -> None:
    at = open_app()
    players = [m.value for m in at.markdown if str(m.value).startswith("**")]
    assert players == ["**7 & 8: big blinds per 100 hands**"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        results = views.results_by_level(con, HandFilter())
    finally:
        con.close()
    for label, game in (("Big Two", "bigtwo"), ("Rummoli", "rummoli")):
        at.session_state["overview_players"] = label
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        tables = logic.player_tables(results, game)
        assert [m.value for m in at.markdown if str(m.value).startswith("**")] == [
            f"**{title}**" for title, _ in tables]
        for _, table in tables:
            shown = [f.value for f in at.dataframe
                     if list(f.value.columns) == list(table.columns)
                     and len(f.value) == len(table)]
            assert len(shown) == 1
            pd.testing.assert_frame_equal(shown[0].reset_index(drop=True),
                                          table.reset_index(drop=True), check_dtype=False)


def test_overview_without_rejects_says_so(own_db: Path) -> None:
    con = duckdb.connect(str(own_db))
    try:
        con.execute("DELETE FROM rejects")
    finally:
        con.close()
    at = open_app()
    assert _metric(at, "Rejected hands") == 0
    assert "No hand was rejected." in [s.value for s in at.success]


def test_the_game_filter_changes_the_numbers_and_the_url(db: Path) -> None:
    at = open_app()
    at.selectbox(key="f_game").select("bigtwo").run()
    assert not at.exception
    assert _metric(at, "Hands") == 30
    assert at.query_params["game"] == "bigtwo"
    at.selectbox(key="f_game").select("all games").run()
    assert _metric(at, "Hands") == 190
    assert "game" not in at.query_params


def test_the_stakes_filter_names_each_stakes_game(db: Path) -> None:
    """The sidebar's stakes, each with its game and grouped by it: "fixed limit 2/4" alone
    would name 7 & 8's stakes and Rummoli's alike."""
    at = open_app()
    box = at.selectbox(key="f_stakes")
    games = [option.partition(":")[0] for option in box.options[1:]]
    assert box.options[0] == "all stakes"
    assert set(games) <= {"7 & 8", "Big Two", "Rummoli"} and len(set(games)) == 3
    assert games == sorted(games)  # grouped by game
    # Picked, its whole name stands under the box, which cuts a long one at its end
    # ("Rummoli: no limit, minimum bet" for both "... 1" and "... 1 USD").
    assert not [c.value for c in at.sidebar.caption if c.value.startswith("Rummoli")]
    label = next(option for option in box.options if option.startswith("Rummoli"))
    box.select_index(box.options.index(label)).run()
    assert label in [c.value for c in at.sidebar.caption] and not at.exception


def test_the_house_rules_filter_names_each_rules_game(db: Path) -> None:
    """The sidebar's house rules, each after its game and grouped by it (they read
    "ante=1", "deal=thirteen", "variant=N78" with no game)."""
    at = open_app()
    box = at.multiselect(key="f_knobs")
    games = [option.partition(":")[0] for option in box.options]
    assert set(games) == {"7 & 8", "Big Two", "Rummoli"} and games == sorted(games)
    assert "Rummoli: ante = 1" in box.options and "7 & 8: variant N78 (no limit)" in box.options
    box.select("ante=1").run()  # the value is still the rule line
    assert at.query_params["knob"] == "ante=1" and not at.exception


def test_filters_are_read_from_the_url(db: Path) -> None:
    at = open_app(game="rummoli")
    assert at.selectbox(key="f_game").value == "rummoli"
    assert _metric(at, "Hands") == 40
    player = at.multiselect(key="f_players").options[0]
    at.multiselect(key="f_players").select(player).run()
    hands = count_rows(db, "SELECT count(*) FROM seats WHERE game = 'rummoli' AND player = "
                       f"'{player}'")
    assert _metric(at, "Hands") == hands < 40
    assert at.query_params["player"] == player


def test_a_bad_url_is_ignored_not_fatal(db: Path) -> None:
    at = open_app(game="poker", **{"from": "yesterday", "knob": "nonsense"})
    assert _metric(at, "Hands") == 190


def test_upload_loads_new_hands_everywhere(own_db: Path, tmp_path: Path) -> None:
    at = open_app("upload")
    assert at.title[0].value == "Upload hand histories"
    assert at.button(key="upload_go").disabled
    extra = extra_histories(tmp_path / "more.phhs").read_bytes()
    at.file_uploader(key="upload_files").set_value(
        [("more.phhs", extra, "application/octet-stream"),
         ("../../evil name.phhs", extra, "application/octet-stream")])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["file"]) == ["upload: more.phhs", "upload: ../../evil name.phhs"]
    assert list(table["loaded"]) == [25, 0]
    assert list(table["status"]) == ["loaded", "already loaded"]
    assert "new hands" in at.success[0].value
    # Stored under the uploaded name, not the temporary path it was read from.
    assert count_rows(own_db, "SELECT count(*) FROM files WHERE path = 'upload: more.phhs'") == 1
    assert count_rows(own_db, "SELECT count(*) FROM hands "
                          "WHERE source_file = 'upload: more.phhs'") == 25
    assert count_rows(own_db, "SELECT count(*) FROM files WHERE path LIKE '%handlab-upload%'") == 0
    at.switch_page(f"{PAGES}/overview.py").run()
    assert _metric(at, "Hands") == 215
    files = next(str(h.proto.body) for h in at.get("html") if "hl-files" in h.proto.body)
    first_row = files.split("</tr>")[1]  # after the header row: newest first
    assert 'title="upload: more.phhs">upload: more.phhs<' in first_row


def test_upload_names_are_tamed_and_zip_members_keep_theirs(own_db: Path,
                                                             tmp_path: Path) -> None:
    import io
    import zipfile

    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("night/more.phhs", extra_histories(tmp_path / "more.phhs").read_bytes())
    at = open_app("upload")
    at.file_uploader(key="upload_files").set_value(
        ("day\x07s\n.zip", packed.getvalue(), "application/zip"))
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["file"]) == ["upload: day_s_.zip:night/more.phhs"]
    assert list(table["loaded"]) == [25]
    assert count_rows(own_db, "SELECT count(*) FROM hands WHERE source_file = "
                          "'upload: day_s_.zip:night/more.phhs'") == 25


def test_upload_says_when_the_database_stays_busy(own_db: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import analytics.warehouse.loading as loading
    from analytics.warehouse import WarehouseBusy

    def busy(*args: object, **kwargs: object) -> None:
        raise WarehouseBusy("held by another process")

    at = open_app("upload")
    extra = extra_histories(tmp_path / "more.phhs").read_bytes()
    at.file_uploader(key="upload_files").set_value(
        ("more.phhs", extra, "application/octet-stream"))
    at.run()
    monkeypatch.setattr(loading, "ingest", busy)  # the upload's load_where_read calls it
    at.button(key="upload_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Nothing was loaded" in at.error[0].value
    assert "Press the button again" in at.error[0].value
    assert not at.button(key="upload_go").disabled  # the files are still there to retry
    assert count_rows(own_db, "SELECT count(*) FROM files WHERE path = 'upload: more.phhs'") == 0


def test_upload_reports_rejects_with_line_numbers(own_db: Path) -> None:
    from tests.test_dashboard_data import BROKEN

    at = open_app("upload")
    at.file_uploader(key="upload_files").set_value(
        ("bad.phhs", BROKEN.replace("7c8c", "7c8d").encode(), "application/octet-stream"))
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception
    rejects = at.dataframe[-1].value
    # Headed as the Overview's data quality table: "hand", "reason", not the column names.
    assert list(rejects.columns) == list(logic.REJECT_HEADERS.values())
    assert list(rejects["file"]) == ["upload: bad.phhs"]
    assert list(rejects["line"]) == [12]


def _tab(at: AppTest, label: str) -> AppTest:
    """Show another tab of the Win rates page, as a click (or a link with ``?tab=``) does."""
    at.query_params["tab"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def show_view(at: AppTest, label: str, game: str = "seveneight") -> AppTest:
    """Show another part of a tab of the Win rates page (``game``'s), as a click on its
    picker (or a link with ``?view=``, ``?view_bigtwo=``...) does."""
    key = "view" if game == "seveneight" else f"view_{game}"
    at.segmented_control(key=key).set_value(label).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_win_rates_has_a_tab_per_game_and_follows_filters(db: Path) -> None:
    at = open_app("win_rates")
    assert at.title[0].value == "Win rates"
    assert [t.label for t in at.tabs] == ["7 & 8", "Big Two", "Rummoli"]
    # Only the shown tab runs, and of 7 & 8 only the shown part: per player at first.
    assert at.segmented_control(key="view").options == list(SEVENEIGHT_VIEWS)
    assert at.segmented_control(key="view").value == "Per player"
    assert len(at.get("plotly_chart")) == 1
    everyone = at.dataframe[0].value  # the first tab's table: 7 & 8 in big blinds
    assert {"95 % CI low (bb/100)", "95 % CI high (bb/100)"} <= set(everyone.columns)
    assert (everyone["95 % CI low (bb/100)"] <= everyone["big blinds per 100 hands"]).all()
    assert everyone["hands"].sum() == count_rows(db, "SELECT count(*) FROM seats "
                                                 "WHERE game = 'seveneight'")
    _tab(at, "Big Two")
    assert at.segmented_control(key="view_bigtwo").options == list(WIN_RATE_VIEWS["bigtwo"])
    assert "points per game" in at.dataframe[0].value.columns
    assert len(at.get("plotly_chart")) == 1  # per player: the other parts are a click away
    _tab(at, "Rummoli")
    assert at.segmented_control(key="view_rummoli").value == "Per player"
    assert "chips per round" in at.dataframe[0].value.columns
    assert len(at.get("plotly_chart")) == 1
    at.selectbox(key="f_game").select("bigtwo").run()
    assert not at.exception
    assert [t.label for t in at.tabs] == ["Big Two"]
    player = at.dataframe[0].value["player"].iloc[0]
    at.multiselect(key="f_players").select(player).run()
    assert list(at.dataframe[0].value["player"]) == [player]


# The charts of each part of each tab of the Win rates page (logic.WIN_RATE_VIEWS' order).
PART_CHARTS = {"seveneight": (1, 1, 1, 1), "bigtwo": (1, 1, 1, 3, 2, 1),
               "rummoli": (1, 1, 1, 1, 2)}


@pytest.mark.slow
def test_win_rates_tabs_show_what_one_page_of_tabs_showed(db: Path) -> None:
    """The parts of each tab together draw the charts and tables that game's part of the
    page always had (nineteen charts), each part one to three of them."""
    at = open_app("win_rates")
    charts: set[str] = set()
    for game, label in (("seveneight", "7 & 8"), ("bigtwo", "Big Two"),
                        ("rummoli", "Rummoli")):
        _tab(at, label)
        for view, count in zip(WIN_RATE_VIEWS[game], PART_CHARTS[game], strict=True):
            shown = show_view(at, view, game).get("plotly_chart")
            assert len(shown) == count, (game, view)
            charts |= {chart.proto.id for chart in shown}
            if view == "Running totals" and game == "seveneight":
                allin = next(f.value for f in at.dataframe
                             if "luck (big blinds)" in f.value.columns)
                assert allin["hands"].sum() == count_rows(db, "SELECT count(*) FROM seats "
                                                          "WHERE game = 'seveneight'")
    assert len(charts) == sum(map(sum, PART_CHARTS.values())) == 19


def test_pots_page_draws_the_board_of_a_game(db: Path) -> None:
    at = open_app("pots")
    assert at.title[0].value == "Pot accumulation (Rummoli)"
    # One part at a time: the board first, then who wins each pot, then the streaks.
    assert at.segmented_control(key="pots_view").options == list(POT_VIEWS)
    charts = [len(at.get("plotly_chart"))]
    game_id = at.selectbox(key="pots_game").options[1]
    at.selectbox(key="pots_game").select(game_id).run()
    assert at.query_params["pot_game"] == game_id
    at.segmented_control(key="pots_view").set_value(POT_VIEWS[1]).run()
    charts.append(len(at.get("plotly_chart")))
    summary = at.dataframe[0].value
    assert summary["pot"].iloc[0] == "poker"
    assert len(summary) == 9
    at.segmented_control(key="pots_view").set_value(POT_VIEWS[2]).run()
    assert not at.exception, [e.value for e in at.exception]
    charts.append(len(at.get("plotly_chart")))
    assert charts == [1, 1, 2]  # the page's four charts
    assert [list(f.value.columns) for f in at.dataframe] == [
        list(logic.pot_growth_headers().values())]
    at.selectbox(key="f_game").select("bigtwo").run()
    assert "another game" in at.info[0].value


def test_hand_types_compares_with_theory(db: Path) -> None:
    at = open_app("hand_types")
    assert at.title[0].value == "Hand types"
    # A tab per game, as on Win rates: only the shown one (7 & 8 first) runs.
    assert [t.label for t in at.tabs] == ["7 & 8", "Big Two", "Rummoli"]
    assert [h.value for h in at.main.header] == ["7 & 8"]
    captions = " ".join(c.value for c in at.caption)
    assert "Chi-square goodness of fit" in captions
    first = at.dataframe[0].value
    assert first["hands"].sum() == count_rows(db, "SELECT count(*) FROM seats "
                                                 "WHERE game = 'seveneight'")
    assert abs(first["exact share (%)"].sum() - 100) < 0.05  # percentages to two decimals
    at = _tab(at, "Rummoli")
    assert [h.value for h in at.main.header] == ["Rummoli"]
    sizes = at.dataframe[0].value  # a test per deal size (n too small for some here)
    assert sizes["hands"].sum() == count_rows(db, "SELECT count(*) FROM seat_facts WHERE "
                                              "dealt_poker_category IS NOT NULL")
    assert sizes["p-value"].notna().any()
    shown = at.dataframe[1].value
    assert abs(shown["exact share (%)"].sum() - 100) < 0.05
    assert "Chi-square goodness of fit" in " ".join(c.value for c in at.caption)


def test_hand_types_per_player_in_percent_of_his_hands(db: Path) -> None:
    """The "Per player" tables: each player's hands and his share of each category in
    percent (a row sums to 100); Rummoli's of the deal size shown, not every size pooled."""
    at = open_app("hand_types")
    at.session_state["players_seveneight-two"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(f.value for f in at.dataframe if "pair (%)" in f.value.columns)
    con = duckdb.connect(str(db), read_only=True)
    try:
        seats = dict(con.execute("SELECT player, count(*) FROM seats "
                                 "WHERE game = 'seveneight' GROUP BY player").fetchall())
    finally:
        con.close()
    assert dict(zip(table["player"], table["hands"], strict=True)) == seats
    shares = table[[c for c in table.columns if c.endswith("(%)")]]
    assert ((shares.sum(axis=1) - 100).abs() < 0.1).all()
    at = _tab(at, "Rummoli")
    at.session_state["players_rummoli"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    size = int(str(at.selectbox(key="rummoli_size").value))
    assert f"Per player ({size}-card deals)" in [e.label for e in at.expander]
    rummoli = next(f.value for f in at.dataframe if "straight flush (%)" in f.value.columns)
    dealt = count_rows(db, "SELECT count(*) FROM seat_facts WHERE game = 'rummoli' AND "
                           f"dealt_size = {size} AND dealt_poker_category IS NOT NULL")
    assert int(rummoli["hands"].sum()) == dealt
    # Big Two's counts plays, not hands.
    at = _tab(at, "Big Two")
    at.session_state["bigtwo_plays"] = True
    at.session_state["players_bigtwo"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    plays = next(f.value for f in at.dataframe if "full house (%)" in f.value.columns)
    assert list(plays.columns[:2]) == ["player", "plays"]
    assert int(plays["plays"].sum()) == count_rows(
        db, "SELECT count(*) FROM actions a JOIN hands h USING (hand_id) "
            "WHERE h.game = 'bigtwo' AND a.verb = 'pl'")


def test_the_replayer_names_a_file_as_written_not_as_markdown(own_db: Path) -> None:
    """A file (a zip member) named like a Markdown link: the caption's tooltip showed a live
    link to another site; the name is now read as written."""
    link = "games.zip:[Verify your account](https://evil.example/login).phhs"
    with duckdb.connect(str(own_db)) as con:
        [(hand_id,)] = con.execute("SELECT min(hand_id) FROM hands WHERE game = 'bigtwo'"
                                   ).fetchall()
        con.execute("UPDATE hands SET source_file = $link WHERE hand_id = $hand",
                    {"link": link, "hand": hand_id})
    at = open_app("replayer", hand=str(hand_id))
    [tooltip] = [c.proto.help for c in at.caption if c.proto.help.startswith("File:")]
    assert tooltip == f"File: {literal(link)}" and "](https" not in tooltip


def test_replayer_steps_through_a_hand_from_the_url(db: Path) -> None:
    hand_id = count_rows(db, "SELECT hand_id FROM hands WHERE game = 'seveneight' "
                         "ORDER BY hand_id LIMIT 1")
    at = open_app("replayer", hand=str(hand_id))
    assert at.title[0].value == "Hand replayer"
    assert at.selectbox(key="replayer_hand").value == hand_id
    slider = at.slider(key=f"replayer_step_{hand_id}")
    last = slider.value
    assert last == slider.max > 5
    html = at.get("html")[0].proto.body
    assert "hl-card" in html
    at.button(key="step_start").click().run()
    assert at.slider(key=f"replayer_step_{hand_id}").value == 0
    at.button(key="step_next").click().run()
    assert at.slider(key=f"replayer_step_{hand_id}").value == 1
    assert "deals" in at.markdown[0].value


def _seats(at: AppTest) -> str:
    return str(at.get("html")[0].proto.body)


@pytest.mark.parametrize(("game", "table", "heading", "text", "what"), [
    ("seveneight", "allin_results", "equity at the all-in", "vs actual", "Stored equities"),
    ("rummoli", "rummoli_strength", "poker strength", "share", "Stored equities"),
    ("bigtwo", "bigtwo_features", "deal features", "five-card", "Deal features"),
])
def test_replayer_shows_the_stored_equities(db: Path, game: str, table: str, heading: str,
                                            text: str, what: str) -> None:
    hand_id = count_rows(db, f"SELECT min(hand_id) FROM {table}")
    at = open_app("replayer", hand=str(hand_id))
    assert at.selectbox(key="replayer_hand").value == hand_id
    html = _seats(at)  # the last step: every stored figure applies
    assert f">{heading}</th>" in html
    assert text in html
    captions = " ".join(c.value for c in at.caption)
    assert what in captions
    stored = [f.value for f in at.dataframe if "seat" in f.value.columns]
    assert len(stored[0]) == count_rows(db, f"SELECT count(*) FROM {table} "
                                        f"WHERE hand_id = {hand_id}")
    at.button(key="step_start").click().run()
    assert heading in _seats(at)  # the column stays, with a dash before it applies
    assert text not in _seats(at)
    assert "shown from step" in " ".join(c.value for c in at.caption)


def test_replayer_says_when_no_equity_is_known(db: Path) -> None:
    hand_id = count_rows(db, "SELECT min(hand_id) FROM hands WHERE game = 'seveneight' AND "
                         "hand_id NOT IN (SELECT hand_id FROM allin_results)")
    at = open_app("replayer", hand=str(hand_id))
    assert ("Equities: none for this hand. They are stored for a 7 & 8 hand all in with "
            "cards to come.") in " ".join(c.value for c in at.caption)
    assert "equity" not in _seats(at)


def test_a_link_to_a_renamed_part_opens_it(db: Path) -> None:
    """Win rates' Rummoli view "Poker pot against strength" is "Best hand against strength"
    now: a link saved with the old name opened the tab's first view."""
    at = open_app("win_rates", tab="Rummoli", view_rummoli="Poker pot against strength")
    assert at.segmented_control(key="view_rummoli").value == "Best hand against strength"
    assert any("realised best-hand share per round" in f.value.columns for f in at.dataframe)
    assert not at.warning


def test_win_rates_shows_the_stored_equities(db: Path) -> None:
    at = show_view(_tab(open_app("win_rates"), "Rummoli"), "Best hand against strength",
                   "rummoli")
    frames = [f.value for f in at.dataframe]
    shares = next(f for f in frames if "realised best-hand share per round" in f.columns)
    assert shares["rounds"].sum() == count_rows(db, "SELECT count(*) FROM rummoli_strength")
    # The share is the best hand's at the table on everyone's cards, folded or not: a hand
    # folded may hold it, a pot won may not. It was headed as the poker pot's share.
    assert count_rows(db, "SELECT count(*) FROM rummoli_strength WHERE realised_share > 0 "
                          "AND NOT won_poker_pot") > 0
    assert not [c for f in frames for c in f.columns if "share" in c and "poker pot" in c]
    calibration = next(f for f in frames if "expected best-hand share (bin)" in f.columns)
    assert calibration["rounds"].sum() == shares["rounds"].sum()
    frames = [f.value for f in show_view(_tab(at, "Big Two"), "By deal strength",
                                         "bigtwo").dataframe]
    by_twos = next(f for f in frames if "share of games out first" in f.columns)
    assert by_twos["games"].sum() == count_rows(db, "SELECT count(*) FROM bigtwo_features")
    at.selectbox(key="bigtwo_feature").select("five_card").run()
    assert not at.exception
    bins = next(f for f in (d.value for d in at.dataframe)
                if "share of games out first" in f.columns)
    # The bins under the feature's own words, not "feature".
    assert set(bins[BIGTWO_FEATURES["five_card"][1]]) <= {"0", "1-9", "10-49", "50-199", "200+"}


def test_hand_types_has_big_two_deal_theory(db: Path) -> None:
    at = open_app("hand_types", game="bigtwo")
    assert [h.value for h in at.main.header] == ["Big Two"]
    subheaders = [h.value for h in at.main.subheader]
    assert "Combinations the deals hold" in subheaders
    assert "Combinations played" in subheaders
    frames = [f.value for f in at.dataframe]
    deals = count_rows(db, "SELECT count(*) FROM bigtwo_features")
    most, twos = frames[0], frames[1]
    # Each table names what its categories are (so does its chart's axis).
    assert list(most["most cards of one rank"]) == ["no pair", "pair", "three of a kind",
                                                     "four of a kind"]
    assert list(twos["2s held"]) == ["0", "1", "2", "3", "4"]
    assert most["hands"].sum() == twos["hands"].sum() == deals
    assert abs(twos["exact share (%)"].sum() - 100) < 0.05  # percentages to two decimals
    held = next(f for f in frames if "deals holding it" in f.columns)
    assert set(held["straights"]) <= set(logic.STRAIGHTS_WORDS.values())  # not "sg_hk"
    assert set(held["deals"]) == {deals}
    assert {"pair", "straight", "flush", "straight flush"} <= set(held["kind"])
    captions = " ".join(c.value for c in at.caption)
    assert captions.count("Chi-square goodness of fit") >= 1
    assert "binomial" in captions


@pytest.mark.slow
def test_hand_types_big_two_draws_one_deal_size_and_rule_set_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The house-rules sample deals 13, 17 and 18 cards under five or six rule sets each:
    the tab draws three charts, those of the size and rule set picked (the most dealt size
    first), its pickers offer every group of the held table, and a group's table is that
    group's rows (nothing the page showed before is out of reach)."""
    from analytics.warehouse import ingest, reader
    from analytics.warehouse.sql import equity_views

    db = tmp_path / "house.duckdb"
    ingest([Path(__file__).resolve().parent.parent / "data" / "samples"
            / "bigtwo-house-rules.phhs"], db, workers=0)
    monkeypatch.setenv(ENV_VAR, str(db))
    with reader(db) as con:
        dealt = equity_views.bigtwo_dealt(con, HandFilter())
    groups = dict(logic.held_groups(logic.held_words(logic.bigtwo_held_table(dealt))))
    at = open_app("hand_types", game="bigtwo")
    assert at.selectbox(key="bigtwo_size").options == ["13-card deals", "17-card deals",
                                                        "18-card deals"]
    for size in (13, 17, 18):
        at.selectbox(key="bigtwo_size").select(size).run()
        # Every group of the table, the most dealt first (the picker opens on it).
        ours = [logic.held_label(group) for group in logic.bigtwo_held_groups(dealt)
                if group[0] == size]
        assert set(ours) == {label for label in groups if label.startswith(f"{size}-card ")}
        rules = at.selectbox(key="bigtwo_rules")
        assert rules.options == [label.split(", ", 1)[1] for label in ours]
        for label in (ours[0], ours[-1]) if size != 17 else ():
            at.selectbox(key="bigtwo_rules").set_value(label).run()
            assert not at.exception, [e.value for e in at.exception]
            specs = [chart.proto.spec for chart in at.get("plotly_chart")]
            assert len(specs) == 3 and all(f"{size}-card deals" in s for s in specs)
            assert f"({label})" in specs[-1]
            table = next(f.value for f in at.dataframe if "deals holding it" in f.value.columns)
            assert list(table["kind"]) == list(groups[label]["category"])
            assert list(table["deals holding it"]) == list(groups[label]["observed"])


def test_the_busy_database_shows_a_retry_notice() -> None:
    def page() -> None:
        import streamlit as st

        from analytics.dashboard import ui
        from analytics.warehouse import WarehouseBusy

        st.session_state["_handlab_busy"] = 100  # past the automatic retries: no sleeping
        with ui.guarded():
            raise WarehouseBusy("held by a test")

    at = AppTest.from_function(page, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "busy" in at.warning[0].value
    assert at.button[0].label == "Retry now"


def test_the_dashboard_migrates_a_database_an_older_handlab_wrote(
        dashboard_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A version-7 database (no play kinds: its readers would refuse it) is migrated when
    the dashboard starts, and the pages read it: the Big Two plays are counted."""
    old = tmp_path / "v7.duckdb"
    columns = ", ".join((*PLAY_KIND_COLUMNS.values(), *PASS_COLUMNS))  # 8's and 12's
    with duckdb.connect(str(old)) as con:
        migrate(con, target=7)
        con.execute("ATTACH $path AS source (READ_ONLY)", {"path": str(dashboard_db)})
        for table in TABLES:
            if table in ("bigtwo_scores", "stat_facts"):
                continue  # created (and filled) by migrations 9 and 10
            kept = f" EXCLUDE ({columns})" if table == "seat_facts" else ""
            con.execute(f"INSERT INTO {table} SELECT *{kept} FROM source.{table}")
        con.execute("DETACH source")
    assert current_version(old) == 7
    monkeypatch.setenv(ENV_VAR, str(old))
    at = open_app("hand_types", tab="Big Two")
    assert current_version(old) == LATEST_VERSION
    at.session_state["bigtwo_plays"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert count_rows(old, "SELECT count(*) FROM seat_facts WHERE game = 'bigtwo' "
                       "AND played_single IS NULL") == 0
    assert count_rows(old, "SELECT count(*) FROM bigtwo_scores") == count_rows(
        dashboard_db, "SELECT count(*) FROM bigtwo_scores") > 0


@pytest.mark.parametrize("kind", ["folder", "not a database"])
def test_a_database_that_cannot_be_read_is_named_in_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """HANDLAB_DB naming a folder or a file that is no DuckDB database: the page says so
    (and what to do), where Streamlit showed its redacted exception."""
    target = tmp_path / "hands.duckdb"
    if kind == "folder":
        target.mkdir()
    else:
        target.write_text("not a database", encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(target))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(str(error.value) for error in at.error).replace("\\", "")
    assert "cannot read its data" in said and "hands.duckdb" in said
    assert ("is a folder" if kind == "folder" else "not a handlab database") in said


def test_replayer_names_a_player_as_typed(own_db: Path, tmp_path: Path) -> None:
    """A player named as Markdown is named as typed in the replayer's step line ("**Ann**
    deals" was drawn bold)."""
    from analytics.simulate import simulate
    from analytics.warehouse import ingest
    from parsers import write_hands
    from parsers.rule_options import Game

    [hand] = simulate(Game.SEVENEIGHT, 1, 3, 44)
    path = tmp_path / "named.phhs"
    write_hands([dataclasses.replace(hand, players=("**Ann**", "Bo", "Cy"))], path)
    ingest([path], own_db, workers=0)
    hand_id = count_rows(own_db, "SELECT h.hand_id FROM hands h JOIN seats s USING (hand_id) "
                                 "WHERE s.player = '**Ann**' LIMIT 1")
    at = open_app("replayer", hand=str(hand_id))
    at.button(key="step_start").click().run()
    at.button(key="step_next").click().run()
    step = at.markdown[0].value
    assert "Step 1 of" in step and "\\*\\*Ann\\*\\*" in step, step


def test_taking_a_file_out_twice_changes_nothing_the_second_time(own_db: Path) -> None:
    """Two tabs take out the same file: the first does; the second, still showing it, must
    not take out the file its box falls back to (it took the newest file out instead),
    and says the file is no longer loaded. Each take-out clears the choice and the box."""
    [(sha, before)] = duckdb.connect(str(own_db), read_only=True).execute(
        "SELECT sha256, (SELECT count(*) FROM files) FROM files ORDER BY path LIMIT 1"
    ).fetchall()
    tabs = [open_app(), open_app()]
    for tab in tabs:  # both show the file, confirmed
        tab.selectbox(key="forget_file").set_value(sha).run()
        tab.checkbox(key="forget_sure").check().run()
    first, second = tabs
    first.button(key="forget_go").click().run()
    assert not first.exception
    assert any("taken out" in str(message.value) for message in first.success)
    assert first.selectbox(key="forget_file").value is None
    assert first.checkbox(key="forget_sure").value is False
    second.button(key="forget_go").click().run()
    assert not second.exception
    assert any("is no longer loaded" in str(message.value) for message in second.error)
    assert count_rows(own_db, "SELECT count(*) FROM files") == before - 1
