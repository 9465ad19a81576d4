"""The audit: every number the dashboard's pages and the HTML report show, checked against an
independent computation from the parsed hands.

The histories are in tests/data/audit/: six 7 & 8 hands written by hand (a three-way
showdown, an uncalled raise, a side pot with an uncalled bet, a split, a fixed-limit hand and
a hand at ten times the stakes: their results are worked out in the file's comments and
asserted literally below), three Rummoli games of two rounds and a finale each (carry-over,
the finale clearing the board; antes 1 and 2) and six Big Two games, two under each scoring
rule (``cards``, ``cards_with_twos``, ``rank``), both written by the simulator and checked
by the rules engine; one Big Two game under each scoring knob and one Rummoli game of four
rounds written by hand (a stop, pay-card pots won and carried over, a split poker pot with
its odd chip, a side pot, a short ante, chips paid for cards left and the finale clearing
the board), their results worked out in the files' comments and asserted literally.  A real
DuckDB is built from them by the ingest; the pages' logic (analytics/dashboard/logic.py,
charts.py, replayer.py) and the report run over it; the expectations come from
:func:`parsers.read_hands` and the rules engine's outcome of each hand in plain Python, or
are the hand-worked numbers, never from the warehouse's SQL.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import duckdb
import pandas as pd
import pytest
from scipy.stats import binomtest

from analytics import reports
from analytics.dashboard import charts, logic
from analytics.dashboard.cards import pot_code
from analytics.dashboard.replayer import hand_from_detail, replay_steps
from analytics.dashboard.statistics import RANK_NOTE, rank_note
from analytics.rules import Outcome, replay
from analytics.stats import stats_of
from analytics.stats.cells import display_grid
from analytics.warehouse import ingest
from analytics.warehouse.sql import equity_views, scores, stat_views, views
from analytics.warehouse.sql.views import HandFilter
from parsers import read_hands
from parsers.model import RUMMOLI_POTS, HandHistory, Verb
from parsers.rule_options import BigTwoRules, Game

AUDIT = Path(__file__).resolve().parent / "data" / "audit"
FILES = ("seveneight.phhs", "rummoli.phhs", "bigtwo.phhs", "bigtwo-by-hand.phhs",
         "rummoli-by-hand.phhs")
EVERYONE = HandFilter()


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's seat in one hand, as worked out here from the parsed hand."""

    game: str
    level: str
    player: str
    seat: int
    players: int
    position: int
    net: int
    big_blind: int
    winner: bool
    place: int | None
    up_rank: str | None
    cards_left: int | None
    session: str


def _stakes(hand: HandHistory) -> str:
    """A 7 & 8 or Rummoli hand's stakes as the pages label them: betting, size, currency."""
    size = (f"{hand.small_bet}/{hand.big_bet}" if hand.small_bet is not None
            else f"min {hand.min_bet or 1}")
    return f"{hand.variant} {size}" + (f" {hand.currency}" if hand.currency else "")


def _level(hand: HandHistory) -> str:
    """The unit a result counts in, as the pages name it: 7 & 8's stakes, Big Two's scoring
    rule, Rummoli's stakes and ante."""
    if hand.game is Game.SEVENEIGHT:
        return _stakes(hand)
    if hand.game is Game.BIGTWO:
        return f"scoring {hand.rules.scoring.value}"  # type: ignore[union-attr]
    return f"{_stakes(hand)} ante {hand.rules.ante}"  # type: ignore[union-attr]


def _rummoli_level_words(level: str) -> str:
    """A Rummoli level (``NRM min 1 ante 2``) as the tables write it, worked out here:
    ``no limit, minimum bet 1, ante 2``; ``fixed limit 2/4 USD, ante 1``."""
    stakes, _, ante = level.rpartition(" ante ")
    code, size = stakes.split(" ", 1)
    betting = {"N": "no limit", "F": "fixed limit", "P": "pot limit"}[code[0]]
    size = f", minimum bet {size[4:]}" if size.startswith("min ") else f" {size}"
    return f"{betting}{size}, ante {ante}"


def _session(hand: HandHistory) -> str:
    if hand.game_id is not None:
        return hand.game_id
    return f"{hand.table} {hand.year:04d}-{hand.month:02d}-{hand.day:02d}"


def _seats(hand: HandHistory, outcome: Outcome) -> Iterator[Seat]:
    n = hand.num_players
    blinds = hand.blinds_or_straddles or (0,) * n
    dealt = [0] * n
    up: list[str | None] = [None] * n
    for action in hand.actions:
        if action.verb is Verb.DEAL_HOLE and action.target is not None:
            dealt[action.target - 1] += len(action.cards)
        elif action.verb is Verb.PLAY:
            dealt[action.actor - 1] -= len(action.cards)
        elif action.verb is Verb.TURN_UP:
            up[action.actor - 1] = str(action.cards[0])[0]
    order = list(outcome.finishing_order)
    for index, name in enumerate(hand.players or ()):
        seat = index + 1
        position = seat
        if hand.game is Game.RUMMOLI and hand.dealer is not None:
            position = (seat - hand.dealer - 1 + n) % n + 1
        yield Seat(hand.game.value if hand.game else "", _level(hand), name, seat, n,
                   position, outcome.nets[index], max(blinds),
                   outcome.winner == seat, order.index(seat) + 1 if seat in order else None,
                   up[index], dealt[index] if hand.game is Game.BIGTWO else None,
                   _session(hand))


@pytest.fixture(scope="module")
def hands() -> list[tuple[HandHistory, Outcome]]:
    parsed = [hand for name in FILES for hand in read_hands(AUDIT / name)]
    return [(hand, replay(hand)) for hand in parsed]


@pytest.fixture(scope="module")
def seats(hands: list[tuple[HandHistory, Outcome]]) -> pd.DataFrame:
    return pd.DataFrame([s for hand, outcome in hands for s in _seats(hand, outcome)])


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    db = tmp_path_factory.mktemp("audit") / "audit.duckdb"
    summary = ingest([AUDIT / name for name in FILES], db, workers=0)
    assert summary.rejected == 0
    connection = duckdb.connect(str(db), read_only=True)
    try:
        yield connection
    finally:
        connection.close()


def _results(seats: pd.DataFrame) -> pd.Series:
    """Each seat's result as the pages count it: its net, but under Big Two's rank scoring,
    which has no points (RULES.md 2), 1 for the game won and 0 else."""
    return seats["winner"].astype(int).where(seats["level"] == "scoring rank", seats["net"])


def _close(a: Any, b: Any) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def _at(frame: pd.DataFrame, key: Any, column: str) -> Any:
    """One cell, untyped (pandas' stubs type a cell as any scalar at all)."""
    return frame.loc[key, column]


# --------------------------------------------------------------------------- the hand-worked


def test_the_hand_written_hands_come_out_as_worked_by_hand(hands: list[tuple[HandHistory,
                                                                          Outcome]]) -> None:
    nets = [outcome.nets for hand, outcome in hands if hand.game is Game.SEVENEIGHT]
    assert nets == [(18, -2, -16), (-2, 2), (40, -30, -10), (0, 0), (-1, 5, -4), (-10, 10)]


# --------------------------------------------------------------------------- Overview


def test_overview_hands_players_sessions(con: duckdb.DuckDBPyConnection,
                                         seats: pd.DataFrame,
                                         hands: list[tuple[HandHistory, Outcome]]) -> None:
    page = views.overview_page(con, EVERYONE)
    games = page["overview"].set_index("game")
    per_game = Counter(hand.game.value for hand, _ in hands if hand.game)
    assert games["hands"].to_dict() == dict(per_game)
    assert games["players"].to_dict() == seats.groupby("game")["player"].nunique().to_dict()
    assert games["sessions"].to_dict() == seats.groupby("game")["session"].nunique().to_dict()
    shown = logic.human_table(page["overview"], logic.OVERVIEW_HEADERS)
    assert "00:00:00" not in shown.to_string()
    assert int(page["sessions"]["hands"].sum()) == len(hands)
    # Each session: its hands, the most players at one of its tables, its first and last
    # day, as the parsed hands give them (a hand without a date: the day it was loaded).
    by_session: defaultdict[str, list[HandHistory]] = defaultdict(list)
    for hand, _ in hands:
        by_session[_session(hand)].append(hand)
    for row in page["sessions"].to_dict("records"):
        mine = by_session[str(row["session"])]
        days = [hand.date for hand in mine if hand.date is not None]
        assert (row["hands"], row["players"]) == (len(mine),
                                                  max(hand.num_players for hand in mine))
        if len(days) == len(mine):
            assert (pd.Timestamp(row["first_day"]).date(),
                    pd.Timestamp(row["last_day"]).date()) == (min(days), max(days))
    assert set(by_session) == set(page["sessions"]["session"])
    weekly = page["hands_over_time week"]
    figure = charts.hands_over_time(weekly)
    assert sum(sum(trace.y) for trace in figure.data) == len(hands)


