"""Files in another format are named, not parsed as broken TOML (issue #27.6): the detector
on examples of each format, the ingest (a file-level error, nothing loaded, the other files
loaded) and the upload page's summary logic (verdict, refused files, full messages)."""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from analytics import ingest
from analytics.dashboard import logic
from analytics.warehouse.pipeline.run import FileSummary
from parsers.foreign import HANDLAB_READS, foreign_format
from parsers.scoresheet import looks_like_score_sheet
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs, write

POKERSTARS = """\
PokerStars Hand #254446474436:  Hold'em No Limit ($0.01/$0.02 USD) - 2024/12/01 12:00:00 ET
Table 'Aase II' 6-max Seat #3 is the button
Seat 1: player1 ($2.00 in chips)
Seat 2: player2 ($2.13 in chips)
player1: posts small blind $0.01
player2: posts big blind $0.02
*** HOLE CARDS ***
"""

POKERKIT_PHH = """\
variant = "NT"
ante_trimming_status = true
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 200]
actions = ["d dh p1 AcAd", "d dh p2 KsKh"]
"""

FOREIGN = {
    "pokerstars": (POKERSTARS, "a PokerStars hand history"),
    "pokerstars zoom, BOM": ("\ufeffPokerStars Zoom Hand #1234567: Hold'em", "PokerStars"),
    "ggpoker": ("Poker Hand #HD1234567: Hold'em No Limit ($0.02/$0.05) - 2024/01/01\n",
                "GGPoker"),
    "winamax": ("Winamax Poker - CashGame - HandId: #1-2-3 - Holdem no limit (0.01€/0.02€)\n",
                "Winamax"),
    "full tilt": ("Full Tilt Poker Game #33728803617: Table Gaston - $0.10/$0.25 - NL Hold'em",
                  "Full Tilt"),
    "888": ("#Game No : 412345678\n***** 888poker Hand History for Game 412345678 *****\n",
            "888poker"),
    "other site": ("Bovada Hand #3914453450 TBL#18153395 HOLDEM No Limit - 2020-01-01\n",
                   "poker site"),
    "csv": ("hand,player,result\n1,alice,10\n2,bob,-10\n", "a CSV table"),
    "csv of players and numbers": ("player;hands;net\nAnn;120;45\nBo;98;-12\n", "a CSV table"),
    "tsv": ("hand\tplayer\tresult\n1\talice\t10\n", "a tab-separated table"),
    "json": ('{"hands": [{"id": 1, "actions": ["p1 f"]}]}\n', "JSON"),
    "json array": ('[\n  {"id": 1}\n]\n', "JSON"),
    "json lines": ('{"id": 1}\n{"id": 2}\n', "JSON lines"),
    "xml": ('<?xml version="1.0" encoding="utf-8"?>\n<session sessioncode="1">', "XML"),
    "html": ("<!DOCTYPE html>\n<html><body>hands</body></html>", "an HTML page"),
    "pokerkit phh": (POKERKIT_PHH, "a PHH hand history of no-limit Texas hold'em"),
}


@pytest.mark.parametrize("name", list(FOREIGN))
def test_foreign_formats_are_named(name: str) -> None:
    text, what = FOREIGN[name]
    found = foreign_format(text.encode("utf-8"))
    assert found is not None, name
    assert what in found.what
    assert found.message.startswith(f"this looks like {found.what}, not a handlab history")
    assert HANDLAB_READS in found.message


HISTORIES = {
    "7 & 8 phhs": phhs(SEVENEIGHT, BIGTWO),
    "a single .phh": BIGTWO,
    "comments and blank lines first": "\n# notes from the club\n\n" + phhs(SEVENEIGHT),
    "a byte-order mark": "\ufeff" + phhs(SEVENEIGHT),
    "empty": "",
    "broken TOML (left to the reader's line numbers)": "[1]\nvariant = \n",
    "plain prose": "These are the hands of Friday night\nAnn won a lot\n",
}


