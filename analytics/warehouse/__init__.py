"""The DuckDB warehouse: schema, ingest, and the dashboard's queries.

``ingest(paths, db)`` loads hand histories (validated by the rules engines,
re-scored by the evaluator) into one DuckDB file; :mod:`analytics.warehouse.sql.queries`
answers the dashboard's questions from it.  Design: docs/warehouse.md; columns:
docs/schema.md.
"""

from analytics.warehouse.connection import (
    DEFAULT_DB,
    ENV_VAR,
    open_reader,
    open_writer,
    reader,
    resolve_db,
    writer,
)
from analytics.warehouse.errors import (
    SourceError,
    SourceLimitError,
    WarehouseBusy,
    WarehouseError,
    WarehouseMissing,
    WarehouseNotADatabase,
    WarehouseSchemaError,
    WarehouseUnreadable,
)
from analytics.warehouse.pipeline.run import (
    FileSummary,
    GameCounts,
    IngestProgress,
    IngestSummary,
    ensure_database,
    ingest,
)
from analytics.warehouse.pipeline.sources import Limits

__all__ = [
    "DEFAULT_DB",
    "ENV_VAR",
    "FileSummary",
    "GameCounts",
    "IngestProgress",
    "IngestSummary",
    "Limits",
    "SourceError",
    "SourceLimitError",
    "WarehouseBusy",
    "WarehouseError",
    "WarehouseMissing",
    "WarehouseNotADatabase",
    "WarehouseSchemaError",
    "WarehouseUnreadable",
    "ensure_database",
    "ingest",
    "open_reader",
    "open_writer",
    "reader",
    "resolve_db",
    "writer",
]
