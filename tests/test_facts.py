"""The per-seat fact table: the views over it answer exactly what the old joins answered,
under every filter, and the table is filled once per hand, with its file, by every path.

The reference functions below are the questions' SQL as it was before ``seat_facts``
(joins of ``seats``/``actions`` with ``hands``), kept here as the specification.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from analytics.dashboard import logic
from analytics.evaluator import (
    EvaluationError,
    bigtwo_all_combos,
    bigtwo_combo,
    poker_rank,
    seveneight_rank,
)
from analytics.rules import replay
from analytics.warehouse import ingest, open_writer, reader
from analytics.warehouse.pipeline import fact_rows
from analytics.warehouse.pipeline.rows import Batch, FileContext
from analytics.warehouse.pipeline.write import begin, known_files, load_new, rollback
from analytics.warehouse.sql import equity_views, facts
from analytics.warehouse.sql import views as v
from analytics.warehouse.sql.schema import LATEST_VERSION, migrate, schema_version
from analytics.warehouse.sql.stat_views import results_over_time
from analytics.warehouse.sql.views import HandFilter, query_frame, seat_players_where, where
from parsers.caching import clear_caches
from parsers.cards import DECK
from parsers.reader import hand_from_chunk, iter_chunks
from parsers.rule_options import BigTwoRules
from tests.test_dashboard_data import build_dashboard_db
from tests.test_warehouse_data import simulated_text, write

Con = duckdb.DuckDBPyConnection

# ---- the questions as they were: the specification the fact table must meet ----------


def old_overview(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f)
    return query_frame(con, f"""
        WITH fh AS (SELECT h.hand_id, h.game, {v.SESSION} AS session, {v.DAY} AS day
                    FROM hands h WHERE {cond})
        SELECT fh.game, count(*) AS hands, any_value(p.players) AS players,
               count(DISTINCT session) AS sessions, min(day) AS first_day, max(day) AS last_day
        FROM fh
        JOIN (SELECT s.game, count(DISTINCT s.player) AS players FROM seats s
              WHERE s.hand_id IN (SELECT hand_id FROM fh) GROUP BY s.game) p USING (game)
        GROUP BY fh.game ORDER BY fh.game
    """, params)


def old_sessions(con: Con, f: HandFilter, *, limit: int = 500) -> pd.DataFrame:
    cond, params = where(f)
    params["limit"] = limit
    return query_frame(con, f"""
        SELECT {v.SESSION} AS session, h.game, count(*) AS hands, max(h.num_players) AS players,
               min({v.DAY}) AS first_day, max({v.DAY}) AS last_day
        FROM hands h WHERE {cond}
        GROUP BY ALL ORDER BY last_day DESC, session LIMIT $limit
    """, params)


def old_player_results(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f)
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT s.game, s.player, count(*) AS hands, count(*) FILTER (WHERE s.winner) AS wins,
               CAST(sum(s.net) AS BIGINT) AS net, avg(s.net) AS mean, stddev_samp(s.net) AS sd
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.game, net DESC, s.player
    """, params | seat_params)


def old_running_nets(con: Con, f: HandFilter, *, game: str, points: int = 400,
                     top: int = 8) -> pd.DataFrame:
    """``views.cumulative_net`` as it was before session 18 (a window over the seats joined
    with their hands), in the unit ``stat_views.results_over_time`` now draws (7 & 8: each
    hand's net over its ``stat_facts.big_blind``): its ``actual`` and ``adjusted`` with
    ``whole_round``."""
    cond, params = where(f, game=game)
    seat_cond, seat_params = seat_players_where(f)
    params |= seat_params | {"points": points, "top": top}
    unit = "CAST(x.big_blind AS DOUBLE)" if game == "seveneight" else "1.0"
    full = query_frame(con, f"""
        WITH rows AS (
            SELECT s.player, s.net / {unit} AS net, {v.DAY} AS day, h.played_time,
                   h.source_index, h.hand_id,
                   coalesce(a.expected_net, s.net) / {unit} AS adjusted
            FROM seats s JOIN hands h USING (hand_id)
            LEFT JOIN allin_results a ON a.hand_id = s.hand_id AND a.seat = s.seat
            LEFT JOIN stat_facts x ON x.hand_id = s.hand_id AND x.seat = s.seat
            WHERE {cond} AND {seat_cond}),
        chosen AS (SELECT player FROM rows GROUP BY player
                   ORDER BY count(*) DESC, player LIMIT $top),
        ordered AS (
            SELECT player, day, row_number() OVER w AS hand_no, sum(net) OVER w AS actual,
                   sum(adjusted) OVER w AS adjusted,
                   count(*) OVER (PARTITION BY player) AS total
            FROM rows WHERE player IN (SELECT player FROM chosen)
            WINDOW w AS (PARTITION BY player ORDER BY day, played_time, source_index, hand_id
                         ROWS UNBOUNDED PRECEDING))
        SELECT player, hand_no, day, total, actual, adjusted
        FROM ordered
        ORDER BY player, hand_no
    """, params)
    return drawn_points(full, points)[["player", "hand_no", "actual", "adjusted"]]


def drawn_points(full: pd.DataFrame, points: int) -> pd.DataFrame:
    """The hands ``results_over_time`` draws of a full running curve (docs/statistics.md):
    with k = total // points (at least 1), a day of at most k of his hands at its end when
    a multiple of k falls in it; a longer day at each multiple of k in it and at its end;
    his last hand always."""
    drawn: set[tuple[str, int]] = set()
    for player, rows in full.groupby("player", sort=False):
        total = int(rows["total"].iloc[0])
        k = max(1, total // points)
        for _, day in rows.groupby("day", sort=False):
            first, last = int(day["hand_no"].min()), int(day["hand_no"].max())
            if last - first + 1 <= k:
                hands = [last] if last // k > (first - 1) // k or last == total else []
            else:
                hands = [h for h in range(first, last + 1) if h % k == 0 or h == last]
            drawn |= {(str(player), h) for h in hands}
    mask = pd.Series([(str(p), int(h)) in drawn
                      for p, h in zip(full["player"], full["hand_no"], strict=True)],
                     index=full.index, dtype=bool)
    return full.loc[mask].reset_index(drop=True)


def _running(con: Con, f: HandFilter, game: str, points: int) -> pd.DataFrame:
    """``results_over_time``'s columns that :func:`old_running_nets` gives."""
    got = results_over_time(con, f, game=game, points=points, whole_round=True)
    return got[["player", "hand_no", "actual", "adjusted"]].astype(
        {"hand_no": "int64", "actual": "float64", "adjusted": "float64"})


def old_by_position(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f)
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT s.game, h.num_players AS players,
               CASE WHEN s.game = 'rummoli' AND h.dealer IS NOT NULL
                    THEN ((s.seat - h.dealer - 1 + h.num_players) % h.num_players) + 1
                    ELSE s.seat END AS position,
               count(*) AS hands, avg(s.net) AS mean, stddev_samp(s.net) AS sd
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.game, players, position
    """, params | seat_params)


def old_by_up_card(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="seveneight")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT substr(a.cards, 1, 1) AS up_rank, count(*) AS hands, avg(s.net) AS mean,
               stddev_samp(s.net) AS sd
        FROM actions a
        JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.actor
        JOIN hands h ON h.hand_id = a.hand_id
        WHERE a.verb = 'up' AND {cond} AND {seat_cond}
        GROUP BY ALL
    """, params | seat_params)


