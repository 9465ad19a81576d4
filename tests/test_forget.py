"""Forgetting loaded files (``handlab forget``): the database afterwards holds exactly what
an ingest of the other files alone would have loaded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ingest, reader, writer
from analytics.warehouse.annotations import HandNote, set_hand_note
from analytics.warehouse.forget import NotLoaded, forget_files
from analytics.warehouse.sql.schema import TABLES
from parsers import write_hands

_LOAD_TIMES = {"files": ("started_at", "finished_at", "seconds"), "rejects": ("rejected_at",)}
"""Columns that say when a file was loaded, not what it holds."""


def _table(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[object, ...]]:
    columns = [str(row[0]) for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $table "
        "ORDER BY ordinal_position", {"table": table}).fetchall()
        if row[0] not in _LOAD_TIMES.get(table, ()) and row[0] != "loaded_at"]
    return sorted(con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall(),
                  key=repr)


def _contents(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with reader(db) as con:
        return {table: _table(con, table) for table in TABLES}


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``rummoli``: the first 4 rounds of a Rummoli game and 5 7 & 8 hands; ``overlap``: the
    game's other 6 rounds, the same 5 7 & 8 hands (duplicates it skipped), Big Two games;
    ``other``: 7 & 8 hands."""
    folder = tmp_path_factory.mktemp("forget")
    rounds = list(simulate_rummoli(10, 4, 5, rounds_per_game=10))
    files = {"rummoli": folder / "rummoli.phhs", "overlap": folder / "overlap.phhs",
             "other": folder / "other.phhs"}
    sevens = list(simulate_seveneight(5, 3, 8))
    write_hands([*rounds[:4], *sevens], files["rummoli"])
    write_hands([*rounds[4:], *sevens, *simulate_bigtwo(6, 4, 6)], files["overlap"])
    write_hands(simulate_seveneight(20, 4, 7), files["other"])
    return files


@pytest.mark.slow
def test_forgetting_a_file_leaves_what_the_others_alone_load(
        histories: dict[str, Path], tmp_path: Path) -> None:
    """The first file forgotten: its 4 rounds leave (the game's pot streaks are counted
    again over the 6 rounds left), the 5 hands the overlapping file skipped are loaded
    from it (its counts say so), and every table equals a fresh ingest of the two other
    files, loaded in the same order."""
    db = tmp_path / "all.duckdb"
    for name in ("rummoli", "overlap", "other"):
        ingest([histories[name]], db, workers=0)
    with writer(db) as con:
        assert con.execute("SELECT duplicates FROM files WHERE path = $p",
                           {"p": str(histories["overlap"])}).fetchall() == [(5,)]
        result = forget_files(con, ["rummoli.phhs"])
    [gone] = result.files
    assert (gone.path, gone.hands, gone.kept, gone.rejects) == (
        str(histories["rummoli"]), 9, 5, 0)
    assert result.hands == 4
    assert result.reloaded_from == ((str(histories["overlap"]), 5),)
    assert result.unreadable == ()

    fresh = tmp_path / "fresh.duckdb"
    for name in ("overlap", "other"):
        ingest([histories[name]], fresh, workers=0)
    ours, theirs = _contents(db), _contents(fresh)
    for table in TABLES:
        assert ours[table] == theirs[table], table


def test_a_name_matching_nothing_changes_nothing(histories: dict[str, Path],
                                                 tmp_path: Path) -> None:
    """A name that is no loaded file, beside one that is: refused before any change."""
    db = tmp_path / "one.duckdb"
    ingest([histories["other"]], db, workers=0)
    before = _contents(db)
    with writer(db) as con, pytest.raises(NotLoaded, match=r"'nothing\.phhs' is not a loaded"):
        forget_files(con, ["other.phhs", "nothing.phhs"])
    assert _contents(db) == before


