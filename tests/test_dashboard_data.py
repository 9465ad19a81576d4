"""A small warehouse for the dashboard, report and browser tests, and checks that it is what
they rely on: three games, several players and sessions, one rejected hand.

Other modules import :func:`build_dashboard_db` (and the ``dashboard_db`` fixture).
"""

from __future__ import annotations

import atexit
import datetime as dt
import functools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest
from analytics.warehouse.sql import views
from analytics.warehouse.sql.stat_views import results_over_time
from analytics.warehouse.sql.views import HandFilter, facts_where, query_frame, where
from parsers import write_hands

BROKEN = """\
[1]
variant = "N78"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = [
  "d dh p1 7c8c",
  "d dh p2 AsKs",
  "p1 up 7c",
  "p2 up As",
  "p9 cc",
]
"""
"""A hand naming a player who is not there: rejected at parse time, on line 12."""


def write_histories(folder: Path) -> list[Path]:
    """Simulated histories of the three games (deterministic) and one broken file."""
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / "seveneight.phhs", folder / "bigtwo.phhs", folder / "rummoli.phhs",
             folder / "broken.phhs"]
    write_hands(simulate_seveneight(120, 4, 11), files[0])
    write_hands(simulate_bigtwo(30, 4, 12), files[1])
    write_hands(simulate_rummoli(40, 4, 13), files[2])
    files[3].write_text(BROKEN, encoding="utf-8")
    return files


def extra_histories(path: Path) -> Path:
    """Another 7 & 8 file (new hands) for upload tests."""
    write_hands(simulate_seveneight(25, 3, 99), path)
    return path


