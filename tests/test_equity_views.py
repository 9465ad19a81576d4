"""Questions over the stored equities (analytics.warehouse.sql.equity_views), the dashboard's
arithmetic on them (logic, charts, the replayer's StoredEquities) and uploads stored under
their original names (ingest(names=...))."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from analytics.dashboard import charts, logic
from analytics.dashboard.replayer import hand_from_detail, replay_steps, stored_equities
from analytics.equity import allin_moment
from analytics.equity.bigtwo_theory import bigtwo_contains
from analytics.evaluator import BigTwoKind
from analytics.warehouse import ingest
from analytics.warehouse.sql import equity_views, views
from analytics.warehouse.sql.views import HandFilter
from parsers.rule_options import BigTwoRules
from tests.test_dashboard_data import dashboard_con, dashboard_db, extra_histories

__all__ = ["dashboard_con", "dashboard_db"]


@pytest.fixture
def con(dashboard_con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    return dashboard_con


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(con.execute(sql).fetchall()[0][0])


# -- questions ---------------------------------------------------------------------------


def test_hand_equities_returns_the_stored_rows(con: duckdb.DuckDBPyConnection) -> None:
    hand_id = _one(con, "SELECT min(hand_id) FROM allin_results")
    frames = equity_views.hand_equities(con, hand_id)
    assert len(frames["allin"]) == _one(con, "SELECT count(*) FROM allin_results "
                                             f"WHERE hand_id = {hand_id}")
    assert frames["rummoli"].empty and frames["bigtwo"].empty
    assert list(frames["allin"]["seat"]) == sorted(frames["allin"]["seat"])


def test_rummoli_share_by_player_follows_the_filter(con: duckdb.DuckDBPyConnection) -> None:
    everyone = equity_views.rummoli_share_by_player(con, HandFilter())
    assert everyone["rounds"].sum() == _one(con, "SELECT count(*) FROM rummoli_strength")
    assert (everyone["mean"] - (everyone["realised"] - everyone["expected"])).abs().max() < 1e-9
    player = str(everyone["player"].iloc[0])
    one = equity_views.rummoli_share_by_player(con, HandFilter(players=(player,)))
    assert list(one["player"]) == [player]
    assert equity_views.rummoli_share_by_player(con, HandFilter(game="bigtwo")).empty
    # The old per-player view agrees on the totals.
    totals = views.rummoli_poker_share(con, HandFilter())
    merged = everyone.merge(totals, on="player")
    assert ((merged["expected"] * merged["rounds_x"] - merged["expected_share"]).abs()
            < 1e-9).all()


def test_rummoli_calibration_bins_every_round(con: duckdb.DuckDBPyConnection) -> None:
    bins = equity_views.rummoli_calibration(con, HandFilter(), bins=5)
    assert bins["rounds"].sum() == _one(con, "SELECT count(*) FROM rummoli_strength")
    assert set(bins["bin"]) <= set(range(5))
    for number, expected in zip(bins["bin"], bins["expected"], strict=True):
        assert int(number) / 5 <= float(expected) <= (int(number) + 1) / 5 + 1e-12
    with pytest.raises(ValueError, match="bins"):
        equity_views.rummoli_calibration(con, HandFilter(), bins=0)


def test_bigtwo_feature_results_group_every_game(con: duckdb.DuckDBPyConnection) -> None:
    games = _one(con, "SELECT count(*) FROM bigtwo_features")
    for feature in equity_views.BIGTWO_FEATURES:
        table = equity_views.bigtwo_feature_results(con, HandFilter(), feature=feature)
        assert table["games"].sum() == games, feature
    twos = equity_views.bigtwo_feature_results(con, HandFilter(), feature="twos")
    assert set(twos["bin"]) <= {"0", "1", "2", "3", "4"}
    with pytest.raises(ValueError, match="unknown feature"):
        equity_views.bigtwo_feature_results(con, HandFilter(), feature="twos; DROP TABLE x")


def test_bigtwo_dealt_gives_thirteen_cards_and_rules(con: duckdb.DuckDBPyConnection) -> None:
    dealt = equity_views.bigtwo_dealt(con, HandFilter())
    assert len(dealt) == _one(con, "SELECT count(*) FROM bigtwo_features")
    assert set(dealt["cards"].str.len()) == {26}
    assert dealt["rules"].str.startswith("{").all()
    assert len(equity_views.bigtwo_dealt(con, HandFilter(), sample=5)) == 5


# -- logic and charts ------------------------------------------------------------------


def test_share_and_calibration_tables_have_intervals(con: duckdb.DuckDBPyConnection) -> None:
    shares = logic.share_vs_expected(equity_views.rummoli_share_by_player(con, HandFilter()))
    many = shares[shares["rounds"] > 1]
    assert (many["ci_low"] <= many["mean"]).all()
    assert (many["mean"] <= many["ci_high"]).all()
    row = many.iloc[0]
    half = 1.959963984540054 * row["sd"] / math.sqrt(row["rounds"])
    assert abs(row["ci_high"] - row["mean"] - half) < 1e-12
    calibration = logic.calibration_table(equity_views.rummoli_calibration(con, HandFilter()))
    assert calibration["strength"].iloc[0].startswith("0.0-0.1")
    assert logic.share_vs_expected(pd.DataFrame()).empty
    assert logic.calibration_table(pd.DataFrame()).empty
    for figure in (charts.share_vs_expected(shares), charts.calibration(calibration),
                   charts.share_vs_expected(logic.share_vs_expected(pd.DataFrame())),
                   charts.calibration(logic.calibration_table(pd.DataFrame()))):
        assert figure.layout.title.text


def test_feature_table(con: duckdb.DuckDBPyConnection) -> None:
    table = logic.feature_table(equity_views.bigtwo_feature_results(con, HandFilter()))
    assert {"ci_low", "ci_high", "first_share"} <= set(table.columns)
    assert table["first_share"].between(0, 1).all()
    assert logic.feature_table(pd.DataFrame()).empty


def test_bigtwo_held_table_counts_against_theory() -> None:
    dealt = pd.DataFrame({
        "player": ["a", "b", "c"],
        "cards": ["3d4c5h6s7d8c9hTsJdQcKhAs2d",  # a straight, no pair
                  "3d3c3h3s4d4c5d6d7d8d9dTdJd",  # four of a kind, flush, straight flush
                  "3d4c5h6s7d8c9hTsJdQcKhAs2d"],
        "rules": ['{"straights": "sg_hk"}', '{"straights": "sg_hk"}',
                  '{"straights": "vietnamese", "four_card_plays": true}'],
    })
    table = logic.bigtwo_held_table(dealt)
    default = table[table["straights"] == "sg_hk"].set_index("category")
    assert default.loc["straight", "observed"] == 2
    assert default.loc["pair", "observed"] == 1
    assert default.loc["straight_flush", "observed"] == 1
    assert default.loc["four_of_a_kind", "hands"] == 2
    theory = bigtwo_contains(13, BigTwoRules())
    assert default.loc["flush", "theory_share"] == pytest.approx(
        float(theory.probability(BigTwoKind.FLUSH)))
    viet = table[table["straights"] == "vietnamese"]
    assert "two_pairs" in set(viet["category"])
    assert viet["p_value"].between(0, 1).all()
    assert logic.bigtwo_held_table(dealt.iloc[:0]).empty
    # One group at a time (the page's picker): that group's rows of the whole table, and
    # the groups and their words are those the whole table is cut into.
    groups = logic.bigtwo_held_groups(dealt)
    assert groups == [(13, "sg_hk", False), (13, "vietnamese", True)]
    # The most dealt first (the picker's default), not the first in name order.
    malaysian = dealt.assign(rules=['{"straights": "sg_hk"}', '{"straights": "malaysian"}',
                                    '{"straights": "sg_hk"}'])
    assert logic.bigtwo_held_groups(malaysian) == [(13, "sg_hk", False),
                                                   (13, "malaysian", False)]
    worded = dict(logic.held_groups(logic.held_words(table)))
    assert [logic.held_label(group) for group in groups] == list(worded)
    for group in groups:
        alone = logic.bigtwo_held_table(dealt, group)
        size, straights, four = group
        whole = table[(table["size"] == size) & (table["straights"] == straights)
                      & (table["four_card_plays"] == four)].reset_index(drop=True)
        pd.testing.assert_frame_equal(alone, whole)


def test_bigtwo_partitions() -> None:
    dealt = pd.DataFrame({"cards": ["3d3c3h3s4d4c5d6d7d8d9dTdJd", "2d2c2h5s7d8c9hTsJdQcKhAs3d"],
                          "rules": ["{}", "{}"]})
    most, theory = logic.bigtwo_partition_counts(dealt, 13, "most")
    assert most.to_dict() == {"no pair": 0, "pair": 0, "three of a kind": 1,
                              "four of a kind": 1}
    assert abs(theory.sum() - 1) < 1e-12
    twos, _ = logic.bigtwo_partition_counts(dealt, 13, "twos")
    assert twos.to_dict() == {"0": 1, "1": 0, "2": 0, "3": 1, "4": 0}
    with pytest.raises(ValueError, match="unknown partition"):
        logic.bigtwo_partition_counts(dealt, 13, "aces")


# -- the replayer ----------------------------------------------------------------------


@pytest.mark.parametrize(("game", "table", "heading"), [
    ("seveneight", "allin_results", "equity at the all-in"),
    ("rummoli", "rummoli_strength", "poker strength"),
    ("bigtwo", "bigtwo_features", "deal features"),
])
def test_stored_equities_in_the_replayer(con: duckdb.DuckDBPyConnection, game: str,
                                         table: str, heading: str) -> None:
    hand_id = _one(con, f"SELECT min(hand_id) FROM {table}")
    hand = hand_from_detail(views.hand_detail(con, hand_id))
    stored = stored_equities(hand, equity_views.hand_equities(con, hand_id))
    assert stored is not None
    assert stored.heading == heading
    rows = _one(con, f"SELECT count(*) FROM {table} WHERE hand_id = {hand_id}")
    assert sum(1 for cell in stored.cells if cell) == rows == len(stored.table)
    steps = replay_steps(hand, equities=stored.provider)
    assert steps[-1].equities == stored.values
    assert all(v is None for v in steps[0].equities or (None,))
    first = next(i for i, s in enumerate(steps) if s.equities and any(
        v is not None for v in s.equities))
    assert first == stored.from_step
    if game == "seveneight":
        assert stored.from_step == allin_moment(hand)
        seat = int(stored.table["seat"].iloc[0]) - 1
        assert stored.values[seat] == pytest.approx(float(stored.table["equity"].iloc[0]))
        assert "vs actual" in stored.cells[seat]


def test_no_stored_equities(con: duckdb.DuckDBPyConnection) -> None:
    hand_id = _one(con, "SELECT min(hand_id) FROM hands WHERE game = 'seveneight' AND "
                        "hand_id NOT IN (SELECT hand_id FROM allin_results)")
    hand = hand_from_detail(views.hand_detail(con, hand_id))
    assert stored_equities(hand, equity_views.hand_equities(con, hand_id)) is None
    assert stored_equities(hand, {}) is None


# -- uploads keep their names ----------------------------------------------------------


def test_ingest_stores_the_given_names(tmp_path: Path) -> None:
    path = extra_histories(tmp_path / "01-tmpname.phhs")
    db = tmp_path / "names.duckdb"
    summary = ingest([path], db, workers=0, names={str(path): "upload: hands.phhs"})
    assert [f.name for f in summary.files] == ["upload: hands.phhs"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT path FROM files").fetchall() == [("upload: hands.phhs",)]
        assert con.execute("SELECT DISTINCT source_file FROM hands").fetchall() == [
            ("upload: hands.phhs",)]
    finally:
        con.close()
