"""``??`` wherever a card stands: every path gives an outcome or a RuleError, never a crash.

Issue #26: a Rummoli lay of ``??`` crashed the full engine (a shift by -1).  Here every
card of every action of the first hand of each sample file is replaced by ``??`` in turn,
and the hand goes through the reference (reader and engine) and the ingest's own path
(the fast reader, the 7 & 8 block): the engine raises
RuleError or replays, and the ingest path rejects or loads the same hand, with no
internal error and no fast path failing.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Final

import pytest

from analytics.rules import RuleError, replay
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.work import UnitResult, process_data
from parsers import loads_hands

SAMPLES: Final = Path(__file__).resolve().parent.parent / "data" / "samples"
CARD: Final = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs]")
CONTEXT: Final = FileContext("unknown.phhs", "0" * 64, dt.datetime(2026, 1, 1))


def _first_hand(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    second = text.find("\n[2]\n")
    return text if second < 0 else text[:second + 1]


def _variants(text: str) -> list[tuple[int, str]]:
    """``text`` with one card of one action replaced by ``??``, for each such card: (the
    line number, the text)."""
    lines = text.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.lstrip().startswith('"'):
            continue
        for found in CARD.finditer(line):
            changed = line[:found.start()] + "??" + line[found.end():]
            out.append((number, "".join([*lines[:number - 1], changed, *lines[number:]])))
    return out


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.phhs")), ids=lambda p: p.stem)
def test_an_unknown_card_anywhere_is_an_outcome_or_a_rule_error(path: Path) -> None:
    variants = _variants(_first_hand(path))
    assert len(variants) > 3
    rejected = 0
    for _, text in variants:
        (hand,) = loads_hands(text, name="unknown.phhs")
        line: int | None = 0
        try:
            replay(hand)
        except RuleError as error:
            line = error.line
        expected = int(line != 0)
        assert line is not None  # a rule error names its line
        rejected += expected
        result = UnitResult(0, True)
        process_data(text.encode("utf-8"), CONTEXT, 50, result)
        assert not result.fallbacks
        assert [r.stage for r in result.rejects] == ["rules"] * expected, text
        assert sum(t["hands"].num_rows for t in result.batches) == 1 - expected
    assert rejected  # an unknown card where a known one is required is refused somewhere
