"""Big Two as a score keeper counts it: cards left, fries, real losses and zero-sum scores.

``bigtwo_scores`` holds one row per seat of every Big Two game whose scoring counts cards
(every scoring but ``rank``), outcome-only games (score sheets) and played ones alike:
the cards the player had left, whether he won (0 left) or was fried (``fry_threshold`` or
more left), whether he took on all losses, his real loss and his zero-sum score, all from
the rules engine's own functions (:func:`analytics.rules.bigtwo.engine.zero_sum_scores`), so the
numbers are the engine's whatever the game's own scoring.  The rows are made in the ingest's
worker beside the game's other rows (:func:`add_score_rows`) and filled for the games a
database held before (:func:`fill_missing_scores`, migration 9).

:func:`bigtwo_score_summary` is the score keeper's per-player summary (the columns of
yawnoc/big-two-scorer's ``.tsv``), for the dashboard, the reports and ``handlab stats``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

import duckdb
import pandas as pd
import pyarrow as pa

from analytics.rules.base import Outcome
from analytics.rules.bigtwo.engine import zero_sum_scores
from analytics.warehouse.sql.arrow_scan import execute_over
from analytics.warehouse.sql.views import HandFilter, facts_where
from parsers.model import HandHistory
from parsers.rule_options import BigTwoRules, BigTwoScoring

__all__ = [
    "RULES_WITH_THRESHOLD",
    "SCORES_SCHEMA",
    "SCORES_TABLE",
    "SUMMARY_COLUMNS",
    "add_score_rows",
    "bigtwo_score_summary",
    "fill_missing_scores",
    "outcome_only_games",
    "seats_per_game",
]

SCORES_SCHEMA: Final = pa.schema([
    ("hand_id", pa.int64()), ("seat", pa.int16()), ("player", pa.string()),
    ("cards_left", pa.int16()), ("won", pa.bool_()), ("fried", pa.bool_()),
    ("takes_all_losses", pa.bool_()), ("real_loss", pa.int32()), ("score", pa.int64()),
    ("outcome_only", pa.bool_()),
])
"""The ``bigtwo_scores`` columns and their Arrow types (docs/schema.md)."""

SCORES_TABLE: Final = """
    CREATE TABLE bigtwo_scores (
        hand_id          BIGINT NOT NULL,
        seat             SMALLINT NOT NULL,
        player           VARCHAR NOT NULL,
        cards_left       SMALLINT NOT NULL,
        won              BOOLEAN NOT NULL,
        fried            BOOLEAN NOT NULL,
        takes_all_losses BOOLEAN NOT NULL,
        real_loss        INTEGER NOT NULL,
        score            BIGINT NOT NULL,
        outcome_only     BOOLEAN NOT NULL
    )
"""

RULES_WITH_THRESHOLD: Final = tuple(
    f"UPDATE {table} SET rules = replace(rules, '\"lead_card\"', "
    f"'\"fry_threshold\": 10, \"lead_card\"') "
    f"WHERE game = 'bigtwo' AND NOT contains(rules, '\"fry_threshold\"')"
    for table in ("hands", "seat_facts", "hand_facts"))
"""Migration 9: the Big Two rule sets stored before the ``fry_threshold`` knob get it at its
default, in the text the ingest writes (``json.dumps`` with sorted keys: it goes just
before ``lead_card``), so every Big Two row's ``rules`` lists the same knobs."""

SUMMARY_COLUMNS: Final = ("name", "is_regular", "game_count", "win_count", "fry_count",
                          "real_losses", "net_score", "win_fraction", "fry_fraction",
                          "real_losses_per_game", "net_score_per_game")
"""The summary's columns, in the order of yawnoc/big-two-scorer's ``.tsv``."""

Columns = dict[str, list[object]]


def add_score_rows(columns: Columns, key: int, hand: HandHistory, outcome: Outcome,
                   names: Sequence[str]) -> None:
    """Append the ``bigtwo_scores`` rows of one replayed Big Two game (none under ``rank``
    scoring, where every player but the last goes out)."""
    rules = hand.rules
    left = outcome.extra.get("cards_left")
    if not isinstance(rules, BigTwoRules) or rules.scoring is BigTwoScoring.RANK or \
            not isinstance(left, tuple):
        return
    _append(columns, key, names, left, rules.fry_threshold, hand.takes_all_losses,
            hand.outcome_only)


def _append(columns: Columns, key: int, names: Sequence[str], left: Sequence[int],
            fry_threshold: int, taker: int | None, outcome_only: bool) -> None:
    losses, scores = zero_sum_scores(left, fry_threshold, taker)
    count = len(left)
    columns["hand_id"].extend([key] * count)
    columns["seat"].extend(range(1, count + 1))
    columns["player"].extend(names[:count])
    columns["cards_left"].extend(left)
    # A win is going out alone: a score keeper's line with no 0 or two (kept as recorded)
    # has no winner, as the results and the places count it.
    single = left.count(0) == 1
    columns["won"].extend([single and cards == 0 for cards in left])
    columns["fried"].extend([cards >= fry_threshold for cards in left])
    columns["takes_all_losses"].extend([seat == taker for seat in range(1, count + 1)])
    columns["real_loss"].extend(losses)
    columns["score"].extend(scores)
    columns["outcome_only"].extend([outcome_only] * count)


