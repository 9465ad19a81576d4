"""The statistics' summaries in SQL: the independent oracle that checks
:mod:`analytics.warehouse.pipeline.stat_summary` (7 & 8's betting, Rummoli's rounds).

The warehouse makes the summary once, in numpy and pyarrow, for the ingest and the
backfills alike.  This is the same definition as the one query over a batch's ``hands``,
``seats``, ``actions`` (and Rummoli's ``awards``) that the ingest ran before (how they are
read: :mod:`analytics.stats.seveneight`, :mod:`analytics.stats.rummoli`); only the tests
run them (tests/test_stat_summary.py), column for column on the golden, simulated and
sample histories and on generated hands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pyarrow as pa

from analytics.stats.rummoli import PAY_CARD_POTS, PAY_CARDS
from analytics.stats.rummoli import RANKS as RUMMOLI_RANKS
from analytics.stats.seveneight import RANKS
from analytics.warehouse.sql.arrow_scan import arrow_over
from tests.fact_oracle import scratch

__all__ = ["RUMMOLI_SUMMARY", "SUMMARY", "oracle_summary"]

# {hands}, {seats}, {actions}: the tables read; {scope}: a condition on hands h.
# Output: hand_id, seat, position, up_rank, big_blind and SUMMARY_COLUMNS, for every seat
# of every 7 & 8 hand in scope.
SUMMARY: Final = """
    WITH h AS (SELECT h.hand_id, h.num_players, h.min_bet, h.small_bet
               FROM {hands} h WHERE h.game = 'seveneight' AND {scope}),
    s AS (SELECT s.hand_id, s.seat, coalesce(s.blind, 0) AS blind, s.won,
                 least(coalesce(s.blind, 0),
                       coalesce(s.starting_stack - coalesce(s.ante, 0), s.blind, 0)) AS posted
          FROM {seats} s WHERE s.hand_id IN (SELECT hand_id FROM h)),
    big AS (SELECT hand_id, max(blind) AS big, max(posted) AS most_posted
            FROM s GROUP BY hand_id),
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
               count(*) FILTER (WHERE b.street = 'round1') AS r1_acts,
               count(*) FILTER (WHERE b.street = 'round1' AND b.verb = 'cbr') AS r1_raises,
               count(*) FILTER (WHERE b.street = 'round1' AND b.verb = 'cc'
                                AND (b.raises_before > 0 OR s.posted < g.most_posted)) AS r1_calls,
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
    bigs AS (  -- the seats posting the largest blind: two when the blinds are equal
        SELECT s.hand_id, min(s.seat) AS first_big, max(s.seat) AS last_big
        FROM s JOIN big g USING (hand_id) WHERE g.big > 0 AND s.blind = g.big
        GROUP BY ALL),
    fixed AS (
        SELECT s.hand_id, s.seat,
               CASE WHEN s.seat = CASE WHEN h.num_players = 2 THEN b.first_big
                                       ELSE b.last_big END THEN 'big blind'
                    WHEN s.blind > 0 THEN 'small blind'
                    WHEN s.seat = h.num_players THEN 'button' END AS fixed
        FROM s JOIN h USING (hand_id) LEFT JOIN bigs b USING (hand_id)),
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
               coalesce(p.r1_acts, 0) AS r1_acts, coalesce(p.r1_raises, 0) AS r1_raises,
               coalesce(p.r1_calls, 0) AS r1_calls,
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


