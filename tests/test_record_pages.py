"""The Record and Play pages when another session is at the table or a journal is garbled:
the refusal or the journal's line in words, never a traceback (Streamlit's AppTest)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

import analytics.record.play as play_module
from analytics.record.journal import append_entry
from analytics.record.table import RecordedTable, seveneight_setup
from parsers import Action
from tests.test_dashboard_record import dashboard_db, folder, open_page
from tests.test_record import README_HAND

__all__ = ["dashboard_db", "folder"]  # the fixtures, re-exported for pytest



def test_sitting_down_gets_a_table_of_its_own_when_the_second_is_taken(folder: Path) -> None:
    """Tables named after the second the Play page sits you down (another sit-down that
    second): yours gets a name of its own instead of the page failing on the clash."""
    folder.mkdir(parents=True)
    now = int(time.time())
    for second in range(now - 1, now + 180):
        (folder / f"play-{second}.journal").write_text("")
    at = open_page("play", "none")
    at.button(key="play_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    name = at.query_params["table"]
    name = name[0] if isinstance(name, list) else name
    assert name.startswith("play-") and name.count("-") == 2
    assert RecordedTable.open(folder, name, ingest_into=False).hand is not None


def test_a_journal_with_a_refused_step_is_named_in_words(folder: Path) -> None:
    """A fold and a call for the same player (two tabs, before tables were locked): the page
    names the journal's line and the engine's reason instead of raising."""
    table = RecordedTable.create(folder, seveneight_setup("den", ["Ann", "Bo", "Cy"], 100),
                                 ingest_into=False)
    for action in README_HAND[:6]:
        table.record(action)
    append_entry(table.journal_path, {"add": "p3 f"})
    append_entry(table.journal_path, {"add": "p3 cc"})
    line = len(table.journal_path.read_text().splitlines())
    at = open_page("record", "den")
    errors = " ".join(str(error.value) for error in at.error).replace("\\", "")  # Markdown
    assert f"den.journal:{line}: the step 'p3 cc' is refused" in errors
    assert "cannot be read back from its journal" in errors


def test_a_bot_move_another_session_took_first_is_refused_and_play_goes_on(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another session (a reload while the bots play) takes the bots' next move first: the
    page's own copy of it is refused, the page says so and plays on from the table as it
    is; the move is in the journal once."""
    setup = seveneight_setup("duel", ["You", "Bo", "Cy"], 100, bots=("", "tight", "loose"))
    RecordedTable.create(folder, setup, ingest_into=False)
    chosen = play_module.automatic_action
    taken: list[Action] = []

    def taken_first(table: RecordedTable, rng: random.Random) -> Action | None:
        action = chosen(table, rng)
        if action is not None and not taken:
            taken.append(action)
            other = RecordedTable.open(table.folder, table.setup.name, ingest_into=False)
            other.record(action)
        return action

    monkeypatch.setattr(play_module, "automatic_action", taken_first)
    at = open_page("play", "duel")
    assert "the table moved on" in " ".join(str(error.value) for error in at.error)
    table = RecordedTable.open(folder, "duel", ingest_into=False)
    assert table.hand is not None and table.hand.actions.count(taken[0]) == 1
    assert play_module.is_persons_turn(table)  # the bots played on to your turn
