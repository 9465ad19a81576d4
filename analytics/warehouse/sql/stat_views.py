"""The statistics grid: each player's counts and opportunities, summed in DuckDB.

:func:`stat_grid` sums the per-seat counts of :mod:`analytics.stats.definitions` over the
seats a :class:`~analytics.warehouse.sql.views.HandFilter` keeps (one scan of the game's
source table: ``stat_facts`` for 7 & 8, ``seat_facts`` for Big Two), one row per player
(and per split value), with the result columns.  :func:`player_rows` is the one place a
game's per-player row is assembled (the grid, then any extra columns joined on the
player): ``handlab stats``, the dashboard and the report all read it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Final

import duckdb
import pandas as pd

from analytics.stats.definitions import (
    CURRENCY,
    LEVELS,
    ONE_CURRENCY,
    RESULTS,
    SOURCES,
    SPLITS,
    Result,
    Stat,
    level_sql,
    stats_of,
)
from analytics.warehouse.sql.scores import SUMMARY_COLUMNS, bigtwo_score_summary
from analytics.warehouse.sql.views import (
    RANK_KNOB,
    HandFilter,
    facts_where,
    latest_first,
    result_sql,
)
from parsers.rule_options import Game

__all__ = [
    "BY",
    "GAME_EXTRAS",
    "SESSION_GAP_MINUTES",
    "UNITS",
    "Extra",
    "player_rows",
    "player_sessions",
    "results_over_time",
    "score_keeper_columns",
    "session_hands",
    "session_unit",
    "stat_grid",
    "stat_hands",
    "stat_levels",
]

Extra = Callable[[duckdb.DuckDBPyConnection, HandFilter], pd.DataFrame]
"""More columns for a game's per-player rows: a question answering one row per ``player``."""


def _per_seat(stat: Stat, stored: bool) -> tuple[str, str]:
    """The SQL of one seat's count and opportunities of a statistic over the row ``x``: what
    the grid sums (:func:`stat_grid`) and what the hands behind a cell list
    (:func:`stat_hands`)."""
    if stored:  # stat_facts holds them per seat, already evaluated
        return f"x.{stat.name}", f"x.{stat.opps_column}"
    return f"CAST(({stat.count}) AS BIGINT)", f"CAST(({stat.opportunities}) AS BIGINT)"


def _summed(stat: Stat, stored: bool) -> str:
    """The SQL sums of a statistic's count and opportunities over the rows ``x``."""
    count, opps = _per_seat(stat, stored)
    total = f"CAST(coalesce(sum({count}), 0) AS BIGINT)"
    if stat.per_level:
        total = _in_one_level(total, stat.game)
    return (f"{total} AS {stat.name}, "
            f"CAST(coalesce(sum({opps}), 0) AS BIGINT) AS {stat.opps_column}")


_STORED: Final = frozenset({Game.SEVENEIGHT, Game.RUMMOLI})  # games whose counts stat_facts holds


def stat_grid(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
              split: str | None = None, fry_threshold: int | None = None) -> pd.DataFrame:
    """Per player (and per ``split`` value: :data:`~analytics.stats.definitions.SPLITS`)
    the game's statistics as ``<name>`` (count) and ``<name>_opps`` columns, then its
    result columns (one counted in a rule's unit: none for a row whose hands were played
    under several of those rules), and for 7 & 8 and Rummoli ``currency``: the one its
    results in chips are counted in (``chips`` when none is declared), none over several; ordered by
    player.  Only the filter's players' own seats count when it names players.  Big
    Two's fry is each game's own ``fry_threshold``, or ``fry_threshold`` for every game
    when given."""
    chosen = Game(game)
    stats = stats_of(chosen)
    splits = SPLITS[chosen]
    if split is not None and split not in splits:
        raise ValueError(f"unknown split {split!r} for {chosen.value} (expected one of "
                         f"{', '.join(splits)})")
    cond, params = facts_where(f, game=chosen.value)
    stored = chosen in _STORED
    by = f", {splits[split]} AS {split}" if split else ""
    columns = ", ".join([*(_summed(stat, stored) for stat in stats),
                         *(f"{_result(r)} AS {r.name}" for r in RESULTS[chosen]),
                         *([f"{CURRENCY} AS currency"] if stored else [])])
    sql = f"""
        SELECT x.player{by}, {columns}
        FROM {SOURCES[chosen]} x
        WHERE {cond}
        GROUP BY ALL ORDER BY ALL
    """
    if "$fry_threshold" in sql:
        params = {**params, "fry_threshold": fry_threshold}
    return con.execute(sql, _named(sql, params)).fetchdf()


