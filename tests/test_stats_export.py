"""``handlab stats GAME --out stats.csv|xlsx|parquet`` and ``--from``/``--to`` (issue #28):
each format is written and reads back with exactly the grid's columns (``player``, then
each statistic's count and its ``_opps`` beside it, then the result columns) and the
values the terminal prints; the dates filter the hands, checked against counts made by
hand from tests/data/stats/seveneight.phhs (hands A and B on 1 November 2026, C and D on
the 2nd, E and F on the 3rd, G and H on the 4th, I on the 5th)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pandas as pd
import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.dashboard.statistics import result_header
from analytics.stats import RESULTS, stats_of
from analytics.stats.cells import cell_text
from analytics.warehouse import ingest
from parsers.rule_options import Game

DATA = Path(__file__).parent / "data" / "stats"
_SHEET = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"

# Counted by hand over E, F, G (four-handed: Ann, Bo, Cy, Dee) and H (six-handed: Ann, Bo,
# Eve, Fay, Gus, Hal; everybody folds to the big blind): player -> (hands, vpip, pfr).
# E: Cy raises, Dee's short all-in is a raise, Ann and Bo fold, Cy calls.  F: Cy raises,
# Dee and Bo call, Ann folds.  G: Cy folds, Dee raises, Ann and Bo call.
NOV_3_TO_4: dict[str, tuple[int, int, int]] = {
    "Ann": (4, 1, 0), "Bo": (4, 2, 0), "Cy": (3, 2, 2), "Dee": (3, 3, 2),
    "Eve": (1, 0, 0), "Fay": (1, 0, 0), "Gus": (1, 0, 0), "Hal": (1, 0, 0)}
# A (a walk) and B (Cy and Dee call the blind, Ann completes, Bo checks).
NOV_1: dict[str, tuple[int, int, int]] = {
    "Ann": (2, 1, 0), "Bo": (2, 0, 0), "Cy": (2, 1, 0), "Dee": (2, 1, 0)}
# I (heads-up, limped: Ann on the button completes, Bo checks).
NOV_5: dict[str, tuple[int, int, int]] = {"Ann": (1, 1, 0), "Bo": (1, 0, 0)}
# The walks (A on the 1st, H on the 4th, both Bo's big blind): no VPIP or PFR chance.
WALKS: dict[tuple[str, str], int] = {("2026-11-01", "Bo"): 1, ("2026-11-04", "Bo"): 1}


def _walks(player: str, first: str, last: str) -> int:
    """``player``'s walks from day ``first`` to ``last`` (ISO dates, both included)."""
    return sum(count for (day, name), count in WALKS.items()
               if name == player and first <= day <= last)


@pytest.fixture(scope="module")
def stats_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("stats-export") / "stats.duckdb"
    assert ingest([DATA], db, workers=0).rejected == 0
    return db


def _run(*arguments: str) -> str:
    result = CliRunner().invoke(app, ["stats", *arguments])
    assert result.exit_code == 0, result.output
    return result.output


def _xlsx(data: bytes) -> pd.DataFrame:
    """The first sheet of a workbook as a frame (header row, then the rows), read as the zip
    of XML it is: shared strings as text, every other cell as a number."""
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        strings = [item.findtext(f"{_SHEET}t") or "" for item in
                   ElementTree.fromstring(book.read("xl/sharedStrings.xml")).iter(f"{_SHEET}si")]
        sheet = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    rows: list[list[object]] = []
    for row in sheet.iter(f"{_SHEET}row"):
        cells: list[object] = []
        for cell in row.iter(f"{_SHEET}c"):
            value = cell.findtext(f"{_SHEET}v")
            cells.append(strings[int(value or 0)] if cell.get("t") == "s" else float(value or 0))
        rows.append(cells)
    return pd.DataFrame(rows[1:], columns=[str(name) for name in rows[0]])


def _read(path: Path) -> pd.DataFrame:
    if path.suffix == ".csv":
        return pd.read_csv(path)
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    return _xlsx(path.read_bytes())


def _columns(game: Game) -> list[str]:
    """The exact columns: player, then each statistic's count and opportunities, then the
    results and (7 & 8, Rummoli) the currency they are counted in (docs/statistics.md)."""
    counted = [column for stat in stats_of(game) for column in (stat.name, stat.opps_column)]
    currency = [] if game is Game.BIGTWO else ["currency"]
    return ["player", *counted, *(result.name for result in RESULTS[game]), *currency]


def _printed(output: str) -> dict[str, dict[str, str]]:
    """The terminal's tables as player -> column -> cell text (every family's table)."""
    cells: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in output.splitlines():
        if line.startswith("┃"):
            header = [part.strip() for part in line.strip("┃").split("┃")]
        elif line.startswith("│") and header:
            parts = [part.strip() for part in line.strip("│").split("│")]
            cells.setdefault(parts[0], {}).update(zip(header[1:], parts[1:], strict=True))
    return cells


