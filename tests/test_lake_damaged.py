"""A lake whose manifest lists a Parquet file that is gone or damaged: every reader says
which lake and why, exit 2, instead of DuckDB's traceback (a reviewer's finding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.warehouse import WarehouseUnreadable
from analytics.warehouse.lake.catalogue import catalogue, open_lake
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