def _bb_per_100(rows: pd.DataFrame) -> dict[str, float]:
    """Big blinds per 100 hands per player, from the seats in plain pandas."""
    in_bb = rows.assign(bb=rows["net"] / rows["big_blind"])
    return {str(k): 100 * float(v) for k, v in in_bb.groupby("player")["bb"].mean().items()}


def test_overview_players_tables_each_in_one_unit(con: duckdb.DuckDBPyConnection,
                                                  seats: pd.DataFrame) -> None:
    results = views.results_by_level(con, EVERYONE)
    # As the Overview draws them: a tab per game with players, its table in its own unit.
    tables = [(game, *logic.player_tables(results, game)[0])
              for game in logic.player_games(results)]
    assert [game for game, _, _ in tables] == ["seveneight", "bigtwo", "rummoli"]
    by_game = {game: table for game, _, table in tables}
    seveneight = by_game["seveneight"].set_index("player")
    expected = _bb_per_100(seats[seats["game"] == "seveneight"])
    assert set(seveneight.index) == set(expected)
    for player, value in expected.items():
        # Shown rounded to two decimals.
        assert abs(float(_at(seveneight, player, "big blinds per 100 hands")) - value) <= 0.005
    # Ann: +18 + -2 + +40 (bb 2) and -1 (bb 2, fixed limit) = 55 chips = 27.5 bb in 4 hands.
    assert seveneight.loc["Ann", "net (big blinds)"] == 27.5
    assert seveneight.loc["Ann", "big blinds per 100 hands"] == 687.5
    # Big Two's points, then its rank scoring's games won (no points) in a table of its own.
    bigtwo = logic.player_tables(results, "bigtwo")
    assert [title for title, _ in bigtwo] == [
        "Big Two: points per game",
        "Big Two: win fraction (rank scoring: no points change hands)"]
    words = {"scoring cards": "cards left", "scoring cards_with_twos": "cards left, 2s double",
             "scoring zero_sum": "zero-sum", "scoring rank": "finishing order"}
    for game, table, unit, net in (
            ("bigtwo", bigtwo[0][1], "points per game", "net (points)"),
            ("bigtwo", bigtwo[1][1], "win fraction", "games won"),
            ("rummoli", by_game["rummoli"], "chips per round", "net (chips)")):
        assert unit in table.columns
        mine = seats[seats["game"] == game].assign(result=_results)
        if game == "bigtwo":
            mine = mine[(mine["level"] == "scoring rank") == (unit == "win fraction")]
        column = "scoring rule" if game == "bigtwo" else "stakes and ante"
        assert len(table) == len(mine.groupby(["level", "player"]))
        for (lvl, name), rows in mine.groupby(["level", "player"]):
            # The rule in words ("cards left"), Rummoli's stakes in words and its ante.
            shown = words.get(str(lvl)) or _rummoli_level_words(str(lvl))
            row = table[(table[column] == shown) & (table["player"] == name)]
            assert len(row) == 1
            assert row.iloc[0][unit] == round(rows["result"].mean(), 2)
            assert row.iloc[0][net] == rows["result"].sum()


# --------------------------------------------------------------------------- Win rates


def test_win_rates_seveneight_in_big_blinds(con: duckdb.DuckDBPyConnection,
                                            seats: pd.DataFrame) -> None:
    results = views.results_by_level(con, EVERYONE)
    rates = logic.seveneight_big_blinds(results).set_index("player")
    mine = seats[seats["game"] == "seveneight"]
    for player, value in _bb_per_100(mine).items():
        assert _close(_at(rates, player, "bb_per_100"), value)
        per_hand = (mine[mine["player"] == player]["net"]
                    / mine[mine["player"] == player]["big_blind"])
        sd = per_hand.std(ddof=1) if len(per_hand) > 1 else math.nan
        assert (math.isnan(sd) and math.isnan(float(_at(rates, player, "sd")))) or _close(
            _at(rates, player, "sd"), sd)
    figure = charts.bar_with_ci(rates.reset_index(), x="player", mean="bb_per_100",
                                title="t", y_title="bb/100")
    drawn = dict(zip(figure.data[0].x, figure.data[0].y, strict=True))
    assert {p: round(v, 9) for p, v in drawn.items()} == {
        p: round(v, 9) for p, v in _bb_per_100(mine).items()}
    # Chips per hand per stake level: never two stakes in one row.
    levels = logic.level_results(results, "seveneight")
    for (level, name), rows in mine.groupby(["level", "player"]):
        row = levels[(levels["level"] == level) & (levels["player"] == name)]
        assert int(row["hands"].iloc[0]) == len(rows)
        assert _close(float(row["mean"].iloc[0]), float(rows["net"].mean()))


def test_win_rates_levels_of_big_two_and_rummoli(con: duckdb.DuckDBPyConnection,
                                                 seats: pd.DataFrame) -> None:
    results = views.results_by_level(con, EVERYONE)
    for game in ("bigtwo", "rummoli"):
        table = logic.level_results(results, game)
        mine = seats[seats["game"] == game]
        assert set(table["level"]) == set(mine["level"])
        assert len(table) == len(mine.groupby(["level", "player"]))
        # Within a level, the best rate first: the order the bars are drawn in.
        for _, level_rows in table.groupby("level", sort=False):
            means = [round(float(m), 9) for m in level_rows["mean"]]
            assert means == sorted(means, reverse=True)
        for row in table.itertuples(index=False):
            rows = mine[(mine["level"] == row.level) & (mine["player"] == row.player)]
            assert row.hands == len(rows) and row.net == _results(rows).sum()
            assert row.wins == int(rows["winner"].sum())
            assert _close(row.mean, _results(rows).mean())
    rank = logic.level_results(results, "bigtwo")
    rank = rank[rank["level"] == views.RANK_LEVEL]
    assert len(rank) and (rank["net"] == rank["wins"]).all()  # no points: the games won
    for wins, games, low, high in rank[["wins", "hands", "ci_low", "ci_high"]].itertuples(
            index=False):  # a fraction's interval: Wilson's, within 0..1
        wilson = binomtest(int(str(wins)), int(str(games))).proportion_ci(method="wilson")
        assert _close(low, wilson.low) and _close(high, wilson.high), (wins, games)


# bigtwo-by-hand.phhs: one game under each scoring knob, worked out by hand in its comments.
BY_HAND_NETS: Final = {
    "scoring cards": {"Hana": 29 + 18, "Ivo": -7 - 7, "Jun": -22 - 11},  # F = 10 and 12
    "scoring cards_with_twos": {"Hana": 51, "Ivo": -7, "Jun": -44},
    "scoring zero_sum": {"Hana": 29, "Ivo": 8, "Jun": -37},
}


def test_big_two_by_hand_under_each_scoring(con: duckdb.DuckDBPyConnection) -> None:
    """The Win rates tables (one per scoring rule) and the score keeper's summary give the
    hand-worked results of bigtwo-by-hand.phhs."""
    results = logic.level_results(views.results_by_level(con, EVERYONE), "bigtwo")
    for level, nets in BY_HAND_NETS.items():
        rows = results[(results["level"] == level) & results["player"].isin(list(nets))]
        assert dict(zip(rows["player"], rows["net"].astype(int), strict=True)) == nets, level
    summary = scores.bigtwo_score_summary(con, HandFilter(players=("Hana", "Ivo", "Jun")))
    columns = ["game_count", "win_count", "fry_count", "real_losses", "net_score"]
    by_name = {str(row[0]): tuple(int(v) for v in row[1:])
               for row in summary[["name", *columns]].itertuples(index=False)}
    # Real losses per game: Hana 0; Ivo 7; Jun 22 (F = 10, three games) and 11 (F = 12).
    # Zero-sum scores: T = 29 three times, then T = 18: Hana 3 x 29 + 18, Ivo 3 x 8 - 3,
    # Jun 3 x -37 - 15.
    expected = {"Hana": (4, 4, 0, 0, 105), "Ivo": (4, 0, 0, 28, 21), "Jun": (4, 0, 3, 77, -126)}
    for name, row in expected.items():
        assert by_name[name] == row, name


# rummoli-by-hand.phhs: one game of four rounds, every pot worked out by hand in its comments.
RUMMOLI_GAME: Final = "audit-rummoli-by-hand"
RUMMOLI_ONLY: Final = HandFilter(session=RUMMOLI_GAME)
RUMMOLI_AWARDS: Final = {  # round: (pot, player, chips) as the file's comments work them out
    1: {("poker", "Ana", 3), ("789", "Cal", 3), ("TS", "Ben", 3), ("rummoli", "Ana", 3),
        ("payments", "Ben", -7), ("payments", "Cal", -5), ("payments", "Ana", 12)},
    2: {("poker", "Ben", 4), ("poker", "Cal", 3), ("789", "Ben", 3), ("AS", "Ben", 6),
        ("KH", "Ben", 6), ("rummoli", "Ben", 3), ("payments", "Ana", -13),
        ("payments", "Cal", -13), ("payments", "Ben", 26)},
    3: {("poker", "Cal", 3), ("poker_side1", "Ana", 8), ("JD", "Ana", 9), ("AKD", "Ana", 8),
        ("rummoli", "Ana", 2), ("payments", "Ben", -13), ("payments", "Cal", -3),
        ("payments", "Ana", 16)},
    4: {("finale", "Ben", 30)},
}
RUMMOLI_NETS: Final = {1: {"Ana": 9, "Ben": -13, "Cal": -11},
                       2: {"Ana": -22, "Ben": 37, "Cal": -21},
                       3: {"Ana": 30, "Ben": -26, "Cal": -3},
                       4: {"Ana": -5, "Ben": 25}}