def stat_levels(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str
                ) -> list[str]:
    """The scoring rules (Big Two) or antes (Rummoli) the filter's hands of ``game`` were
    played under (:data:`~analytics.stats.definitions.LEVELS`), in order: with more than
    one, the grid is split by them (its results in a rule's unit); none for 7 & 8."""
    chosen = Game(game)
    if chosen not in LEVELS:
        return []
    cond, params = facts_where(f, game=chosen.value)
    sql = (f"SELECT DISTINCT {level_sql(chosen, 'r')} AS level FROM "
           f"(SELECT DISTINCT x.rules AS r FROM {SOURCES[chosen]} x WHERE {cond}) "
           "ORDER BY level")
    return [str(row[0]) for row in con.execute(sql, _named(sql, params)).fetchall()]


def _result(result: Result) -> str:
    """A result column's aggregate; for one counted in its rule's unit (``per_level``),
    NULL over a row whose hands were played under more than one of those rules, or under
    Big Two's rank scoring, which has none."""
    return _in_one_level(result.aggregate, result.game) if result.per_level else result.aggregate


def _in_one_level(aggregate: str, game: Game) -> str:
    """``aggregate`` over a group whose rows were all played under one of ``game``'s
    :data:`LEVELS` rules, one with a unit, else NULL (a count or result in the rule's
    unit)."""
    return f"CASE WHEN {_ONE_LEVEL[game]} THEN {aggregate} END"


_ROW_LEVELS: Final = {game: "list_distinct(list_transform(list(DISTINCT x.rules), "
                            f"lambda r: {level_sql(game, 'r')}))" for game in LEVELS}
"""A group's distinct :data:`LEVELS` values: the knob read from each distinct rules text,
not from every row (a tenth of the time over a million seats)."""
_ONE_LEVEL: Final = {
    game: f"len({levels}) = 1"
          + (f" AND {levels}[1] <> '{RANK_KNOB[1]}'" if game is Game.BIGTWO else "")
          + (f" AND {ONE_CURRENCY}" if game is Game.RUMMOLI else "")
    for game, levels in _ROW_LEVELS.items()}
"""Whether a group's rows were all played under one of their game's :data:`LEVELS`, and
one with points: Big Two's rank scoring has none (``views.RANK_LEVEL``), so its points are
NULL too, not 0; Rummoli's rows also in one currency (chips of two are never averaged)."""


_HAND_ORDERS: Final = {"latest": latest_first(),
                       "play": "day, played_time NULLS LAST, source_index, hand_id"}
"""How :func:`stat_hands` orders its rows (a whitelist): the latest first, or in order
of play as :func:`results_over_time` numbers a player's hands."""