def old_bigtwo_places(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT s.player, s.place, count(*) AS games, avg(s.net) AS mean_score,
               CAST(sum(s.net) AS BIGINT) AS score
        FROM seats s JOIN hands h USING (hand_id)
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY s.player, s.place NULLS LAST
    """, params | seat_params)


def old_bigtwo_cards_left(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
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


def old_rummoli_split(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="rummoli")
    seat_cond, seat_params = seat_players_where(f)
    cases = " ".join(f"WHEN '{pot}' THEN '{part}'" for pot, part in v.SPLIT_POTS.items())
    return query_frame(con, f"""
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


def old_allin_totals(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="seveneight")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
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


def old_showdown_types(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f)
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT d.game, s.player, length(d.cards) // 2 AS size, d.category, count(*) AS hands
        FROM showdowns d JOIN hands h USING (hand_id)
        JOIN seats s ON s.hand_id = d.hand_id AND s.seat = d.player
        WHERE {cond} AND {seat_cond}
        GROUP BY ALL ORDER BY d.game, s.player, size, d.category
    """, params | seat_params)


def old_dealt_hands(con: Con, f: HandFilter, *, game: str) -> pd.DataFrame:
    """Every dealt hand (the old question without its sample)."""
    cond, params = where(f, game=game)
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        WITH dealt AS (
            SELECT s.player, string_agg(a.cards, '' ORDER BY a.seq) AS cards
            FROM actions a JOIN hands h ON h.hand_id = a.hand_id
            JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.target
            WHERE a.verb = 'dh' AND {cond} AND {seat_cond}
            GROUP BY a.hand_id, s.player)
        SELECT player, cards FROM dealt WHERE NOT contains(cards, '??')
    """, params | seat_params)