# The board: chips before each round, the antes each pot took (Cal short in round 3: only
# poker, TS and JD got his chip), who won it and what was left.
RUMMOLI_BEFORE: Final = {1: (0, 0, 0, 0, 0, 0, 0, 0, 0), 2: (0, 0, 3, 3, 3, 3, 3, 0, 0),
                         3: (0, 3, 6, 6, 0, 0, 6, 0, 0), 4: (0, 6, 0, 8, 2, 2, 0, 2, 0)}
RUMMOLI_ANTES: Final = {1: (3,) * 9, 2: (3,) * 9, 3: (3, 3, 3, 2, 2, 2, 2, 2, 2), 4: (0,) * 9}
RUMMOLI_WON: Final = {1: {"poker": "Ana", "TS": "Ben", "789": "Cal", "rummoli": "Ana"},
                      2: {"poker": "Ben", "KH": "Ben", "AS": "Ben", "789": "Ben",
                          "rummoli": "Ben"},  # the split poker pot: Ben's 4 of the 7
                      3: {"poker": "Cal", "JD": "Ana", "AKD": "Ana", "rummoli": "Ana"},
                      # The finale: Ben's poker hand takes every pot with chips left.
                      4: {"TS": "Ben", "QC": "Ben", "KH": "Ben", "AS": "Ben", "789": "Ben"}}
POTS_SHOWN: Final = ["poker", "10♠", "J♦", "Q♣", "K♥", "A♠", "A♦ K♦", "7-8-9", "Rummoli"]
"""The nine pots as every table and chart names them, in board order (stored: TS, AKD...)."""
RUMMOLI_AFTER: Final = {1: (0, 0, 3, 3, 3, 3, 3, 0, 0), 2: (0, 3, 6, 6, 0, 0, 6, 0, 0),
                        3: (0, 6, 0, 8, 2, 2, 0, 2, 0), 4: (0,) * 9}
# Per player over the game: rounds, rounds won (emptied his hand; the finale's poker winner)
# and chips per part (views.SPLIT_PARTS): poker pot (side pots too), pay-card pots, Rummoli
# pot, auction, payments, finale, and what he paid in (antes and bets).
RUMMOLI_PLAYERS: Final = {
    "Ana": (4, 2, {"poker pot": 3 + 8, "pay-card pots": 9 + 8, "Rummoli pot": 3 + 2,
                   "auction": 0, "end-of-round payments": 12 - 13 + 16, "finale": 0,
                   "antes and bets": -(9 + 9 + 9 + 4 + 5)}),
    "Ben": (4, 2, {"poker pot": 4, "pay-card pots": 3 + 3 + 6 + 6, "Rummoli pot": 3,
                   "auction": 0, "end-of-round payments": -7 + 26 - 13, "finale": 30,
                   "antes and bets": -(9 + 9 + 2 + 9 + 4 + 5)}),
    "Cal": (3, 0, {"poker pot": 3 + 3, "pay-card pots": 3, "Rummoli pot": 0, "auction": 0,
                   "end-of-round payments": -5 - 13 - 3, "finale": 0,
                   "antes and bets": -(9 + 9 + 2 + 3)}),
}


def test_rummoli_by_hand_rounds_as_worked_out(
        hands: list[tuple[HandHistory, Outcome]]) -> None:
    """The rules engine gives every award and net the file's comments work out."""
    rounds = {int(hand.round or 0): (hand, outcome) for hand, outcome in hands
              if hand.game_id == RUMMOLI_GAME}
    assert sorted(rounds) == [1, 2, 3, 4]
    for number, (hand, outcome) in rounds.items():
        names = hand.players or ()
        assert {(a.pot, names[a.player - 1], a.amount) for a in outcome.awards} == \
            RUMMOLI_AWARDS[number], number
        assert dict(zip(names, outcome.nets, strict=True)) == RUMMOLI_NETS[number]
        assert tuple(outcome.board_after or ()) == RUMMOLI_AFTER[number]
    for name, (_, _, parts) in RUMMOLI_PLAYERS.items():  # the parts add up to the net
        assert sum(parts.values()) == sum(n.get(name, 0) for n in RUMMOLI_NETS.values())


def test_rummoli_by_hand_win_rates(con: duckdb.DuckDBPyConnection) -> None:
    """Win rates' Rummoli tab over the hand-worked game: the table and bar chart (chips per
    round, its interval), the running totals, by position, by part (table and chart)."""
    results = views.results_by_level(con, RUMMOLI_ONLY)
    table = logic.level_results(results, "rummoli").set_index("player")
    for name, (rounds, wins, parts) in RUMMOLI_PLAYERS.items():
        nets = [n[name] for n in RUMMOLI_NETS.values() if name in n]
        mean = sum(nets) / rounds
        sd = math.sqrt(sum((x - mean) ** 2 for x in nets) / (rounds - 1))
        assert _at(table, name, "level") == "NRM min 1 ante 1"
        assert (_at(table, name, "hands"), _at(table, name, "wins")) == (rounds, wins)
        assert _at(table, name, "net") == sum(parts.values())
        assert _close(_at(table, name, "mean"), mean) and _close(_at(table, name, "sd"), sd)
        assert _close(_at(table, name, "ci_low"), mean - 1.959963984540054 * sd / rounds ** .5)
    # A round won is the engine's winner (he emptied his hand first; a finale's poker
    # winner), not one of the pots: the header says so ("rounds won" said nothing).
    words = logic.level_table(results, "rummoli").set_index("player")[
        "rounds won (out first, or a finale's winner)"]
    assert {str(name): int(won) for name, won in words.items()} == {
        name: wins for name, (_, wins, _) in RUMMOLI_PLAYERS.items()}
    assert {name: (int(net), round(float(mean), 2)) for name, net, mean in logic.level_table(
        results, "rummoli")[["player", "net (chips)", "chips per round"]].itertuples(
            index=False)} == {"Ana": (12, 3.0), "Ben": (23, 5.75), "Cal": (-35, -11.67)}
    figure = charts.bar_with_ci(table.reset_index(), x="player", title="t")
    assert dict(zip(figure.data[0].x, figure.data[0].y, strict=True)) == {
        "Ana": 3.0, "Ben": 23 / 4, "Cal": -35 / 3}
    # Running totals: round by round, ending at the net.
    curves = stat_views.results_over_time(con, RUMMOLI_ONLY, game="rummoli", top=3,
                                          whole_round=True)
    lines = {str(p): [int(v) for v in rows.sort_values("hand_no")["actual"]]
             for p, rows in curves.groupby("player")}
    assert lines == {"Ana": [9, -13, 17, 12], "Ben": [-13, 24, -2, 23], "Cal": [-11, -32, -35]}
    drawn = charts.cumulative(curves, unit="chips", of=3, per="round")
    assert {t.name: list(t.y) for t in drawn.data} == lines
    # By position (1 = left of the dealer): three-handed rounds 1-3, the finale two-handed.
    seats = logic.with_confidence(views.by_position(con, RUMMOLI_ONLY))
    got = {(int(r["players"]), int(r["position"])): (int(r["hands"]),
                                                     round(float(r["mean"]) * r["hands"]))
           for r in seats.to_dict("records")}
    assert got == {(3, 1): (3, 9 + 37 - 3), (3, 2): (3, -13 - 21 + 30),
                   (3, 3): (3, -11 - 22 - 26), (2, 1): (1, 25), (2, 2): (1, -5)}
    # By part: chips per round, as the table and the stacked bars show them.
    split = logic.split_table(views.rummoli_split(con, RUMMOLI_ONLY),
                              list(views.SPLIT_PARTS)).set_index("player")
    bars = charts.split_bars(split.reset_index(), list(views.SPLIT_PARTS))
    drawn_parts = {(str(p), t.name): v for t in bars.data
                   for p, v in zip(t.x, t.y, strict=True)}
    for name, (rounds, _, parts) in RUMMOLI_PLAYERS.items():
        assert _at(split, name, "rounds") == rounds
        for part, chips in parts.items():
            assert _close(_at(split, name, part), chips / rounds), (name, part)
            assert _close(drawn_parts[(name, part)], chips / rounds), (name, part)
        assert _close(_at(split, name, "net per round"), sum(parts.values()) / rounds)


