"""The warehouse schema, created and migrated by code, never by hand.

Each migration is a numbered list of SQL statements applied in one transaction
together with its row in ``schema_version``, so a process killed during a
migration leaves the database at the previous version, and the next writer
simply applies it again (a new database takes all of them in one transaction).
Add a migration by appending to :data:`MIGRATIONS`; never edit one that has
shipped.  docs/schema.md explains every column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from analytics.equity.sampling import mean_std_error
from analytics.rules import replay
from analytics.warehouse.annotations import ANNOTATION_TABLES, restore_notes
from analytics.warehouse.errors import WarehouseSchemaError
from analytics.warehouse.identity import hand_id
from analytics.warehouse.pipeline.equities import add_equity_rows
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS
from analytics.warehouse.pipeline.stat_rows import POT_NETS_V12, STAT_FACTS_TABLE
from analytics.warehouse.rekey import loaded_hands, rekey_hands
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.facts import (
    HANDS_TABLE,
    HANDS_TABLE_V5,
    PASSES_V12,
    PLAY_KINDS_V8,
    POTS_TABLE,
    SEATS_TABLE,
    SEATS_TABLE_V4,
    fill_missing_hands,
    fill_missing_passes,
    fill_missing_play_kinds,
    fill_missing_seats,
    fill_missing_stats,
    recount_streaks,
)
from analytics.warehouse.sql.scores import RULES_WITH_THRESHOLD, SCORES_TABLE, fill_missing_scores
from analytics.warehouse.sql.views import GAMING_DAY_STARTS, SESSION, STAKES

__all__ = ["LAKE_FILES_SINCE", "LATEST_VERSION", "MIGRATIONS", "TABLES", "VIEWS", "Migration",
           "migrate", "schema_version"]


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema's history: statements, then an optional backfill of derived
    rows (code, for work too large for one statement), in the migration's transaction."""

    version: int
    description: str
    statements: tuple[str, ...]
    backfill: Callable[[duckdb.DuckDBPyConnection], None] | None = None


_TABLES_V1: Final = (
    """
    CREATE TABLE files (
        sha256      VARCHAR PRIMARY KEY,
        path        VARCHAR NOT NULL,
        size        BIGINT NOT NULL,
        status      VARCHAR NOT NULL,
        hands       INTEGER NOT NULL,
        loaded      INTEGER NOT NULL,
        duplicates  INTEGER NOT NULL,
        rejected    INTEGER NOT NULL,
        started_at  TIMESTAMP NOT NULL,
        finished_at TIMESTAMP NOT NULL,
        seconds     DOUBLE NOT NULL
    )
    """,
    """
    CREATE TABLE hands (
        hand_id       BIGINT NOT NULL,
        game          VARCHAR NOT NULL,
        variant       VARCHAR NOT NULL,
        rules         VARCHAR NOT NULL,
        min_bet       BIGINT,
        small_bet     BIGINT,
        big_bet       BIGINT,
        game_id       VARCHAR,
        round         INTEGER,
        hand_label    VARCHAR,
        table_name    VARCHAR,
        event         VARCHAR,
        played_on     DATE,
        played_time   TIME,
        time_zone     VARCHAR,
        currency      VARCHAR,
        num_players   SMALLINT NOT NULL,
        dealer        SMALLINT,
        winner        SMALLINT,
        num_actions   INTEGER NOT NULL,
        finale_pot    VARCHAR,
        source_file   VARCHAR NOT NULL,
        source_sha256 VARCHAR NOT NULL,
        source_line   INTEGER NOT NULL,
        source_index  INTEGER NOT NULL,
        loaded_at     TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE seats (
        hand_id         BIGINT NOT NULL,
        game            VARCHAR NOT NULL,
        seat            SMALLINT NOT NULL,
        player          VARCHAR NOT NULL,
        starting_stack  BIGINT,
        ante            BIGINT,
        blind           BIGINT,
        finishing_stack BIGINT,
        net             BIGINT NOT NULL,
        won             BIGINT NOT NULL,
        pots_won        SMALLINT NOT NULL,
        place           SMALLINT,
        winner          BOOLEAN NOT NULL
    )
    """,
    """
    CREATE TABLE actions (
        hand_id BIGINT NOT NULL,
        seq     INTEGER NOT NULL,
        actor   SMALLINT NOT NULL,
        verb    VARCHAR NOT NULL,
        cards   VARCHAR,
        amount  BIGINT,
        target  SMALLINT,
        pot     VARCHAR,
        street  VARCHAR NOT NULL,
        line    INTEGER,
        comment VARCHAR
    )
    """,
    """
    CREATE TABLE showdowns (
        hand_id  BIGINT NOT NULL,
        game     VARCHAR NOT NULL,
        player   SMALLINT NOT NULL,
        cards    VARCHAR NOT NULL,
        category VARCHAR NOT NULL,
        rank     BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE awards (
        hand_id BIGINT NOT NULL,
        pot     VARCHAR NOT NULL,
        player  SMALLINT NOT NULL,
        amount  BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE board (
        hand_id   BIGINT NOT NULL,
        pot       VARCHAR NOT NULL,
        pot_order TINYINT NOT NULL,
        before    BIGINT NOT NULL,
        antes     BIGINT NOT NULL,
        won_by    SMALLINT,
        amount    BIGINT NOT NULL,
        after     BIGINT
    )
    """,
    """
    CREATE TABLE rejects (
        sha256      VARCHAR NOT NULL,
        file        VARCHAR NOT NULL,
        hand_index  INTEGER NOT NULL,
        line        INTEGER,
        stage       VARCHAR NOT NULL,
        game        VARCHAR,
        error       VARCHAR NOT NULL,
        raw         VARCHAR NOT NULL,
        rejected_at TIMESTAMP NOT NULL,
        PRIMARY KEY (sha256, hand_index)
    )
    """,
)