def stat_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
               player: str | None, stat: str | None = None, split: str | None = None,
               split_value: str | None = None, fry_threshold: int | None = None,
               order: str = "latest") -> pd.DataFrame:
    """The hands behind one cell of :func:`stat_grid`: ``player``'s seats (of the ``split``
    value given, NULL for the grid's empty one) that count towards ``stat`` or are an
    opportunity of it, with each seat's ``counted`` and ``opportunities`` (the same
    per-seat SQL the grid sums: the columns' sums are the cell's count and opportunities).
    Without ``stat`` (the result columns: hands, net), every hand of his the grid's row
    counts, each with ``counted`` = ``opportunities`` = 1.  With ``player`` None, every
    player's seats the filter keeps (a bar over all players: one row per seat).  The
    latest first, or with ``order="play"`` in order of play (his hand numbers of
    :func:`results_over_time`).  Columns: hand_id, day, counted, opportunities, net, and
    ``result``: the seat's result in the unit of :func:`results_over_time` (:data:`UNITS`:
    7 & 8's big blinds, Rummoli's poker phase, Big Two's points or game won)."""
    chosen = Game(game)
    splits = SPLITS[chosen]
    if split is not None and split not in splits:
        raise ValueError(f"unknown split {split!r} for {chosen.value} (expected one of "
                         f"{', '.join(splits)})")
    if order not in _HAND_ORDERS:
        raise ValueError(f"unknown order {order!r} (expected one of {', '.join(_HAND_ORDERS)})")
    if stat is None:
        count, opps = "1", "1"
    else:
        named = {s.name: s for s in stats_of(chosen)}
        if stat not in named:
            raise ValueError(f"unknown statistic {stat!r} for {chosen.value} (expected one "
                             f"of {', '.join(named)})")
        count, opps = _per_seat(named[stat], chosen in _STORED)
    cond, params = facts_where(f, game=chosen.value)
    by = f" AND {splits[split]} IS NOT DISTINCT FROM $split_value" if split else ""
    his = " AND x.player = $player" if player is not None else ""
    result = _result_terms(chosen, f)[1]
    sql = f"""
        SELECT hand_id, day, counted, opportunities, net, result FROM (
            SELECT x.hand_id, x.day, x.played_time, x.source_index,
                   CAST(coalesce({count}, 0) AS BIGINT) AS counted,
                   CAST(coalesce({opps}, 0) AS BIGINT) AS opportunities,
                   CAST(x.net AS BIGINT) AS net, {result} AS result
            FROM {SOURCES[chosen]} x
            WHERE {cond}{his}{by})
        WHERE counted <> 0 OR opportunities <> 0
        ORDER BY {_HAND_ORDERS[order]}
    """
    params = {**params, "player": player, "split_value": split_value,
              "fry_threshold": fry_threshold}
    return con.execute(sql, _named(sql, params)).fetchdf()


def score_keeper_columns(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Big Two as a score keeper counts it (:func:`scores.bigtwo_score_summary`), one row per
    player without the table's ``*`` row: ``game_count``, ``win_count``, ``fry_count``,
    ``real_losses``, ``net_score``, the fractions and per-game values, ``is_regular``."""
    summary = bigtwo_score_summary(con, f)
    summary = summary[summary["name"] != "*"].rename(columns={"name": "player"})
    return summary[["player", *(c for c in SUMMARY_COLUMNS if c != "name")]]


GAME_EXTRAS: Final[dict[Game, tuple[Extra, ...]]] = {Game.BIGTWO: (score_keeper_columns,)}
"""The columns each game's row has beyond its statistics grid (issue #29's score keeper's
for Big Two)."""


def player_rows(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
                fry_threshold: int | None = None, extras: Sequence[Extra] | None = None
                ) -> pd.DataFrame:
    """One row per player of ``game``: the statistics grid, then the columns of each of
    ``extras`` (by default the game's :data:`GAME_EXTRAS`) joined on the player (a player
    an extra does not know gets empty cells)."""
    rows = stat_grid(con, f, game=game, fry_threshold=fry_threshold)
    for extra in GAME_EXTRAS.get(Game(game), ()) if extras is None else extras:
        more = extra(con, f)
        clash = (set(more.columns) - {"player"}) & set(rows.columns)
        if clash:
            raise ValueError(f"extra columns clash with the grid's: {sorted(clash)}")
        rows = rows.merge(more, on="player", how="left")
    return rows


BY: Final = {"hand": "hand_no", "date": "day"}
"""What the results over time are drawn against (a whitelist): the player's hand number, or
the day of play."""

# Per game: the rows, each seat's result in the game's unit, its all-in adjusted result and
# whether it went to showdown (NULL: the game has no showdown line).  Rummoli: the poker
# phase's net (the poker pot won less his ante into it and his bets), as issue #28 asks;
# it has no all-in adjusted result, so that line is the actual one.
_RESULT_TERMS: Final = {
    Game.SEVENEIGHT: ("stat_facts", "x.net / x.big_blind", "x.adjusted_net / x.big_blind",
                      "x.wsd_opps > 0"),
    Game.RUMMOLI: ("stat_facts", "CAST(x.poker_net AS DOUBLE)", "CAST(x.poker_net AS DOUBLE)",
                   "x.wsd_opps > 0"),
    Game.BIGTWO: ("seat_facts", "CAST(x.net AS DOUBLE)", "CAST(x.net AS DOUBLE)",
                  "CAST(NULL AS BOOLEAN)"),
}
UNITS: Final = {Game.SEVENEIGHT: "big blinds", Game.RUMMOLI: "chips, poker phase",
                Game.BIGTWO: "points"}
"""The unit of each game's results over time."""