def test_rummoli_by_hand_pots_page(con: duckdb.DuckDBPyConnection) -> None:
    """Pot accumulation over the hand-worked game: the board round by round (table and
    areas), the nine pots' summary, the carry-over streaks and the growth table."""
    board = logic.board_table(views.rummoli_board(con, RUMMOLI_ONLY, game_id=RUMMOLI_GAME))
    for number in RUMMOLI_BEFORE:
        mine = board[board["round"] == number].set_index("pot")
        assert tuple(mine.loc[POTS_SHOWN, "chips before"]) == RUMMOLI_BEFORE[number]
        assert tuple(mine.loc[POTS_SHOWN, "chips after"]) == RUMMOLI_AFTER[number]
        if number < 4:
            assert tuple(mine.loc[POTS_SHOWN, "antes paid in (chips)"]) == \
                RUMMOLI_ANTES[number], number
        else:  # the finale's winner takes what is left; nothing is paid in
            assert tuple(mine.loc[POTS_SHOWN, "antes paid in (chips)"]) == (0,) * 9
            assert tuple(mine.loc[POTS_SHOWN, "chips won"]) == RUMMOLI_BEFORE[4]
        winners = {pot_code(str(p)): str(w) for p, w in mine["won by"].dropna().items()}
        assert winners == RUMMOLI_WON[number], number
    areas = logic.board_areas(views.rummoli_board(con, RUMMOLI_ONLY, game_id=RUMMOLI_GAME))
    peaks = {(int(r), str(p)): int(c) for r, p, c in areas.itertuples(index=False)}
    for number in RUMMOLI_BEFORE:  # each pot at its fullest: before plus the antes (the
        # finale's: its chips, which the finale's winner takes)
        assert tuple(peaks[(number, pot)] for pot in RUMMOLI_POTS) == tuple(
            b + a for b, a in zip(
                RUMMOLI_BEFORE[number], RUMMOLI_ANTES[number], strict=True)), number
    summary = logic.pot_summary(views.pot_winners(con, RUMMOLI_ONLY)).set_index("pot")
    played = (1, 2, 3)  # the rounds played for the pots: not the finale
    won = {pot: sum(pot in RUMMOLI_WON[n] for n in played) for pot in RUMMOLI_POTS}
    paid_out = {pot: sum(b + a - after for b, a, after, w in (
        (RUMMOLI_BEFORE[n][i], RUMMOLI_ANTES[n][i], RUMMOLI_AFTER[n][i], RUMMOLI_WON[n])
        for n in played) if pot in w) for i, pot in enumerate(RUMMOLI_POTS)}
    assert won == {"poker": 3, "TS": 1, "JD": 1, "QC": 0, "KH": 1, "AS": 1, "AKD": 1,
                   "789": 2, "rummoli": 3}
    assert paid_out == {"poker": 9, "TS": 3, "JD": 9, "QC": 0, "KH": 6, "AS": 6, "AKD": 8,
                        "789": 6, "rummoli": 8}
    # The poker pot pays its antes and the bets too, side pots included: it read 9 (the
    # board's antes alone) while its winners took 21.
    paid_out["poker"] = sum(chips for n in played for pot, _, chips in RUMMOLI_AWARDS[n]
                            if pot == "poker" or pot.startswith("poker_side"))
    assert paid_out["poker"] == 3 + 7 + 11
    for number, pot in enumerate(RUMMOLI_POTS):
        # Rounds 1-3 are played for every pot; round 4 is the finale, which clears the
        # board: each pot's chips then (RUMMOLI_BEFORE[4]) go to the finale's winner.
        assert (_at(summary, pot, "rounds"), _at(summary, pot, "won")) == (3, won[pot]), pot
        assert _at(summary, pot, "chips_paid") == paid_out[pot], pot
        assert _at(summary, pot, "left_for_finale") == RUMMOLI_BEFORE[4][number], pot
        # Its share won, and who won it most (in a tie, each of them), from the rounds.
        won_by = Counter(RUMMOLI_WON[n][pot] for n in played if pot in RUMMOLI_WON[n])
        most = max(won_by.values(), default=0)
        top = (", ".join(sorted(p for p, n in won_by.items() if n == most)) or "—", most)
        assert _close(_at(summary, pot, "share_won"), won[pot] / 3), pot
        leader = _at(summary, pot, "top_winner")
        assert (leader,
                _at(summary, pot, "top_winner_times")) == top, pot
    # Growth: the rounds that paid antes in, by rounds since the pot was last won (since,
    # chips before, antes paid in), worked out from the board above.
    paying = {"poker": [(0, 0, 3)] * 3, "TS": [(0, 0, 3), (0, 0, 3), (1, 3, 3)],
              "JD": [(0, 0, 3), (1, 3, 3), (2, 6, 3)], "QC": [(0, 0, 3), (1, 3, 3), (2, 6, 2)],
              "KH": [(0, 0, 3), (1, 3, 3), (0, 0, 2)], "AS": [(0, 0, 3), (1, 3, 3), (0, 0, 2)],
              "AKD": [(0, 0, 3), (1, 3, 3), (2, 6, 2)], "789": [(0, 0, 3), (0, 0, 3), (0, 0, 2)],
              "rummoli": [(0, 0, 3), (0, 0, 3), (0, 0, 2)]}
    growth = logic.pot_growth(views.pot_streaks(con, RUMMOLI_ONLY))
    got_growth = {(str(r["pot"]), int(r["since"])): (
        int(r["paid_rounds"]), float(r["mean_before_paid"]), float(r["expected"]))
        for r in growth.to_dict("records")}
    want: dict[tuple[str, int], tuple[int, float, float]] = {}
    for pot, rows in paying.items():
        rate = sum(p for _, _, p in rows) / len(rows)
        for since in sorted({s for s, _, _ in rows}):
            at = [b for s, b, _ in rows if s == since]
            want[(pot, since)] = (len(at), sum(at) / len(at), since * rate)
    assert got_growth.keys() == want.keys()
    for key, (count, before, expected) in want.items():
        assert got_growth[key][0] == count and _close(got_growth[key][1], before), key
        assert _close(got_growth[key][2], expected), key
    # Carry-over: rounds 1-3, played for every pot (the finale is no round played for one).
    streaks = charts.streak_lengths(views.pot_streaks(con, RUMMOLI_ONLY))
    assert {t.name: sum(t.y) for t in streaks.data} == dict.fromkeys(POTS_SHOWN, 3)


