"""Migration 13: every hand's id re-keyed from IDENTITY_VERSION 1 to 2 (issue #31).

The new id hashes the hand's typed values (:mod:`analytics.warehouse.identity`), several
of which the warehouse does not store (``user_fields``, ``seats``, ``seat_count``,
``author``..., whether ``hand`` was a number or a text), so it cannot be computed from the
stored rows.  It is computed exactly the way an ingest computes it, from the hand's own
text: each loaded file (``files``) is read again where it was loaded from, checked against
its stored sha256, and each of its hands the warehouse holds (``hands.source_index``)
parsed again and keyed.  Then every table holding hand ids gets the new ones, and the
notes file beside the database (``<db>.notes.json``) is written again with them.

``hand_id_map`` keeps each old id and its new one, so a link or export saved before
(``?hand=`` with the old hex id) still finds its hand
(:func:`analytics.warehouse.sql.views.current_hand_id`).  A hand
whose file cannot be read again (moved, changed, an upload) keeps its old id: it is still
one hand with one id, and only a copy of it loaded later from another file would be
stored a second time (docs/warehouse.md, "Hand identity").
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Final

import duckdb
import pyarrow as pa

from analytics.warehouse.annotations import save_notes_file
from analytics.warehouse.errors import SourceError
from analytics.warehouse.identity import hand_id
from analytics.warehouse.pipeline.sources import SourceRef, expand, open_source
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.queries import database_file
from parsers.model import HandHistory
from parsers.reader import hand_from_chunk, iter_chunks
from parsers.scoresheet import decode_sheet, read_score_sheet, sheet_hands, starts_like_score_sheet

__all__ = ["HAND_ID_MAP", "KEYED_TABLES", "loaded_hands", "rekey_hands"]

HAND_ID_MAP: Final = """
    CREATE TABLE hand_id_map (
        old_id BIGINT PRIMARY KEY,
        new_id BIGINT NOT NULL
    )
"""
"""Migration 13's table: each re-keyed hand's id before it (IDENTITY_VERSION 1) and after."""

KEYED_TABLES: Final = ("hands", "seats", "actions", "showdowns", "awards", "board",
                       "allin_results", "rummoli_strength", "bigtwo_features", "seat_facts",
                       "pot_facts", "hand_facts", "bigtwo_scores", "stat_facts", "hand_notes")
"""The tables that may hold a ``hand_id`` column (the ones that do are re-keyed)."""

def rekey_hands(con: duckdb.DuckDBPyConnection) -> int:
    """Give every hand whose file can be read again its IDENTITY_VERSION 2 id, in every
    table, record the old ids in ``hand_id_map`` and write the notes file again; the
    number of hands re-keyed."""
    con.execute(HAND_ID_MAP)
    old_ids: list[int] = []
    new_ids: list[int] = []
    for sha256, path, ids, indexes in con.execute(
            "SELECT f.sha256, f.path, list(h.hand_id ORDER BY h.source_index), "
            "list(h.source_index ORDER BY h.source_index) FROM files f "
            "JOIN hands h ON h.source_sha256 = f.sha256 GROUP BY f.sha256, f.path "
            "ORDER BY f.path").fetchall():
        found = _ids_by_index(str(path), str(sha256), _database_folder(con))
        for old, index in zip(ids, indexes, strict=True):
            new = found.get(int(index))
            if new is not None and new != old:
                old_ids.append(int(old))
                new_ids.append(new)
    if not old_ids:  # a new database, or nothing to re-key: no statement over the tables
        return 0
    mapping = pa.table({"old_id": pa.array(old_ids, pa.int64()),
                        "new_id": pa.array(new_ids, pa.int64())})
    execute_over(con, "INSERT INTO hand_id_map SELECT old_id, new_id FROM mapping",
                  {"mapping": mapping})
    present = {str(row[0]) for row in con.execute(
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'hand_id' "
        "AND table_schema = current_schema()").fetchall()}
    for table in KEYED_TABLES:  # identifiers from this list only
        if table in present:
            con.execute(f"UPDATE {table} SET hand_id = m.new_id FROM hand_id_map m "
                        f"WHERE {table}.hand_id = m.old_id")
    if "hand_notes" in present:
        save_notes_file(con)
    return len(old_ids)


def _database_folder(con: duckdb.DuckDBPyConnection) -> Path | None:
    database = database_file(con)
    return None if database is None else database.parent


def _ids_by_index(path: str, sha256: str, folder: Path | None) -> dict[int, int]:
    """The new id of each hand of the file loaded from ``path`` (as ``files.path`` names
    it), by its position in the file; empty when the file cannot be read again or its
    content is no longer the one loaded (``sha256``)."""
    return {index: hand_id(hand)
            for index, hand in _hands_by_index(path, sha256, folder).items()}


def loaded_hands(con: duckdb.DuckDBPyConnection, path: str, sha256: str
                 ) -> dict[int, HandHistory]:
    """The hands of the file ``files`` holds as loaded from ``path`` with content
    ``sha256``, read again where it was loaded from (or beside the database), by their
    position in the file (``hands.source_index``); empty when it cannot be read again or
    its content changed.  For a migration whose rows come from the hands' own text."""
    return _hands_by_index(path, sha256, _database_folder(con))


def _hands_by_index(path: str, sha256: str, folder: Path | None) -> dict[int, HandHistory]:
    ref = _source(path, folder)
    if ref is None:
        return {}
    try:
        with open_source(ref) as stream:
            data = stream.read()
    except SourceError:
        return {}
    if hashlib.sha256(data).hexdigest() != sha256:
        return {}
    return {hand.index: hand for hand in _hands(data, path) if not hand.errors}


def _source(path: str, folder: Path | None) -> SourceRef | None:
    """The source ``files.path`` names: a file (as given, or beside the database) or
    ``archive.zip:member``; None when there is none (an upload's label, a file gone)."""
    archive, _, member = path.rpartition(":")
    candidates: list[tuple[str, str | None]] = [(path, None)]
    if archive and member:
        candidates.append((archive, member))
    for file, wanted in candidates:
        for place in (Path(file), *([folder / file] if folder is not None else [])):
            if not place.is_file():
                continue
            try:
                refs = expand([place])
            except SourceError:
                continue
            for ref in refs:
                if ref.member == wanted and ref.problem is None:
                    return ref
    return None


def _hands(data: bytes, name: str) -> list[HandHistory]:
    """The hands of a source's content, numbered as the ingest numbers them: a score
    sheet's games (:func:`parsers.scoresheet.sheet_hands`), else the histories' hands."""
    if starts_like_score_sheet(data):
        return sheet_hands(read_score_sheet(decode_sheet(data)).games, name)
    return [hand_from_chunk(chunk, name) for chunk in iter_chunks(io.BytesIO(data), name)]
