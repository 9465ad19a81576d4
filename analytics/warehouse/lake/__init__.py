"""The Parquet lake: the warehouse's tables as Parquet files made visible by manifests,
ingested on an engine (local or Dask), read by DuckDB, compacted and vacuumed.
"""
