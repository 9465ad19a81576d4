"""The dashboard's and the reports' questions beyond :mod:`analytics.warehouse.queries`.

Every question takes an open read connection and a :class:`HandFilter` (the
dashboard's filters: game, players, dates, session, rule knobs, stakes), binds
every value as a parameter, takes identifiers only from the whitelists below
and returns a pandas DataFrame.  The filter becomes one ``WHERE`` over the
``hands`` table (alias ``h``); a player filter is a semi-join on ``seats``, so
hands where any chosen player sat are kept.  docs/dashboard.md lists the
questions; docs/performance.md times them over a million hands.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

import duckdb
import pandas as pd

from parsers.knobs import BIGTWO_KNOBS, RUMMOLI_KNOBS, Game
from parsers.model import RUMMOLI_POTS

__all__ = [
    "BUCKETS",
    "DAY",
    "KNOBS",
    "SESSION",
    "STAKES",
    "HandFilter",
    "allin_totals",
    "bigtwo_cards_left",
    "bigtwo_places",
    "by_position",
    "by_up_card",
    "cumulative_net",
    "data_version",
    "dealt_hands",
    "filter_options",
    "hand_detail",
    "hand_list",
    "hands_over_time",
    "overview",
    "player_results",
    "plays",
    "pot_streaks",
    "pot_winners",
    "rejects",
    "rummoli_board",
    "rummoli_poker_share",
    "rummoli_split",
    "sessions",
    "showdown_types",
    "where",
]

DAY: Final = "coalesce(h.played_on, CAST(h.loaded_at AS DATE))"
"""The day of a hand: when it was played, else when it was loaded."""

SESSION: Final = ("coalesce(h.game_id, h.table_name || ' ' || CAST(h.played_on AS VARCHAR), "
                  "h.table_name, h.source_file)")
"""A session: the Rummoli/Big Two ``game_id``, else the table and day, else the source file."""

STAKES: Final = ("CASE WHEN h.game = 'bigtwo' THEN 'points' "
                 "WHEN h.small_bet IS NOT NULL THEN h.variant || ' ' || h.small_bet || '/' "
                 "|| h.big_bet "
                 "ELSE h.variant || ' min ' || coalesce(h.min_bet, 1) END")
"""Stakes as a label: variant and bet size (Big Two is played for points)."""

KNOBS: Final = ("variant", *sorted({*RUMMOLI_KNOBS, *BIGTWO_KNOBS}))
"""Knobs a view can be filtered by (a whitelist: the names go into a JSON path)."""

BUCKETS: Final = ("day", "week", "month", "year")
"""Time buckets (a whitelist: they go into SQL as text)."""

# Rummoli award pots grouped the way the win-rate page splits a player's result.
_SPLIT: Final = {
    "poker": "poker pot",
    **dict.fromkeys(RUMMOLI_POTS[1:-1], "pay-card pots"),
    "rummoli": "Rummoli pot",
    "auction": "auction",
    "payments": "end-of-round payments",
    "impasse": "end-of-round payments",
}
SPLIT_PARTS: Final = ("poker pot", "pay-card pots", "Rummoli pot", "auction",
                      "end-of-round payments", "finale", "antes and bets")
"""The parts of a Rummoli result, in display order; the last is what was paid in."""


@dataclass(frozen=True, slots=True)
class HandFilter:
    """Which hands a question looks at; empty fields do not filter.

    ``knobs`` are ``(name, value)`` pairs, names from :data:`KNOBS`; ``session``
    matches a ``game_id`` or a :data:`SESSION` label; ``stakes`` a
    :data:`STAKES` label.
    """

    game: str | None = None
    players: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    session: str | None = None
    knobs: tuple[tuple[str, str], ...] = ()
    stakes: str | None = None

    def __post_init__(self) -> None:
        if self.game is not None and self.game not in {g.value for g in Game}:
            raise ValueError(f"unknown game {self.game!r} (expected one of "
                             f"{', '.join(g.value for g in Game)})")
        for name, _ in self.knobs:
            if name not in KNOBS:
                raise ValueError(f"unknown knob {name!r} (expected one of {', '.join(KNOBS)})")

    def describe(self) -> str:
        """The filter in words, for report headers: ``game seveneight; players Ann, Bo``."""
        parts = []
        if self.game:
            parts.append(f"game {self.game}")
        if self.players:
            parts.append("players " + ", ".join(self.players))
        if self.date_from or self.date_to:
            parts.append(f"days {self.date_from or '...'} to {self.date_to or '...'}")
        if self.session:
            parts.append(f"session {self.session}")
        parts.extend(f"{name} = {value}" for name, value in self.knobs)
        if self.stakes:
            parts.append(f"stakes {self.stakes}")
        return "; ".join(parts) if parts else "all hands"


Params = dict[str, object]


def where(f: HandFilter, *, game: str | None = None) -> tuple[str, Params]:
    """The filter as SQL conditions on ``hands h`` and their bound parameters.

    ``game`` narrows to one game on top of the filter (a page about Rummoli),
    and yields no rows when the filter names another game.
    """
    conditions = ["TRUE"]
    params: Params = {}
    for key, value in (("game", f.game), ("only_game", game)):
        if value is not None:
            conditions.append(f"h.game = ${key}")
            params[key] = value
    if f.players:
        conditions.append("h.hand_id IN (SELECT hand_id FROM seats "
                          "WHERE list_contains($players, player))")
        params["players"] = list(f.players)
    if f.date_from is not None:
        conditions.append(f"{DAY} >= $date_from")
        params["date_from"] = f.date_from
    if f.date_to is not None:
        conditions.append(f"{DAY} <= $date_to")
        params["date_to"] = f.date_to
    if f.session:
        conditions.append(f"(h.game_id = $session OR {SESSION} = $session)")
        params["session"] = f.session
    for number, (name, value) in enumerate(f.knobs):
        if name == "variant":
            conditions.append(f"h.variant = $knob{number}")
        else:
            conditions.append(f"json_extract_string(h.rules, $path{number}) = $knob{number}")
            params[f"path{number}"] = f"$.{name}"
        params[f"knob{number}"] = value
    if f.stakes:
        conditions.append(f"({STAKES}) = $stakes")
        params["stakes"] = f.stakes
    return " AND ".join(conditions), params


def _seat_players(f: HandFilter, alias: str = "s") -> tuple[str, Params]:
    """Seat rows of the chosen players only (all seats when no player is chosen)."""
    if not f.players:
        return "TRUE", {}
    return f"list_contains($seat_players, {alias}.player)", {"seat_players": list(f.players)}


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: Params) -> pd.DataFrame:
    # Only the parameters the text names: DuckDB refuses unused named parameters.
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    return con.execute(sql, used).fetchdf()


def data_version(con: duckdb.DuckDBPyConnection) -> tuple[int, str, int]:
    """Files loaded, the last load's end and rejects recorded: changes whenever data changes.

    The dashboard keys its caches by this, so an upload shows on every page at once.
    """
    row = con.execute("SELECT count(*), coalesce(CAST(max(finished_at) AS VARCHAR), ''), "
                      "(SELECT count(*) FROM rejects) FROM files").fetchall()[0]
    return int(row[0]), str(row[1]), int(row[2])


def filter_options(con: duckdb.DuckDBPyConnection, *, sessions: int = 2000) -> pd.DataFrame:
    """What the filters can choose: ``kind`` (game, player, session, stakes, knob name,
    first_day, last_day) and ``value`` (text); sessions are the most recent ``sessions``."""
    return _frame(con, f"""
        SELECT 'game' AS kind, game AS value FROM (SELECT DISTINCT game FROM hands)
        UNION ALL SELECT 'player', player FROM (SELECT DISTINCT player FROM seats)
        UNION ALL SELECT 'session', session FROM (
            SELECT {SESSION} AS session, max({DAY}) AS last FROM hands h
            GROUP BY ALL ORDER BY last DESC LIMIT $sessions)
        UNION ALL SELECT 'stakes', stakes FROM (SELECT DISTINCT {STAKES} AS stakes FROM hands h)
        UNION ALL SELECT 'variant', variant FROM (SELECT DISTINCT variant FROM hands)
        UNION ALL SELECT 'rules', rules FROM (SELECT DISTINCT rules FROM hands)
        UNION ALL SELECT 'first_day', CAST(min({DAY}) AS VARCHAR) FROM hands h
        UNION ALL SELECT 'last_day', CAST(max({DAY}) AS VARCHAR) FROM hands h
        ORDER BY kind, value
    """, {"sessions": sessions})


def overview(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per game: hands, distinct players, sessions, first and last day."""
    cond, params = where(f)
    return _frame(con, f"""
        WITH fh AS (SELECT h.hand_id, h.game, {SESSION} AS session, {DAY} AS day
                    FROM hands h WHERE {cond})
        SELECT fh.game, count(*) AS hands, any_value(p.players) AS players,
               count(DISTINCT session) AS sessions, min(day) AS first_day, max(day) AS last_day
        FROM fh
        JOIN (SELECT s.game, count(DISTINCT s.player) AS players FROM seats s
              WHERE s.hand_id IN (SELECT hand_id FROM fh) GROUP BY s.game) p USING (game)
        GROUP BY fh.game ORDER BY fh.game
    """, params)


