"""The fact tables in the warehouse: their definitions, the pots' fill, the backfills.

Most dashboard questions used to join ``seats`` (4 rows per hand) and ``actions``
(30 per hand) with ``hands`` on every view; over a million hands that is seconds
per question.  ``seat_facts`` holds, for every seat of every hand, the hand's
filter columns (game, day, session, stakes, knobs), the seat's result and what
the questions derive from the actions (position, up card, cards left, dealt
cards, plays) and from ``allin_results``, written once when the hand is loaded;
``hand_facts`` one row per hand, ``pot_facts`` Rummoli's board with its streaks.

The seat and hand rows have one definition,
:func:`~analytics.warehouse.pipeline.fact_rows.fact_tables` (numpy and Arrow over a batch's
tables; tests/fact_oracle.py is the SQL that checks it).  It runs:

* in the ingest's workers, on every batch: the writer inserts the rows with the batch
  (``write.load_new``) inside the file's transaction, so a file's facts commit or roll
  back with its hands, and adds the batch's pot rows (:func:`fill_batch_pots`, which need
  the warehouse's history);
* over the stored tables, read as Arrow about :data:`CHUNK_HANDS` hands at a time, for the
  hands that have none: :func:`fill_missing_seats` (migration 6, with the pots),
  :func:`fill_missing_hands` (migration 7) and :func:`fill_missing` (both, and the
  statistics) for anything that writes hands in bulk without the ingest (the dashboard
  benchmark's replicated rows).  Migrations 8 and 12 add columns to rows already there
  and fill them with the same functions the ingest uses
  (:func:`fill_missing_play_kinds`, :func:`fill_missing_passes`).

Rows are inserted ordered by game and day, so DuckDB's per-row-group min/max
skip whole row groups when a question names a game or a date range.
docs/schema.md explains every column; docs/warehouse.md when they are filled.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Final

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from analytics.warehouse.pipeline.fact_rows import (
    FACT_TABLES,
    PASS_COLUMNS,
    fact_tables,
    pass_counts,
    play_kinds,
)
from analytics.warehouse.pipeline.stat_rows import fill_batch_stats
from analytics.warehouse.sql.arrow_scan import arrow_over, execute_over
from analytics.warehouse.sql.views import DAY, PLAY_KIND_COLUMNS, SESSION, STAKES

__all__ = ["CHUNK_HANDS", "HANDS_TABLE", "HANDS_TABLE_V5", "PASSES_V12",
           "PLAY_KINDS_V8", "POTS_TABLE", "POT_ROWS_SELECT", "SEATS_TABLE", "SEATS_TABLE_V4",
           "STAT_CHUNK_HANDS", "PotGames", "fill_batch_pots", "fill_missing", "fill_missing_hands",
           "fill_missing_passes", "fill_missing_play_kinds", "fill_missing_seats",
           "fill_missing_stats", "recount_streaks", "with_streaks"]

# The columns of seat_facts as migration 4 created it: migration text, never to be edited
# (SEATS_TABLE_V4 must stay what migration 4 ran); migration 6 added the ones after them.
_SEAT_COLUMNS_V4: Final = """\
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
        allin_std_error  DOUBLE"""

SEATS_TABLE_V4: Final = f"""
    CREATE TABLE seat_facts (
{_SEAT_COLUMNS_V4}
    )
"""
"""``seat_facts`` as migration 4 created it (frozen: migration 6 replaces it)."""

SEATS_TABLE: Final = f"""
    CREATE TABLE seat_facts (
{_SEAT_COLUMNS_V4},
        dealt_size       SMALLINT,
        dealt_two_category   VARCHAR,
        dealt_three_category VARCHAR,
        dealt_poker_category VARCHAR,
        won_poker        BIGINT,
        won_pay_cards    BIGINT,
        won_rummoli      BIGINT,
        won_auction      BIGINT,
        won_payments     BIGINT,
        won_finale       BIGINT
    )
