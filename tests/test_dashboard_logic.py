"""The dashboard's plain functions: statistics, categories, theory, filters <-> URL, cards,
charts, the replayer and the extra warehouse questions."""

from __future__ import annotations

import datetime as dt
import html
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from analytics.dashboard import cards, charts, filters, logic, statistics
from analytics.dashboard.replayer import (
    chips_unit,
    hand_from_detail,
    pots_text,
    replay_steps,
    rules_from_json,
    steps_frame,
)
from analytics.evaluator import poker_rank, seveneight_rank
from analytics.rules import replay
from analytics.warehouse.pipeline.run import FileSummary
from analytics.warehouse.sql import views
from analytics.warehouse.sql.views import HandFilter
from analytics.words import counted
from parsers.cards import parse_cards
from parsers.model import RUMMOLI_POTS
from parsers.rule_options import BigTwoRules, BigTwoScoring, Claim, Game, RummoliRules, Straights
from tests.mutate import SAMPLES
from tests.test_dashboard_data import dashboard_con, dashboard_db

__all__ = ["dashboard_con", "dashboard_db"]


@pytest.fixture
def con(dashboard_con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    return dashboard_con


# -- statistics ------------------------------------------------------------------------


def test_confidence_interval_is_mean_plus_minus_1_96_sd_over_root_n() -> None:
    frame = pd.DataFrame({"mean": [2.0, 1.0], "sd": [4.0, np.nan], "hands": [16, 1]})
    out = logic.with_confidence(frame)
    assert out["ci_low"].iloc[0] == pytest.approx(2 - 1.959964 * 4 / 4, abs=1e-6)
    assert out["ci_high"].iloc[0] == pytest.approx(2 + 1.959964, abs=1e-6)
    assert math.isnan(out["ci_low"].iloc[1])  # one hand: no interval, not a fake one


def test_level_results_list_the_best_rate_first_within_each_level() -> None:
    """The Big Two and Rummoli rates are listed (and their bars drawn) by the rate, not by
    the net: a player with a larger net over many more games comes after a better rate."""
    rows = pd.DataFrame({
        "game": "bigtwo", "level": ["scoring cards", "scoring cards", "scoring cards",
                                    "scoring rank"],
        "player": ["Many", "Few", "Low", "Other"], "hands": [10, 2, 4, 3],
        "wins": [3, 1, 0, 1], "net": [10, 6, -8, 1], "net_sq": [40.0, 20.0, 20.0, 3.0]})
    rows["mean"] = rows["net"] / rows["hands"]
    rows["sd"] = 1.0
    table = logic.level_results(rows, "bigtwo")
    assert list(zip(table["level"], table["player"], strict=True)) == [
        ("scoring cards", "Few"), ("scoring cards", "Many"), ("scoring cards", "Low"),
        ("scoring rank", "Other")]


def test_human_table_rounds_and_shows_shares_in_percent() -> None:
    """Headers in words with units; a "(%)" column's fraction as a percentage to two
    decimals; other fractions rounded; dates without a time of day."""
    frame = pd.DataFrame({"category": ["flush"], "expected": [301.3575],
                          "observed_share": [0.567567], "theory_share": [0.00123],
                          "day": pd.to_datetime(["2026-08-21"])})
    shown = logic.human_table(frame, {**logic.FIT_HEADERS, "day": "day"}, decimals=1)
    assert list(shown.columns) == ["category", "expected hands", "observed share (%)",
                                   "exact share (%)", "day"]
    row = shown.iloc[0]
    assert (row["expected hands"], row["observed share (%)"], row["exact share (%)"]) == (
        301.4, 56.76, 0.12)
    assert row["day"] == dt.date(2026, 8, 21)
    # A small share keeps two significant digits: 5-card Rummoli hands' straight flush
    # (0.00154 %) and four of a kind (0.024 %) were shown and downloaded as 0.0.
    small = pd.DataFrame({"category": ["straight_flush", "four_of_a_kind"],
                          "expected": [0.000308, 0.0048], "observed_share": [0.0, 0.0],
                          "theory_share": [0.0000154, 0.00024]})
    shown = logic.human_table(small, logic.FIT_HEADERS, decimals=1)
    assert list(shown["exact share (%)"]) == [0.0015, 0.024]
    assert list(shown["expected hands"]) == [0.00031, 0.0048]
    assert list(shown["observed share (%)"]) == [0.0, 0.0]


def test_categories_read_as_the_evaluator_says_them() -> None:
    """One spelling per category on every page: the evaluator's ("seven-eight", as
    ``handlab eval`` prints it), not the label with its underscores blanked."""
    labels = pd.Series(["seven_eight_flush", "seven_eight", "full_house", "two_pairs",
                        "three_of_a_kind", "no_such_label"])
    assert list(logic.category_words(labels)) == [
        "seven-eight flush", "seven-eight", "full house", "two pairs", "three of a kind",
        "no such label"]


def test_held_words_name_the_kinds_and_the_straights_rule() -> None:
    held = pd.DataFrame({"category": ["full_house", "straight"],
                         "straights": ["sg_hk", "vietnamese"]})
    worded = logic.held_words(held)
    assert list(worded["category"]) == ["full house", "straight"]
    assert list(worded["straights"]) == ["Singapore and Hong Kong straights",
                                         "Vietnamese straights (3-7 up to T-A only)"]
    assert set(logic.STRAIGHTS_WORDS) == {s.value for s in Straights}


def test_cards_words_are_what_a_person_reads() -> None:
    assert cards.cards_words(parse_cards("Ts5d")) == "10♠ 5♦"
    assert cards.cards_words(["Ah", "??"]) == "A♥ ?"
    assert cards.cards_words([]) == ""


def test_goodness_of_fit_pools_small_bins_and_detects_a_bad_fit() -> None:
    theory = pd.Series({"a": 0.5, "b": 0.49, "c": 0.01})
    good = logic.goodness_of_fit(pd.Series({"a": 50, "b": 49, "c": 1}), theory)
    assert good.dof == 1  # c is expected once: too few even pooled, so it joins b
    assert good.p_value > 0.5
    bad = logic.goodness_of_fit(pd.Series({"a": 90, "b": 10}), theory)
    assert bad.p_value < 1e-6
    assert list(bad.table["observed"]) == [90, 10, 0]
    with pytest.raises(ValueError, match="does not know"):
        logic.goodness_of_fit(pd.Series({"z": 3}), theory)
    nothing = logic.goodness_of_fit(pd.Series(dtype="int64"), theory)
    assert math.isnan(nothing.p_value) and nothing.n == 0


# -- categories and theory -----------------------------------------------------------------


def test_card_codes_match_the_parser() -> None:
    codes = logic.card_codes(["AsKd", "2c3h"], 2)
    assert codes.tolist() == [[51, 45], [0, 6]]
    with pytest.raises(ValueError, match="canonical"):
        logic.card_codes(["Zz2c"], 2)
    with pytest.raises(ValueError, match="2 cards"):
        logic.card_codes(["As"], 2)


def test_categories_agree_with_the_scalar_evaluator() -> None:
    hands = pd.Series(["7c8c", "7c8c2d", "AsAh", "9d6d"])
    got = logic.seveneight_categories(hands)
    assert list(got) == [seveneight_rank(h).category.label for h in hands]
    poker = pd.Series(["AsKsQsJsTs", "2c2d2h5s5c9d", "2c3d"])
    labels = logic.poker_categories(poker)
    assert list(labels[:2]) == [poker_rank(h).category.label for h in poker[:2]]
    assert labels.iloc[2] == ""  # too few cards for poker: no category


def test_exact_theory_is_a_distribution_with_the_known_counts() -> None:
    two = logic.seveneight_theory(2)
    assert two.sum() == pytest.approx(1.0)
    assert two["pair"] == pytest.approx(78 / 1326)  # 13 ranks x C(4, 2) pairs
    five = logic.poker_theory(5)
    assert five["four_of_a_kind"] == pytest.approx(624 / 2598960)
    assert five["straight_flush"] == pytest.approx(40 / 2598960)  # royal flushes included
    with pytest.raises(ValueError, match="counted for 5"):
        logic.poker_theory(logic.EXACT_POKER_MAX + 1)


def test_stake_levels_are_named_in_words() -> None:
    """A stakes label (the filter's value) is read in words on every page: the tables'
    level column, the titles, the Statistics grid's split, the filter's description."""
    cases = {"N78 min 2": "no limit, big blind 2", "P78 min 5": "pot limit, big blind 5",
             "F78 2/4": "fixed limit 2/4", "NRM min 1": "no limit, minimum bet 1",
             "FRM 1/2": "fixed limit 1/2", "points": "points"}
    for label, words in cases.items():
        assert views.stakes_words(label) == words
        assert statistics.key_text("stakes", label) == words
    assert logic.level_value("N78 min 2") == logic.level_words("N78 min 2") == cases["N78 min 2"]
    # A Rummoli level: its stakes and ante (views.level_of), a currency in the stakes.
    assert logic.level_words("NRM min 1 ante 2") == "no limit, minimum bet 1, ante 2"
    assert logic.level_value("FRM 1/2 USD ante 3") == "fixed limit 1/2 USD, ante 3"
    assert views.level_filter(HandFilter(), "rummoli", "FRM 1/2 USD ante 3") == HandFilter(
        game="rummoli", stakes="FRM 1/2 USD", knobs=(("ante", "3"),))
    # A level's chips in its declared currency, which every header then names.
    currencies = {"F78 2/4 USD": "USD", "N78 min 100 JPY": "JPY", "NRM min 1 EUR ante 2": "EUR",
                  "NRM min 1 ante 2": None, "N78 min 2": None, "points": None}
    assert {label: views.stakes_currency(label) for label in currencies} == currencies
    assert logic.level_unit("rummoli", "NRM min 1 EUR ante 2") == ("EUR", "EUR per round")
    assert logic.level_unit("seveneight", "N78 min 2") == ("chips", "chips per hand")
    assert logic.level_headers("rummoli", "NRM min 1 EUR ante 2")["net"] == "net (EUR)"
    assert statistics.rule_scope(HandFilter(), "rummoli", "NRM min 1 EUR ante 2")[1] == (
        "EUR, poker phase")
    # The label itself is still what a 7 & 8 level's big blind is read from.
    assert logic.big_blind("F78 2/4") == 2 and logic.big_blind("N78 min 2") == 2
    assert logic.big_blind("N78 min 100 JPY") == 100
    for bad in ("points", "N78", "N78 min 0", "X78 min 2"):
        with pytest.raises(ValueError, match="7 & 8 stake level"):
            logic.big_blind(bad)
    # One reader of the labels: its parts.
    assert views.read_stakes("FRM 2/4 USD") == views.StakesLabel(
        "FRM", Game.RUMMOLI, "2/4", False, "USD")
    assert views.read_stakes("points") is None
    assert HandFilter(stakes="F78 2/4").describe() == "stakes fixed limit 2/4"
    # A house rule described after its game, as the sidebar offers it (it said "ante = 1").
    assert HandFilter(knobs=(("ante", "1"), ("scoring", "cards"))).describe() == (
        "Rummoli: ante = 1; Big Two: scoring = cards")
    labels = [*cases, "F78 2/4"]
    assert views.stakes_named(labels, "No Limit, big  blind 2") == ["N78 min 2"]
    assert views.stakes_named(labels, "n78 min 2") == ["N78 min 2"]
    assert views.stakes_named([*labels, "FRM 2/4"], "fixed limit 2/4") == ["F78 2/4", "FRM 2/4"]
    assert views.stakes_named(labels, "no limit, big blind 9") == []
    # The sidebar offers each stakes with its game: the words alone can name two games'.
    assert [views.stakes_choice(label) for label in ("F78 2/4", "FRM 2/4 USD", "points")] == [
        "7 & 8: fixed limit 2/4", "Rummoli: fixed limit 2/4 USD", "Big Two: points"]
    # In reading order: numbers by value (a sort by text put 10 before 2).
    assert filters.in_reading_order(["N78 min 10", "N78 min 2", "NRM min 1"],
                                    views.stakes_choice) == ["N78 min 2", "N78 min 10",
                                                             "NRM min 1"]
    assert filters.in_reading_order(["ante=10", "ante=2"], views.knob_choice) == [
        "ante=2", "ante=10"]


def test_the_result_by_part_names_every_part() -> None:
    """The caption under Rummoli's result by part names each part the chart draws (the
    finale was missing) and says which one is what was paid in."""
    words = logic.split_words(views.SPLIT_PARTS)
    for part in views.SPLIT_PARTS[:-1]:
        assert f"the {part}" in words
    assert f"'{views.SPLIT_PARTS[-1]}' is what was paid in" in words


def test_every_interval_header_says_what_it_bounds() -> None:
    """A "95 % CI" column names the figure it is an interval of (two tables of the poker
    pot's share said only "95 % CI low", beside a share and a difference of shares)."""
    headers = [header for name in dir(logic) if name.endswith("_HEADERS")
               for header in getattr(logic, name).values()]
    headers += [*logic.level_headers("rummoli").values(), *logic.level_headers("bigtwo").values()]
    intervals = [header for header in headers if "CI" in header]
    assert len(intervals) >= 10
    for header in intervals:
        assert header.endswith(")") and "(" in header, header


def test_rejected_hands_and_files_read_in_words() -> None:
    """The data quality table names the game ("unknown" where the hand never said), the
    file by its short name, and the reason without the path, line and hand its own columns
    give; a file all of whose hands were rejected is not said to be "partial"."""
    rejects = pd.DataFrame({
        "file": ["/data/in/a.phhs", "upload: b.phhs", "/data/in/c.phhs"],
        "hand_index": [1, 2, 1], "line": [10, 31, 5],
        "stage": ["replay", "parse", "parse"], "game": ["seveneight", None, "seveneight"],
        "error": ["/data/in/a.phhs:10: hand 1: actions[0]: 'p9' is not a player",
                  "/tmp/up-x1/b.phhs:31: hand 2: variant: missing required field 'variant'",
                  # several problems of one hand: a line each, each with its place
                  "/data/in/c.phhs:5: hand 1: min_bet: expected an integer, not 2.5\n"
                  "/data/in/c.phhs:6: hand 1: starting_stacks: expected integers"]})
    shown = logic.rejects_table(rejects)
    assert list(shown.columns) == list(logic.REJECT_HEADERS.values())
    assert list(shown["file"]) == ["a.phhs", "upload: b.phhs", "c.phhs"]
    assert list(shown["game"]) == ["7 & 8", "unknown", "7 & 8"]
    assert list(shown["reason"]) == [
        "actions[0]: 'p9' is not a player", "variant: missing required field 'variant'",
        "min_bet: expected an integer, not 2.5; starting_stacks: expected integers"]
    # A score sheet's bad line that is no game (keyed by minus its line): no hand shown,
    # where the reviewer read "hand -4".
    sheet = pd.DataFrame({"file": ["s.txt"], "hand_index": [-4], "line": [4],
                          "stage": ["parse"], "game": ["bigtwo"],
                          "error": ["s.txt:4: 'Total = 6' is not a sheet line"]})
    assert logic.rejects_table(sheet)["hand"].isna().all()
    assert logic.file_status("partial", 0, 0, 2) == "every hand rejected"
    assert logic.file_status("partial", 3, 1, 1) == "some hands rejected"
    assert logic.file_status("loaded", 5, 0, 0) == "loaded"
    # A score sheet whose only problems are lines that are no game: no hand rejected.
    assert logic.file_status("partial", 1, 0, 0) == "bad lines in the sheet"


# -- filters <-> URL -----------------------------------------------------------------------


def test_filter_round_trips_through_query_params() -> None:
    chosen = HandFilter(game="rummoli", players=("Ann", "Bo"), date_from=dt.date(2026, 1, 2),
                        date_to=dt.date(2026, 2, 1), session="g-7",
                        knobs=(("claim", "manual"), ("variant", "NRM")), stakes="NRM min 1")
    params = filters.to_params(chosen)
    assert params["player"] == ["Ann", "Bo"]
    assert filters.from_params(params) == chosen
    assert filters.to_params(HandFilter()) == {}


def test_unusable_query_params_are_dropped() -> None:
    got = filters.from_params({"game": "poker", "from": "2026-13-01", "to": "2026-01-05",
                               "knob": ["secret=1", "scoring=", "scoring=rank"],
                               "player": ["", "Ann", "Ann"]})
    assert got == HandFilter(players=("Ann",), date_to=dt.date(2026, 1, 5),
                             knobs=(("scoring", "rank"),))
    swapped = filters.from_params({"from": "2026-02-01", "to": "2026-01-01"})
    assert swapped.date_from == dt.date(2026, 1, 1)


def test_options_list_knob_values_from_stored_rules(con: duckdb.DuckDBPyConnection) -> None:
    options = filters.options_from_frame(views.filter_options(con))
    assert options.games == ("bigtwo", "rummoli", "seveneight")
    assert "variant=N78" in options.knobs
    assert any(k.startswith("scoring=") for k in options.knobs)
    assert options.first_day is not None and options.last_day is not None
    assert options.first_day <= options.last_day


# -- cards and charts ---------------------------------------------------------------------


def test_cards_are_drawn_with_suits_colours_and_backs() -> None:
    html = cards.cards_html("AhTs??")
    assert html.count("title=") == 3
    assert "A♥" in html and "10♠" in html and "#c0392b" in html
    assert "hl-back" in html
    assert cards.cards_html("") == "—"
    assert "<script" not in cards.cards_html(["<script>"])


def test_charts_handle_empty_and_real_frames() -> None:
    nothing = charts.hands_over_time(pd.DataFrame(columns=["period", "game", "hands"]))
    assert nothing.layout.annotations[0].text.startswith("No hands")
    weeks = pd.DataFrame({"period": [dt.date(2026, 11, 30)], "game": ["bigtwo"], "hands": [3]})
    # The axis says what a bar is: a week from its Monday (DuckDB's date_trunc), a month...
    assert charts.hands_over_time(weeks).layout.xaxis.title.text == "week (from its Monday)"
    assert charts.hands_over_time(weeks, "month").layout.xaxis.title.text == "month"
    frame = pd.DataFrame({"player": ["a", "b"], "mean": [1.0, -1.0], "ci_low": [0.0, -2.0],
                          "ci_high": [2.0, 0.0], "hands": [10, 12]})
    figure = charts.bar_with_ci(frame, x="player", title="t")
    assert list(figure.data[0].error_y.array) == [1.0, 1.0]
    curve = charts.cumulative(pd.DataFrame({"player": ["a", "a"], "hand_no": [1, 2],
                                            "actual": [3.0, 1.0], "adjusted": [2.0, 2.5]}))
    assert [t.name for t in curve.data] == ["a", "a (all-in adjusted)"]
    assert curve.data[1].line.dash == "dash"
    same = charts.cumulative(pd.DataFrame({"player": ["a", "a"], "hand_no": [1, 2],
                                           "actual": [3.0, 1.0], "adjusted": [3.0, 1.0]}))
    assert [t.name for t in same.data] == ["a"]  # no adjustment: no second line


def test_allin_table() -> None:
    assert logic.allin_table(pd.DataFrame()).empty
    totals = pd.DataFrame({"player": ["a", "b"], "hands": [4, 2], "all_in_hands": [1, 0],
                           "net": [8, -8], "adjusted_net": [6.0, -8.0],
                           "all_in_actual_net": [5, 0], "all_in_expected_net": [3.0, 0.0],
                           "luck": [2.0, 0.0], "luck_std_error": [0.0, 0.0]})
    table = logic.allin_table(totals)
    assert table["player"].tolist() == ["a", "b"]
    assert table["net_per_hand"].tolist() == [2.0, -4.0]
    assert table["adjusted_per_hand"].tolist() == [1.5, -4.0]
    assert (table["net"] - table["adjusted_net"]).tolist() == table["luck"].tolist()
    # Every equity exact: no column of zeros for a sampling error; one sampled: its error.
    assert "luck_std_error" not in table
    sampled = logic.allin_table(totals.assign(luck_std_error=[0.5, 0.0]))
    assert sampled["luck_std_error"].tolist() == [0.5, 0.0]


# -- views ------------------------------------------------------------------------------


def test_views_follow_the_filter(con: duckdb.DuckDBPyConnection) -> None:
    everything = views.overview(con, HandFilter())
    assert dict(zip(everything["game"], everything["hands"], strict=True)) == {
        "bigtwo": 30, "rummoli": 40, "seveneight": 120}
    player = str(views.player_results(con, HandFilter(game="bigtwo"))["player"].iloc[0])
    mine = views.player_results(con, HandFilter(players=(player,)))
    assert set(mine["player"]) == {player}
    late = views.overview(con, HandFilter(date_from=dt.date(2100, 1, 1)))
    assert late.empty
    knob = views.overview(con, HandFilter(knobs=(("variant", "B2"),)))
    assert list(knob["game"]) == ["bigtwo"]
    with pytest.raises(ValueError, match="unknown house rule"):
        HandFilter(knobs=(("'; DROP TABLE hands; --", "x"),))


def test_rummoli_split_adds_up_to_the_net(con: duckdb.DuckDBPyConnection) -> None:
    split = views.rummoli_split(con, HandFilter())
    nets = views.player_results(con, HandFilter(game="rummoli")).set_index("player")["net"]
    totals = split.groupby("player")["amount"].sum()
    assert (totals.sort_index() == nets.sort_index()).all()
    table = logic.split_table(split, list(views.SPLIT_PARTS))
    assert table["net per round"].to_numpy() == pytest.approx(
        (nets / views.player_results(con, HandFilter(game="rummoli"))
         .set_index("player")["hands"]).reindex(table["player"]).to_numpy())


def test_pot_views_count_every_round_of_every_pot(con: duckdb.DuckDBPyConnection) -> None:
    winners = views.pot_winners(con, HandFilter())
    summary = logic.pot_summary(winners)
    assert list(summary["pot"]) == list(RUMMOLI_POTS)
    assert winners.groupby("pot")["rounds"].sum().eq(40).all()  # every round of every pot
    # The end-of-game rounds are no rounds played for a pot (the finale clears the board).
    finales = con.execute("SELECT count(*) FROM hands WHERE game = 'rummoli' "
                          "AND finale_pot IS NOT NULL").fetchone()
    assert finales is not None and 0 < finales[0] < 40
    assert (summary["rounds"] == 40 - finales[0]).all()
    assert (summary.set_index("pot").loc["poker", ["won", "rounds"]] == 40 - finales[0]).all()
    streaks = views.pot_streaks(con, HandFilter())  # over the rounds played for the pots
    assert streaks.groupby("pot")["rounds"].sum().eq(40 - finales[0]).all()
    assert (streaks.loc[streaks["since"] == 0, "mean_before"] >= 0).all()


def test_bigtwo_cards_left_counts_every_seat(con: duckdb.DuckDBPyConnection) -> None:
    left = views.bigtwo_cards_left(con, HandFilter())
    assert int(left["games"].sum()) == 4 * 30
    assert int(left.loc[left["cards_left"] == 0, "games"].sum()) >= 30  # every game has a winner


# -- replayer --------------------------------------------------------------------------


def test_rules_from_json_gives_typed_knobs() -> None:
    rules = rules_from_json("bigtwo", '{"scoring": "rank", "straights": "vietnamese", '
                                      '"four_card_plays": true}')
    assert rules == BigTwoRules(scoring=BigTwoScoring.RANK, straights=Straights.VIETNAMESE,
                                four_card_plays=True)
    assert rules_from_json("rummoli", '{"claim": "manual", "ante": 2}') == RummoliRules(
        ante=2, claim=Claim.MANUAL)


@pytest.mark.parametrize("game", ["seveneight", "bigtwo", "rummoli"])
def test_stored_hands_replay_to_their_stored_result(con: duckdb.DuckDBPyConnection,
                                                    game: str) -> None:
    ids = [r[0] for r in con.execute("SELECT hand_id FROM hands WHERE game = ? ORDER BY hand_id "
                                     "LIMIT 8", [game]).fetchall()]
    for hand_id in ids:
        detail = views.hand_detail(con, hand_id)
        hand = hand_from_detail(detail)
        steps = replay_steps(hand)
        assert len(steps) == len(hand.actions) + 2
        nets = tuple(int(n) for n in detail["seats"]["net"])
        assert replay(hand).nets == nets == steps[-1].nets
        if game != "bigtwo":
            assert steps[-1].stacks == tuple(int(s) for s in detail["seats"]["finishing_stack"])
        dealt = sum(len(h) for h in steps[-1].holding)
        assert dealt <= 52
        assert steps[0].index == -1 and steps[1].notation.startswith("d dh p")


def test_replayer_follows_chips_in_a_seveneight_hand() -> None:
    from parsers import loads_hands
    from tests.test_warehouse_data import SEVENEIGHT

    hand = loads_hands(SEVENEIGHT)[0]
    steps = replay_steps(hand, equities=lambda h: [(0.5,) * h.num_players])
    assert steps[0].stacks == (99, 98, 100) and steps[0].pot == 3  # blinds posted
    raise_step = next(s for s in steps if s.notation.startswith("p3 cbr 6"))
    assert raise_step.stacks[2] == 94 and raise_step.pot == 9
    assert steps[-1].stacks == (118, 98, 84)
    assert steps[-1].visible[0] == ("7c", "8c", "2c")
    assert steps[0].equities == (0.5, 0.5, 0.5) and steps[1].equities is None


def test_the_replayer_says_how_each_player_left_the_hand() -> None:
    """7 & 8: a fold and a muck at the showdown are named as such, the cards of both out of
    play; Rummoli: a fold gives up the poker pot only, his cards stay in play and are laid
    (but in the finale, a poker round alone)."""
    from parsers import loads_hands, read_hands
    from parsers.model import Verb
    from tests.test_warehouse_data import SEVENEIGHT

    text = (SEVENEIGHT.replace('"p1 sm 7c8c2c"', '"p1 sm"')  # Ann mucks: Cy wins
            .replace("[118, 98, 84]", "[84, 98, 118]").replace("[34, 0, 0]", "[0, 0, 34]"))
    assert text.count("[84, 98, 118]") == text.count("[0, 0, 34]") == text.count('"p1 sm"') == 1
    steps = replay_steps(loads_hands(text)[0])
    fold = next(s for s in steps if s.notation == "p2 f")
    assert fold.out == ("", "folded", "") and fold.dead == (False, True, False)
    assert steps[-1].out == ("mucked", "folded", "")
    assert steps[-1].dead == (True, True, False)
    assert steps[-1].visible[0] == ("7c",)  # his up card; the rest was never shown

    round_ = next(h for h in read_hands(SAMPLES / "rummoli-family.phhs")
                  if any(a.verb is Verb.FOLD for a in h.actions))
    steps = replay_steps(round_)
    folder = next(a.actor for a in round_.actions if a.verb is Verb.FOLD)
    assert steps[-1].out[folder - 1] == "folded the poker pot"
    assert not any(steps[-1].dead)
    laid = [a for a in round_.actions if a.verb is Verb.PLAY and a.actor == folder]
    assert laid, "the folder lays cards in the Rummoli phase"
    # The finale is a poker round alone: a fold there is out of the hand.
    finale = next(h for h in read_hands(SAMPLES / "rummoli-family.phhs")
                  if h.finale_pot is not None and any(a.verb is Verb.FOLD for a in h.actions))
    folder = next(a.actor for a in finale.actions if a.verb is Verb.FOLD)
    settled = replay_steps(finale)[-1]
    assert settled.out[folder - 1] == "folded" and settled.dead[folder - 1]


def test_the_files_loaded_group_their_counts_by_thousands() -> None:
    """The Overview's Files loaded wrote "1200" where every other table writes "1,200"."""
    files = pd.DataFrame({
        "path": ["/data/club.phhs"], "status": ["loaded"], "hands": [1200], "loaded": [1200],
        "duplicates": [0], "rejected": [0], "finished_at": [dt.datetime(2026, 12, 7, 14, 0)]})
    row = logic.files_html(files).split("</tr>")[1]
    assert "<td>1,200</td><td>1,200</td><td>0</td>" in row
    assert 'title="/data/club.phhs">club.phhs<' in row


def test_a_pot_nobody_won_or_played_for_says_so() -> None:
    """A pot played for and never won names no winner ("None" was shown), and one of an
    end-of-game round alone has no share won (it said 0 %)."""
    winners = pd.DataFrame({
        "pot": ["poker", "TS", "TS"], "finale": [True, False, False],
        "won_by_player": ["Ann", None, None], "rounds": [1, 2, 1], "chips": [9, 0, 0],
        "cleared": [0, 0, 0]})
    summary = logic.pot_summary(winners).set_index("pot")
    assert summary.loc["poker", "rounds"] == 0 and summary["share_won"].isna().tolist() == [
        True, False]
    assert summary.loc["TS", "top_winner"] == logic.NOBODY == "—"
    assert summary.loc["TS", "share_won"] == 0.0
    assert summary.loc["poker", "left_for_finale"] == 9


def test_a_pot_won_most_by_two_names_both() -> None:
    """K♥ won 20 times by Ivy and 20 by Kit named Ivy alone (the first name)."""
    winners = pd.DataFrame({
        "pot": ["KH"] * 3, "finale": [False] * 3, "won_by_player": ["Kit", "Ivy", "Bo"],
        "rounds": [20, 20, 3], "chips": [40, 40, 6], "cleared": [0] * 3})
    summary = logic.pot_summary(winners).set_index("pot")
    assert (summary.loc["KH", "top_winner"], summary.loc["KH", "top_winner_times"]) == (
        "Ivy, Kit", 20)


def test_pots_are_named_as_players_name_them() -> None:
    assert [cards.pot_words(pot) for pot in RUMMOLI_POTS] == [
        "poker", "10♠", "J♦", "Q♣", "K♥", "A♠", "A♦ K♦", "7-8-9", "Rummoli"]
    assert [cards.pot_code(cards.pot_words(pot)) for pot in RUMMOLI_POTS] == list(RUMMOLI_POTS)
    assert [cards.pot_words(pot) for pot in ("main", "side2", "poker_side1", "payments",
                                             "auction")] == [
        "main pot", "side pot 2", "poker side pot 1", "end-of-round payments", "auction"]
    shown = logic.human_table(pd.DataFrame({"pot": ["TS", "789"], "rounds": [3, 4]}),
                              logic.pot_summary_headers())
    assert list(shown["pot"]) == ["10♠", "7-8-9"]


def test_the_last_step_says_how_each_game_ends_in_words() -> None:
    from parsers import loads_hands, read_hands
    from tests.test_warehouse_data import SEVENEIGHT

    hand = loads_hands(SEVENEIGHT)[0]
    assert replay_steps(hand)[-1].words == "Settled: Ann takes 34 chips (main pot)."
    club = next(iter(read_hands(SAMPLES / "bigtwo-club.phhs")))
    assert replay_steps(club)[-1].words == (
        "Settled: Fay goes out first; points: Bo -6, Fay +11, Gus -3, Ann -2.")
    ranked = next(iter(read_hands(SAMPLES / "bigtwo-house-rules.phhs")))
    assert replay_steps(ranked)[-1].words == (
        "Settled: Hal goes out first, then Kim, Gus; no points change hands.")
    claims = next(iter(read_hands(SAMPLES / "rummoli-manual-claims.phhs")))
    steps = replay_steps(claims)
    assert [s.words for s in steps if " claims " in s.words][:2] == [
        "Ivy claims 7-8-9", "Kit claims 10♠"]
    assert steps[-1].words.startswith(
        "Settled: Ivy takes 76 chips (poker), Ivy takes 4 chips (7-8-9), Kit takes 4 chips "
        "(10♠), Ivy takes 4 chips (Rummoli), Lu pays 9 chips (end-of-round payments),")
    # The step before the first action in each game's words (Big Two has no antes).
    assert [replay_steps(h)[0].words for h in (hand, club, claims)] == [
        "Before the first action: antes and blinds in.", "Before the deal.",
        "Before the first action: the antes on the board's pots."]


UNCALLED_BET = """
variant = "N78"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 12, 100]
actions = ["d dh p1 7c8c", "d dh p2 AsKs", "d dh p3 5d9d", "p1 up 7c", "p2 up As",
           "p3 up 9d", "p3 cc", "p1 f", "p2 cc", "d dh p2 Qs", "d dh p3 Td",
           "p2 cc", "p3 cbr 50", "p2 cc", "p2 sm AsKsQs", "p3 sm 5d9dTd"]
players = ["Ann", "Bo", "Cy"]
"""
"""Cy bets 50 into Bo, who calls all in for his last 10: one pot, 40 chips uncalled."""


def test_a_bet_nobody_called_comes_back_in_words() -> None:
    """Cy bets 50 into Bo, who calls all in for his last 10: 40 of it is uncalled and goes
    back to Cy, which the settled step says (the reviewer's hand put 278 uncalled chips in
    the pot and never said where they went)."""
    from parsers import loads_hands

    hand = loads_hands(UNCALLED_BET)[0]
    settled = replay_steps(hand)[-1]
    assert settled.words.endswith(", Cy gets 40 uncalled chips back.")
    assert settled.committed[2] == 12  # what he put in, once settled: the call, not the bet


def test_the_replayer_shows_side_pots_as_the_dealer_makes_them() -> None:
    """Ann is all in for 30, Bo raises to 60 and Cy calls: when round 1 ends the dealer
    makes a main pot of 90 (all three) and a side pot of 60 (Bo, Cy); Cy's fold in round
    2 leaves each pot to those still in, Bo's bet nobody called is no pot but listed as
    going back, and the settlement pays the pots shown.  Before an all-in for less there
    is one pot (none listed); mid-round the bets are not yet pots."""
    from parsers import loads_hands

    hand = loads_hands("""
variant = "N78"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [30, 100, 100]
actions = ["d dh p1 7c8c", "d dh p2 AsKs", "d dh p3 5d9d", "p1 up 7c", "p2 up As",
           "p3 up 9d", "p3 cc", "p1 cbr 30", "p2 cbr 60", "p3 cc", "d dh p1 2h",
           "d dh p2 Qs", "d dh p3 Td", "p2 cbr 20", "p3 f", "p1 sm 7c8c2h", "p2 sm AsKsQs"]
players = ["Ann", "Bo", "Cy"]
""")[0]
    steps = replay_steps(hand)
    names = ["Ann", "Bo", "Cy"]
    texts = [pots_text(step.pots, names) for step in steps]
    assert texts[:10] == [""] * 10  # through Bo's raise: round 1 not over
    assert texts[10] == "main pot 90 (Ann, Bo, Cy); side pot 1 60 (Bo, Cy)"  # Cy calls
    # Cy folds: round 2 ends, and Bo's 20 nobody called is listed as going back to him,
    # so that the pots and it add up to the pot shown (170).
    assert texts[15:] == ["main pot 90 (Ann, Bo); side pot 1 60 (Bo); uncalled 20 "
                          "(back to Bo)"] * 4
    assert sum(pot.amount for pot in steps[15].pots) == steps[15].pot == 170
    settled = steps[-1]
    assert settled.words == ("Settled: Ann takes 90 chips (main pot), Bo takes 60 chips "
                             "(side pot 1), Bo gets 20 uncalled chips back.")
    frame = steps_frame(steps, names)
    assert frame["pots (chips)"].iloc[10] == texts[10]
    one_pot = replay_steps(loads_hands(UNCALLED_BET)[0])  # all in, called: one pot
    assert "pots (chips)" not in steps_frame(one_pot, names)
    assert frame["Ann cards"].iloc[-1] == "7♣ 8♣ 2♥"  # in words beside the words column
    # A hand played for dollars is told in dollars: its words, headers and unit.
    dollars = replace(hand, currency="USD")
    in_usd = replay_steps(dollars)
    assert chips_unit(dollars) == "USD" and chips_unit(hand) == "chips"
    assert in_usd[-1].words == ("Settled: Ann takes 90 USD (main pot), Bo takes 60 USD "
                                "(side pot 1), Bo gets 20 USD back (uncalled).")
    assert "Ann stack (USD)" in steps_frame(in_usd, names, chips_unit(dollars))


def test_upload_table_shows_uploaded_names_not_temp_paths() -> None:
    summaries = [FileSummary("/tmp/x/01-a.phhs", "partial", "s", 3, 2, 0, 1,
                             "/tmp/x/01-a.phhs:9: hand 2: bad"),
                 FileSummary("/tmp/x/02-b.zip:day1.phhs", "loaded", "t", 1, 1, 0, 0)]
    table = logic.upload_table(summaries, {"/tmp/x/01-a.phhs": "a.phhs",
                                           "/tmp/x/02-b.zip": "b.zip"})
    assert list(table["file"]) == ["a.phhs", "b.zip:day1.phhs"]
    assert table["message"].iloc[0] == "a.phhs:9: hand 2: bad"


def test_counted_words_one_and_many() -> None:
    assert counted(1, "hand") == "1 hand"
    assert counted(0, "hand") == "0 hands"
    assert counted(1200, "hand") == "1,200 hands"
    assert counted(2, "child", "children") == "2 children"


def test_a_bars_hover_counts_what_its_rows_count() -> None:
    """A bar's hover says how many games (Big Two's deal strength: ``games``) or hands
    (``hands``) it averages; it was empty for a table counting games."""
    games = pd.DataFrame({"player": ["Ann", "Bo"], "bin": ["0", "1"], "games": [7, 3],
                          "mean": [1.0, -2.0], "ci_low": [0.0, -3.0], "ci_high": [2.0, -1.0]})
    figure = charts.bar_with_ci(games, x="bin", color="player", title="t", per="games")
    assert [list(trace.customdata) for trace in figure.data] == [[7], [3]]
    assert figure.data[0].hovertemplate.endswith("games<extra></extra>")
    hands = games.rename(columns={"games": "hands"})
    figure = charts.bar_with_ci(hands, x="bin", color="player", title="t", per="games")
    assert [list(trace.customdata) for trace in figure.data] == [[7], [3]]


@pytest.mark.parametrize(("game", "table"), [
    ("seveneight", "allin_results"), ("rummoli", "rummoli_strength"),
    ("bigtwo", "bigtwo_features")])
def test_a_hands_stored_equities_are_headed_in_words(con: duckdb.DuckDBPyConnection,
                                                     game: str, table: str) -> None:
    """The replayer's "Stored equities" / "Deal features" list of one hand: every stored
    column but the hand's id under a header in words (a column added to the table fails
    here until it has one), fractions as percentages, poker hands named in words."""
    from analytics.warehouse.sql.equity_views import hand_equities

    hand_id = con.execute(f"SELECT min(hand_id) FROM {table}").fetchall()[0][0]
    assert hand_id is not None
    rows = hand_equities(con, hand_id)[{"seveneight": "allin", "rummoli": "rummoli",
                                        "bigtwo": "bigtwo"}[game]]
    shown = logic.stored_equity_table(game, rows.drop(columns=["hand_id"]))
    headers = logic.STORED_EQUITY_HEADERS[game]
    assert set(headers) == set(rows.columns) - {"hand_id"}
    assert list(shown.columns) == list(headers.values()) and len(shown) == len(rows)
    for name, header in headers.items():
        if header.endswith("(%)"):
            assert np.allclose(shown[header], (rows[name] * 100).round(2)), header
    if game == "rummoli":
        assert not shown["best five"].str.contains("_").any()


def test_the_numbers_a_table_groups_by_thousands() -> None:
    """Counts (but the numbers that name a line or a hand) and fractions the browser can
    group without cutting a digit (at most three decimals); a p-value of four is left."""
    frame = pd.DataFrame({
        "hands": [5313, 2], "line": [1170, 3], "expected hands": [5321.3, 0.25],
        "share (%)": [54.21, float("nan")], "p-value": [0.5569, 0.1], "player": ["a", "b"],
        "exact": [True, False]})
    assert logic.grouped_columns(frame) == ["hands"]
    assert logic.short_fraction_columns(frame) == ["expected hands", "share (%)"]


@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\x7f"),
               max_size=40))