def test_rummoli_by_hand_strength_hand_types_and_report(
        con: duckdb.DuckDBPyConnection) -> None:
    """The poker-pot share (realised: who held the best poker hand at the table, ties
    shared), the calibration's totals, the dealt categories and the report's Rummoli tables
    over the hand-worked game."""
    # Best hands held: round 1 Ben's queen-high straight flush (Ana won by betting), round 2
    # Ben's and Cal's ace-high straights (a tie), round 3 Cal's four queens, the finale Ben's
    # royal flush. Poker pots won (the main pot, a share counts): Ana 1, Ben 2, Cal 2.
    shares = logic.share_vs_expected(
        equity_views.rummoli_share_by_player(con, RUMMOLI_ONLY)).set_index("player")
    for name, rounds, realised, won in (("Ana", 4, 0.0, 1), ("Ben", 4, 2.5 / 4, 2),
                                        ("Cal", 3, 1.5 / 3, 2)):
        assert _at(shares, name, "rounds") == rounds
        assert _close(_at(shares, name, "realised"), realised), name
        assert _at(shares, name, "poker_pots_won") == won
    # Three counts of poker pots, each headed with what it counts: this one the main pot
    # (Ana's side pot of round 3 left out), the Statistics page's with side pots (Ana 2).
    shown = logic.human_table(shares.reset_index(), logic.SHARE_HEADERS).set_index("player")
    assert shown.loc["Ana", "poker pots won (main pot, finales too)"] == 1
    from analytics.warehouse.sql.stat_views import stat_grid

    grid = stat_grid(con, RUMMOLI_ONLY, game="rummoli").set_index("player")
    main_or_side = {name: sum(any(pot.startswith(("poker", "finale")) and who == name
                                  and chips > 0 for pot, who, chips in RUMMOLI_AWARDS[n])
                              for n in RUMMOLI_AWARDS) for name in ("Ana", "Ben", "Cal")}
    assert main_or_side["Ana"] == 2  # round 1's pot and round 3's side pot (the finale's
    # pot counts too: Ben's round 2 and the finale)
    assert {name: int(str(grid.loc[name, "poker_pot_won"])) for name in main_or_side} == (
        main_or_side)
    stat, = (s for s in stats_of("rummoli") if s.name == "poker_pot_won")
    assert stat.label == "Poker pot won" and "side pot" in stat.words
    # Pot accumulation's: the board's main pot in the rounds played for it, its winner's.
    pots = logic.human_table(logic.pot_summary(views.pot_winners(con, RUMMOLI_ONLY)),
                             logic.pot_summary_headers()).set_index("pot")
    assert pots.loc["poker", "times he won it (each, in a tie)"] == max(
        Counter(RUMMOLI_WON[n]["poker"] for n in (1, 2, 3)).values())
    calibration = logic.calibration_table(equity_views.rummoli_calibration(con, RUMMOLI_ONLY))
    assert int(calibration["rounds"].sum()) == 11
    assert _close((calibration["mean"] * calibration["rounds"]).sum(), 0 + 2.5 + 1.5)
    assert int(calibration["poker_pots_won"].sum()) == 5
    # Each bin of the strength stored at load (its input): the rounds whose share falls in
    # it, their mean share and the mean realised share worked out above, round by round.
    by_round = {("Ana", r): 0.0 for r in (1, 2, 3, 4)} | {
        ("Ben", 1): 1.0, ("Ben", 2): 0.5, ("Ben", 3): 0.0, ("Ben", 4): 1.0,
        ("Cal", 1): 0.0, ("Cal", 2): 0.5, ("Cal", 3): 1.0}
    stored = con.execute("""
        SELECT r.player, h.round, r.share FROM rummoli_strength r JOIN hands h USING (hand_id)
        WHERE h.game_id = $game""", {"game": RUMMOLI_GAME}).fetchall()
    assert {(str(p), int(n)) for p, n, _ in stored} == set(by_round)
    bins: defaultdict[int, list[tuple[float, float]]] = defaultdict(list)
    for player, number, share in stored:
        bins[min(int(share * 10), 9)].append((share, by_round[(str(player), int(number))]))
    by_bin = calibration.set_index("bin")
    assert set(by_bin.index) == set(bins)
    for number, rows in bins.items():
        assert _at(by_bin, number, "rounds") == len(rows)
        assert _close(_at(by_bin, number, "expected"), sum(s for s, _ in rows) / len(rows))
        assert _close(_at(by_bin, number, "mean"), sum(r for _, r in rows) / len(rows))
    # Dealt categories, best five of every card held (13 cards; the finale 17 and 18).
    dealt = views.dealt_types(con, RUMMOLI_ONLY, game="rummoli")
    assert {(str(r["player"]), int(r["size"]), str(r["category"])): int(r["hands"])
            for r in dealt.to_dict("records")} == {
        ("Ana", 13, "straight_flush"): 1, ("Ana", 13, "two_pair"): 1, ("Ana", 13, "flush"): 1,
        ("Ana", 17, "straight_flush"): 1, ("Ben", 13, "straight_flush"): 1,
        ("Ben", 13, "straight"): 2, ("Ben", 18, "straight_flush"): 1,
        ("Cal", 13, "straight_flush"): 1, ("Cal", 13, "straight"): 1,
        ("Cal", 13, "four_of_a_kind"): 1}
    tables = reports.build_report(con, RUMMOLI_ONLY).tables()
    rates = tables["Win rates (no limit, minimum bet 1, ante 1)"].set_index("player")
    assert {p: (int(_at(rates, p, "rounds")), int(_at(rates, p, "net (chips)")))
            for p in RUMMOLI_PLAYERS} == {"Ana": (4, 12), "Ben": (4, 23), "Cal": (3, -35)}
    parts = tables["Result by part (no limit, minimum bet 1, ante 1)"].set_index("player")
    for name, (rounds, _, chips) in RUMMOLI_PLAYERS.items():
        for part, value in chips.items():
            assert _close(_at(parts, name, f"{part} (chips per round)"),
                          round(value / rounds, 2)), (name, part)
    pots = tables["The nine pots: how often won, and by whom (no limit, minimum bet 1, ante 1)"
                  ].set_index("pot")
    assert [int(_at(pots, pot, "rounds won")) for pot in POTS_SHOWN] == \
        [3, 1, 1, 0, 1, 1, 1, 2, 3]
    shown = tables["Hands shown down (Rummoli)"].set_index("category")
    # Round 2: two straights; round 3: four queens, a flush, a straight; the finale: two
    # straight flushes.
    assert {str(k): int(v) for k, v in shown["hands shown"].items()} == {
        "straight": 3, "four of a kind": 1, "flush": 1, "straight flush": 2}


def test_files_loaded_count_each_files_hands(tmp_path: Path) -> None:
    """The Overview's "Files loaded": a file's hands, loaded, duplicates and rejects as
    counted here from the file itself (a hand, the same hand again, one whose player acts
    after folding), and its size in bytes."""
    from analytics.warehouse.sql import queries

    text = (AUDIT / FILES[0]).read_text(encoding="utf-8")
    hands_text = [part for part in re.split(r"(?m)^(?=\[\d+\]$)", text)
                  if part.strip() and not part.lstrip().startswith("#")]
    assert len(hands_text) >= 2
    broken = re.sub(r'"(p\d) f"\]', r'"\1 f", "\1 f"]', hands_text[1], count=1)
    assert broken != hands_text[1]
    content = hands_text[0] + hands_text[0] + broken
    (tmp_path / "mixed.phhs").write_text(content, encoding="utf-8")
    ingest([tmp_path / "mixed.phhs"], tmp_path / "files.duckdb", workers=0)
    con = duckdb.connect(str(tmp_path / "files.duckdb"), read_only=True)
    try:
        row = queries.files(con).iloc[0]
    finally:
        con.close()
    assert (row["hands"], row["loaded"], row["duplicates"], row["rejected"]) == (3, 1, 1, 1)
    assert row["size"] == len(content.encode("utf-8"))


def test_seveneight_hands_shown_down_are_the_replays(
        con: duckdb.DuckDBPyConnection, hands: list[tuple[HandHistory, Outcome]]) -> None:
    """Hand types' 7 & 8 hands at showdown (and the report's): per player and category, the
    hands the rules engine's replay shows down, counted here from the outcomes."""
    expected: Counter[tuple[str, str]] = Counter()
    for hand, outcome in hands:
        if hand.game is Game.SEVENEIGHT:
            for shown in outcome.showdown:
                expected[(hand.player_name(shown.player), shown.category)] += 1
    assert expected  # the hand-worked hands go to showdown
    got = views.showdown_types(con, EVERYONE, game="seveneight")
    assert {(str(p), str(c)): int(n) for p, c, n in
            got[["player", "category", "hands"]].itertuples(index=False)} == dict(expected)


def test_cumulative_lines_end_at_each_players_total(con: duckdb.DuckDBPyConnection,
                                                    seats: pd.DataFrame) -> None:
    for game in ("seveneight", "bigtwo", "rummoli"):
        mine = seats[seats["game"] == game]
        names = tuple(sorted(mine["player"].unique()))
        curves = stat_views.results_over_time(con, HandFilter(players=names), game=game,
                                              top=len(names), whole_round=True)
        last = curves.groupby("player")["actual"].last()
        total = (mine.assign(v=mine["net"] / mine["big_blind"]) if game == "seveneight"
                 else mine.assign(v=mine["net"])).groupby("player")["v"].sum()
        assert {p: round(float(v), 9) for p, v in last.items()} == {
            p: round(float(v), 9) for p, v in total.items()}
        figure = charts.cumulative(curves, of=len(names), per=logic.PER[game])
        assert f"showing {len(names)} of {len(names)} players" in figure.layout.title.text
        colours = [trace.line.color for trace in figure.data if "adjusted" not in trace.name]
        assert len(set(colours)) == len(colours)
    # Under rank scoring alone (no points), each line ends at the games he won.
    rank = seats[seats["level"] == "scoring rank"]
    names = tuple(sorted(rank["player"].unique()))
    for by in ("hand", "date"):
        curves = stat_views.results_over_time(
            con, HandFilter(players=names, knobs=(views.RANK_KNOB,)), game="bigtwo",
            top=len(names), by=by)
        last = curves.groupby("player")["actual"].last()
        assert {p: int(v) for p, v in last.items()} == {
            p: int(v) for p, v in rank.groupby("player")["winner"].sum().items()}
        assert int(curves.groupby("player")["hands"].last().sum()) == len(rank)


