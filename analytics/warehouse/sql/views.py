"""The dashboard's and the reports' questions beyond :mod:`analytics.warehouse.sql.queries`.

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
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

import duckdb
import pandas as pd

from analytics.evaluator import BigTwoKind
from analytics.stats import BIGTWO_SEATS, ENDS_AT_FIRST_OUT
from parsers.fields import VARIANTS
from parsers.model import RUMMOLI_POTS
from parsers.rule_options import BIGTWO_KNOBS, GAME_NAMES, RUMMOLI_KNOBS, Game

__all__ = [
    "BAR_COLUMNS",
    "BUCKETS",
    "DAY",
    "GAMING_DAY",
    "GAMING_DAY_STARTS",
    "KNOBS",
    "SESSION",
    "STAKES",
    "HandFilter",
    "StakesLabel",
    "allin_totals",
    "bar_hands",
    "betting_words",
    "bigtwo_cards_left",
    "bigtwo_places",
    "by_position",
    "by_up_card",
    "current_hand_id",
    "data_version",
    "dealt_hands",
    "dealt_types",
    "facts_where",
    "filter_options",
    "finale_round",
    "hand_detail",
    "hand_facts_where",
    "hand_list",
    "hands_over_time",
    "in_latest_order",
    "knob_choice",
    "latest_first",
    "level_filter",
    "level_of",
    "overview",
    "overview_page",
    "play_kinds",
    "player_results",
    "plays",
    "pot_streak_hands",
    "pot_streaks",
    "pot_winners",
    "read_stakes",
    "rejects",
    "rejects_by_file",
    "results_by_level",
    "rummoli_board",
    "rummoli_level_parts",
    "rummoli_poker_share",
    "rummoli_split",
    "sessions",
    "showdown_types",
    "stakes_choice",
    "stakes_currency",
    "stakes_named",
    "stakes_words",
    "where",
]

DAY: Final = "coalesce(h.played_on, CAST(h.loaded_at AS DATE))"
"""The day of a hand: when it was played, else when it was loaded."""

GAMING_DAY_STARTS: Final = "06:00"
"""When a table's gaming day begins: a hand played before it (a night's game past midnight)
counts in the session of the day before, as a casino's gaming day runs 6:00 to 6:00."""
GAMING_DAY: Final = (f"CASE WHEN h.played_time < TIME '{GAMING_DAY_STARTS}' "
                     "THEN h.played_on - 1 ELSE h.played_on END")
"""A hand's gaming day (:data:`GAMING_DAY_STARTS`): its day, or the day before before 6:00."""
SESSION: Final = (f"coalesce(h.game_id, h.table_name || ' ' || CAST({GAMING_DAY} AS VARCHAR), "
                  "h.table_name, h.source_file)")
"""A session: the Rummoli/Big Two ``game_id``, else the table and its gaming day
(:data:`GAMING_DAY`: a game from 21:00 to 01:00 is one session), else the source file."""


def latest_first(table: str = "") -> str:
    """The ORDER BY of every list of hands said to be "the latest first": the day, then the
    time of play, then the place in its file (a day's hands without a time), the id only
    to break ties.  ``table``: the alias of rows with the columns day, played_time,
    source_index and hand_id (``seat_facts``, or a query's own), "" for bare names."""
    at = f"{table}." if table else ""
    return (f"{at}day DESC, {at}played_time DESC NULLS LAST, {at}source_index DESC, "
            f"{at}hand_id")


def in_latest_order(rows: str, columns: str) -> str:
    """SQL of ``rows`` (a query of rows with a hand_id and a day) :func:`latest_first`,
    giving their ``columns``: the time of play and the place in the file joined from
    ``hands`` for rows that have neither (``hand_facts``, ``pot_facts``)."""
    return f"""
        SELECT {columns} FROM (
            SELECT r.*, t.played_time, t.source_index
            FROM ({rows}) r JOIN hands t ON t.hand_id = r.hand_id)
        ORDER BY {latest_first()}"""


STAKES: Final = ("CASE WHEN h.game = 'bigtwo' THEN 'points' "
                 "ELSE (CASE WHEN h.small_bet IS NOT NULL THEN h.variant || ' ' || h.small_bet "
                 "|| '/' || h.big_bet "
                 "ELSE h.variant || ' min ' || coalesce(h.min_bet, 1) END) "
                 "|| coalesce(' ' || nullif(h.currency, ''), '') END")
"""Stakes as a label: variant, bet size and the declared currency, if any (``N78 min 2``,
``F78 2/4 USD``; Big Two is played for points): hands in two currencies are two stakes,
whose chips are never added.  The label is what the filters and the stored facts keep;
people read it in :func:`stakes_words`."""


def betting_words(variant: str) -> str:
    """A variant code's betting in words (``N78`` -> ``no limit``, ``FRM`` -> ``fixed
    limit``); the code itself for a variant without betting (Big Two) or an unknown one."""
    known = VARIANTS.get(variant)
    if known is None or known.betting is None:
        return variant
    return known.betting.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class StakesLabel:
    """A stakes label (:data:`STAKES`) read back into its parts: ``F78 2/4 USD`` is variant
    ``F78`` of 7 & 8, size ``2/4`` (fixed limit's small and big bet), currency ``USD``;
    ``N78 min 2`` is size ``2`` as a minimum bet (``minimum``)."""

    variant: str
    game: Game
    size: str
    minimum: bool
    currency: str | None

    @property
    def opening_bet(self) -> int:
        """The stake's opening bet: the minimum bet, or fixed limit's small bet (which 7 &
        8's big blind posts, RULES.md 3).  Raises ValueError for a size that is none."""
        try:
            value = int(self.size.split("/", 1)[0])
        except ValueError:
            raise ValueError(f"a stakes label with no bet size: {self.size!r}") from None
        if value <= 0:
            raise ValueError(f"a stakes label with no bet size: {self.size!r}")
        return value


def read_stakes(label: str) -> StakesLabel | None:
    """A stakes label's parts (:class:`StakesLabel`), the one reader of the labels
    :data:`STAKES` writes; None for ``points`` (Big Two), a label of an unknown variant or
    one without a size."""
    code, _, rest = label.partition(" ")
    variant = VARIANTS.get(code)
    if variant is None or not rest:
        return None
    size, _, currency = rest.removeprefix("min ").partition(" ")
    return StakesLabel(code, variant.game, size, rest.startswith("min "), currency or None)


def stakes_words(stakes: str) -> str:
    """A stakes label (:data:`STAKES`) in words: ``N78 min 2`` -> ``no limit, big blind 2``
    (7 & 8's minimum bet is its big blind, RULES.md 3), ``F78 2/4`` -> ``fixed limit 2/4``,
    ``NRM min 1`` -> ``no limit, minimum bet 1`` (Rummoli's poker phase has no blinds), a
    currency after the size (``N78 min 2 USD`` -> ``no limit, big blind 2 USD``);
    anything else (``points``, a label of an unknown variant) as it is."""
    read = read_stakes(stakes)
    if read is None or VARIANTS[read.variant].betting is None:
        return stakes
    betting = betting_words(read.variant)
    size = read.size + (f" {read.currency}" if read.currency else "")
    if not read.minimum:
        return f"{betting} {size}"
    bet = "big blind" if read.game is Game.SEVENEIGHT else "minimum bet"
    return f"{betting}, {bet} {size}"


