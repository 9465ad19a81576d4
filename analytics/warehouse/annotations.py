"""Tags and notes people put on hands and players: their own tables, keyed by stable ids.

``hand_notes`` holds one row per annotated hand (starred, labels, a note), keyed by the
hand id, which is a hash of the hand's content (docs/warehouse.md): loading the same
files again (or into a rebuilt database, then copying these tables over) finds the same
ids, and no ingest, migration or fact fill touches these tables, so the notes outlive
re-ingests.  ``player_notes`` holds one note per player name.  Migration 10 creates them.
Writes go through a writer connection; reads through any.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

import duckdb
import pandas as pd

__all__ = ["ANNOTATION_TABLES", "HandNote", "hand_note", "player_note", "player_notes",
           "set_hand_note", "set_player_note", "tagged_hands", "tags_from_text"]

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
    need not be in the warehouse: a note waits for its hand to be loaded."""
    con.execute("DELETE FROM hand_notes WHERE hand_id = $hand", {"hand": hand_id})
    if note.empty:
        return
    con.execute("INSERT INTO hand_notes VALUES ($hand, $starred, $tags, $note, $at)",
                {"hand": hand_id, "starred": note.starred, "tags": _clean_tags(note.tags),
                 "note": note.note.strip(), "at": dt.datetime.now()})


def hand_note(con: duckdb.DuckDBPyConnection, hand_id: int) -> HandNote:
    """The note kept for the hand (an empty one when none)."""
    rows = con.execute("SELECT starred, tags, note FROM hand_notes WHERE hand_id = $hand",
                       {"hand": hand_id}).fetchall()
    if not rows:
        return HandNote()
    starred, tags, note = rows[0]
    return HandNote(bool(starred), tuple(str(t) for t in tags), str(note))


def set_player_note(con: duckdb.DuckDBPyConnection, player: str, note: str) -> None:
    """Keep ``note`` on the player (replacing any); an empty note forgets it."""
    con.execute("DELETE FROM player_notes WHERE player = $player", {"player": player})
    if note.strip():
        con.execute("INSERT INTO player_notes VALUES ($player, $note, $at)",
                    {"player": player, "note": note.strip(), "at": dt.datetime.now()})


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
