"""Hand search (analytics/warehouse/sql/search.py) and the tags and notes kept on hands and
players (analytics/warehouse/annotations.py), on the hand-written 7 & 8 hands and the
shared dashboard warehouse; the notes outlive loading the same files again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analytics.warehouse import ENV_VAR, ingest, open_writer, reader, writer
from analytics.warehouse.annotations import (
    HandNote,
    hand_note,
    player_note,
    set_hand_note,
    set_player_note,
    tagged_hands,
    tags_from_text,
)
from analytics.warehouse.identity import hand_id_hex, parse_hand_id
from analytics.warehouse.sql.search import (
    HandSearch,
    categories_at_least,
    describe_hands,
    search_hands,
)
from analytics.warehouse.sql.stat_views import stat_hands
from analytics.warehouse.sql.views import HandFilter, bar_hands
from parsers.rule_options import GAME_NAMES
from tests.test_dashboard_app import open_app
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the shared warehouse fixture, imported for pytest

DATA = Path(__file__).parent / "data" / "stats"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "search.duckdb"
    ingest([DATA], path, workers=0)
    return path


def _ids(db: Path, f: HandFilter, search: HandSearch) -> list[int]:
    """The hands found, as their positions in the file (1-based: hands A-I are 1-9)."""
    with reader(db) as con:
        found = search_hands(con, f, search=search)
        index = dict(con.execute("SELECT hand_id, source_index FROM hands").fetchall())
    return sorted(index[int(h)] for h in found["hand_id"])


def test_search_by_each_criterion(db: Path) -> None:
    every = HandFilter()
    assert _ids(db, every, HandSearch()) == list(range(1, 10))
    # Shown down: B, D, E, F, G; all in with cards to come: D and E.
    assert _ids(db, every, HandSearch(showdown=True)) == [2, 4, 5, 6, 7]
    assert _ids(db, every, HandSearch(showdown=False)) == [1, 3, 8, 9]
    assert _ids(db, every, HandSearch(all_in=True)) == [4, 5]
    # Cy showed down in D, E and F; Cy went all in in D (and was covered in E).
    assert _ids(db, HandFilter(players=("Cy",)), HandSearch(showdown=True)) == [4, 5, 6]
    # Categories shown: straight_flush (B, D, E, F, G) and fifteen_flush, seven_eight_flush.
    best = categories_at_least("seveneight", "seven_eight_flush")
    assert best == ("seven_eight_flush",)
    assert _ids(db, every, HandSearch(categories=best)) == [7]  # Ann's 7c8c4c in G
    # The pot: chips won from the pots (A: the blinds, 2 chips won by Bo).
    assert _ids(db, every, HandSearch(max_pot=2, pot_unit="chips")) == [1, 8]
    assert _ids(db, every, HandSearch(min_pot=300, pot_unit="chips")) == [4]  # D: 401
    assert _ids(db, every, HandSearch(min_pot=300, pot_unit="USD")) == []
    with pytest.raises(ValueError, match="unknown combination"):
        HandSearch(combination="royal")
    with pytest.raises(ValueError, match="pot bound needs the unit"):
        HandSearch(min_pot=300)


def test_a_pot_bound_finds_the_hands_of_its_currency_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same hands played for chips and for dollars: "pot at least 300" found the chips
    hand and the dollar one alike (and would have found 300 yen beside 300 dollars); now
    the bound counts in one unit, and the page asks which when the hands hold several."""
    from dataclasses import replace

    from analytics.warehouse.sql.search import pot_units
    from parsers import read_hands, write_hands

    dollars = tmp_path / "usd.phhs"
    write_hands([replace(hand, currency="USD") for hand in read_hands(DATA / "seveneight.phhs")
                 if hand.index in (1, 4, 8)], dollars)  # A, D, H: pots of 2, 401, 2
    db = tmp_path / "money.duckdb"
    assert ingest([DATA, dollars], db, workers=0).loaded == 12
    with reader(db) as con:
        assert pot_units(con, HandFilter()) == ["chips", "USD"]  # the most hands first
        usd_stakes = con.execute("SELECT any_value(stakes) FROM hand_facts WHERE "
                                 "stakes LIKE '% USD'").fetchone()
        assert usd_stakes is not None
        assert pot_units(con, HandFilter(stakes=usd_stakes[0])) == ["USD"]
        assert pot_units(con, HandFilter(game="bigtwo")) == []

        def found(search: HandSearch) -> list[tuple[int, str]]:
            rows = search_hands(con, HandFilter(), search=search)
            return sorted(zip(rows["pot"].astype(int), rows["unit"], strict=True))

        assert found(HandSearch(min_pot=300, pot_unit="chips")) == [(401, "chips")]
        assert found(HandSearch(min_pot=300, pot_unit="USD")) == [(401, "USD")]
        assert found(HandSearch(max_pot=2, pot_unit="USD")) == [(2, "USD"), (2, "USD")]
        assert found(HandSearch(min_pot=300, pot_unit="JPY")) == []
    # The page: the bounds name their unit, picked among the hands' own.
    monkeypatch.setenv(ENV_VAR, str(db))
    at = open_app("search")
    assert at.selectbox(key="search_pot_unit").options == ["chips", "USD"]
    at.selectbox(key="search_pot_unit").set_value("USD").run()
    assert at.number_input(key="search_min_pot").label == "Pot at least (USD)"
    at.number_input(key="search_min_pot").set_value(300).run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown["pot (USD)"]) == [401] and "unit" not in shown.columns
    one = open_app("search", game="seveneight", stakes=usd_stakes[0])
    assert not [w for w in one.selectbox if w.key == "search_pot_unit"]
    assert one.number_input(key="search_max_pot").label == "Pot at most (USD)"


