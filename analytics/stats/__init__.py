"""Player statistics, defined once (:mod:`analytics.stats.definitions`): the dashboard's
statistics page, the report's section and ``handlab stats`` all read them from here.

:mod:`analytics.stats.seveneight` summarises a 7 & 8 seat's betting (the rows its
statistics are counted over), :mod:`analytics.stats.interval` gives Wilson's interval and
:mod:`analytics.stats.cells` shapes a grid for people (``12/40 (30%)``).  The SQL that
stores and sums them lives in the warehouse (``stat_facts``, ``stat_views``).
"""

from analytics.stats.definitions import (
    BIGTWO_SEATS,
    ENDS_AT_FIRST_OUT,
    FRY_THRESHOLD,
    LEVELS,
    MIN_OPPORTUNITIES,
    RESULTS,
    SOURCES,
    SPLITS,
    STATS,
    Kind,
    Result,
    Stat,
    level_sql,
    stat_columns,
    stats_of,
)

__all__ = ["BIGTWO_SEATS", "ENDS_AT_FIRST_OUT", "FRY_THRESHOLD", "LEVELS", "MIN_OPPORTUNITIES",
           "RESULTS", "SOURCES", "SPLITS", "STATS", "Kind", "Result", "Stat", "level_sql",
           "stat_columns", "stats_of"]