def stakes_currency(stakes: str) -> str | None:
    """The currency a stakes label (:data:`STAKES`) ends in, or None: ``F78 2/4 USD`` ->
    ``USD``, ``NRM min 1`` -> None; a level (:func:`level_of`) gives its stakes'."""
    rummoli = rummoli_level_parts(stakes)
    read = read_stakes(rummoli[0] if rummoli else stakes)
    return None if read is None else read.currency


def stakes_choice(stakes: str) -> str:
    """A stakes label as a filter offers it, its game first (the words alone can name two
    games' stakes: ``fixed limit 2/4``): ``7 & 8: no limit, big blind 2``, ``Rummoli: fixed
    limit 2/4 USD``, ``Big Two: points``; a label of an unknown variant as it is."""
    if stakes == "points":
        return f"{GAME_NAMES[Game.BIGTWO]}: points"
    read = read_stakes(stakes)
    return stakes if read is None else f"{GAME_NAMES[read.game]}: {stakes_words(stakes)}"


def knob_choice(knob: str) -> str:
    """A house rule (``name=value``, as the filters list them) as the filter offers
    it, its game first: ``Rummoli: ante = 2``, ``Big Two: four card plays = false``, ``7 &
    8: variant N78 (no limit)``; anything else as it is."""
    name, _, value = knob.partition("=")
    if name == "variant":
        variant = VARIANTS.get(value)
        if variant is None:
            return knob
        betting = betting_words(value)
        kind = f" ({betting})" if betting != value else ""
        return f"{GAME_NAMES[variant.game]}: variant {value}{kind}"
    game = (Game.RUMMOLI if name in RUMMOLI_KNOBS else Game.BIGTWO if name in BIGTWO_KNOBS
            else None)
    if game is None:
        return knob
    return f"{GAME_NAMES[game]}: {name.replace('_', ' ')} = {value}"


def stakes_named(labels: Iterable[str], text: str) -> list[str]:
    """The stakes labels among ``labels`` that ``text`` names, as a person types it: the
    label (``N78 min 2``) or its words (``no limit, big blind 2``), case and spaces aside.
    Words can name two labels (``fixed limit 2/4``: 7 & 8's and Rummoli's)."""
    def plain(value: str) -> str:
        return " ".join(value.lower().split())

    wanted = plain(text)
    return sorted(label for label in set(labels)
                  if wanted in (plain(label), plain(stakes_words(label))))

KNOBS: Final = ("variant", *sorted({*RUMMOLI_KNOBS, *BIGTWO_KNOBS}))
"""Knobs a view can be filtered by (a whitelist: the names go into a JSON path)."""

BUCKETS: Final = ("day", "week", "month", "year")
"""Time buckets (a whitelist: they go into SQL as text)."""

SPLIT_POTS: Final = {
    "poker": "poker pot",
    **dict.fromkeys(RUMMOLI_POTS[1:-1], "pay-card pots"),
    "rummoli": "Rummoli pot",
    "auction": "auction",
    "payments": "end-of-round payments",
    "impasse": "end-of-round payments",
}
"""Rummoli award pots by name, grouped into the parts the win-rate page splits a player's
result in (poker side pots go with the poker pot, anything else is the finale)."""
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
                raise ValueError(f"unknown house rule {name!r} (expected one of "
                                 f"{', '.join(KNOBS)})")

    def describe(self) -> str:
        """The filter in words, for report headers and captions: ``7 & 8; players Ann,
        Bo`` (the game by its name, not its stored value)."""
        parts = []
        if self.game:
            parts.append(GAME_NAMES[Game(self.game)])
        if self.players:
            parts.append("players " + ", ".join(self.players))
        if self.date_from or self.date_to:
            parts.append(f"days {self.date_from or '...'} to {self.date_to or '...'}")
        if self.session:
            parts.append(f"session {self.session}")
        parts.extend(knob_choice(f"{name}={value}") for name, value in self.knobs)
        if self.stakes:
            parts.append(f"stakes {stakes_words(self.stakes)}")
        return "; ".join(parts) if parts else "all hands"


Params = dict[str, object]


def where(f: HandFilter, *, game: str | None = None) -> tuple[str, Params]:
    """The filter as SQL conditions on ``hands h`` and their bound parameters.

    ``game`` narrows to one game on top of the filter (a page about Rummoli),
    and yields no rows when the filter names another game.
    """
    return _conditions(f, game, alias="h", day=DAY, session=SESSION, stakes=f"({STAKES})",
                       players="h.hand_id IN (SELECT hand_id FROM seats "
                               "WHERE list_contains($players, player))")


def facts_where(f: HandFilter, *, game: str | None = None, seats: bool = True
                ) -> tuple[str, Params]:
    """The filter as SQL conditions on ``seat_facts x`` (one row per seat) and its parameters;
    with ``seats=False`` also on ``pot_facts x`` or ``hand_facts x`` (one row per hand).

    The same filter as :func:`where`, on the fact table's copies of the hand's columns
    (its ``day``, ``session`` and ``stakes`` are :data:`DAY`, :data:`SESSION` and
    :data:`STAKES`).  With ``seats`` (per-seat questions) a player filter keeps the
    chosen players' own seats, which also keeps only hands they sat in; without it,
    every seat of the hands any chosen player sat in (the hands whose stored players in
    ``hand_facts`` hold one of them: :func:`hand_facts_where` tests them on the row).
    """
    players = "list_contains($players, x.player)"
    if not seats:
        players = (f"x.hand_id IN (SELECT p.hand_id FROM hand_facts p "
                   f"WHERE {_any_player('p.players', f.players)})")
    return _conditions(f, game, alias="x", day="x.day", session="x.session",
                       stakes="x.stakes", players=players)


def hand_facts_where(f: HandFilter, *, game: str | None = None) -> tuple[str, Params]:
    """The filter as SQL conditions on ``hand_facts x`` (one row per hand) and its
    parameters: :func:`facts_where` without ``seats``, but a player filter tests the
    hand's own ``players`` list (no semi-join: over a million hands that join was most
    of what a question with a player filter cost)."""
    return _conditions(f, game, alias="x", day="x.day", session="x.session",
                       stakes="x.stakes", players=_any_player("x.players", f.players))


def _any_player(column: str, players: tuple[str, ...]) -> str:
    """SQL: the list ``column`` holds one of ``players`` (bound as :func:`_player_params`).

    One ``list_contains`` per player: DuckDB's ``list_has_any`` with the chosen list cost
    seven times as much over a million hands' lists."""
    return "(" + " OR ".join(f"list_contains({column}, ${key})"
                             for key in _player_params(players)) + ")"


def _player_params(players: tuple[str, ...]) -> Params:
    """Each chosen player as a parameter of its own (``$player0_``, ``$player1_``...: the
    closing ``_`` keeps one name from being the start of another for :func:`_used`)."""
    return {f"player{number}_": player for number, player in enumerate(players)}


