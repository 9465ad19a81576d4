"""SQL injection: hostile strings in every filter and inside uploaded files change nothing.

Player names, game ids, tables, events and comments made of injection strings
are loaded, then every question of ``views`` and ``stat_views`` is asked with
those strings in each of its filters.  Every value is bound as a parameter, so
the strings match exactly themselves: the answers are right (the hostile
player's own rows, or nothing), identifiers outside the whitelists are refused
with ValueError, and the schema and every table's row count are unchanged.
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import duckdb
import pandas as pd
import pytest

from analytics import ingest
from analytics.warehouse import reader
from analytics.warehouse.sql import queries, stat_views, views
from analytics.warehouse.sql.views import HandFilter
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs, write

INJECTIONS: Final = (
    "x' OR '1'='1",
    "'; DROP TABLE hands; --",
    "Robert'); DROP TABLE seats;--",
    '"; DELETE FROM files; --',
    "' UNION SELECT sha256 FROM files --",
    "$game",
    "?",
    "%",
    "_",
    "\\",
    "*/ SELECT 1 /*",
    "NULL",
    "Zoë 🂡",
)


def toml(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a valid TOML basic string


def hostile_histories() -> str:
    hands = []
    for number in range(0, len(INJECTIONS), 3):
        names = [*INJECTIONS[number : number + 3], "Ann", "Bo"][:3]
        text = SEVENEIGHT.replace('players = ["Ann", "Bo", "Cy"]',
                                  f"players = [{', '.join(toml(n) for n in names)}]")
        text = text.replace('table = "Kitchen"', f"table = {toml(INJECTIONS[number])}")
        text = text.replace('"p3 cbr 6 # first to act, left of the big blind"',
                            toml(f"p3 cbr 6 # {INJECTIONS[number]}"))
        hands.append(text + f"event = {toml(INJECTIONS[-1 - number])}\n")
    for number, name in enumerate(INJECTIONS[:4]):
        text = BIGTWO.replace('game_id = "sunday-2026-11-29"', f"game_id = {toml(name)}")
        hands.append(text.replace('players = ["Ann", "Bo"]',
                                  f'players = [{toml(name)}, "Bo{number}"]'))
    hands.append(SEVENEIGHT.replace('"p2 f"', toml(f"p9 f # {INJECTIONS[3]}")))  # a reject
    return phhs(*hands)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sql")
    source = write(folder / "'; DROP TABLE files; --.phhs", hostile_histories())
    database = folder / "w.duckdb"
    summary = ingest([source], database, workers=0)
    assert (summary.loaded, summary.rejected) == (9, 1), summary.files
    return database


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    tables = [row[0] for row in con.execute(
        "SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
    return {name: int(con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0])
            for name in tables}


def seats_of(con: duckdb.DuckDBPyConnection, player: str) -> int:
    return int(con.execute("SELECT count(*) FROM seats WHERE player = ?",
                           [player]).fetchall()[0][0])


def test_names_are_stored_exactly(db: Path) -> None:
    with reader(db) as con:
        stored = {row[0] for row in con.execute("SELECT player FROM seats").fetchall()}
        assert set(INJECTIONS) <= stored
        ids = {row[0] for row in con.execute("SELECT game_id FROM hands").fetchall()}
        assert set(INJECTIONS[:4]) <= ids
        assert snapshot(con)["hands"] == 9


def test_keyword_questions_bind_every_value(db: Path) -> None:
    """The questions' keyword values outside the filter (a game id, players of the results
    over time, files, a hand id) are data too."""
    with reader(db) as con:
        before = snapshot(con)
        for value in INJECTIONS:
            for game in ("seveneight", "bigtwo"):
                net = stat_views.results_over_time(con, HandFilter(players=(value,)), game=game)
                assert set(net["player"]) <= {value}
            net = stat_views.results_over_time(con, HandFilter(players=(value, "Ann")),
                                               game="seveneight")
            assert set(net["player"]) <= {value, "Ann"}
            assert views.rummoli_board(con, HandFilter(), game_id=value).empty
            assert views.rejects(con, files=[value]).empty
            assert views.hand_detail(con, hand_id=-1)["actions"].empty
            with pytest.raises(ValueError, match="unknown"):
                stat_views.results_over_time(con, HandFilter(), game="seveneight", by=value)
        rejected = views.rejects(con)
        assert len(rejected) == 1
        (path,) = rejected["file"]
        assert len(views.rejects(con, files=[path])) == 1
        assert len(queries.files(con)) == 1
        assert snapshot(con) == before


def _view_questions() -> list[tuple[str, Callable[..., Any]]]:
    found: list[tuple[str, Callable[..., Any]]] = []
    for name in views.__all__:
        function = getattr(views, name)
        if not inspect.isfunction(function) or name == "where":
            continue
        parameters = list(inspect.signature(function).parameters.values())
        if len(parameters) >= 2 and parameters[1].name == "f":
            found.append((name, function))
    return found


def _required(function: Callable[..., Any], value: str) -> dict[str, object]:
    """Values for the keyword-only arguments a question requires: identifiers from their
    whitelists (a game, :func:`views.bar_hands`' source), ``value`` everywhere it is data
    (a bar's player)."""
    known: dict[str, object] = {"game": "seveneight", "source": "seat_facts",
                                "bar": (("player", value),)}
    fill: dict[str, object] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.default is parameter.empty:
            fill[parameter.name] = known.get(parameter.name, value)
    return fill


QUESTIONS: Final = _view_questions()
VIEW_INJECTIONS: Final = ("x' OR '1'='1", "'; DROP TABLE hands; --", '"; DELETE FROM files; --',
                          "$game", "?", "\\")
"""Per view question, the strings that would break string-built SQL (the rest: players test)."""


def test_every_view_question_is_covered() -> None:
    assert len(QUESTIONS) >= 10, [name for name, _ in QUESTIONS]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "question"), QUESTIONS, ids=[n for n, _ in QUESTIONS])
