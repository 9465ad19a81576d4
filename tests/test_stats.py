"""The player statistics (analytics/stats, stat_facts, stat_views) on hand-counted hands.

tests/data/stats/seveneight.phhs holds nine 7 & 8 hands written by hand (a walk, a
limped pot, a 3-bet, an all-in before round 2, a short all-in that does not reopen the
betting, a c-bet, a bet into the raiser, a six-handed walk, a heads-up limped pot); the
expected counts below were counted by hand from the actions, hand by hand (the letters
name the hands as the file's comments do).  Big Two is checked against counts made in
pandas from ``seats`` and ``actions`` (not from ``seat_facts``), and every statistic's
count is checked to lie within its opportunities on simulated hands (hypothesis).
"""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from analytics.equity import seveneight_equity
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.stats import STATS, Kind, stat_columns, stats_of
from analytics.stats.cells import cell_text, display_grid
from analytics.stats.interval import ratio_interval, wilson_interval
from analytics.warehouse import ingest, open_writer, reader
from analytics.warehouse.pipeline.stat_rows import STAT_COLUMNS_V9
from analytics.warehouse.sql import facts
from analytics.warehouse.sql.stat_views import (
    player_rows,
    session_hands,
    stat_grid,
    stat_hands,
)
from analytics.warehouse.sql.views import HandFilter
from parsers import write_hands
from parsers.rule_options import Game
from tests.grid_cells import assert_grid_counts, grid_cells
from tests.migrated import assert_migrated_again

DATA = Path(__file__).parent / "data" / "stats"
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"

# Counted by hand (see the module docstring): player -> column -> value.
EXPECTED: dict[str, dict[str, int]] = {
    "Ann": {"vpip": 3, "vpip_opps": 9, "pfr": 0, "pfr_opps": 9,
            "three_bet": 0, "three_bet_opps": 3, "fold_to_three_bet": 0,
            "fold_to_three_bet_opps": 0, "af_round1": 0, "af_round1_opps": 3,
            "af_round2": 1, "af_round2_opps": 0, "af": 1, "af_opps": 3, "afq": 1,
            "afq_opps": 3, "cbet": 0, "cbet_opps": 0, "fold_to_cbet": 0,
            "fold_to_cbet_opps": 0, "wtsd": 1, "wtsd_opps": 3, "wsd": 1, "wsd_opps": 1,
            "wwsr2": 1, "wwsr2_opps": 3, "up_high": 4, "up_high_opps": 9, "hands": 9},
    # Bo's two walks (A, H) are no VPIP or PFR chance: he never acted in round 1.
    "Bo": {"vpip": 3, "vpip_opps": 7, "pfr": 0, "pfr_opps": 7,
           "three_bet": 0, "three_bet_opps": 3, "fold_to_three_bet": 0,
           "fold_to_three_bet_opps": 0, "af_round1": 0, "af_round1_opps": 3,
           "af_round2": 2, "af_round2_opps": 1, "af": 2, "af_opps": 4, "afq": 2,
           "afq_opps": 4, "cbet": 0, "cbet_opps": 0, "fold_to_cbet": 0,
           "fold_to_cbet_opps": 1, "wtsd": 3, "wtsd_opps": 5, "wsd": 1, "wsd_opps": 3,
           "wwsr2": 2, "wwsr2_opps": 5, "up_high": 4, "up_high_opps": 9, "hands": 9},
    "Cy": {"vpip": 5, "vpip_opps": 7, "pfr": 4, "pfr_opps": 7,
           "three_bet": 0, "three_bet_opps": 0, "fold_to_three_bet": 1,
           "fold_to_three_bet_opps": 2, "af_round1": 4, "af_round1_opps": 2,
           "af_round2": 1, "af_round2_opps": 0, "af": 5, "af_opps": 2, "afq": 1,
           "afq_opps": 2, "cbet": 1, "cbet_opps": 1, "fold_to_cbet": 0,
           "fold_to_cbet_opps": 0, "wtsd": 3, "wtsd_opps": 4, "wsd": 3, "wsd_opps": 3,
           "wwsr2": 3, "wwsr2_opps": 4, "up_high": 4, "up_high_opps": 7, "hands": 7},
    "Dee": {"vpip": 5, "vpip_opps": 7, "pfr": 3, "pfr_opps": 7,
            "three_bet": 2, "three_bet_opps": 4, "fold_to_three_bet": 0,
            "fold_to_three_bet_opps": 0, "af_round1": 3, "af_round1_opps": 2,
            "af_round2": 0, "af_round2_opps": 2, "af": 3, "af_opps": 4, "afq": 0,
            "afq_opps": 3, "cbet": 0, "cbet_opps": 0, "fold_to_cbet": 1,
            "fold_to_cbet_opps": 1, "wtsd": 3, "wtsd_opps": 4, "wsd": 0, "wsd_opps": 3,
            "wwsr2": 0, "wwsr2_opps": 4, "up_high": 4, "up_high_opps": 7, "hands": 7},
    # Hand H only: a fold each in round 1, so no AFq (round 2's) chance (Gus's two jacks
    # give no up_high chance).
    "Eve": {"vpip": 0, "afq": 0, "afq_opps": 0, "up_high": 0, "up_high_opps": 1},
    "Fay": {"vpip": 0, "afq": 0, "afq_opps": 0, "up_high": 1, "up_high_opps": 1},
    "Gus": {"vpip": 0, "afq": 0, "afq_opps": 0, "up_high": 0, "up_high_opps": 0},
    "Hal": {"vpip": 0, "afq": 0, "afq_opps": 0, "up_high": 1, "up_high_opps": 1},
}

# Positions by hand (file order) and player, by the blinds and the button (seat N).
POSITIONS = {
    (1, "Ann"): "small blind", (1, "Bo"): "big blind", (1, "Cy"): "late",
    (1, "Dee"): "button",
    (8, "Eve"): "early", (8, "Fay"): "late", (8, "Gus"): "late", (8, "Hal"): "button",
    (9, "Bo"): "big blind", (9, "Ann"): "small blind",
}


@pytest.fixture(scope="module")
def stats_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("stats") / "stats.duckdb"
    summary = ingest([DATA], db, workers=0)
    assert summary.rejected == 0
    return db


NL_6MAX = Path(__file__).resolve().parents[1] / "data" / "samples" / "seveneight-nl-6max.phhs"


@pytest.fixture(scope="module")
def nl_6max_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2,400-hand 7 & 8 sample, ingested once for the tests that only read it."""
    db = tmp_path_factory.mktemp("nl-6max") / "nl-6max.duckdb"
    assert ingest([NL_6MAX], db, workers=0).rejected == 0
    return db


@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same hands, every third without its time of day, at the same tables."""
    import re

    folder = tmp_path_factory.mktemp("mixed")
    hands = re.split(r"(?m)^(?=\[\d+\]$)", NL_6MAX.read_text())
    mixed = "".join(re.sub(r"(?m)^time = .*\n", "", hand) if number % 3 == 0 else hand
                    for number, hand in enumerate(hands))
    (folder / "mixed.phhs").write_text(mixed)
    db = folder / "mixed.duckdb"
    assert ingest([folder / "mixed.phhs"], db, workers=0).rejected == 0
    return db


def _grid(db: Path, **kwargs: Any) -> pd.DataFrame:
    with reader(db) as con:
        return stat_grid(con, HandFilter(), game="seveneight", **kwargs)


def test_seveneight_counts_match_the_hand_counts(stats_db: Path) -> None:
    grid = grid_cells(_grid(stats_db))
    assert_grid_counts(grid, EXPECTED)


def test_the_grid_has_one_count_and_one_opps_column_per_statistic(stats_db: Path) -> None:
    grid = _grid(stats_db)
    names = list(stat_columns("seveneight"))
    assert [c for c in grid.columns if c in names] == names
    assert names[:4] == ["vpip", "vpip_opps", "pfr", "pfr_opps"]
    # The table migration 10 created holds every stored definition's columns.
    for game in (Game.SEVENEIGHT, Game.RUMMOLI):
        assert set(stat_columns(game)) <= set(STAT_COLUMNS_V9)
    assert tuple(names) == STAT_COLUMNS_V9[:len(names)]


def test_positions_by_blinds_and_button(stats_db: Path) -> None:
    with reader(stats_db) as con:
        rows = con.execute("""
            SELECT h.source_index, x.player, x.position FROM stat_facts x
            JOIN hands h USING (hand_id)""").fetchall()
    found = {(index, player): position for index, player, position in rows}
    for key, position in POSITIONS.items():
        assert found[key] == position, key
    split = _grid(stats_db, split="position")
    ann = grid_cells(split[split["player"] == "Ann"], "position")
    # Ann: small blind in A-G (7 hands) and H, and in the heads-up hand I.
    assert int(ann["small blind"]["vpip_opps"]) == 9


