"""The fast paths of reading and replaying, and the one switch that turns them off.

``$HANDLAB_FAST_PATHS_OFF`` (read once, by :mod:`parsers.fast_paths`) turns the named fast
paths off, for the A/B measurements of ``benchmarks/bench_ingest.py --ab``.  With every
fast path off the ingest must hold exactly the rows it holds with them on: each fast path
gives what the specification it shortens (the per-hand path, the full engine) gives.
The one lean replay left (Big Two's, :func:`analytics.rules.base.replay_with_fallback`)
declines only by returning None or raising RuleError; any other exception propagates and
is never redone by the full engine (the ingest makes it the hand's internal-error reject).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from analytics.rules import Outcome, RuleError, bigtwo
from analytics.rules.base import replay_with_fallback
from analytics.warehouse import ingest
from parsers import HandHistory, read_hands
from parsers.fast_paths import FAST_PATHS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def a_game() -> HandHistory:
    return next(iter(read_hands(SAMPLES / "bigtwo-club.phhs")))


def test_a_lean_replay_that_returns_none_falls_back_to_the_full_engine() -> None:
    hand = a_game()
    assert (replay_with_fallback(lambda _: None, bigtwo.replay_full, hand)
            == bigtwo.replay_full(hand))


def _full_calls() -> tuple[list[HandHistory], Callable[[HandHistory], Outcome]]:
    called: list[HandHistory] = []

    def full(played: HandHistory) -> Outcome:
        called.append(played)
        return bigtwo.replay_full(played)

    return called, full


def test_a_lean_replay_that_raises_a_rule_error_falls_back_to_the_full_engine() -> None:
    hand = a_game()
    called, full = _full_calls()

    def lean(_: HandHistory) -> Outcome | None:
        raise RuleError("illegal, as the lean replay sees it")

    assert replay_with_fallback(lean, full, hand) == bigtwo.replay_full(hand)
    assert called == [hand]


def test_a_bug_in_a_lean_replay_propagates_and_is_not_redone() -> None:
    hand = a_game()
    called, full = _full_calls()

    def lean(_: HandHistory) -> Outcome | None:
        raise ValueError("planted bug in the lean replay")

    with pytest.raises(ValueError, match="planted bug in the lean replay"):
        replay_with_fallback(lean, full, hand)
    assert called == []


def test_a_bug_in_the_big_two_lean_replay_is_its_games_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the ingest: the lean replay of the file's third game fails (as a bug would),
    so that game is an internal-error reject and every other game loads."""
    lean = getattr(bigtwo, "_replay_lean")  # noqa: B009

    def planted(hand: HandHistory, *args: object) -> Outcome | None:
        if hand.index == 3:
            raise ValueError("planted bug in the lean replay")
        return lean(hand, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(bigtwo, "_replay_lean", planted)
    text = (SAMPLES / "bigtwo-club.phhs").read_text(encoding="utf-8")
    games = text.split("\n[")[:8]
    path = tmp_path / "club.phhs"
    path.write_text("\n[".join(games) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    summary = ingest([path], db, workers=0)
    assert (summary.loaded, summary.rejected, summary.internal_errors) == (7, 1, 1)
    with duckdb.connect(str(db), read_only=True) as con:
        ((index, stage, error),) = con.execute(
            "SELECT hand_index, stage, error FROM rejects").fetchall()
    assert (index, stage) == (3, "internal")
    assert "internal error: ValueError: planted bug in the lean replay" in str(error)


def _fast_paths_seen(off: str) -> subprocess.CompletedProcess[str]:
    code = ("from parsers.fast_paths import FAST_PATHS, fast_path_on\n"
            "print(' '.join(name for name in FAST_PATHS if not fast_path_on(name)))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "HANDLAB_FAST_PATHS_OFF": off}, cwd=ROOT,
                          check=False, timeout=120)


def test_the_environment_turns_the_named_fast_paths_off() -> None:
    assert _fast_paths_seen("").stdout.split() == []
    assert _fast_paths_seen("lean-bigtwo, block").stdout.split() == ["block", "lean-bigtwo"]
    assert _fast_paths_seen("block").stdout.split() == ["block"]


def test_an_unknown_fast_path_name_is_an_error() -> None:
    found = _fast_paths_seen("blocks")
    assert found.returncode != 0
    assert "no fast path named blocks" in found.stderr
    # The reader of the writer's own layout went in session 19 (under 1.5x end to end).
    assert "no fast path named reader" in _fast_paths_seen("reader").stderr


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


def test_the_samples_load_the_same_rows_with_every_fast_path_off(tmp_path: Path) -> None:
    on = tmp_path / "on.duckdb"
    summary = ingest([SAMPLES], on, workers=0)
    assert summary.loaded > 0
    off = tmp_path / "off.duckdb"
    done = subprocess.run([sys.executable, "-m", "analytics.cli", "ingest", "-q", "-j", "0",
                           "--db", str(off), str(SAMPLES)], capture_output=True, text=True,
                          env={**os.environ, "HANDLAB_FAST_PATHS_OFF": ",".join(FAST_PATHS)},
                          cwd=ROOT, timeout=600, check=False)
    assert done.returncode == summary.exit_code, done.stderr
    with_them, without = _tables(on), _tables(off)
    assert with_them.keys() == without.keys()
    assert sum(map(len, with_them.values())) > summary.loaded
    for table, rows in with_them.items():
        assert without[table] == rows, table
