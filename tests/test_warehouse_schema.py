"""Schema creation and migration by code; the dashboard's questions on known data."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from analytics.warehouse import WarehouseSchemaError, ingest, open_writer, reader
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS
from analytics.warehouse.sql import queries as q
from analytics.warehouse.sql import schema, views
from analytics.warehouse.sql.schema import (
    LATEST_VERSION,
    MIGRATIONS,
    TABLES,
    VIEWS,
    Migration,
    migrate,
    schema_version,
)
from analytics.warehouse.sql.views import PLAY_KIND_COLUMNS, HandFilter
from tests.test_warehouse_data import BIGTWO, RULES_BROKEN, SEVENEIGHT, phhs, relabel, write


def test_migrates_an_empty_database(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert schema_version(con) == 0
        assert migrate(con) == list(range(1, LATEST_VERSION + 1))
        assert migrate(con) == []  # idempotent
        names = {row[0] for row in con.execute(
            "SELECT table_name FROM information_schema.tables").fetchall()}
        assert set(TABLES) | set(VIEWS) | {"schema_version"} <= names
        versions = con.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()
        assert [v for (v,) in versions] == list(range(1, LATEST_VERSION + 1))


def test_migrates_step_by_step(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert migrate(con, target=1) == [1]
        assert schema_version(con) == 1
        assert migrate(con) == list(range(2, LATEST_VERSION + 1))


def _failing_at(version: int) -> list[Migration]:
    """:data:`MIGRATIONS` with ``version``'s backfill raising, as a kill in it would stop it."""
    def fail(con: duckdb.DuckDBPyConnection) -> None:
        raise KeyboardInterrupt

    return [replace(m, backfill=fail) if m.version == version else m for m in MIGRATIONS]


@pytest.mark.parametrize("start", [0, 5])
def test_a_migration_stopped_midway_leaves_the_last_whole_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: int) -> None:
    """Stopped in migration 12: a new database (every migration in one transaction) stays
    empty, an existing one at 11 (one transaction each); the next writer finishes it."""
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        migrate(con, target=start)
        monkeypatch.setattr(schema, "MIGRATIONS", _failing_at(12))
        with pytest.raises(KeyboardInterrupt):
            migrate(con)
        assert schema_version(con) == (0 if start == 0 else 11)
        monkeypatch.undo()
        assert migrate(con) == list(range(1 if start == 0 else 12, LATEST_VERSION + 1))
        assert schema_version(con) == LATEST_VERSION


@pytest.mark.parametrize("target", [0, 1, LATEST_VERSION - 1, LATEST_VERSION, 999])
def test_a_reader_sees_the_version_schema_version_sees(tmp_path: Path, target: int) -> None:
    """open_reader reads the version table directly (no catalog lookup): an empty file (no
    table: version 0), an old one and a newer one are refused with the version
    schema_version gives, the current one is read."""
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        migrate(con, target=min(target, LATEST_VERSION))
        if target > LATEST_VERSION:
            con.execute("INSERT INTO schema_version (version, description) "
                        "VALUES (999, 'future')")
        assert schema_version(con) == target
    if target != LATEST_VERSION:
        # An older one is migrated by a writer; a newer one needs a newer handlab.
        advice = "upgrade handlab" if target > LATEST_VERSION else "to migrate it"
        with pytest.raises(WarehouseSchemaError, match=f"schema version {target},.*{advice}"):
            reader(db).__enter__()
        return
    with reader(db) as con:
        assert int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0]) == 0


