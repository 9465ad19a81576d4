"""The statistics grid: each player's counts and opportunities, summed in DuckDB.

:func:`stat_grid` sums the per-seat counts of :mod:`analytics.stats.definitions` over the
seats a :class:`~analytics.warehouse.views.HandFilter` keeps (one scan of the game's
source table: ``stat_facts`` for 7 & 8, ``seat_facts`` for Big Two), one row per player
(and per split value), with the result columns.  :func:`player_rows` is the one place a
game's per-player row is assembled (the grid, then any extra columns joined on the
player): ``handlab stats``, the dashboard and the report all read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import duckdb
import pandas as pd

from analytics.stats.definitions import (
    FRY_THRESHOLD,
    RESULTS,
    SOURCES,
    SPLITS,
    Stat,
    stats_of,
)
from analytics.warehouse.views import HandFilter, facts_where
from parsers.knobs import Game

__all__ = ["Extra", "player_rows", "stat_grid"]

Extra = Callable[[duckdb.DuckDBPyConnection, HandFilter], pd.DataFrame]
"""More columns for a game's per-player rows: a question answering one row per ``player``."""


def _summed(stat: Stat, stored: bool) -> str:
    """The SQL sums of a statistic's count and opportunities over the rows ``x``."""
    if stored:  # stat_facts holds them per seat, already evaluated
        count, opps = f"x.{stat.name}", f"x.{stat.opps_column}"
    else:
        count = f"CAST(({stat.count}) AS BIGINT)"
        opps = f"CAST(({stat.opportunities}) AS BIGINT)"
    return (f"CAST(coalesce(sum({count}), 0) AS BIGINT) AS {stat.name}, "
            f"CAST(coalesce(sum({opps}), 0) AS BIGINT) AS {stat.opps_column}")


_STORED: Final = frozenset({Game.SEVENEIGHT, Game.RUMMOLI})  # games whose counts stat_facts holds


def stat_grid(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
              split: str | None = None, fry_threshold: int = FRY_THRESHOLD) -> pd.DataFrame:
    """Per player (and per ``split`` value: :data:`~analytics.stats.definitions.SPLITS`)
    the game's statistics as ``<name>`` (count) and ``<name>_opps`` columns, then its
    result columns; ordered by player.  Only the filter's players' own seats count when
    it names players."""
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
                         *(f"{r.aggregate} AS {r.name}" for r in RESULTS[chosen])])
    sql = f"""
        SELECT x.player{by}, {columns}
        FROM {SOURCES[chosen]} x
        WHERE {cond}
        GROUP BY ALL ORDER BY ALL
    """
    if "$fry_threshold" in sql:
        params = {**params, "fry_threshold": fry_threshold}
    used = {key: value for key, value in params.items() if f"${key}" in sql}
    return con.execute(sql, used).fetchdf()


def player_rows(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: Game | str,
                fry_threshold: int = FRY_THRESHOLD, extras: Sequence[Extra] = ()
                ) -> pd.DataFrame:
    """One row per player of ``game``: the statistics grid, then the columns of each of
    ``extras`` joined on the player (a player an extra does not know gets empty cells)."""
    rows = stat_grid(con, f, game=game, fry_threshold=fry_threshold)
    for extra in extras:
        more = extra(con, f)
        clash = (set(more.columns) - {"player"}) & set(rows.columns)
        if clash:
            raise ValueError(f"extra columns clash with the grid's: {sorted(clash)}")
        rows = rows.merge(more, on="player", how="left")
    return rows