def fill_missing_scores(con: duckdb.DuckDBPyConnection) -> None:
    """Fill ``bigtwo_scores`` for the Big Two games held without rows (migration 9): played
    games, their cards left from ``seat_facts`` (dealt minus played) and their knobs from
    ``hands.rules`` (a database before version 9 holds no outcome-only game and no taker)."""
    rows = con.execute("""
        SELECT x.hand_id, list(x.player ORDER BY x.seat),
               list(x.cards_left ORDER BY x.seat), any_value(x.rules)
        FROM seat_facts x
        WHERE x.game = 'bigtwo'
          AND x.hand_id NOT IN (SELECT hand_id FROM bigtwo_scores)
        GROUP BY x.hand_id
        HAVING count(x.cards_left) = count(*)
    """).fetchall()
    columns: Columns = {name: [] for name in SCORES_SCHEMA.names}
    for hand_id, players, left, rules_json in rows:
        knobs = json.loads(rules_json or "{}")
        if knobs.get("scoring") == BigTwoScoring.RANK.value:
            continue
        threshold = int(knobs.get("fry_threshold", BigTwoRules().fry_threshold))
        _append(columns, hand_id, players, left, threshold, None, False)
    table = pa.Table.from_pydict(columns, schema=SCORES_SCHEMA)
    if table.num_rows:
        execute_over(con, "INSERT INTO bigtwo_scores BY NAME SELECT * FROM _handlab_scores",
                     {"_handlab_scores": table})


def bigtwo_score_summary(con: duckdb.DuckDBPyConnection, f: HandFilter | None = None
                         ) -> pd.DataFrame:
    """The score keeper's summary of the Big Two games the filter keeps (all by default):
    one row per player and a last row ``*`` for the table, with :data:`SUMMARY_COLUMNS`.

    ``game_count`` games played, ``win_count`` won (0 cards left), ``fry_count`` fried
    (``fry_threshold`` or more left), ``real_losses`` and ``net_score`` (zero-sum) summed;
    the fractions and per-game values are these over ``game_count``, rounded to 4
    decimals; ``is_regular``: at least a quarter of all the games the filter keeps, whichever
players it names (``*``: always).  Players
    come in order of real losses per game, fewest first (then by name).  Outcome-only
    games (score sheets) and played games count alike; ``rank``-scored games have no rows.
    """
    chosen = f or HandFilter()
    cond, params = facts_where(chosen, game="bigtwo")
    # Regular: against all the games the filter keeps, whoever it names.
    every, _ = facts_where(replace(chosen, players=()), game="bigtwo")
    sql = f"""
        WITH s AS (
            SELECT b.hand_id, b.player, b.won, b.fried, b.real_loss, b.score
            FROM bigtwo_scores b
            JOIN seat_facts x ON x.hand_id = b.hand_id AND x.seat = b.seat
            WHERE {cond}
        ), every AS (
            SELECT count(DISTINCT b.hand_id) AS games
            FROM bigtwo_scores b
            JOIN seat_facts x ON x.hand_id = b.hand_id AND x.seat = b.seat
            WHERE {every}
        ), per AS (
            SELECT player AS name, FALSE AS total, count(*) AS game_count,
                   count(*) FILTER (WHERE won) AS win_count,
                   count(*) FILTER (WHERE fried) AS fry_count,
                   CAST(sum(real_loss) AS BIGINT) AS real_losses,
                   CAST(sum(score) AS BIGINT) AS net_score
            FROM s GROUP BY player
            UNION ALL
            SELECT '*', TRUE, count(*), count(*) FILTER (WHERE won),
                   count(*) FILTER (WHERE fried), CAST(sum(real_loss) AS BIGINT),
                   CAST(sum(score) AS BIGINT)
            FROM s HAVING count(*) > 0
        )
        SELECT name,
               total OR game_count * 4 >= (SELECT games FROM every) AS is_regular,
               game_count, win_count, fry_count, real_losses, net_score,
               round(win_count / game_count, 4) AS win_fraction,
               round(fry_count / game_count, 4) AS fry_fraction,
               round(real_losses / game_count, 4) AS real_losses_per_game,
               round(net_score / game_count, 4) AS net_score_per_game
        FROM per
        ORDER BY total, real_losses / game_count, name
    """
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    return con.execute(sql, used).fetchdf()


def seats_per_game(con: duckdb.DuckDBPyConnection, f: HandFilter | None = None
                   ) -> float | None:
    """Players per Big Two game among the games the summary counts (4 at full tables): the
    n of the theoretical line s = n(l* - l) the dashboard draws; None without games."""
    cond, params = facts_where(f or HandFilter(), game="bigtwo")
    sql = f"""
        SELECT count(*) / count(DISTINCT b.hand_id) FROM bigtwo_scores b
        JOIN seat_facts x ON x.hand_id = b.hand_id AND x.seat = b.seat
        WHERE {cond}
    """
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    found = con.execute(sql, used).fetchall()[0][0]
    return None if found is None else float(found)


def outcome_only_games(con: duckdb.DuckDBPyConnection, f: HandFilter | None = None) -> int:
    """How many of the Big Two games the filter keeps are outcome-only (score sheets: no
    deal and no plays), for the statistics that need the plays to say what they leave out."""
    cond, params = facts_where(f or HandFilter(), game="bigtwo")
    sql = f"""
        SELECT count(DISTINCT b.hand_id) FROM bigtwo_scores b
        JOIN seat_facts x ON x.hand_id = b.hand_id AND x.seat = b.seat
        WHERE b.outcome_only AND {cond}
    """
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    return int(con.execute(sql, used).fetchall()[0][0])