"""
"""One row per seat as migration 6 created it (the dealt categories and award parts were
new in it; frozen: migration 8 adds :data:`PLAY_KINDS_V8`)."""

PLAY_KINDS_V8: Final = tuple(
    f"ALTER TABLE seat_facts ADD COLUMN {column} INTEGER"
    for column in PLAY_KIND_COLUMNS.values())
"""Migration 8: a Big Two seat's plays counted per kind (``views.PLAY_KIND_COLUMNS``;
NULL for the other games' seats)."""

# A batch's own Arrow tables are read (arrow_scan) under their warehouse names with this prefix.
_BATCH_PREFIX: Final = "_handlab_facts_"

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

# fill_missing recomputes a game's pot history whole whenever one of its hands is filled (its
# rounds may come in several files, in any order): the scope's games are deleted and inserted
# again.  The ingest's batches go the incremental way of _BATCH_POTS below.
_GAMES: Final = """
    g.game = 'rummoli'
    AND (g.game_id IN (SELECT h.game_id FROM hands h WHERE h.game = 'rummoli' AND {scope})
         OR (g.game_id IS NULL
             AND EXISTS (SELECT 1 FROM hands h
                         WHERE h.game = 'rummoli' AND h.game_id IS NULL AND {scope})))
"""
_POTS_DELETE: Final = "DELETE FROM pot_facts g WHERE {games}"
_POT_ROWS_TEMPLATE: Final = """
    WITH h AS (SELECT * FROM {hands} g WHERE {games})
    SELECT b.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, h.round, {DAY} AS day, b.pot, b.pot_order, b.before, b.antes, b.amount,
           b.won_by, s.player AS won_by_player, b.after
    FROM {board} b JOIN h USING (hand_id)
    LEFT JOIN {seats} s ON s.hand_id = b.hand_id AND s.seat = b.won_by
    ORDER BY h.game, day, h.game_id, h.round, b.pot_order
"""
"""The ``pot_facts`` rows but their streak columns (:func:`with_streaks` adds them) of the
hands of table ``hands`` that ``games`` selects (a condition on ``g``), in insert order."""


def _pot_rows_sql(games: str, prefix: str = "") -> str:
    """:data:`_POT_ROWS_TEMPLATE` over the tables named ``prefix`` + their names."""
    return _POT_ROWS_TEMPLATE.format(
        hands=prefix + "hands", board=prefix + "board", seats=prefix + "seats", games=games,
        DAY=DAY, SESSION=SESSION, STAKES=STAKES)


POT_ROWS_SELECT: Final = _pot_rows_sql("g.game = 'rummoli'")
"""Every Rummoli board row of the tables ``hands``, ``board`` and ``seats`` as a ``pot_facts``
row but its streak columns: with :func:`with_streaks`, the Parquet lake's ``pot_facts``
(:mod:`analytics.warehouse.lake.core`)."""


# The columns of hand_facts as migration 5 created it: migration text, never to be edited
# (HANDS_TABLE_V5 must stay what migration 5 ran); migration 7 added the ones after them.
_HAND_COLUMNS_V5: Final = """\
        hand_id      BIGINT NOT NULL,
        game         VARCHAR NOT NULL,
        variant      VARCHAR NOT NULL,
        rules        VARCHAR NOT NULL,
        stakes       VARCHAR NOT NULL,
        session      VARCHAR,
        game_id      VARCHAR,
        day          DATE,
        num_players  SMALLINT NOT NULL"""

HANDS_TABLE_V5: Final = f"""
    CREATE TABLE hand_facts (
{_HAND_COLUMNS_V5}
    )
"""
"""``hand_facts`` as migration 5 created it (frozen: migration 7 replaces it)."""

HANDS_TABLE: Final = f"""
    CREATE TABLE hand_facts (
{_HAND_COLUMNS_V5},
        players      VARCHAR[] NOT NULL
    )
"""
"""One row per hand: the hand's filter columns with its session and stakes labels, for the
questions that count hands or sessions (migration 5), and its players in seat order
(migration 7).  Building the labels from every hand's columns was most of what those
questions cost; the players let a player filter test each hand's own row instead of
semi-joining the seats (a hash join of a million hands against the chosen players')."""

