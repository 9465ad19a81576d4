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
* :func:`fill_missing_seats` by migration 6 (databases that existed before the table or
  hold it without the dealt categories and award parts; migration 4 did it before),
  :func:`fill_missing_hands` by migration 7 (``hand_facts``, one row per hand, with its
  players; migration 5 did it before), :func:`fill_missing_play_kinds` by migration 8
  (the Big Two plays counted by kind, in columns it adds), and
  :func:`fill_missing` (both) by anything that writes hands in bulk without the ingest
  (the dashboard benchmark's replicated rows).

Rows are inserted ordered by game and day, so DuckDB's per-row-group min/max
skip whole row groups when a question names a game or a date range.  The dealt
hands' categories and the Big Two plays' kinds come from the shared evaluator
(:func:`dealt_categories`, :func:`play_kinds`), the
Rummoli award parts from ``awards`` grouped as ``views.rummoli_split`` splits a result.
docs/schema.md explains every column; docs/warehouse.md when they are filled.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, Final

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from analytics.evaluator import EvaluationError, bigtwo_combo
from analytics.evaluator.bigtwo import BigTwoMaskKeys
from analytics.evaluator.categories import poker_labels, seveneight_labels
from analytics.rules.base import RuleError
from analytics.stats.bigtwo import game_passes
from analytics.warehouse.arrow_scan import arrow_over, execute_over
from analytics.warehouse.stat_facts import fill_missing_stats
from analytics.warehouse.views import (
    DAY,
    NO_COMBINATION,
    PLAY_KIND_COLUMNS,
    SESSION,
    SPLIT_COLUMNS,
    STAKES,
    split_condition,
)
from parsers.cards import CARD_OF_TEXT, CODE_OF_TEXT, Card
from parsers.knobs import (
    BIGTWO_KNOBS,
    RUMMOLI_KNOBS,
    BigTwoRules,
    Game,
    RummoliRules,
    SevenEightRules,
)
from parsers.model import Action, GameRules, Verb

__all__ = ["CHUNK_HANDS", "HANDS_TABLE", "HANDS_TABLE_V5", "HELD_POT_ROWS", "PASSES_V12",
           "PASS_COLUMNS", "PLAY_KINDS_V8",
           "POTS_SELECT", "POTS_TABLE", "SEATS_TABLE", "SEATS_TABLE_V4", "PotGames", "PotHold",
           "bigtwo_rules", "dealt_categories",
           "fill_batch", "fill_batch_pots", "fill_missing", "fill_missing_hands",
           "fill_missing_passes", "fill_missing_play_kinds", "fill_missing_seats", "fill_seats_v6",
           "pass_counts", "play_kind",
           "play_kinds", "rules_from_json"]

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

# A Rummoli seat's awards summed per part of views.SPLIT_PARTS (NULL: no award in the part,
# so rummoli_split lists exactly the parts the old join of awards found).
_WON: Final = ", ".join(f"sum(a.amount) FILTER (WHERE {split_condition(part)}) AS {column}"
                        for part, column in SPLIT_COLUMNS.items())

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

POTS_SELECT: Final = _POTS.format(DAY=DAY, SESSION=SESSION, STAKES=STAKES,
                                 games="g.game = 'rummoli'")
"""Every ``pot_facts`` row of the hands in ``hands``, ``board`` and ``seats``, streaks over each
game's whole history: the specification the ingest's incremental fill matches, which the
Parquet lake (:mod:`analytics.warehouse.lake_catalogue`) uses as its ``pot_facts`` view."""

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

# The hand's players: ``seats`` grouped by hand, in seat order (a hand without seats, which
# the engine never writes, gets an empty list).
_HANDS: Final = """
    WITH p AS (
        SELECT s.hand_id, list(s.player ORDER BY s.seat) AS players
        FROM {seats} s WHERE s.hand_id IN (SELECT h.hand_id FROM {hands} h WHERE {scope})
        GROUP BY s.hand_id)
    SELECT h.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, {DAY} AS day, h.num_players, coalesce(p.players, []) AS players
    FROM {hands} h LEFT JOIN p USING (hand_id) WHERE {scope}
    ORDER BY h.game, day, h.hand_id
"""
_FILL_BATCH_HANDS: Final = ("INSERT INTO hand_facts BY NAME " + _HANDS.format(
    STAKES=STAKES, SESSION=SESSION, DAY=DAY, hands=_BATCH_PREFIX_HANDS,
    seats=_BATCH_PREFIX + "seats", scope="TRUE"))
_FILL_MISSING_HANDS: Final = ("INSERT INTO hand_facts BY NAME " + _HANDS.format(
    STAKES=STAKES, SESSION=SESSION, DAY=DAY, hands="hands", seats="seats",
    scope="h.hand_id NOT IN (SELECT hand_id FROM hand_facts)"))

_MISSING: Final = "h.hand_id NOT IN (SELECT hand_id FROM seat_facts)"
_BY_DAYS: Final = (f"h.game = $game AND {DAY} BETWEEN $first AND $last "
                   f"AND {_MISSING}")


# The warehouse tables the seat facts are derived from; a batch's own Arrow tables stand in
# for them under these names prefixed with _BATCH_PREFIX.
_SOURCES: Final = ("hands", "seats", "actions", "showdowns", "allin_results", "awards")


def _fills(scope: str, *, source_prefix: str = "") -> tuple[str, ...]:
    """The statements that fill both tables for the hands ``scope`` selects: the pot
    histories of their games (deleted and inserted again), then the select of their seats
    (:func:`_insert_seats` adds the dealt categories and inserts them).  Pots first,
    since a scope of "hands without seat facts" selects nothing once the seats are in.
    The seats are read from ``source_prefix`` + each source table's name."""
    games = _GAMES.format(scope=scope)
    names = {"DAY": DAY, "SESSION": SESSION, "STAKES": STAKES, "scope": scope, "games": games}
    sources = {name: source_prefix + name for name in _SOURCES}
    return (_POTS_DELETE.format(games=games),
            f"INSERT INTO pot_facts BY NAME {_POTS.format(**names)}",
            _SEATS.format(**names, **sources, won=_WON))


_FILL_DAYS: Final = _fills(_BY_DAYS)
_FILL_BATCH_SEATS: Final = _fills("TRUE", source_prefix=_BATCH_PREFIX)[2]

# A batch's pots, incrementally (recomputing its games' whole histories with _POTS's windows
# was most of the writer's time per Rummoli round: DuckDB's windows over the wide rows cost
# ~10 us a row, and every batch of a long game paid for all its earlier rounds again).
# 1. The batch's own pot rows are selected from its own tables (as Arrow), and the earlier
#    rows of its games read from pot_facts (narrow: game, pot, round, won; no join with
#    hands, board or seats).
# 2. The streak columns of the games' whole histories, the earlier rows then the batch's in
#    the order they are inserted (the order of ties, as the rows were read back before), are
#    computed in numpy exactly as _POTS's windows define them: a game's rounds may come in
#    several files, in any order.
# 3. The batch's rows go in with their streak columns, and only the earlier rows whose
#    values changed are updated (none when the batch's games are new to the warehouse).
# pot_facts holds every board row the ingest loaded (fill_batch) or fill_missing filled;
# rows written in bulk without facts get their whole games recomputed by fill_missing.
_BATCH_POTS: Final = f"""
    SELECT b.hand_id, h.game, h.variant, h.rules, {STAKES} AS stakes, {SESSION} AS session,
           h.game_id, h.round, {DAY} AS day, b.pot, b.pot_order, b.before, b.antes, b.amount,
           b.won_by, s.player AS won_by_player, b.after
    FROM {_BATCH_PREFIX}board b JOIN {_BATCH_PREFIX}hands h USING (hand_id)
    LEFT JOIN {_BATCH_PREFIX}seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
    WHERE h.game = 'rummoli'
    ORDER BY h.game, day, h.game_id, h.round, b.pot_order
"""
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


HELD_POT_ROWS: Final = 100_000
"""At most this many pot rows of one game are held back (:class:`PotHold`): a file of
rounds without game ids (one game) or one very long game would otherwise be held whole."""


class PotHold:
    """One file's pot rows held back from ``pot_facts``: those of the game its last batch
    ended in, which the file's next batch may continue.

    The streak columns of a game cover its whole history, so a game whose rounds span two
    batches made the second one query the first one's rows from ``pot_facts`` and update
    them: of the ~45 ms of the writer's CPU that an extra Rummoli batch cost, the history
    query, the update and their numpy were 15-20 (the rest: every statement's own cost).  A
    file's batches come to the writer in order and commit together (a file is never split
    between transactions), so a game's rows can wait for the file's next batch: then its
    rows of both go in at once, with their final streaks, and only games spanning files
    (or already in the warehouse) take the query and the update.  Whatever is held back is
    right to write at any time: a held game that appears again later, or in another file,
    only costs that query, as a game of an earlier batch does.

    The writer keeps one per file being loaded, passes it to every batch of the file
    (:func:`fill_batch_pots`), sets :attr:`last` before the file's last batch (whose rows
    then go in with the held ones, nothing held) and :meth:`flush` es it before the file's
    ``files`` row (a file whose last result has no batch); a file rolled back drops it
    (:meth:`clear`).
    """

    def __init__(self) -> None:
        self._rows: pa.Table | None = None
        self.last = False  # the next batch is the file's last: hold nothing back

    @property
    def rows(self) -> int:
        """How many pot rows are held."""
        return 0 if self._rows is None else self._rows.num_rows

    def hold_back(self, rows: pa.Table, open_game: tuple[bool, str | None]) -> pa.Table:
        """The held rows and a batch's ``rows`` (its pot rows, in their insert order), less
        those of ``open_game`` (whether the batch has a Rummoli hand, and the game id of its
        last one), which are held instead (unless there are too many): what to write now."""
        if self._rows is not None and self._rows.num_rows:
            rows = pa.concat_tables([self._rows, rows], promote_options="default")
        self._rows = None
        has_open, game_id = open_game
        if self.last or not has_open or rows.num_rows == 0:
            return rows
        ids = rows["game_id"]
        keep = (pc.is_null(ids) if game_id is None
                else pc.fill_null(pc.equal(ids, pa.scalar(game_id, ids.type)), False))
        held = rows.filter(keep)
        if held.num_rows == 0 or held.num_rows > HELD_POT_ROWS:
            return rows
        self._rows = held
        return rows.filter(pc.invert(keep))

    def flush(self, con: duckdb.DuckDBPyConnection, games: PotGames | None) -> None:
        """Write the held rows (the file's last batch is loaded)."""
        rows, self._rows = self._rows, None
        if rows is not None:
            _write_pots(con, rows, games)

    def clear(self) -> None:
        """Drop the held rows (the file's transaction rolled back)."""
        self._rows = None


def _open_game(hands: pa.Table) -> tuple[bool, str | None]:
    """Whether ``hands`` has a Rummoli hand, and the game id of its last one (in the file's
    order): the game the file's next batch may continue."""
    rummoli = np.flatnonzero(pc.fill_null(pc.equal(hands["game"], "rummoli"), False)
                             .to_numpy(zero_copy_only=False))
    if not len(rummoli):
        return False, None
    return True, hands["game_id"][int(rummoli[-1])].as_py()


def _fill_batch_pots(con: duckdb.DuckDBPyConnection, batch: Mapping[str, pa.Table],
                     games: PotGames | None, hold: PotHold | None = None) -> None:
    """Add the batch's ``board`` rows to ``pot_facts`` and bring its games' streak columns
    up to date (``batch``: its tables by their names in the statements; ``games``: which
    games have rows, if known; ``hold``: the file's held rows, if they may wait)."""
    rows = arrow_over(con, _BATCH_POTS, batch)
    if hold is not None:
        rows = hold.hold_back(rows, _open_game(batch[_BATCH_PREFIX_HANDS]))
    _write_pots(con, rows, games)


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
    if earlier is None or not count:
        return
    since_all, history_rounds = since_all[:count], history_rounds[:count]
    changed = ((since_all != earlier["since_all"].to_numpy())
               | (history_rounds != earlier["history_rounds"].to_numpy()))
    if not changed.any():
        return
    at = pa.array(np.flatnonzero(changed))
    execute_over(con, _POT_UPDATE, {_POT_STREAKS: pa.table({
        "hand_id": earlier["hand_id"].take(at), "pot": earlier["pot"].take(at),
        "since_all": since_all[changed], "history_rounds": history_rounds[changed]})})


_STREAK_INPUTS: Final = ("game_id", "pot", "round", "won")  # what _pot_streaks reads


def _pot_streaks(history: pa.Table
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``since_all`` and ``history_rounds`` of every row of ``history`` (whole games' pot
    rows: ``game_id``, ``pot``, ``round``, ``won``), as _POTS's windows define them.

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


def fill_batch(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table],
               games: PotGames | None = None, hold: PotHold | None = None) -> None:
    """Add the facts of one batch of new hands, just inserted (inside the file's transaction).

    ``tables`` are the rows the loader has just inserted, by warehouse table.  The seat
    facts are derived from them, not from the warehouse tables, so a batch costs what
    its own hands cost however large the warehouse has grown (scanning ``actions`` for a
    file's hands took about a second per file at a million hands).  The pot histories of
    the batch's Rummoli games are brought up to date from ``pot_facts`` itself (``games``,
    ``hold``: see :func:`fill_batch_pots`).
    """
    hands = tables["hands"]
    if hands.num_rows == 0:
        return
    batch = _batch(tables, (*_SOURCES, "board"))
    if pc.any(pc.equal(hands["game"], "rummoli")).as_py():
        _fill_batch_pots(con, batch, games, hold)
    _insert_seats(con, _FILL_BATCH_SEATS, tables=batch, actions=_BATCH_PREFIX + "actions")
    execute_over(con, _FILL_BATCH_HANDS, batch)


def fill_batch_pots(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table],
                    games: PotGames | None = None, hold: PotHold | None = None) -> None:
    """Add the ``pot_facts`` rows of one batch of new hands, just inserted, whose seat and
    hand facts came with the batch (:mod:`analytics.warehouse.fact_rows`): only the pots,
    which need the warehouse's history, are filled here, as :func:`fill_batch` fills them.

    ``games``, the writer's record of which games have rows (kept across its batches),
    spares a batch of new games the query for their earlier rows; without it the query
    always runs.  ``hold``: the file's :class:`PotHold`, which keeps back the rows of the
    game the batch ends in until the file's next batch or its :meth:`~PotHold.flush`;
    without it the batch's rows are all written now."""
    hands = tables["hands"]
    if hands.num_rows == 0 or not pc.any(pc.equal(hands["game"], "rummoli")).as_py():
        return
    _fill_batch_pots(con, _batch(tables, _POT_SOURCES), games, hold)


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