def _conditions(f: HandFilter, game: str | None, *, alias: str, day: str, session: str,
                stakes: str, players: str) -> tuple[str, Params]:
    """The conditions of :func:`where`, :func:`facts_where` and :func:`hand_facts_where`:
    the same filter over the table ``alias``, whose day, session and stakes are the SQL
    expressions given (fixed text of this module, never user input; every value is a bound
    parameter).  ``players`` may name the chosen players as one list (``$players``) or one
    by one (:func:`_player_params`)."""
    conditions = ["TRUE"]
    params: Params = {}
    for key, value in (("game", f.game), ("only_game", game)):
        if value is not None:
            conditions.append(f"{alias}.game = ${key}")
            params[key] = value
    if f.players:
        conditions.append(players)
        params["players"] = list(f.players)
        params |= _player_params(f.players)
    if f.date_from is not None:
        conditions.append(f"{day} >= $date_from")
        params["date_from"] = f.date_from
    if f.date_to is not None:
        conditions.append(f"{day} <= $date_to")
        params["date_to"] = f.date_to
    if f.session:
        conditions.append(f"({alias}.game_id = $session OR {session} = $session)")
        params["session"] = f.session
    for number, (name, value) in enumerate(f.knobs):
        if name == "variant":
            conditions.append(f"{alias}.variant = $knob{number}")
        else:
            conditions.append(
                f"json_extract_string({alias}.rules, $path{number}) = $knob{number}")
            params[f"path{number}"] = f"$.{name}"
        params[f"knob{number}"] = value
    if f.stakes:
        conditions.append(f"{stakes} = $stakes")
        params["stakes"] = f.stakes
    return " AND ".join(conditions), params


def seat_players_where(f: HandFilter, alias: str = "s") -> tuple[str, Params]:
    """Seat rows of the chosen players only (all seats when no player is chosen)."""
    if not f.players:
        return "TRUE", {}
    return f"list_contains($seat_players, {alias}.player)", {"seat_players": list(f.players)}


def query_frame(con: duckdb.DuckDBPyConnection, sql: str, params: Params) -> pd.DataFrame:
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
    # Sessions and stakes from hand_facts, where the labels are stored: building them
    # from every hand's columns was most of the cost.
    return query_frame(con, f"""
        SELECT 'game' AS kind, game AS value FROM (SELECT DISTINCT game FROM hands)
        UNION ALL SELECT 'player', player FROM (SELECT DISTINCT player FROM seats)
        UNION ALL SELECT 'session', session FROM (
            SELECT session, max(day) AS last FROM hand_facts
            GROUP BY ALL ORDER BY last DESC LIMIT $sessions)
        UNION ALL SELECT 'stakes', stakes FROM (SELECT DISTINCT stakes FROM hand_facts)
        UNION ALL SELECT 'variant', variant FROM (SELECT DISTINCT variant FROM hands)
        UNION ALL SELECT 'rules', rules FROM (SELECT DISTINCT rules FROM hands)
        UNION ALL SELECT 'first_day', CAST(min({DAY}) AS VARCHAR) FROM hands h
        UNION ALL SELECT 'last_day', CAST(max({DAY}) AS VARCHAR) FROM hands h
        ORDER BY kind, value
    """, {"sessions": sessions})


def overview(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per game: hands, distinct players, sessions, first and last day."""
    try:
        _group_hands(con, f)
        return _grouped_overview(con, f)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_GROUPS}")


_GROUPS: Final = "temp.overview_groups"
"""The temporary table :func:`overview_page` counts the kept hands into, per game, session
and day."""


def overview_page(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int = 500
                  ) -> dict[str, pd.DataFrame]:
    """The Overview page's questions at once: ``overview``, ``sessions`` (the ``limit`` most
    recent) and ``hands_over_time <bucket>`` for each of :data:`BUCKETS`, each the frame
    :func:`overview`, :func:`sessions` and :func:`hands_over_time` answer.

    The kept hands are counted once per game, session and day (a temporary table of this
    connection, some tens of thousands of rows for a million hands, dropped on return)
    and every answer but the players is summed from those counts, so switching the
    period costs no query.  A player filter tests each hand's stored players
    (:func:`hand_facts_where`): the semi-joins of the seats it replaced were most of the
    page's cost over a million hands.
    """
    try:
        _group_hands(con, f)
        answers = {"overview": _grouped_overview(con, f),
                   "sessions": query_frame(con, f"""
                       SELECT g.session, g.game, CAST(sum(g.hands) AS BIGINT) AS hands,
                              max(g.players) AS players, min(g.day) AS first_day,
                              max(g.day) AS last_day
                       FROM {_GROUPS} g
                       GROUP BY ALL ORDER BY last_day DESC, session LIMIT $limit
                   """, {"limit": limit})}
        for bucket in BUCKETS:
            answers[f"hands_over_time {bucket}"] = query_frame(con, f"""
                SELECT CAST(date_trunc('{bucket}', g.day) AS DATE) AS period, g.game,
                       CAST(sum(g.hands) AS BIGINT) AS hands
                FROM {_GROUPS} g
                GROUP BY ALL ORDER BY period, g.game
            """, {})
        return answers
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_GROUPS}")


def _group_hands(con: duckdb.DuckDBPyConnection, f: HandFilter) -> None:
    """Count the hands ``f`` keeps into :data:`_GROUPS`: per game, session and day, the
    hands and the most players at one table."""
    cond, params = hand_facts_where(f)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_GROUPS} AS "
                "SELECT x.game, x.session, x.day, count(*) AS hands, "
                "max(x.num_players) AS players "
                f"FROM hand_facts x WHERE {cond} GROUP BY ALL", _used(cond, params))


def _grouped_overview(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """:func:`overview` from :data:`_GROUPS` and the distinct players of the kept hands."""
    if f.players:
        # The players of the kept hands, from their stored lists: the seats would need the
        # kept hands joined again.
        cond, params = hand_facts_where(f)
        players = ("SELECT x.game, count(DISTINCT p.player) AS players "
                   f"FROM hand_facts x, unnest(x.players) AS p(player) WHERE {cond} "
                   "GROUP BY x.game")
    else:
        # One count per game, each a plain distinct count over that game's row groups:
        # grouped by game and player at once it cost 2.4 times the CPU over 5 M seats.
        cond, params = facts_where(f)
        games = {f"counted_game{number}": game.value for number, game in enumerate(Game)}
        players = " UNION ALL ".join(
            f"SELECT ${key} AS game, count(DISTINCT x.player) AS players FROM seat_facts x "
            f"WHERE x.game = ${key} AND {cond} HAVING count(*) > 0" for key in games)
        params = params | games
    return query_frame(con, f"""
        WITH fh AS (SELECT g.game, CAST(sum(g.hands) AS BIGINT) AS hands,
                           count(DISTINCT g.session) AS sessions,
                           min(g.day) AS first_day, max(g.day) AS last_day
                    FROM {_GROUPS} g GROUP BY g.game)
        SELECT fh.game, fh.hands, p.players, fh.sessions, fh.first_day, fh.last_day
        FROM fh JOIN ({players}) p USING (game)
        ORDER BY fh.game
    """, params)


def hands_over_time(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                    bucket: str = "week") -> pd.DataFrame:
    """Hands per game per ``bucket`` (day, week, month, year)."""
    if bucket not in BUCKETS:
        raise ValueError(f"unknown bucket {bucket!r} (expected one of {', '.join(BUCKETS)})")
    cond, params = where(f)
    return query_frame(con, f"""
        SELECT CAST(date_trunc('{bucket}', {DAY}) AS DATE) AS period, h.game,
               count(*) AS hands
        FROM hands h WHERE {cond}
        GROUP BY ALL ORDER BY period, h.game
    """, params)


def sessions(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int = 500
             ) -> pd.DataFrame:
    """Sessions (game ids, else table and day): hands, players, first and last day."""
    cond, params = hand_facts_where(f)
    params["limit"] = limit
    return query_frame(con, f"""
        SELECT x.session, x.game, count(*) AS hands, max(x.num_players) AS players,
               min(x.day) AS first_day, max(x.day) AS last_day
        FROM hand_facts x WHERE {cond}
        GROUP BY ALL ORDER BY last_day DESC, session LIMIT $limit
    """, params)


def player_results(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per game and player: hands, wins, total net, mean and standard deviation per hand."""
    cond, params = facts_where(f)
    return query_frame(con, f"""
        SELECT x.game, x.player, count(*) AS hands, count(*) FILTER (WHERE x.winner) AS wins,
               CAST(sum(x.net) AS BIGINT) AS net, avg(x.net) AS mean, stddev_samp(x.net) AS sd
        FROM seat_facts x
        WHERE {cond}
        GROUP BY ALL ORDER BY x.game, net DESC, x.player
    """, params)


