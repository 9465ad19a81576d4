"""handlab analytics.

``analytics.ingest(paths, db)`` loads hand histories into the warehouse and
returns its :class:`~analytics.warehouse.IngestSummary`; the warehouse (DuckDB,
pyarrow) is imported only when it is first called, so ``import analytics``
stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analytics.warehouse.pipeline.run import IngestSummary, ProgressCallback
    from analytics.warehouse.pipeline.sources import Limits

__all__ = ["ingest"]


def ingest(
    paths: Sequence[Path | str] | Path | str,
    db: Path | str | None = None,
    *,
    workers: int | None = None,
    limits: Limits | None = None,
    progress: ProgressCallback | None = None,
    wait: float = 60.0,
    hold: float = 2.0,
) -> IngestSummary:
    """Load histories into the warehouse; see :func:`analytics.warehouse.pipeline.run.ingest`."""
    from analytics.warehouse.pipeline.run import ingest as run

    return run(paths, db, workers=workers, limits=limits, progress=progress, wait=wait,
               hold=hold)