def fill_missing_hands(con: duckdb.DuckDBPyConnection) -> None:
    """Add the ``hand_facts`` row of every hand that has none (migration 7's backfill).

    One statement: the rows are narrow (a few players each), a million fit the writer's
    memory limit.
    """
    con.execute(_FILL_MISSING_HANDS)


def fill_missing_seats(con: duckdb.DuckDBPyConnection, *, kinds: bool = True) -> None:
    """Add the seat and pot facts of every hand that has none (migration 6's backfill,
    which runs without ``kinds``: its table has no play kind columns until migration 8).

    Goes through the missing hands by game and day, about :data:`CHUNK_HANDS` at a
    time, so the table ends up ordered by game and day as a whole.
    """
    days = con.execute(f"""
        SELECT game, {DAY} AS day, count(*) AS hands
        FROM hands h WHERE {_MISSING} GROUP BY ALL ORDER BY game, day
    """).fetchall()
    *pots, seats = _FILL_DAYS
    for game, first, last in _day_chunks(days):
        chunk = {"game": game, "first": first, "last": last}
        for statement in pots:
            con.execute(statement, chunk)
        _insert_seats(con, seats, chunk, kinds=kinds)


def fill_seats_v6(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 6's backfill: :func:`fill_missing_seats` into its table (no play kinds)."""
    fill_missing_seats(con, kinds=False)


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
    for _, first, last in _day_chunks(days):
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


_SEAT_ROWS: Final = _BATCH_PREFIX + "seat_rows"
_SEAT_CATEGORIES: Final = _BATCH_PREFIX + "seat_categories"


def _insert_seats(con: duckdb.DuckDBPyConnection, select: str,
                  params: Mapping[str, object] | None = None, *, kinds: bool = True,
                  tables: Mapping[str, pa.Table] | None = None,
                  actions: str = "actions") -> None:
    """Run the seats ``select`` (reading ``tables`` by name, if any), add the dealt hands'
    categories and (with ``kinds``) the Big Two plays by kind and passes (from the table
    ``actions``), insert the rows (in the select's order: by game and day).

    The categories and kinds come from the shared evaluator, which SQL cannot call: the
    rows go to a temporary table, only the columns they are derived from travel to Python
    (as Arrow), and the labels come back as an Arrow table joined by position.  Fetching
    the whole rows as Arrow went over the writer's memory limit on a backfill chunk, and
    converting the wide rows cost the ingest's main process more.  Migration 6 fills its
    table, which has no kind columns yet, without ``kinds`` (migration 8 adds them; 12 the
    passes).
    """
    execute_over(con, f"CREATE OR REPLACE TEMPORARY TABLE {_SEAT_ROWS} AS {select}",
                 tables or {}, params)
    try:
        dealt = con.sql(f"SELECT game, dealt FROM {_SEAT_ROWS}").to_arrow_table()
        if dealt.num_rows == 0:
            return
        derived = dealt_categories(dealt)
        counted = play_kinds(con.sql(
            f"SELECT game, rules, plays FROM {_SEAT_ROWS}").to_arrow_table()) if kinds else None
        passes = _seat_passes(con, actions, tables or {}) if kinds else None
        for more in (counted, passes):
            if more is not None:
                for name in more.column_names:
                    derived = derived.append_column(name, more[name])
        execute_over(con, f"INSERT INTO seat_facts BY NAME SELECT * FROM {_SEAT_ROWS} "
                     f"POSITIONAL JOIN {_SEAT_CATEGORIES}", {_SEAT_CATEGORIES: derived})
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_SEAT_ROWS}")