def test_by_position_and_up_card_in_big_blinds(con: duckdb.DuckDBPyConnection,
                                               seats: pd.DataFrame) -> None:
    mine = seats[seats["game"] == "seveneight"].assign(
        bb=lambda s: s["net"] / s["big_blind"])
    by_seat = logic.in_big_blinds(views.by_position(con, HandFilter(game="seveneight"),
                                                    by_level=True), ["players", "position"])
    expected = mine.groupby(["players", "position"])["bb"].agg(["size", "mean"])
    assert len(by_seat) == len(expected)
    for row in by_seat.itertuples(index=False):
        size, mean = _at(expected, (row.players, row.position), "size"), _at(
            expected, (row.players, row.position), "mean")
        assert row.hands == size and _close(row.bb_per_100, 100 * mean)
    # The axis names the seats as they post: seat 1 the small blind, but heads-up the big
    # blind (the button posts the small one); it read "1: small blind" at every table.
    first_is_big = dict(con.execute("""
        SELECT h.num_players = 2, list_distinct(list(one.blind > two.blind))
        FROM hands h JOIN seats one ON one.hand_id = h.hand_id AND one.seat = 1
        JOIN seats two ON two.hand_id = h.hand_id AND two.seat = 2
        WHERE h.game = 'seveneight' AND one.blind > 0 AND two.blind > 0 GROUP BY 1""").fetchall())
    assert first_is_big == {True: [True], False: [False]}  # heads-up: seat 1 the big blind
    assert logic.POSITION_WORDS["seveneight"] == (
        "seat (1: small blind, heads-up the big blind; last: button)")
    cards = logic.up_card_table(views.by_up_card(con, EVERYONE, by_level=True))
    assert list(cards["up_rank"]) == list("23456789TJQKA")
    counted = mine.groupby("up_rank")["bb"].agg(["size", "mean"])
    for row in cards.itertuples(index=False):
        if row.up_rank in counted.index:
            assert row.hands == _at(counted, row.up_rank, "size")
            assert _close(row.bb_per_100, 100 * _at(counted, row.up_rank, "mean"))
        else:
            assert row.hands == 0
    figure = charts.bar_with_ci(cards, x="up_rank", mean="bb_per_100", title="t",
                                x_order=list("23456789TJQKA"))
    assert figure.layout.xaxis.type == "category"
    assert list(figure.layout.xaxis.categoryarray) == list("23456789TJQKA")
    assert {"T", "J", "Q"} <= set(figure.data[0].x)


def test_big_two_by_position_counts_games_won_under_rank_scoring(
        con: duckdb.DuckDBPyConnection, seats: pd.DataFrame) -> None:
    """By position, Big Two under each scoring rule: the mean points per game, and under rank
    scoring (no points) the win fraction, per table size and place in the order of play."""
    mine = seats[seats["game"] == "bigtwo"].assign(result=_results)
    for level, rows in mine.groupby("level"):
        knob = ("scoring", str(level).split(" ", 1)[1])
        by_seat = views.by_position(con, HandFilter(game="bigtwo", knobs=(knob,)))
        expected = rows.groupby(["players", "position"])["result"].agg(["size", "mean"])
        assert len(by_seat) == len(expected), level
        for row in by_seat.itertuples(index=False):
            key = (row.players, row.position)
            assert row.hands == _at(expected, key, "size")
            assert _close(row.mean, _at(expected, key, "mean")), (level, key)
    levels = views.by_position(con, EVERYONE, by_level=True)
    rank = levels[levels["level"] == views.RANK_LEVEL]
    means = mine[mine["level"] == "scoring rank"].groupby(["players", "position"])[
        "result"].mean().reset_index()
    assert _by_seat(rank, "mean") == _by_seat(means, "result")
    table = logic.human_table(logic.with_confidence(rank),
                              logic.position_headers("bigtwo", views.RANK_LEVEL))
    assert "win fraction" in table.columns and "points per game" not in table.columns


def _by_seat(frame: pd.DataFrame, column: str) -> dict[tuple[int, int], float]:
    """``column`` by table size and position, rounded to 9 places."""
    return {(int(str(players)), int(str(position))): round(float(str(value)), 9)
            for players, position, value in frame[["players", "position", column]].itertuples(
                index=False)}


def test_statistics_grid_gives_rank_scoring_games_won_and_no_points(
        con: duckdb.DuckDBPyConnection, seats: pd.DataFrame) -> None:
    """Split by scoring rule, a rank row's points are empty ("—", not 0: rank scoring has no
    points) and its wins his games won; every other rule's row has its points."""
    grid = stat_views.stat_grid(con, EVERYONE, game="bigtwo", split="scoring")
    rank = grid[grid["scoring"] == "rank"]
    mine = seats[seats["level"] == "scoring rank"]
    assert {str(p): int(str(w)) for p, w in zip(rank["player"], rank["wins"], strict=True)} == {
        str(p): int(w) for p, w in mine.groupby("player")["winner"].sum().items()}
    assert rank["points"].isna().all() and rank["net"].isna().all()
    others = grid[grid["scoring"] != "rank"]
    assert len(others) and others["points"].notna().all() and others["net"].notna().all()
    cells, tips, _ = display_grid(rank.reset_index(drop=True), stats_of("bigtwo"),
                                  keys=("player", "scoring"))
    assert set(cells["points"]) == {"—"} and "rank scoring" in str(tips["points"].iloc[0])
    assert rank_note("bigtwo", ["cards", "rank"]) == RANK_NOTE
    assert rank_note("bigtwo", ["cards"]) is None


def test_allin_table_in_big_blinds(con: duckdb.DuckDBPyConnection, seats: pd.DataFrame) -> None:
    table = logic.allin_table(views.allin_totals(con, EVERYONE, by_level=True))
    mine = seats[seats["game"] == "seveneight"].assign(bb=lambda s: s["net"] / s["big_blind"])
    expected = mine.groupby("player").agg(hands=("bb", "size"), net=("bb", "sum"))
    table = table.set_index("player")
    for player, row in expected.iterrows():
        assert _at(table, player, "hands") == row["hands"]
        assert _close(_at(table, player, "net"), row["net"])


def test_bigtwo_every_game_has_a_place(con: duckdb.DuckDBPyConnection,
                                       seats: pd.DataFrame) -> None:
    places = logic.bigtwo_place_table(views.bigtwo_places(con, EVERYONE))
    mine = seats[seats["game"] == "bigtwo"]
    assert places.groupby("player")["games"].sum().to_dict() == \
        mine.groupby("player").size().to_dict()
    labels = mine["place"].map(logic.place_label)
    expected = Counter(zip(mine["player"], labels, strict=True))
    shown = Counter({(r.player, str(r.place)): r.games for r in places.itertuples()})
    assert shown == expected
    assert expected[("Gus", logic.NOT_OUT)] == 0 and expected[("Cy", logic.NOT_OUT)] > 0
    figure = charts.places(places, "t")
    assert sum(sum(t.y) for t in figure.data) == len(mine)
    left = views.bigtwo_cards_left(con, EVERYONE)
    # Over the games that end at the first player out: a rank-scored game's last player
    # holds his cards at no game's end (as the statistics' Cards left counts them).
    ended = mine[mine["level"] != "scoring rank"]
    counted = Counter(zip(ended["player"], ended["cards_left"], strict=True))
    assert Counter({(r.player, int(float(str(r.cards_left)))): r.games
                    for r in left.itertuples()}) == counted


def _parts(hands: list[tuple[HandHistory, Outcome]]) -> dict[tuple[str, str], int]:
    """Rummoli chips per player and part, from the awards; what was paid in is the rest."""
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for hand, outcome in hands:
        if hand.game is not Game.RUMMOLI:
            continue
        names = hand.players or ()
        for award in outcome.awards:
            part = views.SPLIT_POTS.get(award.pot)
            if part is None:
                part = "poker pot" if award.pot.startswith("poker_side") else "finale"
            totals[(names[award.player - 1], part)] += award.amount
        for index, name in enumerate(names):
            totals[(name, "net")] += outcome.nets[index]
    return totals


def test_rummoli_split_adds_up_to_the_net(con: duckdb.DuckDBPyConnection, seats: pd.DataFrame,
                                          hands: list[tuple[HandHistory, Outcome]]) -> None:
    split = logic.split_table(views.rummoli_split(con, EVERYONE), list(views.SPLIT_PARTS))
    parts = _parts(hands)
    rounds = seats[seats["game"] == "rummoli"].groupby("player").size()
    for row in split.to_dict("records"):
        player = row["player"]
        assert row["rounds"] == rounds[player]
        for part in views.SPLIT_PARTS[:-1]:
            assert _close(row[part], parts.get((player, part), 0) / rounds[player])
        assert _close(row["net per round"], parts[(player, "net")] / rounds[player])


# --------------------------------------------------------------------------- Pot accumulation


def _board_rows(hands: list[tuple[HandHistory, Outcome]]) -> pd.DataFrame:
    """Every Rummoli round's nine pots: before, antes paid in, cleared, won, since (rounds
    since the pot was last won in its game), from the parsed rounds."""
    rows = []
    streak: dict[tuple[str, str], int] = defaultdict(int)
    for hand, outcome in sorted(((h, o) for h, o in hands if h.game is Game.RUMMOLI),
                                key=lambda p: (p[0].game_id or "", p[0].round or 0)):
        before = hand.board_before or (0,) * len(RUMMOLI_POTS)
        after = outcome.board_after or (0,) * len(RUMMOLI_POTS)
        won: dict[str, int] = defaultdict(int)
        for award in outcome.awards:
            if award.pot in RUMMOLI_POTS:
                won[award.pot] += award.amount
        # The poker pot on the board is its antes: each player's ante, or all he paid when
        # short (poker is the first pot in board order); the bets are the poker phase's.
        ante = int(getattr(hand.rules, "ante", 0))
        paid = cast(tuple[int, ...], outcome.extra.get("antes", ()))
        if "poker" in won:
            won["poker"] = before[0] + sum(min(ante, chips) for chips in paid) - after[0]
        for number, pot in enumerate(RUMMOLI_POTS):
            put = after[number] + won.get(pot, 0) - before[number]
            key = (hand.game_id or "", pot)
            rows.append({"pot": pot, "before": before[number], "paid_in": max(put, 0),
                         "cleared": max(-put, 0), "won": pot in won,
                         "since": streak[key], "finale": hand.finale_pot is not None})
            streak[key] = 0 if pot in won else streak[key] + 1
    return pd.DataFrame(rows)