def old_bigtwo_dealt(con: Con, f: HandFilter) -> pd.DataFrame:
    """Every Big Two dealt hand with its table size and rules (the old
    ``equity_views.bigtwo_dealt`` over ``actions`` without its sample)."""
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        WITH dealt AS (
            SELECT s.player, any_value(h.num_players) AS players,
                   string_agg(a.cards, '' ORDER BY a.seq) AS cards, any_value(h.rules) AS rules
            FROM actions a JOIN hands h ON h.hand_id = a.hand_id
            JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.target
            WHERE a.verb = 'dh' AND {cond} AND {seat_cond}
            GROUP BY a.hand_id, s.player)
        SELECT player, CAST(players AS BIGINT) AS players, cards, rules FROM dealt
        WHERE NOT contains(cards, '??')
    """, params | seat_params)


def old_plays(con: Con, f: HandFilter) -> pd.DataFrame:
    """Every Big Two play (the old question without its sample)."""
    cond, params = where(f, game="bigtwo")
    seat_cond, seat_params = seat_players_where(f)
    return query_frame(con, f"""
        SELECT s.player, a.cards, h.rules
        FROM actions a JOIN hands h ON h.hand_id = a.hand_id
        JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.actor
        WHERE a.verb = 'pl' AND {cond} AND {seat_cond}
    """, params | seat_params)


def bigtwo_rules_of(knobs: str | None) -> BigTwoRules:
    rules = fact_rows.rules_from_json("bigtwo", knobs)
    assert isinstance(rules, BigTwoRules)
    return rules


def reference_kinds(cards: pd.Series, rules: pd.Series) -> pd.Series:
    """Each Big Two play's kind as the evaluator's scalar classifier gives it: the text read
    as Cards and classified by ``bigtwo_combo`` under the rules of the JSON of knobs, apart
    from ``fact_rows.play_kind``'s card masks; cards it cannot read (``??``, a card twice, no
    cards) are no combination, as the warehouse counts them."""
    kinds: dict[tuple[str | None, str | None], str] = {}
    labels = []
    for text, knobs in zip(cards, rules, strict=True):
        label = kinds.get((text, knobs))
        if label is None:
            try:
                combo = (None if text is None
                         else bigtwo_combo(text, bigtwo_rules_of(knobs)))
            except EvaluationError:
                combo = None
            label = kinds[(text, knobs)] = (v.NO_COMBINATION if combo is None
                                            else combo.kind.label)
        labels.append(label)
    return pd.Series(labels, index=cards.index, dtype="object")


def old_play_kinds(con: Con, f: HandFilter) -> pd.DataFrame:
    """The Big Two plays by kind as the Hand types page counted them until migration 8:
    every play (the old join), counted per player, card text and rules, each distinct one
    classified (reference_kinds) and summed per player and kind."""
    counts = (old_plays(con, f).groupby(["player", "cards", "rules"]).size()
              .rename("plays").reset_index())
    kinds = (counts.assign(category=reference_kinds(counts["cards"], counts["rules"]))
             .groupby(["player", "category"])["plays"].sum().astype("int64")
             .rename("hands").reset_index())
    return kinds.astype({"hands": "int64"}) if kinds.empty else kinds


def old_rummoli_board(con: Con, f: HandFilter, *, game_id: str | None,
                      limit: int = 20_000) -> pd.DataFrame:
    cond, params = where(f, game="rummoli")
    params |= {"game_id": game_id, "limit": limit}
    return query_frame(con, f"""
        SELECT h.game_id, h.round, b.pot, b.pot_order, b.before, b.antes, b.amount, b.won_by,
               s.player AS won_by_player, b.after
        FROM board b JOIN hands h USING (hand_id)
        LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        WHERE {cond} AND ($game_id IS NULL OR h.game_id = $game_id)
        ORDER BY h.game_id, h.round, b.pot_order LIMIT $limit
    """, params)


def old_pot_winners(con: Con, f: HandFilter) -> pd.DataFrame:
    # The poker pot pays what its awards hold (the main pot and its side pots), the other
    # pots what the board paid.
    cond, params = where(f, game="rummoli")
    return query_frame(con, f"""
        SELECT b.pot, any_value(b.pot_order) AS pot_order, s.player AS won_by_player,
               h.finale_pot IS NOT NULL AS finale,
               count(*) AS rounds,
               CAST(sum(CASE WHEN b.pot = 'poker' THEN coalesce(a.paid, 0) ELSE b.amount END)
                    AS BIGINT) AS chips,
               CAST(sum(greatest(-b.antes, 0)) AS BIGINT) AS cleared
        FROM board b JOIN hands h USING (hand_id)
        LEFT JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        LEFT JOIN (SELECT hand_id, sum(amount) AS paid FROM awards
                   WHERE pot = 'poker' OR starts_with(pot, 'poker_side') GROUP BY hand_id) a
            ON b.pot = 'poker' AND a.hand_id = b.hand_id
        WHERE {cond}
        GROUP BY ALL ORDER BY pot_order, finale, rounds DESC
    """, params)


def old_pot_streaks(con: Con, f: HandFilter) -> pd.DataFrame:
    cond, params = where(f, game="rummoli")
    return query_frame(con, f"""
        WITH rows AS (
            SELECT h.game_id, h.round, b.pot, b.pot_order, b.before, b.antes,
                   b.won_by IS NOT NULL AS won, h.finale_pot IS NOT NULL AS finale
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
               avg(before) AS mean_before, count(*) FILTER (WHERE won) AS won,
               CAST(coalesce(sum(antes) FILTER (WHERE antes > 0), 0) AS BIGINT) AS paid_in,
               count(*) FILTER (WHERE antes > 0) AS paid_rounds,
               avg(before) FILTER (WHERE antes > 0) AS mean_before_paid
        FROM numbered WHERE NOT finale  -- the rounds played for the pots
        GROUP BY pot, since ORDER BY pot_order, since
    """, params)


def old_dealt_types(con: Con, f: HandFilter, *, game: str) -> pd.DataFrame:
    """dealt_types as the Hand types page computed it: every dealt hand (the unsampled
    old_dealt_hands), labelled by the dashboard's categorisers, counted per player."""
    dealt = old_dealt_hands(con, f, game=game)
    cards = dealt["cards"]
    labelled: list[tuple[pd.Series | int, pd.Series]] = []
    if game == "seveneight":
        labelled = [(2, logic.seveneight_categories(cards.str.slice(0, 4))),
                    (3, logic.seveneight_categories(cards.where(cards.str.len() == 6, "")))]
    elif game == "rummoli":
        labelled = [(cards.str.len() // 2, logic.poker_categories(cards))]
    frames = [pd.DataFrame({"player": dealt["player"], "size": size, "category": labels})
              for size, labels in labelled]
    rows = pd.concat(frames) if frames else pd.DataFrame(columns=["player", "size", "category"])
    rows = rows[rows["category"] != ""]
    counts = rows.groupby(["player", "size", "category"]).size().rename("hands").reset_index()
    text = "str" if len(counts) else "object"  # as DuckDB returns VARCHAR columns
    return counts.astype({"player": text, "size": "int64", "category": text, "hands": "int64"})


def _dealt_types(game: str) -> tuple[Question, Question]:
    return (lambda c, f: v.dealt_types(c, f, game=game),
            lambda c, f: old_dealt_types(c, f, game=game))


Question = Callable[[Con, HandFilter], pd.DataFrame]
_EVERYTHING = 10**7  # a sample larger than the data: the whole population, to compare


def _unsampled_dealt(game: str) -> tuple[Question, Question]:
    return (lambda c, f: v.dealt_hands(c, f, game=game, sample=_EVERYTHING),
            lambda c, f: old_dealt_hands(c, f, game=game))


def _cumulative(game: str, points: int) -> tuple[Question, Question]:
    return (lambda c, f: _running(c, f, game, points),
            lambda c, f: old_running_nets(c, f, game=game, points=points).astype(
                {"hand_no": "int64", "actual": "float64", "adjusted": "float64"}))


PAIRS: dict[str, tuple[Question, Question]] = {
    "overview": (v.overview, old_overview),
    "sessions": (v.sessions, old_sessions),
    "sessions, 3": (lambda c, f: v.sessions(c, f, limit=3),
                    lambda c, f: old_sessions(c, f, limit=3)),
    "player_results": (v.player_results, old_player_results),
    **{f"results_over_time {g} {p}": _cumulative(g, p)
       for g in ("seveneight", "bigtwo", "rummoli") for p in (400, 7)},
    "by_position": (v.by_position, old_by_position),
    "by_up_card": (v.by_up_card, old_by_up_card),
    "bigtwo_places": (v.bigtwo_places, old_bigtwo_places),
    "bigtwo_cards_left": (v.bigtwo_cards_left, old_bigtwo_cards_left),
    "rummoli_split": (v.rummoli_split, old_rummoli_split),
    "allin_totals": (v.allin_totals, old_allin_totals),
    "showdown_types": (v.showdown_types, old_showdown_types),
    **{f"dealt_hands {g}": _unsampled_dealt(g) for g in ("seveneight", "rummoli", "bigtwo")},
    **{f"dealt_types {g}": _dealt_types(g) for g in ("seveneight", "rummoli", "bigtwo")},
    "plays": (lambda c, f: v.plays(c, f, sample=_EVERYTHING), old_plays),
    "play_kinds": (v.play_kinds, old_play_kinds),
    "bigtwo_dealt": (lambda c, f: equity_views.bigtwo_dealt(c, f, sample=_EVERYTHING),
                     old_bigtwo_dealt),
    "rummoli_board": (lambda c, f: v.rummoli_board(c, f, game_id=None),
                      lambda c, f: old_rummoli_board(c, f, game_id=None)),
    "rummoli_board one game": (lambda c, f: v.rummoli_board(c, f, game_id="s13-g002"),
                               lambda c, f: old_rummoli_board(c, f, game_id="s13-g002")),
    "pot_winners": (v.pot_winners, old_pot_winners),
    "pot_streaks": (v.pot_streaks, old_pot_streaks),
}
# Questions without an ORDER BY (or sampled): compared as multisets of rows.
# pot_winners orders by pot and rounds only: ties come in any order.
UNORDERED = {"by_up_card", "dealt_hands seveneight", "dealt_hands rummoli", "dealt_hands bigtwo",
             "plays", "bigtwo_dealt", "pot_winners", "dealt_types seveneight",
             "dealt_types rummoli", "dealt_types bigtwo"}

FILTERS: dict[str, HandFilter] = {
    "all": HandFilter(),
    "game": HandFilter(game="rummoli"),
    "one player": HandFilter(players=("Cy",)),
    "a 7 & 8 player": HandFilter(players=("Pia", "Ned")),
    "two players": HandFilter(players=("Dee", "Fay")),
    "nobody": HandFilter(players=("nobody",)),
    "dates": HandFilter(date_from=dt.date(2026, 1, 6), date_to=dt.date(2026, 8, 20)),
    "from": HandFilter(date_from=dt.date(2026, 1, 20)),
    "session id": HandFilter(session="b2-12-00002"),
    "session label": HandFilter(session="Kitchen 2026-08-20"),
    "variant": HandFilter(knobs=(("variant", "N78"),)),
    "knob": HandFilter(knobs=(("suit_order", "dchs"),)),
    "two knobs": HandFilter(knobs=(("ante", "1"), ("finale", "single"))),
    "stakes": HandFilter(stakes="N78 min 2"),
    "points": HandFilter(stakes="points"),
    "combined": HandFilter(game="seveneight", players=("Ivy",),
                           date_from=dt.date(2026, 8, 21), stakes="N78 min 2"),
}


def _canonical(frame: pd.DataFrame, ordered: bool) -> pd.DataFrame:
    if ordered:
        return frame.reset_index(drop=True)
    return frame.sort_values(list(frame.columns), na_position="first").reset_index(drop=True)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dashboard_db(tmp_path_factory.mktemp("facts"))


def test_the_filters_pick_proper_subsets(db: Path) -> None:
    """Each filter above keeps some hands and drops some, so the comparison means something."""
    with reader(db) as con:
        total = len(old_dealt_hands(con, HandFilter(), game="seveneight"))
        for name, f in FILTERS.items():
            kept = sum(int(n) for n in old_overview(con, f)["hands"])
            assert (kept == 0) == (name == "nobody"), name
            assert kept < 190 or name == "all", name
        assert total > 0


@pytest.mark.slow
@pytest.mark.parametrize("question", sorted(PAIRS))
def test_views_over_facts_answer_as_the_joins_did(db: Path, question: str) -> None:
    new, old = PAIRS[question]
    ordered = question not in UNORDERED
    with reader(db) as con:
        for name, f in FILTERS.items():
            expected = _canonical(old(con, f), ordered)
            got = _canonical(new(con, f), ordered)
            pd.testing.assert_frame_equal(got, expected, obj=f"{question} / {name}")


def test_samples_are_reproducible_and_bounded(db: Path) -> None:
    with reader(db) as con:
        first = v.dealt_hands(con, HandFilter(), game="seveneight", sample=50)
        again = v.dealt_hands(con, HandFilter(), game="seveneight", sample=50)
        plays = v.plays(con, HandFilter(players=("Cy",)), sample=30)
    assert len(first) == 50
    pd.testing.assert_frame_equal(first, again)
    # Drawn from the filtered rows, so a filtered sample is full-sized too.
    assert len(plays) == 30
    assert set(plays["player"]) == {"Cy"}


# ---- filling: once per seat, with the file's transaction, by every path ---------------

FACT_ORDER = "SELECT * EXCLUDE (session) FROM seat_facts ORDER BY hand_id, seat"
POT_ORDER = "SELECT * EXCLUDE (session) FROM pot_facts ORDER BY hand_id, pot_order"
HAND_ORDER = "SELECT * EXCLUDE (session) FROM hand_facts ORDER BY hand_id"


def _count(con: Con, sql: str) -> int:
    return int(con.execute(sql).fetchall()[0][0])


def _assert_one_row_per_seat(con: Con) -> None:
    """One ``seat_facts`` row per seat, one ``pot_facts`` row per board row, one
    ``hand_facts`` row per hand, no more."""
    assert _count(con, "SELECT count(*) FROM (SELECT DISTINCT hand_id FROM hand_facts)"
                  ) == _count(con, "SELECT count(*) FROM hand_facts") == _count(
        con, "SELECT count(*) FROM hands")
    assert _count(con, "SELECT count(*) FROM hands h ANTI JOIN hand_facts x USING (hand_id)"
                  ) == 0
    assert _count(con, "SELECT count(*) FROM pot_facts") == _count(
        con, "SELECT count(*) FROM board")
    assert _count(con, "SELECT count(*) FROM board b ANTI JOIN pot_facts x "
                       "USING (hand_id, pot)") == 0
    assert _count(con, "SELECT count(*) FROM seat_facts") == _count(
        con, "SELECT count(*) FROM seats")
    assert _count(con, "SELECT count(*) FROM (SELECT DISTINCT hand_id, seat FROM seat_facts)"
                  ) == _count(con, "SELECT count(*) FROM seats")
    assert _count(con, "SELECT count(*) FROM seats s ANTI JOIN seat_facts x "
                       "USING (hand_id, seat)") == 0


def test_ingest_fills_one_row_per_seat(db: Path) -> None:
    with reader(db) as con:
        _assert_one_row_per_seat(con)
        assert _count(con, "SELECT count(*) FROM seat_facts x JOIN seats s "
                           "USING (hand_id, seat) WHERE x.player <> s.player "
                           "OR x.net <> s.net") == 0


def test_reloading_and_overlapping_files_add_nothing_twice(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    first = write(tmp_path / "a.phhs", simulated_text("seveneight", 12, seed=4))
    ingest([first], db, workers=0)
    ingest([first], db, workers=0)  # skipped: already loaded
    # Same hands in a file with other content: every hand is a duplicate.
    write(tmp_path / "b.phhs", first.read_text(encoding="utf-8") + "\n")
    both = write(tmp_path / "c.phhs", simulated_text("seveneight", 20, seed=4))
    ingest([tmp_path / "b.phhs", both], db, workers=0)
    with reader(db) as con:
        _assert_one_row_per_seat(con)
        assert _count(con, "SELECT count(DISTINCT hand_id) FROM seat_facts") == _count(
            con, "SELECT count(*) FROM hands")


def test_a_rolled_back_file_leaves_no_facts(tmp_path: Path) -> None:
    """What a kill -9 before the commit leaves: neither hands nor facts of the file."""
    db = tmp_path / "w.duckdb"
    path = write(tmp_path / "a.phhs", simulated_text("bigtwo", 6, seed=2))
    context = FileContext(path=str(path), sha256="f" * 64, loaded_at=dt.datetime(2026, 1, 1))
    batch = Batch(context)
    with path.open(encoding="utf-8") as stream:
        for chunk in iter_chunks(stream, str(path)):
            hand = hand_from_chunk(chunk, str(path))
            batch.add(hand, replay(hand))
    con = open_writer(db)
    try:
        begin(con)
        assert not known_files(con, [context.sha256])
        load_new(con, batch.tables())  # fills the batch's facts too
        assert _count(con, "SELECT count(*) FROM seat_facts") == 24
        rollback(con)
        assert _count(con, "SELECT count(*) FROM seat_facts") == 0
        assert _count(con, "SELECT count(*) FROM hands") == 0
    finally:
        con.close()
    ingest([path], db, workers=0)
    with reader(db) as con:
        _assert_one_row_per_seat(con)
        assert _count(con, "SELECT count(*) FROM seat_facts") == 24


def _facts(db: Path) -> pd.DataFrame:
    """The fact tables as one frame (the session label holds the file's path: left out)."""
    with reader(db) as con:
        seats = con.execute(FACT_ORDER).fetchdf()
        pots = con.execute(POT_ORDER).fetchdf()
        hands = con.execute(HAND_ORDER).fetchdf()
    assert len(pots) > 0
    assert len(hands) > 0
    return pd.concat([seats, pots, hands], keys=["seats", "pots", "hands"])


def test_migration_backfills_an_existing_database(tmp_path: Path) -> None:
    """A version-3 database (hands, no facts) gets the same facts as a fresh ingest."""
    fresh = build_dashboard_db(tmp_path / "fresh")
    old = tmp_path / "v3.duckdb"
    with duckdb.connect(str(old)) as con:
        assert migrate(con, target=3) == [1, 2, 3]
        _copy_rows(con, fresh)
        assert "seat_facts" not in {row[0] for row in con.execute(
            "SELECT table_name FROM information_schema.tables").fetchall()}
    con = open_writer(old)  # migrates to the latest version: backfills the facts
    try:
        assert schema_version(con) >= 4
        _assert_one_row_per_seat(con)
    finally:
        con.close()
    pd.testing.assert_frame_equal(_facts(old), _facts(fresh))


def _copy_rows(con: Con, source: Path) -> None:
    con.execute("ATTACH $path AS source (READ_ONLY)", {"path": str(source)})
    for table in ("hands", "seats", "actions", "showdowns", "awards", "board", "allin_results"):
        con.execute(f"INSERT INTO {table} SELECT * FROM source.{table}")
    con.execute("DETACH source")


@pytest.mark.parametrize("chunk", [facts.CHUNK_HANDS, pytest.param(7, marks=pytest.mark.slow),
                                   pytest.param(1, marks=pytest.mark.slow)])
def test_fill_missing_completes_a_bulk_load(tmp_path: Path, chunk: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows written in bulk (as the dashboard benchmark does) get their facts on request,
    the same however many hands go in one statement."""
    monkeypatch.setattr(facts, "CHUNK_HANDS", chunk)
    fresh = build_dashboard_db(tmp_path / "fresh")
    bulk = tmp_path / "bulk.duckdb"
    con = open_writer(bulk)
    try:
        _copy_rows(con, fresh)
        facts.fill_missing(con)
        facts.fill_missing(con)  # idempotent
        _assert_one_row_per_seat(con)
    finally:
        con.close()
    pd.testing.assert_frame_equal(_facts(bulk), _facts(fresh))


@pytest.mark.slow
def test_streaks_and_running_nets_on_awkward_data(tmp_path: Path) -> None:
    """A date filter that keeps part of a game's rounds: the streaks count again over the
    rounds kept, as the old windows did, instead of using the stored whole-game counts.
    Hands without a time or at the same time: running nets in the old order of play."""
    fresh = build_dashboard_db(tmp_path / "fresh")
    db = tmp_path / "split.duckdb"
    con = open_writer(db)
    try:
        _copy_rows(con, fresh)
        # The later half of every game's rounds is played the next day.
        con.execute("UPDATE hands h SET played_on = played_on + 1 WHERE game = 'rummoli' AND "
                    "round > (SELECT median(round) FROM hands g WHERE g.game_id = h.game_id)")
        # Hands without a time, and hands at the same time: the order of play falls back
        # to the position in the file and the hand id.
        con.execute("UPDATE hands SET played_time = NULL WHERE hand_id % 3 = 0")
        con.execute("UPDATE hands SET played_time = TIME '12:00:00' WHERE hand_id % 3 = 1")
        facts.fill_missing(con)
        days = [row[0] for row in con.execute(
            "SELECT DISTINCT played_on FROM hands WHERE game = 'rummoli' ORDER BY 1").fetchall()]
    finally:
        con.close()
    filters = [HandFilter(), *(HandFilter(date_to=day) for day in days),
               *(HandFilter(date_from=day) for day in days)]
    with reader(db) as con:
        for f in filters:
            pd.testing.assert_frame_equal(v.pot_streaks(con, f), old_pot_streaks(con, f),
                                          obj=f.describe())
        cut = HandFilter(date_to=days[0])
        assert not v.pot_streaks(con, cut).empty
        for game in ("seveneight", "bigtwo", "rummoli"):
            for f in (HandFilter(), cut, HandFilter(players=("Dee", "Ivy"))):
                for points in (400, 3):
                    pd.testing.assert_frame_equal(
                        _running(con, f, game, points),
                        old_running_nets(con, f, game=game, points=points).astype(
                            {"hand_no": "int64", "actual": "float64",
                             "adjusted": "float64"}),
                        obj=f"{game} {f.describe()} {points}")


def old_filter_options(con: Con, *, sessions: int = 2000) -> pd.DataFrame:
    """filter_options as it was: SESSION and STAKES evaluated on every hand."""
    return query_frame(con, f"""
        SELECT 'game' AS kind, game AS value FROM (SELECT DISTINCT game FROM hands)
        UNION ALL SELECT 'player', player FROM (SELECT DISTINCT player FROM seats)
        UNION ALL SELECT 'session', session FROM (
            SELECT {v.SESSION} AS session, max({v.DAY}) AS last FROM hands h
            GROUP BY ALL ORDER BY last DESC, session LIMIT $sessions)
        UNION ALL SELECT 'stakes', stakes FROM (SELECT DISTINCT {v.STAKES} AS stakes FROM hands h)
        UNION ALL SELECT 'variant', variant FROM (SELECT DISTINCT variant FROM hands)
        UNION ALL SELECT 'rules', rules FROM (SELECT DISTINCT rules FROM hands)
        UNION ALL SELECT 'first_day', CAST(min({v.DAY}) AS VARCHAR) FROM hands h
        UNION ALL SELECT 'last_day', CAST(max({v.DAY}) AS VARCHAR) FROM hands h
        ORDER BY kind, value
    """, {"sessions": sessions})


def test_filter_options_answer_as_before(db: Path) -> None:
    """Sessions and stakes labelled from distinct column values: the same options (all of
    the sessions, so that ties on the last day cannot pick different ones)."""
    with reader(db) as con:
        new = v.filter_options(con)
        pd.testing.assert_frame_equal(new, old_filter_options(con))
        assert set(new["kind"]) >= {"game", "player", "session", "stakes", "rules"}


# ---- seat_facts v6: dealt categories and Rummoli award parts, stored at ingest ---------


def _expected_categories(game: str, dealt: str | None) -> tuple[str | None, ...]:
    """The three category columns of one seat, from the scalar evaluator (an independent
    path from the batch functions the warehouse uses): only hands with every card known."""
    if dealt is None or "??" in dealt:
        return None, None, None
    size = len(dealt) // 2
    if game == "seveneight":
        two = seveneight_rank(dealt[:4]).category.label if size >= 2 else None
        three = seveneight_rank(dealt).category.label if size == 3 else None
        return two, three, None
    if game == "rummoli" and 5 <= size <= 26:
        return None, None, poker_rank(dealt).category.label
    return None, None, None


CATEGORY_COLUMNS = ["dealt_two_category", "dealt_three_category", "dealt_poker_category"]


def test_stored_categories_are_the_evaluators(db: Path) -> None:
    with reader(db) as con:
        rows: list[tuple[Any, ...]] = con.execute(
            "SELECT game, dealt, dealt_size, " + ", ".join(CATEGORY_COLUMNS)
            + " FROM seat_facts").fetchall()
    labelled: dict[str, int] = {}
    for game, dealt, size, *stored in rows:
        assert tuple(stored) == _expected_categories(game, dealt), (game, dealt, stored)
        assert size == (None if dealt is None else len(dealt) // 2)
        labelled[game] = labelled.get(game, 0) + any(stored)
    # Every 7 & 8 and Rummoli seat is labelled in this data (no hidden cards), Big Two none.
    seats = {game: sum(row[0] == game for row in rows) for game in labelled}
    assert labelled == {"seveneight": seats["seveneight"], "rummoli": seats["rummoli"],
                        "bigtwo": 0}


def test_dealt_categories_of_awkward_text() -> None:
    """Hidden cards, partial deals, no deal, other games, text that is not cards: no label,
    never an error (the ingest must not fail on what the parser let through)."""
    rows = [("seveneight", "AsKd"), ("seveneight", "7c8c2d"), ("seveneight", "7c8c??"),
            ("seveneight", "7c"), ("seveneight", None), ("seveneight", "Zz8c"),
            ("seveneight", "7c8cé"), ("rummoli", "AsKsQsJsTs9d"), ("rummoli", "AsKs"),
            ("rummoli", "AsKsQsJs??"), ("bigtwo", "3d4c5h6s7d"), ("rummoli", None)]
    table = fact_rows.dealt_categories(pa.table({"game": [g for g, _ in rows],
                                             "dealt": [d for _, d in rows]}))
    assert table.column_names == CATEGORY_COLUMNS
    got = list(zip(*(table[name].to_pylist() for name in CATEGORY_COLUMNS), strict=True))
    # "Zz8c" is not cards; "7c8cé" is two cards and a stray character: its first two count.
    expected = [(None, None, None) if d == "Zz8c" else _expected_categories(g, d)
                for g, d in rows]
    assert got == expected
    assert got[0][0] is not None and got[1][1] is not None and got[7][2] is not None
    empty = fact_rows.dealt_categories(pa.table({"game": pa.array([], pa.string()),
                                             "dealt": pa.array([], pa.string())}))
    assert empty.num_rows == 0 and empty.column_names == CATEGORY_COLUMNS


def test_award_parts_are_the_awards_grouped_as_before(db: Path) -> None:
    """Per Rummoli seat and part, the stored sums equal the old CASE over ``awards``; parts
    without awards are NULL (the old join listed no row for them)."""
    cases = " ".join(f"WHEN '{pot}' THEN '{part}'" for pot, part in v.SPLIT_POTS.items())
    columns = ", ".join(f"{column} AS \"{part}\"" for part, column in v.SPLIT_COLUMNS.items())
    with reader(db) as con:
        old = con.execute(f"""
            SELECT a.hand_id, a.player AS seat,
                   CASE a.pot {cases}
                        ELSE CASE WHEN a.pot LIKE 'poker_side%' THEN 'poker pot'
                                  ELSE 'finale' END END AS part,
                   CAST(sum(a.amount) AS BIGINT) AS amount
            FROM awards a JOIN hands h USING (hand_id) WHERE h.game = 'rummoli'
            GROUP BY ALL ORDER BY ALL""").fetchdf()
        new = con.execute(f"""
            SELECT hand_id, CAST(seat AS INTEGER) AS seat, part, amount
            FROM (UNPIVOT (SELECT hand_id, seat, {columns} FROM seat_facts
                           WHERE game = 'rummoli')
                  ON COLUMNS(* EXCLUDE (hand_id, seat)) INTO NAME part VALUE amount)
            ORDER BY ALL""").fetchdf()
        others = _count(con, "SELECT count(*) FROM seat_facts WHERE game <> 'rummoli' AND ("
                        + " OR ".join(f"{c} IS NOT NULL" for c in v.SPLIT_COLUMNS.values()) + ")")
    assert len(old) > 0 and others == 0
    pd.testing.assert_frame_equal(new, old.astype({"seat": "int32"}), check_dtype=False)


@pytest.mark.slow
def test_migration_6_rebuilds_the_facts_of_a_version_5_database(tmp_path: Path) -> None:
    """A version-5 database (seat_facts without the new columns, filled) comes out of
    migration 6 with the same facts as a fresh ingest."""
    fresh = build_dashboard_db(tmp_path / "fresh")
    old = tmp_path / "v5.duckdb"
    with duckdb.connect(str(old)) as con:
        assert migrate(con, target=5) == [1, 2, 3, 4, 5]
        _copy_rows(con, fresh)
        v4_columns = [row[0] for row in con.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'seat_facts' ORDER BY ordinal_position").fetchall()]
        assert "won_poker" not in v4_columns and "dealt_two_category" not in v4_columns
        # Filled as version 5 filled them: the facts of the old columns.
        con.execute("ATTACH $path AS source (READ_ONLY)", {"path": str(fresh)})
        con.execute(f"INSERT INTO seat_facts SELECT {', '.join(v4_columns)} "
                    "FROM source.seat_facts")
        con.execute("DELETE FROM pot_facts")
        con.execute("INSERT INTO pot_facts SELECT * FROM source.pot_facts")
        # hand_facts as version 5 filled them: without the players (migration 7's).
        con.execute("DELETE FROM hand_facts")
        con.execute("INSERT INTO hand_facts SELECT * EXCLUDE (players) FROM source.hand_facts")
        con.execute("DETACH source")
    con = open_writer(old)  # migrations 6 to 8
    try:
        assert schema_version(con) == LATEST_VERSION
        _assert_one_row_per_seat(con)
    finally:
        con.close()
    pd.testing.assert_frame_equal(_facts(old), _facts(fresh))
    with reader(old) as con:
        split = v.rummoli_split(con, HandFilter())
    assert set(split["part"]) >= {"poker pot", "antes and bets"}


@pytest.mark.slow
def test_migration_7_adds_the_players_of_a_version_6_database(tmp_path: Path) -> None:
    """A version-6 database (hand_facts without the players, filled) comes out of migration
    7 with the same facts as a fresh ingest, each hand's players in seat order; the player
    filter on them keeps the hands the semi-join of the seats keeps."""
    fresh = build_dashboard_db(tmp_path / "fresh")
    old = tmp_path / "v6.duckdb"
    with duckdb.connect(str(old)) as con:
        assert migrate(con, target=6) == [1, 2, 3, 4, 5, 6]
        _copy_rows(con, fresh)
        assert "players" not in {row[0] for row in con.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'hand_facts'").fetchall()}
        con.execute("ATTACH $path AS source (READ_ONLY)", {"path": str(fresh)})
        # seat_facts as version 6 filled them: without the play kinds (migration 8's) and
        # the passes (12's).
        kinds = ", ".join((*v.PLAY_KIND_COLUMNS.values(), *fact_rows.PASS_COLUMNS))
        con.execute(f"INSERT INTO seat_facts SELECT * EXCLUDE ({kinds}) FROM source.seat_facts")
        con.execute("INSERT INTO pot_facts SELECT * FROM source.pot_facts")
        con.execute("INSERT INTO hand_facts SELECT * EXCLUDE (players) FROM source.hand_facts")
        con.execute("DETACH source")
    con = open_writer(old)  # migrations 7 and 8
    try:
        assert schema_version(con) == LATEST_VERSION
        _assert_one_row_per_seat(con)
        mismatched = _count(con, """
            SELECT count(*) FROM hand_facts x
            WHERE x.players IS DISTINCT FROM (
                SELECT list(s.player ORDER BY s.seat) FROM seats s WHERE s.hand_id = x.hand_id)
        """)
        assert mismatched == 0
    finally:
        con.close()
    pd.testing.assert_frame_equal(_facts(old), _facts(fresh))
    with reader(old) as con:
        for players in (("Cy",), ("Cy", "nobody"), ("Pia", "Ned"), ("Dee", "Fay")):
            f = HandFilter(players=players)
            cond, params = v.hand_facts_where(f)
            kept = query_frame(con, f"SELECT x.hand_id FROM hand_facts x WHERE {cond} "
                               "ORDER BY x.hand_id", params)
            cond, params = where(f)
            expected = query_frame(con, f"SELECT h.hand_id FROM hands h WHERE {cond} "
                                   "ORDER BY h.hand_id", params)
            assert len(expected) > 0
            pd.testing.assert_frame_equal(kept, expected)


# ---- migration 8: Big Two plays counted by kind, stored at ingest ----------------------

_FOUR_CARDS = '{"four_card_plays": true}'


@pytest.mark.parametrize("lookup", [True, False])
def test_play_kinds_count_each_play_as_the_page_classified_it(
        lookup: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """fact_rows.play_kinds counts every play of a Big Two seat by the kind the evaluator
    gives it (reference_kinds) under the seat's rules (two rule sets: four-card plays on and
    off), 0 for the kinds it did not play; plays that are no combination (repeated cards,
    a NULL text) count as such; other games' seats get NULL.  Both ways of classifying the
    pairs: every pair of the dictionaries (``lookup``), or only those that occur."""
    if not lookup:
        monkeypatch.setattr(fact_rows, "_LOOKUP_FACTOR", 0)
        monkeypatch.setattr(fact_rows, "_LOOKUP_SLACK", 0)
    plays = [["3c", "4d4h", "3c3d4c4d", "5c6c7c8c9c", "3c4d"], [], ["3c3d4c4d", "AsAhAd"],
             ["7c"], ["3c3c", None], ["KsKhKdKc"]]
    rows = pa.table({
        "game": ["bigtwo", "bigtwo", "bigtwo", "rummoli", "bigtwo", "bigtwo"],
        "rules": ["{}", "{}", _FOUR_CARDS, "{}", "{}", _FOUR_CARDS],
        "plays": pa.array(plays, pa.list_(pa.string())),
    })
    got = fact_rows.play_kinds(rows)
    assert got is not None and got.column_names == list(v.PLAY_KIND_COLUMNS.values())
    others = rows.filter(pa.array([False, False, False, True, False, False]))
    assert fact_rows.play_kinds(others) is None
    for seat in (0, 1, 2, 5):
        expected = dict.fromkeys(v.PLAY_KIND_COLUMNS, 0)
        texts = pd.Series(plays[seat], dtype="object")
        for kind in reference_kinds(texts, pd.Series([rows["rules"][seat].as_py()] * len(texts),
                                                     dtype="object")):
            expected[kind] += 1
        assert [got[column][seat].as_py() for column in v.PLAY_KIND_COLUMNS.values()] \
            == list(expected.values()), seat
    assert [got[column][3].as_py() for column in v.PLAY_KIND_COLUMNS.values()] \
        == [None] * len(v.PLAY_KIND_COLUMNS)
    assert got["played_no_combination"][4].as_py() == 2
    assert got["played_two_pairs"][2].as_py() == 1  # four-card plays on
    assert got["played_no_combination"][0].as_py() == 2  # off: 3c3d4c4d and 3c4d


_KNOB_SETS = ["{}", _FOUR_CARDS, '{"straights": "sg_hk", "suit_order": "dchs"}',
              '{"straights": "malaysian", "flush_order": "suit_first", "four_card_plays": true}',
              '{"straights": "vietnamese", "suit_order": "shdc"}']


@pytest.mark.slow
@pytest.mark.parametrize("knobs", _KNOB_SETS)
def test_play_kind_is_the_evaluators_on_every_play_and_random_cards(knobs: str) -> None:
    """fact_rows.play_kind (a card mask classified by BigTwoMaskKeys) gives bigtwo_combo's kind
    on every legal play of the deck, on random card sets of 0-7 cards (mostly no
    combination, some with a card twice), and on texts in other notations."""
    import random

    rules = bigtwo_rules_of(knobs)
    texts = ["".join(map(str, combo.cards)) for combo in bigtwo_all_combos(DECK, rules)]
    rng = random.Random(f"play-kind-{knobs}")
    for size in range(8):
        for _ in range(300):
            cards = rng.sample(DECK, size)
            if size and rng.random() < 0.1:
                cards[-1] = cards[0]  # a card twice
            texts.append("".join(map(str, cards)))
    # Other notations parse_cards reads: the evaluator's path, the same kinds.
    texts += ["3c 3d", "3C3D", "10s10h", "10sJsQsKsAs", "as ks qs js ts", "3c4d 5h6s7c"]
    clear_caches()  # every kind worked out again, none remembered from another test
    got = [fact_rows.play_kind(text, knobs) for text in texts]
    expected = reference_kinds(pd.Series(texts, dtype="object"),
                               pd.Series([knobs] * len(texts), dtype="object"))
    assert got == expected.tolist()
    assert got.count(v.NO_COMBINATION) < len(got)


def test_play_kind_follows_each_hands_typed_knobs() -> None:
    """2-3-4-5-6 is a straight under sg_hk and nothing under vietnamese (the knobs' JSON is
    typed, so the evaluator sees the enum member); two pairs only with four-card plays."""
    assert fact_rows.play_kind("2d3c4h5s6d", '{"straights": "sg_hk"}') == "straight"
    assert fact_rows.play_kind("2d3c4h5s6d", '{"straights": "vietnamese"}') == v.NO_COMBINATION
    assert fact_rows.play_kind("3d4c5h6s7d", '{"straights": "vietnamese"}') == "straight"
    assert fact_rows.play_kind("3d3c", "{}") == "pair"
    assert fact_rows.play_kind("3c3d4c4d", "{}") == v.NO_COMBINATION
    assert fact_rows.play_kind("3c3d4c4d", _FOUR_CARDS) == "two_pairs"
    assert fact_rows.play_kind("3c3d4c4d", None) == v.NO_COMBINATION  # NULL rules: the defaults


@pytest.mark.parametrize("text", [None, "", "??", "3c??", "3c3c", "3c4d3c", "3", "3c4", "xx",
                                  "3c,4d", "3c" * 60, "".join(map(str, DECK)), "Zz9c"])
def test_play_kind_never_raises_on_odd_cards(text: str | None) -> None:
    """A NULL, unknown, repeated or unreadable play, or more cards than a play has, is no
    combination: the warehouse classifies stored rows, and one odd row must not stop a
    page or a migration (bigtwo_combo raises EvaluationError for most of these)."""
    assert fact_rows.play_kind(text, "{}") == v.NO_COMBINATION


@pytest.mark.slow
def test_migration_8_counts_the_plays_of_a_version_7_database(tmp_path: Path) -> None:
    """A version-7 database (seat_facts without the play kinds, filled) comes out of
    migration 8 with the same facts as a fresh ingest: counts for every Big Two seat,
    NULL for the other games'."""
    fresh = build_dashboard_db(tmp_path / "fresh")
    old = tmp_path / "v7.duckdb"
    columns = ", ".join((*v.PLAY_KIND_COLUMNS.values(), *fact_rows.PASS_COLUMNS))
    with duckdb.connect(str(old)) as con:
        assert migrate(con, target=7) == [1, 2, 3, 4, 5, 6, 7]
        _copy_rows(con, fresh)
        con.execute("ATTACH $path AS source (READ_ONLY)", {"path": str(fresh)})
        con.execute(f"INSERT INTO seat_facts SELECT * EXCLUDE ({columns}) "
                    "FROM source.seat_facts")
        for table in ("pot_facts", "hand_facts"):
            con.execute(f"INSERT INTO {table} SELECT * FROM source.{table}")
        con.execute("DETACH source")
    con = open_writer(old)  # migration 8
    try:
        assert schema_version(con) == LATEST_VERSION
        _assert_one_row_per_seat(con)
        kinds = " + ".join(v.PLAY_KIND_COLUMNS.values())
        assert _count(con, f"SELECT count(*) FROM seat_facts WHERE game = 'bigtwo' "
                           f"AND ({kinds}) IS DISTINCT FROM len(plays)") == 0
        assert _count(con, f"SELECT count(*) FROM seat_facts WHERE game <> 'bigtwo' "
                           f"AND ({kinds}) IS NOT NULL") == 0
        assert _count(con, "SELECT count(*) FROM seat_facts WHERE game = 'bigtwo'") > 0
    finally:
        con.close()
    pd.testing.assert_frame_equal(_facts(old), _facts(fresh))


def test_a_table_game_past_midnight_is_one_session(tmp_path: Path) -> None:
    """A 7 & 8 table's session was its table and day, so a night's game split at midnight:
    the sample's "Den 2026-11-08" held 97 of its 100 hands and "Den 2026-11-09" 3, and the
    session filter found 97.  A session is the table's gaming day now, 6:00 to 6:00, in
    the ingest's rows as in the SQL (views.SESSION); migration 22 mends a database held
    before."""
    from analytics.warehouse.sql.views import sessions
    from tests.migrated import assert_migrated_again

    sample = Path(__file__).resolve().parents[1] / "data" / "samples" / "seveneight-nl-6max.phhs"
    db = tmp_path / "night.duckdb"
    ingest([sample], db, workers=0)
    with reader(db) as con:
        den = con.execute("SELECT session, count(*), min(played_on), max(played_on) FROM "
                          "hand_facts JOIN hands USING (hand_id) WHERE table_name = 'Den' "
                          "GROUP BY session ORDER BY session").fetchall()
        listed = sessions(con, HandFilter(session="Den 2026-11-08"))
        early = con.execute("SELECT count(*) FROM hands WHERE played_time < TIME '06:00'"
                            ).fetchall()[0][0]
    assert ("Den 2026-11-08", 100, dt.date(2026, 11, 8), dt.date(2026, 11, 9)) in den
    assert not [row for row in den if row[0] == "Den 2026-11-09"]
    assert listed["hands"].tolist() == [100]
    assert early > 0
    old = ("coalesce(h.game_id, h.table_name || ' ' || CAST(h.played_on AS VARCHAR), "
           "h.table_name, h.source_file)")
    assert_migrated_again(db, 22, ["hand_facts"], [
        f"UPDATE hand_facts SET session = {old} FROM hands h "
        "WHERE hand_facts.hand_id = h.hand_id"], order="hand_id")
    assert_migrated_again(db, 22, ["seat_facts", "stat_facts"], [
        f"UPDATE {table} SET session = {old} FROM hands h WHERE {table}.hand_id = h.hand_id"
        for table in ("seat_facts", "stat_facts")])
