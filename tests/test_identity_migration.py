"""Migration 13 re-keys a database built with IDENTITY_VERSION 1 ids (issue #31).

The old database is made from a fresh ingest of the sample histories (three games, plain
files, a zip member, a gzip file and a Big Two score sheet) by writing every hand's version 1
id (:mod:`tests.identity_v1`, the old definition, kept only in tests) into every table and
taking migration 13 back, with notes on some hands (and the notes file beside the database)
saved under the old ids.  Migrating it must give exactly the fresh ingest's tables, the notes
on the same hands under their new ids (in the table and in the file), the old ids in
``hand_id_map``, and leave the hands of a file that is gone with their old id.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zipfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from analytics.warehouse import ENV_VAR, ingest, reader, writer
from analytics.warehouse.annotations import NOTES_SUFFIX, HandNote, hand_note, set_hand_note
from analytics.warehouse.identity import hand_id, hand_id_hex, parse_hand_id
from analytics.warehouse.rekey import KEYED_TABLES
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.schema import LATEST_VERSION, TABLES, schema_version
from analytics.warehouse.sql.search import HandSearch, search_hands
from analytics.warehouse.sql.views import HandFilter, current_hand_id
from parsers import loads_hands
from parsers.scoresheet import read_score_sheet, sheet_hands
from tests.identity_v1 import hand_id_v1
from tests.test_dashboard_app import open_app

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
SHEET = ROOT / "tests" / "data" / "scoresheets" / "simple.txt"
WAITING = 987_654_321  # a noted hand no file holds: its note waits, its id unchanged
LEFT_OUT = frozenset({"bigtwo-house-rules.phhs", "seveneight-nl-6max.phhs"})
"""Samples the migration does not need (the others hold every table, a zipped and a gzipped
file and the file that goes): 2,550 hands and 19 Big Two rule sets, two thirds of the time."""


def _inputs(folder: Path) -> dict[int, int]:
    """The sample files in ``folder`` (one zipped, one gzipped, plus a score sheet), and
    each of their hands' old id by its new id."""
    folder.mkdir()
    new_to_old: dict[int, int] = {}
    for path in sorted(SAMPLES.glob("*.phhs")):
        if path.name in LEFT_OUT:
            continue
        text = path.read_text(encoding="utf-8")
        for hand in loads_hands(text):
            new_to_old[hand_id(hand)] = hand_id_v1(hand)
        if path.name.startswith("rummoli-family"):
            with zipfile.ZipFile(folder / "rounds.zip", "w") as archive:
                archive.writestr(path.name, text)
        elif path.name.startswith("bigtwo-club"):
            (folder / (path.name + ".gz")).write_bytes(gzip.compress(text.encode("utf-8")))
        else:
            shutil.copy(path, folder / path.name)
    shutil.copy(SHEET, folder.parent / "sheet.txt")  # named on its own: not a .phhs
    for hand in sheet_hands(read_score_sheet(SHEET.read_text(encoding="utf-8")).games,
                            "sheet.txt"):
        new_to_old[hand_id(hand)] = hand_id_v1(hand)
    return new_to_old


def _tables(db: Path) -> dict[str, pa.Table]:
    """Every table the ingest writes and the notes."""
    with reader(db) as con:
        return {name: con.sql(f"SELECT * FROM {name}").to_arrow_table()
                for name in (*TABLES, "hand_notes")}