def test_views_bind_every_filter(db: Path, name: str, question: Callable[..., Any]) -> None:
    with reader(db) as con:
        before = snapshot(con)
        everything = question(con, HandFilter(), **_required(question, "x"))
        for value in VIEW_INJECTIONS:
            hostile = HandFilter(players=(value,), session=value, stakes=value,
                                 knobs=(("variant", value), ("deal", value)))
            result = question(con, hostile, **_required(question, value))
            frames = result.values() if isinstance(result, dict) else [result]
            for frame in frames:
                assert isinstance(frame, pd.DataFrame)
            # Each filter alone: a player who sat matches only his own hands.
            only = question(con, HandFilter(players=(value,)), **_required(question, value))
            if isinstance(only, pd.DataFrame) and "player" in only.columns and not only.empty:
                assert set(only["player"]) <= {value}, name
            singles = (HandFilter(session=value), HandFilter(stakes=value),
                       HandFilter(knobs=(("variant", value),)),
                       HandFilter(date_from=dt.date(1900, 1, 1), players=(value,)))
            for single in singles if value in INJECTIONS[:3] else ():
                question(con, single, **_required(question, value))
            for bad in ({"game": value}, {"knobs": ((value, "x"),)}):
                with pytest.raises(ValueError, match="unknown"):
                    HandFilter(**bad)
        if isinstance(everything, pd.DataFrame):  # the hostile runs changed nothing
            again = question(con, HandFilter(), **_required(question, "x"))
            pd.testing.assert_frame_equal(everything, again)
        assert snapshot(con) == before


def test_view_player_filter_finds_the_hostile_player(db: Path) -> None:
    with reader(db) as con:
        for value in INJECTIONS:
            results = views.player_results(con, HandFilter(players=(value,)))
            assert set(results["player"]) <= {value}
            mine = results.loc[results["player"] == value]
            assert int(mine["hands"].sum()) == seats_of(con, value), value
        sessions = views.sessions(con, HandFilter(session=INJECTIONS[1]))
        assert set(sessions["session"]) == {INJECTIONS[1]}
        assert views.hand_list(con, HandFilter(session="' OR 1=1 --")).empty


def test_views_refuse_identifiers_outside_the_whitelists(db: Path) -> None:
    with reader(db) as con:
        for value in INJECTIONS:
            with pytest.raises(ValueError, match="unknown"):
                views.hands_over_time(con, HandFilter(), bucket=value)
        assert views.rejects(con, files=list(INJECTIONS)).empty
        assert len(views.rejects(con, game="seveneight")) == 1
