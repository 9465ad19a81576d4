"""The command line says what went wrong and exits non-zero (issue #27, item 10): simulate
checks its arguments before writing and leaves no partial file, validate reports empty
files, foreign formats and duplicates, report refuses to write an empty report."""

from __future__ import annotations

import gzip
import os
import zipfile
from pathlib import Path
from typing import Final

import pandas as pd
import pytest
from fsspec.registry import known_implementations
from typer.testing import CliRunner

from analytics.cli import app
from analytics.simulate import simulate
from analytics.warehouse import ingest
from parsers import dumps_hands, write_hands
from parsers.foreign import HANDLAB_READS
from parsers.rule_options import GAME_NAMES, Game
from tests.test_dashboard_data import dashboard_db
from tests.test_scoresheets import SHEETS

__all__ = ["dashboard_db"]

RUNNER = CliRunner(env={"COLUMNS": "240"})


def _said(output: str) -> str:
    return " ".join(output.split())  # rich wraps at the terminal width


def _unfolded(output: str) -> str:
    """``output`` without any space: rich folds a long path anywhere across lines."""
    return "".join(output.split())


@pytest.mark.parametrize(("game", "players", "limits"), [
    ("bigtwo", 6, "2 to 4"), ("rummoli", 9, "2 to 8"), ("seveneight", 18, "2 to 17"),
    ("bigtwo", 1, "2 to 4"),
])
def test_simulate_refuses_a_table_size_before_writing(tmp_path: Path, game: str, players: int,
                                                      limits: str) -> None:
    result = RUNNER.invoke(app, ["simulate", game, "-p", str(players), "-n", "3",
                                      "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert f"played by {limits} players, not {players}" in _said(result.output)
    assert list(tmp_path.iterdir()) == []


def test_simulate_help_gives_each_games_range() -> None:
    result = RUNNER.invoke(app, ["simulate", "--help"])
    said = _said(result.output)
    assert "7 & 8 2-17" in said and "Rummoli 2-8" in said and "Big Two 2-4" in said


def test_simulate_failing_midway_leaves_no_file(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    real = simulate

    def breaks_after_two(game: Game, n: int, players: int, seed: int, **options: object
                         ) -> object:
        for number, hand in enumerate(real(game, n, players, seed, **options)):
            if number == 2:
                raise ValueError("the bots fell out")
            yield hand

    monkeypatch.setattr("analytics.simulate.simulate", breaks_after_two)
    result = RUNNER.invoke(app, ["simulate", "bigtwo", "-p", "4", "-n", "5",
                                      "-o", str(tmp_path)])
    assert result.exit_code == 2 and "the bots fell out" in result.output
    assert list(tmp_path.iterdir()) == []


def test_simulate_rummoli_finale_option(tmp_path: Path) -> None:
    from parsers import read_hands

    result = RUNNER.invoke(app, ["simulate", "rummoli", "-p", "3", "-n", "40", "-s", "4",
                                      "--finale", "per_pot", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (written,) = tmp_path.iterdir()
    hands = list(read_hands(written))
    assert len(hands) == 40
    assert {hand.rules.finale.value for hand in hands} == {"per_pot"}  # type: ignore[union-attr]
    assert any(hand.finale_pot not in (None, "all") for hand in hands)
    refused = RUNNER.invoke(app, ["simulate", "bigtwo", "--finale", "per_pot",
                                       "-o", str(tmp_path / "other")])
    assert refused.exit_code == 2 and "only Rummoli" in _said(refused.output)
    assert not (tmp_path / "other").exists()


@pytest.mark.parametrize("out", ["existing.phhs", "new.phhs"])
def test_simulate_out_is_a_folder(tmp_path: Path, out: str) -> None:
    """``simulate -o out.phhs`` made a folder of that name (``--out`` is the folder the run's
    file goes into), and on an existing file said ``[Errno 17] File exists``: both are
    usage errors naming ``--out``; nothing is written."""
    (tmp_path / "existing.phhs").write_text("")
    before = sorted(tmp_path.rglob("*"))
    result = RUNNER.invoke(app, ["simulate", "bigtwo", "-n", "2", "-o", str(tmp_path / out)])
    assert result.exit_code == 2, result.output
    assert "--out names the folder to write into" in _said(result.output)
    assert sorted(tmp_path.rglob("*")) == before


def test_simulate_never_replaces_another_runs_file(tmp_path: Path) -> None:
    """The file is named by every argument that makes its hands: a run of 3 hands after one
    of 5 with the same seed writes beside it (it replaced it: 5 hands lost)."""
    from parsers import read_hands

    for hands in ("5", "3"):
        result = RUNNER.invoke(app, ["simulate", "seveneight", "-p", "3", "-n", hands,
                                     "-s", "7", "-o", str(tmp_path)])
        assert result.exit_code == 0, result.output
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == ["seveneight-p3-seed7-n3.phhs", "seveneight-p3-seed7-n5.phhs"]
    assert len(list(read_hands(tmp_path / names[1]))) == 5


def test_convert_never_replaces_the_sheet_nor_a_file_without_force(tmp_path: Path) -> None:
    """``convert`` wrote over its own sheet (its bad lines gone) and over any history named
    as --out; now the sheet never, another file only with --force."""
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("a b c d\n0 1 2 3\n", encoding="utf-8")
    before = sheet.read_text(encoding="utf-8")
    result = RUNNER.invoke(app, ["convert", str(sheet), "-o", str(sheet), "--force"])
    assert result.exit_code == 2 and "score sheet itself" in _said(result.output)
    assert sheet.read_text(encoding="utf-8") == before
    mine = tmp_path / "mine.phhs"
    mine.write_text("kept", encoding="utf-8")
    result = RUNNER.invoke(app, ["convert", str(sheet), "-o", str(mine)])
    assert result.exit_code == 2 and "exists: give --force" in _said(result.output)
    assert mine.read_text(encoding="utf-8") == "kept"
    result = RUNNER.invoke(app, ["convert", str(sheet), "-o", str(mine), "--force"])
    assert result.exit_code == 0, result.output
    assert mine.read_text(encoding="utf-8") != "kept"


def test_validate_an_empty_file_says_no_hands(tmp_path: Path) -> None:
    empty = tmp_path / "empty.phhs"
    empty.write_text("")
    result = RUNNER.invoke(app, ["validate", str(empty)])
    assert result.exit_code == 1
    assert "empty.phhs: no hands in this file" in _said(result.output)
    assert "1 file without any hand handlab reads" in _said(result.output)  # not "file(s)"
    assert "no hands found" in _said(result.output)


def test_validate_names_a_foreign_format(tmp_path: Path) -> None:
    export = tmp_path / "stars.txt"
    export.write_text("PokerStars Hand #254446474436: Hold'em No Limit ($0.01/$0.02 USD) - "
                      "2024/12/01 12:00:00 ET\nTable 'Aase II' 6-max Seat #3 is the button\n")
    result = RUNNER.invoke(app, ["validate", str(export)])
    assert result.exit_code == 1
    said = _said(result.output)
    assert "looks like a PokerStars hand history" in said and HANDLAB_READS in said
    assert "malformed TOML" not in said


def test_validate_flags_duplicates_as_ingest_would_skip_them(tmp_path: Path) -> None:
    hands = list(simulate(Game.BIGTWO, 3, 4, 7))
    path = tmp_path / "twice.phhs"
    write_hands([*hands, hands[1]], path)
    result = RUNNER.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output  # a duplicate is skipped, not an error
    said = _said(result.output)
    assert "hand 4: duplicate of" in said and "hand 2 (ingest would skip it)" in said
    assert "│ Big Two │ 3 │ 1 │ 0 │" in said and "│ all" not in said  # one game: no total


def test_a_file_named_twice_is_checked_once(tmp_path: Path) -> None:
    """A folder and a file in it, as ingest takes them: the file's hands once, no
    duplicates (they were counted valid twice)."""
    write_hands(list(simulate(Game.BIGTWO, 3, 4, 7)), tmp_path / "games.phhs")
    result = RUNNER.invoke(app, ["validate", str(tmp_path), str(tmp_path / "games.phhs")])
    assert result.exit_code == 0, result.output
    assert "│ Big Two │ 3 │ 0 │ 0 │" in _said(result.output)


@pytest.mark.parametrize("path", ["", " ", "file://"])
@pytest.mark.parametrize("command", ["validate", "ingest"])
def test_an_empty_path_is_no_folder(tmp_path: Path, path: str, command: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``handlab ingest "$UNSET"``: an empty path named as such, exit 2, nothing read
    (``Path("")`` is the working folder, whose every history was loaded)."""
    write_hands(list(simulate(Game.BIGTWO, 3, 4, 7)), tmp_path / "games.phhs")
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "out" / "x.duckdb"
    result = RUNNER.invoke(app, [command, path, *(["--db", str(db)] * (command == "ingest"))])
    assert result.exit_code == 2, result.output
    assert "names no file or folder (an empty path)" in _said(result.output)
    assert not db.exists()


@pytest.mark.parametrize(("arguments", "said"), [
    (["ingest", "{h}", "--lake", "{t}/lake", "--db", "{t}/d.duckdb"],
     "--lake and --db name two places to load into: give one"),
    (["ingest", "{h}", "--db", "{t}/d.duckdb", "--engine", "dask"],
     "--engine is for --lake only"),
    (["ingest", "{h}", "--db", "{t}/d.duckdb", "--scheduler", "tcp://127.0.0.1:1",
      "--range-mb", "1"], "--scheduler and --range-mb are for --lake only"),
    (["ingest", "{h}", "--lake", "{t}/lake", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler is for --engine dask only"),
    (["report", "--lake", "{t}/lake", "--db", "{t}/d.duckdb", "-o", "{t}/r.csv"],
     "--lake and --db name two places to read: give one"),
    (["report", "-o", "{t}/r.html", "--table", "nope"], "--table is for .csv and .parquet"),
    (["report", "-o", "{t}/r.csv", "--from", "2026-05-01", "--to", "2026-04-01"],
     "2026-05-01 is after --to 2026-04-01"),
    (["report", "-o", "{t}/r.csv", "--rule", "nope=1"], "Invalid value for --rule"),
    (["stats", "seveneight", "--fry", "5"], "--fry is for Big Two only"),
])
def test_an_option_without_its_use_is_refused(tmp_path: Path, arguments: list[str],
                                              said: str) -> None:
    """An option the command would ignore, or that contradicts another, is a usage error
    (exit 2) naming it, and nothing is written: ``--lake`` with ``--db`` wrote to the lake
    and never made the database, ``--engine dask`` without a lake was ignored."""
    history = tmp_path / "games.phhs"
    write_hands(list(simulate(Game.BIGTWO, 3, 4, 7)), history)
    before = sorted(tmp_path.rglob("*"))
    result = RUNNER.invoke(app, [a.format(h=history, t=tmp_path) for a in arguments])
    assert result.exit_code == 2, result.output
    assert said in _said(result.output)
    assert sorted(tmp_path.rglob("*")) == before


def test_report_for_nobody_writes_nothing_and_says_so(dashboard_db: Path,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "nobody.csv"
    result = RUNNER.invoke(app, ["report", "--db", str(dashboard_db), "--player",
                                      "Nobody", "--out", str(out)])
    assert result.exit_code == 1
    assert "no hands match" in _said(result.output) and "Nobody" in _said(result.output)
    assert not out.exists()


def test_a_filter_that_matches_nothing_says_which_values_no_hand_has(
        dashboard_db: Path, tmp_path: Path) -> None:
    """A misspelt name, rule or stake is the usual reason nothing matches: ``report`` and
    ``stats`` name each value no hand has, with what the database has instead."""
    out = tmp_path / "none.html"
    result = RUNNER.invoke(app, [
        "report", "--db", str(dashboard_db), "--player", "cy", "--player", "Nobody",
        "--rule", "scoring=card", "--stakes", "pot limit, big blind 9",
        "--from", "2099-01-01", "--out", str(out)])
    said = _said(result.output)
    assert result.exit_code == 1 and not out.exists()
    assert "no player 'cy'; did you mean Cy?" in said
    assert "no player 'Nobody' " in said or said.endswith("no player 'Nobody'")
    assert "no hand has the house rule scoring = card; the database has scoring = " in said
    assert "no hand is played at stakes 'pot limit, big blind 9'; the database has " in said
    assert "7 & 8: no limit, big blind 2" in said  # each stakes with its game
    assert "the hands loaded were played from " in said
    # Values the database has, matching nothing together, give no hint.
    result = RUNNER.invoke(app, ["report", "--db", str(dashboard_db), "--game", "bigtwo",
                                 "--stakes", "N78 min 2", "--out", str(out)])
    assert result.exit_code == 1
    assert _said(result.output).startswith("error: no hands match (Big Two; stakes no limit")
    assert "the database has" not in _said(result.output)


@pytest.mark.parametrize("out", [None, "stats.csv"])
def test_stats_for_nobody_writes_nothing_and_says_so(dashboard_db: Path, tmp_path: Path,
                                                     out: str | None) -> None:
    """As ``report``: an empty table reads as players who did nothing, so ``stats`` says no
    hand matched, names what no hand has, writes nothing and exits 1."""
    written = [] if out is None else ["--out", str(tmp_path / out)]
    result = RUNNER.invoke(app, ["stats", "bigtwo", "--db", str(dashboard_db), "--player",
                                 "Kitt", *written])
    said = _said(result.output)
    assert result.exit_code == 1
    assert said.startswith("error: no hands match (Big Two; players Kitt)")
    assert "no player 'Kitt'; did you mean Kit?" in said
    assert list(tmp_path.iterdir()) == []


def test_report_takes_stakes_in_the_words_the_pages_show(dashboard_db: Path,
                                                       tmp_path: Path) -> None:
    """``--stakes`` takes what the pages show ("no limit, big blind 2") or the label."""
    written = {}
    for name, stakes in (("words", "No limit,  big blind 2"), ("label", "N78 min 2")):
        out = tmp_path / f"{name}.csv"
        result = RUNNER.invoke(app, ["report", "--db", str(dashboard_db), "--stakes", stakes,
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert "stakes no limit, big blind 2" in _said(result.output)
        assert _unfolded(f"from {dashboard_db}") in _unfolded(result.output)  # what it read
        written[name] = out.read_text()
    assert written["words"] == written["label"] and written["words"].count("\n") > 1
    result = RUNNER.invoke(app, ["report", "--db", str(dashboard_db), "--stakes",
                                 "no limit, big blind 99", "--out", str(tmp_path / "x.csv")])
    assert result.exit_code == 1 and "no hands match" in _said(result.output)


def test_stats_bigtwo_prints_the_score_keeper_in_words(dashboard_db: Path) -> None:
    """The terminal's tables head the score keeper's columns in words (its files keep the
    scorer's names) and say why its games can be fewer than a player's games."""
    result = RUNNER.invoke(app, ["stats", "bigtwo", "--db", str(dashboard_db)])
    assert result.exit_code == 0, result.output
    said = _said(result.output)
    for name in ("is_regular", "game_count", "real_losses_per_game", "net_score"):
        assert name not in said
    assert "✓" in said  # regular players marked, not True/False
    assert "True" not in said
    # It says it scores every rule's games by its own rule, and leaves rank scoring out.
    assert "Score keeper: every game that counts cards left is scored here by this one" in said
    assert "games scored by finishing order (rank) have no cards-left score" in said


@pytest.mark.parametrize(("game", "cards", "expected"), [
    ("bigtwo", ["3d", "3c"], "pair of 3s, 3♣ high: 3♣ 3♦"),
    ("rummoli", ["As", "Ad", "7c", "7d", "2h"], "two pair, aces and 7s"),
    ("seveneight", ["7c", "8d"], "seven-eight (rank 168 of 169): 8♦ 7♣"),
])
def test_eval_prints_words(game: str, cards: list[str], expected: str) -> None:
    result = RUNNER.invoke(app, ["eval", game, *cards])
    assert result.exit_code == 0
    assert expected in result.output and "key" not in result.output


@pytest.mark.parametrize(("cards", "rules", "said"), [
    (["3d", "3c", "3h", "3s"], [], "no Big Two play: four cards make a play only with "
                                   "four_card_plays = true"),
    (["3d", "4d", "5d", "6d", "7d", "8d"], [], "a play has 1, 2, 3 or 5 cards, not 6"),
    (["3d", "4c", "6d"], [], "3 cards make a play only as three of a kind"),
    (["2d", "3c", "4d", "5d", "6h"], ["-r", "straights=vietnamese"],
     "5 cards make a play only as a straight (straights = vietnamese"),
    (["3d", "3c"], ["-r", "bogus=1"], "'bogus' is not a knob of Big Two"),
    (["3d", "3c"], ["--rule", "four_card_plays=yes"],
     "knob four_card_plays must be true or false, not 'yes'"),
    (["3d", "3c"], ["--rule", "straights"], "expected KNOB=VALUE"),
])
def test_eval_says_why_cards_are_no_big_two_play(cards: list[str], rules: list[str],
                                                said: str) -> None:
    result = RUNNER.invoke(app, ["eval", "bigtwo", *cards, *rules])
    assert result.exit_code == 2
    assert said in _said(result.output)


@pytest.mark.parametrize(("cards", "rules", "expected"), [
    # Four of a kind without a fifth card: a play only under four_card_plays (RULES.md 2).
    (["3d", "3c", "3h", "3s"], ["-r", "four_card_plays=true"], "four 3s"),
    # 2-3-4-5-6 is a straight by default, not with Vietnamese straights.
    (["2d", "3c", "4d", "5d", "6h"], [], "straight 2-3-4-5-6"),
    # The suit order decides which 3 is the pair's higher card.
    (["3d", "3c"], [], "3♣ high"),
    (["3d", "3c"], ["-r", "suit_order=cdhs"], "3♦ high"),
])
def test_eval_takes_big_two_house_rules(cards: list[str], rules: list[str],
                                        expected: str) -> None:
    result = RUNNER.invoke(app, ["eval", "bigtwo", *cards, *rules])
    assert result.exit_code == 0, result.output
    assert expected in result.output


def test_eval_rules_are_big_two_only() -> None:
    result = RUNNER.invoke(app, ["eval", "rummoli", "As", "Ks", "-r", "ante=2"])
    assert result.exit_code == 2 and "Big Two only" in _said(result.output)


def test_ingest_names_a_rejecting_file_once(tmp_path: Path) -> None:
    """``ingest``'s line for a file with rejected hands names the file, then the first
    reject by its line and hand, not the file's path again."""
    good = tmp_path / "good.phhs"
    write_hands(list(simulate(Game.BIGTWO, 2, 4, 3)), good)
    broken = tmp_path / "broken.phhs"
    broken.write_text('variant = "N78"\nantes = [0, 0]\n')
    result = RUNNER.invoke(app, ["ingest", str(tmp_path), "--db", str(tmp_path / "h.duckdb")])
    assert result.exit_code == 1, result.output  # some hand was rejected
    # Read without spaces: rich folds a long temporary path anywhere across lines.
    said = "".join(result.output.split())
    assert f"{broken}:1handrejected,first:line1:hand1:starting_stacks:" in said
    assert said.count(str(broken)) == 1


def test_validate_totals_the_games_and_groups_thousands(tmp_path: Path) -> None:
    """Over several games ``validate``'s table ends with the total, as ``ingest``'s does,
    and its counts read 1,000 as ingest's do."""
    write_hands(list(simulate(Game.SEVENEIGHT, 1000, 2, 5)), tmp_path / "duel.phhs")
    write_hands(list(simulate(Game.BIGTWO, 2, 4, 3)), tmp_path / "games.phhs")
    result = RUNNER.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 0, result.output
    said = _said(result.output)
    assert "│ 7 & 8 │ 1,000 │ 0 │ 0 │" in said and "│ all │ 1,002 │ 0 │ 0 │" in said


def test_equity_says_what_a_rummoli_hand_holds_at_that_table() -> None:
    """A Rummoli hand of the wrong size for the table is refused in the table's terms, not
    by the library's keyword arguments."""
    result = RUNNER.invoke(app, ["equity", "rummoli", "AsKsQsJsTs2c3d", "--players", "4"])
    assert result.exit_code == 2
    said = _said(result.output)
    assert "with 4 players a Rummoli hand holds 10 or 11 cards, not 7" in said
    assert "opponent_sizes" not in said


def _inputs_ingest_reads(folder: Path) -> dict[str, Path]:
    """A Big Two score sheet, a zip of histories and a gzip file of histories."""
    sheet = folder / "sheet.txt"
    sheet.write_bytes((SHEETS / "simple.txt").read_bytes())
    histories = dumps_hands(list(simulate(Game.SEVENEIGHT, 6, 3, 11))).encode()
    archive = folder / "hands.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("day/one.phhs", histories)
        packed.writestr("README.txt", b"not a history")
    packed_gz = folder / "more.phhs.gz"
    packed_gz.write_bytes(gzip.compress(dumps_hands(list(simulate(Game.BIGTWO, 3, 4, 2)))
                                        .encode()))
    return {"sheet": sheet, "zip": archive, "gz": packed_gz}


@pytest.mark.parametrize("kind", ["sheet", "zip", "gz"])
def test_validate_reads_what_ingest_reads(tmp_path: Path, kind: str) -> None:
    """validate read a score sheet as TOML ("malformed TOML") and a zip or gzip file as
    text ("not valid UTF-8"), though ingest loads them: it now reads each source as ingest
    does, and finds the hands ingest loads, by game."""
    path = _inputs_ingest_reads(tmp_path)[kind]
    summary = ingest([path], tmp_path / "h.duckdb", workers=0)
    read = [f for f in summary.files if f.status != "skipped"]  # a zip's README: skipped
    assert summary.loaded > 0 and read[0].status in ("loaded", "partial")
    result = RUNNER.invoke(app, ["validate", str(path)])
    said = _said(result.output)
    assert "malformed TOML" not in said and "not valid UTF-8" not in said, said
    for game, counts in summary.by_game.items():
        assert (f"│ {GAME_NAMES[game]} │ {counts.loaded:,} │ 0 │ {counts.rejected:,} │"
                in said), said
    assert result.exit_code == (1 if summary.rejected else 0), said


def test_validate_skips_what_ingest_skips(tmp_path: Path) -> None:
    """validate crashed on a dangling link (FileNotFoundError) and a folder named like a
    history (IsADirectoryError), and hung on a named pipe: it now expands its paths as
    ingest does, names what it skips and checks the rest."""
    folder = tmp_path / "in"
    folder.mkdir()
    write_hands(list(simulate(Game.BIGTWO, 2, 4, 3)), folder / "good.phhs")
    (folder / "x.phhs").symlink_to(tmp_path / "nowhere.phhs")
    (folder / "sub.phhs").mkdir()
    write_hands(list(simulate(Game.BIGTWO, 3, 4, 4)), folder / "sub.phhs" / "inner.phhs")
    os.mkfifo(folder / "pipe.phhs")
    result = RUNNER.invoke(app, ["validate", str(folder)])
    said = _said(result.output)
    assert result.exit_code == 0, said
    assert "│ Big Two │ 5 │ 0 │ 0 │" in said
    assert f"skipped {folder / 'x.phhs'}: a symbolic link inside a folder" in said
    assert f"skipped {folder / 'pipe.phhs'}: a named pipe (FIFO)" in said


def test_validate_names_a_link_loop_as_ingest_does(tmp_path: Path) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    result = RUNNER.invoke(app, ["validate", str(tmp_path / "loop1")])
    assert result.exit_code == 2
    assert "loop1: Too many levels of symbolic links" in _said(result.output)


@pytest.fixture
def scheme_without_package(monkeypatch: pytest.MonkeyPatch) -> str:
    """A URL scheme fsspec knows but whose package is not installed (as ``s3://`` without
    s3fs): fsspec raises ImportError("Install nopkg_fs") for it."""
    monkeypatch.setitem(known_implementations, "nopkg",
                        {"class": "nopkg_fs.NoPkgFileSystem", "err": "Install nopkg_fs"})
    return "nopkg"


@pytest.mark.parametrize("command", [
    ["ingest", "-q", "--db", "{tmp}/u.duckdb", "{scheme}://bucket/x.phhs"],
    ["ingest", "-q", "--lake", "{scheme}://bucket/lake", "{tmp}/good.phhs"],
    ["validate", "{scheme}://bucket/x.phhs"],
    ["report", "--lake", "{scheme}://bucket/lake", "-o", "{tmp}/r.html"],
    ["lake", "compact", "{scheme}://bucket/lake"],
    ["lake", "vacuum", "{scheme}://bucket/lake"]])
@pytest.mark.parametrize("scheme", ["nopkg", "foo"])
def test_a_url_that_cannot_be_reached_is_a_clear_error(
        tmp_path: Path, scheme_without_package: str, command: list[str], scheme: str) -> None:
    """A URL whose fsspec package is missing (s3:// without s3fs) or whose scheme fsspec
    does not know gave an ImportError or ValueError traceback: each command says which and
    what to install, and exits 2."""
    write_hands(list(simulate(Game.BIGTWO, 2, 4, 3)), tmp_path / "good.phhs")
    args = [part.format(tmp=tmp_path, scheme=scheme) for part in command]
    result = RUNNER.invoke(app, args)
    said = _said(result.output)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), said
    expected = ("nopkg:// needs the nopkg_fs package: pip install nopkg_fs"
                if scheme == scheme_without_package else "unknown URL scheme foo://")
    assert f"error: {scheme}://bucket/" in said and expected in said, said


@pytest.mark.parametrize("action", ["compact", "vacuum"])
def test_a_lake_command_on_a_file_says_no_lake_here(tmp_path: Path, action: str) -> None:
    """``lake vacuum FILE`` raised NotADirectoryError: a file is no lake, as a missing
    folder is none."""
    afile = tmp_path / "afile"
    afile.write_text("")
    result = RUNNER.invoke(app, ["lake", action, str(afile)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "afile: no lake here (no committed manifest)" in _said(result.output)


# ---- what the user typed is printed as typed, never read as rich markup ----------------

MARKUP_NAME = "Bo[/b][red]"
"""A name that rich markup would close a tag with (MarkupError) and open red with."""


@pytest.mark.parametrize("command", [
    ["validate", "no[/such]"],
    ["eval", "rummoli", "As[/x]"],
    ["equity", "seveneight", "7c8c[/x]", "AsKs"],
    ["stats", "rummoli", "--db", "x[/y].duckdb"],
    ["report", "--db", "x[/y].duckdb", "-o", "r.html"],
])
def test_a_typed_bracket_is_echoed_not_read_as_markup(command: list[str]) -> None:
    """A path or cards holding ``[/x]`` are named in the error as typed, not a
    MarkupError traceback."""
    result = RUNNER.invoke(app, command)
    assert result.exit_code in (1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    typed = next(word for word in command if "[/" in word)
    assert typed in _unfolded(result.output)


@pytest.mark.parametrize("command", [["report", "-o", "unused.html"], ["stats", "rummoli"]])
def test_a_player_filter_with_brackets_is_echoed(dashboard_db: Path, tmp_path: Path,
                                                 command: list[str]) -> None:
    result = RUNNER.invoke(app, [*command, "--db", str(dashboard_db), "-p", MARKUP_NAME])
    assert result.exit_code == 1, result.output
    assert f"no player '{MARKUP_NAME}'" in _said(result.output)


def test_ingest_names_files_and_players_with_brackets_as_they_are(tmp_path: Path) -> None:
    """A file named ``[b]x.phhs`` is not reported as ``x.phhs``; a database whose path holds
    ``[/y]`` titles the summary after the hands are written; a player named with
    brackets heads his row of ``stats`` as he is named."""
    from dataclasses import replace

    hands = [replace(hand, players=(MARKUP_NAME, "[b]Al", "Cy", "Di"))
             for hand in simulate(Game.BIGTWO, 2, 4, 3)]
    write_hands(hands, tmp_path / "named.phhs")
    (tmp_path / "[b]x.phhs").write_text('variant = "N78"\nantes = [0, 0]\n')
    db = tmp_path / "n[" / "y]z.duckdb"
    result = RUNNER.invoke(app, ["ingest", "-q", str(tmp_path), "--db", str(db)])
    assert result.exit_code == 1, result.output  # one hand rejected
    said = _unfolded(result.output)
    assert f"{tmp_path / '[b]x.phhs'}:1handrejected" in said
    assert str(db) in said
    result = RUNNER.invoke(app, ["stats", "bigtwo", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert MARKUP_NAME in result.output and "[b]Al" in result.output


# ---- a --db that is no database ---------------------------------------------------------

def _no_database(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A folder, a history file or an export (CSV, Parquet: DuckDB opened these as an
    in-memory database with a view over them, and an ingest stored nothing, silently)
    where a database is expected, and what is said of it."""
    if kind == "folder":
        folder = tmp_path / "folder"
        folder.mkdir()
        return folder, f"{folder} is a folder, not a database"
    if kind in ("csv", "parquet"):
        export = tmp_path / f"stats.{kind}"
        pd.DataFrame({"player": ["Ann"], "vpip": [3]}).to_csv(export) if kind == "csv" \
            else pd.DataFrame({"player": ["Ann"]}).to_parquet(export)
        return export, f"{export} is not a handlab database (not a DuckDB file)"
    history = tmp_path / "hands.phhs"
    write_hands(list(simulate(Game.BIGTWO, 1, 4, 3)), history)
    return history, f"{history} is not a handlab database (not a DuckDB file)"


@pytest.mark.parametrize("kind", ["folder", "history", "csv", "parquet"])
@pytest.mark.parametrize("command", [["ingest", "-q", "-j", "0"], ["report", "-o", "r.html"],
                                     ["stats", "bigtwo"], ["forget", "--list"]])
def test_a_db_that_is_no_database_is_named(tmp_path: Path, kind: str,
                                           command: list[str]) -> None:
    db, said = _no_database(tmp_path, kind)
    before = sorted(tmp_path.rglob("*"))
    histories = [str(tmp_path / "hands.phhs")] if command[0] == "ingest" else []
    if histories and kind != "history":
        write_hands(list(simulate(Game.BIGTWO, 1, 4, 3)), tmp_path / "hands.phhs")
        before = sorted(tmp_path.rglob("*"))
    result = RUNNER.invoke(app, [*command, *histories, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _unfolded(f"error: {said}") in _unfolded(result.output)
    assert sorted(tmp_path.rglob("*")) == before


def _free_port() -> int:
    """A port free on 127.0.0.1 a moment ago (the system's choice)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("kind", ["folder", "history", "csv"])
def test_serve_refuses_a_database_that_is_none_before_starting(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HANDLAB_DB`` naming a folder or a history: an error before the server starts, not
    a traceback of the dashboard's first page."""
    import subprocess

    def no_server(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server was started")

    db, said = _no_database(tmp_path, kind)
    monkeypatch.setattr(subprocess, "Popen", no_server)
    monkeypatch.delenv("HANDLAB_LAKE", raising=False)
    monkeypatch.setenv("HANDLAB_DB", str(db))
    result = RUNNER.invoke(app, ["serve", "--headless", "--port", str(_free_port())])
    assert result.exit_code == 2, result.output
    assert _unfolded(f"error: {said}") in _unfolded(result.output)


@pytest.mark.parametrize("command", [["stats", "bigtwo"], ["report"]])
def test_an_out_that_cannot_be_written_is_an_error(dashboard_db: Path, tmp_path: Path,
                                                   command: list[str]) -> None:
    """``stats --out`` naming a folder says so and exits 2, as ``report`` does."""
    folder = tmp_path / "taken.csv"
    folder.mkdir()
    result = RUNNER.invoke(app, [*command, "--db", str(dashboard_db), "--out", str(folder)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _unfolded(f"error: {folder}: is a directory") in _unfolded(result.output)


SEEDED: Final = (["equity", "seveneight", "7c8c", "AsKs", "--monte-carlo", "-n", "100"],
                 ["equity", "rummoli", "2d3d4d4s6d6s8cTsJhQdKh", "--monte-carlo", "-n", "100"],
                 ["simulate", "bigtwo", "-n", "1"])
"""Commands that take --seed, each as quick as it runs."""


@pytest.mark.parametrize("command", SEEDED)
def test_a_seed_is_a_whole_number_from_0_to_2_to_the_63(tmp_path: Path,
                                                        command: list[str]) -> None:
    """The equity kernels hold a seed in 64 bits: a larger one was a numba TypingError
    traceback.  ``equity`` and ``simulate`` take the same range; simulate writes nothing."""
    where = ["-o", str(tmp_path)] if command[0] == "simulate" else []
    for seed in ("99999999999999999999999", "-1"):
        result = RUNNER.invoke(app, [*command, *where, "--seed", seed])
        assert result.exit_code == 2, result.output
        assert f"{seed} is not a seed: give a whole number from 0 to 2^63 - 1" in _said(
            result.output)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # the equity kernels' first run in a process: about 1.5 s each
@pytest.mark.parametrize("command", SEEDED)
def test_the_largest_seed_works(tmp_path: Path, command: list[str]) -> None:
    where = ["-o", str(tmp_path)] if command[0] == "simulate" else []
    result = RUNNER.invoke(app, [*command, *where, "--seed", str(2**63 - 1)])
    assert result.exit_code == 0, result.output


# ---- serve: an address it cannot serve on is said before announcing it ------------------

@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` may not start the server here: a test that reaches it fails."""
    import subprocess

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server was started")

    monkeypatch.setattr(subprocess, "Popen", refused)


@pytest.mark.usefixtures("no_server")
@pytest.mark.parametrize(("options", "said"), [
    (["--port", "99999"], "Invalid value for '--port'"),
    (["--port", "-1"], "Invalid value for '--port'"),
    (["--port", "0"], "Invalid value for '--port'"),
    (["--host", "nonsense.invalid"], "error: --host nonsense.invalid: no such host"),
])
def test_serve_refuses_an_address_before_announcing_it(options: list[str], said: str) -> None:
    result = RUNNER.invoke(app, ["serve", "--headless", *options])
    assert result.exit_code == 2, result.output
    assert said in _said(result.output)
    assert "dashboard on" not in result.output


@pytest.mark.usefixtures("no_server")
def test_serve_says_a_port_is_in_use() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = RUNNER.invoke(app, ["serve", "--headless", "--host", "127.0.0.1",
                                     "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert (f"error: port {port} on 127.0.0.1 is in use (another dashboard?): choose another "
            "with --port") in _said(result.output)
    assert "dashboard on" not in result.output


# ---- equity: an option the game has no use for is refused, not ignored -------------------

BIG_TWO_HAND = "3d4c5h6s7d8c8d8h9s9cKdKc2s"
RUMMOLI_HAND = "2d3d4d4s6d6s8cTsJhQdKh"


@pytest.mark.parametrize(("arguments", "said"), [
    (["bigtwo", BIG_TWO_HAND, "--exact"], "Invalid value for '--exact': a Big Two deal's "
                                          "strength is only estimated"),
    (["bigtwo", BIG_TWO_HAND, "--dead", "4d"], "Invalid value for '--dead': only 7 & 8"),
    (["bigtwo", BIG_TWO_HAND, "--street", "1"], "Invalid value for '--street': only 7 & 8"),
    (["rummoli", RUMMOLI_HAND, "--street", "2"], "Invalid value for '--street': only 7 & 8"),
    (["seveneight", "7c8c", "AsKs", "-p", "3"], "7 & 8 has one player per hand given"),
    (["bigtwo", BIG_TWO_HAND, "-p", "5"], "Big Two is played by 2 to 4 players, not 5"),
    (["rummoli", RUMMOLI_HAND, "-p", "9"], "Rummoli is played by 2 to 8 players, not 9"),
    (["rummoli", RUMMOLI_HAND, "-p", "1"], "Rummoli is played by 2 to 8 players, not 1"),
])
def test_equity_refuses_an_option_the_game_does_not_use(arguments: list[str],
                                                        said: str) -> None:
    result = RUNNER.invoke(app, ["equity", *arguments])
    assert result.exit_code == 2, result.output
    assert said in _said(result.output)


def test_equity_help_gives_each_games_table() -> None:
    said = _said(RUNNER.invoke(app, ["equity", "--help"]).output)
    assert "Rummoli 2-8, Big Two 2-4 (default 4); 7 & 8 has one per hand given" in said
    assert "2<=x<=8" not in said


# ---- a mistyped --lake is no lake, not an empty one --------------------------------------

@pytest.mark.usefixtures("no_server")
@pytest.mark.parametrize("command", ["report", "serve", "stats"])
def test_a_reading_command_says_there_is_no_lake_and_creates_nothing(
        tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in ``--lake`` (or ``$HANDLAB_LAKE``) read as an empty lake: report said "no
    hands match" and serve an empty dashboard, both after creating the folder."""
    typo = tmp_path / "nolake"
    monkeypatch.delenv("HANDLAB_LAKE", raising=False)
    arguments = {"report": ["report", "--lake", str(typo), "-o", str(tmp_path / "r.html")],
                 "serve": ["serve", "--headless", "--port", str(_free_port()),
                           "--lake", str(typo)],
                 "stats": ["stats", "bigtwo"]}[command]
    if command == "stats":
        monkeypatch.setenv("HANDLAB_LAKE", str(typo))
    result = RUNNER.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    assert _unfolded(f"error: {typo}: no lake here (no committed manifest)") in _unfolded(
        result.output)
    assert list(tmp_path.iterdir()) == []


# ---- numbers in words: "1 hand", "1,000 hands" -------------------------------------------

def test_simulate_and_convert_count_in_words(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["simulate", "seveneight", "-p", "2", "-n", "1000",
                                 "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "wrote 1,000 7 & 8 hands to" in _said(result.output)
    # The progress line's style is a style, not text (the console reads no markup).
    assert "simulating seveneight" in result.output and "[progress" not in result.output
    result = RUNNER.invoke(app, ["simulate", "bigtwo", "-n", "1", "-o", str(tmp_path)])
    assert "wrote 1 Big Two hand to" in _said(result.output)
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("a b c d\n" + "0 1 2 3\n" * 1000)
    result = RUNNER.invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "a.phhs")])
    assert result.exit_code == 0, result.output
    assert _unfolded("1,000 games written to") in _unfolded(result.output)
    assert _unfolded(", 0 bad lines") in _unfolded(result.output)
    sheet.write_text("a b c d\n0 1 2 3\n0 1 2\n")
    result = RUNNER.invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "b.phhs")])
    assert result.exit_code == 1, result.output
    assert _unfolded(": 1 game written to") in _unfolded(result.output)
    assert _unfolded(", 1 bad line") in _unfolded(result.output)


def test_convert_reads_a_gzipped_sheet_as_ingest_does(tmp_path: Path) -> None:
    """``ingest`` and ``validate`` read a ``.gz`` sheet; ``convert`` said "not a Big Two
    score sheet" (it read the compressed bytes).  A folder or a zip is named as such."""
    import gzip
    import zipfile

    sheet = tmp_path / "night.txt.gz"
    sheet.write_bytes(gzip.compress(b"a b c d\n0 1 2 3\n2 0 1 1\n"))
    result = RUNNER.invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "a.phhs")])
    assert result.exit_code == 0, result.output
    assert _unfolded("2 games written to") in _unfolded(result.output)
    packed = tmp_path / "sheets.zip"
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("night.txt", "a b c d\n0 1 2 3\n")
    for given in (packed, tmp_path):
        result = RUNNER.invoke(app, ["convert", str(given), "--out", str(tmp_path / "b.phhs")])
        assert result.exit_code == 2, result.output
        assert _unfolded("give one score sheet (a plain or .gz file), not a folder or an "
                         "archive") in _unfolded(result.output)


def test_ingest_and_equity_say_one_in_the_singular(tmp_path: Path) -> None:
    history = tmp_path / "one.phhs"
    write_hands(list(simulate(Game.BIGTWO, 1, 4, 3)), history)
    db = ["--db", str(tmp_path / "h.duckdb"), "-q", "-j", "0"]
    result = RUNNER.invoke(app, ["ingest", str(history), *db])
    assert result.exit_code == 0, result.output
    assert "1 hand read in" in _said(result.output)
    result = RUNNER.invoke(app, ["ingest", str(history), *db])
    assert "1 file already loaded: nothing added from it." in _said(result.output)
    result = RUNNER.invoke(app, ["equity", "seveneight", "7c8c2d", "AsKsQh", "--street", "2"])
    assert result.exit_code == 0, result.output
    assert "exact, 1 deal" in result.output and "1 deals" not in result.output


def test_stats_tables_keep_every_number_whole_at_80_columns(dashboard_db: Path) -> None:
    """At 80 columns (a terminal's default, and a pipe's) the score keeper's eleven columns
    cut its numbers to ``-1.…`` and its headers to ``pla…``."""
    narrow = CliRunner(env={"COLUMNS": "80"})
    for game in ("bigtwo", "rummoli", "seveneight"):
        result = narrow.invoke(app, ["stats", game, "--db", str(dashboard_db)])
        assert result.exit_code == 0, result.output
        assert "…" not in result.output, result.output
        assert max(map(len, result.output.splitlines())) <= 80


# ---- help at 80 columns: prose, not source ------------------------------------------------

def _command_paths() -> list[list[str]]:
    """Every command's words: [], ["validate"], ..., ["lake", "compact"], ..."""
    import typer.main

    def below(group: object, path: list[str]) -> list[list[str]]:
        commands = getattr(group, "commands", {})
        return [path] + [found for name, command in commands.items()
                         for found in below(command, [*path, name])]

    return below(typer.main.get_command(app), [])


def _early_breaks(help_text: str, width: int = 80) -> list[str]:
    """The lines of ``help_text`` that end although the next line's first word would have
    fitted after them: a line break kept from a docstring's source, mid-sentence.  Within
    a panel's cell (the continuation starts where the line's last text starts); typer's
    own ``[default: ...]`` lines, which it puts on a line of their own, are not counted."""
    import itertools
    import re

    lines = [line.rstrip() for line in help_text.splitlines()]
    found = []
    for line, following in itertools.pairwise(lines):
        boxed = line.startswith("│")
        texts = list(re.finditer(r"[^\s│](?:\S| (?=\S))*", line))
        after = list(re.finditer(r"[^\s│](?:\S| (?=\S))*", following))
        if not texts or not after or after[0].start() != texts[-1].start():
            continue
        word = after[0].group().split()[0]
        room = (width - 2 if boxed else width - 1) - texts[-1].end()
        if not word.startswith("[") and len(word) + 1 <= room:
            found.append(f"{line.strip()} / {word}")
    return found


def test_every_help_reads_as_prose_at_80_columns() -> None:
    """No RST ``code`` marks and no line broken mid-sentence where the docstring's source
    was (``validate --help``, ``lake --help`` did both)."""
    narrow = CliRunner(env={"COLUMNS": "80"})
    paths = _command_paths()
    assert ["lake", "vacuum"] in paths and len(paths) >= 14
    for path in paths:
        shown = narrow.invoke(app, [*path, "--help"]).output
        assert "``" not in shown, path
        assert _early_breaks(shown) == [], (path, shown)
    said = _said(narrow.invoke(app, ["validate", "--help"]).output)
    assert "(the same hand id, which ingest would skip) is reported as a duplicate." in said


@pytest.mark.parametrize(("command", "said"), [
    (["eval", "poker", "As"], "Invalid value for 'game': 'poker' is not one of 'rummoli', "
                              "'bigtwo', 'seveneight'."),
    (["report", "-g", "poker", "-o", "x.html"], "Invalid value for '--game' / '-g': 'poker' "
                                                "is not one of"),
    (["simulate", "rummoli", "--finale", "x"], "Invalid value for '--finale': 'x' is not one "
                                               "of 'single', 'per_pot', 'none'."),
])
def test_a_value_an_enum_does_not_have_reads_as_typers_own(command: list[str],
                                                           said: str) -> None:
    result = RUNNER.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert said in _said(result.output) and "Value error" not in result.output


def test_a_database_that_cannot_be_written_is_an_io_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk under the database (DuckDB's IOException, or the FatalException that
    follows it) exits 2 with one line naming the database, not a traceback and exit 1
    ("hands rejected"), as a reviewer saw on a 3 MB tmpfs."""
    import duckdb

    import analytics.warehouse as warehouse

    def full(*_: object, **__: object) -> None:
        raise duckdb.IOException('Could not write file "x.duckdb": No space left on device')

    monkeypatch.setattr(warehouse, "ingest", full)
    history = tmp_path / "a.phhs"
    write_hands(list(simulate(Game.BIGTWO, 1, 4, 3)), history)
    db = tmp_path / "x.duckdb"
    result = RUNNER.invoke(app, ["ingest", str(history), "--db", str(db)])
    assert result.exit_code == 2, result.output
    said = _unfolded(result.output)
    assert _unfolded(f"{db}: could not be written:") in said
    assert _unfolded("No space left on device") in said
    assert "Traceback" not in result.output


def test_stats_takes_one_stakes(dashboard_db: Path) -> None:
    """``stats --stakes``: the rows of one stakes (in one currency, its chips alone), named
    as the dashboard names them or by the label; another game's stakes match nothing."""
    one = RUNNER.invoke(app, ["stats", "seveneight", "--db", str(dashboard_db),
                              "--stakes", "no limit, big blind 2"])
    assert one.exit_code == 0, one.output
    assert "Statistics: 7 & 8; stakes no limit, big blind 2" in _said(one.output)
    assert "Net (chips)" in _said(one.output)  # its results' unit: no currency declared
    other = RUNNER.invoke(app, ["stats", "seveneight", "--db", str(dashboard_db),
                                "--stakes", "NRM min 1"])
    assert other.exit_code == 1
    assert "no hands match (7 & 8; stakes no limit, minimum bet 1)" in _said(other.output)