def results_by_level(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per game, level (:func:`level_of`) and player: hands, wins, net, the sum of squared nets
    (``net_sq``, so per-level rows combine exactly: big blinds across 7 & 8 stakes), mean
    and standard deviation per hand (game, round), each in the level's own unit."""
    cond, params = facts_where(f)
    # Grouped by the stored stakes and rules, the levels named afterwards from the few
    # distinct rule texts: the JSON read per seat cost three times the query's CPU.
    rows = query_frame(con, f"""
        SELECT x.game, x.stakes, x.rules, x.player, count(*) AS hands,
               count(*) FILTER (WHERE x.winner) AS wins, CAST(sum(x.net) AS BIGINT) AS net,
               sum(CAST(x.net AS DOUBLE) * x.net) AS net_sq
        FROM seat_facts x
        WHERE {cond}
        GROUP BY ALL
    """, params)
    out = _wins_counted(_by_levels(rows, ["game", "level", "player"],
                                   ["hands", "wins", "net", "net_sq"]))
    out["mean"] = out["net"] / out["hands"]
    out["sd"] = _sd(out)
    return out.sort_values(["game", "level", "net", "player"],
                           ascending=[True, True, False, True], ignore_index=True)


RANK_KNOB: Final = ("scoring", "rank")
"""Big Two's ``rank`` scoring as a filter's knob."""
RANK_LEVEL: Final = " ".join(RANK_KNOB)
"""The level of Big Two's ``rank`` scoring, which has no points: only the order in which the
players go out is recorded (RULES.md 2).  A result at this level is a game won (1) or not
(0), so its mean is the win fraction and its running total the games won
(:func:`counts_wins`); everywhere else a result is the net (chips, points)."""


def counts_wins(f: HandFilter) -> bool:
    """Whether the questions asked under ``f`` count games won rather than nets: its hands
    are Big Two games under ``rank`` scoring alone (the knob ``scoring = rank``, which only
    Big Two has; :data:`RANK_LEVEL`)."""
    return RANK_KNOB in f.knobs


def result_sql(f: HandFilter, alias: str = "x") -> str:
    """The per-seat result the questions under ``f`` sum and average: the seat's net, or 1
    for a game won and 0 else when :func:`counts_wins` (fixed text: a column of ``alias``)."""
    return f"CAST({alias}.winner AS INTEGER)" if counts_wins(f) else f"{alias}.net"


def _wins_counted(out: pd.DataFrame) -> pd.DataFrame:
    """Rows per level with ``wins``, ``net`` and ``net_sq``: those of :data:`RANK_LEVEL`
    with their games won as the net (a win's result is 1, so its square too)."""
    rank = out["level"] == RANK_LEVEL
    if rank.any():
        out.loc[rank, "net"] = out.loc[rank, "wins"]
        out.loc[rank, "net_sq"] = out.loc[rank, "wins"]
    return out


def level_of(game: str, stakes: str, rules: str) -> str:
    """The unit a hand's result is counted in, besides its game: 7 & 8's stakes label (chips
    of one stake level are not chips of another), Big Two's ``scoring`` knob (points under
    one rule are not points under another: ``scoring cards``), Rummoli's stakes label and
    ante (chips per round grow with the ante, and chips of two currencies are never added:
    ``NRM min 1 USD ante 2``, as ``stat_views.session_unit`` counts a session); the format's
    defaults when the rules omit a knob."""
    if game == "seveneight":
        return stakes
    knobs = json.loads(rules) if rules else {}
    if game == "bigtwo":
        return f"scoring {knobs.get('scoring', 'cards')}"
    return f"{stakes}{_RUMMOLI_ANTE}{knobs.get('ante', 1)}"


_RUMMOLI_ANTE: Final = " ante "
"""What parts a Rummoli level's stakes label from its ante (:func:`level_of`)."""


def rummoli_level_parts(level: str) -> tuple[str, str] | None:
    """A Rummoli level (:func:`level_of`) as its stakes label and ante: ``NRM min 1 USD ante
    2`` -> ``("NRM min 1 USD", "2")``; None for another game's level."""
    stakes, parted, ante = level.rpartition(_RUMMOLI_ANTE)
    return (stakes, ante) if parted else None


def level_filter(f: HandFilter, game: str, level: str) -> HandFilter:
    """``f`` narrowed to ``game``'s hands of one level (:func:`level_of`): 7 & 8's stakes,
    Big Two's scoring rule, Rummoli's stakes and ante."""
    if game == "seveneight":
        return replace(f, game=game, stakes=level)
    if game == "bigtwo":
        knob, _, value = level.partition(" ")
        return replace(f, game=game, knobs=(*f.knobs, (knob, value)))
    parts = rummoli_level_parts(level)
    if parts is None:
        raise ValueError(f"not a Rummoli level: {level!r}")
    stakes, ante = parts
    return replace(f, game=game, stakes=stakes, knobs=(*f.knobs, ("ante", ante)))


def _by_levels(rows: pd.DataFrame, keys: list[str], sums: list[str]) -> pd.DataFrame:
    """Rows per game, stakes and rules summed per ``keys`` (``level`` among them: named by
    :func:`level_of` once per distinct game, stakes and rules)."""
    if rows.empty:
        return pd.DataFrame(columns=[*keys, *sums])
    named = rows[["game", "stakes", "rules"]].drop_duplicates()
    named["level"] = [level_of(str(g), str(s), str(r)) for g, s, r in
                      named.itertuples(index=False)]
    merged = rows.merge(named, on=["game", "stakes", "rules"], how="left")
    return merged.groupby(keys, as_index=False, sort=False)[sums].sum()


def _sd(frame: pd.DataFrame) -> pd.Series:
    """The sample standard deviation per row from ``hands``, ``net`` and ``net_sq`` (NaN for
    a single hand, as ``stddev_samp``)."""
    n = frame["hands"].astype("float64")
    mean = frame["net"] / n
    variance = (frame["net_sq"] - n * mean * mean) / (n - 1)
    return variance.clip(lower=0).where(n > 1).pow(0.5)


def _used(sql: str, params: Params) -> Params:
    """Only the parameters ``sql`` names: DuckDB refuses unused named parameters."""
    return {key: value for key, value in params.items() if f"${key}" in sql}


def by_position(con: duckdb.DuckDBPyConnection, f: HandFilter, *, by_level: bool = False
                ) -> pd.DataFrame:
    """Mean net by position: 7 & 8 seat (1 small blind ... N button), Big Two order of play,
    Rummoli seat counted from the dealer's left (1) to the dealer (N).  With ``by_level``
    also per :func:`level_of`, with the net and the sum of squared nets (rows of one unit,
    which ``logic.in_big_blinds`` combines over 7 & 8's stakes)."""
    cond, params = facts_where(f)
    if by_level:
        rows = query_frame(con, f"""
            SELECT x.game, x.stakes, x.rules, x.num_players AS players, x.position,
                   count(*) AS hands, count(*) FILTER (WHERE x.winner) AS wins,
                   CAST(sum(x.net) AS BIGINT) AS net,
                   sum(CAST(x.net AS DOUBLE) * x.net) AS net_sq
            FROM seat_facts x
            WHERE {cond}
            GROUP BY ALL
        """, params)
        out = _wins_counted(_by_levels(rows, ["game", "level", "players", "position"],
                                       ["hands", "wins", "net", "net_sq"]))
        out["mean"] = out["net"] / out["hands"]
        out["sd"] = _sd(out)
        return out.sort_values(["game", "level", "players", "position"], ignore_index=True)
    result = result_sql(f)
    return query_frame(con, f"""
        SELECT x.game, x.num_players AS players, x.position,
               count(*) AS hands, avg({result}) AS mean, stddev_samp({result}) AS sd
        FROM seat_facts x
        WHERE {cond}
        GROUP BY ALL ORDER BY x.game, players, position
    """, params)


def by_up_card(con: duckdb.DuckDBPyConnection, f: HandFilter, *, by_level: bool = False
               ) -> pd.DataFrame:
    """7 & 8: mean net by the rank of the card the player turned up (with ``by_level``: per
    stake level too, with the net and the sum of squared nets, as :func:`by_position`)."""
    cond, params = facts_where(f, game="seveneight")
    if by_level:
        return query_frame(con, f"""
            SELECT x.stakes AS level, x.up_rank, count(*) AS hands,
                   CAST(sum(x.net) AS BIGINT) AS net,
                   sum(CAST(x.net AS DOUBLE) * x.net) AS net_sq, avg(x.net) AS mean,
                   stddev_samp(x.net) AS sd
            FROM seat_facts x
            WHERE x.up AND {cond}
            GROUP BY ALL
        """, params)
    return query_frame(con, f"""
        SELECT x.up_rank, count(*) AS hands, avg(x.net) AS mean, stddev_samp(x.net) AS sd
        FROM seat_facts x
        WHERE x.up AND {cond}
        GROUP BY ALL
    """, params)


def bigtwo_places(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Big Two per player: games by finishing place (none: still holding cards) and score."""
    cond, params = facts_where(f, game="bigtwo")
    return query_frame(con, f"""
        SELECT x.player, x.place, count(*) AS games, avg(x.net) AS mean_score,
               CAST(sum(x.net) AS BIGINT) AS score
        FROM seat_facts x
        WHERE {cond}
        GROUP BY ALL ORDER BY x.player, x.place NULLS LAST
    """, params)


def bigtwo_cards_left(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Big Two: how many games ended with each number of cards left in a player's hand
    (played games: dealt minus played; outcome-only games: as the score sheet records it,
    from ``bigtwo_scores``), over the games that end when the first player goes out, as the
    statistics count Cards left (not those scored by finishing order, played on until one
    player is left with his cards)."""
    cond, params = facts_where(f, game="bigtwo")
    return query_frame(con, f"""
        SELECT x.player, CAST(x.cards_left AS HUGEINT) AS cards_left, count(*) AS games
        FROM {BIGTWO_SEATS} x
        WHERE x.cards_left IS NOT NULL AND {ENDS_AT_FIRST_OUT} AND {cond}
        GROUP BY ALL ORDER BY x.player, cards_left
    """, params)


SPLIT_COLUMNS: Final = {"poker pot": "won_poker", "pay-card pots": "won_pay_cards",
                        "Rummoli pot": "won_rummoli", "auction": "won_auction",
                        "end-of-round payments": "won_payments", "finale": "won_finale"}
"""The ``seat_facts`` column holding each awarded part of a Rummoli result (all of
:data:`SPLIT_PARTS` but what was paid in)."""


def rummoli_split(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Rummoli per player and part (:data:`SPLIT_PARTS`): chips won (or paid) per part.

    The parts add up to the player's net: ``antes and bets`` is what he paid in
    (antes, poker bets) net of the awards, i.e. net minus the other parts.
    """
    cond, params = facts_where(f, game="rummoli")
    # One scan of seat_facts, where each seat's awards are stored summed per part
    # (:data:`SPLIT_COLUMNS`): joining ``awards`` (millions of rows) cost most of the time.
    # A part is NULL where the seat won nothing in it, so a player lists only the parts
    # he won something in, as the join did (UNPIVOT drops NULLs).
    parts = ", ".join(f'"{part}"' for part in SPLIT_COLUMNS)
    sums = ", ".join(f'sum(x.{column}) AS "{part}"' for part, column in SPLIT_COLUMNS.items())
    awarded = " + ".join(f"coalesce(x.{column}, 0)" for column in SPLIT_COLUMNS.values())
    return query_frame(con, f"""
        WITH totals AS (
            SELECT x.player, count(*) AS rounds, sum(x.net) - sum({awarded}) AS paid_in,
                   {sums}
            FROM seat_facts x
            WHERE {cond}
            GROUP BY x.player)
        SELECT player, rounds, part, CAST(amount AS BIGINT) AS amount
        FROM (UNPIVOT (SELECT * EXCLUDE (paid_in) FROM totals) ON {parts}
              INTO NAME part VALUE amount)
        UNION ALL
        SELECT player, rounds, 'antes and bets', CAST(paid_in AS BIGINT)
        FROM totals
        ORDER BY 1, 3
    """, params)


def allin_totals(con: duckdb.DuckDBPyConnection, f: HandFilter, *, by_level: bool = False
                 ) -> pd.DataFrame:
    """7 & 8 all-in adjusted results per player: hands, all-in hands, actual net, all-in
    adjusted net (expected where all in with cards to come, else actual), the luck in
    all-in hands (actual minus expected) and its standard error from Monte Carlo rows;
    with ``by_level`` per stake level too (``level`` after the player: chips of one
    stake each)."""
    cond, params = facts_where(f, game="seveneight")
    level = "x.stakes AS level, " if by_level else ""  # a 7 & 8 level is its stakes
    return query_frame(con, f"""
        SELECT x.player, {level}count(*) AS hands, count(*) FILTER (WHERE x.all_in) AS all_in_hands,
               CAST(sum(x.net) AS BIGINT) AS net,
               sum(coalesce(x.allin_expected_net, x.net)) AS adjusted_net,
               coalesce(sum(x.allin_actual_net), 0) AS all_in_actual_net,
               coalesce(sum(x.allin_expected_net), 0) AS all_in_expected_net,
               coalesce(sum(x.allin_luck), 0) AS luck,
               sqrt(coalesce(sum(x.allin_std_error * x.allin_std_error), 0)) AS luck_std_error
        FROM seat_facts x
        WHERE {cond}
        GROUP BY ALL ORDER BY luck DESC, x.player{', level' if by_level else ''}
    """, params)


def rummoli_poker_share(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Rummoli per player: rounds with strengths, expected poker-pot share (sum of
    ``share``: the best hand at the table judged from his own cards) against the
    realised share on everyone's cards, poker pots actually won, the mean chance of
    holding the best hand, and the expected share's standard error."""
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = seat_players_where(f, alias="r")
    return query_frame(con, f"""
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
    cond, params = facts_where(f, game="rummoli", seats=False)
    params |= {"game_id": game_id, "limit": limit}
    return query_frame(con, f"""
        SELECT x.game_id, x.round, x.pot, x.pot_order, x.before, x.antes, x.amount, x.won_by,
               x.won_by_player, x.after
        FROM pot_facts x
        WHERE {cond} AND ($game_id IS NULL OR x.game_id = $game_id)
        ORDER BY x.game_id, x.round, x.pot_order LIMIT $limit
    """, params)


def finale_round(table: str) -> str:
    """SQL: the row of ``table`` (an alias with a ``hand_id``) is a round of a Rummoli game's
    end (``hands.finale_pot``), which plays the leftover board off as poker: no pot is won
    by its own card there, so those rounds are not rounds played for a pot."""
    return f"{table}.hand_id IN (SELECT hand_id FROM hands WHERE finale_pot IS NOT NULL)"


def pot_winners(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per pot and kind of round: rounds, rounds it was won, and by whom (player, times,
    chips paid out: the poker pot's are its antes and the poker hand's bets, side pots
    included, all its winners took, under the main pot's winner; a pay-card or Rummoli
    pot's, what the board paid).
    ``finale`` marks a game's end-of-game rounds (``hands.finale_pot``), which play the
    leftover board off as poker: no pot is won by its own rule there; a pot's chips go
    to the finale's winner (all at once, or its own round with ``finale = per_pot``), its
    ``chips`` there what the game left on it.  ``cleared``: the chips a finale took as
    antes below zero, as a lake's rows written before migration 17 hold them (0 in every
    row written since)."""
    cond, params = facts_where(f, game="rummoli", seats=False)
    # The poker pot pays its antes (the board's row) and the poker hand's bets, side pots
    # included: what its winners took (seat_facts.won_poker, their awards of that part).
    return query_frame(con, f"""
        SELECT x.pot, any_value(x.pot_order) AS pot_order, x.won_by_player,
               {finale_round("x")} AS finale,
               count(*) AS rounds,
               CAST(sum(CASE WHEN x.pot = 'poker' THEN coalesce(p.paid, 0) ELSE x.amount END)
                    AS BIGINT) AS chips,
               CAST(sum(greatest(-x.antes, 0)) AS BIGINT) AS cleared
        FROM pot_facts x
        LEFT JOIN (SELECT s.hand_id, sum(s.won_poker) AS paid FROM seat_facts s
                   WHERE s.game = 'rummoli' AND s.won_poker IS NOT NULL
                   GROUP BY s.hand_id) p ON x.pot = 'poker' AND p.hand_id = x.hand_id
        WHERE {cond}
        GROUP BY ALL ORDER BY pot_order, finale, rounds DESC
    """, params)


def pot_streaks(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Per pot and ``since`` (rounds since the pot was last won within its game): rounds,
    mean chips on the pot before the round's antes, how often it was won, and the antes
    actually paid in: ``paid_in`` (chips) over ``paid_rounds`` (rounds that paid some), and
    ``mean_before_paid``, the mean chips before the round over those rounds alone.  Only
    the rounds played for the pots count (:func:`finale_round`: a game's end-of-game rounds,
    where no pot is won by its own card, would show the poker pot, won in every round
    played for it, carried over for rounds).

    ``paid_in`` counts only positive antes, so the expected growth
    (:func:`analytics.dashboard.logic.pot_growth`) never falls below 0 in a lake's rows
    written before migration 17, where a finale's pots were negative antes."""
    cond, params = facts_where(f, game="rummoli", seats=False)
    # ``since_all`` (stored) counts over each game's whole history: it is the answer when
    # the filter keeps every game it touches whole; otherwise the windows count again over
    # the rows kept (the same SQL as the stored column, on fewer rows).
    if _whole_games(f):
        # One grouping of the stored column: a third of the CPU of the query below, which
        # plans both branches even when one is empty.
        return query_frame(con, f"""
            SELECT x.pot, any_value(x.pot_order) AS pot_order, x.since_all AS since,
                   count(*) AS rounds, avg(x.before) AS mean_before,
                   count(*) FILTER (WHERE x.won_by IS NOT NULL) AS won,
                   CAST(coalesce(sum(x.antes) FILTER (WHERE x.antes > 0), 0) AS BIGINT)
                       AS paid_in,
                   count(*) FILTER (WHERE x.antes > 0) AS paid_rounds,
                   avg(x.before) FILTER (WHERE x.antes > 0) AS mean_before_paid
            FROM pot_facts x WHERE {cond} AND NOT {finale_round("x")}
            GROUP BY x.pot, x.since_all ORDER BY pot_order, since
        """, params)
    return query_frame(con, f"""
        WITH {_streak_rows(cond)}
        SELECT pot, any_value(pot_order) AS pot_order, since, count(*) AS rounds,
               avg(before) AS mean_before, count(*) FILTER (WHERE won) AS won,
               CAST(coalesce(sum(antes) FILTER (WHERE antes > 0), 0) AS BIGINT) AS paid_in,
               count(*) FILTER (WHERE antes > 0) AS paid_rounds,
               avg(before) FILTER (WHERE antes > 0) AS mean_before_paid
        FROM counted WHERE NOT {finale_round("counted")}
        GROUP BY pot, since ORDER BY pot_order, since
    """, params)


def _streak_rows(cond: str) -> str:
    """The common table expressions of :func:`pot_streaks` over the ``pot_facts x`` rows
    ``cond`` keeps, ending in ``counted``: each row's hand_id, day, pot, pot_order,
    ``since`` (rounds since the pot was last won within its game: the stored
    ``since_all`` when the rows keep every game whole, else counted again over the rows
    kept), before, antes and won; :func:`pot_streak_hands` lists one ``since`` of them."""
    whole = """(
        SELECT coalesce(bool_and(kept = history), TRUE)
        FROM (SELECT count(*) AS kept, any_value(history_rounds) AS history
              FROM rows GROUP BY game_id, pot))"""
    return f"""
        rows AS (
            SELECT x.hand_id, x.day, x.game_id, x.round, x.pot, x.pot_order, x.before,
                   x.antes, x.won_by IS NOT NULL AS won, x.since_all, x.history_rounds
            FROM pot_facts x WHERE {cond}),
        whole AS (SELECT {whole} AS whole),
        stored AS (SELECT hand_id, day, pot, pot_order, since_all AS since, before, antes,
                          won
                   FROM rows WHERE (SELECT whole FROM whole)),
        grouped AS (
            SELECT *, coalesce(sum(CAST(won AS INTEGER)) OVER (
                       PARTITION BY game_id, pot ORDER BY round
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS streak
            FROM rows WHERE NOT (SELECT whole FROM whole)),
        numbered AS (
            SELECT hand_id, day, pot, pot_order,
                   row_number() OVER (PARTITION BY game_id, pot, streak ORDER BY round) - 1
                       AS since, before, antes, won
            FROM grouped),
        counted AS (SELECT * FROM stored UNION ALL SELECT * FROM numbered)"""


def pot_streak_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, pot: str,
                     since: int) -> pd.DataFrame:
    """The rounds behind one bar of :func:`pot_streaks` (the Pots page's carry-over chart):
    those where ``pot`` had carried over ``since`` rounds, counted as :func:`pot_streaks`
    counts them.  Columns: hand_id, day, the latest first (a round is one of the bar's
    count: no count per hand to list)."""
    cond, params = facts_where(f, game="rummoli", seats=False)
    rows = f"""
        WITH {_streak_rows(cond)}
        SELECT hand_id, day FROM counted
        WHERE pot = $pot AND since = $since AND NOT {finale_round("counted")}"""
    return query_frame(con, in_latest_order(rows, "hand_id, day"),
                       params | {"pot": pot, "since": since})


def _whole_games(f: HandFilter) -> bool:
    """Whether the filter keeps every game whole (it names at most a game)."""
    return not (f.players or f.date_from or f.date_to or f.session or f.knobs or f.stakes)


def showdown_types(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: str | None = None
                   ) -> pd.DataFrame:
    """Hands shown down: game, player, hand size (cards), category, count; ``game`` keeps
    one game's (as the filter's game does)."""
    cond, params = facts_where(f, game=game)
    return query_frame(con, f"""
        SELECT x.game, x.player, CAST(x.shown_size AS BIGINT) AS size,
               x.shown_category AS category, count(*) AS hands
        FROM seat_facts x
        WHERE x.shown_category IS NOT NULL AND {cond}
        GROUP BY ALL ORDER BY x.game, x.player, size, category
    """, params)


def dealt_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: str,
                sample: int = 50_000) -> pd.DataFrame:
    """Each player's dealt cards in ``game`` (all his ``dh`` actions in order, joined: 7 & 8's
    two cards then the third), a reproducible sample of at most ``sample`` hands: player,
    cards.  Hands with hidden cards (``??``) are left out."""
    cond, params = facts_where(f, game=game)
    rows = int(sample)  # DuckDB takes only a constant in SAMPLE; int() keeps it a number
    # The sample is drawn from the filtered rows: USING SAMPLE applies before the WHERE
    # of its own SELECT, so the filter sits in the subquery.
    return query_frame(con, f"""
        SELECT player, cards FROM (
            SELECT x.player, x.dealt AS cards FROM seat_facts x
            WHERE x.dealt IS NOT NULL AND NOT contains(x.dealt, '??') AND {cond})
        USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)
    """, params)


def dealt_types(con: duckdb.DuckDBPyConnection, f: HandFilter, *, game: str) -> pd.DataFrame:
    """Dealt hands of ``game`` by category, counted over every hand the filter keeps (the
    categories are stored when a hand is loaded): player, size (cards), category, hands.

    7 & 8: the first two cards (size 2) of every hand, and all three (size 3) where three
    were dealt; Rummoli: the best five of the dealt hand, by its size.  Hands with hidden
    cards (``??``) are left out, as are the other games (no rows).
    """
    if game not in _DEALT_CATEGORIES:
        return query_frame(con, _NO_DEALT_TYPES, {})
    cond, params = facts_where(f, game=game)
    branches = [f"""
        SELECT x.player, CAST({size} AS BIGINT) AS size, x.{column} AS category,
               count(*) AS hands
        FROM seat_facts x
        WHERE x.{column} IS NOT NULL AND {cond}
        GROUP BY ALL""" for size, column in _DEALT_CATEGORIES[game]]
    return query_frame(con, " UNION ALL ".join(branches) + " ORDER BY player, size, category",
                  params)


# The seat_facts columns dealt_types counts per game, with the hand size each stands for
# (fixed text: the game only picks an entry, it is bound as a parameter in the filter).
_DEALT_CATEGORIES: Final = {
    "seveneight": (("2", "dealt_two_category"), ("3", "dealt_three_category")),
    "rummoli": (("x.dealt_size", "dealt_poker_category"),),
}
_NO_DEALT_TYPES: Final = ("SELECT NULL::VARCHAR AS player, NULL::BIGINT AS size, "
                          "NULL::VARCHAR AS category, NULL::BIGINT AS hands LIMIT 0")


def plays(con: duckdb.DuckDBPyConnection, f: HandFilter, *, sample: int = 20_000
          ) -> pd.DataFrame:
    """Big Two combinations played, a reproducible sample of at most ``sample``: player,
    cards, rules (the hand's knobs as JSON, which decide what a combination is)."""
    cond, params = facts_where(f, game="bigtwo")
    rows = int(sample)
    return query_frame(con, f"""
        SELECT player, cards, rules FROM (
            SELECT x.player, unnest(x.plays) AS cards, x.rules FROM seat_facts x
            WHERE len(x.plays) > 0 AND {cond})
        USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)
    """, params)


NO_COMBINATION: Final = "not a combination"
"""The kind of a Big Two play that is no combination under its hand's rules."""

PLAY_KIND_COLUMNS: Final = {**{kind.label: f"played_{kind.label}" for kind in BigTwoKind},
                            NO_COMBINATION: "played_no_combination"}
"""The ``seat_facts`` column counting a Big Two seat's plays of each kind (its label, as the
Hand types page names it: :class:`~analytics.evaluator.BigTwoKind` labels, then
:data:`NO_COMBINATION`); NULL for the other games."""


def play_kinds(con: duckdb.DuckDBPyConnection, f: HandFilter) -> pd.DataFrame:
    """Every Big Two play the filter keeps, counted per player and kind (under its hand's
    rules): player, category (a key of :data:`PLAY_KIND_COLUMNS`), hands (plays); only
    the kinds a player played, ordered by player and category.

    The page's "Plays by kind", summed from the counts ``seat_facts`` stores per seat and
    kind (filled when the hand is loaded, by the evaluator: migration 8); until then every
    play was counted per card text and the page classified the distinct ones.  Unnesting
    and grouping every play cost most of a second of CPU over a million hands; these sums
    cost a scan of the Big Two seats' rows.
    """
    cond, params = facts_where(f, game="bigtwo")
    sums = ", ".join(f'sum(x.{column}) AS "{kind}"' for kind, column in PLAY_KIND_COLUMNS.items())
    kinds = ", ".join(f'"{kind}"' for kind in PLAY_KIND_COLUMNS)
    return query_frame(con, f"""
        SELECT player, category, CAST(hands AS BIGINT) AS hands
        FROM (UNPIVOT (SELECT x.player, {sums} FROM seat_facts x WHERE {cond}
                       GROUP BY x.player)
              ON {kinds} INTO NAME category VALUE hands)
        WHERE hands > 0
        ORDER BY player, category
    """, params)


BAR_COLUMNS: Final = {
    "seat_facts": {"player": "x.player", "players": "x.num_players",
                   "position": "x.position", "dealt_size": "x.dealt_size",
                   "dealt_two_category": "x.dealt_two_category",
                   "dealt_three_category": "x.dealt_three_category",
                   "dealt_poker_category": "x.dealt_poker_category",
                   "shown_category": "x.shown_category"},
    "pot_facts": {"pot": "x.pot", "won_by_player": "x.won_by_player"},
    "hand_facts": {"game": "x.game",
                   **{bucket: f"CAST(date_trunc('{bucket}', x.day) AS DATE)"
                      for bucket in BUCKETS}},
}
"""What a bar of a chart can be (a whitelist: these go into SQL as text), per fact table
the chart counts: ``seat_facts`` (the Win rates' positions, the Hand types' categories),
``pot_facts`` (the Pots page's pots won by player) and ``hand_facts`` (the Overview's
hands per period: the bucket's first day)."""


def bar_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *, source: str,
              bar: Iterable[tuple[str, object]], game: str | None = None,
              kind: str | None = None) -> pd.DataFrame:
    """The rows behind one bar of a chart counted over ``source`` (a key of
    :data:`BAR_COLUMNS`): the rows the filter keeps (of ``game``) whose columns equal the
    ``bar``'s values (column, value pairs: a tuple is what the dashboard's cache keys), and
    with ``kind`` (Big Two, a :data:`PLAY_KIND_COLUMNS` key) the seats that played that
    kind.  The same table and filter the bar's own question counts (:func:`by_position`,
    :func:`dealt_types`, :func:`showdown_types`, :func:`play_kinds`, :func:`pot_winners`,
    :func:`overview_page`), so the rows are the bar's count; a hand shows once per row (a
    seat).  Columns: hand_id, day, counted (1 a row; the plays of ``kind``), and the
    seat's ``net`` (seat_facts), the latest first."""
    if source not in BAR_COLUMNS:
        raise ValueError(f"unknown source {source!r} (expected one of {', '.join(BAR_COLUMNS)})")
    columns = BAR_COLUMNS[source]
    wanted = dict(bar)
    unknown = sorted(set(wanted) - set(columns))
    if unknown:
        raise ValueError(f"unknown bar column(s) {', '.join(unknown)} for {source} (expected "
                         f"one of {', '.join(columns)})")
    if kind is not None and (source != "seat_facts" or kind not in PLAY_KIND_COLUMNS):
        raise ValueError(f"unknown combination {kind!r} (expected one of "
                         f"{', '.join(PLAY_KIND_COLUMNS)} over seat_facts)")
    if source == "hand_facts":
        cond, params = hand_facts_where(f, game=game)
    else:
        cond, params = facts_where(f, game=game, seats=source == "seat_facts")
    conditions = [cond]
    for number, (name, value) in enumerate(sorted(wanted.items())):
        conditions.append(f"{columns[name]} IS NOT DISTINCT FROM $bar{number}")
        params[f"bar{number}"] = value
    counted = "1"
    if kind is not None:
        counted = f"x.{PLAY_KIND_COLUMNS[kind]}"
        conditions.append(f"{counted} > 0")
    if source == "pot_facts":  # the rounds played for the pots, as charts.pots_won counts
        conditions.append(f"NOT {finale_round('x')}")
    if source != "seat_facts":
        return query_frame(con, in_latest_order(f"""
            SELECT x.hand_id, x.day, CAST({counted} AS BIGINT) AS counted
            FROM {source} x WHERE {" AND ".join(conditions)}""", "hand_id, day, counted"),
            params)
    return query_frame(con, f"""
        SELECT x.hand_id, x.day, CAST({counted} AS BIGINT) AS counted,
               CAST(x.net AS BIGINT) AS net
        FROM seat_facts x
        WHERE {" AND ".join(conditions)}
        ORDER BY {latest_first("x")}
    """, params)


def hand_list(con: duckdb.DuckDBPyConnection, f: HandFilter, *, limit: int = 500,
              offset: int = 0) -> pd.DataFrame:
    """Hands for the replayer's picker, most recent first: id, game, day, session, round,
    players, the winner and the largest net."""
    cond, params = where(f)
    params |= {"limit": limit, "offset": offset}
    # The session label is built after the LIMIT (for 500 hands, not for every hand: most
    # of the sort's cost).  The seats come from seat_facts, written in order of game and
    # day: joined on the day too, the scan skips the row groups of days the page does not
    # show (the join passes the days' range down to the scan).
    return query_frame(con, f"""
        WITH fh AS (
            SELECT h.hand_id, h.game, h.variant, {DAY} AS day, h.played_time, h.game_id,
                   h.table_name, h.played_on, h.source_file, h.round, h.hand_label, h.winner,
                   h.source_index
            FROM hands h WHERE {cond}
            ORDER BY {latest_first()}
            LIMIT $limit OFFSET $offset)
        SELECT h.hand_id, h.game, h.variant, h.day, h.played_time, {SESSION} AS session,
               h.round, h.hand_label, string_agg(s.player, ', ' ORDER BY s.seat) AS players,
               max(CASE WHEN s.seat = h.winner THEN s.player END) AS winner,
               max(s.net) AS top_net
        FROM fh h JOIN seat_facts s ON s.hand_id = h.hand_id AND s.day = h.day
        GROUP BY h.hand_id, h.game, h.variant, h.day, h.played_time, h.game_id, h.table_name,
                 h.played_on, h.source_file, h.round, h.hand_label, h.source_index
        ORDER BY {latest_first("h")}
    """, params)


def current_hand_id(con: duckdb.DuckDBPyConnection, hand_id: int) -> int:
    """The id ``hand_id`` names now: its new id when it is an id from before migration 13
    (a saved link, an exported report), else itself (also where there is no map: a lake,
    whose ids are those its writer gave)."""
    if not con.execute("SELECT count(*) FROM information_schema.tables "
                       "WHERE table_name = 'hand_id_map'").fetchall()[0][0]:
        return hand_id
    rows = con.execute("SELECT new_id FROM hand_id_map WHERE old_id = $id",
                       {"id": hand_id}).fetchall()
    return int(rows[0][0]) if rows else hand_id


def hand_detail(con: duckdb.DuckDBPyConnection, hand_id: int) -> dict[str, pd.DataFrame]:
    """Everything stored about one hand: ``hand`` (one row, with its :data:`STAKES` label
    ``stakes``), ``seats``, ``actions``,
    ``board`` (Rummoli), ``showdowns``, ``awards`` and ``scores`` (Big Two: the
    ``bigtwo_scores`` rows, which hold an outcome-only game's cards left)."""
    params: Params = {"hand_id": hand_id}
    hand = query_frame(con, f"SELECT *, {STAKES} AS stakes FROM hands h "
                            "WHERE hand_id = $hand_id", params)
    # Hand ids are hashes, so no zone map narrows a lookup: each scans its table's whole
    # hand_id column.  Tables that cannot hold rows of this hand are not scanned (an
    # unknown hand has none; only Rummoli has a board): ``$scan`` false makes the plan an
    # empty result of the table's columns.
    found = not hand.empty
    rummoli = found and hand["game"].iloc[0] == "rummoli"
    bigtwo = found and hand["game"].iloc[0] == "bigtwo"

    def rows(sql: str, scan: bool = found) -> pd.DataFrame:
        return query_frame(con, sql, params | {"scan": scan})

    return {
        "hand": hand,
        "seats": rows("SELECT * FROM seats WHERE $scan AND hand_id = $hand_id ORDER BY seat"),
        "actions": rows("SELECT * FROM actions WHERE $scan AND hand_id = $hand_id "
                        "ORDER BY seq"),
        "board": rows("SELECT * FROM board WHERE $scan AND hand_id = $hand_id "
                      "ORDER BY pot_order", rummoli),
        "showdowns": rows("SELECT * FROM showdowns WHERE $scan AND hand_id = $hand_id"),
        "awards": rows("SELECT * FROM awards WHERE $scan AND hand_id = $hand_id"),
        "scores": rows("SELECT * FROM bigtwo_scores WHERE $scan AND hand_id = $hand_id "
                       "ORDER BY seat", bigtwo),
    }


def rejects_by_file(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every reject counted per file and stage (however many: :func:`rejects` lists the
    latest), the first line of each: file, stage, rejected (hands), bad_lines (a score
    sheet's lines that are no game, keyed by minus their line), first_line; most first."""
    return query_frame(con, """
        SELECT file, stage, count(*) FILTER (WHERE hand_index >= 0) AS rejected,
               count(*) FILTER (WHERE hand_index < 0) AS bad_lines, min(line) AS first_line
        FROM rejects GROUP BY ALL ORDER BY rejected + bad_lines DESC, file, stage
    """, {})


def rejects(con: duckdb.DuckDBPyConnection, *, files: list[str] | None = None,
            game: str | None = None, limit: int = 1000) -> pd.DataFrame:
    """Rejected hands (of the given files, of one game, or all): file, hand, line, stage,
    reason."""
    return query_frame(con, """
        SELECT file, hand_index, line, stage, game, error
        FROM rejects
        WHERE ($files IS NULL OR list_contains($files, file)
               OR list_contains($files, split_part(file, ':', 1)))
          AND ($game IS NULL OR game = $game)
        ORDER BY rejected_at DESC, file, hand_index LIMIT $limit
    """, {"files": files, "game": game, "limit": limit})
