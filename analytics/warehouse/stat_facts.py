"""``stat_facts``: one row per 7 & 8 seat with its statistics' counts, written on ingest.

The statistics of :mod:`analytics.stats.definitions` need each hand's actions in order
(who raised first, what a player faced when he acted); reading ``actions`` (about 25
rows a hand) for a million hands takes seconds, so each seat's counts are derived once,
when its hand is loaded, with the summary query of :mod:`analytics.stats.seveneight`, and
the grid sums them (:mod:`analytics.warehouse.stat_views`).  Filled like the other fact
tables (:mod:`analytics.warehouse.facts`): from a batch's own Arrow tables inside the
file's transaction (:func:`fill_batch_stats`, called by ``loader.load_batch``), and for
the hands a database held before by migration 9 and by ``facts.fill_missing``
(:func:`fill_missing_stats`).  A new statistic of 7 & 8 needs a migration adding its
columns (tests/test_stats.py checks the table has a column for every definition).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import duckdb
import pyarrow as pa

from analytics.stats.definitions import STATS, Stat
from analytics.stats.seveneight import SUMMARY
from analytics.warehouse.arrow_scan import execute_over
from analytics.warehouse.views import DAY, SESSION, STAKES
from parsers.knobs import Game

__all__ = ["STAT_COLUMNS_V9", "STAT_FACTS_TABLE", "fill_batch_stats", "fill_missing_stats"]

STAT_COLUMNS_V9: Final = (
    "vpip", "vpip_opps", "pfr", "pfr_opps", "three_bet", "three_bet_opps",
    "fold_to_three_bet", "fold_to_three_bet_opps", "af_round1", "af_round1_opps",
    "af_round2", "af_round2_opps", "af", "af_opps", "afq", "afq_opps", "cbet", "cbet_opps",
    "fold_to_cbet", "fold_to_cbet_opps", "wtsd", "wtsd_opps", "wsd", "wsd_opps", "wwsr2",
    "wwsr2_opps", "up_high", "up_high_opps")
"""The statistics' columns as migration 9 created them (frozen migration text)."""

STAT_FACTS_TABLE: Final = """
    CREATE TABLE stat_facts (
        hand_id      BIGINT NOT NULL,
        seat         SMALLINT NOT NULL,
        game         VARCHAR NOT NULL,
        variant      VARCHAR NOT NULL,
        rules        VARCHAR NOT NULL,
        stakes       VARCHAR NOT NULL,
        session      VARCHAR,
        game_id      VARCHAR,
        day          DATE,
        player       VARCHAR NOT NULL,
        position     VARCHAR,
        up_rank      VARCHAR,
        big_blind    BIGINT NOT NULL,
        net          BIGINT NOT NULL,
        adjusted_net DOUBLE NOT NULL,
""" + ",\n".join(f"        {column} SMALLINT NOT NULL" for column in STAT_COLUMNS_V9) + """
    )
"""
"""Migration 9: one row per 7 & 8 seat (docs/schema.md)."""

_PREFIX: Final = "_handlab_stats_"
_SOURCES: Final = ("hands", "seats", "actions", "allin_results")


def _counted(stat: Stat) -> str:
    """The stat's count and opportunities over the summary ``t``, as stored integers."""
    return (f"CAST(coalesce(CAST(({stat.count}) AS INTEGER), 0) AS SMALLINT) AS {stat.name}, "
            f"CAST(coalesce(CAST(({stat.opportunities}) AS INTEGER), 0) AS SMALLINT) "
            f"AS {stat.opps_column}")


def _fill(scope: str, prefix: str) -> str:
    """The insert of the stat facts of the 7 & 8 hands ``scope`` selects (a condition on
    ``hands h``), reading each source table as ``prefix`` + its name."""
    tables = {name: prefix + name for name in _SOURCES}
    summary = SUMMARY.format(hands=tables["hands"], seats=tables["seats"],
                             actions=tables["actions"], scope=scope)
    counted = ", ".join(_counted(stat) for stat in STATS[Game.SEVENEIGHT])
    return f"""
        INSERT INTO stat_facts BY NAME
        WITH t AS ({summary}),
        c AS (SELECT hand_id, seat, position, up_rank, big_blind, {counted} FROM t)
        SELECT c.*, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
               h.game_id, {DAY} AS day, s.player, s.net,
               coalesce(a.expected_net, s.net) AS adjusted_net
        FROM c JOIN {tables["hands"]} h USING (hand_id)
        JOIN {tables["seats"]} s ON s.hand_id = c.hand_id AND s.seat = c.seat
        LEFT JOIN {tables["allin_results"]} a ON a.hand_id = c.hand_id AND a.seat = c.seat
        ORDER BY day, c.hand_id, c.seat
    """


_FILL_BATCH: Final = _fill("TRUE", _PREFIX)
_MISSING: Final = "h.hand_id NOT IN (SELECT hand_id FROM stat_facts)"
_FILL_DAYS: Final = _fill(f"{DAY} BETWEEN $first AND $last AND {_MISSING}", "")

CHUNK_HANDS: Final = 100_000
"""Hands filled per statement by :func:`fill_missing_stats` (the actions' aggregation must fit
the writer's memory limit)."""


def fill_batch_stats(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table]) -> None:
    """Add the stat facts of one batch of new hands, just inserted (inside the file's
    transaction), from the batch's own tables (as the loader inserted them)."""
    hands = tables["hands"]
    if hands.num_rows == 0 or "seveneight" not in set(hands["game"].unique().to_pylist()):
        return
    execute_over(con, _FILL_BATCH, {_PREFIX + name: tables[name] for name in _SOURCES})


def fill_missing_stats(con: duckdb.DuckDBPyConnection) -> None:
    """Add the stat facts of every 7 & 8 hand that has none (migration 9's backfill, and
    ``facts.fill_missing`` for bulk loads), by runs of days of about :data:`CHUNK_HANDS`
    hands, so the table ends up ordered by day."""
    days = con.execute(f"""
        SELECT {DAY} AS day, count(*) AS hands FROM hands h
        WHERE h.game = 'seveneight' AND {_MISSING} GROUP BY ALL ORDER BY day
    """).fetchall()
    for first, last in _runs(days):
        con.execute(_FILL_DAYS, {"first": first, "last": last})


def _runs(days: list[tuple[object, int]]) -> list[tuple[object, object]]:
    """Consecutive days grouped into runs of about :data:`CHUNK_HANDS` hands."""
    runs: list[tuple[object, object]] = []
    start: object = None
    total = 0
    previous: object = None
    for day, hands in days:
        if start is not None and total + hands > CHUNK_HANDS:
            runs.append((start, previous))
            start, total = None, 0
        if start is None:
            start = day
        total += hands
        previous = day
    if start is not None:
        runs.append((start, previous))
    return runs
