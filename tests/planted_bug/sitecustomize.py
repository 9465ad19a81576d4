"""A planted bug, for the tests of what an ingest does when handlab itself fails on a hand.

Put this folder on ``PYTHONPATH`` with ``HANDLAB_PLANTED_BUG`` set and every Python process
(the ``handlab`` command, a Streamlit server, their worker processes) starts with the rules
dispatcher's ``replay`` raising ``ValueError`` for a hand whose
``table`` is :data:`MARK`, as a bug in an engine would.  With ``HANDLAB_PLANTED_BUG=block``
the 7 & 8 block replay also fails on every block, as a bug of that fast path would.
In-process tests use :func:`plant` with pytest's ``monkeypatch`` instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

MARK = "planted bug"
"""The ``table`` of a hand the planted bug fails on."""
MESSAGE = "planted bug: negative shift count"


def failing(replay: Callable[..., Any]) -> Callable[..., Any]:
    """``replay`` that raises ValueError for a hand whose table is :data:`MARK`."""

    def planted(hand: Any, *args: Any) -> Any:
        if hand.table == MARK:
            raise ValueError(MESSAGE)
        return replay(hand, *args)

    return planted


def failing_block(replay_block: Callable[..., Any]) -> Callable[..., Any]:
    """A block replay that always fails (the block path's bug)."""

    def planted(block: Any) -> Any:
        raise IndexError("planted bug in the block replay")

    return planted


def plant(setattr: Callable[[object, str, object], None], *, block: bool = False) -> None:
    """Plant the bug with ``setattr`` (``monkeypatch.setattr``, or the builtin): in the
    dispatcher and, once imported, in the pipeline's names for it."""
    import analytics.rules as rules

    setattr(rules, "replay", failing(rules.replay))
    if block:
        import analytics.rules.seveneight.block as seveneight_block

        setattr(seveneight_block, "replay_block", failing_block(seveneight_block.replay_block))
    import analytics.warehouse.pipeline.work as pipeline

    setattr(pipeline, "replay", rules.replay)
    if block:
        setattr(pipeline, "replay_block", seveneight_block.replay_block)


if os.environ.get("HANDLAB_PLANTED_BUG"):
    plant(setattr, block=os.environ["HANDLAB_PLANTED_BUG"] == "block")
