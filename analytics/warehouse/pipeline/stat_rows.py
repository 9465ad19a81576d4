"""``stat_facts``: one row per 7 & 8 and Rummoli seat with its statistics' counts, on ingest.

The statistics of :mod:`analytics.stats.definitions` need each hand's actions in order
(who raised first, what a player faced when he acted); reading ``actions`` (about 25
rows a hand) for a million hands takes seconds, so each seat's counts are derived once,
when its hand is loaded, from its seat's summary (:mod:`~analytics.warehouse.pipeline.stat_summary`:
7 & 8's betting, Rummoli's round), and the grid sums them
(:mod:`analytics.warehouse.sql.stat_views`).  Made like the other fact tables: by the
ingest's workers (and the lake's) from a batch's own Arrow tables
(:func:`batch_stat_facts`, in a scratch database), inserted by the writer with the batch
in the file's transaction (``write.load_new``, which runs :func:`fill_batch_stats`
itself for a caller that brings none); for the hands a database held before by
migration 12 and by ``facts.fill_missing`` (``facts.fill_missing_stats``, which reads
them back and fills them as a batch).  A new statistic
of these games needs a migration adding its columns (tests/test_stats.py checks the
table has a column for every definition).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import duckdb
import pyarrow as pa

from analytics.stats.definitions import STATS, Stat
from analytics.stats.rummoli import POT_NETS
from analytics.warehouse.pipeline.stat_summary import rummoli_summary, seveneight_summary
from analytics.warehouse.sql.arrow_scan import arrow_over, execute_over
from analytics.warehouse.sql.views import DAY, SESSION, STAKES
from parsers.rule_options import Game

__all__ = ["POT_NETS_V12", "STAT_COLUMNS_V9", "STAT_FACTS", "STAT_FACTS_TABLE", "STAT_SOURCES",
           "batch_stat_facts", "fill_batch_stats", "stat_games"]

STAT_FACTS: Final = "stat_facts"
"""The table's name, and the key of its rows among a batch's tables once a worker has
made them (:func:`batch_stat_facts`)."""

STAT_COLUMNS_V9: Final = (
    "vpip", "vpip_opps", "pfr", "pfr_opps", "three_bet", "three_bet_opps",
    "fold_to_three_bet", "fold_to_three_bet_opps", "af_round1", "af_round1_opps",
    "af_round2", "af_round2_opps", "af", "af_opps", "afq", "afq_opps", "cbet", "cbet_opps",
    "fold_to_cbet", "fold_to_cbet_opps", "wtsd", "wtsd_opps", "wsd", "wsd_opps", "wwsr2",
    "wwsr2_opps", "up_high", "up_high_opps", "raise", "raise_opps", "poker_pot_won",
    "poker_pot_won_opps", "widow_exchange", "widow_exchange_opps", "auction_bid",
    "auction_bid_opps", "winning_bid", "winning_bid_opps", "widow_net", "widow_net_opps",
    "pay_cards", "pay_cards_opps", "stops", "stops_opps", "cards_left", "cards_left_opps",
    "chips_paid", "chips_paid_opps", "rummoli_pot", "rummoli_pot_opps")
"""The statistics' columns as migration 9 created them (frozen migration text): 7 & 8's,
then Rummoli's own (the two games share ``vpip`` and ``wsd``; a row of one game holds 0
in the other game's columns)."""

_CHIP_COLUMNS: Final = frozenset({"winning_bid", "widow_net", "chips_paid"})

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
        place        VARCHAR NOT NULL,
        day          DATE,
        played_time  TIME,
        source_index INTEGER NOT NULL,
        player       VARCHAR NOT NULL,
        position     VARCHAR,
        up_rank      VARCHAR,
        big_blind    BIGINT NOT NULL,
        net          BIGINT NOT NULL,
        adjusted_net DOUBLE NOT NULL,
""" + ",\n".join(
    f"        {column} {'BIGINT' if column in _CHIP_COLUMNS else 'INTEGER'} NOT NULL DEFAULT 0"
    for column in STAT_COLUMNS_V9) + """
    )
"""
"""Migration 10: one row per 7 & 8 seat and per Rummoli seat (docs/schema.md; frozen:
migration 12 adds :data:`POT_NETS_V12`)."""

POT_NETS_V12: Final = (
    *(f"ALTER TABLE stat_facts ADD COLUMN {column} BIGINT DEFAULT 0" for column in POT_NETS),
    "DELETE FROM stat_facts WHERE game = 'rummoli'")
"""Migration 12: a Rummoli round's net by pot (``analytics.stats.rummoli.POT_NETS``; 0 in
7 & 8 rows); the Rummoli rows go, for its backfill (:func:`fill_missing_stats`) to write
them again with the new columns."""

_PREFIX: Final = "_handlab_stats_"
STAT_SOURCES: Final = ("hands", "seats", "actions", "allin_results", "awards")
"""The batch tables the statistics' rows are made from."""
_GAMES: Final = (Game.SEVENEIGHT, Game.RUMMOLI)  # the games whose counts are stored
_SUMMARY: Final = _PREFIX + "summary"
_SUMMARIES: Final = {Game.SEVENEIGHT: seveneight_summary, Game.RUMMOLI: rummoli_summary}
"""Each game's seats' summary (:mod:`~analytics.warehouse.pipeline.stat_summary`), which
:data:`_ROWS` reads by the name ``_SUMMARY``."""
# The summaries' own columns the table keeps (besides hand and seat).
_KEPT: Final = {Game.SEVENEIGHT: "position, up_rank, big_blind",
                Game.RUMMOLI: "position, NULL AS up_rank, 1 AS big_blind, "
                              + ", ".join(POT_NETS)}