def _seat_passes(con: duckdb.DuckDBPyConnection, actions: str,
                 tables: Mapping[str, pa.Table]) -> pa.Table | None:
    """:func:`pass_counts` of the rows in the seat rows' temporary table, from ``actions``
    (a warehouse table or one of ``tables``: a name of this module, never a user's)."""
    rows = con.sql(f"SELECT hand_id, seat, game, rules, num_players "
                   f"FROM {_SEAT_ROWS}").to_arrow_table()
    if not pc.any(pc.equal(rows["game"], "bigtwo")).as_py():
        return None
    acts = arrow_over(con, f"""
        SELECT a.hand_id, a.seq, a.actor, a.verb, a.cards, a.target FROM {actions} a
        WHERE a.verb IN ('dh', 'pl', 'ps')
          AND a.hand_id IN (SELECT hand_id FROM {_SEAT_ROWS} WHERE game = 'bigtwo')""",
                      tables)
    return pass_counts(rows, acts)


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
    for _, first, last in _day_chunks(days):
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


def rules_from_json(game: Game | str, text: str | None) -> GameRules:
    """The rule set of ``game`` from the warehouse's JSON of knobs (missing knobs: defaults)."""
    values: dict[str, Any] = json.loads(text) if text else {}
    game = Game(game)
    if game is Game.SEVENEIGHT:
        return SevenEightRules()
    kinds: dict[str, Any] = dict(RUMMOLI_KNOBS if game is Game.RUMMOLI else BIGTWO_KNOBS)
    # The JSON holds enum values as text; the rule sets compare enum members.
    typed = {name: (kinds[name](value) if kinds[name] not in (int, str, bool) else value)
             for name, value in values.items() if name in kinds}
    return RummoliRules(**typed) if game is Game.RUMMOLI else BigTwoRules(**typed)


