"""The hands behind every linked bar (issue #28: "every bar links to the list of hands behind
it"): for each chart, each bar's rows (``views.bar_hands``, ``views.pot_streak_hands``,
``equity_views.bigtwo_feature_hands``) are exactly the hands an independent count finds, and
as many as the bar counts.

The independent counts are plain Python over the base tables the ingest writes (``hands``,
``seats``, ``actions``, ``board``, ``bigtwo_features``), never the derived fact tables the
bars are drawn from, or the hand search's own questions (``search.search_hands``)."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import plotly.graph_objects as go
import pytest

from analytics.dashboard import charts, logic
from analytics.dashboard.cards import pot_code, pot_words
from analytics.dashboard.hand_list import Bar, picked_bar
from analytics.evaluator import poker_rank, seveneight_rank
from analytics.warehouse.sql.equity_views import bigtwo_feature_hands, bigtwo_feature_results
from analytics.warehouse.sql.search import HandSearch, search_hands
from analytics.warehouse.sql.views import (
    PLAY_KIND_COLUMNS,
    HandFilter,
    bar_hands,
    by_position,
    dealt_types,
    overview_page,
    play_kinds,
    pot_streak_hands,
    pot_streaks,
    pot_winners,
    showdown_types,
)
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the shared warehouse fixture, imported for pytest

EVERY: int = 1_000_000  # a search limit above the test warehouse's hands


@pytest.fixture
def con(dashboard_db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect(str(dashboard_db), read_only=True)
    yield connection
    connection.close()


def _base(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every seat with its hand's columns, from the base tables, its day as views.DAY."""
    return con.execute("""
        SELECT s.hand_id, s.seat, s.player, s.net, h.game, h.num_players, h.dealer,
               h.game_id, h.round, coalesce(h.played_on, CAST(h.loaded_at AS DATE)) AS day
        FROM seats s JOIN hands h USING (hand_id)""").fetchdf()


def _clicked(figure: go.Figure, x: str, name: str) -> Bar:
    """What a click on the bar (x, trace name) of ``figure`` gives the page: plotly's point
    names its trace and index, and its ``x`` is where the bar is drawn (on a numeric axis a
    grouped bar's offset, not its value: the page must read the value from the trace)."""
    traces = [str(trace.name) for trace in figure.data]
    curve = traces.index(name)
    values = [str(value) for value in figure.data[curve].x]
    index = next(at for at, value in enumerate(values) if value == x or value[:10] == x)
    point = {"x": -0.36, "curve_number": curve, "point_index": index}
    bar = picked_bar(figure, {"selection": {"points": [point]}})
    assert bar is not None and bar.name == name
    assert bar.x == x or bar.x[:10] == x
    return bar


def test_a_position_bar_lists_the_seats_of_that_position(con: duckdb.DuckDBPyConnection
                                                         ) -> None:
    seats = _base(con)
    # Rummoli's position counts from the dealer's left (1) to the dealer (N); the others'
    # is the seat.
    rummoli = seats["game"] == "rummoli"
    from_dealer = (seats["seat"] - seats["dealer"].fillna(0) - 1) % seats["num_players"] + 1
    seats["position"] = seats["seat"].where(~rummoli, from_dealer)
    checked = 0
    for game in ("seveneight", "bigtwo", "rummoli"):
        only = HandFilter(game=game)
        rows = by_position(con, only)
        rows = rows[rows["game"] == game]
        figure = charts.bar_with_ci(logic.with_confidence(rows).assign(
            players=rows["players"].astype(str)), x="position", color="players",
            title="By position")
        for players, position, hands in rows[["players", "position", "hands"]].itertuples(
                index=False):
            bar = _clicked(figure, str(position), str(players))
            behind = bar_hands(con, only, source="seat_facts", game=game,
                               bar=(("players", int(bar.name)), ("position", int(bar.x))))
            mine = seats[(seats["game"] == game) & (seats["num_players"] == players)
                         & (seats["position"] == position)]
            assert sorted(behind["hand_id"]) == sorted(mine["hand_id"]), (game, position)
            assert len(behind) == hands
            assert behind["net"].sum() == mine["net"].sum()
            checked += 1
    assert checked >= 9
    # The chart's filter narrows the bar as it narrows the chart: one player's seats.
    one = HandFilter(game="seveneight", players=("Cy",))
    behind = bar_hands(con, one, source="seat_facts", game="seveneight",
                       bar=(("players", 4), ("position", 1)))
    mine = seats[(seats["game"] == "seveneight") & (seats["player"] == "Cy")
                 & (seats["num_players"] == 4) & (seats["position"] == 1)]
    assert sorted(behind["hand_id"]) == sorted(mine["hand_id"])


