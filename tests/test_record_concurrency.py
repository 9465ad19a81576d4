"""Two sessions at one table: one changes it at a time (the table's lock), a stale one is
refused and reads the table again, a filing under way is never taken for a crash's, and a
journal two writers garbled is named by its line (docs/recording.md, "One session at a
time")."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from analytics.record.hand import StepKind, StepRefused
from analytics.record.journal import JournalError, append_entry, read_entries
from analytics.record.lock import TableBusy, lock_path, table_lock
from analytics.record.table import RecordedTable, seveneight_setup
from analytics.warehouse import ingest, reader
from parsers import Action, Verb
from parsers.reader import read_hands
from tests.test_record import README_HAND, fixed_clock

KINDS = ("start", "filing", "filed", "end")
"""The journal lines that start, file or end a hand (the rest are steps)."""


def _table(folder: Path, ingest: Path | bool = False) -> RecordedTable:
    """test_record's README table: Ann, Bo and Cy at 7 & 8, 100 chips each."""
    setup = seveneight_setup("kitchen", ["Ann", "Bo", "Cy"], 100, blinds=(1, 2))
    return RecordedTable.create(folder, setup, ingest_into=ingest, clock=fixed_clock)


def _open(folder: Path, ingest: Path | bool = False) -> RecordedTable:
    return RecordedTable.open(folder, "kitchen", ingest_into=ingest, clock=fixed_clock)


def _kinds(journal: Path) -> list[str]:
    """The journal's lines that start, file or end a hand: ``filing 1``, ``start 2``."""
    return [f"{kind} {entry[kind]}" for entry in read_entries(journal)[1:]
            for kind in KINDS if kind in entry]


def test_a_stale_session_is_refused_and_reads_the_table_again(tmp_path: Path) -> None:
    """Two tabs at one betting step: the first folds Cy, the second (stale) calls for him.
    The call is refused, the second tab is where the first left the table, the journal
    holds the fold only, and it reads back."""
    table = _table(tmp_path)
    for action in README_HAND[:6]:
        table.record(action)
    first, second = _open(tmp_path), _open(tmp_path)
    assert first.next_step().player == 3
    first.record(Action(3, Verb.FOLD))
    assert not second.is_current
    with pytest.raises(StepRefused, match="the table moved on"):
        second.record(Action(3, Verb.CHECK_CALL))
    assert second.is_current and second.steps == first.steps
    assert second.next_step().kind is StepKind.BET and second.next_step().player == 1
    again = _open(tmp_path)
    assert again.hand is not None and again.hand.actions[-1] == Action(3, Verb.FOLD)
    # Every kind of change is refused alike: undo here.
    first.undo()
    with pytest.raises(StepRefused, match="the table moved on"):
        second.undo()
    assert second.steps == first.steps


def test_two_sessions_at_the_last_step_file_the_hand_once(tmp_path: Path) -> None:
    """Both at the last showdown step: the first shows and files the hand; the second's muck
    is refused, so the file and the warehouse hold the hand once, with one result."""
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    for action in README_HAND[:-1]:
        table.record(action)
    first, second = _open(tmp_path, db), _open(tmp_path, db)
    first.keep_writer = second.keep_writer = 0
    filed = first.show(1)
    assert filed is not None and filed.ingest == "loaded"
    with pytest.raises(StepRefused, match="the table moved on"):
        second.record(Action(1, Verb.SHOW_MUCK))
    assert [f.hand for f in second.filed] == [filed.hand] and second.number == 2
    assert list(read_hands(table.history_path)) == [filed.hand]
    assert _kinds(table.journal_path) == ["start 1", "filing 1", "filed 1", "start 2"]
    with reader(db) as con:
        assert con.execute("select count(*) from hands").fetchone() == (1,)
    assert [f.hand for f in _open(tmp_path).filed] == [filed.hand]


def _during_filing(monkeypatch: pytest.MonkeyPatch, visit: Callable[[], None]) -> None:
    """Call ``visit`` once in the middle of the next filing, while its hand is loaded."""
    visits: list[None] = []

    def visiting(*args: Any, **options: Any) -> Any:
        if not visits:
            visits.append(None)
            visit()
        return ingest(*args, **options)

    monkeypatch.setattr("analytics.record.table.ingest", visiting)


def test_a_session_opening_the_table_during_a_filing_waits_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reload (another thread) opens the table while the hand is being loaded: it waits
    for the filing instead of taking it for a crash's and filing the hand again."""
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    table.keep_writer = 0
    opened: list[RecordedTable] = []
    visitor = threading.Thread(target=lambda: opened.append(_open(tmp_path, False)))

    def reload() -> None:
        visitor.start()
        visitor.join(0.2)  # (a chance to open now: it must wait for the filing instead)

    _during_filing(monkeypatch, reload)
    for action in README_HAND:
        filed = table.record(action)
    visitor.join()
    assert filed is not None and filed.ingest == "loaded"
    [seen] = opened
    assert seen.number == 2 and [f.hand for f in seen.filed] == [filed.hand]
    assert seen.filed[0].ingest == "loaded" and seen.is_current
    assert _kinds(table.journal_path) == ["start 1", "filing 1", "filed 1", "start 2"]
    assert list(read_hands(table.history_path)) == [filed.hand]
    assert _open(tmp_path).number == 2


