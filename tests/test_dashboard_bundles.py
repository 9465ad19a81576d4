"""The pages' bundled questions answer exactly what their questions asked apart answer,
under every filter of tests/test_facts.py (those answers are the specification)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.dashboard import charts, logic
from analytics.warehouse import ENV_VAR, reader
from analytics.warehouse.sql import views as v
from parsers.rule_options import GAME_NAMES
from tests.test_dashboard_data import build_dashboard_db
from tests.test_facts import FILTERS

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dashboard_db(tmp_path_factory.mktemp("bundles"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FILTERS))
def test_overview_page_answers_as_its_questions(db: Path, name: str) -> None:
    f = FILTERS[name]
    with reader(db) as con:
        bundle = v.overview_page(con, f, limit=7)
        pd.testing.assert_frame_equal(bundle["overview"], v.overview(con, f))
        pd.testing.assert_frame_equal(bundle["sessions"], v.sessions(con, f, limit=7))
        for bucket in v.BUCKETS:
            pd.testing.assert_frame_equal(bundle[f"hands_over_time {bucket}"],
                                          v.hands_over_time(con, f, bucket=bucket),
                                          obj=bucket)
        # The temporary table goes with the answer: asking again works the same.
        again = v.overview_page(con, f, limit=7)
        pd.testing.assert_frame_equal(again["overview"], bundle["overview"])


def _plain_detail(con: duckdb.DuckDBPyConnection, hand_id: int) -> dict[str, pd.DataFrame]:
    """hand_detail as it was: every table looked up, whatever the hand's game (the hand
    with its stakes label)."""
    orders = {"hands": "", "seats": " ORDER BY seat", "actions": " ORDER BY seq",
              "board": " ORDER BY pot_order", "showdowns": "", "awards": "",
              "bigtwo_scores": " ORDER BY seat"}
    stakes = {"hands": f", {v.STAKES} AS stakes"}
    frames = {table: con.execute(f"SELECT *{stakes.get(table, '')} FROM {table} h "
                                 f"WHERE hand_id = $h{order}", {"h": hand_id}).fetchdf()
              for table, order in orders.items()}
    frames["hand"] = frames.pop("hands")
    frames["scores"] = frames.pop("bigtwo_scores")
    return frames


def test_hand_detail_answers_as_every_lookup_did(db: Path) -> None:
    with reader(db) as con:
        ids = [int(row[0]) for row in con.execute(
            "SELECT hand_id FROM (SELECT hand_id, game, row_number() OVER "
            "(PARTITION BY game ORDER BY hand_id) AS n FROM hands) WHERE n <= 3").fetchall()]
        for hand_id in [*ids, 12345]:  # the last is no hand at all
            got, expected = v.hand_detail(con, hand_id), _plain_detail(con, hand_id)
            assert got.keys() == expected.keys()
            for name, frame in expected.items():
                pd.testing.assert_frame_equal(got[name], frame, obj=f"{hand_id} {name}")
        assert any(not v.hand_detail(con, h)["board"].empty for h in ids)


def test_the_overview_page_draws_the_bundle(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page with a player filter: its sessions table is ``sessions``' and switching the
    chart, opened, redraws from the bundle when the period changes (no question of its own)."""
    monkeypatch.setenv(ENV_VAR, str(db))
    player = "Cy"
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["player"] = player
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    f = v.HandFilter(players=(player,))
    with reader(db) as con:
        expected = v.sessions(con, f, limit=500)
        months = v.hands_over_time(con, f, bucket="month")
    shown = [frame.value for frame in at.dataframe
             if "session or game id" in frame.value.columns]
    # The page shows the same rows under human headers (logic.SESSION_HEADERS).
    pd.testing.assert_frame_equal(
        shown[0].reset_index(drop=True),
        logic.human_table(expected.assign(game=expected["game"].map(GAME_NAMES)),
                          logic.SESSION_HEADERS), check_dtype=False)
    # The chart opens on demand (a new browser's first page without plotly's code).
    assert not at.get("plotly_chart") and not at.segmented_control
    at.session_state["overview_over_time"] = True
    at.run()
    at.segmented_control(key="overview_bucket").set_value("month").run()
    assert not at.exception, [e.value for e in at.exception]
    drawn = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    wanted = json.loads(charts.hands_over_time(months).to_json())["data"]
    assert [(t["name"], t["x"], t["y"]) for t in drawn] == [
        (t["name"], t["x"], t["y"]) for t in wanted]
