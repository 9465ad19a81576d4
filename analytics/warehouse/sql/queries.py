"""The dashboard's questions, one function each, answered from a read connection.

Every function takes an open connection (:func:`analytics.warehouse.reader`)
and keyword filters, binds every value as a parameter, takes identifiers (time
buckets, sort columns) only from the whitelists below, and returns a pandas
DataFrame.  Each is one scan or one join over the warehouse; docs/performance.md
times them over a million hands.
"""

from __future__ import annotations

from typing import Final

import duckdb
import pandas as pd

from parsers.knobs import Game

__all__ = [
    "BUCKETS",
    "PLAYER_ORDER",
    "files",
    "hand_actions",
    "hand_types",
    "hands_over_time",
    "net_over_time",
    "player_stats",
    "rejects",
    "rejects_summary",
    "rummoli_board",
    "rummoli_games",
    "totals",
]

BUCKETS: Final = {"day": "day", "week": "week", "month": "month", "year": "year"}
"""Time buckets for the over-time questions (a whitelist: these go into SQL as text)."""

PLAYER_ORDER: Final = {
    "hands": "hands DESC",
    "wins": "wins DESC",
    "win_rate": "win_rate DESC",
    "net": "net DESC",
    "net_per_hand": "net_per_hand DESC",
    "player": "player ASC",
}
"""Sort orders for :func:`player_stats` (a whitelist)."""


def _game(game: Game | str | None) -> str | None:
    """The game's name, checked: a typo raises ValueError instead of matching nothing."""
    if game is None:
        return None
    try:
        return Game(game).value
    except ValueError:
        raise ValueError(f"unknown game {game!r} (expected one of "
                         f"{', '.join(g.value for g in Game)})") from None


def _pick(table: dict[str, str], key: str, what: str) -> str:
    try:
        return table[key]
    except KeyError:
        raise ValueError(f"unknown {what} {key!r} (expected one of {', '.join(table)})") from None


def _frame(con: duckdb.DuckDBPyConnection, sql: str,
           params: list[object] | dict[str, object]) -> pd.DataFrame:
    return con.execute(sql, params).fetchdf()