# A play's kind as the position of its column in views.PLAY_KIND_COLUMNS.
_KIND_CODES: Final = {label: number for number, label in enumerate(PLAY_KIND_COLUMNS)}
_KIND_LABELS: Final = tuple(PLAY_KIND_COLUMNS)
_KINDS: Final = len(_KIND_CODES)
_NO_KIND: Final = _KIND_CODES[NO_COMBINATION]


@lru_cache(maxsize=64)
def bigtwo_rules(knobs: str | None) -> BigTwoRules:
    """The Big Two rule set of the warehouse's JSON of knobs, enums typed (the evaluator
    compares enum members, so ``"sg_hk"`` as plain text would not count 2-6 and A-5 as
    runs); cached: a warehouse holds a handful of rule sets."""
    rules = rules_from_json(Game.BIGTWO, knobs)
    assert isinstance(rules, BigTwoRules)
    return rules


@lru_cache(maxsize=64)
def _mask_keys(knobs: str | None) -> BigTwoMaskKeys:
    return BigTwoMaskKeys(bigtwo_rules(knobs))


def play_kind(cards: str | None, knobs: str | None) -> str:
    """The kind of one Big Two play (``single`` ... ``straight_flush``, the
    :class:`~analytics.evaluator.BigTwoKind` label) under the warehouse's JSON of knobs
    ``knobs``; ``views.NO_COMBINATION`` for cards that make no combination under them.

    Never raises on a stored play: a NULL, an unknown (``??``) or repeated card, or a text
    that is no cards at all counts as no combination too (the engine stores none of them,
    but a page or a migration must not stop at one odd row).
    """
    return _KIND_LABELS[_play_kind(cards, knobs)]