def test_pot_growth_uses_only_antes_paid_in(con: duckdb.DuckDBPyConnection,
                                            hands: list[tuple[HandHistory, Outcome]]) -> None:
    board = _board_rows(hands)
    assert (board["cleared"] > 0).any()  # the finales clear the board
    assert ((board["since"] > 0) & (board["before"] > 0)).any()  # and pots carry over
    growth = logic.pot_growth(views.pot_streaks(con, EVERYONE))
    paying_rows = board[board["paid_in"] > 0]
    assert len(growth) == len(paying_rows.groupby(["pot", "since"]))
    for row in growth.to_dict("records"):
        paying = paying_rows[paying_rows["pot"] == row["pot"]]
        rate = float(paying["paid_in"].mean())
        at = paying[paying["since"] == row["since"]]
        assert row["paid_rounds"] == len(at)
        assert _close(row["mean_before_paid"], at["before"].mean())
        assert _close(row["expected"], float(row["since"]) * rate)
        assert float(row["expected"]) >= 0 and float(row["mean_paid_in"]) >= 0
    figure = charts.pot_growth(growth)
    assert min(min(t.y) for t in figure.data) >= 0
    summary = logic.pot_summary(views.pot_winners(con, EVERYONE)).set_index("pot")
    for pot, mine in board.groupby("pot"):
        played = mine[~mine["finale"]]
        assert _at(summary, pot, "rounds") == len(played)
        assert _at(summary, pot, "won") == int(played["won"].sum())
        assert _at(summary, pot, "left_for_finale") == int(mine.loc[mine["finale"],
                                                                    "cleared"].sum())
    poker = summary.loc["poker"]  # always won in a round played for it
    assert poker["won"] == poker["rounds"] > 0
    one = views.rummoli_board(con, EVERYONE, game_id="s5-g001")
    table = logic.board_table(one)
    numbers = table.select_dtypes("number")
    assert (numbers.fillna(0) >= 0).all().all()
    areas = logic.board_areas(one)
    assert (areas["chips"] >= 0).all()


# --------------------------------------------------------------------------- Hand types


def test_hand_types_count_every_dealt_hand(con: duckdb.DuckDBPyConnection,
                                           hands: list[tuple[HandHistory, Outcome]]) -> None:
    dealt = views.dealt_types(con, EVERYONE, game="seveneight")
    cards: Counter[int] = Counter()
    for hand, _ in hands:
        if hand.game is not Game.SEVENEIGHT:
            continue
        per_seat: dict[int, int] = Counter()
        for action in hand.actions:
            if action.verb is Verb.DEAL_HOLE and action.target is not None:
                per_seat[action.target] += len(action.cards)
        cards.update(per_seat.values())
    assert int(dealt[dealt["size"] == 2]["hands"].sum()) == sum(cards.values())
    assert int(dealt[dealt["size"] == 3]["hands"].sum()) == cards[3]
    rummoli = views.dealt_types(con, EVERYONE, game="rummoli")
    assert int(rummoli["hands"].sum()) == sum(
        hand.num_players for hand, _ in hands if hand.game is Game.RUMMOLI)


# --------------------------------------------------------------------------- Replayer


PUT_IN = {1: (16, 2, 16), 2: (2, 2), 3: (20, 30, 30), 4: (6, 6), 5: (1, 4, 4), 6: (10, 10)}
"""Chips each player left in the pot in the hand-written 7 & 8 hands (the files' comments)."""


def test_replayer_nets_and_chips_put_in(con: duckdb.DuckDBPyConnection,
                                        hands: list[tuple[HandHistory, Outcome]]) -> None:
    ids = con.execute("SELECT hand_id, game, source_file, source_index FROM hands "
                      "ORDER BY game, source_file, source_index").fetchall()
    outcomes = {(Path(str(hand.source)).name, hand.index): outcome for hand, outcome in hands}
    for hand_id, game, source, index in ids:
        steps = replay_steps(hand_from_detail(views.hand_detail(con, hand_id)))
        outcome = outcomes[(Path(source).name, index)]
        settled = steps[-1]
        assert settled.nets == outcome.nets
        if game == "seveneight":
            assert settled.committed == PUT_IN[index]
        if game == "rummoli":
            received = [0] * len(outcome.nets)
            for award in outcome.awards:
                if award.amount > 0:
                    received[award.player - 1] += award.amount
            assert settled.committed == tuple(r - n for r, n in
                                              zip(received, outcome.nets, strict=True))
            assert all(min(step.committed) >= 0 for step in steps)
        if game == "bigtwo":
            assert all(stack is None for stack in settled.stacks)


# --------------------------------------------------------------------------- the report


@pytest.mark.slow
def test_the_report_shows_the_same_numbers(con: duckdb.DuckDBPyConnection,
                                           seats: pd.DataFrame) -> None:
    report = reports.build_report(con, EVERYONE)
    assert [s.title for s in report.sections] == [
        "Overview", "7 & 8", "Big Two", "Big Two score keeper", "Rummoli",
        "Statistics: 7 & 8", "Statistics: Big Two", "Statistics: Rummoli",
        "Files and data quality"]
    tables = report.tables()
    dealt = seats[seats["game"] == "seveneight"].groupby("player").size()
    grid = tables["Statistics counts (7 & 8)"]
    opportunities = dict(zip(grid["player"], grid["VPIP opportunities"].astype(int),
                             strict=True))
    # vpip's opportunities: every hand dealt him
    assert opportunities == {str(p): int(n) for p, n in dealt.items()}
    rates = tables["Win rates (big blinds per 100 hands)"].set_index("player")
    for player, value in _bb_per_100(seats[seats["game"] == "seveneight"]).items():
        assert abs(float(_at(rates, player, "big blinds per 100 hands")) - value) <= 0.005
    for level, rows in seats[seats["game"] == "bigtwo"].groupby("level"):
        # Every game by finishing place under each scoring rule: a place for every player
        # under rank scoring, else the winner's alone ("did not go out" for the others).
        places = tables[f"Games by finishing place ({logic.level_words(str(level))})"]
        assert int(places["games"].sum()) == len(rows)
        not_out = int(places.loc[places["finishing place"] == logic.NOT_OUT, "games"].sum())
        assert not_out == int(rows["place"].isna().sum())
        assert (not_out == 0) == (level == "scoring rank")
    for game in ("bigtwo", "rummoli"):
        for level, rows in seats[seats["game"] == game].groupby("level"):
            table = tables[f"Win rates ({logic.level_words(str(level))})"]
            assert int(table[f"{logic.PER[game]}s"].sum()) == len(rows)
            net = ("games won" if level == "scoring rank"
                   else f"net ({logic.NET_UNITS[game]})")
            assert int(table[net].sum()) == _results(rows).sum()
    assert "Win rates (scoring: finishing order)" in tables
    assert "By 2s held (scoring: finishing order)" in tables
    growths = [t for name, t in tables.items() if name.startswith("Pot growth: observed")]
    assert len(growths) == len(set(seats.loc[seats["game"] == "rummoli", "level"]))  # a level each
    assert all((growth["expected (chips)"] >= 0).all() for growth in growths)
    html = reports.render_html(report)
    assert '<nav class="contents">' in html
    for number in range(1, len(report.sections) + 1):
        assert f'href="#s{number}"' in html and f'id="s{number}"' in html
    for name, table in tables.items():
        assert not any(str(c).startswith(("ci_", "luck_std")) for c in table.columns), name
    shares = equity_views.rummoli_share_by_player(con, EVERYONE)
    assert int(shares["rounds"].sum()) == int(tables["Best-hand share against strength"][
        "rounds"].sum())


# --------------------------------------------------------------------------- the other charts


