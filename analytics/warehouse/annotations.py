"""Tags and notes people put on hands and players: their own tables, keyed by stable ids.

``hand_notes`` holds one row per annotated hand (starred, labels, a note), keyed by the
hand id, which is a hash of the hand's content (docs/warehouse.md): loading the same
files again finds the same ids, and no ingest, migration or fact fill touches these
tables, so the notes outlive re-ingests.  ``player_notes`` holds one note per player
name.  Migration 11 creates them.  Writes go through a writer connection; reads through
any.

People's notes are the one thing in the database no file can give back, so every write
also copies both tables to a file beside the database (:func:`notes_file`:
``<database>.notes.json``, replaced atomically), and migration 11 fills the new tables
from it (:func:`restore_notes`): a database deleted and built again from the same files
gets its notes back, each on the hand with the same id (docs/statistics.md).  A Parquet
lake's notes are kept the same way, in the lake's notes file: its catalogue, a database
built again at every version of the lake, restores them from it (docs/scale-out.md).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import duckdb
import pandas as pd
import pyarrow as pa

from analytics.warehouse.errors import SourceError
from analytics.warehouse.sql.queries import database_file

__all__ = ["ANNOTATION_TABLES", "NOTES_HOME_TABLE", "NOTES_SUFFIX", "HandNote", "hand_note",
           "keep_notes_in", "notes_file", "player_note", "player_notes",
           "restore_notes", "save_notes_file", "set_hand_note", "set_player_note",
           "tagged_hands", "tags_from_text"]

NOTES_SUFFIX: Final = ".notes.json"
"""The file beside a database that keeps a copy of its notes: ``hands.duckdb.notes.json``."""

NOTES_HOME_TABLE: Final = "notes_home"
"""A one-row table (``path``) in a database whose notes are kept elsewhere than beside it:
a Parquet lake's catalogue, which is rebuilt at every version of the lake
(:func:`keep_notes_in`)."""

ANNOTATION_TABLES: Final = (
    """
    CREATE TABLE hand_notes (
        hand_id    BIGINT PRIMARY KEY,
        starred    BOOLEAN NOT NULL,
        tags       VARCHAR[] NOT NULL,
        note       VARCHAR NOT NULL,
        updated_at TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE player_notes (
        player     VARCHAR PRIMARY KEY,
        note       VARCHAR NOT NULL,
        updated_at TIMESTAMP NOT NULL
    )
    """,
)
"""Migration 10: the annotation tables (docs/schema.md)."""


@dataclass(frozen=True, slots=True)
class HandNote:
    """What a person noted on a hand."""

    starred: bool = False
    tags: tuple[str, ...] = ()
    note: str = ""

    @property
    def empty(self) -> bool:
        """Whether there is nothing to keep."""
        return not self.starred and not self.tags and not self.note.strip()


def tags_from_text(text: str) -> tuple[str, ...]:
    """Tags typed as one text, separated by commas: ``"bluff, review"``."""
    return tuple(_clean_tags(tuple(text.split(","))))


def _clean_tags(tags: tuple[str, ...]) -> list[str]:
    """Tags stripped, empty ones dropped, each once, in the order given."""
    return list(dict.fromkeys(tag.strip() for tag in tags if tag.strip()))


def set_hand_note(con: duckdb.DuckDBPyConnection, hand_id: int, note: HandNote) -> None:
    """Keep ``note`` for the hand (replacing any), or forget it when it is empty.  The hand
    need not be in the warehouse: a note waits for its hand to be loaded.  One statement
    either way: a note that cannot be kept leaves the one before it as it was."""
    if note.empty:
        con.execute("DELETE FROM hand_notes WHERE hand_id = $hand", {"hand": hand_id})
    else:
        con.execute("INSERT OR REPLACE INTO hand_notes "
                    "VALUES ($hand, $starred, $tags, $note, $at)",
                    {"hand": hand_id, "starred": note.starred, "tags": _clean_tags(note.tags),
                     "note": note.note.strip(), "at": dt.datetime.now()})
    save_notes_file(con)


def hand_note(con: duckdb.DuckDBPyConnection, hand_id: int) -> HandNote:
    """The note kept for the hand (an empty one when none)."""
    rows = con.execute("SELECT starred, tags, note FROM hand_notes WHERE hand_id = $hand",
                       {"hand": hand_id}).fetchall()
    if not rows:
        return HandNote()
    starred, tags, note = rows[0]
    return HandNote(bool(starred), tuple(str(t) for t in tags), str(note))


def set_player_note(con: duckdb.DuckDBPyConnection, player: str, note: str) -> None:
    """Keep ``note`` on the player (replacing any); an empty note forgets it.  One
    statement either way, as :func:`set_hand_note`."""
    if not note.strip():
        con.execute("DELETE FROM player_notes WHERE player = $player", {"player": player})
    else:
        con.execute("INSERT OR REPLACE INTO player_notes VALUES ($player, $note, $at)",
                    {"player": player, "note": note.strip(), "at": dt.datetime.now()})
    save_notes_file(con)


def player_note(con: duckdb.DuckDBPyConnection, player: str) -> str:
    """The note kept on the player ("" when none)."""
    rows = con.execute("SELECT note FROM player_notes WHERE player = $player",
                       {"player": player}).fetchall()
    return str(rows[0][0]) if rows else ""


def tagged_hands(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every annotated hand, the latest first: hand id, starred, tags, note, when, and the
    hand's game and day when it is loaded."""
    return con.execute("""
        SELECT n.hand_id, n.starred, n.tags, n.note, n.updated_at, f.game, f.day
        FROM hand_notes n LEFT JOIN hand_facts f USING (hand_id)
        ORDER BY n.updated_at DESC
    """).fetchdf()


def player_notes(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every note kept on a player, by name."""
    return con.execute("SELECT player, note, updated_at FROM player_notes ORDER BY player"
                       ).fetchdf()


def notes_file(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file keeping the notes of ``con``'s database: the one its
    :data:`NOTES_HOME_TABLE` names (a Parquet lake's catalogue, rebuilt at every version of
    the lake, names the lake's own), else ``<database>.notes.json``; None for a database in
    memory."""
    home = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = $name "
                       "AND database_name = current_database()",
                       {"name": NOTES_HOME_TABLE}).fetchall()
    if home[0][0]:
        return Path(str(con.execute(f"SELECT path FROM {NOTES_HOME_TABLE}").fetchall()[0][0]))
    database = database_file(con)
    return None if database is None else database.with_name(database.name + NOTES_SUFFIX)


def keep_notes_in(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Make ``con``'s database keep its notes in ``path`` rather than beside itself: the
    notes tables, the one-row :data:`NOTES_HOME_TABLE` naming ``path`` (bound, not
    formatted into the statement), then the notes kept there (:func:`restore_notes`);
    returns the rows restored."""
    for statement in ANNOTATION_TABLES:
        con.execute(statement)
    con.execute(f"CREATE TABLE {NOTES_HOME_TABLE} (path VARCHAR NOT NULL)")
    con.execute(f"INSERT INTO {NOTES_HOME_TABLE} VALUES ($path)", {"path": str(path)})
    return restore_notes(con)


def save_notes_file(con: duckdb.DuckDBPyConnection) -> Path | None:
    """Copy both notes tables to :func:`notes_file` (written beside it, then moved over it,
    so a crash leaves the old copy or the new one, never half of one); the file, or None
    for a database in memory.  Called by every write of a note."""
    path = notes_file(con)
    if path is None:
        return None
    hands = con.execute("SELECT hand_id, starred, tags, note, updated_at FROM hand_notes "
                        "ORDER BY hand_id").fetchall()
    players = con.execute("SELECT player, note, updated_at FROM player_notes ORDER BY player"
                          ).fetchall()
    kept = {
        "hand_notes": [{"hand_id": int(hand), "starred": bool(starred), "tags": list(tags),
                        "note": str(note), "updated_at": at.isoformat()}
                       for hand, starred, tags, note, at in hands],
        "player_notes": [{"player": str(player), "note": str(note),
                          "updated_at": at.isoformat()} for player, note, at in players],
    }
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(kept, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(partial, path)
    return path


def restore_notes(con: duckdb.DuckDBPyConnection) -> int:
    """Fill the notes tables from :func:`notes_file` (when there is one): each kept row
    whose hand or player has none yet, loaded from Arrow.  Migration 11 calls it when it
    creates the tables, so a rebuilt database gets its notes back.  Returns the rows
    restored; a file that cannot be read is a :class:`SourceError` naming it (the
    migration is rolled back and the file stays: no note is lost)."""
    path = notes_file(con)
    if path is None or not path.exists():
        return 0
    try:
        kept: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))
        hands = pa.table({
            "hand_id": pa.array([int(r["hand_id"]) for r in kept["hand_notes"]], pa.int64()),
            "starred": pa.array([bool(r["starred"]) for r in kept["hand_notes"]], pa.bool_()),
            "tags": pa.array([[str(t) for t in r["tags"]] for r in kept["hand_notes"]],
                             pa.list_(pa.string())),
            "note": pa.array([str(r["note"]) for r in kept["hand_notes"]], pa.string()),
            "updated_at": pa.array([dt.datetime.fromisoformat(r["updated_at"])
                                    for r in kept["hand_notes"]], pa.timestamp("us"))})
        players = pa.table({
            "player": pa.array([str(r["player"]) for r in kept["player_notes"]], pa.string()),
            "note": pa.array([str(r["note"]) for r in kept["player_notes"]], pa.string()),
            "updated_at": pa.array([dt.datetime.fromisoformat(r["updated_at"])
                                    for r in kept["player_notes"]], pa.timestamp("us"))})
    except (ValueError, KeyError, TypeError) as error:
        raise SourceError(f"{path}: the notes kept beside the database cannot be read "
                          f"({error}); nothing was written, the file is left as it is: "
                          "mend it or move it away") from error
    before = _rows(con)
    con.register("kept_hand_notes", hands)
    con.register("kept_player_notes", players)
    try:
        con.execute("INSERT INTO hand_notes SELECT * FROM kept_hand_notes k "
                    "WHERE k.hand_id NOT IN (SELECT hand_id FROM hand_notes)")
        con.execute("INSERT INTO player_notes SELECT * FROM kept_player_notes k "
                    "WHERE k.player NOT IN (SELECT player FROM player_notes)")
    finally:
        con.unregister("kept_hand_notes")
        con.unregister("kept_player_notes")
    return _rows(con) - before


def _rows(con: duckdb.DuckDBPyConnection) -> int:
    counted = con.execute("SELECT (SELECT count(*) FROM hand_notes) "
                          "+ (SELECT count(*) FROM player_notes)").fetchall()
    return int(counted[0][0])