@pytest.mark.parametrize("suffix", ["csv", "xlsx", "parquet"])
def test_each_format_has_the_exact_columns_and_the_printed_values(
        stats_db: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"stats.{suffix}"
    dates = ("--from", "2026-11-03", "--to", "2026-11-04")
    _run("seveneight", "--db", str(stats_db), *dates, "--out", str(out))
    rows = _read(out)
    assert list(rows.columns) == _columns(Game.SEVENEIGHT)
    assert list(rows.columns[:5]) == ["player", "vpip", "vpip_opps", "pfr", "pfr_opps"]
    # The same values as the CSV, whatever the format (xlsx holds numbers as floats).
    csv = pd.read_csv(io.StringIO(rows.to_csv(index=False))) if suffix == "csv" else None
    if csv is None:
        reference = tmp_path / "reference.csv"
        _run("seveneight", "--db", str(stats_db), *dates, "--out", str(reference))
        csv = pd.read_csv(reference)
    pd.testing.assert_frame_equal(rows, csv, check_dtype=False)
    # And the values the terminal prints under the grid's headers (VPIP, bb/100): each cell
    # count/opportunities, each result.
    printed = _printed(_run("seveneight", "--db", str(stats_db), *dates))
    assert set(rows["currency"]) == {"chips"}  # no hand of tests/data/stats declares one
    label = {result.name: result_header(result, "chips")
             for result in RESULTS[Game.SEVENEIGHT]}
    assert set(printed) == set(rows["player"]) == set(NOV_3_TO_4)
    for row in rows.to_dict("records"):
        shown = printed[str(row["player"])]
        for stat in stats_of(Game.SEVENEIGHT):
            assert shown[stat.label] == cell_text(int(row[stat.name]),
                                                  int(row[stat.opps_column]), stat.kind)
        assert shown[label["hands"]] == f"{int(row['hands']):,}"
        assert shown[label["net"]] == f"{int(row['net']):,}"
        for result in ("bb_per_100", "allin_adj_bb_per_100"):
            assert shown[label[result]] == f"{float(row[result]):,.2f}"
        hands, vpip, pfr = NOV_3_TO_4[str(row["player"])]
        walks = _walks(str(row["player"]), "2026-11-03", "2026-11-04")
        assert (row["hands"], row["vpip"], row["vpip_opps"], row["pfr"]) == (
            hands, vpip, hands - walks, pfr)


@pytest.mark.parametrize(("dates", "days", "expected"), [
    (("--from", "2026-11-03", "--to", "2026-11-04"), ("2026-11-03", "2026-11-04"), NOV_3_TO_4),
    (("--to", "2026-11-01"), ("2026-11-01", "2026-11-01"), NOV_1),
    (("--from", "2026-11-05"), ("2026-11-05", "2026-11-05"), NOV_5),
    (("--from", "2026-11-01", "--to", "2026-11-01"), ("2026-11-01", "2026-11-01"), NOV_1),
], ids=["3-4 November", "to the 1st", "from the 5th", "one day"])
def test_from_and_to_keep_the_hands_of_those_days(
        stats_db: Path, tmp_path: Path, dates: tuple[str, ...], days: tuple[str, str],
        expected: dict[str, tuple[int, int, int]]) -> None:
    out = tmp_path / "stats.csv"
    _run("seveneight", "--db", str(stats_db), *dates, "--out", str(out))
    rows = pd.read_csv(out).set_index("player")
    got = {str(player): (int(row["hands"]), int(row["vpip"]), int(row["pfr"]))
           for player, row in rows.iterrows()}
    assert got == expected
    # Every hand dealt is an opportunity, but a walk.
    assert {str(player): int(opps) for player, opps in rows["vpip_opps"].items()} == {
        player: hands - _walks(player, *days) for player, (hands, _, _) in expected.items()}


def test_a_range_without_hands_and_a_reversed_range(stats_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "none.parquet"
    for written in ([], ["--out", str(out)]):
        said = CliRunner().invoke(app, ["stats", "seveneight", "--db", str(stats_db),
                                        "--from", "2026-12-01", *written])
        assert said.exit_code == 1
        assert "no hands match (7 & 8; days 2026-12-01 to ...)" in said.output
        assert not out.exists()
    refused = CliRunner().invoke(app, ["stats", "seveneight", "--db", str(stats_db),
                                       "--from", "2026-11-05", "--to", "2026-11-01"])
    assert refused.exit_code == 2
    assert re.search(r"2026-11-05 is after --to 2026-11-01", refused.output)