def test_a_table_opened_inside_its_own_filing_leaves_the_filing_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened by the filing's own thread (the lock taken again), the table sees a filing
    under way, not a crash's: it files nothing, and the stale copy is refused later."""
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    table.keep_writer = 0
    opened: list[RecordedTable] = []
    _during_filing(monkeypatch, lambda: opened.append(_open(tmp_path, False)))
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None
    [inside] = opened
    assert inside.filed == [] and inside.hand is not None and inside.hand.is_over
    assert _kinds(table.journal_path) == ["start 1", "filing 1", "filed 1", "start 2"]
    with pytest.raises(StepRefused, match="the table moved on"):
        inside.record(README_HAND[0])
    assert inside.number == 2 and [f.hand for f in inside.filed] == [filed.hand]


def test_a_filing_stages_its_hand_in_a_file_of_its_own(tmp_path: Path) -> None:
    """Another filing's staged file of the same table and hand number (a second server on the
    folder) is neither overwritten nor deleted."""
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    table.keep_writer = 0
    staged = tmp_path / ".ingest" / "kitchen-1.phh"
    staged.parent.mkdir()
    staged.write_text("another filing's hand")
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None and filed.ingest == "loaded"
    assert staged.read_text() == "another filing's hand"
    assert [path.name for path in staged.parent.iterdir()] == ["kitchen-1.phh"]


def test_the_lock_is_taken_again_by_its_thread_and_waited_for_by_others(
        tmp_path: Path) -> None:
    journal = tmp_path / "kitchen.journal"
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with table_lock(journal):
            held.set()
            done.wait()

    with table_lock(journal) as first, table_lock(journal) as again:
        assert (first, again) == (True, False)
    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    try:
        with pytest.raises(TableBusy, match="'kitchen' is busy"), table_lock(journal, 0.05):
            pass
    finally:
        done.set()
        holder.join()
    with table_lock(journal) as first:
        assert first
    assert lock_path(journal).name == "kitchen.journal.lock"


HOLDER = """
import sys
from pathlib import Path
from analytics.record.lock import table_lock
with table_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_another_process_holding_the_table_is_waited_for_and_a_crash_frees_it(
        tmp_path: Path) -> None:
    """The file lock keeps processes apart (two servers on one folder) and goes with a
    process that dies: a killed holder leaves no stale lock."""
    table = _table(tmp_path)
    for action in README_HAND[:3]:
        table.record(action)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(table.journal_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(TableBusy), table_lock(table.journal_path, 0.1):
            pass
    finally:
        holder.kill()
        holder.wait()
    table.record(README_HAND[3])  # the lock went with the process
    assert _open(tmp_path).steps == table.steps


def _journal_with(tmp_path: Path, *lines: dict[str, object]) -> Path:
    """The README hand's table up to Cy's first bet, then ``lines`` appended to its journal
    as a second writer would have (before tables were locked)."""
    table = _table(tmp_path)
    for action in README_HAND[:6]:
        table.record(action)
    for line in lines:
        append_entry(table.journal_path, line)
    return table.journal_path


def test_a_step_the_engine_refuses_in_the_journal_is_named_by_its_line(
        tmp_path: Path) -> None:
    """A fold and then a call for the same player (two tabs, before the lock): reading the
    journal back names the call's line and the engine's reason, not a bare RuleError."""
    journal = _journal_with(tmp_path, {"add": "p3 f"}, {"add": "p3 cc"}, {"add": "p1 cc"})
    call_line = len(journal.read_text().splitlines()) - 1
    with pytest.raises(JournalError, match=rf"kitchen.journal:{call_line}: the step 'p3 cc' "
                                           r"is refused: .*folded"):
        _open(tmp_path)


def test_a_show_after_the_hand_was_filed_is_named_by_its_line(tmp_path: Path) -> None:
    """The second of two sessions at the last step wrote its muck after the first filed the
    hand and started the next: the muck's line is named."""
    table = _table(tmp_path)
    for action in README_HAND:
        table.record(action)
    append_entry(table.journal_path, {"add": "p1 sm"})
    line = len(table.journal_path.read_text().splitlines())
    with pytest.raises(JournalError, match=rf"kitchen.journal:{line}: the step 'p1 sm'"):
        _open(tmp_path)


@pytest.mark.parametrize("entry", [{"undo": True}, {"set": "p1 cc"}, {"filed": 1}],
                         ids=json.dumps)
def test_an_entry_that_cannot_be_taken_again_is_named_by_its_line(
        tmp_path: Path, entry: dict[str, object]) -> None:
    """An undo with nothing to undo, a rewrite that is no list of actions, a hand filed
    before it is over: each is a JournalError naming its line."""
    table = _table(tmp_path)
    if "undo" not in entry:
        table.record(README_HAND[0])
    append_entry(table.journal_path, entry)
    line = len(table.journal_path.read_text().splitlines())
    with pytest.raises(JournalError, match=rf"kitchen.journal:{line}: "):
        _open(tmp_path)
