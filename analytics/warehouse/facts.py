"""The per-seat fact table: one wide row per seat, so the dashboard's questions scan one table.

Most dashboard questions used to join ``seats`` (4 rows per hand) and ``actions``
(30 per hand) with ``hands`` on every view; over a million hands that is seconds
per question.  ``seat_facts`` holds, for every seat of every hand, the hand's
filter columns (game, day, session, stakes, knobs), the seat's result and what
the questions derive from the actions (position, up card, cards left, dealt
cards, plays) and from ``allin_results``, written once when the hand is loaded.

The table is derived data, filled by the warehouse itself, never by hand:

* :func:`fill_batch` for each batch the ingest inserts (``loader.load_batch``), from
  the batch's own rows and inside the file's transaction, so a file's facts commit
  or roll back with its hands: a killed ingest leaves neither, and a rerun fills
  them once;
* :func:`fill_missing_seats` by migration 4 (databases that existed before the table),
  :func:`fill_missing_hands` by migration 5 (``hand_facts``, one row per hand), and
  :func:`fill_missing` (both) by anything that writes hands in bulk without the ingest
  (the dashboard benchmark's replicated rows).

Rows are inserted ordered by game and day, so DuckDB's per-row-group min/max
skip whole row groups when a question names a game or a date range.
docs/schema.md explains every column; docs/warehouse.md when they are filled.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Final

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from analytics.warehouse.views import DAY, SESSION, STAKES

__all__ = ["CHUNK_HANDS", "HANDS_TABLE", "POTS_TABLE", "SEATS_TABLE", "fill_batch",
           "fill_missing", "fill_missing_hands", "fill_missing_seats"]

SEATS_TABLE: Final = """
    CREATE TABLE seat_facts (
        hand_id          BIGINT NOT NULL,
        game             VARCHAR NOT NULL,
        variant          VARCHAR NOT NULL,
        rules            VARCHAR NOT NULL,
        stakes           VARCHAR NOT NULL,
        session          VARCHAR,
        game_id          VARCHAR,
        round            INTEGER,
        day              DATE,
        played_time      TIME,
        source_index     INTEGER NOT NULL,
        num_players      SMALLINT NOT NULL,
        dealer           SMALLINT,
        seat             SMALLINT NOT NULL,
        position         SMALLINT NOT NULL,
        player           VARCHAR NOT NULL,
        net              BIGINT NOT NULL,
        winner           BOOLEAN NOT NULL,
        place            SMALLINT,
        up               BOOLEAN NOT NULL,
        up_rank          VARCHAR,
        cards_left       INTEGER,
        dealt            VARCHAR,
        plays            VARCHAR[],
        shown_size       SMALLINT,
        shown_category   VARCHAR,
        all_in           BOOLEAN NOT NULL,
        allin_expected_net DOUBLE,
        allin_actual_net BIGINT,
        allin_luck       DOUBLE,
        allin_std_error  DOUBLE
    )
"""
"""One row per seat (migration 4 creates it)."""

# A batch's own Arrow tables are registered under their warehouse names with this prefix.
_BATCH_PREFIX: Final = "_handlab_facts_"
_BATCH_PREFIX_HANDS: Final = _BATCH_PREFIX + "hands"

# The expressions are those of analytics.warehouse.views (DAY, SESSION, STAKES and the
# questions' derivations), evaluated once per seat here instead of once per view.
_SEATS: Final = """
    WITH h AS (SELECT * FROM {hands} h WHERE {scope}),
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
           a.std_error AS allin_std_error
    FROM {seats} s JOIN h USING (hand_id)
    LEFT JOIN acts c ON c.hand_id = s.hand_id AND c.seat = s.seat
    LEFT JOIN {allin_results} a ON a.hand_id = s.hand_id AND a.seat = s.seat
    LEFT JOIN {showdowns} d ON d.hand_id = s.hand_id AND d.player = s.seat
    ORDER BY h.game, day, s.hand_id, s.seat
