"""A bug in handlab meets one hand: that hand is rejected ("internal error"), every other
hand and file loads, the traceback goes to the error log, the exit code says so.

The bug is planted (tests/planted_bug/sitecustomize.py): the rules dispatcher raises
ValueError for a hand whose table is ``planted bug``, as the Rummoli engine did for a lay
of ``??`` (issue #26); in-process by monkeypatch (worker processes are forked and inherit
it), in the ``handlab`` command's processes by the sitecustomize on PYTHONPATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from analytics.warehouse import ingest
from analytics.warehouse.pipeline.errorlog import error_log_path
from analytics.warehouse.pipeline.rows import Batch
from analytics.warehouse.pipeline.work import INTERNAL_STAGE
from parsers import read_hands
from tests.planted_bug.sitecustomize import MARK, MESSAGE, plant

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
PLANTED = ROOT / "tests" / "planted_bug"


def _hands(path: Path, count: int) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [h for h in re.split(r"(?m)^(?=\[\d+\]$)", text) if h.strip()][:count]


def _marked(hand: str) -> str:
    marked = re.sub(r'(?m)^table = .*$', f'table = "{MARK}"', hand)
    assert marked != hand
    return marked


def files(folder: Path) -> tuple[Path, Path, Path]:
    """A Rummoli file whose 3rd of 6 hands is marked, a good Rummoli file, and a 7 & 8 file
    of the writer's layout (the block path) whose 2nd of 40 hands is marked."""
    folder.mkdir(parents=True, exist_ok=True)
    rummoli = _hands(SAMPLES / "rummoli-family.phhs", 12)
    bad = folder / "bad.phhs"
    bad.write_text("".join([*rummoli[:2], _marked(rummoli[2]), *rummoli[3:6]]), "utf-8")
    good = folder / "good.phhs"
    good.write_text("".join(rummoli[6:12]), "utf-8")
    seveneight = _hands(SAMPLES / "seveneight-nl-6max.phhs", 40)
    mixed = folder / "seveneight.phhs"
    mixed.write_text("".join([seveneight[0], _marked(seveneight[1]), *seveneight[2:]]),
                     "utf-8")
    return bad, good, mixed


def _line_of_hand(path: Path, index: int) -> int:
    return next(hand.line for hand in read_hands(path) if hand.index == index)


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2])
def test_a_bug_rejects_its_hand_and_the_rest_loads(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   workers: int) -> None:
    plant(monkeypatch.setattr)
    bad, good, seveneight = files(tmp_path / "in")
    db = tmp_path / "w.duckdb"
    summary = ingest([bad, good, seveneight], db, workers=workers)
    assert summary.exit_code == 1
    assert summary.internal_errors == 1  # the 7 & 8 hand's block replay is not the engine's
    by_name = {Path(f.name).name: f for f in summary.files}
    assert (by_name["bad.phhs"].status, by_name["bad.phhs"].loaded,
            by_name["bad.phhs"].rejected) == ("partial", 5, 1)
    assert (by_name["good.phhs"].status, by_name["good.phhs"].loaded) == ("loaded", 6)
    assert (by_name["seveneight.phhs"].status, by_name["seveneight.phhs"].loaded) == (
        "loaded", 40)
    log = error_log_path(db)
    assert summary.error_log == log
    line = _line_of_hand(bad, 3)
    ((file, index, at, stage, game, found),) = _rows(
        db, "SELECT file, hand_index, line, stage, game, error FROM rejects")
    assert (file, index, at, stage, game) == (str(bad), 3, line, INTERNAL_STAGE, "rummoli")
    error = str(found)
    assert error.startswith(f"{bad}:{line}: hand 3: internal error: ValueError: {MESSAGE}")
    assert str(log) in error
    assert by_name["bad.phhs"].message == error.splitlines()[0]
    text = log.read_text(encoding="utf-8")
    assert f"{bad}:{line}: hand 3: internal error: ValueError" in text
    assert "Traceback (most recent call last)" in text and "sitecustomize.py" in text
    # The others are in whole: the hands and the seats of every loaded hand.
    assert _rows(db, "SELECT count(*), count(DISTINCT hand_id) FROM hands") == [(51, 51)]
    assert _rows(db, "SELECT count(*) FROM hands h WHERE NOT EXISTS "
                     "(SELECT 1 FROM seats s WHERE s.hand_id = h.hand_id)") == [(0,)]
    # Nothing twice on a rerun.
    again = ingest([bad, good, seveneight], db, workers=workers)
    assert {f.status for f in again.files} == {"already loaded"}
    assert _rows(db, "SELECT count(*) FROM rejects") == [(1,)]


