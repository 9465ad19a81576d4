"""Ingest, as plan -> work -> write: where hands come from (``sources``), the pure
CPU-bound step from text to Arrow tables and rejects (``work`` and the row builders),
and the single writer (``write``); ``run.ingest`` ties them together.
"""