# The views answer the dashboard's questions; queries.py filters and shapes them.
_VIEWS_V2: Final = (
    """
    CREATE OR REPLACE VIEW v_seat_results AS
    SELECT s.hand_id, s.game, h.variant, h.game_id, h.round, s.seat, s.player, s.net, s.won,
           s.pots_won, s.place, s.winner, coalesce(h.played_on, CAST(h.loaded_at AS DATE)) AS day
    FROM seats s JOIN hands h USING (hand_id)
    """,
    """
    CREATE OR REPLACE VIEW v_player_stats AS
    SELECT game, player, count(*) AS hands, count(*) FILTER (WHERE winner) AS wins,
           count(*) FILTER (WHERE winner) / count(*) AS win_rate,
           CAST(sum(net) AS BIGINT) AS net, avg(net) AS net_per_hand
    FROM seats
    GROUP BY game, player
    """,
    """
    CREATE OR REPLACE VIEW v_hands_by_day AS
    SELECT game, coalesce(played_on, CAST(loaded_at AS DATE)) AS day, count(*) AS hands
    FROM hands
    GROUP BY ALL
    """,
    """
    CREATE OR REPLACE VIEW v_hand_types AS
    SELECT game, category, count(*) AS hands_shown
    FROM showdowns
    GROUP BY ALL
    """,
    """
    CREATE OR REPLACE VIEW v_rummoli_board AS
    SELECT h.game_id, h.round, b.pot, b.pot_order, b.before, b.antes, b.amount, b.won_by,
           s.player AS won_by_player, b.after, b.hand_id
    FROM board b
    JOIN hands h USING (hand_id)
    LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
    """,
    """
    CREATE OR REPLACE VIEW v_rejects_summary AS
    SELECT file, stage, count(*) AS rejected, min(line) AS first_line,
           arg_min(error, hand_index) AS first_error
    FROM rejects
    GROUP BY file, stage
    """,
)

