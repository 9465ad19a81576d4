"""The data-only migrations after 13 (docs/schema.md): a database's all-in equities made
again from its files (16), and a lake written at 13 or later still read and added to,
while one from before 13 or from a newer handlab says what to do."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import WarehouseError, ingest
from analytics.warehouse.lake.catalogue import catalogue, open_lake
from analytics.warehouse.lake.core import MANIFEST_DIR
from analytics.warehouse.lake.engine import ingest_lake
from analytics.warehouse.sql.schema import LAKE_FILES_SINCE, LATEST_VERSION
from parsers import write_hands
from tests.migrated import assert_migrated_again


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six-handed 7 & 8 with all-ins after folds (a folded player's up card is seen)."""
    folder = tmp_path_factory.mktemp("hands")
    write_hands(list(simulate_seveneight(300, 6, 17)), folder / "six.phhs")
    return folder / "six.phhs"


@pytest.mark.slow
def test_migration_16_counts_the_all_in_equities_again(histories: Path, tmp_path: Path
                                                       ) -> None:
    """Equities stored the old way (a folded up card in the deck) and the facts made of
    them are made again from the file, as a fresh ingest makes them."""
    db = tmp_path / "old.duckdb"
    ingest([histories], db, workers=0)
    expected = assert_migrated_again(db, 16, ["allin_results", "seat_facts", "stat_facts"], [
        "UPDATE allin_results SET equity = 0.5, expected_net = 0, luck = 0",
        "UPDATE seat_facts SET allin_expected_net = 0 WHERE all_in",
        "UPDATE stat_facts SET adjusted_net = 0 "
        "WHERE hand_id IN (SELECT hand_id FROM allin_results)"])
    assert len(expected["allin_results"]) > 0


@pytest.mark.slow
def test_migration_17_gives_a_finale_s_pots_to_its_winner(tmp_path: Path) -> None:
    """End-of-game rounds stored the old way (the pots played for as antes below zero, no
    winner, their games' streaks counted so) come back as a fresh ingest makes them."""
    db = tmp_path / "finales.duckdb"
    for finale in ("single", "per_pot"):
        path = tmp_path / f"{finale}.phhs"
        write_hands(simulate_rummoli(60, 4, 9, finale=finale, rounds_per_game=5), path)
        ingest([path], db, workers=0)
    finales = ("hand_id IN (SELECT hand_id FROM hands WHERE finale_pot IS NOT NULL) "
               "AND amount > 0")
    expected = assert_migrated_again(db, 17, ["board", "pot_facts"], [
        f"UPDATE board SET antes = coalesce(after, 0) - before, amount = 0, won_by = NULL "
        f"WHERE {finales}",
        f"UPDATE pot_facts SET antes = coalesce(after, 0) - before, amount = 0, won_by = NULL,"
        f" won_by_player = NULL, since_all = 99 WHERE {finales}"], order="hand_id, pot_order")
    board, facts = expected["board"], expected["pot_facts"]
    assert (board["antes"] >= 0).all() and (facts["antes"] >= 0).all()
    with duckdb.connect(str(db), read_only=True) as con:  # finales' pots have winners
        assert con.execute(f"SELECT count(*) FROM board WHERE {finales} AND won_by IS NOT NULL"
                           ).fetchall()[0][0] > 0


def _manifest_schema(lake: Path, version: int) -> None:
    """Write ``version`` as the schema of every manifest of ``lake`` (as an older or newer
    handlab would have), and drop its catalogues."""
    for path in (lake / MANIFEST_DIR).glob("v*.json"):
        body = json.loads(path.read_text())
        body["schema_version"] = version
        path.write_text(json.dumps(body))
    for path in (lake / "_catalogue").glob("*.duckdb"):
        path.unlink()


@pytest.mark.slow
def test_a_lake_from_schema_13_on_is_read_and_grows(histories: Path, tmp_path: Path) -> None:
    """A lake written at 13 (before the data-only migrations) is read and added to (each
    migration after it used to lock every lake out of every command); one from 12 or from
    a newer handlab says what to do."""
    lake = tmp_path / "lake"
    ingest_lake([histories], lake, engine="local", workers=0)
    _manifest_schema(lake, LAKE_FILES_SINCE)
    with open_lake(lake) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 300
    more = tmp_path / "more.phhs"
    write_hands(list(simulate_seveneight(20, 6, 18)), more)
    assert ingest_lake([more], lake, engine="local", workers=0).loaded == 20
    assert catalogue(lake).name.endswith(f"-s{LATEST_VERSION}.duckdb")
    _manifest_schema(lake, LAKE_FILES_SINCE - 1)
    with pytest.raises(WarehouseError, match="ingest the inputs again into a new lake"):
        open_lake(lake)
    _manifest_schema(lake, LATEST_VERSION + 1)
    with pytest.raises(WarehouseError, match="upgrade handlab"):
        open_lake(lake)


def test_a_finale_s_chips_read_the_same_in_rows_from_before_17(tmp_path: Path) -> None:
    """A lake keeps its rows as written (LAKE_FILES_SINCE = 13): in rows from before
    migration 17 a finale's pots are antes below zero and amount 0. The Pots page's "left
    for the finale" reads both forms alike (it read 0 for the old)."""
    from analytics.dashboard.logic import pot_summary
    from analytics.warehouse.sql.views import HandFilter, pot_winners

    path = tmp_path / "finales.phhs"
    write_hands(simulate_rummoli(60, 4, 9, finale="single", rounds_per_game=5), path)
    db = tmp_path / "f.duckdb"
    ingest([path], db, workers=0)
    with duckdb.connect(str(db)) as con:
        now = pot_summary(pot_winners(con, HandFilter()))
        con.execute("UPDATE pot_facts SET antes = coalesce(after, 0) - before, amount = 0, "
                    "won_by = NULL, won_by_player = NULL WHERE pot <> 'poker' AND hand_id IN "
                    "(SELECT hand_id FROM hands WHERE finale_pot IS NOT NULL)")
        before = pot_summary(pot_winners(con, HandFilter()))
    assert now["left_for_finale"].sum() > 0
    assert list(before["left_for_finale"]) == list(now["left_for_finale"])