def hands_over_time(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                    bucket: str = "week") -> pd.DataFrame:
    """Hands per game per ``bucket`` (day, week, month, year)."""
    if bucket not in BUCKETS:
        raise ValueError(f"unknown bucket {bucket!r} (expected one of {', '.join(BUCKETS)})")
    cond, params = where(f)
    return _frame(con, f"""
        SELECT CAST(date_trunc('{bucket}', {DAY}) AS DATE) AS period, h.game,
               count(*) AS hands
        FROM hands h WHERE {cond}
        GROUP BY ALL ORDER BY period, h.game
    """, params)


def sessions(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int = 500
             ) -> pd.DataFrame:
    """Sessions (game ids, else table and day): hands, players, first and last day."""
    cond, params = where(f)
    params["limit"] = limit
    return _frame(con, f"""
        SELECT {SESSION} AS session, h.game, count(*) AS hands, max(h.num_players) AS players,
               min({DAY}) AS first_day, max({DAY}) AS last_day
        FROM hands h WHERE {cond}
        GROUP BY ALL ORDER BY last_day DESC, session LIMIT $limit
    """, params)


def player_results(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per game and player: hands, wins, total net, mean and standard deviation per hand."""
    cond, params = where(f)
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT s.game, s.player, count(*) AS hands, count(*) FILTER (WHERE s.winner) AS wins,
               CAST(sum(s.net) AS BIGINT) AS net, avg(s.net) AS mean, stddev_samp(s.net) AS sd
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.game, net DESC, s.player
    """, params | seat_params)


