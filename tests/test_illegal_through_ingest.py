"""Every illegal history of tests/data/illegal/ is rejected by the ingest's own path too
(the fast reader, the 7 & 8 block), at the line and with the message
the rules engine gives: no fast path accepts what the engine refuses."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from typing import Final

import pytest

from analytics.rules import RuleError, replay
from analytics.warehouse.pipeline.rows import FileContext
from analytics.warehouse.pipeline.work import UnitResult, process_data
from parsers import dumps_hands, read_hands

ILLEGAL: Final = Path(__file__).parent / "data" / "illegal"
FILES: Final = sorted(ILLEGAL.glob("*/*.phh"))
CASES: Final = [(path, "as written") for path in FILES] + [
    (path, "writer's layout") for path in FILES if path.parent.name == "seveneight"]
"""Each file as written, and each 7 & 8 file also as the writer writes it: the layout the
block scanner reads (the other games have no block path)."""


@pytest.mark.parametrize(("path", "layout"), CASES,
                         ids=[f"{p.parent.name}/{p.stem}-{layout}" for p, layout in CASES])
def test_illegal_history_is_rejected_by_the_ingest_path(path: Path, layout: str) -> None:
    (hand,) = read_hands(path)
    if layout == "as written":
        data, name = path.read_bytes(), str(path)
    else:  # the layout the 7 & 8 block scanner reads
        data, name = dumps_hands([hand]).encode("utf-8"), "written.phhs"
        (hand,) = read_hands(io.BytesIO(data), name=name)
    result = UnitResult(0, True)
    process_data(data, FileContext(name, "0" * 64, dt.datetime(2026, 1, 1)), 50, result)
    assert result.batches == [] and not result.fallbacks
    (reject,) = result.rejects
    if hand.errors:  # a few files break a rule the reader checks (players, knob values)
        assert (reject.stage, reject.error) == ("parse", str(hand.errors[0]))
        return
    with pytest.raises(RuleError) as caught:
        replay(hand)
    if reject.stage == "rules":
        assert (reject.line, reject.error) == (caught.value.line, str(caught.value))
    else:  # the fast reader checks a few header rules itself, at the field's line
        assert reject.stage == "parse" and caught.value.action_index is None
        assert caught.value.message in reject.error