# Output: hand_id, seat, position ('1'.. counted from the dealer's left, the dealer last:
# 'dealer'), dealt, laying (the round has a Rummoli phase), and the summary columns.
RUMMOLI_SUMMARY: Final = """
    WITH h AS (SELECT h.hand_id, h.dealer, h.num_players, h.finale_pot IS NULL AS laying,
                      coalesce(CAST(json_extract(h.rules, '$.ante') AS BIGINT), 1) AS ante
               FROM {hands} h WHERE h.game = 'rummoli' AND {scope}),
    s AS (SELECT s.hand_id, s.seat, s.starting_stack, s.net
          FROM {seats} s WHERE s.hand_id IN (SELECT hand_id FROM h)),
    a AS (SELECT a.hand_id, a.seq, a.actor, a.verb, a.cards, a.amount, a.target, a.street
          FROM {actions} a WHERE a.hand_id IN (SELECT hand_id FROM h)),
    poker AS (
        SELECT hand_id, actor AS seat, verb,
               -- the raises before this action: the running count up to it, less its own
               sum(CAST(verb = 'cbr' AS INTEGER)) OVER (
                   PARTITION BY hand_id ORDER BY seq ROWS UNBOUNDED PRECEDING)
                   - CAST(verb = 'cbr' AS INTEGER) AS raises_before
        FROM a WHERE street = 'poker' AND verb IN ('cbr', 'cc', 'f')),
    bets AS (
        SELECT hand_id, seat,
               count(*) FILTER (WHERE verb = 'cbr') AS raises,
               count(*) FILTER (WHERE verb = 'cc' AND raises_before > 0) AS calls,
               count(*) AS poker_acts
        FROM poker GROUP BY ALL),
    laid AS (
        SELECT hand_id, actor AS seat, cards,
               lead(cards) OVER (PARTITION BY hand_id ORDER BY seq) AS next_card
        FROM a WHERE verb = 'pl' AND street = 'rummoli'),
    lays AS (
        SELECT hand_id, seat,
               count(*) FILTER (WHERE list_contains({pay_cards}, cards)) AS pay_cards,
               count(*) FILTER (WHERE next_card IS NOT NULL AND NOT (
                   substr(next_card, 2, 1) = substr(cards, 2, 1)
                   AND instr('{ranks}', substr(next_card, 1, 1))
                       = instr('{ranks}', substr(cards, 1, 1)) + 1)) AS stops
        FROM laid GROUP BY ALL),
    acts AS (
        SELECT hand_id, CASE WHEN verb = 'dh' THEN target ELSE actor END AS seat,
               count(*) FILTER (WHERE verb = 'dh') > 0 AS dealt,
               count(*) FILTER (WHERE verb = 'sm') > 0 AS showdown,
               count(*) FILTER (WHERE verb = 'xw') AS exchanged,
               count(*) FILTER (WHERE verb IN ('xw', 'pw')) AS widow_choice,
               count(*) FILTER (WHERE verb = 'ab') > 0 AS bid,
               count(*) FILTER (WHERE verb IN ('ab', 'ap', 'aw')) > 0 AS asked,
               count(*) FILTER (WHERE verb = 'aw') AS auctions_won,
               coalesce(sum(amount) FILTER (WHERE verb = 'aw'), 0) AS winning_bids,
               coalesce(sum(length(cards) // 2) FILTER (WHERE verb = 'dh'), 0) AS dealt_cards,
               coalesce(sum(length(cards) // 2) FILTER (WHERE verb = 'pl'), 0) AS laid_cards
        FROM a WHERE verb IN ('dh', 'sm', 'xw', 'pw', 'ab', 'ap', 'aw', 'pl')
        GROUP BY ALL),
    widow AS (
        SELECT hand_id, sum(length(cards) // 2) AS widow_cards
        FROM a WHERE verb = 'dw' GROUP BY hand_id),
    won AS (
        SELECT w.hand_id, w.player AS seat,
               coalesce(sum(w.amount) FILTER (WHERE w.pot = 'poker' OR w.pot LIKE 'poker_side%'
                                              OR w.pot LIKE 'finale%'), 0) AS poker_won,
               coalesce(sum(w.amount) FILTER (WHERE w.pot = 'rummoli'), 0) AS rummoli_won,
               coalesce(sum(w.amount) FILTER (WHERE w.pot = 'auction'), 0) AS auction_net,
               -coalesce(sum(w.amount) FILTER (WHERE w.pot IN ('payments', 'impasse')
                                               AND w.amount < 0), 0) AS chips_paid,
               coalesce(sum(w.amount) FILTER (WHERE w.pot IN {pay_pots}), 0) AS pay_won,
               coalesce(sum(w.amount) FILTER (WHERE w.pot = 'impasse'), 0) AS impasse,
               coalesce(sum(w.amount) FILTER (WHERE w.pot = 'payments'), 0) AS payments,
               coalesce(sum(w.amount), 0) AS awarded
        FROM {awards} w WHERE w.hand_id IN (SELECT hand_id FROM h)
        GROUP BY ALL),
    -- What he paid in: every award less his net; his antes (none in an end-of-game round),
    -- a full ante into each pot in board order while he could (RULES.md 1); the rest his
    -- poker bets.
    paid AS (
        SELECT s.hand_id, s.seat, h.ante,
               coalesce(w.awarded, 0) - s.net AS paid_in,
               CASE WHEN h.laying THEN least(9 * h.ante, coalesce(s.starting_stack, 9 * h.ante))
                    ELSE 0 END AS antes
        FROM s JOIN h USING (hand_id) LEFT JOIN won w USING (hand_id, seat))
    SELECT s.hand_id, s.seat,
           CASE WHEN s.seat = h.dealer THEN 'dealer'
                WHEN h.dealer IS NULL THEN CAST(s.seat AS VARCHAR)
                ELSE CAST(((s.seat - h.dealer - 1 + h.num_players) % h.num_players) + 1
                          AS VARCHAR) END AS position,
           coalesce(c.dealt, FALSE) AS dealt, h.laying,
           coalesce(b.raises, 0) AS raises, coalesce(b.calls, 0) AS calls,
           coalesce(b.poker_acts, 0) AS poker_acts, coalesce(c.showdown, FALSE) AS showdown,
           coalesce(w.poker_won, 0) AS poker_won,
           coalesce(c.exchanged, 0) AS exchanged, coalesce(c.widow_choice, 0) AS widow_choice,
           coalesce(c.bid, FALSE) AS bid, coalesce(c.asked, FALSE) AS asked,
           coalesce(c.auctions_won, 0) AS auctions_won,
           coalesce(c.winning_bids, 0) AS winning_bids,
           coalesce(w.auction_net, 0) AS auction_net,
           coalesce(l.pay_cards, 0) AS pay_cards, coalesce(l.stops, 0) AS stops,
           CASE WHEN coalesce(c.exchanged, 0) + coalesce(c.auctions_won, 0) > 0
                THEN coalesce(d.widow_cards, 0) ELSE coalesce(c.dealt_cards, 0) END
               - coalesce(c.laid_cards, 0) AS cards_left, coalesce(w.chips_paid, 0) AS chips_paid,
           coalesce(w.rummoli_won, 0) AS rummoli_won,
           coalesce(w.poker_won, 0) - (p.paid_in - p.antes) - least(p.ante, p.antes)
               AS poker_net,
           coalesce(w.pay_won, 0) - least(7 * p.ante, greatest(p.antes - p.ante, 0))
               AS pay_cards_net,
           coalesce(w.rummoli_won, 0) + coalesce(w.impasse, 0)
               - greatest(p.antes - 8 * p.ante, 0) AS rummoli_net,
           coalesce(w.payments, 0) AS payments_net
    FROM s JOIN h USING (hand_id)
    JOIN paid p USING (hand_id, seat)
    LEFT JOIN bets b USING (hand_id, seat)
    LEFT JOIN lays l USING (hand_id, seat)
    LEFT JOIN acts c USING (hand_id, seat)
    LEFT JOIN won w USING (hand_id, seat)
    LEFT JOIN widow d USING (hand_id)
""".replace("{ranks}", RUMMOLI_RANKS).replace(
    "{pay_cards}", "[" + ", ".join(f"'{card}'" for card in PAY_CARDS) + "]").replace(
    "{pay_pots}", "(" + ", ".join(f"'{pot}'" for pot in PAY_CARD_POTS) + ")")


def oracle_summary(tables: Mapping[str, pa.Table], game: str = "seveneight") -> pa.Table:
    """The summary of ``game``'s hands of ``tables`` by its query (:data:`SUMMARY`,
    :data:`RUMMOLI_SUMMARY`), ordered by hand and seat."""
    names = {name: f"_oracle_{name}" for name in ("hands", "seats", "actions", "awards")}
    query = (SUMMARY if game == "seveneight" else RUMMOLI_SUMMARY).format(**names, scope="TRUE")
    return arrow_over(scratch(), f"SELECT * FROM ({query}) ORDER BY hand_id, seat",
                      {names[name]: tables[name] for name in names if name in tables})