# Equities computed on ingest (analytics/warehouse/pipeline/equities.py), and their dashboard views.
# A database migrated from version 2 keeps its hands; their equity rows appear when they
# are loaded into a new database (the ingest skips files it already holds).
_EQUITY_V3: Final = (
    """
    CREATE TABLE allin_results (
        hand_id      BIGINT NOT NULL,
        seat         SMALLINT NOT NULL,
        player       VARCHAR NOT NULL,
        contributed  BIGINT NOT NULL,
        refund       BIGINT NOT NULL,
        equity       DOUBLE NOT NULL,
        expected_won DOUBLE NOT NULL,
        actual_won   BIGINT NOT NULL,
        expected_net DOUBLE NOT NULL,
        actual_net   BIGINT NOT NULL,
        luck         DOUBLE NOT NULL,
        std_error    DOUBLE NOT NULL,
        pot          BIGINT NOT NULL,
        pots         SMALLINT NOT NULL,
        exact        BOOLEAN NOT NULL,
        deals        BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE rummoli_strength (
        hand_id         BIGINT NOT NULL,
        seat            SMALLINT NOT NULL,
        player          VARCHAR NOT NULL,
        hand_size       SMALLINT NOT NULL,
        category        VARCHAR NOT NULL,
        p_best          DOUBLE NOT NULL,
        share           DOUBLE NOT NULL,
        p_win           DOUBLE NOT NULL,
        std_error       DOUBLE NOT NULL,
        share_std_error DOUBLE NOT NULL,
        exact           BOOLEAN NOT NULL,
        samples         BIGINT NOT NULL,
        realised_share  DOUBLE NOT NULL,
        won_poker_pot   BOOLEAN
    )
    """,
    """
    CREATE TABLE bigtwo_features (
        hand_id                  BIGINT NOT NULL,
        seat                     SMALLINT NOT NULL,
        player                   VARCHAR NOT NULL,
        cards                    SMALLINT NOT NULL,
        twos                     SMALLINT NOT NULL,
        aces                     SMALLINT NOT NULL,
        has_lead                 BOOLEAN NOT NULL,
        pairs                    SMALLINT NOT NULL,
        triples                  SMALLINT NOT NULL,
        five_card                INTEGER NOT NULL,
        distinct_five_card_ranks SMALLINT NOT NULL
    )
    """,
    # 7 & 8 result per seat, actual and all-in adjusted (the expected net where the hand
    # was all in with cards to come, else the actual net).
    """
    CREATE OR REPLACE VIEW v_allin_adjusted AS
    SELECT s.hand_id, s.seat, s.player, coalesce(h.played_on, CAST(h.loaded_at AS DATE)) AS day,
           h.played_time, h.source_index, s.net, coalesce(a.expected_net, s.net) AS adjusted_net,
           coalesce(a.luck, 0) AS luck, a.hand_id IS NOT NULL AS all_in
    FROM seats s JOIN hands h USING (hand_id)
    LEFT JOIN allin_results a ON a.hand_id = s.hand_id AND a.seat = s.seat
    WHERE s.game = 'seveneight'
    """,
    """
    CREATE OR REPLACE VIEW v_allin_player_totals AS
    SELECT player, count(*) AS all_in_hands, CAST(sum(actual_net) AS BIGINT) AS actual_net,
           sum(expected_net) AS expected_net, sum(luck) AS luck
    FROM allin_results
    GROUP BY player
    """,
    """
    CREATE OR REPLACE VIEW v_allin_cumulative AS
    SELECT player, hand_id, day,
           row_number() OVER w AS hand_no,
           CAST(sum(net) OVER w AS BIGINT) AS cumulative,
           sum(adjusted_net) OVER w AS cumulative_adjusted
    FROM v_allin_adjusted
    WINDOW w AS (PARTITION BY player ORDER BY day, played_time, source_index, hand_id
                 ROWS UNBOUNDED PRECEDING)
    """,
    """
    CREATE OR REPLACE VIEW v_rummoli_poker_share AS
    SELECT player, count(*) AS rounds, sum(share) AS expected_share,
           sum(realised_share) AS realised_share,
           count(*) FILTER (WHERE won_poker_pot) AS poker_pots_won,
           avg(p_best) AS mean_p_best, sqrt(sum(share_std_error * share_std_error))
               AS expected_share_std_error
    FROM rummoli_strength
    GROUP BY player
    """,
)