def cumulative_net(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: str,
                   points: int = 400, top: int = 8) -> pd.DataFrame:
    """Running net per player over the hands of ``game`` he played, in order of play.

    At most ``points`` points per player (the last hand of each stretch), for the
    ``top`` players with most hands unless players are chosen.  Columns: player,
    hand_no (his n-th hand), cumulative, and ``cumulative_ev``: for 7 & 8 the all-in
    adjusted line (the expected net from ``allin_results`` where the hand was all in
    with cards to come, else the actual net), null for the other games.
    """
    cond, params = where(f, game=game)
    seat_cond, seat_params = _seat_players(f)
    params |= seat_params | {"points": points, "top": top}
    return _frame(con, f"""
        WITH rows AS (
            SELECT s.player, s.net, {DAY} AS day, h.played_time, h.source_index, h.hand_id,
                   CASE WHEN s.game = 'seveneight' THEN coalesce(a.expected_net, s.net) END
                       AS adjusted
            FROM seats s JOIN hands h USING (hand_id)
            LEFT JOIN allin_results a ON a.hand_id = s.hand_id AND a.seat = s.seat
            WHERE {cond} AND {seat_cond}),
        chosen AS (SELECT player FROM rows GROUP BY player
                   ORDER BY count(*) DESC, player LIMIT $top),
        ordered AS (
            SELECT player, row_number() OVER w AS hand_no, sum(net) OVER w AS cumulative,
                   sum(adjusted) OVER w AS cumulative_ev,
                   count(*) OVER (PARTITION BY player) AS total
            FROM rows WHERE player IN (SELECT player FROM chosen)
            WINDOW w AS (PARTITION BY player ORDER BY day, played_time, source_index, hand_id
                         ROWS UNBOUNDED PRECEDING))
        SELECT player, hand_no, CAST(cumulative AS BIGINT) AS cumulative,
               CAST(cumulative_ev AS DOUBLE) AS cumulative_ev
        FROM ordered
        WHERE hand_no = total OR hand_no % greatest(1, total // $points) = 0
        ORDER BY player, hand_no
    """, params)


