"""Equities stored on ingest: all-in adjusted results, Rummoli strengths, Big Two features."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from analytics.equity import (
    allin_adjusted,
    allin_moment,
    bigtwo_game_features,
    rummoli_round_strengths,
)
from analytics.rules import replay
from analytics.warehouse import ingest, open_writer, reader
from analytics.warehouse.identity import hand_id
from analytics.warehouse.pipeline.equities import RUMMOLI_INGEST_SAMPLES, seed_of
from analytics.warehouse.sql import views as v
from analytics.warehouse.sql.schema import LATEST_VERSION, migrate, schema_version
from analytics.warehouse.sql.stat_views import results_over_time
from parsers import dumps_hands
from parsers.model import HandHistory
from tests.test_warehouse_data import simulated, write

EQUITY_TABLES = ("allin_results", "rummoli_strength", "bigtwo_features")
SEVENEIGHT_HANDS = 160
RUMMOLI_ROUNDS = 24
BIGTWO_GAMES = 10


def hands() -> tuple[HandHistory, ...]:
    return (simulated("seveneight", SEVENEIGHT_HANDS, 5) + simulated("rummoli", RUMMOLI_ROUNDS, 5)
            + simulated("bigtwo", BIGTWO_GAMES, 5))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("equity")
    write(folder / "in" / "all.phhs", dumps_hands(hands()))
    summary = ingest([folder / "in"], folder / "w.duckdb", workers=0)
    assert summary.exit_code == 0 and summary.rejected == 0
    return folder / "w.duckdb"


def frame(db: Path, sql: str) -> pd.DataFrame:
    with reader(db) as con:
        return con.execute(sql).fetchdf()


def counts(db: Path) -> dict[str, int]:
    with reader(db) as con:
        return {t: int(con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0])
                for t in (*EQUITY_TABLES, "hands")}


def test_allin_rows_match_the_equity_engine(loaded: Path) -> None:
    rows = frame(loaded, "SELECT * FROM allin_results ORDER BY hand_id, seat")
    expected: list[dict[str, object]] = []
    qualifying = 0
    for hand in simulated("seveneight", SEVENEIGHT_HANDS, 5):
        key = hand_id(hand)
        result = allin_adjusted(hand, replay(hand), seed=seed_of(key))
        if result is None:
            continue
        qualifying += 1
        for player in result.players:
            expected.append({"hand_id": key, "seat": player.seat,
                             "player": hand.player_name(player.seat),
                             "expected_net": player.expected_net, "luck": player.luck,
                             "equity": player.equity, "actual_net": player.actual_net,
                             "pot": result.pot, "exact": result.exact})
    assert qualifying >= 5, "the sample should hold all-in hands"
    assert rows["hand_id"].nunique() == qualifying
    want = pd.DataFrame(expected).sort_values(["hand_id", "seat"]).reset_index(drop=True)
    got = rows[want.columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-9)
    # Only hands all in with cards to come have rows.
    ids = set(rows["hand_id"])
    for hand in simulated("seveneight", SEVENEIGHT_HANDS, 5):
        assert (hand_id(hand) in ids) == (allin_moment(hand) is not None)


def test_luck_sums_to_zero_per_hand(loaded: Path) -> None:
    per_hand = frame(loaded, """
        SELECT hand_id, sum(luck) AS luck, max(pot) AS pot, bool_and(exact) AS exact,
               sqrt(sum(std_error * std_error)) AS se,
               sum(actual_net) - sum(expected_net) AS difference
        FROM allin_results GROUP BY hand_id""")
    assert not per_hand.empty
    for row in per_hand.to_dict("records"):
        tolerance = 1e-6 * max(row["pot"], 1) + (0 if row["exact"] else 4 * row["se"])
        assert abs(row["luck"]) <= tolerance, row
        assert row["difference"] == pytest.approx(row["luck"])


def test_rummoli_rows_per_dealt_player(loaded: Path) -> None:
    rows = frame(loaded, "SELECT * FROM rummoli_strength ORDER BY hand_id, seat")
    assert not rows.empty
    for column in ("p_best", "share", "p_win", "realised_share"):
        assert rows[column].between(0, 1).all(), column
    assert (rows["p_win"] <= rows["share"] + 1e-12).all()
    assert (rows["share"] <= rows["p_best"] + 1e-12).all()
    assert (rows.loc[~rows["exact"], "samples"] == RUMMOLI_INGEST_SAMPLES).all()
    assert (rows.loc[rows["exact"], "std_error"] == 0).all()
    # Every round whose cards are known: one row per dealt player, as the engine gives them.
    by_hand = dict(list(rows.groupby("hand_id")))
    rounds = 0
    for hand in simulated("rummoli", RUMMOLI_ROUNDS, 5):
        key = hand_id(hand)
        strengths = rummoli_round_strengths(hand, replay(hand), samples=RUMMOLI_INGEST_SAMPLES,
                                            seed=seed_of(key))
        if not strengths:
            assert key not in by_hand
            continue
        rounds += 1
        got = by_hand[key]
        assert got["seat"].tolist() == [s.seat for s in strengths]
        assert got["player"].tolist() == [hand.player_name(s.seat) for s in strengths]
        assert got["category"].tolist() == [s.category for s in strengths]
        assert got["p_best"].tolist() == [s.strength.p_best for s in strengths]
        assert got["share"].tolist() == [s.strength.share for s in strengths]
        assert got["won_poker_pot"].tolist() == [s.won_poker_pot for s in strengths]
        # Realised shares of a round: the best hand(s) at the table share 1.
        assert sum(got["realised_share"]) == pytest.approx(1.0)
    assert rounds == len(by_hand) > 0


def test_bigtwo_rows_equal_the_equity_function(loaded: Path) -> None:
    rows = frame(loaded, "SELECT * FROM bigtwo_features ORDER BY hand_id, seat")
    games = simulated("bigtwo", BIGTWO_GAMES, 5)
    assert len(rows) == sum(hand.num_players for hand in games)
    columns = ["seat", "cards", "twos", "aces", "has_lead", "pairs", "triples", "five_card",
               "distinct_five_card_ranks"]
    for hand in games:
        got = rows[rows["hand_id"] == hand_id(hand)]
        want = [[getattr(f, c) for c in columns] for f in bigtwo_game_features(hand)]
        assert got[columns].values.tolist() == want
        assert got["player"].tolist() == [hand.player_name(s) for s in got["seat"]]


def test_reingest_adds_no_rows(loaded: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    text = dumps_hands(hands())
    ingest([write(tmp_path / "a.phhs", text)], db, workers=0)
    before = counts(db)
    assert before == counts(loaded)
    # The same hands in another file (another order): all duplicates, no equity rows added.
    again = ingest([write(tmp_path / "b.phhs", dumps_hands(hands()[::-1]))], db, workers=0)
    assert again.loaded == 0 and again.duplicates == len(hands())
    assert counts(db) == before
    # A file mixing new and old hands: equity rows only for the new hand ids.
    extra = simulated("seveneight", SEVENEIGHT_HANDS + 80, 5)[SEVENEIGHT_HANDS:]
    mixed = ingest([write(tmp_path / "c.phhs", dumps_hands(hands()[:20] + extra))], db,
                   workers=0)
    assert mixed.loaded == len(extra)
    new_allin = sum(len(r.players) for h in extra
                    if (r := allin_adjusted(h, replay(h))) is not None)
    assert counts(db)["allin_results"] == before["allin_results"] + new_allin


def test_reingest_gives_identical_rows(loaded: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest([write(tmp_path / "a.phhs", dumps_hands(hands()))], db, workers=0)
    for table in EQUITY_TABLES:
        sql = f"SELECT * FROM {table} ORDER BY hand_id, seat"
        pd.testing.assert_frame_equal(frame(db, sql), frame(loaded, sql))


def test_migrates_a_version_2_database(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        assert migrate(con, target=2) == [1, 2]
        con.execute("INSERT INTO hands (hand_id, game, variant, rules, num_players, num_actions, "
                    "source_file, source_sha256, source_line, source_index, loaded_at) "
                    "VALUES (1, 'seveneight', 'N78', '{}', 2, 0, 'old', 'x', 1, 1, now())")
    assert LATEST_VERSION >= 3
    con = open_writer(db)
    try:
        assert schema_version(con) == LATEST_VERSION
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 1
        assert con.execute("SELECT count(*) FROM allin_results").fetchall()[0][0] == 0
        description = con.execute("SELECT description FROM schema_version WHERE version = 3"
                                  ).fetchall()[0][0]
        assert "allin_results" in description
    finally:
        con.close()
    games = simulated("seveneight", 40, 5)
    ingest([write(tmp_path / "in.phhs", dumps_hands(games))], db, workers=0)
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 41
        stored = con.execute("SELECT count(DISTINCT hand_id) FROM allin_results").fetchall()
        assert stored[0][0] == sum(allin_moment(h) is not None for h in games)


def test_dashboard_views(loaded: Path) -> None:
    with reader(loaded) as con:
        totals = v.allin_totals(con, v.HandFilter())
        stored = con.execute("SELECT player, sum(luck), sum(expected_net), sum(actual_net), "
                             "count(*) FROM allin_results GROUP BY player").fetchall()
        by_player = totals.set_index("player")
        for player, luck, expected, actual, n in stored:
            assert by_player.loc[player, "luck"] == pytest.approx(luck)
            assert by_player.loc[player, "all_in_expected_net"] == pytest.approx(expected)
            assert by_player.loc[player, "all_in_actual_net"] == actual
            assert by_player.loc[player, "all_in_hands"] == n
        # Adjusted = actual - luck, per player.
        records = totals.to_dict("records")
        for record in records:
            assert record["adjusted_net"] == pytest.approx(record["net"] - record["luck"])
        sql_totals = con.execute("SELECT * FROM v_allin_player_totals").fetchdf()
        assert sorted(sql_totals["player"]) == sorted(p for p, *_ in stored)

        # The running totals (in big blinds) end at each player's total over his hands.
        curve = results_over_time(con, v.HandFilter(), game="seveneight", points=10_000,
                                  top=100)
        last = {str(r["player"]): r for r in curve.groupby("player").last()
                .reset_index().to_dict("records")}
        assert last
        in_bb = {str(p): (net, adjusted) for p, net, adjusted in con.execute("""
            SELECT s.player, sum(s.net / x.big_blind),
                   sum(coalesce(a.expected_net, s.net) / x.big_blind)
            FROM seats s JOIN stat_facts x USING (hand_id, seat)
            LEFT JOIN allin_results a USING (hand_id, seat)
            WHERE s.game = 'seveneight' GROUP BY s.player""").fetchall()}
        assert set(last) == set(in_bb)
        for player, (net, adjusted) in in_bb.items():
            assert last[player]["actual"] == pytest.approx(net)
            assert last[player]["adjusted"] == pytest.approx(adjusted)
        series = con.execute("SELECT player, max(hand_no), arg_max(cumulative_adjusted, hand_no)"
                             " FROM v_allin_cumulative GROUP BY player").fetchall()
        for player, _, adjusted in series:
            assert adjusted == pytest.approx(by_player.loc[player, "adjusted_net"])
        other = results_over_time(con, v.HandFilter(), game="bigtwo")
        assert (other["adjusted"] == other["actual"]).all()

        share = v.rummoli_poker_share(con, v.HandFilter())
        assert not share.empty
        assert share["realised_share"].sum() == pytest.approx(
            con.execute("SELECT count(DISTINCT hand_id) FROM rummoli_strength").fetchall()[0][0])
        assert (share["expected_share"] <= share["rounds"]).all()
        one = share["player"].iloc[0]
        only = v.rummoli_poker_share(con, v.HandFilter(players=(one,)))
        assert only["player"].tolist() == [one]
        assert math.isfinite(float(only["expected_share_std_error"].iloc[0]))