def _result_terms(game: Game, f: HandFilter, *, whole_round: bool = False
                  ) -> tuple[str, str, str, str]:
    """:data:`_RESULT_TERMS` of ``game`` under ``f``: Big Two's result is its points, or a
    game won under rank scoring alone (``views.result_sql``); Rummoli's, with
    ``whole_round``, the whole round's net instead of the poker phase's."""
    table, unit, adjusted, showdown = _RESULT_TERMS[game]
    if whole_round and game is Game.RUMMOLI:
        unit = adjusted = "CAST(x.net AS DOUBLE)"
    if game is Game.BIGTWO:  # points, or games won under rank scoring
        unit = adjusted = f"CAST({result_sql(f)} AS DOUBLE)"
    return table, unit, adjusted, showdown


# Results by hand number without a running sum over every hand in order of play (3 s CPU
# over a million hands).  About every k-th hand is drawn (k: his hands over the points
# asked), each point exact: a day of k hands or fewer is drawn at its end when a multiple
# of k falls in it (its sums: his days before it plus the day's, from a hash aggregate and
# running sums over days), and only a day of more than k hands has its hands put in order
# of play, drawn at every k-th hand and at the day's end.  His last hand is always drawn.
# {table}, {cond}, {unit}, {adjusted}, {showdown}: as results_over_time fills them
# (whitelisted SQL).
_BY_HAND: Final = """
    WITH x AS (
        SELECT x.player, x.day, x.played_time, x.source_index, x.hand_id,
               {unit} AS unit, {adjusted} AS adjusted, {showdown} AS shown
        FROM {table} x WHERE {cond} AND list_contains($chosen, x.player)),
    d AS (
        SELECT player, day, count(*) AS n, sum(unit) AS actual, sum(adjusted) AS adjusted,
               sum(CASE WHEN shown THEN unit ELSE 0 END) AS sd,
               sum(CASE WHEN shown THEN 0 ELSE unit END) AS nsd, bool_or(shown) AS any_sd
        FROM x GROUP BY ALL),
    c AS (
        SELECT player, day, n, actual, adjusted, sd, nsd,
               coalesce(sum(n) OVER before, 0) AS n_before,
               coalesce(sum(actual) OVER before, 0) AS actual_before,
               coalesce(sum(adjusted) OVER before, 0) AS adjusted_before,
               coalesce(sum(sd) OVER before, 0) AS sd_before,
               coalesce(sum(nsd) OVER before, 0) AS nsd_before,
               sum(n) OVER p AS total, bool_or(any_sd) OVER p AS any_sd
        FROM d
        WINDOW p AS (PARTITION BY player),
               before AS (PARTITION BY player ORDER BY day
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
    k AS (SELECT *, greatest(1, total // $points) AS every FROM c),
    day_ends AS (
        SELECT player, n_before + n AS hand_no, actual_before + actual AS actual,
               adjusted_before + adjusted AS adjusted, sd_before + sd AS sd,
               nsd_before + nsd AS nsd, any_sd
        FROM k
        WHERE n <= every AND ((n_before + n) // every > n_before // every
                              OR n_before + n = total)),
    ordered AS (
        SELECT x.player, x.day, k.n_before + row_number() OVER (
                   PARTITION BY x.player, x.day
                   ORDER BY x.played_time NULLS LAST, x.source_index, x.hand_id) AS hand_no,
               k.every, x.unit, x.adjusted, x.shown
        FROM x JOIN k USING (player, day) WHERE k.n > k.every),
    parts AS (
        SELECT player, day, max(hand_no) AS hand_no, sum(unit) AS actual,
               sum(adjusted) AS adjusted, sum(CASE WHEN shown THEN unit ELSE 0 END) AS sd,
               sum(CASE WHEN shown THEN 0 ELSE unit END) AS nsd
        FROM ordered GROUP BY player, day, (hand_no - 1) // every),
    in_days AS (
        SELECT p.player, p.hand_no,
               k.actual_before + sum(p.actual) OVER w AS actual,
               k.adjusted_before + sum(p.adjusted) OVER w AS adjusted,
               k.sd_before + sum(p.sd) OVER w AS sd,
               k.nsd_before + sum(p.nsd) OVER w AS nsd, k.any_sd
        FROM parts p JOIN k USING (player, day)
        WINDOW w AS (PARTITION BY p.player, p.day ORDER BY p.hand_no
                     ROWS UNBOUNDED PRECEDING))
    SELECT player, hand_no, hand_no AS hands, actual, adjusted,
           CASE WHEN any_sd IS NULL THEN NULL ELSE sd END AS showdown,
           CASE WHEN any_sd IS NULL THEN NULL ELSE nsd END AS no_showdown
    FROM (SELECT * FROM day_ends UNION ALL SELECT * FROM in_days)
    ORDER BY player, hand_no
"""


