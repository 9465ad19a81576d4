"""Load files where the dashboard reads: the Parquet lake ``$HANDLAB_LAKE`` names, else
the database.

The dashboard's two ways in, an upload and a recorded or played hand, both load here, so
that with a lake neither writes into the lake's read-only catalogue (a recorded hand
once failed there with "hands is not a table").  The CLI's ``ingest`` chooses with its
own ``--db`` and ``--lake`` options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from analytics.warehouse.connection import LAKE_ENV_VAR, resolve_db
from analytics.warehouse.lake.engine import ingest_lake
from analytics.warehouse.pipeline.run import IngestSummary, ProgressCallback, ingest
from analytics.warehouse.pipeline.sources import Limits

__all__ = ["load_where_read"]


def load_where_read(paths: Sequence[Path], *, limits: Limits | None = None,
                    names: Mapping[str, str] | None = None, wait: float = 60.0,
                    keep: float = 0.0, progress: ProgressCallback | None = None,
                    parts: Callable[[int, int], None] | None = None) -> IngestSummary:
    """Load ``paths`` into the lake the dashboard reads (a job of its own, in this process:
    ``parts`` is told its ranges done and in all), or else into its database (``wait``,
    ``keep`` and ``progress`` as :func:`~analytics.warehouse.pipeline.run.ingest` takes
    them).  The summary counts the same either way."""
    lake = os.environ.get(LAKE_ENV_VAR)
    if lake:
        return ingest_lake(paths, lake, engine="local", workers=0, limits=limits, names=names,
                           progress=parts)
    return ingest(paths, resolve_db(), workers=0, limits=limits, names=names, wait=wait,
                  keep=keep, progress=progress)