def totals(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per game: hands, distinct players, first and last day of play (or of loading)."""
    return _frame(con, """
        SELECT h.game, h.hands, p.players, h.first_day, h.last_day
        FROM (SELECT game, count(*) AS hands,
                     min(coalesce(played_on, CAST(loaded_at AS DATE))) AS first_day,
                     max(coalesce(played_on, CAST(loaded_at AS DATE))) AS last_day
              FROM hands GROUP BY game) h
        JOIN (SELECT game, count(DISTINCT player) AS players FROM seats GROUP BY game) p
          USING (game)
        ORDER BY h.game
    """, [])


def hands_over_time(con: duckdb.DuckDBPyConnection, *, game: Game | str | None = None,
                    bucket: str = "day") -> pd.DataFrame:
    """Hands per game per ``bucket`` (day, week, month, year) of play, else of loading."""
    part = _pick(BUCKETS, bucket, "bucket")
    return _frame(con, f"""
        SELECT CAST(date_trunc('{part}', day) AS DATE) AS period, game,
               CAST(sum(hands) AS BIGINT) AS hands
        FROM v_hands_by_day
        WHERE ($game IS NULL OR game = $game)
        GROUP BY ALL ORDER BY period, game
    """, {"game": _game(game)})


def player_stats(con: duckdb.DuckDBPyConnection, *, game: Game | str | None = None,
                 min_hands: int = 1, order: str = "net", limit: int = 1000) -> pd.DataFrame:
    """Per game and player: hands, wins, win rate, net result (total and per hand)."""
    ordering = _pick(PLAYER_ORDER, order, "order")
    return _frame(con, f"""
        SELECT game, player, hands, wins, win_rate, net, net_per_hand
        FROM v_player_stats
        WHERE ($game IS NULL OR game = $game) AND hands >= $min_hands
        ORDER BY {ordering}, game, player
        LIMIT $limit
    """, {"game": _game(game), "min_hands": min_hands, "limit": limit})


def net_over_time(con: duckdb.DuckDBPyConnection, *, game: Game | str,
                  players: list[str] | None = None, bucket: str = "day") -> pd.DataFrame:
    """Per player and ``bucket``: hands, net, and the running (cumulative) net."""
    part = _pick(BUCKETS, bucket, "bucket")
    # From seat_facts (one row per seat with its hand's game and day, written in order of
    # game and day), not v_seat_results: that view joins every seat with its hand, and
    # over a million hands the join was most of the question (the same rows: the
    # warehouse fills seat_facts with every seat it loads; tests/test_facts.py compares).
    return _frame(con, f"""
        SELECT period, player, hands, net,
               CAST(sum(net) OVER (PARTITION BY player ORDER BY period) AS BIGINT)
                   AS cumulative_net
        FROM (SELECT CAST(date_trunc('{part}', x.day) AS DATE) AS period, x.player,
                     count(*) AS hands, CAST(sum(x.net) AS BIGINT) AS net
              FROM seat_facts x
              WHERE x.game = $game AND ($players IS NULL OR list_contains($players, x.player))
              GROUP BY ALL)
        ORDER BY player, period
    """, {"game": _game(game), "players": players})


def hand_types(con: duckdb.DuckDBPyConnection, *, game: Game | str | None = None
               ) -> pd.DataFrame:
    """Per game: how often each evaluator category was shown down, and its share."""
    return _frame(con, """
        SELECT game, category, hands_shown,
               hands_shown / sum(hands_shown) OVER (PARTITION BY game) AS share
        FROM v_hand_types
        WHERE ($game IS NULL OR game = $game)
        ORDER BY game, hands_shown DESC, category
    """, {"game": _game(game)})


def rummoli_games(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Rummoli games (``game_id``): rounds recorded, first and last round number."""
    return _frame(con, """
        SELECT game_id, count(*) AS rounds, min(round) AS first_round, max(round) AS last_round
        FROM hands
        WHERE game = 'rummoli'
        GROUP BY game_id ORDER BY game_id NULLS LAST
    """, [])


def rummoli_board(con: duckdb.DuckDBPyConnection, *, game_id: str | None = None,
                  limit: int = 10_000) -> pd.DataFrame:
    """The Rummoli board round by round: each pot before, paid in, won (by whom), after."""
    return _frame(con, """
        SELECT game_id, round, pot, before, antes, amount, won_by, won_by_player, after, hand_id
        FROM v_rummoli_board
        WHERE ($game_id IS NULL OR game_id = $game_id)
        ORDER BY game_id, round, pot_order
        LIMIT $limit
    """, {"game_id": game_id, "limit": limit})


def rejects_summary(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per file and stage (parse, rules): hands rejected, first line, first error."""
    return _frame(con, """
        SELECT file, stage, rejected, first_line, first_error
        FROM v_rejects_summary ORDER BY file, stage
    """, [])


def rejects(con: duckdb.DuckDBPyConnection, *, file: str | None = None,
            limit: int = 1000) -> pd.DataFrame:
    """Rejected hands with their line, reason and raw text (of one file, or all)."""
    return _frame(con, """
        SELECT file, hand_index, line, stage, game, error, raw
        FROM rejects
        WHERE ($file IS NULL OR file = $file)
        ORDER BY file, hand_index
        LIMIT $limit
    """, {"file": file, "limit": limit})


def files(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every file loaded: path, content hash, counts, status and when."""
    return _frame(con, """
        SELECT path, sha256, size, status, hands, loaded, duplicates, rejected,
               started_at, finished_at, seconds
        FROM files ORDER BY finished_at, path
    """, [])


def hand_actions(con: duckdb.DuckDBPyConnection, hand_id: int) -> pd.DataFrame:
    """One hand's actions in order, with the acting player's name."""
    return _frame(con, """
        SELECT a.seq, a.street, a.actor, coalesce(s.player, 'dealer') AS player, a.verb,
               a.cards, a.amount, a.target, a.pot, a.comment
        FROM actions a
        LEFT JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.actor
        WHERE a.hand_id = $hand_id
        ORDER BY a.seq
    """, {"hand_id": hand_id})