def results_over_time(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
                      by: str = "hand", points: int = 400, top: int = 8,
                      whole_round: bool = False) -> pd.DataFrame:
    """Each player's cumulative results in the game's unit (:data:`UNITS`: 7 & 8 in big
    blinds, each hand's net over its big blind), by his hand number (in order of play: day,
    time, place in the file; about every ``total // points``-th hand, at the end of its
    day unless the day holds more hands than that, and his last: at most about twice
    ``points`` points, each exact) or by day: ``actual``, ``adjusted`` (7 & 8: the all-in
    adjusted result; the actual one elsewhere), ``showdown`` and ``no_showdown`` (the
    results of the hands that went to showdown with him, and of the others; null for Big
    Two), and ``hands`` so far (Big Two under rank scoring alone: games won,
    :func:`~analytics.warehouse.sql.views.counts_wins`).  For the filter's players, else the
    ``top`` players with most hands.  Rummoli's lines are its poker phase's net; with
    ``whole_round`` the whole round's (every pot, payment and ante: the Win rates page's
    running totals and the report's)."""
    chosen = Game(game)
    if by not in BY:
        raise ValueError(f"unknown order {by!r} (expected one of {', '.join(BY)})")
    table, unit, adjusted, showdown = _result_terms(chosen, f, whole_round=whole_round)
    cond, params = facts_where(f, game=chosen.value)
    players = [str(row[0]) for row in con.execute(f"""
        SELECT x.player FROM {table} x WHERE {cond}
        GROUP BY x.player ORDER BY count(*) DESC, x.player LIMIT $top
    """, _named(f"{cond} $top", params | {"top": top})).fetchall()]
    if by == "hand":
        sql = _BY_HAND.format(table=table, cond=cond, unit=unit, adjusted=adjusted,
                              showdown=showdown)
    else:
        sql = f"""
            WITH d AS (
                SELECT x.player, x.day, count(*) AS n, sum({unit}) AS actual,
                       sum({adjusted}) AS adjusted,
                       sum(CASE WHEN {showdown} THEN {unit} ELSE 0 END) AS sd,
                       sum(CASE WHEN {showdown} THEN 0 ELSE {unit} END) AS nsd,
                       bool_or({showdown}) AS any_sd
                FROM {table} x WHERE {cond} AND list_contains($chosen, x.player)
                GROUP BY ALL)
            SELECT player, day, sum(n) OVER w AS hands, sum(actual) OVER w AS actual,
                   sum(adjusted) OVER w AS adjusted,
                   CASE WHEN bool_or(any_sd) OVER p IS NULL THEN NULL
                        ELSE sum(sd) OVER w END AS showdown,
                   CASE WHEN bool_or(any_sd) OVER p IS NULL THEN NULL
                        ELSE sum(nsd) OVER w END AS no_showdown
            FROM d
            WINDOW p AS (PARTITION BY player),
                   w AS (PARTITION BY player ORDER BY day ROWS UNBOUNDED PRECEDING)
            ORDER BY player, day
        """
    return con.execute(sql, _named(sql, params | {"chosen": players, "points": points})
                       ).fetchdf()