# The fact tables the dashboard's questions scan (analytics/warehouse/sql/facts.py); new files
# fill them as they commit.  Migration 4 used to backfill them for the hands a database
# already held; migration 6 recreates seat_facts and backfills both, so 4 no longer does
# (its backfill runs today's seat select, which no longer fits its frozen table, and a
# database is only read at the latest version, so an empty version-4 table is never read).
_FACTS_V4: Final = (SEATS_TABLE_V4, POTS_TABLE)

# seat_facts with the dealt hands' categories and the Rummoli award parts: dropped and
# created again, then backfilled with the seats and pot histories of every hand (the pot
# histories are deleted and inserted again per game, so they come out the same).
_SEAT_FACTS_V6: Final = ("DROP TABLE seat_facts", SEATS_TABLE)

# Migration 6's backfill fills its own table: without the play kind columns, which migration 8
# adds (columns, then an update of the Big Two seats: a database at version 7 keeps its
# rows, so the migration costs seconds, not the full backfill's minutes).

# hand_facts with each hand's players (the player filter tests them instead of semi-joining
# the seats): dropped and created again, then backfilled from hands and seats.  Migration 5
# used to backfill its table too; it no longer does, for the reason migration 4 does not
# (today's select has the players column its frozen table lacks), and 7 fills it anyway.
_HAND_FACTS_V7: Final = ("DROP TABLE hand_facts", HANDS_TABLE)