def _made_old(db: Path, new_to_old: dict[int, int], noted: list[int]) -> None:
    """The database as the previous handlab left it: version 1 ids everywhere, at schema
    version 12, with notes on the hands ``noted`` (new ids) saved under their old ids."""
    with writer(db) as con:
        mapping = pa.table({"new_id": pa.array(list(new_to_old), pa.int64()),
                            "old_id": pa.array(list(new_to_old.values()), pa.int64())})
        for table in KEYED_TABLES:
            execute_over(con, f"UPDATE {table} SET hand_id = m.old_id FROM mapping m "
                              f"WHERE {table}.hand_id = m.new_id", {"mapping": mapping})
        con.execute("DROP TABLE hand_id_map")
        con.execute("DELETE FROM schema_version WHERE version >= 13")
        for number, new in enumerate(noted):
            set_hand_note(con, new_to_old[new], HandNote(number % 2 == 0, (f"tag{number}",),
                                                          f"note {number}"))
        set_hand_note(con, WAITING, HandNote(False, (), "a hand to load later"))


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("migration")
    new_to_old = _inputs(folder / "in")
    db = folder / "hands.duckdb"
    ingest([folder / "in", folder / "sheet.txt"], db, workers=0)
    fresh = _tables(db)  # the fresh ingest's tables, new ids
    with reader(db) as con:
        ids = {str(path): sorted(int(hand) for (hand,) in con.execute(
            "SELECT hand_id FROM hands WHERE source_file = $path", {"path": path}).fetchall())
            for (path,) in con.execute("SELECT DISTINCT source_file FROM hands").fetchall()}
    gone = next(path for path in ids if path.endswith("seveneight-fl-headsup.phhs"))
    noted = sorted({ids[gone][0], ids[next(p for p in ids if p.endswith(
        "rounds.zip:rummoli-family.phhs"))][1], ids[next(p for p in ids if p.endswith(
            "sheet.txt"))][0]})
    _made_old(db, new_to_old, noted)
    kept = json.loads(db.with_name(db.name + NOTES_SUFFIX).read_text(encoding="utf-8"))
    assert {row["hand_id"] for row in kept["hand_notes"]} == {
        *(new_to_old[new] for new in noted), WAITING}
    con = duckdb.connect(str(db), read_only=True)  # a reader refuses an older schema
    try:
        assert schema_version(con) == 12
    finally:
        con.close()
    (Path(gone)).unlink()  # its hands cannot be keyed again: they keep their old ids
    with writer(db) as con:
        assert schema_version(con) == LATEST_VERSION
    return {"db": db, "fresh": fresh, "new_to_old": new_to_old, "ids": ids, "gone": gone,
            "noted": noted}


@pytest.mark.slow
def test_every_table_is_the_fresh_ingests_but_for_the_file_gone(
        migrated: dict[str, object]) -> None:
    db, fresh = migrated["db"], migrated["fresh"]
    assert isinstance(db, Path) and isinstance(fresh, dict)
    new_to_old = migrated["new_to_old"]
    assert isinstance(new_to_old, dict)
    gone_ids = set(migrated["ids"][migrated["gone"]])  # type: ignore[index]
    with reader(db) as con:
        for name in TABLES:
            expected = fresh[name]
            if "hand_id" in expected.column_names:  # the file gone: its hands' old ids
                ids = [new_to_old[hand] if hand in gone_ids else hand
                       for hand in expected["hand_id"].to_pylist()]
                expected = expected.set_column(expected.column_names.index("hand_id"),
                                               "hand_id", pa.array(ids, pa.int64()))
            counts = execute_over(con, f"""
                SELECT (SELECT count(*) FROM {name}), (SELECT count(*) FROM expected),
                       (SELECT count(*) FROM (SELECT * FROM expected
                                              EXCEPT ALL SELECT * FROM {name})),
                       (SELECT count(*) FROM (SELECT * FROM {name}
                                              EXCEPT ALL SELECT * FROM expected))""",
                                  {"expected": expected}).fetchall()
            held, wanted, missing, extra = counts[0]
            assert (held, missing, extra) == (wanted, 0, 0), name
        assert con.execute("SELECT count(DISTINCT game) FROM hands").fetchall() == [(3,)]


