"""The fast paths of reading and replaying, and the one switch that turns them off.

``$HANDLAB_FAST_PATHS_OFF`` (read once, by :mod:`parsers.fast_paths`) turns the named fast
paths off, for the A/B measurements of ``benchmarks/bench_ingest.py --ab``.  With every
fast path off the ingest must hold exactly the rows it holds with them on: each fast path
gives what the specification it shortens (the per-hand path, the full engine) gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from analytics.warehouse import ingest
from parsers.fast_paths import FAST_PATHS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def _fast_paths_seen(off: str) -> subprocess.CompletedProcess[str]:
    code = ("from parsers.fast_paths import FAST_PATHS, fast_path_on\n"
            "print(' '.join(name for name in FAST_PATHS if not fast_path_on(name)))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "HANDLAB_FAST_PATHS_OFF": off}, cwd=ROOT,
                          check=False, timeout=120)


def test_the_environment_turns_the_named_fast_paths_off() -> None:
    assert _fast_paths_seen("").stdout.split() == []
    assert _fast_paths_seen(" block, ").stdout.split() == ["block"]
    assert _fast_paths_seen("block").stdout.split() == ["block"]


def test_an_unknown_fast_path_name_is_an_error() -> None:
    found = _fast_paths_seen("blocks")
    assert found.returncode != 0
    assert "no fast path named blocks" in found.stderr
    # The reader of the writer's own layout went in session 19, Big Two's lean replay in
    # session 20 (each under 1.5x end to end).
    assert "no fast path named reader" in _fast_paths_seen("reader").stderr
    assert "no fast path named lean-bigtwo" in _fast_paths_seen("lean-bigtwo").stderr


def _tables(db: Path) -> dict[str, list[str]]:
    """Every table's rows (as text, sorted: a multiset) but the files' (paths, times) and
    the schema's version, without the columns of times."""
    found: dict[str, list[str]] = {}
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [name for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
            "AND table_name NOT IN ('files', 'schema_version') ORDER BY 1").fetchall()]
        for table in tables:
            columns = [name for (name,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND data_type NOT LIKE 'TIMESTAMP%' ORDER BY ordinal_position",
                [table]).fetchall()]
            listed = ", ".join(f'"{name}"' for name in columns)
            found[table] = sorted(map(repr, con.execute(f"SELECT {listed} FROM {table}")
                                      .fetchall()))
    return found


@pytest.mark.slow
def test_the_samples_load_the_same_rows_with_every_fast_path_off(tmp_path: Path) -> None:
    """One 7 & 8 sample, with all-ins, through the CLI and the writer: the switch reaches the
    ingest.  (Every fast path is a 7 & 8 one, so the Big Two and Rummoli samples took the
    same path either way, 9 of this test's 11 s; that the block path gives the per-hand
    path's batches for every 7 & 8 file is tests/test_pipeline_blocks.py's.)"""
    sources = [str(SAMPLES / "seveneight-pl-4max.phhs")]
    on = tmp_path / "on.duckdb"
    summary = ingest(sources, on, workers=0)
    assert summary.loaded > 0
    off = tmp_path / "off.duckdb"
    done = subprocess.run([sys.executable, "-m", "analytics.cli", "ingest", "-q", "-j", "0",
                           "--db", str(off), *sources], capture_output=True, text=True,
                          env={**os.environ, "HANDLAB_FAST_PATHS_OFF": ",".join(FAST_PATHS)},
                          cwd=ROOT, timeout=600, check=False)
    assert done.returncode == summary.exit_code, done.stderr
    with_them, without = _tables(on), _tables(off)
    assert with_them.keys() == without.keys()
    assert sum(map(len, with_them.values())) > summary.loaded
    for table, rows in with_them.items():
        assert without[table] == rows, table