def _fill_v12(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 12's backfill: the Big Two passes, then every hand's stat facts missing
    (the Rummoli rows it deleted; every row for a database from before version 10, whose
    migration 10 now leaves the table empty: its fill writes today's columns)."""
    fill_missing_passes(con)
    fill_missing_stats(con)


def _fill_sampling_errors(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 15's backfill: the Monte Carlo Rummoli strengths whose samples all agreed
    were stored with a standard error of 0 ("0 ± 0"); each gets ``mean_std_error``'s, the
    one definition the ingest now uses (analytics/equity/sampling.py)."""
    rows = con.execute("""
        SELECT hand_id, seat, p_best, share, std_error, share_std_error, samples
        FROM rummoli_strength
        WHERE NOT exact AND samples > 1 AND (std_error = 0 OR share_std_error = 0)
    """).fetchall()
    if not rows:
        return
    hands, seats, errors, share_errors = [], [], [], []
    for hand, seat, p_best, share, error, share_error, samples in rows:
        hands.append(hand)
        seats.append(seat)
        errors.append(error or mean_std_error(p_best, p_best * (1 - p_best), samples))
        share_errors.append(share_error or mean_std_error(share, 0.0, samples))
    fixed = pa.table({"hand_id": pa.array(hands, pa.int64()),
                      "seat": pa.array(seats, pa.int16()),
                      "std_error": pa.array(errors, pa.float64()),
                      "share_std_error": pa.array(share_errors, pa.float64())})
    execute_over(con, """
        UPDATE rummoli_strength SET std_error = f.std_error,
                                    share_std_error = f.share_std_error
        FROM fixed f
        WHERE rummoli_strength.hand_id = f.hand_id AND rummoli_strength.seat = f.seat
    """, {"fixed": fixed})


def _refresh_allin_results(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 16's backfill: the all-in equities of every 7 & 8 hand that has them,
    computed again (a folded player's up card out of the deck now) from the hand's own
    text, its file read again as migration 13 reads it; then its seat and stat facts,
    which carry the adjusted results, made again.  A hand whose file cannot be read again
    keeps the rows it has."""
    files = con.execute("""
        SELECT f.path, f.sha256, list(h.hand_id), list(h.source_index)
        FROM files f JOIN hands h ON h.source_sha256 = f.sha256
        WHERE h.hand_id IN (SELECT hand_id FROM allin_results)
        GROUP BY ALL ORDER BY f.path
    """).fetchall()
    columns: dict[str, list[object]] = {name: [] for name in ARROW_SCHEMAS["allin_results"].names}
    redone: list[int] = []
    for path, sha256, ids, indexes in files:
        hands = loaded_hands(con, str(path), str(sha256))
        for key, index in zip(ids, indexes, strict=True):
            hand = hands.get(int(index))
            if hand is None or hand_id(hand) != key:
                continue
            add_equity_rows({"allin_results": columns}, int(key), hand, replay(hand))
            redone.append(int(key))
    if not redone:
        return
    done = pa.table({"hand_id": pa.array(redone, pa.int64())})
    rows = pa.table(columns, schema=ARROW_SCHEMAS["allin_results"])
    for table in ("allin_results", "seat_facts", "stat_facts"):  # identifiers: these only
        execute_over(con, f"DELETE FROM {table} WHERE hand_id IN (SELECT hand_id FROM done)",
                     {"done": done})
    execute_over(con, "INSERT INTO allin_results SELECT * FROM rows", {"rows": rows})
    fill_missing_seats(con)
    fill_missing_stats(con)


def _rekey_hands(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 13: every hand's IDENTITY_VERSION 2 id, from its file read again
    (``rekey.rekey_hands``: the ids in every table and in the notes file, the old ones
    kept in ``hand_id_map``)."""
    rekey_hands(con)


def _restore_notes(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 11's backfill: the notes kept beside the database file, when it is built
    again (``annotations.restore_notes``)."""
    restore_notes(con)


_FINALE_HANDS: Final = """
    SELECT h.hand_id, h.game_id, h.finale_pot,
           (list(a.player ORDER BY a.amount DESC, a.player))[1] AS winner
    FROM hands h LEFT JOIN awards a ON a.hand_id = h.hand_id AND a.pot = 'finale'
    WHERE h.game = 'rummoli' AND h.finale_pot IS NOT NULL
    GROUP BY h.hand_id, h.game_id, h.finale_pot
"""
"""Migration 17: each stored end-of-game round, its game and the pot it played for, and
the finale's winner as ``rows._finale_board`` names him (the largest share, the lower seat
of a tie)."""


def _finale_boards(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 17's backfill: the board rows of every stored end-of-game round made as the
    ingest now makes them (``rows._finale_board``): the pots it played for taken by the
    finale's winner (``amount``, ``won_by``), no antes, where they were stored as antes
    below zero with no winner; ``pot_facts`` the same, its games' streaks counted again."""
    finales = con.sql(_FINALE_HANDS).to_arrow_table()
    if finales.num_rows == 0:
        return
    execute_over(con, """
        UPDATE board SET antes = 0, amount = board.before - coalesce(board.after, 0),
               won_by = CASE WHEN board.before <> coalesce(board.after, 0) THEN f.winner END
        FROM finales f
        WHERE board.hand_id = f.hand_id AND (f.finale_pot = 'all' OR board.pot = f.finale_pot)
    """, {"finales": finales})
    execute_over(con, """
        UPDATE pot_facts SET antes = b.antes, amount = b.amount, won_by = b.won_by,
               won_by_player = s.player
        FROM board b LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        WHERE pot_facts.hand_id = b.hand_id AND pot_facts.pot = b.pot
          AND b.hand_id IN (SELECT hand_id FROM finales)
    """, {"finales": finales})
    recount_streaks(con, pc.unique(finales["game_id"]))


MIGRATIONS: Final = (
    Migration(1, "tables: files, hands, seats, actions, showdowns, awards, board, rejects",
              _TABLES_V1),
    Migration(2, "dashboard views", _VIEWS_V2),
    Migration(3, "equities on ingest: allin_results, rummoli_strength, bigtwo_features, "
                 "their views", _EQUITY_V3),
    Migration(4, "seat_facts, pot_facts: derived rows for the dashboard, backfilled", _FACTS_V4),
    Migration(5, "hand_facts: one derived row per hand (session, stakes), backfilled",
              (HANDS_TABLE_V5,)),
    Migration(6, "seat_facts v6: dealt hand categories and Rummoli award parts, backfilled",
              _SEAT_FACTS_V6, backfill=fill_missing_seats),
    Migration(7, "hand_facts v7: each hand's players, backfilled", _HAND_FACTS_V7,
              backfill=fill_missing_hands),
    Migration(8, "seat_facts: Big Two plays counted by kind, backfilled", PLAY_KINDS_V8,
              backfill=fill_missing_play_kinds),
    Migration(9, "bigtwo_scores: Big Two cards left, fries, real losses, zero-sum scores, "
                 "backfilled; fry_threshold in the Big Two rules",
              (*RULES_WITH_THRESHOLD, SCORES_TABLE), backfill=fill_missing_scores),
    Migration(10, "stat_facts: the 7 & 8 statistics' counts per seat", (STAT_FACTS_TABLE,)),
    Migration(11, "hand_notes, player_notes: tags and notes people keep", ANNOTATION_TABLES,
              backfill=_restore_notes),
    Migration(12, "seat_facts: Big Two passes holding a beating play; stat_facts: Rummoli "
                  "net by pot; both backfilled", (*PASSES_V12, *POT_NETS_V12),
              backfill=_fill_v12),
    Migration(13, "hand ids of IDENTITY_VERSION 2 (typed values), each hand re-keyed from "
                  "its file; the old ids in hand_id_map", (), backfill=_rekey_hands),
    Migration(14, "stat_facts: the 7 & 8 rows made again (a short big blind's post, walks "
                  "and equal blinds counted as the tracker now counts them)",
              ("DELETE FROM stat_facts WHERE game = 'seveneight'",),
              backfill=fill_missing_stats),
    Migration(15, "rummoli_strength: a Monte Carlo standard error where every sample "
                  "agreed (stored as 0)", (), backfill=_fill_sampling_errors),
    Migration(16, "allin_results: each 7 & 8 all-in equity again, a folded player's up "
                  "card out of the deck; its seat and stat facts again",
              (), backfill=_refresh_allin_results),
    Migration(17, "board, pot_facts: an end-of-game round's pots taken by its winner, not "
                  "antes below zero with no winner; its games' pot streaks again",
              (), backfill=_finale_boards),
    Migration(18, "stat_facts made again: 7 & 8's AFq over round 2, as trackers count it "
                  "after the flop; Rummoli's VPIP and Raise over rounds he acted in the "
                  "poker phase, its Rummoli pot to whoever emptied his hand (an ante of 0 "
                  "too)",
              ("DELETE FROM stat_facts",), backfill=fill_missing_stats),
    Migration(19, "hand_facts, seat_facts, stat_facts, pot_facts: the stakes label of a hand "
                  "with a declared currency ends in it (two currencies are two stakes)",
              tuple(f"UPDATE {table} SET stakes = {STAKES} FROM hands h "
                    f"WHERE {table}.hand_id = h.hand_id AND h.game <> 'bigtwo' "
                    "AND nullif(h.currency, '') IS NOT NULL"
                    for table in ("hand_facts", "seat_facts", "stat_facts", "pot_facts"))),
    Migration(20, "bigtwo_scores: a score keeper's line with two players at 0 cards won by "
                  "nobody (it counted a win for each)",
              ("UPDATE bigtwo_scores SET won = FALSE WHERE hand_id IN (SELECT hand_id FROM "
               "bigtwo_scores GROUP BY hand_id HAVING count(*) FILTER (WHERE won) > 1)",)),
    Migration(21, "seats, seat_facts: a hand nobody won (a Rummoli impasse, a score keeper's "
                  "line with no player at 0 cards) counted a win for each player ahead",
              tuple(f"UPDATE {table} SET winner = FALSE WHERE winner AND hand_id IN "
                    "(SELECT hand_id FROM hands WHERE winner IS NULL)"
                    for table in ("seats", "seat_facts"))),
    Migration(22, "hand_facts, seat_facts, stat_facts, pot_facts: a table's session is its "
                  "gaming day, 6:00 to 6:00 (a game past midnight was two sessions)",
              tuple(f"UPDATE {table} SET session = {SESSION} FROM hands h "
                    f"WHERE {table}.hand_id = h.hand_id AND h.game_id IS NULL "
                    f"AND h.played_time < TIME '{GAMING_DAY_STARTS}'"
                    for table in ("hand_facts", "seat_facts", "stat_facts", "pot_facts"))),
)
LATEST_VERSION: Final = MIGRATIONS[-1].version

LAKE_FILES_SINCE: Final = 13
"""The oldest schema version whose lake files this handlab reads and writes beside its
own: the migrations after it add no column and re-key nothing, they only count derived
numbers again (7 & 8's statistics, a Monte Carlo error, all-in equities, an end-of-game
round's board rows, every statistic's chances; a currency in a stakes label; no winner of a
hand nobody won; a session's gaming day), which a lake's
files keep as they were written until the lake is built again from its inputs (a lake's
files are never rewritten in place).  A migration that changes a table or the ids moves
it to its own version."""

TABLES: Final = ("files", "hands", "seats", "actions", "showdowns", "awards", "board", "rejects",
                  "allin_results", "rummoli_strength", "bigtwo_features", "seat_facts",
                  "pot_facts", "hand_facts", "bigtwo_scores", "stat_facts")
"""Every table the ingest writes, in the order it writes them."""

VIEWS: Final = ("v_seat_results", "v_player_stats", "v_hands_by_day", "v_hand_types",
                "v_rummoli_board", "v_rejects_summary", "v_allin_adjusted",
                "v_allin_player_totals", "v_allin_cumulative", "v_rummoli_poker_share")

_VERSION_TABLE: Final = """
    CREATE TABLE IF NOT EXISTS schema_version (
        version     INTEGER PRIMARY KEY,
        description VARCHAR NOT NULL,
        applied_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
    )
"""


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The version the database is at: 0 for an empty database."""
    # fetchall, not fetchone: DuckDB refuses some calls while a result is unfinished.
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchall()
    if found[0][0] == 0:
        return 0
    rows = con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()
    return int(rows[0][0])


def migrate(con: duckdb.DuckDBPyConnection, target: int = LATEST_VERSION, *,
            current: int | None = None) -> list[int]:
    """Bring the schema up to ``target``; return the versions applied (empty when current).
    ``current``: the version the caller read on this connection, if it did (looking it up
    costs about 10 ms on a connection just opened).

    A database newer than this code is refused rather than written to, since an
    old writer could violate invariants it does not know about.
    """
    if current is None:
        current = schema_version(con)
    if current > LATEST_VERSION:
        raise WarehouseSchemaError(
            f"the database is at schema version {current}, newer than this handlab "
            f"({LATEST_VERSION}); upgrade handlab"
        )
    pending = [m for m in MIGRATIONS if current < m.version <= target]
    # A new database takes them all in one transaction (killed, it stays empty): one
    # commit's sync instead of twenty roughly halves creating one (~110 -> ~60 ms here).
    for together in ([pending] if current == 0 and pending else [[m] for m in pending]):
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(_VERSION_TABLE)
            for migration in together:
                for statement in migration.statements:
                    con.execute(statement)
                if migration.backfill is not None:
                    migration.backfill(con)
            versions = pa.table({"version": [m.version for m in together],
                                 "description": [m.description for m in together]})
            execute_over(con, "INSERT INTO schema_version (version, description) "
                              "SELECT version, description FROM versions",
                         {"versions": versions})
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return [m.version for m in pending]