_MISSING: Final = "h.hand_id NOT IN (SELECT hand_id FROM seat_facts)"
_BY_DAYS: Final = (f"h.game = $game AND {DAY} BETWEEN $first AND $last "
                   f"AND {_MISSING}")
_MISSING_HANDS: Final = "h.hand_id NOT IN (SELECT hand_id FROM hand_facts)"

# The pot histories of the games of the hands _BY_DAYS selects, deleted and inserted again
# (pots first: once the seats are in, "hands without seat facts" selects none of them).
_POTS_DELETE_DAYS: Final = _POTS_DELETE.format(games=_GAMES.format(scope=_BY_DAYS))
_POT_ROWS_DAYS: Final = _pot_rows_sql(_GAMES.format(scope=_BY_DAYS))

# A batch's pots, incrementally (recomputing its games' whole histories with SQL windows
# was most of the writer's time per Rummoli round: DuckDB's windows over the wide rows cost
# ~10 us a row, and every batch of a long game paid for all its earlier rounds again; that
# SQL is the tests' oracle now, tests/fact_oracle.py).
# 1. The batch's own pot rows are selected from its own tables (as Arrow), and the earlier
#    rows of its games read from pot_facts (narrow: game, pot, round, won; no join with
#    hands, board or seats).
# 2. The streak columns of the games' whole histories, the earlier rows then the batch's in
#    the order they are inserted (the order of ties, as the rows were read back before), are
#    computed in numpy (_pot_streaks, the one definition): a game's rounds may come in
#    several files, in any order.
# 3. The batch's rows go in with their streak columns, and only the earlier rows whose
#    values changed are updated (none when the batch's games are new to the warehouse).
# pot_facts holds every board row the ingest loaded (fill_batch_pots) or fill_missing filled;
# rows written in bulk without facts get their whole games recomputed by fill_missing.
_BATCH_POTS: Final = _pot_rows_sql("g.game = 'rummoli'", _BATCH_PREFIX)
# The earlier rows of the games of the pot rows being written (_POT_GAMES: their game ids),
# as _GAMES picks games (all Rummoli rounds without a game id are one game).
_POT_GAMES: Final = _BATCH_PREFIX + "pot_games"
_POT_HISTORY: Final = f"""
    SELECT hand_id, pot, game_id, round, won_by IS NOT NULL AS won, since_all, history_rounds
    FROM pot_facts g
    WHERE g.game_id IN (SELECT game_id FROM {_POT_GAMES})
       OR (g.game_id IS NULL AND EXISTS (SELECT 1 FROM {_POT_GAMES} WHERE game_id IS NULL))
"""
_POT_ROWS: Final = _BATCH_PREFIX + "pot_rows"
_POT_INSERT: Final = f"INSERT INTO pot_facts BY NAME SELECT * FROM {_POT_ROWS}"
_POT_STREAKS: Final = _BATCH_PREFIX + "pot_streaks"
_POT_UPDATE: Final = f"""
    UPDATE pot_facts p SET since_all = n.since_all, history_rounds = n.history_rounds
    FROM {_POT_STREAKS} n WHERE p.hand_id = n.hand_id AND p.pot = n.pot
"""


class PotGames:
    """The game ids (None: the rounds without one) that have rows in ``pot_facts``, as the
    writer's connection sees them, so that a batch of games new to the warehouse skips the
    query for their earlier rows: that query scans the game ids of the whole table (about
    0.14 s per batch at 9,000,000 pot rows, a million rounds), a cost per batch that grew
    with everything loaded before it, while a batch's games rarely have earlier rows.

    Read from the table once per connection (on the first Rummoli batch) and kept up to
    date with the batches' games as :func:`fill_batch_pots` inserts them.  A game it holds
    without rows (its transaction rolled back) only costs that query; a game with rows it
    did not hold would leave the streaks wrong, so it is read again whenever the
    connection is another one: only the writer holding the connection writes, and another
    writer can only have written while this one's lease had let go, which reopens it.
    """

    def __init__(self) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        self._ids: set[str | None] = set()

    def _known(self, con: duckdb.DuckDBPyConnection) -> set[str | None]:
        if con is not self._con:  # holding the old one, whose id() cannot come back
            rows = con.execute("SELECT DISTINCT game_id FROM pot_facts").fetchall()
            self._con, self._ids = con, {row[0] for row in rows}
        return self._ids

    def any_known(self, con: duckdb.DuckDBPyConnection, ids: list[str | None]) -> bool:
        """Whether any of ``ids`` may have rows in ``pot_facts``."""
        return not self._known(con).isdisjoint(ids)

    def add(self, con: duckdb.DuckDBPyConnection, ids: list[str | None]) -> None:
        """Record ``ids`` as having rows (just inserted on ``con``)."""
        self._known(con).update(ids)