# Hands at the edges of the blinds, counted by hand in the file's comments: (hand, player)
# -> position, VPIP, VPIP (and PFR) opportunities.
EDGES_FILE = Path(__file__).parent / "data" / "stats_cases" / "seveneight_edges.phhs"
EDGES = {
    (1, "Ann"): ("small blind", 0, 1), (1, "Bo"): ("big blind", 0, 0),
    (1, "Cy"): ("late", 0, 1), (1, "Dee"): ("button", 1, 1),
    (2, "Ann"): ("small blind", 0, 1), (2, "Bo"): ("big blind", 0, 1),
    (2, "Cy"): ("late", 0, 1), (2, "Dee"): ("button", 0, 1),
    (3, "Bo"): ("big blind", 0, 0), (3, "Ann"): ("small blind", 0, 1),
}


def test_short_and_equal_blinds_and_walks(tmp_path: Path) -> None:
    """A call costs chips (a short big blind's post is the bet), a walk and an all-in
    before round 1 are no VPIP or PFR chance, and of two equal blinds the big one is
    seat 2 (heads-up seat 1), as docs/statistics.md decides."""
    db = tmp_path / "edges.duckdb"
    assert ingest([EDGES_FILE], db, workers=0).rejected == 0
    with reader(db) as con:
        rows = con.execute("""
            SELECT h.source_index, x.player, x.position, x.vpip, x.vpip_opps, x.pfr_opps
            FROM stat_facts x JOIN hands h USING (hand_id)""").fetchall()
    found = {(index, player): (position, vpip, opps)
             for index, player, position, vpip, opps, pfr_opps in rows if pfr_opps == opps}
    assert found == EDGES


def test_split_by_up_rank_and_stakes_add_up(stats_db: Path) -> None:
    whole = _grid(stats_db).set_index("player")
    for split in ("up_rank", "stakes", "position"):
        parts = _grid(stats_db, split=split).groupby("player")[list(stat_columns(
            "seveneight"))].sum()
        pd.testing.assert_frame_equal(parts.astype("int64"),
                                      whole[parts.columns].astype("int64"),
                                      check_names=False)


def test_results_in_big_blinds(stats_db: Path) -> None:
    with reader(stats_db) as con:
        seats = con.execute("""
            SELECT s.player, s.net, coalesce(a.expected_net, s.net) AS adjusted
            FROM seats s LEFT JOIN allin_results a USING (hand_id, seat)""").fetchdf()
    grid = grid_cells(_grid(stats_db))
    # Every hand's big blind is 2 chips (blinds 1/2, and 2/1 heads-up).
    for player, rows in seats.groupby("player"):
        hands = len(rows)
        assert int(grid[player]["net"]) == int(rows["net"].sum())
        assert grid[player]["bb_per_100"] == pytest.approx(
            100 * rows["net"].sum() / 2 / hands)
        assert grid[player]["allin_adj_bb_per_100"] == pytest.approx(
            100 * rows["adjusted"].sum() / 2 / hands)
    # Cy won the all-in of hand D (+201) but held the worse hand: adjusted below actual.
    assert grid["Cy"]["allin_adj_bb_per_100"] < grid["Cy"]["bb_per_100"]


def test_player_filter_and_dates(stats_db: Path) -> None:
    with reader(stats_db) as con:
        one = stat_grid(con, HandFilter(players=("Cy",)), game="seveneight")
        early = stat_grid(con, HandFilter(date_to=pd.Timestamp("2026-11-02").date()),
                          game="seveneight")
    assert list(one["player"]) == ["Cy"]
    # Hands A-D (1-2 November): Cy raised in C and D, folded to the 3-bet in C.
    cy = grid_cells(early)["Cy"]
    assert (cy["pfr"], cy["fold_to_three_bet"], cy["vpip_opps"]) == (2, 1, 4)


# The statistics counted once per hand (0 or 1 a seat): a list of hands matches them.
PER_HAND = ("vpip", "pfr", "three_bet", "fold_to_three_bet", "cbet", "fold_to_cbet", "wtsd",
            "wsd", "wwsr2", "up_high")


def test_the_hands_behind_a_cell_are_the_counted_ones(stats_db: Path) -> None:
    with reader(stats_db) as con:
        index = dict(con.execute("SELECT hand_id, source_index FROM hands").fetchall())
        for player, expected in EXPECTED.items():
            for name in PER_HAND:
                if name not in expected:
                    continue
                rows = stat_hands(con, HandFilter(), game="seveneight", player=player,
                                  stat=name)
                assert int((rows["counted"] > 0).sum()) == expected[name], (player, name)
                assert set(rows["counted"]) <= {0, 1}
                if f"{name}_opps" in expected:
                    assert len(rows) == expected[f"{name}_opps"], (player, name)
            # A ratio: its hands' counts and opportunities add up to the cell's.
            if "af_opps" in expected:
                rows = stat_hands(con, HandFilter(), game="seveneight", player=player,
                                  stat="af")
                assert (rows["counted"].sum(), rows["opportunities"].sum()) == (
                    expected["af"], expected["af_opps"])
            if "hands" in expected:  # a result cell: all his hands
                rows = stat_hands(con, HandFilter(), game="seveneight", player=player)
                assert len(rows) == expected["hands"] == rows["hand_id"].nunique()
        # Cy folded to the 3-bet in hand C (the file's third), and faced Dee's short
        # all-in raise in E (the fifth), which he called.
        rows = stat_hands(con, HandFilter(), game="seveneight", player="Cy",
                          stat="fold_to_three_bet")
        assert sorted(index[h] for h in rows["hand_id"]) == [3, 5]
        assert [index[h] for h in rows[rows["counted"] > 0]["hand_id"]] == [3]
        # Split by position: Ann's small-blind hands (A-H and I).
        rows = stat_hands(con, HandFilter(), game="seveneight", player="Ann", stat="vpip",
                          split="position", split_value="small blind")
        assert len(rows) == 9
        with pytest.raises(ValueError, match="unknown statistic"):
            stat_hands(con, HandFilter(), game="seveneight", player="Ann", stat="nope")


@pytest.fixture(scope="module")
def two_games_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden 7 & 8 hands and a Rummoli sample (several days each), ingested."""
    db = tmp_path_factory.mktemp("backfill") / "two-games.duckdb"
    summary = ingest([DATA, SAMPLES / "rummoli-family.phhs"], db, workers=0)
    assert summary.rejected == 0
    return db


@pytest.mark.parametrize("chunk", [None, 3])
def test_backfill_gives_the_rows_the_ingest_wrote(two_games_db: Path, tmp_path: Path,
                                                  chunk: int | None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The backfill (migration 12's, bulk loads') reads the stored rows back and makes the
    rows the ingest made, for both games, in runs of days (``chunk`` hands at a time)."""
    if chunk is not None:
        monkeypatch.setattr(facts, "STAT_CHUNK_HANDS", chunk)
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(two_games_db.read_bytes())
    con = open_writer(copy)
    try:
        before = con.execute("SELECT * FROM stat_facts ORDER BY hand_id, seat").fetchdf()
        assert set(before["game"]) == {"seveneight", "rummoli"}
        con.execute("DELETE FROM stat_facts WHERE game = 'rummoli' OR hand_id % 2 = 0")
        facts.fill_missing_stats(con)
        after = con.execute("SELECT * FROM stat_facts ORDER BY hand_id, seat").fetchdf()
    finally:
        con.close()
    pd.testing.assert_frame_equal(before, after)


def test_wilson_interval_matches_scipy() -> None:
    for count, n in ((12, 40), (0, 7), (7, 7), (1, 1000), (500, 1000)):
        low, high = wilson_interval([count], [n])
        expected = binomtest(count, n).proportion_ci(0.95, method="wilson")
        assert low[0] == pytest.approx(expected.low, abs=1e-9)
        assert high[0] == pytest.approx(expected.high, abs=1e-9)
    low, high = wilson_interval([0], [0])
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_ratio_interval_maps_the_share_interval() -> None:
    low, high = ratio_interval([12], [40])
    share = binomtest(12, 52).proportion_ci(0.95, method="wilson")
    assert low[0] == pytest.approx(share.low / (1 - share.low))
    assert high[0] == pytest.approx(share.high / (1 - share.high))
    assert low[0] < 12 / 40 < high[0]
    assert np.isinf(ratio_interval([5], [0])[1][0])


def test_cells_text_and_grey() -> None:
    assert cell_text(12, 40, Kind.RATE) == "12/40 (30%)"
    assert cell_text(12, 40, Kind.RATIO) == "12:40 (0.30)"
    assert cell_text(3, 0, Kind.RATIO) == "3:0 (∞)"
    assert cell_text(185, 83, Kind.MEAN) == "185 in 83 (2.23)"
    assert cell_text(0, 0, Kind.RATE) == "0/0"
    grid = pd.DataFrame({"player": ["a", "b"], "vpip": [12, 3], "vpip_opps": [40, 29],
                         "af": [20, 5], "af_opps": [10, 5]})
    vpip, af = (s for s in STATS[Game.SEVENEIGHT] if s.name in ("vpip", "af"))
    cells, tips, grey = display_grid(grid, [vpip, af])
    assert list(cells["vpip"]) == ["12/40 (30%)", "3/29 (10%)"]
    assert list(grey["vpip"]) == [False, True]
    assert list(grey["af"]) == [False, True]  # 30 actions counted, then 10
    assert str(tips["vpip"].iloc[0]).startswith("95% interval 18.1% to 45.4%")