def test_the_command_forgets_by_sha_keeps_notes_and_loads_again(
        histories: dict[str, Path], tmp_path: Path) -> None:
    """``handlab forget`` by the start of a sha256: the hands go, a tagged hand's tag stays
    and is back on the hand when the file is loaded again; ``--list`` names the files; a
    name of no loaded file exits 1."""
    db = tmp_path / "cli.duckdb"
    ingest([histories["other"]], db, workers=0)
    with writer(db) as con:
        [(sha,)] = con.execute("SELECT sha256 FROM files").fetchall()
        [(tagged,)] = con.execute("SELECT min(hand_id) FROM hands").fetchall()
        set_hand_note(con, tagged, HandNote(starred=True, tags=("bluff",)))
    runner = CliRunner()
    listed = runner.invoke(app, ["forget", "--list", "--db", str(db)])
    assert listed.exit_code == 0 and str(sha)[:12] in listed.output
    done = runner.invoke(app, ["forget", str(sha)[:10], "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert any(line.split("│")[2:4] == ["        20 ", "                      0 "]
               for line in done.output.splitlines() if "│" in line), done.output
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM files").fetchall() == [(0,)]
    missing = runner.invoke(app, ["forget", "other.phhs", "--db", str(db)])
    assert missing.exit_code == 1 and "not a loaded file" in missing.output
    ingest([histories["other"]], db, workers=0)
    with reader(db) as con:
        assert con.execute("SELECT tags FROM hand_notes h JOIN hands USING (hand_id) "
                           "WHERE hand_id = $id", {"id": tagged}).fetchall() == [(["bluff"],)]


def test_a_copy_the_other_file_rejected_is_not_loaded(tmp_path: Path) -> None:
    """File B holds another round 1 of A's game, then A's round 2 (which B's board check
    rejects: it does not continue B's round 1) and A's 7 & 8 hand (a duplicate it skipped).
    A forgotten: the 7 & 8 hand is loaded from B, the rejected round is not (it was loaded,
    and B's duplicates went below zero); the database equals a fresh ingest of B."""
    rounds = list(simulate_rummoli(3, 4, 5, rounds_per_game=10))
    other = dataclasses.replace(next(iter(simulate_rummoli(1, 4, 99, rounds_per_game=10))),
                                game_id=rounds[0].game_id)
    seven = list(simulate_seveneight(1, 3, 8))
    write_hands([*rounds, *seven], tmp_path / "A.phhs")
    write_hands([other, rounds[1], *seven], tmp_path / "B.phhs")
    db, fresh = tmp_path / "ab.duckdb", tmp_path / "b.duckdb"
    for name in ("A", "B"):
        ingest([tmp_path / f"{name}.phhs"], db, workers=0)
    ingest([tmp_path / "B.phhs"], fresh, workers=0)
    with writer(db) as con:
        result = forget_files(con, ["A.phhs"])
    assert result.reloaded_from == ((str(tmp_path / "B.phhs"), 1),)
    ours, theirs = _contents(db), _contents(fresh)
    for table in TABLES:
        assert ours[table] == theirs[table], table


def test_two_versions_of_one_path_are_two_files(tmp_path: Path) -> None:
    """A score sheet loaded, mended, loaded again: its path names two loaded files, and
    taking both out (the mended one too) was not what was asked; the start of a sha256
    names one."""
    sheet = tmp_path / "sheet.txt"
    db = tmp_path / "s.duckdb"
    sheet.write_text("Ann Bo Cy\n0 1 2\n")
    ingest([sheet], db, workers=0)
    sheet.write_text("Ann Bo Cy\n0 1 3\n")
    mended = ingest([sheet], db, workers=0)
    with writer(db) as con:
        with pytest.raises(NotLoaded, match=r"names 2 loaded files"):
            forget_files(con, ["sheet.txt"])
        [(first,)] = con.execute("SELECT sha256 FROM files ORDER BY started_at LIMIT 1"
                                 ).fetchall()
        # The ingest of the mended sheet said so, and named both versions to take out
        # before loading it again (forgetting the old one alone would take the games the
        # two share, which the mended one holds as duplicates, when it cannot be re-read).
        assert mended.files[0].earlier == (first,)
        note = mended.files[0].earlier_note
        new = str(mended.files[0].sha256)
        assert note is not None and f"handlab forget {str(first)[:12]} {new[:12]}" in note
        with pytest.raises(NotLoaded, match=r"too short: give at least 8 characters"):
            forget_files(con, [str(first)[:5]])
        forget_files(con, [str(first)[:12]])
        assert con.execute("SELECT count(*) FROM files").fetchall() == [(1,)]


def test_a_history_file_that_grew_gets_no_word_and_a_mended_sheet_upload_warns(
        tmp_path: Path) -> None:
    """The note is a score sheet's: a history file loaded again with more hands holds the
    old ones as duplicates (known by their content), so nothing counts twice and there is
    nothing to take out.  On the Upload page a mended sheet is a warning, not a success."""
    from analytics.dashboard import logic
    from tests.test_warehouse_data import simulated_text

    history = tmp_path / "hands.phhs"
    db = tmp_path / "h.duckdb"
    text = simulated_text("bigtwo", 5, seed=3)
    history.write_text(text.split("[4]")[0])
    ingest([history], db, workers=0)
    history.write_text(text)
    grown = ingest([history], db, workers=0)
    assert grown.files[0].duplicates == 3 and grown.files[0].earlier == ()
    assert grown.files[0].earlier_note is None
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("Ann Bo Cy\n0 1 2\n")
    ingest([sheet], db, workers=0)
    sheet.write_text("Ann Bo Cy\n0 1 3\n")
    mended = ingest([sheet], db, workers=0)
    table = logic.upload_table(mended.files, {})
    assert table["earlier version"].iloc[0] == str(mended.files[0].earlier[0])[:12]
    verdict = logic.upload_verdict(table)
    assert verdict.level == "warning"
    assert "1 score sheet loaded before with other content" in verdict.text


def test_forget_refuses_a_lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$HANDLAB_LAKE set and no --db: a lake's files are never rewritten (it stopped with
    DuckDB's 'Can only delete from base table' traceback)."""
    monkeypatch.setenv("HANDLAB_LAKE", str(tmp_path / "lake"))
    result = CliRunner().invoke(app, ["forget", "a.phhs"])
    assert result.exit_code == 2 and "forget works on a database" in result.output