def test_refuses_a_newer_database(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        migrate(con)
        con.execute("INSERT INTO schema_version (version, description) VALUES (999, 'future')")
    with pytest.raises(WarehouseSchemaError, match="newer"):
        open_writer(db)


def test_arrow_batches_match_the_tables(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        migrate(con)
        for table, schema in ARROW_SCHEMAS.items():
            columns = [row[0] for row in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall()]
            assert columns == schema.names, table


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("queries")
    hands = [SEVENEIGHT, relabel(SEVENEIGHT, 2), BIGTWO, RULES_BROKEN]
    write(folder / "in" / "a.phhs", phhs(*hands))
    ingest([folder / "in"], folder / "w.duckdb", workers=0)
    return folder / "w.duckdb"


def test_question_answers(loaded: Path) -> None:
    """The dashboard's questions (views, queries.files) on four hands worked by hand."""
    every = HandFilter()
    with reader(loaded) as con:
        totals = views.overview(con, every).set_index("game")
        assert totals.loc["seveneight", "hands"] == 2 and totals.loc["bigtwo", "players"] == 2
        over = views.hands_over_time(con, every, bucket="month")
        assert over[over.game == "seveneight"]["hands"].tolist() == [2]
        assert str(over[over.game == "seveneight"]["period"].iloc[0])[:10] == "2026-11-01"
        stats = views.player_results(con, HandFilter(game="seveneight"))
        assert stats["player"].tolist() == ["Ann", "Bo", "Cy"]
        assert stats["net"].tolist() == [36, -4, -32] and stats["wins"].tolist() == [2, 0, 0]
        types = views.showdown_types(con, every, game="seveneight")
        assert types.groupby("category")["hands"].sum().to_dict() == {
            "seven_eight_flush": 2, "fifteen": 2}
        rejects = views.rejects(con)
        assert rejects["stage"].tolist() == ["rules"] and "p3 cbr 3" in rejects["error"].iloc[0]
        assert q.files(con)["status"].tolist() == ["partial"]
        hand = int(con.execute("SELECT hand_id FROM hands WHERE game = 'bigtwo'"
                               ).fetchall()[0][0])
        detail = views.hand_detail(con, hand)
        names = dict(zip(detail["seats"]["seat"], detail["seats"]["player"], strict=True))
        actors = detail["actions"]["actor"].tolist()[:3]
        assert [names.get(actor, "dealer") for actor in actors] == ["dealer", "dealer", "Ann"]
        bo = views.player_results(con, HandFilter(game="bigtwo", players=("Bo",)))
        assert bo[["player", "net"]].values.tolist() == [["Bo", -20]]
        assert views.rummoli_board(con, every, game_id=None).empty


def test_questions_refuse_unknown_identifiers(loaded: Path) -> None:
    with reader(loaded) as con:
        with pytest.raises(ValueError, match="bucket"):
            views.hands_over_time(con, HandFilter(), bucket="day; DROP TABLE hands")
        with pytest.raises(ValueError, match="unknown game"):
            HandFilter(game="chess")
        # Values are bound, never spliced: a quote is just a file name that matches nothing.
        assert views.rejects(con, files=["x' OR '1'='1"]).empty



def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [row[0] for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position", [table]).fetchall()]


def test_migration_6_replaces_seat_facts_with_the_new_columns(tmp_path: Path) -> None:
    """Up to version 5 seat_facts has migration 4's columns (its frozen text); migration 6
    recreates it with the dealt categories and award parts added after them."""
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert migrate(con, target=5) == [1, 2, 3, 4, 5]
        old = _columns(con, "seat_facts")
        assert old[-1] == "allin_std_error" and "dealt" in old
        assert migrate(con, target=6) == [6]
        new = _columns(con, "seat_facts")
        assert new[:len(old)] == old
        assert new[len(old):] == [
            "dealt_size", "dealt_two_category", "dealt_three_category",
            "dealt_poker_category", "won_poker", "won_pay_cards", "won_rummoli",
            "won_auction", "won_payments", "won_finale"]
        assert con.execute("SELECT count(*) FROM seat_facts").fetchall() == [(0,)]


def test_migration_7_replaces_hand_facts_with_the_players(tmp_path: Path) -> None:
    """Up to version 6 hand_facts has migration 5's columns (its frozen text); migration 7
    recreates it with each hand's players after them."""
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert migrate(con, target=6) == [1, 2, 3, 4, 5, 6]
        old = _columns(con, "hand_facts")
        assert old[-1] == "num_players" and "players" not in old
        assert migrate(con, target=7) == [7]
        new = _columns(con, "hand_facts")
        assert new == [*old, "players"]
        assert con.execute("SELECT data_type, is_nullable FROM information_schema.columns "
                           "WHERE table_name = 'hand_facts' AND column_name = 'players'"
                           ).fetchall() == [("VARCHAR[]", "NO")]


def test_migration_8_adds_the_play_kinds_to_seat_facts(tmp_path: Path) -> None:
    """Up to version 7 seat_facts has migration 6's columns (its frozen text); migration 8
    adds a nullable INTEGER count per Big Two play kind after them, keeping the rows."""
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert migrate(con, target=7) == [1, 2, 3, 4, 5, 6, 7]
        old = _columns(con, "seat_facts")
        assert old[-1] == "won_finale"
        assert migrate(con, target=8) == [8]
        new = _columns(con, "seat_facts")
        assert new == [*old, *PLAY_KIND_COLUMNS.values()]
        assert set(con.execute(
            "SELECT data_type, is_nullable FROM information_schema.columns "
            "WHERE table_name = 'seat_facts' AND list_contains(?, column_name)",
            [list(PLAY_KIND_COLUMNS.values())]).fetchall()) == {("INTEGER", "YES")}