def test_a_deal_strength_bar_lists_his_games_in_that_bin(con: duckdb.DuckDBPyConnection
                                                          ) -> None:
    features = con.execute("SELECT hand_id, player, twos, has_lead FROM bigtwo_features"
                           ).fetchdf()
    for feature, bins in (("twos", features["twos"].astype(str)),
                          ("has_lead", features["has_lead"].map({True: "yes",
                                                                 False: "no"}))):
        table = logic.feature_table(bigtwo_feature_results(con, HandFilter(),
                                                           feature=feature))
        figure = charts.bar_with_ci(table, x="bin", color="player", title=feature)
        assert len(table) >= 4
        for player, value, games in table[["player", "bin", "games"]].itertuples(index=False):
            bar = _clicked(figure, str(value), str(player))
            behind = bigtwo_feature_hands(con, HandFilter(), feature=feature, player=bar.name,
                                          bin=bar.x)
            expected = features[(features["player"] == player) & (bins == value)]
            assert sorted(behind["hand_id"]) == sorted(expected["hand_id"])
            assert len(behind) == games
    with pytest.raises(ValueError, match="unknown feature"):
        bigtwo_feature_hands(con, HandFilter(), feature="x; DROP TABLE hands", player="Ann",
                             bin="1")


def test_a_pot_won_bar_lists_the_rounds_he_won_it(con: duckdb.DuckDBPyConnection) -> None:
    board = con.execute("""
        SELECT b.hand_id, b.pot, s.player AS winner FROM board b
        JOIN seats s ON s.hand_id = b.hand_id AND s.seat = b.won_by
        JOIN hands h ON h.hand_id = b.hand_id
        WHERE h.finale_pot IS NULL""").fetchdf()  # the rounds played for the pots
    winners = pot_winners(con, HandFilter())
    won = winners[winners["won_by_player"].notna() & ~winners["finale"]]
    figure = charts.pots_won(winners)
    assert len(won) >= 10
    for pot, player, rounds in won[["pot", "won_by_player", "rounds"]].itertuples(index=False):
        bar = _clicked(figure, pot_words(pot), player)
        behind = bar_hands(con, HandFilter(), source="pot_facts", game="rummoli",
                           bar=(("pot", pot_code(bar.x)), ("won_by_player", bar.name)))
        expected = board[(board["pot"] == pot) & (board["winner"] == player)]
        assert sorted(behind["hand_id"]) == sorted(expected["hand_id"]), (pot, player)
        assert len(behind) == rounds


def _since(rounds: pd.DataFrame) -> dict[tuple[int, str], int]:
    """(hand, pot) -> rounds since the pot was last won within its game, counted over the
    rounds given in order (0 in the game's first round and after a win)."""
    since: dict[tuple[int, str], int] = {}
    for _, pot_rounds in rounds.sort_values("round").groupby(["game_id", "pot"]):
        count = 0
        for hand, pot, won in pot_rounds[["hand_id", "pot", "won"]].itertuples(index=False):
            since[(int(hand), str(pot))] = count
            count = 0 if won else count + 1
    return since


@pytest.mark.parametrize("only", [HandFilter(), HandFilter(date_from=dt.date(2026, 1, 6))],
                         ids=["whole games", "from a day"])
def test_a_carry_over_bar_lists_its_rounds(con: duckdb.DuckDBPyConnection,
                                           only: HandFilter) -> None:
    rounds = con.execute("""
        SELECT b.hand_id, b.pot, b.won_by IS NOT NULL AS won, h.game_id, h.round,
               coalesce(h.played_on, CAST(h.loaded_at AS DATE)) AS day,
               h.finale_pot IS NOT NULL AS finale
        FROM board b JOIN hands h USING (hand_id)""").fetchdf()
    if only.date_from is not None:  # a filter that cuts games: counted over the rows kept
        rounds = rounds[rounds["day"] >= pd.Timestamp(only.date_from)]
    finales = set(rounds.loc[rounds["finale"], "hand_id"])  # no rounds played for a pot
    since = {key: count for key, count in _since(rounds).items() if key[0] not in finales}
    streaks = pot_streaks(con, only)
    figure = charts.streak_lengths(streaks)
    by_bar: defaultdict[tuple[str, int], list[int]] = defaultdict(list)
    for (hand, pot), count in since.items():
        by_bar[(pot, count)].append(hand)
    assert len(streaks) >= 10
    assert sum(streaks["since"] > 0) >= 5
    for pot, count, total in streaks[["pot", "since", "rounds"]].itertuples(index=False):
        bar = _clicked(figure, str(count), pot_words(str(pot)))
        behind = pot_streak_hands(con, only, pot=pot_code(bar.name), since=int(bar.x))
        assert sorted(behind["hand_id"]) == sorted(by_bar[(pot, count)]), (pot, count)
        assert len(behind) == total
        assert list(behind.columns) == ["hand_id", "day"]  # no count that is always 1


