"""Forget loaded files: their hands and rejects leave the warehouse, as if never loaded.

For a file loaded by mistake, or a score sheet corrected after it was loaded (a changed
line is another game, docs/format.md): forget the old file, then load the corrected one.
Trackers call this deleting hands; here the unit is the file, as it is for loading.

A hand of a forgotten file may also be in another loaded file, which skipped it as a
duplicate (``files.duplicates``): each such file is read again where it was loaded from
(:func:`~analytics.warehouse.rekey.loaded_hands`: only while its content is the one
loaded) and its copies of the forgotten hands are loaded under it (not one its ingest
rejected), so a hand two files hold stays while one of them does.  A file that cannot be
read again any more is named in the result: copies it may hold leave with the forgotten
file, until it is forgotten and loaded again itself.

Tags and notes stay (in ``hand_notes`` and the notes file, keyed by hand id): a hand
loaded again gets them back.  The Rummoli games that lost rounds get their pot streaks
counted again.  Everything happens in one transaction: interrupted, nothing changed.
A Parquet lake's files are never rewritten in place: forgetting works on a database.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from analytics.rules import RuleError, replay
from analytics.warehouse.errors import WarehouseError
from analytics.warehouse.identity import hand_id
from analytics.warehouse.pipeline.rows import Batch, FileContext
from analytics.warehouse.pipeline.write import load_new
from analytics.warehouse.rekey import KEYED_TABLES, loaded_hands
from analytics.warehouse.sql.arrow_scan import arrow_over, execute_over
from analytics.warehouse.sql.facts import recount_streaks

__all__ = ["ForgetResult", "ForgottenFile", "NotLoaded", "forget_files", "loaded_file_matches",
           "unread_words"]


class NotLoaded(WarehouseError):
    """A name that matches no loaded file, or more than one."""


@dataclass(frozen=True, slots=True)
class ForgottenFile:
    """One forgotten file: where it was loaded from, its content's sha256, the hands and
    rejects it took away, and the hands it held that stay, loaded again from other files."""

    path: str
    sha256: str
    hands: int
    rejects: int
    kept: int


@dataclass(frozen=True, slots=True)
class ForgetResult:
    """What :func:`forget_files` did: each file forgotten, the files whose copies of the
    forgotten hands were loaded (path: hands), and the files that held copies but could
    not be read again (moved, changed, an upload's temporary file)."""

    files: tuple[ForgottenFile, ...]
    reloaded_from: tuple[tuple[str, int], ...]
    unreadable: tuple[str, ...]

    @property
    def hands(self) -> int:
        """Hands that left the warehouse."""
        return sum(file.hands - file.kept for file in self.files)


_FORGOTTEN: Final = "_handlab_forgotten"
# Tables holding hand ids the forgotten hands' rows leave: all but the notes (kept).
_EMPTIED: Final = tuple(table for table in KEYED_TABLES if table != "hand_notes")
_MIN_SHA_PREFIX: Final = 8


def loaded_file_matches(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[str, str]]:
    """The loaded files (sha256, path) that ``name`` names: a path as loaded (or that path
    made absolute: two versions of one file loaded are two), a file name, or the start of
    a sha256 (at least 8 hex digits).  Empty when none does."""
    files = [(str(sha), str(path)) for sha, path in con.execute(
        "SELECT sha256, path FROM files ORDER BY path").fetchall()]
    absolute = str(Path(name).expanduser().absolute())
    exact = [file for file in files if file[1] in (name, absolute)]
    if exact:
        return exact
    digest = name.lower()
    if len(digest) >= _MIN_SHA_PREFIX and _is_hex(digest):
        by_sha = [file for file in files if file[0].startswith(digest)]
        if by_sha:
            return by_sha
    return [file for file in files if _file_name(file[1]) == name]


def _is_hex(text: str) -> bool:
    """Whether ``text`` could be the start of a sha256 (hex digits only)."""
    return bool(text) and all(c in "0123456789abcdef" for c in text.lower())


def _file_name(path: str) -> str:
    """A loaded path's last part (``archive.zip:member`` keeps its member)."""
    return Path(path).name


def forget_files(con: duckdb.DuckDBPyConnection, names: Sequence[str]) -> ForgetResult:
    """Forget the loaded files ``names`` name (:func:`loaded_file_matches`), in one
    transaction; :class:`NotLoaded` names each name that matches none or several files,
    before anything changes."""
    targets: dict[str, str] = {}
    problems = []
    for name in names:
        found = loaded_file_matches(con, name)
        if len(found) == 1:
            targets.update(found)
        elif found:  # two files, or two versions of one path (a sheet loaded, then mended)
            problems.append(f"{name!r} names {len(found)} loaded files: "
                            + ", ".join(f"{path} ({sha[:12]})" for sha, path in found[:5])
                            + f" (give the start of the sha256 of the one to take out, "
                              f"at least {_MIN_SHA_PREFIX} characters)")
        elif _is_hex(name) and len(name) < _MIN_SHA_PREFIX:
            problems.append(f"{name!r} is not a loaded file (as the start of a sha256 it is "
                            f"too short: give at least {_MIN_SHA_PREFIX} characters)")
        else:
            problems.append(f"{name!r} is not a loaded file")
    if problems:
        raise NotLoaded("; ".join(problems))
    con.execute("BEGIN TRANSACTION")
    try:
        result = _forget(con, targets)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return result


def _forget(con: duckdb.DuckDBPyConnection, targets: dict[str, str]) -> ForgetResult:
    shas = pa.table({"sha256": pa.array(list(targets), pa.string())})
    hands = arrow_over(con, f"""
        SELECT h.hand_id, h.source_sha256, h.game, h.game_id FROM hands h
        WHERE h.source_sha256 IN (SELECT sha256 FROM {_FORGOTTEN})""", {_FORGOTTEN: shas})
    rejects = {row["sha256"]: int(row["n"]) for row in arrow_over(con, f"""
        SELECT sha256, count(*) AS n FROM rejects
        WHERE sha256 IN (SELECT sha256 FROM {_FORGOTTEN}) GROUP BY sha256""",
        {_FORGOTTEN: shas}).to_pylist()}
    ids = hands.select(["hand_id"])
    present = {str(row[0]) for row in con.execute(
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'hand_id' "
        "AND table_schema = current_schema()").fetchall()}
    for table in _EMPTIED:  # identifiers from this fixed tuple only
        if table in present:
            execute_over(con, f"DELETE FROM {table} WHERE hand_id IN "
                              f"(SELECT hand_id FROM {_FORGOTTEN})", {_FORGOTTEN: ids})
    for table in ("rejects", "files"):
        execute_over(con, f"DELETE FROM {table} WHERE sha256 IN "
                          f"(SELECT sha256 FROM {_FORGOTTEN})", {_FORGOTTEN: shas})
    kept, reloaded_from, unreadable = _load_copies(con, set(ids["hand_id"].to_pylist()))
    rummoli = hands.filter(pc.equal(hands["game"], "rummoli"))
    if rummoli.num_rows:
        recount_streaks(con, pc.unique(rummoli["game_id"]))
    by_file = Counter(hands["source_sha256"].to_pylist())
    kept_by_file = Counter(source for key, source in zip(
        hands["hand_id"].to_pylist(), hands["source_sha256"].to_pylist(), strict=True)
        if key in kept)
    files = tuple(ForgottenFile(path, sha, by_file[sha], rejects.get(sha, 0), kept_by_file[sha])
                  for sha, path in targets.items())
    return ForgetResult(files, reloaded_from, unreadable)


def _load_copies(con: duckdb.DuckDBPyConnection, forgotten: set[int]
                 ) -> tuple[set[int], tuple[tuple[str, int], ...], tuple[str, ...]]:
    """Load the copies of the ``forgotten`` hands that other loaded files hold (files that
    skipped duplicates), each under the first such file in loading order; the hands kept,
    the files they came from (path, hands) and the files that could not be read again."""
    kept: set[int] = set()
    reloaded: list[tuple[str, int]] = []
    unreadable: list[str] = []
    if not forgotten:
        return kept, (), ()
    for sha, path, started in con.execute(
            "SELECT sha256, path, started_at FROM files WHERE duplicates > 0 "
            "ORDER BY started_at, path").fetchall():
        hands = loaded_hands(con, str(path), str(sha))
        if not hands:
            unreadable.append(str(path))
            continue
        rejected = {int(row[0]) for row in con.execute(
            "SELECT hand_index FROM rejects WHERE sha256 = $sha", {"sha": str(sha)}).fetchall()}
        batch = Batch(FileContext(str(path), str(sha), _as_datetime(started)))
        for index, hand in hands.items():
            if index in rejected:  # that file's ingest refused it (its board, say)
                continue
            key = hand_id(hand)
            if key in forgotten and key not in kept:
                try:
                    outcome = replay(hand)
                except RuleError:  # it was a reject of that file, not a duplicate
                    continue
                batch.add(hand, outcome)
                kept.add(key)
        if len(batch):
            load_new(con, batch.tables())
            con.execute("UPDATE files SET loaded = loaded + $n, duplicates = duplicates - $n "
                        "WHERE sha256 = $sha", {"n": len(batch), "sha": str(sha)})
            reloaded.append((str(path), len(batch)))
        if kept == forgotten:
            break
    return kept, tuple(reloaded), tuple(unreadable)


def unread_words(result: ForgetResult, shown: int = 3) -> str:
    """The files :func:`forget_files` could not read again (the first ``shown`` named), and
    what to do, in words."""
    files = list(result.unreadable)
    named = ", ".join(files[:shown]) + (f" and {len(files) - shown:,} more" if
                                         len(files) > shown else "")
    return (f"{named}, which skipped duplicates, could not be read again (uploads, or moved "
            "or changed since loaded): copies of forgotten hands they may hold are not "
            "loaded; to load them, forget such a file too and ingest it again")


def _as_datetime(value: object) -> dt.datetime:
    return value if isinstance(value, dt.datetime) else dt.datetime.now()