def by_position(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Mean net by position: 7 & 8 seat (1 small blind ... N button), Big Two order of play,
    Rummoli seat counted from the dealer's left (1) to the dealer (N)."""
    cond, params = where(f)
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT s.game, h.num_players AS players,
               CASE WHEN s.game = 'rummoli' AND h.dealer IS NOT NULL
                    THEN ((s.seat - h.dealer - 1 + h.num_players) % h.num_players) + 1
                    ELSE s.seat END AS position,
               count(*) AS hands, avg(s.net) AS mean, stddev_samp(s.net) AS sd
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.game, players, position
    """, params | seat_params)


def by_up_card(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """7 & 8: mean net by the rank of the card the player turned up."""
    cond, params = where(f, game="seveneight")
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT substr(a.cards, 1, 1) AS up_rank, count(*) AS hands, avg(s.net) AS mean,
               stddev_samp(s.net) AS sd
        FROM actions a
        JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.actor
        JOIN hands h ON h.hand_id = a.hand_id
        WHERE a.verb = 'up' AND {cond} AND {seat_cond}
        GROUP BY ALL
    """, params | seat_params)


def bigtwo_places(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Big Two per player: games by finishing place (none: still holding cards) and score."""
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT s.player, s.place, count(*) AS games, avg(s.net) AS mean_score,
               CAST(sum(s.net) AS BIGINT) AS score
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.player, s.place NULLS LAST
    """, params | seat_params)