def _fill_batch_pots(con: duckdb.DuckDBPyConnection, batch: Mapping[str, pa.Table],
                     games: PotGames | None) -> None:
    """Add the batch's ``board`` rows to ``pot_facts`` and bring its games' streak columns
    up to date (``batch``: its tables by their names in the statements; ``games``: which
    games have rows, if known)."""
    _write_pots(con, arrow_over(con, _BATCH_POTS, batch), games)


def _write_pots(con: duckdb.DuckDBPyConnection, rows: pa.Table, games: PotGames | None
                ) -> None:
    """Insert pot ``rows`` (``_BATCH_POTS``'s columns) with their streak columns over their
    games' whole histories, and update their games' earlier rows where these change."""
    if rows.num_rows == 0:
        return
    unique = pc.unique(rows["game_id"])
    ids = unique.to_pylist() if games is not None else []
    history = pa.table([rows["game_id"], rows["pot"], rows["round"],
                        pc.is_valid(rows["won_by"])], names=list(_STREAK_INPUTS))
    earlier = (arrow_over(con, _POT_HISTORY, {_POT_GAMES: pa.table({"game_id": unique})})
               if games is None or games.any_known(con, ids) else None)
    count = 0 if earlier is None else earlier.num_rows
    if earlier is not None and count:
        history = pa.concat_tables([earlier.select(_STREAK_INPUTS), history])
    since_all, history_rounds = _pot_streaks(history)
    rows = rows.append_column("since_all", pa.array(since_all[count:])).append_column(
        "history_rounds", pa.array(history_rounds[count:]))
    execute_over(con, _POT_INSERT, {_POT_ROWS: rows})
    if games is not None:
        games.add(con, ids)
    if earlier is not None and count:
        _update_streaks(con, earlier, since_all[:count], history_rounds[:count])


def recount_streaks(con: duckdb.DuckDBPyConnection, game_ids: pa.Array) -> None:
    """Count the streak columns of the Rummoli games ``game_ids`` (None: the rounds without
    one) again over their rows left in ``pot_facts``: after some of their rounds left the
    warehouse (:mod:`analytics.warehouse.forget`)."""
    earlier = arrow_over(con, _POT_HISTORY, {_POT_GAMES: pa.table({"game_id": game_ids})})
    if earlier.num_rows:
        _update_streaks(con, earlier, *_pot_streaks(earlier.select(_STREAK_INPUTS)))


def _update_streaks(con: duckdb.DuckDBPyConnection, earlier: pa.Table,
                    since_all: npt.NDArray[np.int64], history_rounds: npt.NDArray[np.int64]
                    ) -> None:
    """Update the stored pot rows ``earlier`` whose streak columns are not the ones given."""
    changed = ((since_all != earlier["since_all"].to_numpy())
               | (history_rounds != earlier["history_rounds"].to_numpy()))
    if not changed.any():
        return
    at = pa.array(np.flatnonzero(changed))
    execute_over(con, _POT_UPDATE, {_POT_STREAKS: pa.table({
        "hand_id": earlier["hand_id"].take(at), "pot": earlier["pot"].take(at),
        "since_all": since_all[changed], "history_rounds": history_rounds[changed]})})


_STREAK_INPUTS: Final = ("game_id", "pot", "round", "won")  # what _pot_streaks reads