@example("[Bo](https://x.example) **b** &amp; <b>c</b> `d` $e$ www.x.example bo@x.example")
def test_literal_text_reads_as_written_in_markdown(text: str) -> None:
    """What people and files name, put into st.markdown through ``ui.literal``, renders as
    its own characters (CommonMark, as Streamlit's markdown reads it): no link, no bold, no
    entity; a player named ``[Bo](https://x.example)`` stays that text."""
    from markdown_it import MarkdownIt

    from analytics.dashboard.ui import WORD_JOINER, literal

    shown = literal(text)
    rendered = MarkdownIt("commonmark").renderInline(shown)
    assert html.unescape(rendered).replace(WORD_JOINER, "") == text.replace(WORD_JOINER, "")
    # Nothing GitHub-flavoured Markdown would link by itself: a scheme's ://, www., an @.
    plain = shown.replace("\\", "")
    assert not re.search(r"[A-Za-z]://|www\.|[^\u2060]@", plain)


def test_charts_draw_names_as_text() -> None:
    """A player named as a link or in bold is drawn as written: ``charts.as_drawn`` escapes
    the names and labels plotly would read as HTML in a copy; numbers, dates and the
    figure's own hover templates are kept, and the figure itself is untouched (clicks are
    read against it)."""
    hostile = '<a href="https://evil.example">Bo</a>'
    frame = pd.DataFrame({"player": [hostile, "<b>Cy</b>"], "mean": [1.5, -2.0],
                          "ci_low": [1.0, -3.0], "ci_high": [2.0, -1.0], "hands": [10, 20]})
    figure = charts.bar_with_ci(frame, x="player", mean="mean", title=f"Win rate of {hostile}")
    shown = charts.as_drawn(figure)
    text = shown.to_json()
    assert "evil.example" in text and "<a href" not in text and "<b>Cy" not in text
    assert list(shown.data[0].x) == ['&lt;a href="https://evil.example"&gt;Bo&lt;/a&gt;',
                                     "&lt;b&gt;Cy&lt;/b&gt;"]
    assert list(shown.data[0].y) == [1.5, -2.0]
    # The axis's order names the same categories (else plotly draws each name twice: the
    # order's, as a link and empty, and the data's).
    assert list(shown.layout.xaxis.categoryarray) == list(shown.data[0].x)
    assert list(figure.data[0].x) == [hostile, "<b>Cy</b>"]
    assert shown.data[0].hovertemplate == figure.data[0].hovertemplate