def bigtwo_cards_left(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Big Two: how many games ended with each number of cards left in a player's hand."""
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        WITH fh AS (SELECT h.hand_id FROM hands h WHERE {cond}),
        counts AS (
            SELECT a.hand_id, CASE WHEN a.verb = 'dh' THEN a.target ELSE a.actor END AS seat,
                   sum(CASE WHEN a.verb = 'dh' THEN length(a.cards) // 2
                            ELSE -(length(a.cards) // 2) END) AS cards_left
            FROM actions a
            WHERE a.verb IN ('dh', 'pl') AND a.hand_id IN (SELECT hand_id FROM fh)
            GROUP BY ALL)
        SELECT s.player, c.cards_left, count(*) AS games
        FROM counts c JOIN seats s ON s.hand_id = c.hand_id AND s.seat = c.seat
        WHERE {seat_cond}
        GROUP BY ALL ORDER BY s.player, c.cards_left
    """, params | seat_params)


def rummoli_split(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Rummoli per player and part (:data:`SPLIT_PARTS`): chips won (or paid) per part.

    The parts add up to the player's net: ``antes and bets`` is what he paid in
    (antes, poker bets) net of the awards, i.e. net minus the other parts.
    """
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = _seat_players(f)
    cases = " ".join(f"WHEN '{pot}' THEN '{part}'" for pot, part in _SPLIT.items())
    return _frame(con, f"""
        WITH fs AS (SELECT s.hand_id, s.seat, s.player, s.net
                    FROM seats s JOIN hands h USING (hand_id)
                    WHERE {cond} AND {seat_cond}),
        parts AS (
            SELECT fs.player,
                   CASE a.pot {cases}
                        ELSE CASE WHEN a.pot LIKE 'poker_side%' THEN 'poker pot'
                                  ELSE 'finale' END END AS part,
                   sum(a.amount) AS amount
            FROM awards a JOIN fs ON fs.hand_id = a.hand_id AND fs.seat = a.player
            GROUP BY ALL),
        totals AS (SELECT player, count(*) AS rounds, sum(net) AS net FROM fs GROUP BY player)
        SELECT t.player, t.rounds, p.part, CAST(p.amount AS BIGINT) AS amount
        FROM totals t JOIN parts p USING (player)
        UNION ALL
        SELECT t.player, t.rounds, 'antes and bets',
               CAST(t.net - coalesce((SELECT sum(amount) FROM parts p
                                      WHERE p.player = t.player), 0) AS BIGINT)
        FROM totals t
        ORDER BY 1, 3
    """, params | seat_params)


def allin_totals(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """7 & 8 all-in adjusted results per player: hands, all-in hands, actual net, all-in
    adjusted net (expected where all in with cards to come, else actual), the luck in
    all-in hands (actual minus expected) and its standard error from Monte Carlo rows."""
    cond, params = where(f, game="seveneight")
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT s.player, count(*) AS hands, count(a.hand_id) AS all_in_hands,
               CAST(sum(s.net) AS BIGINT) AS net,
               sum(coalesce(a.expected_net, s.net)) AS adjusted_net,
               coalesce(sum(a.actual_net), 0) AS all_in_actual_net,
               coalesce(sum(a.expected_net), 0) AS all_in_expected_net,
               coalesce(sum(a.luck), 0) AS luck,
               sqrt(coalesce(sum(a.std_error * a.std_error), 0)) AS luck_std_error
        FROM seats s JOIN hands h USING (hand_id)
        LEFT JOIN allin_results a ON a.hand_id = s.hand_id AND a.seat = s.seat
        WHERE {cond} AND {seat_cond}
        GROUP BY s.player ORDER BY luck DESC, s.player
    """, params | seat_params)


def rummoli_poker_share(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Rummoli per player: rounds with strengths, expected poker-pot share (sum of
    ``share``: the best hand at the table judged from his own cards) against the
    realised share on everyone's cards, poker pots actually won, the mean chance of
    holding the best hand, and the expected share's standard error."""
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = _seat_players(f, alias="r")
    return _frame(con, f"""
        SELECT r.player, count(*) AS rounds, sum(r.share) AS expected_share,
               sum(r.realised_share) AS realised_share,
               count(*) FILTER (WHERE r.won_poker_pot) AS poker_pots_won,
               avg(r.p_best) AS mean_p_best,
               sqrt(sum(r.share_std_error * r.share_std_error)) AS expected_share_std_error
        FROM rummoli_strength r JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY r.player ORDER BY r.player
    """, params | seat_params)


def rummoli_board(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game_id: str | None,
                  limit: int = 20_000) -> pd.DataFrame:
    """The nine pots round by round of one Rummoli game (all games when ``game_id`` is None)."""
    cond, params = where(f, game="rummoli")
    params |= {"game_id": game_id, "limit": limit}
    return _frame(con, f"""
        SELECT h.game_id, h.round, b.pot, b.pot_order, b.before, b.antes, b.amount, b.won_by,
               s.player AS won_by_player, b.after
        FROM board b JOIN hands h USING (hand_id)
        LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        WHERE {cond} AND ($game_id IS NULL OR h.game_id = $game_id)
        ORDER BY h.game_id, h.round, b.pot_order LIMIT $limit
    """, params)


def pot_winners(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per pot: rounds, rounds it was won, and by whom (player, times, chips)."""
    cond, params = where(f, game="rummoli")
    return _frame(con, f"""
        SELECT b.pot, any_value(b.pot_order) AS pot_order, s.player AS won_by_player,
               count(*) AS rounds, CAST(sum(b.amount) AS BIGINT) AS chips
        FROM board b JOIN hands h USING (hand_id)
        LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        WHERE {cond}
        GROUP BY ALL ORDER BY pot_order, rounds DESC
    """, params)


def pot_streaks(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per pot and ``since`` (rounds since the pot was last won within its game): rounds,
    mean chips on the pot before the round's antes, mean antes per round, and how often
    it was won.  Comparing ``mean_before`` with ``since * mean_antes`` is the expected
    growth (every ante carried over) against the observed."""
    cond, params = where(f, game="rummoli")
    return _frame(con, f"""
        WITH rows AS (
            SELECT h.game_id, h.round, b.pot, b.pot_order, b.before, b.antes,
                   b.won_by IS NOT NULL AS won
            FROM board b JOIN hands h USING (hand_id) WHERE {cond}),
        grouped AS (
            SELECT *, coalesce(sum(CAST(won AS INTEGER)) OVER (
                       PARTITION BY game_id, pot ORDER BY round
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS streak
            FROM rows),
        numbered AS (
            SELECT *, row_number() OVER (PARTITION BY game_id, pot, streak ORDER BY round) - 1
                      AS since
            FROM grouped)
        SELECT pot, any_value(pot_order) AS pot_order, since, count(*) AS rounds,
               avg(before) AS mean_before, avg(antes) AS mean_antes,
               count(*) FILTER (WHERE won) AS won
        FROM numbered GROUP BY pot, since ORDER BY pot_order, since
    """, params)


def showdown_types(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Hands shown down: game, player, hand size (cards), category, count."""
    cond, params = where(f)
    seat_cond, seat_params = _seat_players(f)
    return _frame(con, f"""
        SELECT d.game, s.player, length(d.cards) // 2 AS size, d.category, count(*) AS hands
        FROM showdowns d JOIN hands h USING (hand_id)
        JOIN seats s ON s.hand_id = d.hand_id AND s.seat = d.player
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY d.game, s.player, size, d.category
    """, params | seat_params)


def dealt_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: str,
                sample: int = 50_000) -> pd.DataFrame:
    """Each player's dealt cards in ``game`` (all his ``dh`` actions in order, joined: 7 & 8's
    two cards then the third), a reproducible sample of at most ``sample`` hands: player,
    cards.  Hands with hidden cards (``??``) are left out."""
    cond, params = where(f, game=game)
    seat_cond, seat_params = _seat_players(f)
    rows = int(sample)  # DuckDB takes only a constant in SAMPLE; int() keeps it a number
    return _frame(con, f"""
        WITH dealt AS (
            SELECT s.player, string_agg(a.cards, '' ORDER BY a.seq) AS cards
            FROM actions a JOIN hands h ON h.hand_id = a.hand_id
            JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.target
            WHERE a.verb = 'dh' AND {cond} AND {seat_cond}
            GROUP BY a.hand_id, s.player)
        SELECT player, cards FROM dealt WHERE NOT contains(cards, '??')
        USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)
    """, params | seat_params)


def plays(con: duckdb.DuckDBPyConnection, f: HandFilter, *, sample: int = 20_000
          ) -> pd.DataFrame:
    """Big Two combinations played, a reproducible sample of at most ``sample``: player,
    cards, rules (the hand's knobs as JSON, which decide what a combination is)."""
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = _seat_players(f)
    rows = int(sample)
    return _frame(con, f"""
        SELECT s.player, a.cards, h.rules
        FROM actions a JOIN hands h ON h.hand_id = a.hand_id
        JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.actor
        WHERE a.verb = 'pl' AND {cond} AND {seat_cond}
        USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)
    """, params | seat_params)


def hand_list(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int = 500,
              offset: int = 0) -> pd.DataFrame:
    """Hands for the replayer's picker, most recent first: id, game, day, session, round,
    players, the winner and the largest net."""
    cond, params = where(f)
    params |= {"limit": limit, "offset": offset}
    return _frame(con, f"""
        WITH fh AS (
            SELECT h.hand_id, h.game, h.variant, {DAY} AS day, h.played_time,
                   {SESSION} AS session, h.round, h.hand_label, h.winner, h.source_index
            FROM hands h WHERE {cond}
            ORDER BY day DESC, h.played_time DESC NULLS LAST, h.source_index DESC, h.hand_id
            LIMIT $limit OFFSET $offset)
        SELECT fh.hand_id, fh.game, fh.variant, fh.day, fh.played_time, fh.session, fh.round,
               fh.hand_label, string_agg(s.player, ', ' ORDER BY s.seat) AS players,
               max(CASE WHEN s.seat = fh.winner THEN s.player END) AS winner,
               max(s.net) AS top_net
        FROM fh JOIN seats s USING (hand_id)
        GROUP BY fh.hand_id, fh.game, fh.variant, fh.day, fh.played_time, fh.session, fh.round,
                 fh.hand_label, fh.source_index
        ORDER BY fh.day DESC, fh.played_time DESC NULLS LAST, fh.source_index DESC, fh.hand_id
    """, params)


def hand_detail(con: duckdb.DuckDBPyConnection, hand_id: int) -> dict[str, pd.DataFrame]:
    """Everything stored about one hand: ``hand`` (one row), ``seats``, ``actions``,
    ``board`` (Rummoli), ``showdowns`` and ``awards``."""
    params: Params = {"hand_id": hand_id}
    return {
        "hand": _frame(con, "SELECT * FROM hands WHERE hand_id = $hand_id", params),
        "seats": _frame(con, "SELECT * FROM seats WHERE hand_id = $hand_id ORDER BY seat",
                        params),
        "actions": _frame(con, "SELECT * FROM actions WHERE hand_id = $hand_id ORDER BY seq",
                          params),
        "board": _frame(con, "SELECT * FROM board WHERE hand_id = $hand_id ORDER BY pot_order",
                        params),
        "showdowns": _frame(con, "SELECT * FROM showdowns WHERE hand_id = $hand_id", params),
        "awards": _frame(con, "SELECT * FROM awards WHERE hand_id = $hand_id", params),
    }


def rejects(con: duckdb.DuckDBPyConnection, *, files: list[str] | None = None,
            game: str | None = None, limit: int = 1000) -> pd.DataFrame:
    """Rejected hands (of the given files, of one game, or all): file, hand, line, stage,
    reason."""
    return _frame(con, """
        SELECT file, hand_index, line, stage, game, error
        FROM rejects
        WHERE ($files IS NULL OR list_contains($files, file)
               OR list_contains($files, split_part(file, ':', 1)))
          AND ($game IS NULL OR game = $game)
        ORDER BY rejected_at DESC, file, hand_index LIMIT $limit
    """, {"files": files, "game": game, "limit": limit})