def test_results_open_the_replayer_by_hex_id(db: Path) -> None:
    with reader(db) as con:
        found = search_hands(con, HandFilter(), search=HandSearch(all_in=True))
    for hand_id, shown, link in zip(found["hand_id"], found["id"], found["replay"],
                                    strict=True):
        assert shown == hand_id_hex(int(hand_id))
        assert link == f"replayer?hand={shown}"
        assert parse_hand_id(shown) == int(hand_id)


def test_search_by_the_id_shown(db: Path) -> None:
    """The hex id a page shows finds that hand alone; an id of no hand finds nothing."""
    with reader(db) as con:
        ids = dict(con.execute("SELECT source_index, hand_id FROM hands").fetchall())
    every = HandFilter()
    for position in (1, 4, 9):
        typed = f"#{hand_id_hex(ids[position]).upper()}"
        assert _ids(db, every, HandSearch(hand_id=parse_hand_id(typed))) == [position]
    # With other criteria the id still has to meet them: hand 1 (A) went to no showdown.
    assert _ids(db, every, HandSearch(hand_id=ids[1], showdown=True)) == []
    unknown = next(value for value in range(1, 100) if value not in ids.values())
    assert _ids(db, every, HandSearch(hand_id=unknown)) == []


def test_the_latest_hands_come_first_in_order_of_play(db: Path) -> None:
    """Two hands a day and no times: the later day first, then the later hand of the file;
    a limit keeps the latest (the id, a hash, decides nothing)."""
    with reader(db) as con:
        index = dict(con.execute("SELECT hand_id, source_index FROM hands").fetchall())
        found = search_hands(con, HandFilter(), search=HandSearch())
        latest = search_hands(con, HandFilter(), search=HandSearch(), limit=3)
    assert [index[int(h)] for h in found["hand_id"]] == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert [index[int(h)] for h in latest["hand_id"]] == [9, 8, 7]


def test_the_dashboard_lists_the_latest_hands_first_by_their_time(dashboard_db: Path) -> None:
    """A search, a bar's hands and a cell's hands of the bundled data, whose hands carry
    their time of play, come in the order of day and time, the latest first; the hands
    behind a point in order of play keep that order when they are described."""
    with reader(dashboard_db) as con:
        played = {hand_id: (day, time, index) for hand_id, day, time, index in con.execute(
            """SELECT hand_id, coalesce(played_on, CAST(loaded_at AS DATE)), played_time,
                      source_index FROM hands WHERE game = 'seveneight'""").fetchall()}
        found = search_hands(con, HandFilter(game="seveneight"), search=HandSearch(),
                             limit=40)
        bar = bar_hands(con, HandFilter(), source="seat_facts", game="seveneight",
                        bar=(("position", 1),))
        cell = stat_hands(con, HandFilter(), game="seveneight", player="Ann")
        in_play = stat_hands(con, HandFilter(), game="seveneight", player="Ann",
                             order="play")
        described = describe_hands(con, in_play["hand_id"].head(30).tolist())
    for hands in (found["hand_id"], bar["hand_id"].head(40), cell["hand_id"].head(40)):
        times = [played[int(h)] for h in hands]
        assert all(time is not None for _, time, _ in times)
        assert times == sorted(times, reverse=True), times
    assert played[int(found["hand_id"][0])] == max(played.values())
    # The list shows each hand's time of play beside its day.
    assert [(d, t) for d, t, _ in (played[int(h)] for h in found["hand_id"])] == [
        (d.date(), t) for d, t in zip(found["day"], found["time"], strict=True)]
    assert described["hand_id"].tolist() == in_play["hand_id"].head(30).tolist()
    times = [played[int(h)] for h in described["hand_id"]]
    assert times == sorted(times)


