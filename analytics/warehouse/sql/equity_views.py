"""Read questions over the stored equity tables (``allin_results``, ``rummoli_strength``,
``bigtwo_features``; docs/schema.md) for the dashboard and the reports.

Like :mod:`analytics.warehouse.sql.views`: each question takes an open read connection
and a :class:`~analytics.warehouse.sql.views.HandFilter`, binds every value as a
parameter (the filter through :func:`~analytics.warehouse.sql.views.where`), takes
identifiers only from the whitelists below and returns a pandas DataFrame.
"""

from __future__ import annotations

from typing import Final

import duckdb
import pandas as pd

from analytics.warehouse.sql.views import (
    DAY,
    HandFilter,
    facts_where,
    latest_first,
    result_sql,
    where,
)

__all__ = [
    "BIGTWO_FEATURES",
    "bigtwo_dealt",
    "bigtwo_feature_hands",
    "bigtwo_feature_results",
    "hand_equities",
    "rummoli_calibration",
    "rummoli_share_by_player",
]

BIGTWO_FEATURES: Final = {
    "twos": ("CAST(f.twos AS VARCHAR)", "2s held"),
    "aces": ("CAST(f.aces AS VARCHAR)", "aces held"),
    "has_lead": ("CASE WHEN f.has_lead THEN 'yes' ELSE 'no' END", "holds the lead card"),
    "pairs": ("CASE WHEN f.pairs >= 12 THEN '12+' ELSE lpad(CAST(f.pairs AS VARCHAR), 2, '0') "
              "END", "pair plays held"),
    "triples": ("CASE WHEN f.triples >= 4 THEN '4+' ELSE CAST(f.triples AS VARCHAR) END",
                "triple plays held"),
    "five_card": ("CASE WHEN f.five_card = 0 THEN '0' WHEN f.five_card < 10 THEN '1-9' "
                  "WHEN f.five_card < 50 THEN '10-49' WHEN f.five_card < 200 THEN '50-199' "
                  "ELSE '200+' END", "five-card plays held"),
    "distinct_five_card_ranks": (
        "CASE WHEN f.distinct_five_card_ranks >= 10 THEN '10+' "
        "ELSE lpad(CAST(f.distinct_five_card_ranks AS VARCHAR), 2, '0') END",
        "ranks some five-card play can shed"),
}
"""Big Two deal features a chart may group by: name -> (SQL bin label on ``f``, words).
A whitelist: the expressions go into SQL as text, never the caller's value."""


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object]
           ) -> pd.DataFrame:
    # Only the parameters the text names: DuckDB refuses unused named parameters.
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    return con.execute(sql, used).fetchdf()


def _players(f: HandFilter, column: str) -> tuple[str, dict[str, object]]:
    """Rows of the chosen players only (all rows when no player is chosen)."""
    if not f.players:
        return "TRUE", {}
    return f"list_contains($row_players, {column})", {"row_players": list(f.players)}


def hand_equities(con: duckdb.DuckDBPyConnection, hand_id: int) -> dict[str, pd.DataFrame]:
    """Every stored equity of one hand: ``allin`` (7 & 8 all-in rows), ``rummoli`` (each
    dealt player's poker strength) and ``bigtwo`` (each player's deal features), by seat;
    frames are empty where nothing is stored."""
    params: dict[str, object] = {"hand_id": hand_id}
    return {
        "allin": _frame(con, "SELECT * FROM allin_results WHERE hand_id = $hand_id "
                             "ORDER BY seat", params),
        "rummoli": _frame(con, "SELECT * FROM rummoli_strength WHERE hand_id = $hand_id "
                               "ORDER BY seat", params),
        "bigtwo": _frame(con, "SELECT * FROM bigtwo_features WHERE hand_id = $hand_id "
                              "ORDER BY seat", params),
    }