@pytest.fixture(scope="module")
def bigtwo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bigtwo")
    write_hands(simulate_bigtwo(60, 4, 11), folder / "bigtwo.phhs")
    write_hands(simulate_bigtwo(40, 3, 12), folder / "bigtwo3.phhs")
    ingest([folder], folder / "b2.duckdb", workers=0)
    return folder / "b2.duckdb"


def test_bigtwo_against_counts_from_seats_and_actions(bigtwo_db: Path) -> None:
    with reader(bigtwo_db) as con:
        grid = stat_grid(con, HandFilter(), game="bigtwo", fry_threshold=6)
        seats = con.execute("SELECT hand_id, seat, player, place, net FROM seats").fetchdf()
        acts = con.execute("""SELECT hand_id, CASE WHEN verb = 'dh' THEN target ELSE actor END
                              AS seat, verb, cards FROM actions
                              WHERE verb IN ('dh', 'pl')""").fetchdf()
    acts["n"] = acts["cards"].str.len() // 2
    acts["twos"] = acts["cards"].str.count("2")
    dealt = acts[acts["verb"] == "dh"].groupby(["hand_id", "seat"])["n"].sum()
    played = acts[acts["verb"] == "pl"].groupby(["hand_id", "seat"]).agg(
        n=("n", "sum"), twos=("twos", "sum"), five=("n", lambda s: int((s == 5).sum())))
    seats = seats.set_index(["hand_id", "seat"])
    seats["left"] = dealt.reindex(seats.index).fillna(0) - played["n"].reindex(
        seats.index).fillna(0)
    seats["twos"] = played["twos"].reindex(seats.index).fillna(0)
    seats["five"] = played["five"].reindex(seats.index).fillna(0)
    by_player = grid_cells(grid)
    for player, rows in seats.groupby("player"):
        games = len(rows)
        expected = {
            "win_rate": int((rows["place"] == 1).sum()), "win_rate_opps": games,
            "cards_left": int(rows["left"].sum()), "fry": int((rows["left"] >= 6).sum()),
            "place_2": int((rows["place"] == 2).sum()),
            "not_out": int(rows["place"].isna().sum()),
            "twos": int(rows["twos"].sum()), "five_card": int(rows["five"].sum()),
            "points": int(rows["net"].sum()), "games": games,
            "wins": int((rows["place"] == 1).sum()),
        }
        got = {column: int(by_player[player][column]) for column in expected}
        assert got == expected, player
    assert grid["fry"].sum() > 0  # the threshold of 6 is reached in some game
    # The games behind a cell: the player's wins, his frys (from the pandas count).
    with reader(bigtwo_db) as con:
        for player, rows in seats.groupby("player"):
            won = stat_hands(con, HandFilter(), game="bigtwo", player=str(player),
                             stat="win_rate")
            assert len(won) == len(rows)  # every game is an opportunity
            hand_of = rows.index.get_level_values(0).to_numpy()
            wins = set(hand_of[(rows["place"] == 1).fillna(False).to_numpy(dtype=bool)])
            assert set(won[won["counted"] > 0]["hand_id"]) == wins
            fried = stat_hands(con, HandFilter(), game="bigtwo", player=str(player),
                               stat="fry", fry_threshold=6)
            assert set(fried[fried["counted"] > 0]["hand_id"]) == set(
                hand_of[(rows["left"] >= 6).to_numpy(dtype=bool)])


def test_player_rows_joins_extra_columns(bigtwo_db: Path) -> None:
    def extra(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
        return con.execute("SELECT player, count(*) AS seats_seen FROM seats "
                           "GROUP BY player").fetchdf()

    with reader(bigtwo_db) as con:
        rows = player_rows(con, HandFilter(), game="bigtwo", extras=[extra])
    assert (rows["seats_seen"] == rows["games"]).all()


def test_unknown_game_and_split_are_refused(stats_db: Path) -> None:
    with pytest.raises(ValueError, match="no statistics"):
        stats_of("poker")
    with reader(stats_db) as con, pytest.raises(ValueError, match="unknown split"):
        stat_grid(con, HandFilter(), game="seveneight", split="x; DROP TABLE hands")


@pytest.mark.slow
@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 6),
       variant=st.sampled_from(["N78", "P78", "F78"]))
def test_counts_never_exceed_opportunities(tmp_path_factory: pytest.TempPathFactory,
                                           seed: int, players: int, variant: str) -> None:
    folder = tmp_path_factory.mktemp("sim")
    write_hands(simulate_seveneight(120, players, seed, variant=variant),
                folder / "s.phhs")
    write_hands(simulate_bigtwo(20, min(players + 1, 4), seed), folder / "b.phhs")
    write_hands(simulate_rummoli(15, max(players, 3), seed), folder / "r.phhs")
    ingest([folder], folder / "s.duckdb", workers=0)
    with reader(folder / "s.duckdb") as con:
        for game in (Game.SEVENEIGHT, Game.BIGTWO, Game.RUMMOLI):
            grid = stat_grid(con, HandFilter(), game=game)
            assert len(grid) > 0
            for stat in stats_of(game):
                count, opps = grid[stat.name], grid[stat.opps_column]
                if stat.kind is Kind.RATE:
                    assert (count >= 0).all() and (count <= opps).all(), stat.name
                else:
                    assert (opps >= 0).all(), stat.name
            rows = con.execute("SELECT * FROM stat_facts").fetchdf()
            for stat in (*stats_of(Game.SEVENEIGHT), *stats_of(Game.RUMMOLI)):
                if stat.kind is Kind.RATE:
                    assert (rows[stat.name] <= rows[stat.opps_column]).all(), stat.name