@pytest.mark.parametrize("name", list(HISTORIES))
def test_handlab_histories_and_unknown_text_are_left_to_the_reader(name: str) -> None:
    assert foreign_format(HISTORIES[name].encode("utf-8")) is None


SCORE_SHEETS = {
    "dated, F=10, names, rows": "2023-03-03\nF=10\nAlice Bob Carol Dave\n3 0 5 12\n0 7 2 1\n",
    "names and rows": "Alice Bob Carol Dave\n3 0 5 12\n0 7 2 1\n",
    "setting first": "F=10\nAnn Bo Cy\n1 2 3\n",
}


@pytest.mark.parametrize("name", list(SCORE_SHEETS))
def test_big_two_score_sheets_are_never_called_foreign(name: str) -> None:
    text = SCORE_SHEETS[name]
    assert foreign_format(text) is None
    assert looks_like_score_sheet(text)


def test_a_comma_separated_sheet_is_named_a_csv_table() -> None:
    """The score-sheet reader takes numbers between spaces; a CSV of them is named."""
    found = foreign_format("Alice,Bob,Carol\n3,0,5\n0,7,2\n")
    assert found is not None and "CSV" in found.what


def test_binary_and_utf16_are_left_to_the_reader() -> None:
    assert foreign_format(POKERSTARS.encode("utf-16")) is None  # the reader names UTF-16
    assert foreign_format(b"\x00\x01\x02binary") is None


def test_ingest_names_foreign_files_and_loads_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    write(folder / "stars.txt", POKERSTARS)
    write(folder / "results.csv", FOREIGN["csv"][0])
    write(folder / "good.phhs", phhs(SEVENEIGHT, BIGTWO))
    packed = tmp_path / "packed.zip"
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("night.phhs", FOREIGN["json"][0])  # a history's name, JSON inside
    squeezed = tmp_path / "squeezed.phhs.gz"
    squeezed.write_bytes(gzip.compress(POKERKIT_PHH.encode()))
    summary = ingest([folder / "stars.txt", folder / "results.csv", folder / "good.phhs",
                      packed, squeezed], tmp_path / "db.duckdb", workers=0)
    by_name = {Path(f.name.split(":")[0]).name + (":" + f.name.split(":")[1]
                                                   if ":" in f.name else ""): f
               for f in summary.files}
    assert by_name["good.phhs"].status == "loaded" and summary.loaded == 2
    for name, what in (("stars.txt", "PokerStars"), ("results.csv", "CSV"),
                       ("packed.zip:night.phhs", "JSON"), ("squeezed.phhs.gz", "PHH")):
        item = by_name[name]
        assert item.status == "error" and item.loaded == item.rejected == 0, item
        assert what in str(item.message) and "malformed TOML" not in str(item.message)
    assert summary.rejected == 0 and summary.exit_code == 2


def test_an_archive_names_the_members_it_does_not_read(tmp_path: Path) -> None:
    """A zip of a CSV and a JSON file loads nothing and says why for each (it used to say
    only that the files hold no hands); beside a history, the history loads."""
    packed = tmp_path / "tables.zip"
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("results.csv", FOREIGN["csv"][0])
        archive.writestr("night.json", FOREIGN["json"][0])
    summary = ingest([packed], tmp_path / "db.duckdb", workers=0)
    assert {f.name: f.status for f in summary.files} == {
        f"{packed}:results.csv": "skipped", f"{packed}:night.json": "skipped"}
    assert all("of an archive, handlab reads the histories (.phh, .phhs members)"
               in str(f.message) for f in summary.files)
    assert (summary.loaded, summary.exit_code) == (0, 1)
    with zipfile.ZipFile(packed, "a") as archive:
        archive.writestr("good.phhs", phhs(SEVENEIGHT))
    summary = ingest([packed], tmp_path / "db2.duckdb", workers=0)
    assert [f.status for f in summary.files].count("loaded") == 1 and summary.loaded == 1


