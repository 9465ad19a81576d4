"""Big Two's and Rummoli's statistics on hand-written games, answers counted by hand.

tests/data/stats_cases/bigtwo.phhs holds four Big Two games (one deal under ``cards`` and
``zero_sum`` scoring, another under ``cards`` and ``rank``); its comments count every
pass, the cards left, the places, the 2s, the five-card plays and the points, and the
numbers below are those counts written out (not computed); so are bigtwo_twos.phhs's
(2s still held under ``cards_with_twos``, a fry) and rummoli.phhs's and
rummoli_impasse.phhs's (a round ending at an impasse).  ``pass_with_play`` is also
recounted on simulated games by listing each hand's plays with the evaluator
(``bigtwo_all_combos``), not with the engine the warehouse asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from analytics.evaluator import bigtwo_all_combos, bigtwo_beats, bigtwo_combo
from analytics.rules.base import RuleError
from analytics.rules.bigtwo.engine import BigTwoState
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.stats.bigtwo import game_passes
from analytics.stats.rummoli import POT_NETS
from analytics.warehouse import ingest, open_writer, reader
from analytics.warehouse.sql.facts import fill_missing_passes
from analytics.warehouse.sql.stat_views import player_rows, results_over_time, stat_grid
from analytics.warehouse.sql.views import HandFilter
from parsers import parse_cards, read_hands, write_hands
from parsers.model import Action, Verb
from parsers.rule_options import BigTwoRules
from tests.grid_cells import assert_grid_counts, grid_cells

DATA = Path(__file__).parent / "data" / "stats_cases"

# Counted by hand in the file's comments: player -> column -> value (fry threshold 10).
# Places after the first count over the games played out to the last place (game 4: rank
# scoring, two players, so no place 3); "not out" over the games that end when the first
# player goes out (games 1 to 3), and so do cards left and fries (game 4's 13 cards of
# Eli's, last when the others had gone out, are no game's cards left).
BIGTWO: dict[str, dict[str, int]] = {
    "Ann": {"games": 2, "wins": 0, "win_rate": 0, "cards_left": 2, "fry": 0, "place_1": 0,
            "not_out": 2, "twos": 0, "five_card": 4, "pass_with_play": 4,
            "pass_with_play_opps": 14, "place_2_opps": 0, "place_3_opps": 0,
            "not_out_opps": 2},
    "Bo": {"games": 2, "wins": 0, "win_rate": 0, "cards_left": 8, "fry": 0, "place_1": 0,
           "not_out": 2, "twos": 2, "five_card": 2, "pass_with_play": 4,
           "pass_with_play_opps": 12, "place_2_opps": 0, "place_3_opps": 0,
           "not_out_opps": 2},
    "Cy": {"games": 2, "wins": 2, "win_rate": 2, "cards_left": 0, "fry": 0, "place_1": 2,
           "not_out": 0, "twos": 2, "five_card": 2, "pass_with_play": 8,
           "pass_with_play_opps": 8, "place_2_opps": 0, "place_3_opps": 0, "not_out_opps": 2},
    "Dan": {"games": 2, "wins": 2, "win_rate": 2, "cards_left": 0, "fry": 0, "place_1": 2,
            "place_2": 0, "not_out": 0, "twos": 0, "five_card": 2, "pass_with_play": 0,
            "pass_with_play_opps": 0, "place_2_opps": 1, "place_3_opps": 0,
            "not_out_opps": 1},
    "Eli": {"games": 2, "wins": 0, "win_rate": 0, "cards_left": 13, "fry": 1, "place_1": 0,
            "cards_left_opps": 1, "fry_opps": 1,
            "place_2": 1, "not_out": 1, "twos": 0, "five_card": 0, "pass_with_play": 2,
            "pass_with_play_opps": 8, "place_2_opps": 1, "place_3_opps": 0,
            "not_out_opps": 1},
}


# Points by scoring rule, from the file's comments: every player there played one deal
# under two rules, so the grid's own row has no points (points under one rule are not
# points under another); split by scoring rule, each rule's; none (not 0) under rank
# scoring, which has no points.
BIGTWO_POINTS: dict[tuple[str, str], int | None] = {
    ("Ann", "cards"): -1, ("Ann", "zero_sum"): 2, ("Bo", "cards"): -4, ("Bo", "zero_sum"): -7,
    ("Cy", "cards"): 5, ("Cy", "zero_sum"): 5, ("Dan", "cards"): 39, ("Dan", "rank"): None,
    ("Eli", "cards"): -39, ("Eli", "rank"): None}


def _points(value: object) -> int | None:
    """A grid cell's points: None where the grid has none (NULL, pandas' NA)."""
    return None if value is None or value is pd.NA or value != value else int(str(value))


def assert_points_by_rule(grid: pd.DataFrame, split: pd.DataFrame,
                          expected: dict[tuple[str, str], int | None]) -> None:
    """No points in a row over two rules (``grid``); by rule (``split``) each rule's, and
    its points per game (the ``points`` statistic, over that rule's games)."""
    assert grid["points"].isna().all() and grid["net"].isna().all()
    got = {(str(r["player"]), str(r["scoring"])): (_points(r["net"]), _points(r["points"]))
           for r in split.to_dict("records")}
    assert got == {key: (points, points) for key, points in expected.items()}


def ingested_case(folder: Path, name: str) -> Path:
    """A database holding only the case file ``name`` (every hand of it accepted)."""
    db = folder / "cases.duckdb"
    summary = ingest([DATA / name], db, workers=0)
    assert summary.rejected == 0
    return db


@pytest.fixture(scope="module")
def bigtwo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_case(tmp_path_factory.mktemp("b2cases"), "bigtwo.phhs")


def test_bigtwo_grid_matches_the_hand_counts(bigtwo_db: Path) -> None:
    with reader(bigtwo_db) as con:
        whole = stat_grid(con, HandFilter(), game="bigtwo")
        split = stat_grid(con, HandFilter(), game="bigtwo", split="scoring")
    assert_grid_counts(grid_cells(whole), BIGTWO)
    assert_points_by_rule(whole, split, BIGTWO_POINTS)


def test_bigtwo_fry_threshold_and_games_by_scoring(bigtwo_db: Path) -> None:
    with reader(bigtwo_db) as con:
        low = grid_cells(stat_grid(con, HandFilter(), game="bigtwo", fry_threshold=4))
        one = stat_grid(con, HandFilter(date_to=pd.Timestamp("2026-12-01").date()),
                        game="bigtwo", split="scoring")
    # Threshold 4: Bo's 4 cards left fry him in both games, Ann's 1 never; Eli's 13 do, in
    # the game that ended at the first out (not in game 4, played out by finishing order).
    assert {p: int(low[p]["fry"]) for p in low} == {"Ann": 0, "Bo": 2, "Cy": 0, "Dan": 0,
                                                    "Eli": 1}
    # 1 December: games 1 (cards: -1, -4, +5) and 2 (zero_sum: +2, -7, +5) only.
    assert {(str(r["player"]), str(r["scoring"])): _points(r["points"])
            for r in one.to_dict("records")} == {
        key: points for key, points in BIGTWO_POINTS.items() if key[0] in ("Ann", "Bo", "Cy")}


def test_engine_can_beat_at_each_pass_of_game_3() -> None:
    hand = next(h for h in read_hands(DATA / "bigtwo.phhs") if h.game_id == "stats-b2-3")
    assert isinstance(hand.rules, BigTwoRules)
    state = BigTwoState(hand.rules, hand.num_players)
    answers = []
    for action in hand.actions:
        if action.verb is Verb.PASS:
            answers.append(state.can_beat())
        state.apply(action)
    # The flush (beaten by 5555 + kicker), then Kc, 7c7h, KhKs: nothing of their size beats.
    assert answers == [True, False, False, False]
    assert game_passes(hand.rules, hand.num_players, hand.actions) == [(0, 0), (4, 1)]


def test_the_leader_may_not_pass_and_can_beat_nothing() -> None:
    state = BigTwoState(BigTwoRules(), 2)
    state.deal(1, parse_cards("3d4d8dJdQd9c9h9s7c7hKcKhKs"))
    state.deal(2, parse_cards("5c5d5h5s6c6d6h6s3c3h4c4hTc"))
    state.play(1, parse_cards("3d4d8dJdQd"))  # the flush with the lead card 3d
    state.pass_turn(2)
    assert state.turn == 1 and state.leading
    assert not state.can_beat()
    with pytest.raises(RuleError, match="leads the trick and may not pass"):
        state.pass_turn(1)
    with pytest.raises(RuleError, match="may not pass"):
        game_passes(BigTwoRules(), 2, [
            Action(0, Verb.DEAL_HOLE, parse_cards("3d4d8dJdQd9c9h9s7c7hKcKhKs"), target=1),
            Action(0, Verb.DEAL_HOLE, parse_cards("5c5d5h5s6c6d6h6s3c3h4c4hTc"), target=2),
            Action(1, Verb.PLAY, parse_cards("3d4d8dJdQd")), Action(2, Verb.PASS),
            Action(1, Verb.PASS)])


def test_four_card_plays_beat_only_four_cards() -> None:
    """With four_card_plays, a four of a kind alone is a four-card play: it beats two pairs,
    never a single; a pass holding it over a single is a pass without a play."""
    rules = BigTwoRules(four_card_plays=True)
    deal = [Action(0, Verb.DEAL_HOLE, parse_cards("3d4d4c9c9hKcKh7d8dTdJdQdAs"), target=1),
            Action(0, Verb.DEAL_HOLE, parse_cards("5c5d5h5s3c6c7c6d6h8c8hTcJc"), target=2)]
    # p2 answers 3d with 7c, then passes on Kc: his best single is Jc (5555 is four cards).
    single = [Action(1, Verb.PLAY, parse_cards("3d")), Action(2, Verb.PLAY, parse_cards("7c")),
              Action(1, Verb.PLAY, parse_cards("Kc")), Action(2, Verb.PASS)]
    assert game_passes(rules, 2, [*deal, *single]) == [(0, 0), (1, 0)]
    # Then p1 leads 4d4c9c9h (two pairs, nines high): 5555 beats it (6d6h8c8h does not).
    pairs = [Action(1, Verb.PLAY, parse_cards("4d4c9c9h")), Action(2, Verb.PASS)]
    assert game_passes(rules, 2, [*deal, *single, *pairs]) == [(0, 0), (2, 1)]
    # Without four_card_plays neither is a play at all: the engine refuses 4d4c9c9h.
    with pytest.raises(RuleError, match="four-card plays are not allowed"):
        game_passes(BigTwoRules(), 2, [*deal, *single, *pairs])


# A Big Two score sheet at fry threshold 8 (F=8): four games of Ann, Bo, Cy and Dee, each
# line the cards each had left.  Counted by hand: Ann 0+3+9+0 = 12 left, fried once (9);
# Bo 5+0+9+2 = 16, once (9); Cy 8+8+0+2 = 18, twice (8, 8); Dee 9+2+1+8 = 20, twice.
SHEET = "2026-01-10\nF=8\nAnn Bo Cy Dee\n0 5 8 9\n3 0 8 2\n9 9 0 1\n0 2 2 8\n"


def test_a_score_sheet_counts_in_the_bigtwo_grid(tmp_path: Path) -> None:
    """A sheet's games count their cards left and fries (at the sheet's own threshold)
    beside the played games; 2s and five-card plays count only the played games; a
    player's "regular" is against every game the filter keeps, whoever it names."""
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(SHEET, encoding="utf-8")
    db = tmp_path / "b2.duckdb"
    assert ingest([DATA / "bigtwo.phhs", sheet], db, workers=0).rejected == 0
    with reader(db) as con:
        grid = grid_cells(stat_grid(con, HandFilter(), game="bigtwo"))
        at_eight = grid_cells(stat_grid(con, HandFilter(), game="bigtwo", fry_threshold=8))
        everyone = player_rows(con, HandFilter(), game="bigtwo").set_index("player")
        dan = player_rows(con, HandFilter(players=("Dan",)), game="bigtwo")
    # The played games' counts (BIGTWO above) plus the sheet's.
    played = {name: BIGTWO[name] for name in ("Ann", "Bo", "Cy")}
    sheet_left, sheet_fries = {"Ann": 12, "Bo": 16, "Cy": 18}, {"Ann": 1, "Bo": 1, "Cy": 2}
    for name, counts in played.items():
        assert int(grid[name]["cards_left"]) == counts["cards_left"] + sheet_left[name]
        assert int(grid[name]["cards_left_opps"]) == counts["games"] + 4
        assert int(grid[name]["fry"]) == counts["fry"] + sheet_fries[name]
        assert int(grid[name]["twos"]) == counts["twos"]
        assert int(grid[name]["twos_opps"]) == int(grid[name]["five_card_opps"]) == 2
    assert {column: int(grid["Dee"][column]) for column in (
        "cards_left", "cards_left_opps", "fry", "fry_opps", "twos_opps", "five_card_opps")} == {
        "cards_left": 20, "cards_left_opps": 4, "fry": 2, "fry_opps": 4, "twos_opps": 0,
        "five_card_opps": 0}
    # At one threshold of 8 for every game: Bo's 4s never fry him, Eli's 13s do (in the
    # game that ended at the first out).
    assert {name: int(at_eight[name]["fry"]) for name in at_eight} == {
        "Ann": 1, "Bo": 1, "Cy": 2, "Dan": 0, "Dee": 2, "Eli": 1}
    # Seven scored games (the rank-scored one has no score): Dan's one is under a quarter,
    # whether the filter names him or not.
    assert not everyone.loc["Dan", "is_regular"] and everyone.loc["Dee", "is_regular"]
    assert dan["is_regular"].tolist() == [False]


def test_migration_12_backfills_the_passes(bigtwo_db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "old.duckdb"
    copy.write_bytes(bigtwo_db.read_bytes())
    with duckdb.connect(str(copy)) as con:
        expected = con.execute("SELECT hand_id, seat, passes, passes_with_play FROM seat_facts"
                               " ORDER BY hand_id, seat").fetchdf()
        con.execute("ALTER TABLE seat_facts DROP COLUMN passes")
        con.execute("ALTER TABLE seat_facts DROP COLUMN passes_with_play")
        for column in POT_NETS:
            con.execute(f"ALTER TABLE stat_facts DROP COLUMN {column}")
        con.execute("DROP TABLE hand_id_map")  # migration 13's
        con.execute("DELETE FROM schema_version WHERE version >= 12")
    open_writer(copy).close()
    with reader(copy) as con:
        got = con.execute("SELECT hand_id, seat, passes, passes_with_play FROM seat_facts"
                          " ORDER BY hand_id, seat").fetchdf()
    pd.testing.assert_frame_equal(got, expected)
    con = open_writer(copy)
    try:
        con.execute("UPDATE seat_facts SET passes = NULL, passes_with_play = NULL")
        fill_missing_passes(con)
        again = con.execute("SELECT hand_id, seat, passes, passes_with_play FROM seat_facts"
                            " ORDER BY hand_id, seat").fetchdf()
    finally:
        con.close()
    pd.testing.assert_frame_equal(again, expected)


def _recount(hand: Any) -> dict[int, list[int]]:
    """(passes, passes holding a beating play) per seat, by the evaluator's list of every
    play of the passer's hand (``bigtwo_all_combos``) against the trick's last play."""
    rules = hand.rules
    held: dict[int, set[Any]] = {}
    table = None
    counts = {seat: [0, 0] for seat in range(1, hand.num_players + 1)}
    passed_since = 0
    for action in hand.actions:
        if action.verb is Verb.DEAL_HOLE:
            held.setdefault(action.target, set()).update(action.cards)
        elif action.verb is Verb.PLAY:
            held[action.actor] -= set(action.cards)
            table, passed_since, last = bigtwo_combo(action.cards, rules), 0, action.actor
        elif action.verb is Verb.PASS:
            counts[action.actor][0] += 1
            assert table is not None
            counts[action.actor][1] += any(
                bigtwo_beats(option, table)
                for option in bigtwo_all_combos(sorted(held[action.actor],
                                                       key=lambda c: c.code), rules))
            passed_since += 1
            # The trick ends once every other player still holding cards has passed.
            if passed_since >= sum(1 for seat, cards in held.items()
                                   if cards and seat != last):
                table = None
    return counts


def test_pass_with_play_against_the_evaluator_on_simulated_games(tmp_path: Path) -> None:
    folder = tmp_path / "sim"
    folder.mkdir()
    hands = [*simulate_bigtwo(25, 4, 7), *simulate_bigtwo(15, 3, 8)]
    write_hands(hands, folder / "b.phhs")
    ingest([folder], tmp_path / "sim.duckdb", workers=0)
    with reader(tmp_path / "sim.duckdb") as con:
        grid = grid_cells(stat_grid(con, HandFilter(), game="bigtwo"))
    totals: dict[str, list[int]] = {}
    for hand in hands:
        for seat, (passes, with_play) in _recount(hand).items():
            player = totals.setdefault(hand.player_name(seat), [0, 0])
            player[0] += passes
            player[1] += with_play
    assert {p: (int(grid[p]["pass_with_play_opps"]), int(grid[p]["pass_with_play"]))
            for p in grid} == {p: (n, w) for p, (n, w) in totals.items()}
    assert sum(w for _, w in totals.values()) > 0  # the bots do pass holding plays
    assert sum(n - w for n, w in totals.values()) > 0  # and without


# tests/data/stats_cases/rummoli.phhs: three rounds counted by hand in its comments (R1 a
# showdown and an exchange, R2 an auction and a poker pot won without a showdown, R3 an
# end-of-game round: poker only, so no laying opportunities). Player -> column -> value.
RUMMOLI: dict[str, dict[str, float]] = {
    "Ann": {"vpip": 1, "vpip_opps": 3, "raise": 1, "raise_opps": 3, "poker_pot_won": 1,
            "poker_pot_won_opps": 3, "wsd": 1, "wsd_opps": 1, "widow_exchange": 0,
            "widow_exchange_opps": 1, "auction_bid": 0, "auction_bid_opps": 0,
            "winning_bid": 0, "winning_bid_opps": 0, "widow_net": 3, "widow_net_opps": 3,
            "pay_cards": 1, "pay_cards_opps": 2, "stops": 1, "stops_opps": 2,
            "cards_left": 11, "cards_left_opps": 2, "chips_paid": 11, "chips_paid_opps": 2,
            "rummoli_pot": 1, "rummoli_pot_opps": 2, "rounds": 3, "net": 32,
            "poker_net_per_round": 16 / 3, "pay_cards_net_per_round": -10 / 3,
            "rummoli_net_per_round": 2 / 3, "payments_net_per_round": 21 / 3},
    "Bo": {"vpip": 1, "vpip_opps": 3, "raise": 0, "raise_opps": 3, "poker_pot_won": 0,
           "poker_pot_won_opps": 3, "wsd": 0, "wsd_opps": 0, "widow_exchange": 1,
           "widow_exchange_opps": 1, "auction_bid": 1, "auction_bid_opps": 1,
           "winning_bid": 0, "winning_bid_opps": 0, "widow_net": 0, "widow_net_opps": 3,
           "pay_cards": 0, "pay_cards_opps": 2, "stops": 0, "stops_opps": 2,
           "cards_left": 22, "cards_left_opps": 2, "chips_paid": 22, "chips_paid_opps": 2,
           "rummoli_pot": 0, "rummoli_pot_opps": 2, "rounds": 3, "net": -44,
           "poker_net_per_round": -6 / 3, "pay_cards_net_per_round": -14 / 3,
           "rummoli_net_per_round": -2 / 3, "payments_net_per_round": -22 / 3},
    "Cy": {"vpip": 2, "vpip_opps": 3, "raise": 2, "raise_opps": 3, "poker_pot_won": 1,
           "poker_pot_won_opps": 3, "wsd": 0, "wsd_opps": 1, "widow_exchange": 0,
           "widow_exchange_opps": 0, "auction_bid": 0, "auction_bid_opps": 0,
           "winning_bid": 0, "winning_bid_opps": 0, "widow_net": 0, "widow_net_opps": 3,
           "pay_cards": 1, "pay_cards_opps": 2, "stops": 1, "stops_opps": 2,
           "cards_left": 11, "cards_left_opps": 2, "chips_paid": 11, "chips_paid_opps": 2,
           "rummoli_pot": 1, "rummoli_pot_opps": 2, "rounds": 3, "net": 10,
           "poker_net_per_round": -3 / 3, "pay_cards_net_per_round": -10 / 3,
           "rummoli_net_per_round": 2 / 3, "payments_net_per_round": 21 / 3},
    "Dee": {"vpip": 2, "vpip_opps": 3, "raise": 1, "raise_opps": 3, "poker_pot_won": 1,
            "poker_pot_won_opps": 3, "wsd": 1, "wsd_opps": 2, "widow_exchange": 1,
            "widow_exchange_opps": 1, "auction_bid": 1, "auction_bid_opps": 1,
            "winning_bid": 3, "winning_bid_opps": 1, "widow_net": -3, "widow_net_opps": 3,
            "pay_cards": 0, "pay_cards_opps": 2, "stops": 0, "stops_opps": 2,
            "cards_left": 20, "cards_left_opps": 2, "chips_paid": 20, "chips_paid_opps": 2,
            "rummoli_pot": 0, "rummoli_pot_opps": 2, "rounds": 3, "net": -22,
            "poker_net_per_round": 17 / 3, "pay_cards_net_per_round": -14 / 3,
            "rummoli_net_per_round": -2 / 3, "payments_net_per_round": -20 / 3},
}


@pytest.fixture(scope="module")
def rummoli_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_case(tmp_path_factory.mktemp("rmcases"), "rummoli.phhs")


def test_rummoli_grid_matches_the_hand_counts(rummoli_db: Path) -> None:
    with reader(rummoli_db) as con:
        grid = grid_cells(stat_grid(con, HandFilter(), game="rummoli"))
    assert_grid_counts(grid, RUMMOLI)


def test_rummoli_results_over_time_are_the_poker_phase(rummoli_db: Path) -> None:
    """The four lines are the poker phase's net (counted by hand, round by round):
    Ann 17, -1, 0; Dee -11 (showdown), -1 (folded), +29 (showdown, the finale's pot)."""
    with reader(rummoli_db) as con:
        lines = results_over_time(con, HandFilter(players=("Ann", "Dee")), game="rummoli")
    ann = lines[lines["player"] == "Ann"]
    dee = lines[lines["player"] == "Dee"]
    assert list(ann["actual"]) == [17, 16, 16]
    assert list(ann["showdown"]) == [17, 17, 17]
    assert list(ann["no_showdown"]) == [0, -1, -1]
    assert list(dee["actual"]) == [-11, -12, 17]
    assert list(dee["adjusted"]) == list(dee["actual"])  # no all-in adjustment in Rummoli
    assert list(dee["showdown"]) == [-11, -11, 18]
    assert list(dee["no_showdown"]) == [0, -1, -1]


def test_rummoli_pot_nets_match_the_board(tmp_path: Path) -> None:
    """Each round's pot nets summed over its players are what the pot lost or kept over
    the round (the engine's ``board`` rows, before - after); they add up to each net."""
    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    db = tmp_path / "samples.duckdb"
    ingest([samples / "rummoli-family.phhs", DATA / "rummoli.phhs"], db, workers=0)
    pay = ", ".join(f"'{pot}'" for pot in ("TS", "JD", "QC", "KH", "AS", "AKD", "789"))
    with reader(db) as con:
        wrong = con.execute(f"""
            WITH b AS (SELECT hand_id,
                           sum(before - after) FILTER (WHERE pot = 'poker') AS poker,
                           sum(before - after) FILTER (WHERE pot IN ({pay})) AS pay,
                           sum(before - after) FILTER (WHERE pot = 'rummoli') AS rummoli
                       FROM board GROUP BY hand_id),
            x AS (SELECT hand_id, sum(poker_net) AS poker, sum(pay_cards_net) AS pay,
                         sum(rummoli_net) AS rummoli,
                         count(*) FILTER (WHERE poker_net + pay_cards_net + rummoli_net
                                          + payments_net + widow_net <> net) AS unsummed
                  FROM stat_facts WHERE game = 'rummoli' GROUP BY hand_id)
            SELECT count(*) FILTER (WHERE h.finale_pot IS NULL AND (b.poker <> x.poker
                                    OR b.pay <> x.pay OR b.rummoli <> x.rummoli)),
                   sum(x.unsummed), count(*) FILTER (WHERE h.finale_pot IS NULL)
            FROM x JOIN b USING (hand_id) JOIN hands h USING (hand_id)""").fetchall()[0]
    assert wrong[0] == 0 and wrong[1] == 0 and wrong[2] > 100


# tests/data/stats_cases/bigtwo_twos.phhs: one deal played under cards_with_twos (game 1)
# and cards (game 2); Gus ends holding a 2 with one card left, Hal holding a 2 with ten
# (fried). Counted by hand in the file's comments. Player -> column -> value.
BIGTWO_TWOS: dict[str, dict[str, int]] = {
    "Fay": {"games": 2, "wins": 2, "win_rate": 2, "cards_left": 0, "fry": 0, "place_1": 2,
            "not_out": 0, "twos": 0, "five_card": 4, "pass_with_play": 0,
            "pass_with_play_opps": 6},
    "Gus": {"games": 2, "wins": 0, "win_rate": 0, "cards_left": 2, "fry": 0, "place_1": 0,
            "not_out": 2, "twos": 2, "five_card": 2, "pass_with_play": 0,
            "pass_with_play_opps": 2},
    "Hal": {"games": 2, "wins": 0, "win_rate": 0, "cards_left": 20, "fry": 2, "place_1": 0,
            "not_out": 2, "twos": 0, "five_card": 0, "pass_with_play": 4,
            "pass_with_play_opps": 10},
}


@pytest.fixture(scope="module")
def bigtwo_twos_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_case(tmp_path_factory.mktemp("b2twos"), "bigtwo_twos.phhs")


def test_bigtwo_twos_held_at_the_end_match_the_hand_counts(bigtwo_twos_db: Path) -> None:
    with reader(bigtwo_twos_db) as con:
        whole = stat_grid(con, HandFilter(), game="bigtwo")
        split = stat_grid(con, HandFilter(), game="bigtwo", split="scoring")
    assert_grid_counts(grid_cells(whole), BIGTWO_TWOS)
    # Game 1 under cards_with_twos, game 2 under cards (the points of the next test).
    assert_points_by_rule(whole, split, {
        ("Fay", "cards_with_twos"): 42, ("Fay", "cards"): 21, ("Gus", "cards_with_twos"): -2,
        ("Gus", "cards"): -1, ("Hal", "cards_with_twos"): -40, ("Hal", "cards"): -20})


def test_bigtwo_each_two_held_doubles_the_payment(bigtwo_twos_db: Path) -> None:
    """Game by game: cards_with_twos doubles Gus's 1 (one 2 held) and Hal's fried 20 (his
    2d); plain cards scoring does not.  The 2s held are not the ``twos`` statistic (2s
    played): Gus played one (2h) and held one (2s), Hal held one and played none."""
    with reader(bigtwo_twos_db) as con:
        points = {(str(game), str(player)): int(net) for game, player, net in con.execute(
            "SELECT h.game_id, s.player, s.net FROM seats s JOIN hands h USING (hand_id)"
        ).fetchall()}
        by_day = results_over_time(con, HandFilter(), game="bigtwo", by="date")
    assert points == {("stats-b2-twos-1", "Fay"): 42, ("stats-b2-twos-1", "Gus"): -2,
                      ("stats-b2-twos-1", "Hal"): -40, ("stats-b2-twos-2", "Fay"): 21,
                      ("stats-b2-twos-2", "Gus"): -1, ("stats-b2-twos-2", "Hal"): -20}
    lines = {str(p): list(by_day[by_day["player"] == p]["actual"]) for p in ("Fay", "Hal")}
    assert lines == {"Fay": [42, 63], "Hal": [-40, -60]}


def test_bigtwo_fry_threshold_moves_only_the_fry_column(bigtwo_twos_db: Path) -> None:
    """The grid's threshold is the question's: at 11 Hal's 10 cards left are no fry, but
    his points stay the ones the game's own rules (threshold 10) scored."""
    with reader(bigtwo_twos_db) as con:
        high = grid_cells(stat_grid(con, HandFilter(), game="bigtwo", fry_threshold=11))
        split = stat_grid(con, HandFilter(), game="bigtwo", fry_threshold=11, split="scoring")
    assert {p: int(high[p]["fry"]) for p in high} == {"Fay": 0, "Gus": 0, "Hal": 0}
    hal = split[split["player"] == "Hal"]
    assert sorted(hal["points"].astype(int)) == [-40, -20]


# tests/data/stats_cases/rummoli_impasse.phhs: one round ending at an impasse (nobody holds
# a red card after Bo's Ac), Bo short of chips for his payment. Counted by hand in the
# file's comments. Player -> column -> value.
RUMMOLI_IMPASSE: dict[str, dict[str, float]] = {
    "Ann": {"vpip": 1, "vpip_opps": 1, "raise": 1, "raise_opps": 1, "poker_pot_won": 1,
            "poker_pot_won_opps": 1, "wsd": 0, "wsd_opps": 0, "widow_exchange": 0,
            "widow_exchange_opps": 0, "auction_bid": 0, "auction_bid_opps": 0,
            "winning_bid": 0, "winning_bid_opps": 0, "widow_net": 0, "widow_net_opps": 1,
            "pay_cards": 1, "pay_cards_opps": 1, "stops": 0, "stops_opps": 1,
            "cards_left": 6, "cards_left_opps": 1, "chips_paid": 6, "chips_paid_opps": 1,
            "rummoli_pot": 0, "rummoli_pot_opps": 1, "rounds": 1, "net": -11,
            "poker_net_per_round": 1, "pay_cards_net_per_round": -5,
            "rummoli_net_per_round": -7, "payments_net_per_round": 0},
    "Bo": {"vpip": 0, "vpip_opps": 1, "raise": 0, "raise_opps": 1, "poker_pot_won": 0,
           "poker_pot_won_opps": 1, "wsd": 0, "wsd_opps": 0, "widow_exchange": 0,
           "widow_exchange_opps": 1, "auction_bid": 0, "auction_bid_opps": 0,
           "winning_bid": 0, "winning_bid_opps": 0, "widow_net": 0, "widow_net_opps": 1,
           "pay_cards": 0, "pay_cards_opps": 1, "stops": 1, "stops_opps": 1,
           "cards_left": 7, "cards_left_opps": 1, "chips_paid": 5, "chips_paid_opps": 1,
           "rummoli_pot": 0, "rummoli_pot_opps": 1, "rounds": 1, "net": -12,
           "poker_net_per_round": -1, "pay_cards_net_per_round": -5,
           "rummoli_net_per_round": -6, "payments_net_per_round": 0},
}


def test_rummoli_impasse_matches_the_hand_counts(tmp_path: Path) -> None:
    db = ingested_case(tmp_path, "rummoli_impasse.phhs")
    with reader(db) as con:
        grid = grid_cells(stat_grid(con, HandFilter(), game="rummoli"))
        board = con.execute("SELECT pot, after FROM board ORDER BY pot").fetchall()
    assert_grid_counts(grid, RUMMOLI_IMPASSE)
    # Nobody won the Rummoli pot: its ante (2) and the impasse payments (6 + 5) stay.
    assert dict(board) == {"poker": 0, "TS": 2, "JD": 2, "QC": 0, "KH": 2, "AS": 2,
                           "AKD": 2, "789": 0, "rummoli": 13}