def test_cli_writes_one_row_per_player(stats_db: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from analytics.cli import app

    out = tmp_path / "stats.csv"
    result = CliRunner().invoke(app, ["stats", "seveneight", "--db", str(stats_db),
                                      "--from", "2026-11-01", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(out)
    assert list(rows.columns[:5]) == ["player", "vpip", "vpip_opps", "pfr", "pfr_opps"]
    assert {"bb_per_100", "allin_adj_bb_per_100", "hands"} <= set(rows.columns)
    assert int(grid_cells(rows)["Dee"]["three_bet"]) == EXPECTED["Dee"]["three_bet"]
    printed = CliRunner().invoke(app, ["stats", "seveneight", "--db", str(stats_db),
                                       "--player", "Cy"])
    assert printed.exit_code == 0, printed.output
    assert "5/7 (71%)" in printed.output  # Cy's vpip
    refused = CliRunner().invoke(app, ["stats", "seveneight", "--db", str(stats_db),
                                       "--out", str(tmp_path / "x.txt")])
    assert refused.exit_code == 2


def test_migration_10_backfills_a_database_held_before(stats_db: Path, tmp_path: Path) -> None:
    """A database at version 9 (no stat_facts) gets the table, filled for every hand held,
    when a writer opens it."""
    copy = tmp_path / "old.duckdb"
    copy.write_bytes(stats_db.read_bytes())
    with duckdb.connect(str(copy)) as con:
        expected = con.execute("SELECT * FROM stat_facts ORDER BY hand_id, seat").fetchdf()
        con.execute("DROP TABLE stat_facts")
        for table in ("hand_notes", "player_notes"):  # migration 11's, after it
            con.execute(f"DROP TABLE {table}")
        for column in ("passes", "passes_with_play"):  # migration 12's
            con.execute(f"ALTER TABLE seat_facts DROP COLUMN {column}")
        con.execute("DROP TABLE hand_id_map")  # migration 13's
        con.execute("DELETE FROM schema_version WHERE version >= 10")
    open_writer(copy).close()
    with reader(copy) as con:
        got = con.execute("SELECT * FROM stat_facts ORDER BY hand_id, seat").fetchdf()
    pd.testing.assert_frame_equal(got, expected)


def test_migration_14_counts_the_seveneight_rows_again(tmp_path: Path) -> None:
    """A database at version 13 holds 7 & 8 rows counted the old way (the short big
    blind's small blind's check as a call, a walk as a chance, equal blinds both big);
    a writer opening it makes them again."""
    db = tmp_path / "old.duckdb"
    ingest([EDGES_FILE], db, workers=0)
    assert_migrated_again(db, 14, ["stat_facts"], [
        "UPDATE stat_facts SET vpip = 1, vpip_opps = 1, pfr_opps = 1, position = 'big blind'"])


def test_migration_18_counts_afq_and_rummoli_chances_again(tmp_path: Path) -> None:
    """A database at version 17 holds AFq over both rounds and Rummoli's VPIP and Raise
    over every round dealt in: a writer opening it makes every stat_facts row again."""
    db = tmp_path / "old.duckdb"
    ingest([EDGES_FILE, *sorted(SAMPLES.glob("rummoli-*.phhs"))], db, workers=0)
    assert_migrated_again(db, 18, ["stat_facts"], [
        "UPDATE stat_facts SET afq_opps = afq_opps + 3 WHERE game = 'seveneight'",
        "UPDATE stat_facts SET vpip_opps = 1, raise_opps = 1, rummoli_pot = 0 "
        "WHERE game = 'rummoli'"])


def _heads_up(number: int, big: int, currency: str | None, last: str, day: int) -> str:
    """Hand ``number`` of Dee and Ann heads-up at blinds ``big``/half, 100 big blinds each:
    Ann's ace up, then ``last`` (her raise and Dee's fold, or her fold)."""
    money = f'currency = "{currency}"\n' if currency else ""
    return f"""[{number}]
variant = "N78"
blinds_or_straddles = [{big}, {big // 2}]
min_bet = {big}
starting_stacks = [{100 * big}, {100 * big}]
{money}actions = ["d dh p1 9c9h", "d dh p2 AcKd", "p1 up 9c", "p2 up Ac", {last}]
players = ["Dee", "Ann"]
day = {day}
month = 12
year = 2026
"""


_TWO_CURRENCIES = "\n".join([_heads_up(1, 2, "USD", '"p2 cbr 20", "p1 f"', 5),
                             _heads_up(2, 100, "JPY", '"p2 f"', 5),
                             _heads_up(3, 2, None, '"p2 f"', 6)])


def test_two_currencies_are_two_stakes_and_their_chips_never_add(tmp_path: Path) -> None:
    """A hand in USD and one in JPY: Net said -48 for Ann (+2 dollars and -50 yen) and no
    label named a currency.  Each currency is now a stakes of its own (the label ends in
    it, as the ingest stores it and as views.STAKES reads it from the hands), and a row
    over two currencies has no Net; migration 19 gives stored labels their currency."""
    from analytics.dashboard.statistics import CURRENCY_NOTE, currency_note
    from analytics.warehouse.sql.views import STAKES, stakes_words

    path = tmp_path / "money.phhs"
    path.write_text(_TWO_CURRENCIES, encoding="utf-8")
    db = tmp_path / "money.duckdb"
    assert ingest([path], db, workers=0).loaded == 3
    with reader(db) as con:
        stored = dict(con.execute("SELECT source_index, stakes FROM hand_facts JOIN hands USING "
                                  "(hand_id)").fetchall())
        read = dict(con.execute(f"SELECT source_index, {STAKES} FROM hands h").fetchall())
        grid = stat_grid(con, HandFilter(), game="seveneight").set_index("player")
        split = stat_grid(con, HandFilter(), game="seveneight", split="stakes")
    assert stored == read == {1: "N78 min 2 USD", 2: "N78 min 100 JPY", 3: "N78 min 2"}
    assert stakes_words("N78 min 100 JPY") == "no limit, big blind 100 JPY"
    assert grid.loc[["Ann", "Dee"], "net"].isna().all()
    assert currency_note("seveneight", grid) == CURRENCY_NOTE  # the page says why
    assert currency_note("seveneight", split) is None
    nets = {(str(r["player"]), str(r["stakes"])): int(r["net"])
            for r in split.to_dict("records")}
    assert nets == {("Ann", "N78 min 2 USD"): 2, ("Dee", "N78 min 2 USD"): -2,
                    ("Ann", "N78 min 100 JPY"): -50, ("Dee", "N78 min 100 JPY"): 50,
                    ("Ann", "N78 min 2"): -1, ("Dee", "N78 min 2"): 1}
    unnamed = "SET stakes = regexp_replace(stakes, ' (USD|JPY)$', '')"
    assert_migrated_again(db, 19, ["hand_facts"], [f"UPDATE hand_facts {unnamed}"],
                          order="hand_id")
    assert_migrated_again(db, 19, ["seat_facts", "stat_facts"], [
        f"UPDATE {table} {unnamed}" for table in ("seat_facts", "stat_facts")])


def test_stake_levels_in_several_currencies_say_each_rows_unit(tmp_path: Path) -> None:
    """7 & 8's result per hand at each stake level, over levels in USD, JPY and chips, was
    headed "net (chips)" and "chips per hand" in the report and on Win rates: each row now
    says what it is counted in, and no header names one unit for all."""
    from analytics import reports
    from analytics.dashboard import logic
    from analytics.warehouse.sql.views import results_by_level

    path = tmp_path / "money.phhs"
    path.write_text(_TWO_CURRENCIES, encoding="utf-8")
    db = tmp_path / "money.duckdb"
    ingest([path], db, workers=0)
    with reader(db) as con:
        table = logic.level_table(results_by_level(con, HandFilter()), "seveneight")
        tables = reports.build_report(con, HandFilter()).tables()
    units = dict(zip(table["stakes"], table["counted in"], strict=True))
    assert units == {"no limit, big blind 2 USD": "USD", "no limit, big blind 100 JPY": "JPY",
                     "no limit, big blind 2": "chips"}
    assert not [header for header in table.columns if "chips" in header]
    assert list(tables["Result per hand at each stake level"].columns) == list(table.columns)


RANK_ORDER = "23456789TJQKA"


def _rummoli_recount(paths: list[Path]) -> dict[str, dict[str, int]]:
    """Rummoli's counts per player, recounted in Python from the parsed rounds and the
    engine's awards (not from the warehouse's SQL)."""
    from analytics.rules import replay
    from analytics.stats.rummoli import PAY_CARDS
    from parsers import read_hands
    from parsers.model import Verb

    totals: dict[str, dict[str, int]] = {}
    for path in paths:
        for hand in read_hands(path):
            outcome = replay(hand)
            seats = range(1, hand.num_players + 1)
            row = {seat: dict.fromkeys(
                ("rounds", "dealt", "acted", "raises", "calls", "showdown", "poker_won",
                 "exchanged",
                 "choice", "bid", "asked", "won_auctions", "bids", "auction_net", "laying",
                 "pay", "stops", "held", "laid", "paid", "rummoli"), 0) for seat in seats}
            widow = 0
            raised = False
            laid: list[tuple[int, str]] = []
            for action in hand.actions:
                verb, actor = action.verb, action.actor
                cards = "".join(str(card) for card in action.cards)
                if verb is Verb.DEAL_HOLE:
                    row[action.target or 0]["dealt"] = 1
                    row[action.target or 0]["held"] += len(action.cards)
                elif verb is Verb.DEAL_WIDOW:
                    widow += len(action.cards)
                elif verb is Verb.BET_RAISE:
                    row[actor]["raises"] += 1
                    row[actor]["acted"] = 1
                    raised = True
                elif verb in (Verb.CHECK_CALL, Verb.FOLD):
                    row[actor]["calls"] += verb is Verb.CHECK_CALL and raised
                    row[actor]["acted"] = 1
                elif verb is Verb.SHOW_MUCK:
                    row[actor]["showdown"] = 1
                elif verb in (Verb.EXCHANGE, Verb.PASS_WIDOW):
                    row[actor]["choice"] += 1
                    row[actor]["exchanged"] += verb is Verb.EXCHANGE
                elif verb in (Verb.BID, Verb.BID_PASS, Verb.AUCTION_WIN):
                    row[actor]["asked"] = 1
                    row[actor]["bid"] |= verb is Verb.BID
                    if verb is Verb.AUCTION_WIN:
                        row[actor]["won_auctions"] += 1
                        row[actor]["bids"] += action.amount or 0
                elif verb is Verb.PLAY:
                    laid.append((actor, cards))
                    row[actor]["laid"] += 1
                    row[actor]["pay"] += cards in PAY_CARDS
            for (actor, card), (_, following) in itertools.pairwise(laid):
                follows = (following[1] == card[1]
                           and RANK_ORDER.index(following[0]) == RANK_ORDER.index(card[0]) + 1)
                row[actor]["stops"] += not follows
            for seat in seats:
                if row[seat]["exchanged"] or row[seat]["won_auctions"]:
                    row[seat]["held"] = widow
            for award in outcome.awards:
                seat_row = row[award.player]  # awards name players 1..N
                if award.pot.startswith(("poker", "finale")):
                    seat_row["poker_won"] += award.amount
                elif award.pot == "rummoli":
                    seat_row["rummoli"] += award.amount
                elif award.pot == "auction":
                    seat_row["auction_net"] += award.amount
                elif award.pot in ("payments", "impasse") and award.amount < 0:
                    seat_row["paid"] -= award.amount
            for seat in seats:
                r = row[seat]
                laying = int(hand.finale_pot is None and bool(r["dealt"]))
                counts = {
                    "vpip": int(r["raises"] + r["calls"] > 0), "vpip_opps": r["acted"],
                    "raise": int(r["raises"] > 0), "raise_opps": r["acted"],
                    "poker_pot_won": int(r["poker_won"] > 0), "poker_pot_won_opps": r["dealt"],
                    "wsd": int(bool(r["showdown"]) and r["poker_won"] > 0),
                    "wsd_opps": r["showdown"],
                    "widow_exchange": r["exchanged"], "widow_exchange_opps": r["choice"],
                    "auction_bid": r["bid"], "auction_bid_opps": r["asked"],
                    "winning_bid": r["bids"], "winning_bid_opps": r["won_auctions"],
                    "widow_net": r["auction_net"], "widow_net_opps": r["dealt"],
                    "pay_cards": r["pay"], "pay_cards_opps": laying,
                    "stops": r["stops"], "stops_opps": laying,
                    "cards_left": (r["held"] - r["laid"]) * laying, "cards_left_opps": laying,
                    "chips_paid": r["paid"], "chips_paid_opps": laying,
                    # emptied his hand first, whatever the pot held
                    "rummoli_pot": int(laying and r["held"] == r["laid"]),
                    "rummoli_pot_opps": laying,
                    "rounds": 1,
                }
                player = totals.setdefault(hand.player_name(seat), {})
                for name, value in counts.items():
                    player[name] = player.get(name, 0) + int(value)
    return totals


def test_rummoli_counts_match_a_recount_of_the_rounds(tmp_path: Path) -> None:
    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    paths = sorted(samples.glob("rummoli-*.phhs"))
    db = tmp_path / "rummoli.duckdb"
    ingest(paths, db, workers=0)
    with reader(db) as con:
        grid = grid_cells(stat_grid(con, HandFilter(), game="rummoli"))
    expected = _rummoli_recount(paths)
    assert set(grid) == set(expected)
    for player, counts in expected.items():
        got = {name: int(grid[player][name]) for name in counts}
        assert got == counts, player
    # The rounds behind each cell add up to the recounted count and opportunities.
    with reader(db) as con:
        for player, counts in expected.items():
            for name in ("vpip", "wsd", "widow_exchange", "auction_bid", "stops"):
                if name not in counts:
                    continue
                rows = stat_hands(con, HandFilter(), game="rummoli", player=player,
                                  stat=name)
                assert int(rows["counted"].sum()) == counts[name], (player, name)
                if f"{name}_opps" in counts:
                    assert int(rows["opportunities"].sum()) == counts[f"{name}_opps"]
    # The samples exercise every family: showdowns, exchanges, auctions, stops.
    for name in ("wsd_opps", "widow_exchange", "auction_bid", "winning_bid", "stops"):
        assert sum(counts[name] for counts in expected.values()) > 0, name


_CHIP_STATS = ("winning_bid", "widow_net", "chips_paid")
"""Rummoli's statistics counted in chips (Stat.per_level)."""


@pytest.mark.slow
def test_rummoli_chips_of_two_currencies_never_add(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The sample game played once in dollars and once in yen (each its own game): Auction
    chips, Winning bid and Chips paid averaged dollars with yen, and so did Win rates and the
    results over time (Rummoli's level was its ante alone).  Now a row over both currencies
    has none of them; split by stakes each currency's equals a recount of its own rounds;
    each stakes and ante is a level of its own on Win rates, in the results over time and
    in the report."""
    from dataclasses import replace

    from analytics import reports
    from analytics.dashboard import logic
    from analytics.dashboard.replayer import hand_from_detail
    from analytics.rules import replay
    from analytics.warehouse.sql.stat_views import player_sessions, results_over_time
    from analytics.warehouse.sql.views import hand_detail, level_filter, results_by_level
    from parsers import read_hands

    sample = Path(__file__).resolve().parents[1] / "data" / "samples" / "rummoli-family.phhs"
    hands = list(read_hands(sample))
    paths = {}
    for currency in ("USD", "JPY"):
        paths[currency] = tmp_path / f"{currency}.phhs"
        write_hands([replace(hand, currency=currency, game_id=f"{hand.game_id}-{currency}")
                     for hand in hands], paths[currency])
    db = tmp_path / "money.duckdb"
    assert ingest(list(paths.values()), db, workers=0).loaded == 2 * len(hands)
    expected = {currency: _rummoli_recount([path]) for currency, path in paths.items()}
    nets: dict[str, int] = {}
    for hand in hands:
        for seat, net in enumerate(replay(hand).nets, start=1):
            nets[hand.player_name(seat)] = nets.get(hand.player_name(seat), 0) + net
    with reader(db) as con:
        grid = stat_grid(con, HandFilter(), game="rummoli").set_index("player")
        split = stat_grid(con, HandFilter(), game="rummoli", split="stakes")
        results = results_by_level(con, HandFilter())
        levels = sorted(set(results.loc[results["game"] == "rummoli", "level"]))
        curves = {level: results_over_time(con, level_filter(HandFilter(), "rummoli", level),
                                           game="rummoli", top=20, whole_round=True)
                  for level in levels}
        section, = reports.statistics_sections(con, HandFilter(), ["rummoli"], results)
        sessions = player_sessions(con, HandFilter(), game="rummoli")
        units = set(sessions["unit"])
        usd_sessions = player_sessions(con, HandFilter(stakes="NRM min 1 USD"), game="rummoli")
        dollars = HandFilter(stakes="NRM min 1 USD")
        one, = reports.statistics_sections(con, dollars, ["rummoli"],
                                           results_by_level(con, dollars))
        report = reports.build_report(con, dollars).tables()
        stored = {hand_from_detail(hand_detail(con, int(hand_id))).currency
                  for hand_id, in con.execute("SELECT min(hand_id) FROM hands GROUP BY currency"
                                              ).fetchall()}
    assert stored == {"USD", "JPY"}  # the replayer's hands keep their currency
    for name in (*_CHIP_STATS, "net", "net_per_round"):
        assert grid[name].isna().all(), name
    assert (grid["vpip_opps"] == [2 * expected["USD"][p]["vpip_opps"] for p in grid.index]).all()
    for row in split.to_dict("records"):
        counts = expected[str(row["stakes"]).rsplit(" ", 1)[1]][str(row["player"])]
        assert {name: int(row[name]) for name in _CHIP_STATS} == {
            name: counts[name] for name in _CHIP_STATS}
    assert any(counts[name] for counts in expected["USD"].values() for name in _CHIP_STATS)
    assert levels == ["NRM min 1 JPY ante 1", "NRM min 1 USD ante 1"]
    assert units == set(levels)  # a session's unit is its level (stat_views.session_unit)
    # Each session's net in its currency: they were headed "net (chips)", dollars and yen.
    from analytics.dashboard.statistics import sessions_table

    both, dollars_only = sessions_table(sessions, "rummoli"), sessions_table(usd_sessions,
                                                                             "rummoli")
    assert "net" in both and "net (chips)" not in both and "best hand" in both
    assert list(both["counted in"]) == [str(u).split()[3] for u in sessions["unit"]]
    assert set(both["counted in"]) == {"USD", "JPY"}
    assert "net (USD)" in dollars_only and "net per hour (USD)" in dollars_only
    assert set(dollars_only["counted in"]) == {"USD"}
    _check_sessions_page(db, sessions, monkeypatch)
    # Every table of one currency's rows is headed in it: the Overview's one per currency.
    tables = logic.player_tables(results, "rummoli")
    assert [title for title, _ in tables] == ["Rummoli: JPY per round", "Rummoli: USD per round"]
    assert all(f"net ({title.split()[1]})" in table.columns for title, table in tables)
    assert one.figures[0].layout.title.text == "Rummoli: cumulative results (USD, poker phase)"
    # One ante, two currencies: the grid opens split by stakes (its chip columns filled),
    # on the page and in the report.
    from analytics.dashboard.statistics import level_split

    assert level_split("rummoli", ["1"], levels) == "stakes"
    assert level_split("rummoli", ["1"], levels[:1]) is None
    assert "Played in more than one currency: a row per player and stakes." in section.text
    assert list(section.tables["Statistics counts (Rummoli)"].columns[:2]) == ["player", "stakes"]
    words = "no limit, minimum bet 1 USD, ante 1"  # the level's parts and pots, in USD too
    assert "net (USD per round)" in report[f"Result by part ({words})"].columns
    assert "paid out (USD)" in report[f"The nine pots: how often won, and by whom ({words})"]
    assert "expected (USD)" in report[f"Pot growth: observed against expected ({words})"]
    for level in levels:  # each level's results: one currency's rounds, net as replayed
        rows = results[results["level"] == level].set_index("player")
        assert {str(p): int(n) for p, n in rows["net"].items()} == nets
        last = curves[level].groupby("player")["actual"].last()
        assert {str(p): int(n) for p, n in last.items()} == {
            p: n for p, n in nets.items() if p in set(last.index)}
    assert [figure.layout.title.text for figure in section.figures] == [
        f"Rummoli: cumulative results ({currency}, poker phase; no limit, minimum bet 1 "
        f"{currency}, ante 1)" for currency in ("JPY", "USD")]
    _check_result_currencies(db, grid, split, nets)


def _check_sessions_page(db: Path, sessions: pd.DataFrame,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The Statistics page's sessions over dollars and yen: each net's unit in a column of
    its own (the headers name none), the caption says so, and a session picked says its
    hands' net in its own currency."""
    from analytics.warehouse import ENV_VAR
    from tests.test_dashboard_app import open_app

    monkeypatch.setenv(ENV_VAR, str(db))
    at = open_app("statistics", game="rummoli")
    at.toggle(key="stats_sessions_rummoli").set_value(True).run()
    assert not at.exception
    shown = next(f.value for f in at.dataframe if "first hand (id)" in f.value.columns)
    assert len(shown) == len(sessions)
    assert "net" in shown.columns and "net (chips)" not in shown.columns
    assert set(shown["counted in"]) == {"USD", "JPY"}
    assert any("Each net in its session's unit" in c.value for c in at.caption)
    at.session_state["sessions_table_rummoli"] = {
        "selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "'s session at" in said and f" {shown.iloc[0]['counted in']}." in said


def _check_result_currencies(db: Path, grid: pd.DataFrame, split: pd.DataFrame,
                             nets: dict[str, int]) -> None:
    """Each result in chips is read in its currency: the grid's header names the one its
    rows share, else each cell names its row's; the Net column had no unit at all."""
    from analytics.dashboard.statistics import counts_table, grid_html

    assert grid["currency"].isna().all()  # every player played in both currencies
    assert list(split["currency"]) == [str(s).rsplit(" ", 1)[1] for s in split["stakes"]]
    html = grid_html(split, "rummoli", keys=("player", "stakes"))
    assert '">Net</th>' in html and '">Net per round</th>' in html
    for row in split.to_dict("records"):
        assert f"<td>{int(row['net']):,} {row['currency']}</td>" in html
    bids = [f"{int(row['winning_bid'])} in {int(row['winning_bid_opps'])}" for row in
            split.to_dict("records") if row["currency"] == "USD" and row["winning_bid_opps"]]
    assert bids and all(f">{bid} (" in html and " USD</td>" in html for bid in bids)
    assert '">Winning bid</th>' in html
    assert list(counts_table(split, "rummoli")["currency"]) == list(split["currency"])
    assert "Net" in counts_table(split, "rummoli").columns  # several currencies: per row
    from analytics.warehouse.sql.search import describe_hands

    with reader(db) as con:
        dollars = stat_grid(con, HandFilter(stakes="NRM min 1 USD"), game="rummoli")
        mixed = stat_grid(con, HandFilter(), game="rummoli")
        currencies = dict(con.execute("SELECT hand_id, currency FROM hands").fetchall())
        listed = describe_hands(con, list(currencies))
    # A list of hands (a cell's, a session's, the search's) gives each hand's unit: its
    # pot and nets were headed "chips" whatever the currency.
    assert {int(h): u for h, u in zip(listed["hand_id"], listed["unit"], strict=True)} == {
        int(h): c for h, c in currencies.items()}
    assert counts_table(mixed, "rummoli")["currency"].isna().all()  # empty, not "—"
    html = grid_html(dollars, "rummoli")
    assert '">Net (USD)</th>' in html and '">Net per round (USD)</th>' in html
    assert '">Winning bid (USD)</th>' in html and '">Chips paid (USD)</th>' in html
    assert '">Rounds</th>' in html and '">VPIP</th>' in html  # a count has no currency
    assert {"Net (USD)", "Auction chips (USD)"} <= set(counts_table(dollars, "rummoli"))
    assert {str(p): int(n) for p, n in zip(dollars["player"], dollars["net"],
                                           strict=True)} == nets
    for net in dollars["net"]:
        assert f"<td>{int(net):,}</td>" in html  # the unit is in the header alone


def test_results_over_time_by_hand_and_by_date(stats_db: Path) -> None:
    from analytics.warehouse.sql.stat_views import results_over_time

    with reader(stats_db) as con:
        by_hand = results_over_time(con, HandFilter(players=("Cy",)), game="seveneight")
        by_day = results_over_time(con, HandFilter(players=("Cy",)), game="seveneight",
                                   by="date")
        nets = con.execute("""
            SELECT s.net, sh.hand_id IS NOT NULL AS shown FROM seats s
            JOIN hands h USING (hand_id)
            LEFT JOIN (SELECT DISTINCT hand_id, actor FROM actions WHERE verb = 'sm') sh
              ON sh.hand_id = s.hand_id AND sh.actor = s.seat
            WHERE s.player = 'Cy' ORDER BY h.source_index""").fetchall()
    # Cy's hands A-G in big blinds (2 chips): 0, -1, -3, +100.5 (D), +6 (E), +11.5 (F), 0.
    assert [net / 2 for net, _ in nets] == [0, -1, -3, 100.5, 6, 11.5, 0]
    assert list(by_hand["hand_no"]) == list(range(1, 8))
    assert list(by_hand["actual"]) == list(np.cumsum([net / 2 for net, _ in nets]))
    assert list(by_hand["showdown"]) == list(
        np.cumsum([net / 2 if shown else 0 for net, shown in nets]))
    assert list(by_hand["no_showdown"]) == list(
        np.cumsum([0 if shown else net / 2 for net, shown in nets]))
    # Hand D was all in before round 2: Cy's adjusted result there is his expected one,
    # his equity against Bo with Ann's and Dee's up cards (8c, 2h) out of the deck, over
    # the pot of 401 (both stacks and Ann's small blind), less his 200.
    cy = seveneight_equity(["5d9d", "AsKs"], dead="8c2h").equity[0]
    assert by_hand["adjusted"].iloc[3] == pytest.approx(-4 + (cy * 401 - 200) / 2)
    assert by_day["actual"].iloc[-1] == by_hand["actual"].iloc[-1]
    assert list(by_day["hands"]) == [2, 4, 6, 7]  # 1-4 November
    with reader(stats_db) as con:
        few = results_over_time(con, HandFilter(), game="seveneight", points=3, top=2)
    assert set(few["player"]) == {"Ann", "Bo"}  # nine hands each: the most
    # Every third hand, at the end of its day (no day holds more than three of Ann's
    # hands: days of 2, 2, 2, 1 and 2 hands): the days ending at 4, 6 and 9 (the last).
    ann = few[few["player"] == "Ann"]
    assert list(ann["hand_no"]) == [4, 6, 9]
    with reader(stats_db) as con:
        every = results_over_time(con, HandFilter(players=("Ann",)), game="seveneight")
    assert list(every["hand_no"]) == list(range(1, 10))
    assert list(ann["actual"]) == list(every.set_index("hand_no")["actual"].loc[[4, 6, 9]])


def _running_results(db: Path) -> pd.DataFrame:
    """Each 7 & 8 seat's running results in big blinds, counted in pandas from ``seats``,
    ``hands`` and ``actions`` in order of play (the reference for results_over_time)."""
    with reader(db) as con:
        seats = con.execute("""
            SELECT s.player, s.hand_id, s.net, coalesce(a.expected_net, s.net) AS adjusted,
                   coalesce(h.played_on, CAST(h.loaded_at AS DATE)) AS day, h.played_time,
                   h.source_index, greatest(coalesce(max(s2.blind), 0), 0) AS big,
                   coalesce(h.min_bet, h.small_bet, 1) AS fallback,
                   EXISTS (SELECT 1 FROM actions x WHERE x.hand_id = s.hand_id
                           AND x.actor = s.seat AND x.verb = 'sm') AS shown
            FROM seats s JOIN hands h USING (hand_id)
            JOIN seats s2 ON s2.hand_id = s.hand_id
            LEFT JOIN allin_results a ON a.hand_id = s.hand_id AND a.seat = s.seat
            WHERE h.game = 'seveneight' GROUP BY ALL""").fetchdf()
    seats["bb"] = seats["big"].where(seats["big"] > 0, seats["fallback"])
    seats["unit"] = seats["net"] / seats["bb"]
    seats = seats.sort_values(["player", "day", "played_time", "source_index", "hand_id"],
                              na_position="last")
    by = seats.groupby("player")
    seats["hand_no"] = by.cumcount() + 1
    seats["actual"] = by["unit"].cumsum()
    seats["adjusted"] = (seats["adjusted"] / seats["bb"]).groupby(seats["player"]).cumsum()
    seats["showdown"] = seats["unit"].where(seats["shown"], 0.0).groupby(
        seats["player"]).cumsum()
    seats["no_showdown"] = seats["unit"].where(~seats["shown"], 0.0).groupby(
        seats["player"]).cumsum()
    return seats


def test_hands_in_order_of_play_and_over_every_player(stats_db: Path) -> None:
    """``stat_hands`` in order of play gives Cy's hands A-G as the results by hand number
    count them (chips: 2 a big blind, counted by hand above); without a player, a bar's
    seats: every seat that turned up a rank, as ``seat_facts`` records the up card."""
    with reader(stats_db) as con:
        cy = stat_hands(con, HandFilter(), game="seveneight", player="Cy", order="play")
        aces = stat_hands(con, HandFilter(), game="seveneight", player=None,
                          split="up_rank", split_value="A")
        up = dict(con.execute("SELECT up_rank, count(*) FROM seat_facts "
                              "WHERE game = 'seveneight' AND up GROUP BY ALL").fetchall())
        with pytest.raises(ValueError, match="unknown order"):
            stat_hands(con, HandFilter(), game="seveneight", player="Cy", order="random")
    assert list(cy["net"]) == [0, -2, -6, 201, 12, 23, 0]
    assert len(aces) == up["A"] > 0
    assert set(aces["counted"]) == set(aces["opportunities"]) == {1}


@pytest.mark.parametrize("points", [400, 7, 50])
def test_results_by_hand_are_exact_at_every_point(nl_6max_db: Path, points: int) -> None:
    from analytics.warehouse.sql.stat_views import results_over_time

    db = nl_6max_db
    expected = _running_results(db).set_index(["player", "hand_no"])
    with reader(db) as con:
        got = results_over_time(con, HandFilter(), game="seveneight", points=points, top=20)
    assert set(got["player"]) == set(expected.index.get_level_values(0))
    at = expected.loc[list(zip(got["player"], got["hand_no"], strict=True))]
    for column in ("actual", "adjusted", "showdown", "no_showdown"):
        assert np.allclose(got[column], at[column], rtol=1e-12, atol=1e-12), column
    for player, rows in got.groupby("player"):
        total = len(expected.loc[player])
        hands = list(rows["hand_no"])
        assert hands == sorted(set(hands)) and hands[-1] == total
        if total <= points:  # every hand drawn, as before
            assert hands == list(range(1, total + 1))
        else:  # about every k-th hand (a day's end up to k - 1 hands after the k-th)
            step = total // points
            assert max(np.diff([0, *hands])) <= 2 * step - 1
            assert points <= len(hands) <= 2 * points + 1


def _recounted_sessions(seats: pd.DataFrame, gap: int) -> list[tuple[Any, ...]]:
    """The sessions recounted by hand from seats (player, place, played_at, source_index,
    net): each player's seats at a place in order of play, a new session after a longer
    gap than ``gap`` minutes (plain Python: pandas per session was 10 s of 3,000 sessions).
    Each: player, place, start, hands, net, best and worst hand, minutes."""
    expected = []
    ordered = sorted(zip(seats["player"], seats["place"], seats["played_at"],
                         seats["source_index"], seats["net"].astype(int), strict=True))
    for _, rows in itertools.groupby(ordered, key=lambda row: row[:2]):
        parts: list[list[tuple[Any, ...]]] = []
        for row in rows:
            if not parts or (row[2] - parts[-1][-1][2]).total_seconds() > gap * 60:
                parts.append([])
            parts[-1].append(row)
        for part in parts:
            nets = [row[4] for row in part]
            start, end = part[0][2], part[-1][2]
            expected.append((part[0][0], part[0][1], start, len(part), sum(nets),
                             max(max(nets), 0), min(min(nets), 0),
                             round((end - start).total_seconds() / 60, 6)))
    return sorted(expected)


def _found_sessions(got: pd.DataFrame) -> list[tuple[Any, ...]]:
    """``player_sessions``' rows in :func:`_recounted_sessions`' form."""
    return sorted(zip(got["player"], got["place"], got["start"], got["hands"], got["net"],
                      got["biggest_win"], got["biggest_loss"], got["minutes"].round(6),
                      strict=True))


@pytest.mark.parametrize("game", ["bigtwo", "rummoli"])
def test_big_two_and_rummoli_sessions_match_a_recount(tmp_path: Path, game: str) -> None:
    """Big Two's sessions are a player's games of one game id (or session), Rummoli's his
    rounds of one game: recounted from the hands with the default 30-minute gap, and with
    2 minutes, which splits them."""
    from analytics.warehouse.sql.stat_views import player_sessions

    hands = (simulate_bigtwo(40, 4, 61) if game == "bigtwo" else simulate_rummoli(40, 4, 62))
    write_hands(hands, tmp_path / "hands.phhs")
    db = tmp_path / "sessions.duckdb"
    assert ingest([tmp_path / "hands.phhs"], db, workers=0).rejected == 0
    for gap in (30, 2):
        with reader(db) as con:
            got = player_sessions(con, HandFilter(), game=game, gap_minutes=gap)
            seats = con.execute("""
                SELECT s.player, coalesce(h.game_id, h.table_name, h.source_file) AS place,
                       h.played_on + h.played_time AS played_at, h.source_index, s.net
                FROM seats s JOIN hands h USING (hand_id)""").fetchdf()
        assert seats["played_at"].notna().all() and seats["place"].nunique() > 1
        assert _found_sessions(got) == _recounted_sessions(seats, gap), gap


@pytest.mark.slow
@pytest.mark.parametrize("gap", [2, 30])
def test_sessions_match_a_recount_of_the_hands(nl_6max_db: Path, gap: int) -> None:
    from analytics.warehouse.sql.stat_views import player_sessions

    db = nl_6max_db
    with reader(db) as con:
        got = player_sessions(con, HandFilter(), game="seveneight", gap_minutes=gap,
                              limit=100_000)
        seats = con.execute("""
            SELECT s.player, coalesce(h.game_id, h.table_name, h.source_file) AS place,
                   h.played_on + h.played_time AS played_at, h.source_index, s.net
            FROM seats s JOIN hands h USING (hand_id)""").fetchdf()
    assert seats["played_at"].notna().all()
    assert _found_sessions(got) == _recounted_sessions(seats, gap)
    # The simulator's clock moves 40-180 s a hand: a 2-minute gap splits the evenings,
    # 30 minutes keeps each player's evening at a table whole.
    places = seats.groupby(["player", "place"]).ngroups
    assert len(got) > places if gap == 2 else len(got) < 3 * places
    # Each session's hands: as many as it counts, its net, and (with 30 minutes) every seat in
    # one session.  With 2 minutes, one session in ten (a query each: 3,000 were 20 s).
    listed: list[int] = []
    sessions = got.to_dict("records")
    with reader(db) as con:
        for session in sessions if gap == 30 else sessions[::10]:
            hands = session_hands(con, HandFilter(), game="seveneight",
                                  player=str(session["player"]), place=str(session["place"]),
                                  unit=str(session["unit"]),
                                  start=session["start"].to_pydatetime(),
                                  end=session["end"].to_pydatetime())
            assert (len(hands), int(hands["net"].sum())) == (session["hands"], session["net"])
            assert int(hands["hand_id"].iloc[0]) == int(session["first_hand"])
            listed += [hash((session["player"], h)) for h in hands["hand_id"]]
    assert len(listed) == len(set(listed))
    assert len(listed) == len(seats) if gap == 30 else len(sessions) > 2_000
    hourly = got.dropna(subset=["net_per_hour"])
    assert np.allclose(hourly["net_per_hour"], hourly["net"] * 60 / hourly["minutes"])


# player_sessions as session 17 wrote it, every hand in order (the reference its bins must
# reproduce), its first hand taken in order of play (it took any of equal times): kept
# here only to compare with.
_SESSIONS_ROW_BY_ROW = """
    WITH s AS (
        SELECT x.player, x.place, x.stakes AS unit, x.hand_id, x.net, x.day, x.source_index,
               CASE WHEN x.played_time IS NOT NULL THEN x.day + x.played_time END AS played_at
        FROM stat_facts x WHERE x.game = 'seveneight'),
    o AS (
        SELECT *, lag(played_at) OVER w AS prev_at, lag(day) OVER w AS prev_day,
               lag(hand_id) OVER w AS prev_hand
        FROM s
        WINDOW w AS (PARTITION BY player, place, unit
                     ORDER BY day, played_at NULLS LAST, source_index, hand_id)),
    g AS (
        SELECT *, sum(CASE WHEN prev_hand IS NULL
                             OR (played_at IS NULL) <> (prev_at IS NULL)
                             OR (played_at IS NULL AND day <> prev_day)
                             OR epoch(played_at) - epoch(prev_at) > $gap * 60
                           THEN 1 ELSE 0 END) OVER (
                   PARTITION BY player, place, unit
                   ORDER BY day, played_at NULLS LAST, source_index, hand_id
                   ROWS UNBOUNDED PRECEDING) AS number
        FROM o)
    SELECT player, place, coalesce(min(played_at), CAST(min(day) AS TIMESTAMP)) AS start,
           max(played_at) AS "end",
           (epoch(max(played_at)) - epoch(min(played_at))) / 60 AS minutes,
           count(*) AS hands, CAST(sum(net) AS BIGINT) AS net,
           CASE WHEN epoch(max(played_at)) > epoch(min(played_at))
                THEN sum(net) * 3600 / (epoch(max(played_at)) - epoch(min(played_at))) END
               AS net_per_hour,
           greatest(max(net), 0) AS biggest_win, least(min(net), 0) AS biggest_loss,
           arg_min(hand_id, (played_at, source_index, hand_id)) AS first_hand, unit
    FROM g GROUP BY player, place, unit, number
    ORDER BY start DESC, player, place
"""


_ONE_DEAL_THREE_RULES = "".join(f"""[{number}]
format_version = 1
variant = "B2"
scoring = "{scoring}"
actions = [
  "d dh p1 3d4c5h6s7d8c8d8h9c9dJcJdJh",
  "d dh p2 2c2d2h2s3c3h4d4h5c6c7cKcKd",
  "p1 pl 3d4c5h6s7d", "p2 ps",
  "p1 pl 8c8d8h9c9d", "p2 ps",
  "p1 pl JcJdJh",
]
players = ["Ann", "Bo"]
day = 2
month = 12
year = 2026
time = 20:{5 * number:02d}:00

""" for number, scoring in enumerate(("cards", "cards_with_twos", "zero_sum"), start=1))


def test_a_sitting_under_three_scoring_rules_is_three_sessions(tmp_path: Path) -> None:
    """Three games five minutes apart at one place under three scoring rules made one
    session whose net added their points (702 "points" for Ann, 4,212 per hour); a session
    is now one unit's, its net that unit's alone, as the replayed games count it."""
    from analytics.dashboard.statistics import sessions_table
    from analytics.rules import replay
    from analytics.warehouse.sql.stat_views import player_sessions
    from parsers import loads_hands

    path = tmp_path / "rules.phhs"
    path.write_text(_ONE_DEAL_THREE_RULES, encoding="utf-8")
    db = tmp_path / "rules.duckdb"
    assert ingest([path], db, workers=0).loaded == 3
    expected = {(hand.players[seat], hand.rules.scoring.value): net  # type: ignore[union-attr]
                for hand in loads_hands(_ONE_DEAL_THREE_RULES)
                for seat, net in enumerate(replay(hand).nets) if hand.players}
    with reader(db) as con:
        got = player_sessions(con, HandFilter(), game="bigtwo")
        hands = {(str(r["player"]), str(r["unit"])): session_hands(
            con, HandFilter(), game="bigtwo", player=str(r["player"]), place=str(r["place"]),
            unit=str(r["unit"]), start=r["start"].to_pydatetime(),
            end=r["end"].to_pydatetime()) for r in got.to_dict("records")}
    assert len(got) == 6 and (got["hands"] == 1).all()
    assert {(str(r["player"]), str(r["unit"])): int(r["net"])
            for r in got.to_dict("records")} == expected
    assert {key: int(listed["net"].sum()) for key, listed in hands.items()} == expected
    shown = sessions_table(got, "bigtwo")
    assert set(shown["stakes or scoring"]) == {
        "scoring: cards left", "scoring: cards left, 2s double", "scoring: zero-sum"}


@pytest.mark.parametrize("gap", [1, 3, 30])
def test_sessions_by_bins_equal_the_row_by_row_sessions(mixed_db: Path, gap: int) -> None:
    """Hands with and without a time of day at the same tables (a third lose theirs)."""
    from analytics.warehouse.sql.stat_views import player_sessions

    with reader(mixed_db) as con:
        untimed = con.execute("SELECT count(*) FROM hands WHERE played_time IS NULL"
                              ).fetchall()[0][0]
        got = player_sessions(con, HandFilter(), game="seveneight", gap_minutes=gap,
                              limit=100_000)
        expected = con.execute(_SESSIONS_ROW_BY_ROW, {"gap": gap}).fetchdf()
    assert 300 < untimed < 500
    key = ["player", "place", "start"]
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                  expected.sort_values(key).reset_index(drop=True),
                                  check_dtype=False)
    assert got["end"].isna().sum() > 0 and got["end"].notna().sum() > 0


def test_a_days_untimed_session_is_listed_as_its_last(mixed_db: Path) -> None:
    """Latest first: a day's session of hands without a time of day comes before that
    day's timed sessions (it is counted after them), and the page shows its day alone."""
    from analytics.dashboard.statistics import sessions_table
    from analytics.warehouse.sql.stat_views import player_sessions

    with reader(mixed_db) as con:
        got = player_sessions(con, HandFilter(), game="seveneight", limit=100_000)
    order = list(zip(got["start"].dt.date, got["end"].isna(), got["start"], strict=True))
    assert order == sorted(order, reverse=True)
    untimed = got[got["end"].isna()]
    assert len(untimed) > 0 and (untimed["start"].dt.time == dt.time(0)).all()
    shown = sessions_table(got, "seveneight")
    assert set(shown.loc[got["end"].isna(), "start"]) == {
        f"{day:%Y-%m-%d} (no times)" for day in untimed["start"]}
    assert not shown.loc[got["end"].isna(), "end"].any()
    assert (shown.loc[got["end"].notna(), "start"] == [
        f"{start:%Y-%m-%d %H:%M}" for start in got.loc[got["end"].notna(), "start"]]).all()


def test_results_in_a_rules_unit_are_never_added_across_rules(tmp_path: Path) -> None:
    """Points under one Big Two scoring rule are not points under another, nor chips per
    round under one Rummoli ante those under another: the grid shows a player's Points
    (net per round) only for a row whose hands share one rule, and the split by the rule
    gives each rule's own, which add up to the player's nets of those hands, counted here
    from the replayed hands."""
    from analytics.rules import replay
    from parsers.rule_options import BigTwoRules, BigTwoScoring

    bigtwo = [*simulate_bigtwo(16, 4, 41),
              *simulate_bigtwo(12, 4, 42, rules=BigTwoRules(scoring=BigTwoScoring.ZERO_SUM))]
    rummoli = [*simulate_rummoli(12, 4, 43), *simulate_rummoli(12, 4, 44, ante=2)]
    write_hands(bigtwo, tmp_path / "bigtwo.phhs")
    write_hands(rummoli, tmp_path / "rummoli.phhs")
    db = tmp_path / "levels.duckdb"
    assert ingest([tmp_path / "bigtwo.phhs", tmp_path / "rummoli.phhs"], db,
                  workers=0).rejected == 0
    expected: dict[tuple[str, str, str], list[int]] = {}
    for game, hands in (("bigtwo", bigtwo), ("rummoli", rummoli)):
        for hand in hands:
            rule = (hand.rules.scoring.value if isinstance(hand.rules, BigTwoRules)
                    else str(getattr(hand.rules, "ante", 1)))
            for name, net in zip(hand.players or (), replay(hand).nets, strict=True):
                expected.setdefault((game, name, rule), []).append(net)
    with reader(db) as con:
        for game, split, column in (("bigtwo", "scoring", "net"),
                                    ("rummoli", "ante", "net_per_round")):
            whole = stat_grid(con, HandFilter(), game=game).set_index("player")
            rules = {(p, r) for g, p, r in expected if g == game}
            players = {p for p, _ in rules}
            assert len(rules) > len(players)  # somebody played under both
            for player in players:
                mine = [r for p, r in rules if p == player]
                assert pd.isna(whole[column].loc[player]) == (len(mine) > 1), player
            by_rule = stat_grid(con, HandFilter(), game=game, split=split)
            for row in by_rule.to_dict("records"):
                nets = expected[(game, str(row["player"]), str(row[split]))]
                want = sum(nets) if column == "net" else sum(nets) / len(nets)
                assert row[column] == pytest.approx(want), (game, row["player"], row[split])


def test_the_score_keepers_line_says_when_it_is_an_average(bigtwo_db: Path) -> None:
    """60 games of 4 players and 40 of 3: the line's n is their mean, 3.6 players a game,
    and its words say the line is then an approximation; at one table size they do not."""
    from analytics.dashboard import charts, logic
    from analytics.warehouse.sql import scores

    with reader(bigtwo_db) as con:
        seats = scores.seats_per_game(con, HandFilter())
        summary = scores.bigtwo_score_summary(con, HandFilter())
    assert seats == pytest.approx((60 * 4 + 40 * 3) / 100)
    line = logic.zero_sum_line(summary, seats)
    assert line is not None
    assert "approximation" in logic.zero_sum_words(line)
    assert "s = 3.6(l* − l)" in logic.zero_sum_words(line)
    assert "approximation" not in logic.zero_sum_words((4.0, line[1]))
    # The chart's legend writes the line as its caption does (3.81, not 3.80645).
    figure = charts.score_scatter(summary, "net_score_per_game", (3.80645, line[1]))
    assert figure.data[-1].name == "s = 3.81(l* − l)"
    assert "s = 3.81(l* − l)" in logic.zero_sum_words((3.80645, line[1]))
