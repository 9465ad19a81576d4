"""A fast path declines explicitly, and a bug in one is never hidden by its fallback.

:func:`analytics.rules.base.lean_first` leaves a hand to the full engine only when the lean
replay returns None or raises :class:`RuleError`; any other exception propagates, so that
the ingest makes it the hand's internal-error reject (:mod:`analytics.warehouse.pipeline`)
instead of quietly replaying the hand again.  ``$HANDLAB_FAST_PATHS_OFF`` (read once, by
:mod:`parsers.fast_paths`) turns fast paths off for A/B measurements.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from analytics.rules import Outcome, RuleError, rummoli
from analytics.rules.base import lean_first
from analytics.warehouse import ingest
from analytics.warehouse.pipeline import INTERNAL_STAGE
from parsers import HandHistory, read_hands
from tests.planted_bug.sitecustomize import MARK
from tests.test_internal_errors import files

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def a_round() -> HandHistory:
    return next(iter(read_hands(SAMPLES / "rummoli-family.phhs")))


def test_a_lean_replay_that_returns_none_falls_back_to_the_full_engine() -> None:
    hand = a_round()
    expected = rummoli.replay_full(hand)
    assert lean_first(lambda _: None, rummoli.replay_full, hand) == expected


def test_a_lean_replay_that_raises_a_rule_error_falls_back_to_the_full_engine() -> None:
    hand = a_round()
    called: list[HandHistory] = []

    def lean(_: HandHistory) -> Outcome | None:
        raise RuleError("illegal, as the lean replay sees it")

    def full(played: HandHistory) -> Outcome:
        called.append(played)
        return rummoli.replay_full(played)

    assert lean_first(lean, full, hand) == rummoli.replay_full(hand)
    assert called == [hand]


def test_a_bug_in_a_lean_replay_propagates_and_is_not_redone() -> None:
    hand = a_round()
    called: list[HandHistory] = []

    def lean(_: HandHistory) -> Outcome | None:
        raise ValueError("planted bug in the lean replay")

    def full(played: HandHistory) -> Outcome:
        called.append(played)
        return rummoli.replay_full(played)

    with pytest.raises(ValueError, match="planted bug in the lean replay"):
        lean_first(lean, full, hand)
    assert called == []


def test_a_bug_in_the_rummoli_lean_replay_is_its_hands_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the ingest: the marked round's lean replay fails (as a bug would), so that
    round is an internal-error reject and every other round loads."""
    lean = getattr(rummoli, "_replay_lean_fields")  # noqa: B009

    def planted(hand: HandHistory, *args: object) -> Outcome | None:
        if hand.table == MARK:
            raise ValueError("planted bug in the lean replay")
        return lean(hand, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(rummoli, "_replay_lean_fields", planted)
    bad, good, _ = files(tmp_path / "in")
    db = tmp_path / "w.duckdb"
    summary = ingest([bad, good], db, workers=0)
    assert (summary.loaded, summary.rejected, summary.internal_errors) == (11, 1, 1)
    with duckdb.connect(str(db), read_only=True) as con:
        ((index, stage, error),) = con.execute(
            "SELECT hand_index, stage, error FROM rejects").fetchall()
    assert (index, stage) == (3, INTERNAL_STAGE)
    assert "internal error: ValueError: planted bug in the lean replay" in str(error)


def _fast_paths_seen(off: str) -> subprocess.CompletedProcess[str]:
    code = ("from parsers.fast_paths import FAST_PATHS, fast_path_on\n"
            "print(' '.join(name for name in FAST_PATHS if not fast_path_on(name)))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "HANDLAB_FAST_PATHS_OFF": off}, cwd=ROOT,
                          check=False)


def test_the_environment_turns_the_named_fast_paths_off() -> None:
    assert _fast_paths_seen("").stdout.split() == []
    assert _fast_paths_seen("block, lean-rummoli").stdout.split() == ["block", "lean-rummoli"]


def test_an_unknown_fast_path_name_is_an_error() -> None:
    found = _fast_paths_seen("blocks")
    assert found.returncode != 0
    assert "no fast path named blocks" in found.stderr