def test_upload_verdict_says_what_happened() -> None:
    good = FileSummary("upload: a.phhs", "loaded", "s", 5, 5, 0, 0)
    partial = FileSummary("upload: b.phhs", "partial", "t", 4, 3, 0, 1,
                          "upload: b.phhs:9: hand 2: p3 acted out of turn")
    foreign = FileSummary("upload: stars.txt", "error", "u", message="upload: stars.txt: "
                          "this looks like a PokerStars hand history, not a handlab history")
    before = FileSummary("upload: c.phhs", "already loaded", "v",
                         message="this content was loaded before")
    dupes = FileSummary("upload: d.phhs", "loaded", "w", 3, 0, 3, 0)
    refused = (("upload: huge.phhs", "150.0 MB, over the upload limit of 100 MB"),)
    skipped = FileSummary("upload: notes.zip:notes.csv", "skipped", "",
                          message="not read: of an archive, handlab reads the histories")
    cases = [
        ((good,), (), "success", "Loaded 5 new hands. Every page shows the new hands now."),
        ((good, dupes), (), "success", "Loaded 5 new hands (3 duplicates skipped)."),
        ((good, partial), (), "warning", "Loaded 8 new hands, but 1 hand rejected: see"),
        ((good,), refused, "warning", "Loaded 5 new hands, but 1 file not read"),
        ((foreign,), (), "error", "Nothing was loaded: 1 file not read."),
        ((), refused, "error", "Nothing was loaded: 1 file not read."),
        ((before, dupes), (), "info", "Nothing new: 3 duplicates skipped; 1 file loaded before."),
        ((FileSummary("upload: e.phhs", "loaded", "x"),), (), "error",
         "Nothing was loaded: the files hold no hands."),
        ((skipped, skipped), (), "error", "Nothing was loaded: 2 files skipped, none of them "
                                          "a history."),
        ((good, skipped), (), "success", "Loaded 5 new hands (1 file skipped)."),
    ]
    for files, refusals, level, start in cases:
        verdict = logic.upload_verdict(logic.upload_table(list(files), {}, refusals))
        assert verdict.level == level, (files, verdict)
        assert verdict.text.startswith(start), verdict.text
    assert "Every page shows" not in logic.upload_verdict(
        logic.upload_table([foreign], {})).text


def test_refused_files_are_listed_with_their_reason() -> None:
    table = logic.upload_table([FileSummary("upload: a.phhs", "loaded", "s", 5, 5, 0, 0)], {},
                               [("upload: huge.phhs", "150.0 MB, over the upload limit")])
    assert list(table["file"]) == ["upload: huge.phhs", "upload: a.phhs"]
    assert list(table["status"]) == ["refused", "loaded"]
    assert table["message"].iloc[0] == "150.0 MB, over the upload limit"


def test_upload_messages_are_whole_and_once() -> None:
    long_reason = "p3 bets 12 but the " + "very " * 60 + "long rule says otherwise"
    partial = FileSummary("upload: b.phhs", "partial", "t", 4, 3, 0, 1,
                          f"upload: b.phhs:9: hand 2: {long_reason}")
    table = logic.upload_table([partial], {}, [("upload: huge.phhs", "too big")])
    rejects = pd.DataFrame({"file": ["upload: b.phhs"], "hand_index": [2], "line": [9],
                            "stage": ["rules"], "game": ["seveneight"],
                            "error": [f"upload: b.phhs:9: hand 2: {long_reason}"]})
    assert logic.upload_messages(table, rejects) == [
        "upload: huge.phhs: too big", f"upload: b.phhs:9: hand 2: {long_reason}"]


def test_a_file_over_the_page_limit_is_refused_with_its_size() -> None:
    assert logic.upload_refusal(100 * 1024**2, 100) is None
    reason = logic.upload_refusal(150 * 1024**2 + 1, 100)
    assert reason is not None and reason.startswith("150.0 MB, over the upload limit of 100 MB")
    assert "handlab ingest" in reason
