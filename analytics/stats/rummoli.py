"""Rummoli: each dealt player's round summarised, the rows its statistics are counted over.

:data:`SUMMARY` reads a round's ``hands``, ``seats``, ``actions`` and ``awards`` (named by
placeholders, as :mod:`analytics.stats.seveneight`'s summary) and gives one row per seat:
the poker phase (calls facing a bet, raises, showdown, poker pot won), the widow (the
dealer's choice, the auction's bids and price) and the Rummoli phase (pay cards laid,
stops, cards left and chips paid for them, the Rummoli pot).  RULES.md section 1 is the
game; the engine has checked every action, so this only reads them:

* the poker phase's actions are ``actions.street = 'poker'``; there are no blinds, so a
  ``cc`` is a call when a ``cbr`` came before it in the round, else a check;
* the dealer chooses with ``xw`` (exchange) or ``pw`` (keep: the widow is auctioned);
  the players the auction asks answer ``ab`` (bid) or ``ap`` (pass); ``aw`` records the
  winning bid (its amount);
* the cards he held are those dealt to him, or the widow's when he took it (``xw``, or
  ``aw``: the exchanger and the winning bidder play the widow's cards);
* a **stop** is a card laid that the next card laid does not follow (the next card is
  not the next rank of the same suit): the run stopped on it.  The round's last card is
  not counted;
* the laying statistics count only rounds with a Rummoli phase (an end-of-game round,
  ``hands.finale_pot`` set, is poker only);
* the round's net by pot (:data:`POT_NETS`): the poker pot (its side pots and the
  finale's pot won, less his ante into it and his bets), the pay-card pots (won less his
  seven antes), the Rummoli pot (won, less his ante and his impasse payments) and the
  cards-left payments (received less paid); with the auction's chips they add up to his
  net.  His bets are what he paid in (every award less his net) less his antes: a full
  ante into each of the nine pots in board order while his stack lasts, none in an
  end-of-game round.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PAY_CARDS", "PAY_CARD_POTS", "POT_NETS", "SUMMARY"]

PAY_CARDS: Final = ("Ts", "Jd", "Qc", "Kh", "As", "Kd", "Ad")
"""The cards that win a pot when laid (RULES.md 1.3)."""

PAY_CARD_POTS: Final = ("TS", "JD", "QC", "KH", "AS", "AKD", "789")
"""The board's seven pay-card pots, in board order between ``poker`` and ``rummoli``."""

POT_NETS: Final = ("poker_net", "pay_cards_net", "rummoli_net", "payments_net")
"""The summary's net by pot (with ``auction_net``, they add up to the round's net)."""

_RANKS: Final = "23456789TJQKA"

# Output: hand_id, seat, position ('1'.. counted from the dealer's left, the dealer last:
# 'dealer'), dealt, laying (the round has a Rummoli phase), and the summary columns.
SUMMARY: Final = """
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
               count(*) FILTER (WHERE verb = 'cc' AND raises_before > 0) AS calls
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
           coalesce(c.showdown, FALSE) AS showdown,
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
""".replace("{ranks}", _RANKS).replace(
    "{pay_cards}", "[" + ", ".join(f"'{card}'" for card in PAY_CARDS) + "]").replace(
    "{pay_pots}", "(" + ", ".join(f"'{pot}'" for pot in PAY_CARD_POTS) + ")")