def test_notes_are_kept_found_and_survive_loading_again(db: Path) -> None:
    with reader(db) as con:
        first = int(search_hands(con, HandFilter(), search=HandSearch(all_in=True))
                    ["hand_id"].iloc[0])
    with writer(db) as con:
        set_hand_note(con, first, HandNote(True, tags_from_text(" bluff, review,bluff ,"),
                                           " check the call "))
        set_player_note(con, "Cy", "raises light from late")
    # Loading the same files again changes nothing and keeps the notes.
    summary = ingest([DATA], db, workers=0)
    assert summary.loaded == 0
    with reader(db) as con:
        assert hand_note(con, first) == HandNote(True, ("bluff", "review"), "check the call")
        assert player_note(con, "Cy") == "raises light from late"
        assert player_note(con, "Bo") == ""
        tagged = tagged_hands(con)
        assert list(tagged["hand_id"]) == [first] and tagged["game"].iloc[0] == "seveneight"
        for typed in ("review", "Review", " REVIEW "):  # as people type a tag
            assert list(search_hands(con, HandFilter(), search=HandSearch(tag=typed))
                        ["hand_id"]) == [first], typed
        assert search_hands(con, HandFilter(), search=HandSearch(tag="revie")).empty
        assert list(search_hands(con, HandFilter(), search=HandSearch(starred=True))
                    ["hand_id"]) == [first]
    # The report lists them.
    from analytics.reports import build_report

    with reader(db) as con:
        report = build_report(con, HandFilter())
    notes = report.tables()["Hands starred, tagged or noted"]
    assert list(notes["tags"]) == ["bluff, review"]
    assert list(report.tables()["Notes on players"]["player"]) == ["Cy"]
    # An empty note forgets the hand.
    con = open_writer(db)
    try:
        set_hand_note(con, first, HandNote())
        assert hand_note(con, first).empty
        assert tagged_hands(con).empty
    finally:
        con.close()


def test_dashboard_search_finds_bigtwo_and_rummoli_hands(dashboard_db: Path) -> None:
    with reader(dashboard_db) as con:
        quads = search_hands(con, HandFilter(game="bigtwo"),
                             search=HandSearch(combination="straight"))
        straights = con.execute("SELECT count(DISTINCT hand_id) FROM seat_facts "
                                "WHERE played_straight > 0").fetchall()[0][0]
        pots = search_hands(con, HandFilter(), search=HandSearch(pot_won="TS"))
        ts = con.execute("SELECT count(DISTINCT hand_id) FROM awards "
                         "WHERE pot = 'TS' AND amount > 0").fetchall()[0][0]
    assert len(quads) == min(straights, 500) and len(quads) > 0
    assert len(pots) == min(ts, 500) and set(pots["game"]) <= {"rummoli"}