def _named(sql: str, params: dict[str, object]) -> dict[str, object]:
    """Only the parameters ``sql`` names: DuckDB refuses unused named parameters."""
    return {key: value for key, value in params.items() if f"${key}" in sql}


SESSION_GAP_MINUTES: Final = 30
"""A gap longer than this (minutes) between a player's hands at one place ends a session."""


def player_sessions(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
                    gap_minutes: int = SESSION_GAP_MINUTES, limit: int = 1000
                    ) -> pd.DataFrame:
    """Each player's sessions of ``game``, the latest first: his hands at one place (the
    game id, else the table, else the source file; Big Two: the game id, else the
    ``seat_facts.session`` label) with no gap over ``gap_minutes`` between two hands'
    times of day.  Hands without a time of day make one session per place and day (no
    duration, no end; its start is the day's midnight, and it is listed as after that
    day's timed sessions, as it is counted).  Columns: player,
    place, start and end (the first and last hand's time), minutes, hands, net (chips;
    Big Two points), net_per_hour (none for a session without duration), biggest_win and
    biggest_loss (the best and worst hand, 0 when none won or lost), first_hand (the id of
    its first hand in order of play: time, place in the file, id), unit (what its net is
    counted in: :func:`session_unit`; a sitting whose stakes or rules changed is a session
    per unit, so that no net adds chips of two stakes or points of two scoring rules)."""
    chosen = Game(game)
    cond, params = facts_where(f, game=chosen.value)
    table, place = _session_rows(chosen)
    unit = session_unit(chosen)
    # Not every hand in order (3 s CPU over a million hands): the hands are first summed in
    # bins of the gap's length (per place, day and bin of the time of day; a day's hands
    # without a time are one bin, after its timed ones), in which no two hands are more
    # than the gap apart.  So a session can only end between two bins, where the gap is
    # the next bin's first time less the bin's last: bins in order (a few per player and
    # day) are what the running count of sessions goes over.  The first hand is looked up
    # for the sessions listed only (the hands at its start: for a timed session those
    # played at its first time, else those of its day without a time), not carried through
    # every bin: an arg_min over (time, place in file, id) per bin was a third of the CPU.
    sql = f"""
        WITH s AS NOT MATERIALIZED (
            SELECT x.player, {place} AS place, {unit} AS unit, x.hand_id, x.net, x.day,
                   x.source_index,
                   CASE WHEN x.played_time IS NOT NULL THEN x.day + x.played_time END AS played_at
            FROM {table} x WHERE {cond}),
        b AS (
            SELECT player, place, unit, day, played_at IS NULL AS untimed,
                   coalesce(epoch_us(played_at) // ($gap * 60000000), 0) AS bin,
                   count(*) AS hands, sum(net) AS net, max(net) AS best, min(net) AS worst,
                   min(played_at) AS first_at, max(played_at) AS last_at
            FROM s GROUP BY ALL),
        o AS (
            SELECT *, lag(last_at) OVER w AS prev_at, lag(day) OVER w AS prev_day,
                   lag(untimed) OVER w AS prev_untimed
            FROM b
            WINDOW w AS (PARTITION BY player, place, unit ORDER BY day, untimed, bin)),
        g AS (
            SELECT *, sum(CASE WHEN prev_untimed IS NULL OR untimed <> prev_untimed
                                 OR (untimed AND day <> prev_day)
                                 OR epoch(first_at) - epoch(prev_at) > $gap * 60
                               THEN 1 ELSE 0 END) OVER (
                       PARTITION BY player, place, unit ORDER BY day, untimed, bin
                       ROWS UNBOUNDED PRECEDING) AS number
            FROM o),
        t AS (
            SELECT player, place, unit,
                   coalesce(min(first_at), CAST(min(day) AS TIMESTAMP)) AS start,
                   max(last_at) AS "end",
                   (epoch(max(last_at)) - epoch(min(first_at))) / 60 AS minutes,
                   sum(hands) AS hands, CAST(sum(net) AS BIGINT) AS net,
                   CASE WHEN epoch(max(last_at)) > epoch(min(first_at))
                        THEN sum(net) * 3600 / (epoch(max(last_at)) - epoch(min(first_at))) END
                       AS net_per_hour,
                   greatest(max(best), 0) AS biggest_win, least(min(worst), 0) AS biggest_loss
            FROM g GROUP BY player, place, unit, number
            ORDER BY CAST(start AS DATE) DESC, "end" IS NULL DESC, start DESC, player, place,
                     unit
            LIMIT $limit),
        f AS (
            SELECT t.player, t.place, t.unit, t.start, t."end" IS NULL AS untimed,
                   arg_min(s.hand_id, (s.source_index, s.hand_id)) AS first_hand
            FROM t JOIN s ON s.player = t.player AND s.place = t.place AND s.unit = t.unit
                         AND s.day = CAST(t.start AS DATE)
                         AND (s.played_at = t.start
                              OR (t."end" IS NULL AND s.played_at IS NULL))
            GROUP BY ALL)
        SELECT t.* EXCLUDE (unit), f.first_hand, t.unit
        FROM t JOIN f ON f.player = t.player AND f.place = t.place AND f.unit = t.unit
                     AND f.start = t.start AND f.untimed = (t."end" IS NULL)
        ORDER BY CAST(t.start AS DATE) DESC, t."end" IS NULL DESC, t.start DESC, t.player,
                 t.place, t.unit
    """
    return con.execute(sql, _named(sql, params | {"gap": gap_minutes, "limit": limit})
                       ).fetchdf()


