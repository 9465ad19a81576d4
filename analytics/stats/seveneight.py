"""7 & 8: each seat's betting summary, the rows its statistics are counted over.

:data:`SUMMARY` is one SQL query over a hand's ``hands``, ``seats``, ``actions`` (and
``allin_results``) tables, named by placeholders so that the warehouse can run it over a
batch's own Arrow tables when the hand is loaded, or over the warehouse's tables for the
hands it held before (:mod:`analytics.warehouse.pipeline.stat_rows`).  Its columns
(:data:`SUMMARY_COLUMNS`) are what the definitions of :mod:`analytics.stats.definitions`
read.

How the actions are read (RULES.md section 3; the engine has checked them):

* Round 1 is the betting after the up cards, round 2 the betting after the third card
  (``actions.street`` ``round1`` / ``round2``).  Blinds and antes are posted, not acted.
* A raise is a ``cbr`` action: the first of a round is a bet (round 2) or the first raise
  over the blinds (round 1).  An all-in for less than a full raise is a ``cbr`` too and
  counts as a raise; it does not reopen the betting, so a player who already acted may
  only call or fold it, and that call or fold is counted facing it.
* A ``cc`` is a call when the player owed chips: a raise came before it in the round, or
  (round 1) his blind was smaller than the largest blind.  Otherwise it is a check.
* He was still in when round 2 began when he was dealt a third card (the engine deals one
  to every player still in, all-in players included); he went to showdown when he has an
  ``sm`` action (shown or mucked: the engine asks every player still in at the end).
"""

from __future__ import annotations

from typing import Final

__all__ = ["POSITIONS", "RANKS", "SUMMARY", "SUMMARY_COLUMNS"]

RANKS: Final = "23456789TJQKA"
"""Card ranks from low to high (the up card's rank is its position here, 1-based)."""

POSITIONS: Final = ("small blind", "big blind", "early", "late", "button")
"""The positions a 7 & 8 seat is split by (:data:`SUMMARY`'s ``position``)."""

SUMMARY_COLUMNS: Final = ("r1_raises", "r1_calls", "r1_folds", "r2_raises", "r2_calls",
                          "r2_folds", "facing_one_raise", "facing_two_raises", "first_raiser",
                          "last_raiser", "first_r2_verb", "first_r2_facing", "facing_cbet",
                          "saw_round2", "showdown", "won", "up_rank_value", "down_rank_value")
"""The summary columns the statistics' SQL reads (besides the seat's identity)."""

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