@pytest.mark.slow
def test_notes_follow_their_hands_in_the_table_and_the_file(
        migrated: dict[str, object]) -> None:
    db, noted, new_to_old = migrated["db"], migrated["noted"], migrated["new_to_old"]
    assert isinstance(db, Path) and isinstance(noted, list) and isinstance(new_to_old, dict)
    gone_ids = set(migrated["ids"][migrated["gone"]])  # type: ignore[index]
    expected = {hand if hand not in gone_ids else new_to_old[hand]: number
                for number, hand in enumerate(noted)}
    with reader(db) as con:
        for hand, number in expected.items():
            assert hand_note(con, hand) == HandNote(number % 2 == 0, (f"tag{number}",),
                                                    f"note {number}")
        assert hand_note(con, WAITING) == HandNote(False, (), "a hand to load later")
        assert con.execute("SELECT count(*) FROM hand_notes").fetchall() == [(4,)]
    kept = json.loads(db.with_name(db.name + NOTES_SUFFIX).read_text(encoding="utf-8"))
    assert {row["hand_id"] for row in kept["hand_notes"]} == {*expected, WAITING}


@pytest.mark.slow
def test_old_ids_still_name_their_hands(migrated: dict[str, object]) -> None:
    db, new_to_old = migrated["db"], migrated["new_to_old"]
    assert isinstance(db, Path) and isinstance(new_to_old, dict)
    ids = migrated["ids"]
    assert isinstance(ids, dict)
    gone_ids = set(ids[migrated["gone"]])
    with reader(db) as con:
        fresh = migrated["fresh"]["hands"]["hand_id"].to_pylist()  # type: ignore[index]
        mapped = dict(con.execute("SELECT old_id, new_id FROM hand_id_map").fetchall())
        assert mapped == {new_to_old[hand]: hand for hand in fresh if hand not in gone_ids}
        now = {hand: hand if hand not in gone_ids else new_to_old[hand] for hand in fresh}
        for hand in fresh:
            link = hand_id_hex(new_to_old[hand])  # as a saved ?hand= link shows it
            assert parse_hand_id(link) == new_to_old[hand]
        # Each hand once under the id it has now; the map above says which id each old id
        # names, and a few hands of every file (the one gone too) are looked up through it.
        held = dict(con.execute("SELECT hand_id, count(*) FROM hands GROUP BY hand_id")
                    .fetchall())
        assert held == dict.fromkeys(now.values(), 1)
        for hands in ids.values():
            for hand in hands[:3]:
                assert current_hand_id(con, new_to_old[hand]) == now[hand]
        assert current_hand_id(con, WAITING) == WAITING
        # The search page's hand id box takes an old id as well.
        some = next(hand for hand in fresh if hand not in gone_ids)
        found = search_hands(con, HandFilter(), search=HandSearch(hand_id=new_to_old[some]))
        assert list(found["hand_id"]) == [some]


@pytest.mark.slow
def test_an_old_link_opens_its_hand_in_the_replayer(
        migrated: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``?hand=`` link saved before migration 13 opens the same hand, and the address
    then shows the hand's new id."""
    db, new_to_old = migrated["db"], migrated["new_to_old"]
    assert isinstance(db, Path) and isinstance(new_to_old, dict)
    gone_ids = set(migrated["ids"][migrated["gone"]])  # type: ignore[index]
    fresh = migrated["fresh"]["hands"]["hand_id"].to_pylist()  # type: ignore[index]
    some = next(hand for hand in fresh if hand not in gone_ids)
    monkeypatch.setenv(ENV_VAR, str(db))
    at = open_app("replayer", hand=hand_id_hex(new_to_old[some]))
    assert at.selectbox(key="replayer_hand").value == some
    assert at.query_params["hand"] == hand_id_hex(some)
    assert not [e.value for e in at.error]


def test_a_new_database_applies_migration_13_with_nothing_to_do(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    with writer(db) as con:
        assert schema_version(con) == LATEST_VERSION
        assert con.execute("SELECT count(*) FROM hand_id_map").fetchall() == [(0,)]


def test_without_a_map_an_id_names_itself() -> None:
    con = duckdb.connect()
    try:
        assert current_hand_id(con, 42) == 42  # a lake's connection has no hand_id_map
    finally:
        con.close()
