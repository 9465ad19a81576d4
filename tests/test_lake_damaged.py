"""A lake whose manifest lists a Parquet file that is gone or damaged: every reader says
which lake and why, exit 2, instead of DuckDB's traceback (a reviewer's finding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.warehouse import WarehouseError, WarehouseUnreadable, ingest
from analytics.warehouse.lake.catalogue import catalogue, open_lake
from analytics.warehouse.lake.core import MANIFEST_DIR
from analytics.warehouse.lake.engine import ingest_lake
from parsers import write_hands


def _lake(tmp_path: Path) -> Path:
    history = tmp_path / "b2.phhs"
    write_hands(list(simulate_bigtwo(10, 4, 2)), history)
    lake = tmp_path / "lake"
    ingest_lake([history], lake, engine="local", workers=0)
    return lake


@pytest.mark.slow
@pytest.mark.parametrize("harm", ["removed", "truncated"])
def test_a_lake_with_a_file_gone_or_damaged_says_so(tmp_path: Path, harm: str) -> None:
    lake = _lake(tmp_path)
    for path in (lake / "_catalogue").glob("*.duckdb"):
        path.unlink()
    hands = next((lake / "hands").rglob("*.parquet"))
    if harm == "removed":
        hands.unlink()
    else:
        hands.write_bytes(hands.read_bytes()[:100])
    with pytest.raises(WarehouseUnreadable, match="cannot be read"):
        open_lake(lake)
    with pytest.raises(WarehouseUnreadable, match=str(lake)):
        catalogue(lake)
    result = CliRunner().invoke(app, ["report", "--lake", str(lake), "--out",
                                      str(tmp_path / "r.csv")])
    assert result.exit_code == 2, result.output
    assert "cannot be read (missing or damaged)" in " ".join(result.output.split())


def test_a_lake_path_that_is_a_file_or_a_torn_manifest_is_named(tmp_path: Path) -> None:
    """``ingest --lake`` on a file said only "[Errno 17] File exists", on a database the
    same; a torn newest manifest said "Invalid control character at: line 1" without its
    name."""
    history = tmp_path / "b2.phhs"
    write_hands(list(simulate_bigtwo(2, 4, 3)), history)
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    database = tmp_path / "w.duckdb"
    ingest([history], database, workers=0)
    for path, said in ((text, "is a file, not a lake folder"),
                       (database, "is a DuckDB database, not a lake folder: use --db")):
        result = CliRunner().invoke(app, ["ingest", str(history), "--lake", str(path)])
        assert result.exit_code == 2, result.output
        assert said in " ".join(result.output.split())
    lake = tmp_path / "lake"
    ingest_lake([history], lake, engine="local", workers=0)
    manifest = sorted((lake / MANIFEST_DIR).glob("v*.json"))[-1]
    manifest.write_text('{"format": 1, "vers')
    with pytest.raises(WarehouseError, match=f"{manifest.name}: not a readable lake manifest"):
        open_lake(lake)