"""

POTS_TABLE: Final = """
    CREATE TABLE pot_facts (
        hand_id       BIGINT NOT NULL,
        game          VARCHAR NOT NULL,
        variant       VARCHAR NOT NULL,
        rules         VARCHAR NOT NULL,
        stakes        VARCHAR NOT NULL,
        session       VARCHAR,
        game_id       VARCHAR,
        round         INTEGER,
        day           DATE,
        pot           VARCHAR NOT NULL,
        pot_order     TINYINT NOT NULL,
        before        BIGINT NOT NULL,
        antes         BIGINT NOT NULL,
        amount        BIGINT NOT NULL,
        won_by        SMALLINT,
        won_by_player VARCHAR,
        after         BIGINT,
        since_all     BIGINT NOT NULL,
        history_rounds BIGINT NOT NULL
    )
"""
"""Rummoli's board with the hand's filter columns, the winner's name and the pot's streak
over its game's whole history (migration 4)."""

# A game's pot history is recomputed whole whenever one of its hands is filled (its rounds
# may come in several files, in any order): the scope's games are deleted and inserted again.
_GAMES: Final = """
    g.game = 'rummoli'
    AND (g.game_id IN (SELECT h.game_id FROM hands h WHERE h.game = 'rummoli' AND {scope})
         OR (g.game_id IS NULL
             AND EXISTS (SELECT 1 FROM hands h
                         WHERE h.game = 'rummoli' AND h.game_id IS NULL AND {scope})))
"""
_POTS_DELETE: Final = "DELETE FROM pot_facts g WHERE {games}"
_POTS: Final = """
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
"""

HANDS_TABLE: Final = """
    CREATE TABLE hand_facts (
        hand_id      BIGINT NOT NULL,
        game         VARCHAR NOT NULL,
        variant      VARCHAR NOT NULL,
        rules        VARCHAR NOT NULL,
        stakes       VARCHAR NOT NULL,
        session      VARCHAR,
        game_id      VARCHAR,
        day          DATE,
        num_players  SMALLINT NOT NULL
    )
"""
"""One row per hand: the hand's filter columns with its session and stakes labels, for the
questions that count hands or sessions (migration 5).  Building the labels from every
hand's columns was most of what those questions cost."""

_HANDS: Final = """
    SELECT h.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, {DAY} AS day, h.num_players
    FROM {hands} h WHERE {scope}
    ORDER BY h.game, day, h.hand_id
"""
_FILL_BATCH_HANDS: Final = ("INSERT INTO hand_facts BY NAME " + _HANDS.format(
    STAKES=STAKES, SESSION=SESSION, DAY=DAY, hands=_BATCH_PREFIX_HANDS, scope="TRUE"))
_FILL_MISSING_HANDS: Final = ("INSERT INTO hand_facts BY NAME " + _HANDS.format(
    STAKES=STAKES, SESSION=SESSION, DAY=DAY, hands="hands",
    scope="h.hand_id NOT IN (SELECT hand_id FROM hand_facts)"))

_MISSING: Final = "h.hand_id NOT IN (SELECT hand_id FROM seat_facts)"
_BY_DAYS: Final = (f"h.game = $game AND {DAY} BETWEEN $first AND $last "
                   f"AND {_MISSING}")


# The warehouse tables the seat facts are derived from; a batch's own Arrow tables stand in
# for them under these names prefixed with _BATCH_PREFIX.
_SOURCES: Final = ("hands", "seats", "actions", "showdowns", "allin_results")


def _fills(scope: str, *, source_prefix: str = "") -> tuple[str, ...]:
    """The statements that fill both tables for the hands ``scope`` selects: the pot
    histories of their games (deleted and inserted again), then their seats.  Pots first,
    since a scope of "hands without seat facts" selects nothing once the seats are in.
    The seats are read from ``source_prefix`` + each source table's name."""
    games = _GAMES.format(scope=scope)
    names = {"DAY": DAY, "SESSION": SESSION, "STAKES": STAKES, "scope": scope, "games": games}
    sources = {name: source_prefix + name for name in _SOURCES}
    return (_POTS_DELETE.format(games=games),
            f"INSERT INTO pot_facts BY NAME {_POTS.format(**names)}",
            f"INSERT INTO seat_facts BY NAME {_SEATS.format(**names, **sources)}")


