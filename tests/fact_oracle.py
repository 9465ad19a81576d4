"""The seat, hand and pot facts in SQL: the independent oracle that checks ``fact_rows``
and the pots' streaks (``facts.with_streaks``).

The warehouse computes ``seat_facts`` and ``hand_facts`` once, in numpy and pyarrow
(:func:`analytics.warehouse.pipeline.fact_rows.fact_tables`), for the ingest, the migrations'
backfills and the bulk writers alike.  This is the same definition written the other way,
as the joins and aggregations over the stored tables that the dashboard's questions ran
before the fact tables existed (the expressions of :mod:`analytics.warehouse.sql.views`:
``DAY``, ``SESSION``, ``STAKES``; the award parts' :func:`split_condition` is here).  It
used to be the writer's own fill; now only the tests run it (tests/test_fact_rows.py), row
for row against ``fact_tables`` on the golden and sample histories and on generated hands.

SQL cannot call the shared evaluator, so the dealt hands' categories, the Big Two plays by
kind and the passes come from the same functions ``fact_tables`` uses
(:func:`~analytics.warehouse.pipeline.fact_rows.dealt_categories`,
:func:`~analytics.warehouse.pipeline.fact_rows.play_kinds`,
:func:`~analytics.warehouse.pipeline.fact_rows.pass_counts`), appended by position as the old fill
did; tests/test_facts.py checks those against the evaluator itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Final

import duckdb
import pyarrow as pa

from analytics.warehouse.pipeline.fact_rows import dealt_categories, pass_counts, play_kinds
from analytics.warehouse.sql.arrow_scan import arrow_over, execute_over
from analytics.warehouse.sql.schema import migrate
from analytics.warehouse.sql.views import DAY, SESSION, SPLIT_COLUMNS, SPLIT_POTS, STAKES

__all__ = ["POTS", "oracle_facts", "oracle_facts_of", "scratch", "split_condition"]

def split_condition(part: str, pot: str = "a.pot") -> str:
    """SQL condition that an award's ``pot`` (a column expression) counts towards ``part``:
    the pots ``views.SPLIT_POTS`` names, poker side pots (``poker_side...``) with the poker pot,
    any other pot as the finale; the grouping ``seat_facts`` stores the parts by."""
    if part not in SPLIT_COLUMNS:
        raise ValueError(f"unknown part {part!r} (expected one of {', '.join(SPLIT_COLUMNS)})")
    named = ", ".join(f"'{name}'" for name in SPLIT_POTS)
    side = f"{pot} NOT IN ({named}) AND {pot} LIKE 'poker_side%'"
    if part == "finale":
        return f"({pot} NOT IN ({named}) AND {pot} NOT LIKE 'poker_side%')"
    listed = ", ".join(f"'{name}'" for name, to in SPLIT_POTS.items() if to == part)
    return f"({pot} IN ({listed}) OR ({side}))" if part == "poker pot" else f"{pot} IN ({listed})"


# The expressions are those of analytics.warehouse.sql.views (DAY, SESSION, STAKES and the
# questions' derivations), evaluated once per seat.
SEATS: Final = """
    WITH h AS (SELECT * FROM {hands} h),
    acts AS (
        SELECT a.hand_id, CASE WHEN a.verb = 'dh' THEN a.target ELSE a.actor END AS seat,
               string_agg(a.cards, '' ORDER BY a.seq) FILTER (WHERE a.verb = 'dh') AS dealt,
               count(*) FILTER (WHERE a.verb = 'up') > 0 AS up,
               any_value(substr(a.cards, 1, 1)) FILTER (WHERE a.verb = 'up') AS up_rank,
               CASE WHEN count(*) FILTER (WHERE a.verb IN ('dh', 'pl')) > 0 THEN
                   sum(CASE WHEN a.verb = 'dh' THEN length(a.cards) // 2
                            WHEN a.verb = 'pl' THEN -(length(a.cards) // 2) END) END
                   AS cards_left,
               list(a.cards ORDER BY a.seq) FILTER (WHERE a.verb = 'pl') AS plays
        FROM {actions} a
        WHERE a.verb IN ('dh', 'up', 'pl') AND a.hand_id IN (SELECT hand_id FROM h)
        GROUP BY ALL),
    won AS (
        SELECT a.hand_id, a.player AS seat, {won}
        FROM {awards} a
        WHERE a.hand_id IN (SELECT hand_id FROM h WHERE h.game = 'rummoli')
        GROUP BY ALL)
    SELECT s.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, h.round, {DAY} AS day, h.played_time, h.source_index, h.num_players,
           h.dealer, s.seat,
           CASE WHEN h.game = 'rummoli' AND h.dealer IS NOT NULL
                THEN ((s.seat - h.dealer - 1 + h.num_players) % h.num_players) + 1
                ELSE s.seat END AS position,
           s.player, s.net, s.winner, s.place,
           coalesce(c.up, FALSE) AS up, c.up_rank, c.cards_left, c.dealt,
           coalesce(c.plays, []) AS plays, length(d.cards) // 2 AS shown_size,
           d.category AS shown_category,
           a.hand_id IS NOT NULL AS all_in, a.expected_net AS allin_expected_net,
           a.actual_net AS allin_actual_net, a.luck AS allin_luck,
           a.std_error AS allin_std_error, length(c.dealt) // 2 AS dealt_size,
           w.* EXCLUDE (hand_id, seat)
    FROM {seats} s JOIN h USING (hand_id)
    LEFT JOIN acts c ON c.hand_id = s.hand_id AND c.seat = s.seat
    LEFT JOIN won w ON w.hand_id = s.hand_id AND w.seat = s.seat
    LEFT JOIN {allin_results} a ON a.hand_id = s.hand_id AND a.seat = s.seat
    LEFT JOIN {showdowns} d ON d.hand_id = s.hand_id AND d.player = s.seat
    ORDER BY h.game, day, s.hand_id, s.seat
"""

# Rummoli's pot_facts, every game's whole history in SQL windows: the streak columns the
# warehouse computes in numpy (facts.with_streaks; the ingest's incremental fill, the
# backfill and the lake), as the writer itself computed them before (checked by
# tests/test_pot_facts_incremental.py and tests/test_pot_facts_held.py).
POTS: Final = """
    WITH h AS (SELECT * FROM hands g WHERE {games}),
    rows AS (
        SELECT b.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes,
               {SESSION} AS session, h.game_id, h.round, {DAY} AS day, b.pot, b.pot_order,
               b.before, b.antes, b.amount, b.won_by, s.player AS won_by_player, b.after,
               coalesce(sum(CAST(b.won_by IS NOT NULL AS INTEGER)) OVER (
                   PARTITION BY h.game_id, b.pot ORDER BY h.round
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS streak
        FROM board b JOIN h USING (hand_id)
        LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by)
    SELECT * EXCLUDE (streak),
           row_number() OVER (PARTITION BY game_id, pot, streak ORDER BY round) - 1
               AS since_all,
           count(*) OVER (PARTITION BY game_id, pot) AS history_rounds
    FROM rows
    ORDER BY game, day, game_id, round, pot_order
""".format(games="g.game = 'rummoli'", DAY=DAY, SESSION=SESSION,
                 STAKES=STAKES)

# A Rummoli seat's awards summed per part of views.SPLIT_PARTS (NULL: no award in the part,
# so rummoli_split lists exactly the parts the old join of awards found).
WON: Final = ", ".join(f"sum(a.amount) FILTER (WHERE {split_condition(part)}) AS {column}"
                       for part, column in SPLIT_COLUMNS.items())

# The hand's players: ``seats`` grouped by hand, in seat order (a hand without seats, which
# the engine never writes, gets an empty list).
HANDS: Final = """
    WITH p AS (
        SELECT s.hand_id, list(s.player ORDER BY s.seat) AS players
        FROM {seats} s WHERE s.hand_id IN (SELECT h.hand_id FROM {hands} h)
        GROUP BY s.hand_id)
    SELECT h.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, {DAY} AS day, h.num_players, coalesce(p.players, []) AS players
    FROM {hands} h LEFT JOIN p USING (hand_id)
    ORDER BY h.game, day, h.hand_id
"""

_SOURCES: Final = ("hands", "seats", "actions", "showdowns", "allin_results", "awards")
_PREFIX: Final = "_oracle_"


def oracle_facts_of(con: duckdb.DuckDBPyConnection, prefix: str = "",
                    tables: Mapping[str, pa.Table] | None = None) -> dict[str, pa.Table]:
    """The ``seat_facts`` and ``hand_facts`` rows of every hand in the source tables read
    as ``prefix`` + each warehouse name (``tables``: Arrow tables under those names, or the
    warehouse's own tables with no prefix), as the warehouse's tables' columns."""
    names = {name: prefix + name for name in _SOURCES}
    labels = {"DAY": DAY, "SESSION": SESSION, "STAKES": STAKES}
    seats = arrow_over(con, SEATS.format(**labels, **names, won=WON), tables or {})
    derived = [dealt_categories(seats.select(["game", "dealt"])), play_kinds(seats)]
    acts = arrow_over(con, f"""
        SELECT a.hand_id, a.seq, a.actor, a.verb, a.cards, a.target FROM {names["actions"]} a
        WHERE a.verb IN ('dh', 'pl', 'ps')""", tables or {})
    derived.append(pass_counts(seats, acts))
    for table in derived:
        if table is not None:
            for name in table.column_names:
                seats = seats.append_column(name, table[name])
    hands = arrow_over(con, HANDS.format(**labels, **names), tables or {})
    return {"seat_facts": _as_stored(con, "seat_facts", seats),
            "hand_facts": _as_stored(con, "hand_facts", hands)}


def _as_stored(con: duckdb.DuckDBPyConnection, name: str, rows: pa.Table) -> pa.Table:
    """``rows`` as the warehouse table ``name`` holds them (its columns and types, in
    order; absent columns NULL), via an insert into an empty temporary copy."""
    scratch = f"{_PREFIX}{name}"
    con.execute(f"CREATE OR REPLACE TEMPORARY TABLE {scratch} AS "
                f"SELECT * FROM {name} LIMIT 0")
    try:
        execute_over(con, f"INSERT INTO {scratch} BY NAME SELECT * FROM {_PREFIX}rows",
                     {f"{_PREFIX}rows": rows})
        return con.sql(f"SELECT * FROM {scratch} ORDER BY rowid").to_arrow_table()
    finally:
        con.execute(f"DROP TABLE {scratch}")


@cache
def scratch() -> duckdb.DuckDBPyConnection:
    """An empty in-memory database at the latest schema, made once (migrating one takes a
    while); whoever writes to it empties it again."""
    con = duckdb.connect()
    migrate(con)
    return con


def oracle_facts(tables: Mapping[str, pa.Table]) -> dict[str, pa.Table]:
    """:func:`oracle_facts_of` one batch's Arrow tables (by warehouse name), in the
    :func:`scratch` database."""
    batch = {_PREFIX + name: tables[name] for name in _SOURCES}
    return oracle_facts_of(scratch(), _PREFIX, batch)