def _counted(stat: Stat) -> str:
    """The stat's count and opportunities over the summary ``t``, as stored integers."""
    kind = "BIGINT" if stat.name in _CHIP_COLUMNS else "INTEGER"
    return (f"coalesce(CAST(({stat.count}) AS {kind}), 0) AS {stat.name}, "
            f"coalesce(CAST(({stat.opportunities}) AS INTEGER), 0) AS {stat.opps_column}")


def _rows(game: Game) -> str:
    """The query of the stat facts of ``game``'s hands in a batch's tables (each read as
    ``_PREFIX`` + its name): the statistics' counts over each seat's summary, with the
    hand's and the seat's columns."""
    tables = {name: _PREFIX + name for name in STAT_SOURCES}
    counted = ", ".join(_counted(stat) for stat in STATS[game])
    adjusted = ("coalesce(a.expected_net, s.net)" if game is Game.SEVENEIGHT
                else "CAST(s.net AS DOUBLE)")
    allin = (f"LEFT JOIN {tables['allin_results']} a "
             "ON a.hand_id = c.hand_id AND a.seat = c.seat" if game is Game.SEVENEIGHT else "")
    return f"""
        WITH t AS (SELECT * FROM {_SUMMARY}),
        c AS (SELECT hand_id, seat, {_KEPT[game]}, {counted} FROM t)
        SELECT c.*, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
               h.game_id, coalesce(h.game_id, h.table_name, h.source_file) AS place,
               {DAY} AS day, h.played_time, h.source_index, s.player, s.net,
               {adjusted} AS adjusted_net
        FROM c JOIN {tables["hands"]} h USING (hand_id)
        JOIN {tables["seats"]} s ON s.hand_id = c.hand_id AND s.seat = c.seat
        {allin}
    """


_ROWS: Final = {game: _rows(game) for game in _GAMES}
_ORDER: Final = "ORDER BY day, hand_id, seat"
_GIVEN: Final = {game: frozenset((
    "hand_id", "seat", *(part.split()[-1] for part in _KEPT[game].split(", ")),
    *(name for stat in STATS[game] for name in (stat.name, stat.opps_column)),
    "game", "variant", "rules", "stakes", "session", "game_id", "place", "day", "played_time",
    "source_index", "player", "net", "adjusted_net")) for game in _GAMES}
"""The columns :data:`_ROWS` gives for each game (the others are stored at their default;
tests/test_stats.py's backfill test checks the ingest's rows, shaped this way, against the
backfill's, inserted by name)."""


def fill_batch_stats(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table]) -> None:
    """Add the stat facts of a batch of hands without any (``tables``: their rows of
    :data:`STAT_SOURCES`, each table's rows of a hand together): the ingest's new hands,
    just inserted inside the file's transaction, or stored ones read back by the backfill
    (``facts.fill_missing_stats``)."""
    for game in stat_games(tables["hands"]):
        execute_over(con, f"INSERT INTO stat_facts BY NAME SELECT * FROM ({_ROWS[game]}) {_ORDER}",
                     _sources(game, tables))


def _sources(game: Game, tables: Mapping[str, pa.Table]) -> dict[str, pa.Table]:
    """The tables :data:`_ROWS` of ``game`` reads, by the names it reads them by."""
    sources = {_PREFIX + name: tables[name] for name in STAT_SOURCES}
    sources[_SUMMARY] = _SUMMARIES[game](tables)
    return sources


def stat_games(hands: pa.Table) -> list[Game]:
    """The games among ``hands`` whose seats get ``stat_facts`` rows (7 & 8, Rummoli)."""
    present = set(hands["game"].unique().to_pylist())
    return [game for game in _GAMES if game.value in present]


def batch_stat_facts(scratch: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table]
                     ) -> pa.Table:
    """The ``stat_facts`` rows of one batch of hands, every column as the warehouse stores
    them (the table's columns and types in ``scratch``, a database at the latest schema:
    what :func:`fill_batch_stats` would insert there), ordered by day, hand and seat.

    The ingest's workers (and the lake's) make them beside the batch's other facts, so
    the single writer only inserts them: in the writer this query was the largest part
    of its work per 7 & 8 hand and per Rummoli round."""
    columns = scratch.execute(
        "SELECT column_name, data_type, column_default FROM duckdb_columns() "
        "WHERE table_name = 'stat_facts' AND schema_name = 'main' ORDER BY column_index"
    ).fetchall()
    parts = [arrow_over(scratch, _stored_shape(game, columns), _sources(game, tables))
             for game in stat_games(tables["hands"])]
    if not parts:
        return arrow_over(scratch, "SELECT * FROM stat_facts LIMIT 0", {})
    rows = pa.concat_tables(parts)
    return rows.sort_by([("day", "ascending"), ("hand_id", "ascending"),
                         ("seat", "ascending")]) if len(parts) > 1 else rows


def _stored_shape(game: Game, columns: list[tuple[str, str, str | None]]) -> str:
    """``game``'s :data:`_ROWS` with the table's ``columns`` (name, type, default), in its
    order and types, those it does not give at their default, as an insert by name stores
    them."""
    given = _GIVEN[game]
    shaped = []
    for name, kind, default in columns:
        if name in given:
            shaped.append(f"CAST(q.{name} AS {kind}) AS {name}")
        elif default is not None:
            shaped.append(f"CAST({default} AS {kind}) AS {name}")
        else:
            raise ValueError(f"stat_facts.{name} has no default and the query gives none")
    return f"SELECT {', '.join(shaped)} FROM ({_ROWS[game]}) q {_ORDER}"