_FILL_DAYS: Final = _fills(_BY_DAYS)
# A batch: its seats from its own tables; its Rummoli games' pot histories from the
# warehouse's board (a game's rounds may have come in earlier batches or files).
_BY_BATCH: Final = (f"h.game = 'rummoli' AND h.hand_id IN "
                    f"(SELECT hand_id FROM {_BATCH_PREFIX}hands WHERE game = 'rummoli')")
_FILL_BATCH_POTS: Final = _fills(_BY_BATCH)[:2]
_FILL_BATCH_SEATS: Final = _fills("TRUE", source_prefix=_BATCH_PREFIX)[2]

CHUNK_HANDS: Final = 100_000
"""Hands filled per statement: the aggregation of their actions must fit the writer's
memory limit (512 MB), which a million hands in one statement do not."""


def fill_batch(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table]) -> None:
    """Add the facts of one batch of new hands, just inserted (inside the file's transaction).

    ``tables`` are the rows the loader has just inserted, by warehouse table.  The seat
    facts are derived from them, not from the warehouse tables, so a batch costs what
    its own hands cost however large the warehouse has grown (scanning ``actions`` for a
    file's hands took about a second per file at a million hands).  The pot histories of
    the batch's Rummoli games are recomputed whole from ``board``, which is small.
    """
    hands = tables["hands"]
    if hands.num_rows == 0:
        return
    for name in _SOURCES:
        con.register(_BATCH_PREFIX + name, tables[name])
    try:
        if pc.any(pc.equal(hands["game"], "rummoli")).as_py():
            for statement in _FILL_BATCH_POTS:
                con.execute(statement)
        con.execute(_FILL_BATCH_SEATS)
        con.execute(_FILL_BATCH_HANDS)
    finally:
        for name in _SOURCES:
            con.unregister(_BATCH_PREFIX + name)


def fill_missing(con: duckdb.DuckDBPyConnection) -> None:
    """Add the facts (seats, pots, hands) of every hand that has none (bulk loads)."""
    fill_missing_seats(con)
    fill_missing_hands(con)


def fill_missing_hands(con: duckdb.DuckDBPyConnection) -> None:
    """Add the ``hand_facts`` row of every hand that has none (migration 5's backfill).

    One statement: the rows are narrow, a million fit the writer's memory limit.
    """
    con.execute(_FILL_MISSING_HANDS)


def fill_missing_seats(con: duckdb.DuckDBPyConnection) -> None:
    """Add the seat and pot facts of every hand that has none (migration 4's backfill).

    Goes through the missing hands by game and day, about :data:`CHUNK_HANDS` at a
    time, so the table ends up ordered by game and day as a whole.
    """
    days = con.execute(f"""
        SELECT game, {DAY} AS day, count(*) AS hands
        FROM hands h WHERE {_MISSING} GROUP BY ALL ORDER BY game, day
    """).fetchall()
    for game, first, last in _day_chunks(days):
        for statement in _FILL_DAYS:
            con.execute(statement, {"game": game, "first": first, "last": last})


def _day_chunks(days: list[tuple[str, dt.date, int]]
                ) -> Iterator[tuple[str, dt.date, dt.date]]:
    """Consecutive days of one game grouped into runs of about :data:`CHUNK_HANDS` hands."""
    run: list[tuple[str, dt.date, int]] = []
    for day in days:
        if run and (day[0] != run[0][0] or sum(n for _, _, n in run) + day[2] > CHUNK_HANDS):
            yield run[0][0], run[0][1], run[-1][1]
            run = []
        run.append(day)
    if run:
        yield run[0][0], run[0][1], run[-1][1]