@functools.cache
def _built_once() -> Path:
    """The test warehouse, ingested once per process (each xdist worker builds its own)."""
    root = Path(tempfile.mkdtemp(prefix="handlab-dashboard-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    db = root / "dashboard.duckdb"
    ingest(write_histories(root / "histories"), db, workers=0)
    return db


def build_dashboard_db(folder: Path) -> Path:
    """A copy of the test warehouse in ``folder``: ingested once per process and copied,
    which is what every test file used to ingest again (the copy is the caller's to change;
    its ``file`` columns name the histories of the first build)."""
    db = folder / "dashboard.duckdb"
    if not db.exists():
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(_built_once(), db)
    return db


@pytest.fixture(scope="session")
def dashboard_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A read-mostly warehouse shared by the tests of a session."""
    return build_dashboard_db(tmp_path_factory.mktemp("dashboard"))


@pytest.fixture
def dashboard_con(dashboard_db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the shared test warehouse."""
    connection = duckdb.connect(str(dashboard_db), read_only=True)
    yield connection
    connection.close()


def test_the_warehouse_holds_three_games_and_a_reject(dashboard_db: Path) -> None:
    con = duckdb.connect(str(dashboard_db), read_only=True)
    try:
        games = dict(con.execute("SELECT game, count(*) FROM hands GROUP BY game").fetchall())
        rejects = con.execute("SELECT file, line FROM rejects").fetchall()
    finally:
        con.close()
    assert games == {"seveneight": 120, "bigtwo": 30, "rummoli": 40}
    assert len(rejects) == 1
    assert rejects[0][0].endswith("broken.phhs")


# ---- results_over_time (the Win rates running totals): every point on the full curve ---

CURVE_FILTERS = (HandFilter(), HandFilter(players=("Ivy", "Ned")), HandFilter(players=("Cy",)),
                 HandFilter(date_from=dt.date(2026, 1, 6)), HandFilter(stakes="N78 min 2"),
                 HandFilter(knobs=(("suit_order", "dchs"),)))


def _full_curves(con: duckdb.DuckDBPyConnection, f: HandFilter, game: str) -> pd.DataFrame:
    """Every hand's running totals per player in order of play (day, time, untimed last,
    position in the file, hand id), by a window over every seat in the game's unit (7 & 8:
    each hand's net over its big blind): the reference."""
    cond, params = facts_where(f, game=game)
    unit = ("CAST(b.big_blind AS DOUBLE)" if game == "seveneight" else "1.0")
    return query_frame(con, f"""
        SELECT x.player, row_number() OVER w AS hand_no,
               sum(x.net / {unit}) OVER w AS actual,
               sum(coalesce(x.allin_expected_net, x.net) / {unit}) OVER w AS adjusted
        FROM seat_facts x
        LEFT JOIN stat_facts b ON b.hand_id = x.hand_id AND b.seat = x.seat
        WHERE {cond}
        WINDOW w AS (PARTITION BY x.player ORDER BY x.day, x.played_time NULLS LAST,
                     x.source_index, x.hand_id ROWS UNBOUNDED PRECEDING)
    """, params)


def _assert_on_full_curve(got: pd.DataFrame, full: pd.DataFrame, points: int) -> None:
    """Each point is the full curve's value at its hand number; each player's last point
    is his total; a player gets about ``points`` points (at most two per ``points``)."""
    merged = got.merge(full, on=["player", "hand_no"], how="left", suffixes=("", "_full"),
                       validate="one_to_one")
    assert merged["actual_full"].notna().all()
    np.testing.assert_allclose(merged["actual"].astype(float),
                               merged["actual_full"].astype(float), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(merged["adjusted"].astype(float),
                               merged["adjusted_full"].astype(float), rtol=1e-9, atol=1e-9)
    for player, mine in got.groupby("player"):
        whole = full[full["player"] == player]
        assert mine["hand_no"].is_monotonic_increasing
        assert mine["hand_no"].iloc[-1] == len(whole)
        assert len(mine) <= 2 * points


@pytest.mark.slow
@pytest.mark.parametrize("game", ["seveneight", "bigtwo", "rummoli"])
def test_running_totals_lie_on_the_full_curve(dashboard_con: duckdb.DuckDBPyConnection,
                                              game: str) -> None:
    for f in CURVE_FILTERS:
        for points in (3, 7, 400):
            got = results_over_time(dashboard_con, f, game=game, points=points,
                                    whole_round=True)
            full = _full_curves(dashboard_con, f, game)
            _assert_on_full_curve(got, full, points)
            top = full.groupby("player").size().reset_index(name="n").sort_values(
                ["n", "player"], ascending=[False, True]).head(8)
            assert sorted(set(got["player"])) == sorted(top["player"])


# ---- hand_list: as the join of hands and seats answered ------------------------------

def _old_hand_list(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int,
                   offset: int) -> pd.DataFrame:
    """hand_list as it was: the session label on every hand, the seats from ``seats``."""
    cond, params = where(f)
    params |= {"limit": limit, "offset": offset}
    return query_frame(con, f"""
        WITH fh AS (
            SELECT h.hand_id, h.game, h.variant, {views.DAY} AS day, h.played_time,
                   {views.SESSION} AS session, h.round, h.hand_label, h.winner, h.source_index
            FROM hands h WHERE {cond}
            ORDER BY day DESC, h.played_time DESC NULLS LAST, h.source_index DESC, h.hand_id
            LIMIT $limit OFFSET $offset)
        SELECT fh.hand_id, fh.game, fh.variant, fh.day, fh.played_time, fh.session, fh.round,
               fh.hand_label, string_agg(s.player, ', ' ORDER BY s.seat) AS players,
               max(CASE WHEN s.seat = fh.winner THEN s.player END) AS winner,
               max(s.net) AS top_net
        FROM fh JOIN seats s USING (hand_id)
        GROUP BY fh.hand_id, fh.game, fh.variant, fh.day, fh.played_time, fh.session, fh.round,
                 fh.hand_label, fh.source_index
        ORDER BY fh.day DESC, fh.played_time DESC NULLS LAST, fh.source_index DESC, fh.hand_id
    """, params)


@pytest.mark.parametrize(("limit", "offset"), [(500, 0), (7, 0), (5, 30)])
def test_hand_list_answers_as_the_join_of_seats_did(dashboard_con: duckdb.DuckDBPyConnection,
                                                    limit: int, offset: int) -> None:
    for f in (*CURVE_FILTERS, HandFilter(game="rummoli"), HandFilter(session="b2-12-00002"),
              HandFilter(players=("nobody",))):
        got = views.hand_list(dashboard_con, f, limit=limit, offset=offset)
        pd.testing.assert_frame_equal(
            got, _old_hand_list(dashboard_con, f, limit=limit, offset=offset),
            obj=f"{f.describe()} {limit} {offset}")
        assert len(got) <= limit