def test_pots_charts_count_every_round(con: duckdb.DuckDBPyConnection,
                                       hands: list[tuple[HandHistory, Outcome]]) -> None:
    board = _board_rows(hands)
    figure = charts.pots_won(views.pot_winners(con, EVERYONE))
    drawn: dict[str, int] = defaultdict(int)
    for trace in figure.data:
        for pot, rounds in zip(trace.x, trace.y, strict=True):
            drawn[pot_code(str(pot))] += int(rounds)
    assert dict(drawn) == {str(p): int(n) for p, n in
                           board.groupby("pot")["won"].sum().items() if n}
    streaks = charts.streak_lengths(views.pot_streaks(con, EVERYONE))
    per_pot = {pot_code(trace.name): sum(trace.y) for trace in streaks.data}
    assert per_pot == {str(p): int((~rows["finale"]).sum()) for p, rows in board.groupby("pot")}
    one = [(h, o) for h, o in hands if h.game_id == "s5-g001"]
    areas = logic.board_areas(views.rummoli_board(con, EVERYONE, game_id="s5-g001"))
    mine = _board_rows(one).assign(round=[int(h.round or 0) for h, _ in sorted(
        one, key=lambda p: p[0].round or 0) for _ in RUMMOLI_POTS])
    expected = {(int(r), str(p)): int(b + a) for r, p, b, a in zip(
        mine["round"], mine["pot"], mine["before"], mine["paid_in"], strict=True)}
    assert {(int(r), str(p)): int(c) for r, p, c in areas.itertuples(index=False)} == expected


def test_rummoli_split_chart_draws_the_table(con: duckdb.DuckDBPyConnection,
                                             hands: list[tuple[HandHistory, Outcome]],
                                             seats: pd.DataFrame) -> None:
    parts = _parts(hands)
    rounds = seats[seats["game"] == "rummoli"].groupby("player").size()
    split = logic.split_table(views.rummoli_split(con, EVERYONE), list(views.SPLIT_PARTS))
    figure = charts.split_bars(split, list(views.SPLIT_PARTS))
    for trace in figure.data[:-1]:  # every awarded part; the last is what was paid in
        for player, value in zip(trace.x, trace.y, strict=True):
            assert _close(value, parts.get((str(player), trace.name), 0) / rounds[player])


def test_big_two_score_by_twos_counts_every_game(con: duckdb.DuckDBPyConnection,
                                                 seats: pd.DataFrame,
                                                 hands: list[tuple[HandHistory, Outcome]]
                                                 ) -> None:
    twos: dict[tuple[str, str], int] = {}
    for hand, _ in hands:
        if hand.game is not Game.BIGTWO:
            continue
        for action in hand.actions:
            if action.verb is Verb.DEAL_HOLE and action.target is not None:
                name = (hand.players or ())[action.target - 1]
                key = (f"{hand.game_id} {hand.round}", name)
                twos[key] = twos.get(key, 0) + sum(str(c)[0] == "2" for c in action.cards)
    for level, rows in seats[seats["game"] == "bigtwo"].groupby("level"):
        knob = str(level).split(" ", 1)[1]
        table = logic.feature_table(equity_views.bigtwo_feature_results(
            con, HandFilter(knobs=(("scoring", knob),)), feature="twos"))
        assert int(table["games"].sum()) == len(rows)
    # Each bar of a scoring rule: his games with that many 2s dealt, their mean points and
    # standard deviation, and the share he went out first, from the replays.
    dealt: defaultdict[tuple[str, str, str], list[tuple[int, bool]]] = defaultdict(list)
    for hand, outcome in hands:
        if hand.game is Game.BIGTWO and isinstance(hand.rules, BigTwoRules):
            for seat, name in enumerate(hand.players or (), start=1):
                held_twos = twos[(f"{hand.game_id} {hand.round}", name)]
                # The result: points, or under rank scoring (no points) the game won.
                won = outcome.winner == seat
                result = int(won) if hand.rules.scoring.value == "rank" else outcome.nets[
                    seat - 1]
                dealt[(hand.rules.scoring.value, name, str(held_twos))].append((result, won))
    for knob in {scoring for scoring, _, _ in dealt}:
        table = logic.feature_table(equity_views.bigtwo_feature_results(
            con, HandFilter(knobs=(("scoring", knob),)), feature="twos"))
        shown = {(str(r["player"]), str(r["bin"])): r for r in table.to_dict("records")}
        mine = {(name, bin_): games for (scoring, name, bin_), games in dealt.items()
                if scoring == knob}
        assert shown.keys() == mine.keys(), knob
        for key, games in mine.items():
            nets = [net for net, _ in games]
            row = shown[key]
            assert row["games"] == len(games) and _close(row["mean"], sum(nets) / len(nets))
            assert _close(row["first_share"], sum(first for _, first in games) / len(games))
            if len(nets) > 1:
                assert _close(row["sd"], statistics.stdev(nets)), key
    held = Counter(twos.values())
    everyone = logic.feature_table(equity_views.bigtwo_feature_results(con, EVERYONE,
                                                                      feature="twos"))
    assert {str(k): v for k, v in held.items()} == {
        str(b): int(g) for b, g in everyone.groupby("bin")["games"].sum().items()}


def test_hand_types_categories_from_the_parsed_cards(
        con: duckdb.DuckDBPyConnection, hands: list[tuple[HandHistory, Outcome]]) -> None:
    dealt: dict[int, list[str]] = defaultdict(list)
    sizes: Counter[int] = Counter()
    for hand, _ in hands:
        per_seat: dict[int, str] = defaultdict(str)
        for action in hand.actions:
            if action.verb is Verb.DEAL_HOLE and action.target is not None:
                per_seat[action.target] += "".join(str(c) for c in action.cards)
        if hand.game is Game.SEVENEIGHT:
            for cards in per_seat.values():
                dealt[2].append(cards[:4])
                if len(cards) == 6:
                    dealt[3].append(cards)
        elif hand.game is Game.RUMMOLI:
            sizes.update(len(cards) // 2 for cards in per_seat.values())
    counts = views.dealt_types(con, EVERYONE, game="seveneight")
    for size, texts in dealt.items():
        expected = logic.category_counts(logic.seveneight_categories(pd.Series(texts)))
        shown = counts[counts["size"] == size].groupby("category")["hands"].sum()
        assert {str(k): int(v) for k, v in shown.items()} == {
            str(k): int(v) for k, v in expected.items() if v}
        fit = logic.goodness_of_fit(shown.astype("int64"), logic.seveneight_theory(size))
        assert fit.n == len(texts)
    rummoli = views.dealt_types(con, EVERYONE, game="rummoli")
    assert {int(str(k)): int(v) for k, v in
            rummoli.groupby("size")["hands"].sum().items()} == dict(sizes)


def test_allin_adjusted_results_by_enumeration(tmp_path: Path) -> None:
    """Win rates' all-in table (hands all in with cards to come, adjusted net and luck, in
    big blinds) over heads-up hands all in before the third cards, against this test's
    own enumeration: every pair of third cards from the 48 unseen, each hand ranked by the
    shared evaluator, a tie half; the matched stake m is the shorter stack, so the
    expected net is m(2e - 1) for equity e, and luck the actual net less it."""
    from itertools import permutations

    from analytics.equity import allin_moment
    from analytics.evaluator import seveneight_rank
    from analytics.simulate.seveneight import simulate_seveneight
    from parsers import write_hands
    from parsers.cards import DECK

    chosen = [h for h in simulate_seveneight(300, 2, 71, starting_stack=20)
              if allin_moment(h) is not None][:6]
    assert len(chosen) == 6
    write_hands(chosen, tmp_path / "allin.phhs")
    db = tmp_path / "allin.duckdb"
    assert ingest([tmp_path / "allin.phhs"], db, workers=0).rejected == 0
    expected: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for hand in chosen:
        holes = [tuple(a.cards) for a in hand.actions[:allin_moment(hand)]
                 if a.verb is Verb.DEAL_HOLE]
        unseen = [card for card in DECK if card not in {c for h in holes for c in h}]
        wins = 0.0
        deals = list(permutations(unseen, 2))
        for first, second in deals:
            one, two = seveneight_rank([*holes[0], first]), seveneight_rank([*holes[1], second])
            wins += 1.0 if one > two else 0.5 if one == two else 0.0
        equity = (wins / len(deals), 1 - wins / len(deals))
        stake = min(hand.starting_stacks or (0, 0))
        blind = max(hand.blinds_or_straddles or (0,))
        for seat, name in enumerate(hand.players or ()):
            actual = replay(hand).nets[seat]
            adjusted = stake * (2 * equity[seat] - 1)
            totals = expected[name]
            totals[0] += actual / blind
            totals[1] += adjusted / blind
            totals[2] += (actual - adjusted) / blind
    con = duckdb.connect(str(db), read_only=True)
    try:
        table = logic.allin_table(views.allin_totals(con, EVERYONE, by_level=True))
    finally:
        con.close()
    shown = table.set_index("player")
    assert set(shown.index) == set(expected)
    assert any(abs(luck) > 1 for _, _, luck in expected.values())  # luck to find
    for name, (net, adjusted, luck) in expected.items():
        assert _at(shown, name, "all_in_hands") == _at(shown, name, "hands") > 0
        assert _close(_at(shown, name, "net"), net), name
        assert math.isclose(float(_at(shown, name, "adjusted_net")), adjusted, abs_tol=1e-6)
        assert math.isclose(float(_at(shown, name, "luck")), luck, abs_tol=1e-6)
    assert "luck_std_error" not in shown  # heads-up, every equity exact: no sampling error
