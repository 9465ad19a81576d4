"""The 7 & 8 seats' betting summary in SQL: the independent oracle that checks
:func:`analytics.warehouse.pipeline.stat_summary.seveneight_summary`.

The warehouse makes the summary once, in numpy and pyarrow, for the ingest and the
backfills alike.  This is the same definition as the one query over a batch's ``hands``,
``seats`` and ``actions`` that the ingest ran before (how the actions are read:
:mod:`analytics.stats.seveneight`); only the tests run it (tests/test_stat_summary.py),
column for column on the golden, simulated and sample histories and on generated hands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pyarrow as pa

from analytics.stats.seveneight import RANKS
from analytics.warehouse.sql.arrow_scan import arrow_over
from tests.fact_oracle import scratch

__all__ = ["SUMMARY", "oracle_summary"]

# {hands}, {seats}, {actions}: the tables read; {scope}: a condition on hands h.
# Output: hand_id, seat, position, up_rank, big_blind and SUMMARY_COLUMNS, for every seat
# of every 7 & 8 hand in scope.
SUMMARY: Final = """
    WITH h AS (SELECT h.hand_id, h.num_players, h.min_bet, h.small_bet
               FROM {hands} h WHERE h.game = 'seveneight' AND {scope}),
    s AS (SELECT s.hand_id, s.seat, coalesce(s.blind, 0) AS blind, s.won
          FROM {seats} s WHERE s.hand_id IN (SELECT hand_id FROM h)),
    big AS (SELECT hand_id, max(blind) AS big FROM s GROUP BY hand_id),
    bet AS (
        SELECT a.hand_id, a.seq, a.actor AS seat, a.verb, a.street,
               -- the raises before this action: the running count up to it, less its own
               -- (a frame that ends 1 PRECEDING costs DuckDB about twice as much)
               sum(CAST(a.verb = 'cbr' AS INTEGER)) OVER (
                   PARTITION BY a.hand_id, a.street ORDER BY a.seq ROWS UNBOUNDED PRECEDING)
                   - CAST(a.verb = 'cbr' AS INTEGER) AS raises_before
        FROM {actions} a
        WHERE a.street IN ('round1', 'round2') AND a.verb IN ('cbr', 'cc', 'f')
          AND a.hand_id IN (SELECT hand_id FROM h)),
    raisers AS (
        SELECT hand_id,
               arg_min(seat, seq) FILTER (WHERE street = 'round1' AND verb = 'cbr')
                   AS first_raiser,
               arg_max(seat, seq) FILTER (WHERE street = 'round1' AND verb = 'cbr')
                   AS last_raiser
        FROM bet GROUP BY hand_id),
    per AS (
        SELECT b.hand_id, b.seat,
               count(*) FILTER (WHERE b.street = 'round1' AND b.verb = 'cbr') AS r1_raises,
               count(*) FILTER (WHERE b.street = 'round1' AND b.verb = 'cc'
                                AND (b.raises_before > 0 OR s.blind < g.big)) AS r1_calls,
               count(*) FILTER (WHERE b.street = 'round1' AND b.verb = 'f') AS r1_folds,
               count(*) FILTER (WHERE b.street = 'round2' AND b.verb = 'cbr') AS r2_raises,
               count(*) FILTER (WHERE b.street = 'round2' AND b.verb = 'cc'
                                AND b.raises_before > 0) AS r2_calls,
               count(*) FILTER (WHERE b.street = 'round2' AND b.verb = 'f') AS r2_folds,
               arg_min(b.verb, b.seq) FILTER (WHERE b.street = 'round1'
                                              AND b.raises_before = 1) AS facing_one_raise,
               arg_min(b.verb, b.seq) FILTER (WHERE b.street = 'round1'
                                              AND b.raises_before = 2) AS facing_two_raises,
               arg_min(b.verb, b.seq) FILTER (WHERE b.street = 'round2') AS first_r2_verb,
               arg_min(b.raises_before, b.seq) FILTER (WHERE b.street = 'round2')
                   AS first_r2_facing,
               arg_min(b.verb, b.seq) FILTER (WHERE b.street = 'round2'
                                              AND b.raises_before = 1) AS facing_one_bet
        FROM bet b JOIN s USING (hand_id, seat) JOIN big g USING (hand_id)
        GROUP BY ALL),
    cbets AS (
        SELECT p.hand_id, p.seat AS cbettor
        FROM per p JOIN raisers r ON r.hand_id = p.hand_id AND r.last_raiser = p.seat
        WHERE p.first_r2_verb = 'cbr' AND p.first_r2_facing = 0),
    cards AS (
        SELECT a.hand_id, CASE WHEN a.verb = 'dh' THEN a.target ELSE a.actor END AS seat,
               count(*) FILTER (WHERE a.verb = 'dh' AND a.street = 'third') > 0 AS saw_round2,
               count(*) FILTER (WHERE a.verb = 'sm') > 0 AS showdown,
               string_agg(a.cards, '' ORDER BY a.seq)
                   FILTER (WHERE a.verb = 'dh' AND a.street = 'deal') AS two,
               any_value(a.cards) FILTER (WHERE a.verb = 'up') AS up_card
        FROM {actions} a
        WHERE a.verb IN ('dh', 'up', 'sm') AND a.hand_id IN (SELECT hand_id FROM h)
        GROUP BY ALL),
    fixed AS (
        SELECT s.hand_id, s.seat,
               CASE WHEN g.big > 0 AND s.blind = g.big THEN 'big blind'
                    WHEN s.blind > 0 THEN 'small blind'
                    WHEN s.seat = h.num_players THEN 'button' END AS fixed
        FROM s JOIN big g USING (hand_id) JOIN h USING (hand_id)),
    middle AS (
        SELECT hand_id, seat,
               CASE WHEN row_number() OVER w <= count(*) OVER w // 2 THEN 'early'
                    ELSE 'late' END AS middle
        FROM fixed WHERE fixed IS NULL
        WINDOW w AS (PARTITION BY hand_id ORDER BY seat
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
    summary AS (
        SELECT s.hand_id, s.seat, coalesce(f.fixed, m.middle) AS position,
               substr(c.up_card, 1, 1) AS up_rank,
               CASE WHEN g.big > 0 THEN g.big
                    ELSE coalesce(h.min_bet, h.small_bet, 1) END AS big_blind,
               coalesce(p.r1_raises, 0) AS r1_raises, coalesce(p.r1_calls, 0) AS r1_calls,
               coalesce(p.r1_folds, 0) AS r1_folds, coalesce(p.r2_raises, 0) AS r2_raises,
               coalesce(p.r2_calls, 0) AS r2_calls, coalesce(p.r2_folds, 0) AS r2_folds,
               p.facing_one_raise, p.facing_two_raises,
               coalesce(r.first_raiser = s.seat, FALSE) AS first_raiser,
               coalesce(r.last_raiser = s.seat, FALSE) AS last_raiser,
               p.first_r2_verb, p.first_r2_facing,
               CASE WHEN k.cbettor IS NOT NULL AND k.cbettor <> s.seat
                    THEN p.facing_one_bet END AS facing_cbet,
               coalesce(c.saw_round2, FALSE) AS saw_round2,
               coalesce(c.showdown, FALSE) AS showdown, s.won,
               instr('{ranks}', substr(c.up_card, 1, 1)) AS up_rank_value,
               instr('{ranks}', substr(CASE WHEN substr(c.two, 1, 2) = c.up_card
                                            THEN substr(c.two, 3, 2)
                                            ELSE substr(c.two, 1, 2) END, 1, 1))
                   AS down_rank_value
        FROM s JOIN h USING (hand_id) JOIN big g USING (hand_id)
        LEFT JOIN per p USING (hand_id, seat)
        LEFT JOIN raisers r USING (hand_id)
        LEFT JOIN cbets k USING (hand_id)
        LEFT JOIN cards c USING (hand_id, seat)
        LEFT JOIN fixed f USING (hand_id, seat)
        LEFT JOIN middle m USING (hand_id, seat))
    SELECT * FROM summary
""".replace("{ranks}", RANKS)


def oracle_summary(tables: Mapping[str, pa.Table]) -> pa.Table:
    """The summary of the 7 & 8 hands of ``tables`` by :data:`SUMMARY`, ordered by hand
    and seat."""
    names = {name: f"_oracle_{name}" for name in ("hands", "seats", "actions")}
    query = SUMMARY.format(**names, scope="TRUE")
    return arrow_over(scratch(), f"SELECT * FROM ({query}) ORDER BY hand_id, seat",
                      {names[name]: tables[name] for name in names})