def _dealt(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Each seat's dealt cards (the dh actions dealt to it, in order) from ``actions``."""
    return con.execute("""
        SELECT a.hand_id, h.game, s.player, string_agg(a.cards, '' ORDER BY a.seq) AS cards
        FROM actions a JOIN hands h USING (hand_id)
        JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.target
        WHERE a.verb = 'dh' GROUP BY ALL""").fetchdf()


def test_a_dealt_category_bar_lists_the_seats_dealt_it(con: duckdb.DuckDBPyConnection
                                                       ) -> None:
    dealt = _dealt(con)
    known = dealt[~dealt["cards"].str.contains("?", regex=False)]
    expected: defaultdict[tuple[str, int, str], list[int]] = defaultdict(list)
    for hand, game, cards in known[["hand_id", "game", "cards"]].itertuples(index=False):
        if game == "seveneight":
            expected[("dealt_two_category", 2, seveneight_rank(cards[:4]).category.label)
                     ].append(int(hand))
            if len(cards) == 6:
                expected[("dealt_three_category", 3, seveneight_rank(cards).category.label)
                         ].append(int(hand))
        elif game == "rummoli":
            expected[("dealt_poker_category", len(cards) // 2,
                      poker_rank(cards).category.label)].append(int(hand))
    checked = 0
    for game in ("seveneight", "rummoli"):
        types = dealt_types(con, HandFilter(), game=game)
        for size, category, hands in (types.groupby(["size", "category"])["hands"].sum()
                                      .reset_index().itertuples(index=False)):
            if game == "seveneight":
                column = "dealt_two_category" if size == 2 else "dealt_three_category"
                also: tuple[tuple[str, object], ...] = ()
            else:
                column, also = "dealt_poker_category", (("dealt_size", int(size)),)
            behind = bar_hands(con, HandFilter(), source="seat_facts", game=game,
                               bar=((column, category), *also))
            assert sorted(behind["hand_id"]) == sorted(expected[(column, size, category)])
            assert len(behind) == hands
            checked += 1
    assert checked >= 8


def test_a_showdown_bar_lists_what_the_search_finds(con: duckdb.DuckDBPyConnection) -> None:
    shown = showdown_types(con, HandFilter(), game="seveneight")
    counts = shown.groupby("category")["hands"].sum()
    assert len(counts) >= 3
    for category, seats in counts.items():
        behind = bar_hands(con, HandFilter(), source="seat_facts", game="seveneight",
                           bar=(("shown_category", category),))
        found = search_hands(con, HandFilter(game="seveneight"),
                             search=HandSearch(categories=(str(category),)), limit=EVERY)
        assert set(behind["hand_id"]) == set(found["hand_id"])
        assert len(behind) == seats  # one row a seat shown, as the bar counts


def test_a_combination_bar_lists_the_games_it_was_played_in(con: duckdb.DuckDBPyConnection
                                                            ) -> None:
    played = play_kinds(con, HandFilter()).groupby("category")["hands"].sum()
    assert len(played) >= 4
    for kind in PLAY_KIND_COLUMNS:
        behind = bar_hands(con, HandFilter(), source="seat_facts", game="bigtwo", bar=(),
                           kind=kind)
        found = search_hands(con, HandFilter(game="bigtwo"),
                             search=HandSearch(combination=kind), limit=EVERY)
        assert set(behind["hand_id"]) == set(found["hand_id"]), kind
        assert int(behind["counted"].sum()) == int(played.get(kind, 0)), kind


def _first_day(bucket: str, day: dt.date) -> dt.date:
    """The first day of ``day``'s week (Monday, as DuckDB's date_trunc), month or day."""
    if bucket == "week":
        return day - dt.timedelta(days=day.weekday())
    return day.replace(day=1) if bucket == "month" else day


def test_an_overview_bar_lists_the_hands_of_its_period(con: duckdb.DuckDBPyConnection) -> None:
    hands = con.execute("SELECT hand_id, game, coalesce(played_on, CAST(loaded_at AS DATE)) "
                        "AS day FROM hands").fetchdf()
    page = overview_page(con, HandFilter())
    for bucket in ("week", "month", "day"):
        expected: Counter[str] = Counter()
        by_bar: defaultdict[tuple[str, dt.date], list[int]] = defaultdict(list)
        for hand, game, day in hands.itertuples(index=False):
            by_bar[(game, _first_day(bucket, pd.Timestamp(day).date()))].append(int(hand))
        frame = page[f"hands_over_time {bucket}"]
        figure = charts.hands_over_time(frame)
        for period, game, count in frame[["period", "game", "hands"]].itertuples(index=False):
            start = pd.Timestamp(period).date()
            bar = _clicked(figure, f"{start}", {"seveneight": "7 & 8", "bigtwo": "Big Two",
                                                "rummoli": "Rummoli"}[game])
            behind = bar_hands(con, HandFilter(), source="hand_facts",
                               bar=(("game", game), (bucket, dt.date.fromisoformat(bar.x[:10]))))
            assert sorted(behind["hand_id"]) == sorted(by_bar[(game, start)])
            assert len(behind) == count
            expected[game] += count
        assert dict(expected) == dict(Counter(hands["game"]))  # every hand in one bar


def test_bar_columns_are_a_whitelist(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="unknown bar column"):
        bar_hands(con, HandFilter(), source="seat_facts", bar=(("x; DROP TABLE hands", 1),))
    with pytest.raises(ValueError, match="unknown source"):
        bar_hands(con, HandFilter(), source="hands; --", bar=())
    with pytest.raises(ValueError, match="unknown combination"):
        bar_hands(con, HandFilter(), source="seat_facts", bar=(), kind="bomb")