def with_streaks(rows: pa.Table) -> pa.Table:
    """Pot ``rows`` (:data:`POT_ROWS_SELECT`'s columns, whole games) with their streak
    columns, ``since_all`` and ``history_rounds`` (:func:`_pot_streaks`)."""
    since_all, history_rounds = _pot_streaks(pa.table(
        [rows["game_id"], rows["pot"], rows["round"], pc.is_valid(rows["won_by"])],
        names=list(_STREAK_INPUTS)))
    return rows.append_column("since_all", pa.array(since_all)).append_column(
        "history_rounds", pa.array(history_rounds))


def _pot_streaks(history: pa.Table
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``since_all`` and ``history_rounds`` of every row of ``history`` (whole games' pot
    rows: ``game_id``, ``pot``, ``round``, ``won``): the one definition of the streaks
    (tests/fact_oracle.py has them as SQL windows, the tests' oracle).

    In one (game, pot) ordered by round (nulls last), row i's streak is the number of wins
    before it and ``since_all`` the number of earlier rows with the same streak: i minus
    one minus the index of the last win before it, or i when there was none.
    """
    count = history.num_rows
    if count == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    game = _codes(history["game_id"])
    pot = _codes(history["pot"])
    rounds = history["round"]
    last = pc.max(rounds).as_py()
    order = np.lexsort((pc.fill_null(rounds, (last or 0) + 1).to_numpy(), pot, game))
    game, pot = game[order], pot[order]
    starts = np.flatnonzero(np.concatenate(
        ([True], (game[1:] != game[:-1]) | (pot[1:] != pot[:-1]))))
    sizes = np.diff(np.append(starts, count))
    index = np.arange(count)
    won = history["won"].to_numpy()[order]
    last_win = np.maximum.accumulate(np.where(won, index, -1))
    win_before = np.concatenate(([-1], last_win[:-1]))
    since = index - 1 - np.maximum(win_before, np.repeat(starts, sizes) - 1)
    since_all = np.empty(count, np.int64)
    history_rounds = np.empty(count, np.int64)
    since_all[order] = since
    history_rounds[order] = np.repeat(sizes, sizes)
    return since_all, history_rounds


def _codes(column: pa.ChunkedArray) -> npt.NDArray[np.int32]:
    """Equal values (nulls included) as equal integers."""
    encoded = pc.dictionary_encode(column.combine_chunks(), null_encoding="encode")
    return np.asarray(encoded.indices.to_numpy(), dtype=np.int32)


CHUNK_HANDS: Final = 100_000
"""Hands filled per statement: the aggregation of their actions must fit the writer's
memory limit (512 MB), which a million hands in one statement do not."""


def fill_batch_pots(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table],
                    games: PotGames | None = None) -> None:
    """Add the ``pot_facts`` rows of one batch of new hands, just inserted, whose seat and
    hand facts came with the batch (:mod:`analytics.warehouse.pipeline.fact_rows`): only the pots,
    which need the warehouse's history, are filled here.

    ``games``, the writer's record of which games have rows (kept across its batches),
    spares a batch of new games the query for their earlier rows; without it the query
    always runs."""
    hands = tables["hands"]
    if hands.num_rows == 0 or not pc.any(pc.equal(hands["game"], "rummoli")).as_py():
        return
    _fill_batch_pots(con, _batch(tables, _POT_SOURCES), games)


_POT_SOURCES: Final = ("hands", "seats", "board")  # what _BATCH_POTS reads


def _batch(tables: Mapping[str, pa.Table], names: tuple[str, ...]) -> dict[str, pa.Table]:
    """The batch's tables ``names`` under the names the statements read them by."""
    return {_BATCH_PREFIX + name: tables[name] for name in names}


def fill_missing(con: duckdb.DuckDBPyConnection) -> None:
    """Add the facts (seats, pots, hands, statistics) of every hand that has none (bulk
    loads)."""
    fill_missing_seats(con)
    fill_missing_hands(con)
    fill_missing_stats(con)


def fill_missing_stats(con: duckdb.DuckDBPyConnection) -> None:
    """Add the stat facts of every 7 & 8 and Rummoli hand that has none (migration 12's
    backfill, and :func:`fill_missing` for bulk loads): by game and runs of days of about
    :data:`STAT_CHUNK_HANDS` hands, so the table ends up ordered by day, each run's stored
    rows read as Arrow and made rows by ``stat_rows.fill_batch_stats``, the ingest's own."""
    for game, first, last in _day_chunks(_missing_days(con, _MISSING_STATS), STAT_CHUNK_HANDS):
        scope = {"game": game, "first": first, "last": last}
        fill_batch_stats(con, _stored_tables(con, _STATS_BY_DAYS, scope, _STAT_READS))


STAT_CHUNK_HANDS: Final = 10_000
"""Hands :func:`fill_missing_stats` fills at a time: their stored rows are read into the
writer's memory as Arrow (:data:`_STAT_READS`), with the summaries' numpy columns beside
them (a Rummoli round has some 40 actions): the backfill of 20,000 rounds raised the
writer's peak by 233 MiB."""
_MISSING_STATS: Final = ("h.game IN ('seveneight', 'rummoli') "
                         "AND h.hand_id NOT IN (SELECT hand_id FROM stat_facts)")
# A day's hands without rows: the anti-join reads only the rows of those days (the table is
# ordered by game and day, so its row groups' min/max skip the others).
_STATS_BY_DAYS: Final = f"""h.game = $game AND {DAY} BETWEEN $first AND $last
    AND h.hand_id NOT IN (SELECT hand_id FROM stat_facts x WHERE x.game = $game
                          AND x.day BETWEEN $first AND $last)"""
_STAT_READS: Final = {
    "seats": ("hand_id, seat, player, net, ante, blind, won, starting_stack", "TRUE"),
    "actions": ("hand_id, seq, actor, verb, cards, amount, target, street", "TRUE"),
    "allin_results": ("hand_id, seat, expected_net", "TRUE"),
    "awards": ("hand_id, pot, player, amount", "TRUE"),
}
"""What the statistics read of each stored table besides ``hands``: the columns their
summaries and rows use (a Rummoli round has some 100 actions, held in memory at once)."""


def fill_missing_hands(con: duckdb.DuckDBPyConnection) -> None:
    """Add the ``hand_facts`` row of every hand that has none (migration 7's backfill),
    made by :func:`~analytics.warehouse.pipeline.fact_rows.fact_tables` from the stored ``hands``
    and ``seats``, about :data:`CHUNK_HANDS` hands at a time by game and day."""
    for game, first, last in _day_chunks(_missing_days(con, _MISSING_HANDS), CHUNK_HANDS):
        scope = {"game": game, "first": first, "last": last}
        stored = _stored_tables(con, _HANDS_BY_DAYS, scope, {"seats": _SOURCE_READS["seats"]})
        _insert_rows(con, "hand_facts", fact_tables(stored, ("hand_facts",))["hand_facts"])


def fill_missing_seats(con: duckdb.DuckDBPyConnection) -> None:
    """Add the seat and pot facts of every hand that has none (migration 6's backfill).

    Goes through the missing hands by game and day, about :data:`CHUNK_HANDS` at a
    time, so the table ends up ordered by game and day as a whole: each chunk's stored
    rows are read as Arrow and made seat rows by
    :func:`~analytics.warehouse.pipeline.fact_rows.fact_tables`, the ingest's own function, and
    inserted with the columns the table has at this version (migration 6's table has no
    play kinds or passes yet: migrations 8 and 12 add and fill them).
    """
    for game, first, last in _day_chunks(_missing_days(con, _MISSING), CHUNK_HANDS):
        scope = {"game": game, "first": first, "last": last}
        con.execute(_POTS_DELETE_DAYS, scope)
        rows = con.sql(_POT_ROWS_DAYS, params=scope).to_arrow_table()
        if rows.num_rows:
            execute_over(con, _POT_INSERT, {_POT_ROWS: with_streaks(rows)})
        stored = _stored_tables(con, _BY_DAYS, scope, _SOURCE_READS)
        _insert_rows(con, "seat_facts", fact_tables(stored, ("seat_facts",))["seat_facts"])


def _missing_days(con: duckdb.DuckDBPyConnection, missing: str
                  ) -> list[tuple[str, dt.date, int]]:
    """The hands ``missing`` selects (a condition of this module on ``hands h``), counted
    by game and day, in that order."""
    rows = con.execute(f"""
        SELECT game, {DAY} AS day, count(*) AS hands
        FROM hands h WHERE {missing} GROUP BY ALL ORDER BY game, day
    """).fetchall()
    return [(str(game), day, int(count)) for game, day, count in rows]


_HANDS_BY_DAYS: Final = (f"h.game = $game AND {DAY} BETWEEN $first AND $last "
                         f"AND {_MISSING_HANDS}")

# What fact_tables reads of each stored table besides ``hands`` (whole rows: they are
# narrow): the columns, and a condition on the rows (``actions``: only the verbs it reads).
_SOURCE_READS: Final = {
    "seats": ("hand_id, seat, player, net, winner, place", "TRUE"),
    "actions": ("hand_id, seq, actor, verb, cards, target", "t.verb IN ('dh', 'up', 'pl', 'ps')"),
    "showdowns": ("hand_id, player, cards, category", "TRUE"),
    "allin_results": ("hand_id, seat, expected_net, actual_net, luck, std_error", "TRUE"),
    "awards": ("hand_id, pot, player, amount", "TRUE"),
}
_CHUNK_IDS: Final = _BATCH_PREFIX + "chunk_ids"
_ROWS: Final = _BATCH_PREFIX + "rows"


def _stored_tables(con: duckdb.DuckDBPyConnection, scope: str, params: Mapping[str, object],
                   reads: Mapping[str, tuple[str, str]]) -> dict[str, pa.Table]:
    """The stored rows of the hands ``scope`` selects (a condition of this module on
    ``hands h``) as Arrow: their ``hands`` rows and, for each table ``reads`` names (as
    :data:`_SOURCE_READS` does), the columns and rows it says of theirs."""
    hands = con.sql(f"SELECT * FROM hands h WHERE {scope}", params=params).to_arrow_table()
    ids = {_CHUNK_IDS: hands.select(["hand_id"])}
    tables = {"hands": hands}
    for name, (columns, condition) in reads.items():
        tables[name] = arrow_over(con, f"""
            SELECT {columns} FROM {name} t
            WHERE {condition} AND t.hand_id IN (SELECT hand_id FROM {_CHUNK_IDS})""", ids)
    return tables


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: pa.Table) -> None:
    """Insert fact ``rows`` into ``table`` (one of ``FACT_TABLES``), the columns it has at
    this version of the schema only."""
    if table not in FACT_TABLES:
        raise ValueError(f"not a fact table: {table!r}")
    found = con.execute("SELECT name FROM pragma_table_info($table)",
                        {"table": table}).fetchall()
    present = {row[0] for row in found}
    kept = rows.select([name for name in rows.column_names if name in present])
    execute_over(con, f"INSERT INTO {table} BY NAME SELECT * FROM {_ROWS}", {_ROWS: kept})


def _update_seat_facts(con: duckdb.DuckDBPyConnection, sets: str, view: str,
                      rows: pa.Table, counted: pa.Table) -> None:
    """Set ``sets`` (whitelisted column assignments from ``k``) on the seats of ``rows`` from
    ``counted``, one row per seat of ``rows`` in the same order (a backfill's batch)."""
    for name in ("seat", "hand_id"):
        counted = counted.add_column(0, name, rows[name])
    execute_over(con, f"UPDATE seat_facts x SET {sets} FROM {view} k "
                 "WHERE x.hand_id = k.hand_id AND x.seat = k.seat", {view: counted})


_KIND_ROWS: Final = _BATCH_PREFIX + "play_kinds"


def fill_missing_play_kinds(con: duckdb.DuckDBPyConnection) -> None:
    """Count the plays of every Big Two seat by kind where ``seat_facts`` has no counts yet
    (migration 8's backfill, after it added the columns): the seats' rules and plays go to
    Python in chunks of about :data:`CHUNK_HANDS` hands' seats, by game and day as the table
    is ordered, and their counts come back as an update joined on hand and seat."""
    days = con.execute(f"""
        SELECT 'bigtwo' AS game, x.day, count(*) AS seats FROM seat_facts x
        WHERE x.game = 'bigtwo' AND x.{_FIRST_KIND} IS NULL GROUP BY ALL ORDER BY x.day
    """).fetchall()
    sets = ", ".join(f"{column} = k.{column}" for column in PLAY_KIND_COLUMNS.values())
    for _, first, last in _day_chunks(days, CHUNK_HANDS):
        rows = con.sql(f"""
            SELECT x.hand_id, x.seat, x.game, x.rules, x.plays FROM seat_facts x
            WHERE x.game = 'bigtwo' AND x.day BETWEEN $first AND $last
              AND x.{_FIRST_KIND} IS NULL
        """, params={"first": first, "last": last}).to_arrow_table()
        counted = play_kinds(rows)
        if counted is None:
            continue
        _update_seat_facts(con, sets, _KIND_ROWS, rows, counted)


_FIRST_KIND: Final = next(iter(PLAY_KIND_COLUMNS.values()))


_PASS_ROWS: Final = _BATCH_PREFIX + "passes"


def fill_missing_passes(con: duckdb.DuckDBPyConnection) -> None:
    """Count the passes of every Big Two seat where ``seat_facts`` has none yet (migration
    12's backfill, after it added the columns), by runs of days of about
    :data:`CHUNK_HANDS` hands' seats: each chunk's games are replayed from ``actions``
    (:func:`pass_counts`) and the counts go back as an update joined on hand and seat."""
    days = con.execute(f"""
        SELECT 'bigtwo' AS game, x.day, count(*) AS seats FROM seat_facts x
        WHERE x.game = 'bigtwo' AND x.{PASS_COLUMNS[0]} IS NULL GROUP BY ALL ORDER BY x.day
    """).fetchall()
    sets = ", ".join(f"{column} = k.{column}" for column in PASS_COLUMNS)
    chunk = "x.game = 'bigtwo' AND x.day BETWEEN $first AND $last AND x.passes IS NULL"
    for _, first, last in _day_chunks(days, CHUNK_HANDS):
        span = {"first": first, "last": last}
        rows = con.sql(f"""
            SELECT x.hand_id, x.seat, x.game, x.rules, x.num_players FROM seat_facts x
            WHERE {chunk}""", params=span).to_arrow_table()
        acts = con.sql(f"""
            SELECT a.hand_id, a.seq, a.actor, a.verb, a.cards, a.target FROM actions a
            WHERE a.verb IN ('dh', 'pl', 'ps')
              AND a.hand_id IN (SELECT x.hand_id FROM seat_facts x WHERE {chunk})""",
                       params=span).to_arrow_table()
        counted = pass_counts(rows, acts)
        if counted is None:
            continue
        _update_seat_facts(con, sets, _PASS_ROWS, rows, counted)


PASSES_V12: Final = tuple(f"ALTER TABLE seat_facts ADD COLUMN {column} INTEGER"
                          for column in PASS_COLUMNS)
"""Migration 12: the :data:`PASS_COLUMNS` (NULL for the other games' seats)."""


def _day_chunks(days: list[tuple[str, dt.date, int]], hands: int
                ) -> Iterator[tuple[str, dt.date, dt.date]]:
    """Consecutive days of one game grouped into runs of about ``hands`` hands."""
    run: list[tuple[str, dt.date, int]] = []
    for day in days:
        if run and (day[0] != run[0][0] or sum(n for _, _, n in run) + day[2] > hands):
            yield run[0][0], run[0][1], run[-1][1]
            run = []
        run.append(day)
    if run:
        yield run[0][0], run[0][1], run[-1][1]