def rummoli_share_by_player(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Rummoli per player: rounds, mean expected best-hand share (from his strength), mean
    realised share (best hand at the table on everyone's cards), the mean and standard
    deviation of realised minus expected per round, and the Monte Carlo standard error of
    the mean expected share."""
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = _players(f, "r.player")
    return _frame(con, f"""
        SELECT r.player, count(*) AS rounds, avg(r.share) AS expected,
               avg(r.realised_share) AS realised,
               avg(r.realised_share - r.share) AS mean, stddev_samp(r.realised_share - r.share)
                   AS sd,
               sqrt(sum(r.share_std_error * r.share_std_error)) / count(*) AS mc_std_error,
               count(*) FILTER (WHERE r.won_poker_pot) AS poker_pots_won
        FROM rummoli_strength r JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY r.player ORDER BY r.player
    """, params | seat_params)


def rummoli_calibration(con: duckdb.DuckDBPyConnection, f: HandFilter, *, bins: int = 10
                        ) -> pd.DataFrame:
    """Rummoli strength calibration: rounds in ``bins`` equal bins of the expected share
    (0-1), with the bin's mean expected share, mean realised share and its standard
    deviation; a well-calibrated estimate has realised close to expected in every bin."""
    if not 1 <= int(bins) <= 100:
        raise ValueError("bins must be 1 to 100")
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = _players(f, "r.player")
    params |= seat_params | {"bins": int(bins)}
    return _frame(con, f"""
        SELECT least(CAST(floor(r.share * $bins) AS INTEGER), $bins - 1) AS bin,
               count(*) AS rounds, avg(r.share) AS expected, avg(r.realised_share) AS mean,
               stddev_samp(r.realised_share) AS sd,
               count(*) FILTER (WHERE r.won_poker_pot) AS poker_pots_won
        FROM rummoli_strength r JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY bin
    """, params)


def _feature_rows(f: HandFilter, feature: str) -> tuple[str, str, dict[str, object]]:
    """The Big Two seats by a deal feature: the bin's SQL (on ``f``), the FROM and WHERE
    over ``bigtwo_features f``, ``hands h`` and ``seats s`` the filter keeps, and their
    parameters (what :func:`bigtwo_feature_results` groups and
    :func:`bigtwo_feature_hands` lists)."""
    if feature not in BIGTWO_FEATURES:
        raise ValueError(f"unknown feature {feature!r} (expected one of "
                         f"{', '.join(BIGTWO_FEATURES)})")
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = _players(f, "s.player")
    rows = f"""
        FROM bigtwo_features f JOIN hands h USING (hand_id)
        JOIN seats s ON s.hand_id = f.hand_id AND s.seat = f.seat
        WHERE {cond} AND {seat_cond}"""
    return BIGTWO_FEATURES[feature][0], rows, params | seat_params


def bigtwo_feature_results(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                           feature: str = "twos") -> pd.DataFrame:
    """Big Two results by a deal feature (:data:`BIGTWO_FEATURES`), per player: the
    feature's bin, games, mean score per game and its standard deviation, and the share
    of games won (first out); under rank scoring alone the mean is the win fraction
    (:func:`~analytics.warehouse.sql.views.counts_wins`)."""
    expression, rows, params = _feature_rows(f, feature)
    result = result_sql(f, "s")
    return _frame(con, f"""
        SELECT s.player, {expression} AS bin, count(*) AS games, avg({result}) AS mean,
               stddev_samp({result}) AS sd,
               avg(CASE WHEN s.place = 1 THEN 1.0 ELSE 0.0 END) AS first_share
        {rows}
        GROUP BY ALL ORDER BY s.player, bin
    """, params)


def bigtwo_feature_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, feature: str,
                         player: str, bin: str) -> pd.DataFrame:
    """The games behind one bar of :func:`bigtwo_feature_results`: ``player``'s games whose
    deal falls in ``bin`` of ``feature``.  Columns: hand_id, day, counted (1), net (his
    score), the latest first."""
    expression, rows, params = _feature_rows(f, feature)
    return _frame(con, f"""
        SELECT hand_id, day, counted, net FROM (
            SELECT s.hand_id, {DAY} AS day, h.played_time, h.source_index,
                   CAST(1 AS BIGINT) AS counted, CAST(s.net AS BIGINT) AS net
            {rows} AND s.player = $bar_player AND {expression} = $bar_bin)
        ORDER BY {latest_first()}
    """, params | {"bar_player": player, "bar_bin": bin})


def bigtwo_dealt(con: duckdb.DuckDBPyConnection, f: HandFilter, *, sample: int = 20_000
                 ) -> pd.DataFrame:
    """Big Two dealt hands with their rules, a reproducible sample of at most ``sample``:
    player, players at the table, cards (all his ``dh`` cards joined), rules (JSON).
    Hands with hidden cards (``??``) are left out."""
    # From seat_facts, which holds each seat's dealt cards joined in order: aggregating
    # the deal actions out of ``actions`` cost about 5 s of CPU over a million hands.
    cond, params = facts_where(f, game="bigtwo")
    rows = int(sample)  # DuckDB takes only a constant in SAMPLE; int() keeps it a number
    # The sample is drawn from the filtered rows: USING SAMPLE applies before the WHERE
    # of its own SELECT, so the filter sits in the subquery.
    return _frame(con, f"""
        SELECT player, players, cards, rules FROM (
            SELECT x.player, CAST(x.num_players AS BIGINT) AS players, x.dealt AS cards,
                   x.rules
            FROM seat_facts x
            WHERE x.dealt IS NOT NULL AND NOT contains(x.dealt, '??') AND {cond})
        USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)
    """, params)