def test_a_failing_block_path_makes_its_hands_internal_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the block path is never redone quietly by the per-hand path (where it would
    only show as slowness): the hands it was deciding are internal errors, the others of the
    batch load, and a rerun after the fix loads them."""
    seveneight = _hands(SAMPLES / "seveneight-nl-6max.phhs", 2)
    rummoli = _hands(SAMPLES / "rummoli-family.phhs", 1)
    foreign = tmp_path / "mixed.phhs"  # two hands of the block, one it declines between
    foreign.write_text("".join(f"[{number}]\n{hand.split(chr(10), 1)[1]}" for number, hand
                               in enumerate([seveneight[0], *rummoli, seveneight[1]], 1)),
                       "utf-8")
    plant(monkeypatch.setattr, block=True)
    db = tmp_path / "w.duckdb"
    summary = ingest([foreign], db, workers=0)
    assert (summary.loaded, summary.rejected, summary.internal_errors) == (1, 2, 2)
    assert summary.exit_code == 1
    assert _rows(db, "SELECT game FROM hands") == [("rummoli",)]
    assert _rows(db, "SELECT hand_index, stage, game FROM rejects ORDER BY 1") == [
        (1, INTERNAL_STAGE, "seveneight"), (3, INTERNAL_STAGE, "seveneight")]
    text = error_log_path(db).read_text(encoding="utf-8")
    assert "IndexError: planted bug in the block replay" in text


def test_a_failing_batch_is_done_hand_by_hand(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug where a batch's rows are made (Batch.add) cannot be pinned on a hand while the
    batch is made as one: the batch is made again one hand at a time."""
    add = Batch.add

    def failing_add(self: Batch, hand: object, *args: object) -> bool:
        if getattr(hand, "table", None) == MARK:
            raise KeyError("planted bug in the rows")
        return add(self, hand, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Batch, "add", failing_add)
    bad, good, _ = files(tmp_path / "in")
    db = tmp_path / "w.duckdb"
    summary = ingest([bad, good], db, workers=0)
    assert (summary.loaded, summary.rejected, summary.internal_errors) == (11, 1, 1)
    reference = tmp_path / "reference.duckdb"
    monkeypatch.setattr(Batch, "add", add)
    ingest([bad, good], reference, workers=0)
    same = ("SELECT h.hand_id, h.source_index, s.seat, s.net FROM hands h JOIN seats s "
            f"USING (hand_id) WHERE h.table_name IS DISTINCT FROM '{MARK}' ORDER BY 1, 3")
    assert _rows(db, same) == _rows(reference, same)
    ((error,),) = _rows(db, "SELECT error FROM rejects")
    assert "internal error: KeyError" in str(error)
    text = error_log_path(db).read_text(encoding="utf-8")
    assert "the batch's reading or rows failed" in text
    assert "KeyError: 'planted bug in the rows'" in text


def _planted_env(kind: str = "1") -> dict[str, str]:
    path = os.pathsep.join([str(PLANTED), str(ROOT)])
    return dict(os.environ, PYTHONPATH=path, HANDLAB_PLANTED_BUG=kind)


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["0", "2"])
def test_handlab_ingest_exits_1_without_a_traceback(tmp_path: Path, workers: str) -> None:
    files(tmp_path / "in")
    db = tmp_path / "w.duckdb"
    done = subprocess.run([sys.executable, "-m", "analytics.cli", "ingest", "-q", "-j", workers,
                           "--db", str(db), str(tmp_path / "in")],
                          capture_output=True, text=True, env=_planted_env(), timeout=600)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "1 hand rejected for an internal error" in done.stderr
    assert _rows(db, "SELECT count(*) FROM hands") == [(51,)]
    assert _rows(db, "SELECT stage FROM rejects") == [(INTERNAL_STAGE,)]
    assert "ValueError: planted bug" in error_log_path(db).read_text(encoding="utf-8")


@pytest.mark.slow
def test_handlab_validate_reports_the_hand_and_exits_1(tmp_path: Path) -> None:
    bad, good, _ = files(tmp_path / "in")
    done = subprocess.run([sys.executable, "-m", "analytics.cli", "validate", str(bad),
                           str(good)], capture_output=True, text=True, env=_planted_env(),
                          timeout=600)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    line = _line_of_hand(bad, 3)
    assert (f"{bad}:{line}: hand 3: internal error: ValueError: {MESSAGE}"
            in done.stdout.replace("\n", ""))
    assert re.search(r"Rummoli\s*│\s*11\s*│\s*0\s*│\s*1", done.stderr)  # valid, dup, rejected