@pytest.mark.parametrize("template", [None, "plotly_white", "none"])
def test_a_drawn_chart_is_plotlys_own_copy_of_it(template: str | None) -> None:
    """``charts.as_drawn`` copies a figure under the default template without checking the
    template again: the copy is the one plotly makes (``go.Figure(figure)``), template
    and all, under any other template too."""
    frame = pd.DataFrame({"player": ["Ann", "Bo"], "mean": [1.5, -2.0], "ci_low": [1.0, -3.0],
                          "ci_high": [2.0, -1.0], "hands": [10, 20]})
    figure = charts.bar_with_ci(frame, x="player", mean="mean", title="Win rate")
    if template is not None:
        figure.update_layout(template=template)
    assert json.loads(charts.as_drawn(figure).to_json()) == json.loads(go.Figure(figure).to_json())


@pytest.mark.slow
def test_data_quality_counts_every_reject_per_file(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """1,100 bad hands in one file and one in another: the per-file counts are over every
    reject (they were over the latest 1,000 listed: 1,000, and the other file gone), and
    the list says it shows the latest 1,000 of 1,101."""
    from analytics.warehouse import ENV_VAR, ingest
    from tests.test_dashboard_app import open_app

    (tmp_path / "many.phhs").write_text("".join(
        f"[{n}]\nvariant = \"N78\"\nthis is not toml\n" for n in range(1, 1101)))
    (tmp_path / "one.phhs").write_text("[1]\nvariant = \"B2\"\n")
    db = tmp_path / "bad.duckdb"
    summary = ingest([tmp_path / "many.phhs", tmp_path / "one.phhs"], db, workers=0)
    assert summary.rejected == 1101
    monkeypatch.setenv(ENV_VAR, str(db))
    at = open_app()
    per_file = next(f.value for f in at.dataframe if "hands rejected" in f.value.columns)
    assert dict(zip(per_file["file"], per_file["hands rejected"], strict=True)) == {
        "many.phhs": 1100, "one.phhs": 1}
    assert any("The latest 1,000 of 1,101 rejected hands" in c.value for c in at.caption)


@pytest.mark.parametrize(("stored", "shown"), [
    ("/data/club/evening.phhs", "evening.phhs"),
    ("/data/club.zip:week 1/evening.phhs", "club.zip:week 1/evening.phhs"),
    ("/data/bad\\xff\\xfename.phhs", "bad\\xff\\xfename.phhs"),  # a name's escaped bytes
    ("upload: a/b.phhs", "upload: a/b.phhs"),  # as the browser sent it
    ("C:\\Users\\ann\\evening.phhs", "evening.phhs"),
])
def test_a_short_name_keeps_the_whole_file_name(stored: str, shown: str) -> None:
    """The Files tables cut a name at a backslash, which a name's escaped bytes hold
    (``bad\\xff\\xfename.phhs`` showed as ``xfename.phhs``), and an upload's name at a
    slash; only a Windows path's backslashes end folders."""
    assert logic.short_name(stored) == shown