@lru_cache(maxsize=65_536)
def _play_kind(cards: str | None, knobs: str | None) -> int:
    """:func:`play_kind` as the position of the kind in ``views.PLAY_KIND_COLUMNS``; cached:
    the same few hundred plays come up again and again.

    A text in the writer's form (every stored play) is read to a card mask and classified
    by the mask (``BigTwoMaskKeys``, a few microseconds; ``bigtwo_combo`` took some twenty,
    a cost every new play paid in every worker); any other text goes to ``bigtwo_combo``,
    which reads the other notations ``parse_cards`` knows, so the kinds are its kinds.
    """
    if cards is None:
        return _NO_KIND
    mask = 0
    if not len(cards) & 1:
        code_of = CODE_OF_TEXT  # the writer's texts (format_cards): two characters a card
        for at in range(0, len(cards), 2):
            code = code_of.get(cards[at:at + 2])
            if code is None:
                mask = -1  # another notation, ??, or no card: the evaluator decides
                break
            bit = 1 << code
            if mask & bit:
                return _NO_KIND  # a card twice
            mask |= bit
    else:
        mask = -1
    if mask >= 0:
        kind = _mask_keys(knobs).kind(mask)
        return _NO_KIND if kind is None else _KIND_CODES[kind.label]
    try:
        combo = bigtwo_combo(cards, bigtwo_rules(knobs))
    except EvaluationError:  # unknown or repeated cards, or no cards at all
        return _NO_KIND
    return _NO_KIND if combo is None else _KIND_CODES[combo.kind.label]