def test_the_poker_pot_with_its_side_pots_the_finale_and_pots_in_chips(
        dashboard_db: Path) -> None:
    """"poker" finds the rounds whose poker side pot someone won (it missed them), the
    finale is a pot to look for, and a pot range leaves Big Two's points out."""
    def found(search: HandSearch, *players: str) -> Any:
        return search_hands(con, HandFilter(players=players), search=search, limit=100_000)

    def counted(where: str) -> int:
        return int(con.execute(f"SELECT count(DISTINCT hand_id) FROM awards a "
                               f"WHERE a.amount > 0 AND ({where})").fetchall()[0][0])

    with reader(dashboard_db) as con:
        poker, finale = found(HandSearch(pot_won="poker")), found(HandSearch(pot_won="finale"))
        big = found(HandSearch(min_pot=50, pot_unit="chips"))
        expected = (counted("a.pot = 'poker' OR a.pot LIKE 'poker_side%'"),
                    counted("a.pot = 'finale'"))
        # A player whose only poker chips of a round came from a side pot: Kit, say.
        hand, player = con.execute("""
            SELECT a.hand_id, s.player FROM awards a
            JOIN seats s ON s.hand_id = a.hand_id AND s.seat = a.player
            WHERE a.pot LIKE 'poker_side%' AND a.amount > 0 AND NOT EXISTS (
                SELECT 1 FROM awards b WHERE b.hand_id = a.hand_id AND b.player = a.player
                  AND b.pot = 'poker' AND b.amount > 0)
            ORDER BY ALL LIMIT 1""").fetchall()[0]
        his = found(HandSearch(pot_won="poker"), player)
        chips = con.execute("""
            SELECT count(*) FROM (SELECT s.hand_id FROM seats s JOIN hands h USING (hand_id)
                                  WHERE h.game <> 'bigtwo' GROUP BY ALL
                                  HAVING sum(s.won) >= 50)""").fetchall()[0][0]
    assert (len(poker), len(finale)) == expected and expected[1] > 0
    assert hand in set(his["hand_id"])
    assert len(big) == chips and "bigtwo" not in set(big["game"])


def test_the_search_page_finds_a_pasted_id_and_names_a_wrong_one(
        dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    with reader(dashboard_db) as con:
        hand_id = con.execute("SELECT min(hand_id) FROM hands").fetchall()[0][0]
    at = open_app("search")
    at.text_input(key="search_hand_id").input(f"  #{hand_id_hex(hand_id)} ").run()
    assert not at.exception
    assert any(m.value.startswith("**1 hand**") for m in at.markdown)
    with reader(dashboard_db) as con:
        game = con.execute("SELECT game FROM hands WHERE hand_id = $id",
                           {"id": hand_id}).fetchall()[0][0]
    # The game by the name the sidebar gives it ("7 & 8"), not the stored value.
    assert list(at.dataframe[0].value["game"]) == [GAME_NAMES[game]]
    assert not at.warning
    at.text_input(key="search_hand_id").input("not-an-id").run()
    assert "is not a hand id" in at.warning[0].value


@pytest.mark.parametrize(("game", "asked"), [
    (None, {"search_min_pot", "search_all_in", "search_combination", "search_pot",
            "search_showdown"}),
    ("seveneight", {"search_category", "search_min_pot", "search_all_in", "search_showdown"}),
    ("rummoli", {"search_category", "search_min_pot", "search_pot", "search_showdown"}),
    ("bigtwo", {"search_combination"}),
])
def test_the_search_page_asks_only_what_the_games_shown_have(
        dashboard_db: Path, monkeypatch: pytest.MonkeyPatch, game: str | None,
        asked: set[str]) -> None:
    """A criterion of one game (a Big Two combination, a Rummoli pot, a pot in chips or a
    showdown, which Big Two has not, an all-in with cards to come, which only 7 & 8 has)
    is asked only when the sidebar's game lets its hands in; the options read in words
    ("full house", "10♠", the finale) and the list's pot has its unit."""
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    at = open_app("search", **({"game": game} if game else {}))
    keys = {w.key for w in [*at.selectbox, *at.number_input, *at.radio]}
    own = {"search_category", "search_min_pot", "search_all_in", "search_combination",
           "search_pot", "search_showdown"}
    assert keys & own == asked
    if "search_pot" in asked:
        options = at.selectbox(key="search_pot").options
        assert options[1:3] == ["poker", "10♠"] and options[-1] == "finale"
    if "search_combination" in asked:
        assert "full house" in at.selectbox(key="search_combination").options
    if at.dataframe:  # Big Two is played for points, the others for chips
        shown = at.dataframe[0].value
        if game is None:  # chips and points: each hand's unit beside it
            assert "pot" in shown.columns and set(shown["unit"]) == {"chips", "points"}
            assert {"points"} == set(shown.loc[shown["game"] == "Big Two", "unit"])
        else:
            unit = "points" if game == "bigtwo" else "chips"
            assert f"pot ({unit})" in shown.columns and "unit" not in shown.columns
