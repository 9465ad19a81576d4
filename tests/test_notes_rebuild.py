"""Tags and notes survive a database rebuilt from the same files (issue #28): every write
of a note copies both notes tables beside the database (``<db>.notes.json``), and the
migration that creates the tables in a new database fills them from that file, so
deleting the database and loading the same histories again gives every note back on the
hand with the same id.  A notes file that cannot be read stops the build with an error
naming it, and is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytics.warehouse import SourceError, ingest, reader, writer
from analytics.warehouse.annotations import (
    NOTES_SUFFIX,
    HandNote,
    hand_note,
    player_note,
    set_hand_note,
    set_player_note,
    tagged_hands,
    tags_from_text,
)
from analytics.warehouse.sql.search import HandSearch, search_hands
from analytics.warehouse.sql.views import HandFilter

DATA = Path(__file__).parent / "data" / "stats"
WAITING = 123_456_789  # a hand id no file here holds: its note waits for the hand


def _by_index(db: Path) -> dict[int, int]:
    """Hand id by its place in the file (A-I are 1-9)."""
    with reader(db) as con:
        return {int(index): int(hand) for hand, index in
                con.execute("SELECT hand_id, source_index FROM hands").fetchall()}


def _delete(db: Path) -> None:
    """The database gone, as a person deleting the file would leave it (its WAL too)."""
    db.unlink()
    db.with_name(db.name + ".wal").unlink(missing_ok=True)


def test_notes_come_back_when_the_database_is_built_again(tmp_path: Path) -> None:
    db = tmp_path / "hands.duckdb"
    assert ingest([DATA], db, workers=0).loaded == 9
    ids = _by_index(db)
    with writer(db) as con:
        set_hand_note(con, ids[4], HandNote(True, tags_from_text("all in, review"),
                                            "Cy's shove"))
        set_hand_note(con, ids[7], HandNote(False, ("bluff",), ""))
        set_hand_note(con, ids[2], HandNote(True))
        set_hand_note(con, ids[2], HandNote())  # forgotten again: not restored
        set_hand_note(con, WAITING, HandNote(False, (), "a hand to load later"))
        set_player_note(con, "Cy", "raises light from late")
        before = tagged_hands(con).drop(columns=["game", "day"])
    kept = db.with_name(db.name + NOTES_SUFFIX)
    assert kept.exists()
    assert {row["hand_id"] for row in json.loads(kept.read_text())["hand_notes"]} == {
        ids[4], ids[7], WAITING}

    _delete(db)
    assert not db.exists()
    assert ingest([DATA], db, workers=0).loaded == 9
    assert _by_index(db) == ids  # the same files give the same ids
    with reader(db) as con:
        assert hand_note(con, ids[4]) == HandNote(True, ("all in", "review"), "Cy's shove")
        assert hand_note(con, ids[7]) == HandNote(False, ("bluff",), "")
        assert hand_note(con, ids[2]).empty
        assert hand_note(con, WAITING) == HandNote(False, (), "a hand to load later")
        assert player_note(con, "Cy") == "raises light from late"
        after = tagged_hands(con)
        # Every row as it was, its time included.
        assert after.drop(columns=["game", "day"]).equals(before)
        assert set(after.loc[after["hand_id"] != WAITING, "game"]) == {"seveneight"}
        found = search_hands(con, HandFilter(), search=HandSearch(tag="review"))
        assert list(found["hand_id"]) == [ids[4]]
        starred = search_hands(con, HandFilter(), search=HandSearch(starred=True))
        assert list(starred["hand_id"]) == [ids[4]]


def test_a_rebuilt_database_without_a_notes_file_has_no_notes(tmp_path: Path) -> None:
    db = tmp_path / "plain.duckdb"
    ingest([DATA], db, workers=0)
    assert not db.with_name(db.name + NOTES_SUFFIX).exists()  # nothing noted, no file
    with reader(db) as con:
        assert tagged_hands(con).empty


def test_an_unreadable_notes_file_stops_the_build_and_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "hands.duckdb"
    kept = db.with_name(db.name + NOTES_SUFFIX)
    kept.write_text('{"hand_notes": [{"hand_id": "not a number"', encoding="utf-8")
    with pytest.raises(SourceError, match=r"hands\.duckdb\.notes\.json: the notes kept"):
        ingest([DATA], db, workers=0)
    assert kept.read_text(encoding="utf-8") == '{"hand_notes": [{"hand_id": "not a number"'


def test_a_note_that_cannot_be_kept_leaves_the_one_before(tmp_path: Path) -> None:
    """A save that fails (a text DuckDB refuses: a lone surrogate) deleted the note kept,
    then failed to write the new one: the database and its notes file then disagreed.
    One statement now: the note before stays, in both, for a hand and a player."""
    db = tmp_path / "n.duckdb"
    kept = HandNote(starred=True, tags=("review",), note="an important note")
    with writer(db) as con:
        set_hand_note(con, 42, kept)
        set_player_note(con, "Ann", "calls too much")
        with pytest.raises(Exception, match="surrogate"):
            set_hand_note(con, 42, HandNote(note="edited \ud800"))
        with pytest.raises(Exception, match="surrogate"):
            set_player_note(con, "Ann", "edited \ud800")
    with reader(db) as con:
        assert hand_note(con, 42) == kept
        assert player_note(con, "Ann") == "calls too much"
    saved = json.loads(db.with_name(db.name + NOTES_SUFFIX).read_text(encoding="utf-8"))
    assert saved["hand_notes"][0]["note"] == "an important note"