# play_kinds classifies every (rule set, text) pair of the batch's dictionaries when there are
# at most this many per play (plus the slack), else only the pairs that occur (np.unique).
_LOOKUP_FACTOR: Final = 4
_LOOKUP_SLACK: Final = 1024


def play_kinds(rows: pa.Table) -> pa.Table | None:
    """The Big Two plays of seat rows (``game``, ``rules``, ``plays``) counted per kind, one
    row each: the columns of ``views.PLAY_KIND_COLUMNS`` (0 where a Big Two seat played
    none of a kind, NULL for the other games); None when no row is a Big Two seat (the
    insert then leaves the columns NULL).

    Each distinct play under each rule set is classified once (:func:`play_kind`): the
    plays and rule sets are dictionary-encoded, and the codes of the distinct pairs counted
    per seat.
    """
    at = _bigtwo_rows(rows)
    if at is None:
        return None
    taken = pa.array(at, type=pa.int64())
    plays = rows["plays"].combine_chunks().take(taken)
    counts = pc.fill_null(pc.list_value_length(plays), 0).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(len(at), dtype=np.int64), counts)
    texts = pc.dictionary_encode(pc.list_flatten(plays))
    knobs = pc.dictionary_encode(rows["rules"].combine_chunks().take(taken))
    text_codes = pc.fill_null(texts.indices, -1).to_numpy(zero_copy_only=False)
    knob_codes = pc.fill_null(knobs.indices, -1).to_numpy(zero_copy_only=False)
    # A pair's number: (rule set + 1) * width + text + 1 (0: a NULL, as dictionary codes -1).
    width = len(texts.dictionary) + 1
    pair = (knob_codes[owner] + 1) * width + text_codes + 1
    text_of = [None, *texts.dictionary.to_pylist()]
    knobs_of = [None, *knobs.dictionary.to_pylist()]
    if len(knobs_of) * width <= _LOOKUP_FACTOR * len(pair) + _LOOKUP_SLACK:
        # Few rule sets (a batch has one or two): every pair's kind, looked up by number.
        # The NULL rule set's row only when a seat has no rules (a Big Two hand always has
        # them): else it would classify every play a second time, under the default rules.
        null_rules = bool((knob_codes < 0).any())
        kind = np.array([_play_kind(text, rules) if number or null_rules else _NO_KIND
                         for number, rules in enumerate(knobs_of) for text in text_of],
                        dtype=np.int64)[pair]
    else:  # many: only the pairs that occur
        pairs, inverse = np.unique(pair, return_inverse=True)
        kind = np.array([_play_kind(text_of[number % width], knobs_of[number // width])
                         for number in pairs.tolist()], dtype=np.int64)[inverse.reshape(-1)]
    per_seat = np.bincount(owner * _KINDS + kind,
                           minlength=len(at) * _KINDS).reshape(len(at), _KINDS)
    columns = {}
    for number, column in enumerate(PLAY_KIND_COLUMNS.values()):
        values = np.zeros(rows.num_rows, dtype=np.int32)
        values[at] = per_seat[:, number]
        mask = np.ones(rows.num_rows, dtype=np.bool_)
        mask[at] = False
        columns[column] = pa.array(values, type=pa.int32(), mask=mask)
    return pa.table(columns)


def _bigtwo_rows(rows: pa.Table) -> npt.NDArray[np.int64] | None:
    """The positions of the Big Two seats among seat rows (``game``); None when there are
    none."""
    game = rows["game"].combine_chunks()
    at = np.flatnonzero(pc.fill_null(pc.equal(game, "bigtwo"), False)
                        .to_numpy(zero_copy_only=False))
    return at if len(at) else None


PASS_COLUMNS: Final = ("passes", "passes_with_play")
"""A Big Two seat's passes and those made holding a play that beats the trick
(:mod:`analytics.stats.bigtwo`; migration 12's columns of ``seat_facts``)."""

PASSES_V12: Final = tuple(f"ALTER TABLE seat_facts ADD COLUMN {column} INTEGER"
                          for column in PASS_COLUMNS)
"""Migration 12: the :data:`PASS_COLUMNS` (NULL for the other games' seats)."""

_PASS_VERBS: Final = {"dh": Verb.DEAL_HOLE, "pl": Verb.PLAY, "ps": Verb.PASS}


def pass_counts(rows: pa.Table, actions: pa.Table) -> pa.Table | None:
    """The :data:`PASS_COLUMNS` of seat rows (``hand_id``, ``seat``, ``game``, ``rules``,
    ``num_players``), one row each, from their hands' ``actions`` (``hand_id``, ``seq``,
    ``actor``, ``verb``, ``cards``, ``target``; other hands' rows are ignored): each Big
    Two game replayed by the rules engine (:func:`analytics.stats.bigtwo.game_passes`); 0
    for a seat that never passed (an outcome-only game has no actions), NULL for the other
    games and for a game the engine refuses (a stored game never is refused).  None when
    no row is a Big Two seat (the insert then leaves the columns NULL)."""
    at = _bigtwo_rows(rows)
    if at is None:
        return None
    taken = pa.array(at, type=pa.int64())
    hand_ids = rows["hand_id"].combine_chunks().take(taken).to_pylist()
    games = dict(zip(hand_ids, zip(rows["rules"].combine_chunks().take(taken).to_pylist(),
                                   rows["num_players"].combine_chunks().take(taken)
                                   .to_pylist(), strict=True), strict=True))
    keep = pc.and_(pc.is_in(actions["hand_id"], value_set=pa.array(list(games), pa.int64())),
                   pc.is_in(actions["verb"], value_set=pa.array(list(_PASS_VERBS))))
    acts = actions.filter(keep).sort_by([("hand_id", "ascending"), ("seq", "ascending")])
    by_hand: dict[int, list[Action]] = {hand: [] for hand in games}
    # A batch repeats the same singles and pairs and every player's passes: each action
    # made once (a third of the time went to reading cards and making actions).
    made: dict[tuple[int, str, str | None, int | None], Action] = {}
    for hand, actor, verb, cards, target in zip(
            *(acts[name].to_pylist() for name in ("hand_id", "actor", "verb", "cards",
                                                  "target")), strict=True):
        key = (actor, verb, cards, target)
        action = made.get(key)
        if action is None:
            action = made[key] = Action(actor, _PASS_VERBS[verb], _cards(cards), target=target)
        by_hand[hand].append(action)
    counted: dict[int, list[tuple[int, int]] | None] = {}
    for hand, (knobs, players) in games.items():
        try:
            counted[hand] = game_passes(bigtwo_rules(knobs), players, by_hand[hand])
        except (RuleError, KeyError, ValueError):
            counted[hand] = None
    seats = rows["seat"].combine_chunks().take(taken).to_pylist()
    columns = {}
    for number, column in enumerate(PASS_COLUMNS):
        values: list[int | None] = [None] * rows.num_rows
        for row, hand, seat in zip(at.tolist(), hand_ids, seats, strict=True):
            found = counted[hand]
            if found is not None and 1 <= seat <= len(found):
                values[row] = found[seat - 1][number]
        columns[column] = pa.array(values, type=pa.int32())
    return pa.table(columns)


def _cards(text: str | None) -> tuple[Card, ...]:
    """The cards of a stored action's text (the writer's two characters a card)."""
    if not text:
        return ()
    card_of = CARD_OF_TEXT
    return tuple([card_of[text[at:at + 2]] for at in range(0, len(text), 2)])


def dealt_categories(rows: pa.Table) -> pa.Table:
    """The dealt hands' categories of seat rows (``game``, ``dealt``), one row each:
    ``dealt_two_category`` and ``dealt_three_category`` (7 & 8: the first two cards, all
    three when three were dealt) and ``dealt_poker_category`` (Rummoli: the best five of the
    hand).  Only hands whose every dealt card is known (no ``??``) are labelled."""
    dealt = rows["dealt"].combine_chunks()
    known = pc.fill_null(pc.invert(pc.match_substring(dealt, "??")), False)
    labels = {name: np.full(rows.num_rows, None, dtype=object) for name in _CATEGORY_COLUMNS}
    at, texts = _texts(rows["game"], dealt, known, "seveneight")
    if len(at):
        labels["dealt_two_category"][at] = seveneight_labels(
            pc.utf8_slice_codeunits(texts, 0, 4))
        three = pc.if_else(pc.equal(pc.utf8_length(texts), 6), texts,
                           pa.scalar(None, pa.string()))
        labels["dealt_three_category"][at] = seveneight_labels(three)
    at, texts = _texts(rows["game"], dealt, known, "rummoli")
    if len(at):
        # On this thread: the ingest's workers and writer must never start numba's pool.
        labels["dealt_poker_category"][at] = poker_labels(texts, parallel=False)
    return pa.table({name: pa.array(column, type=pa.string())
                     for name, column in labels.items()})


_CATEGORY_COLUMNS: Final = ("dealt_two_category", "dealt_three_category",
                            "dealt_poker_category")


def _texts(game: pa.ChunkedArray, dealt: pa.StringArray, known: pa.Array, name: str
           ) -> tuple[npt.NDArray[np.intp], pa.StringArray]:
    """The positions and dealt texts of game ``name``'s seats whose dealt cards are all
    known."""
    mask = pc.and_(pc.equal(game.combine_chunks(), name), known)
    at = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    return at, dealt.take(pa.array(at, type=pa.int64()))


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
