"""A small warehouse for the dashboard, report and browser tests, and checks that it is what
they rely on: three games, several players and sessions, one rejected hand.

Other modules import :func:`build_dashboard_db` (and the ``dashboard_db`` fixture).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest
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
def _built(folder: str) -> Path:
    root = Path(folder)
    db = root / "dashboard.duckdb"
    ingest(write_histories(root / "histories"), db, workers=0)
    return db


def build_dashboard_db(folder: Path) -> Path:
    """The test warehouse in ``folder`` (built once per folder and process)."""
    return _built(str(folder))


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