def session_unit(game: Game) -> str:
    """The SQL (over ``x``) of what a session's net of ``game`` is counted in: 7 & 8's
    stakes (``views.STAKES``), Rummoli's stakes and ante (``NRM min 1 ante 2``), Big Two's
    scoring rule (``cards``)."""
    if game is Game.BIGTWO:
        return level_sql(game)
    if game is Game.RUMMOLI:
        return f"x.stakes || ' ante ' || {level_sql(game)}"
    return "x.stakes"


def _session_rows(game: Game) -> tuple[str, str]:
    """The table a game's sessions are read from and its place (SQL over ``x``)."""
    if game is Game.BIGTWO:
        return "seat_facts", "coalesce(x.game_id, x.session)"
    return "stat_facts", "x.place"


def session_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
                  player: str, place: str, unit: str, start: dt.datetime,
                  end: dt.datetime | None) -> pd.DataFrame:
    """The hands of one session of :func:`player_sessions` (its player, place, unit, start
    and end), in order of play: his hands at the place played from ``start`` to ``end``, or,
    for a session without times of day (no ``end``), those of the start's day without a
    time.  A session's hands are exactly these: his next hand at the place after a gap
    starts another session, and hands without a time are sessions of their own.
    Columns: hand_id, day, played_at, net."""
    chosen = Game(game)
    cond, params = facts_where(f, game=chosen.value)
    table, where = _session_rows(chosen)
    when = ("x.played_time IS NOT NULL AND x.day + x.played_time BETWEEN $start AND $end"
            if end is not None else "x.played_time IS NULL AND x.day = CAST($start AS DATE)")
    sql = f"""
        SELECT x.hand_id, x.day,
               CASE WHEN x.played_time IS NOT NULL THEN x.day + x.played_time END AS played_at,
               CAST(x.net AS BIGINT) AS net
        FROM {table} x
        WHERE {cond} AND x.player = $player AND {where} = $place
              AND {session_unit(chosen)} = $unit AND {when}
        ORDER BY x.day, x.played_time NULLS LAST, x.source_index, x.hand_id
    """
    params = {**params, "player": player, "place": place, "unit": unit, "start": start,
              "end": end}
    return con.execute(sql, _named(sql, params)).fetchdf()
