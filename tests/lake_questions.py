"""Every dashboard question asked of a lake and of a database, to compare their answers.

The one list of the questions (every public question of the views modules) and of the
arguments to ask each with (every filter, every game, a hand, a session, bars), used by
``tests/test_lake.py`` on the samples and by ``benchmarks/bench_lake.py --questions-only``
on a million hands.  Answers are compared with the times of writing left out, rows in a
fixed order and floats rounded (:func:`canonical`).
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
from collections.abc import Callable, Iterator
from typing import Any, Final

import duckdb
import numpy as np
import pandas as pd

from analytics.warehouse.lake.catalogue import WRITE_TIMES
from analytics.warehouse.sql import equity_views, queries, scores, stat_views, views
from analytics.warehouse.sql.views import HandFilter

FILTERS = (HandFilter(), HandFilter(game="rummoli"), HandFilter(game="seveneight"),
           HandFilter(date_from=dt.date(2026, 1, 6), date_to=dt.date(2026, 8, 20)))
EVERYTHING = 10**7
SKIPPED = frozenset({"facts_where", "hand_facts_where", "where",
                     "database_file"})  # where the data is, not a question of it


def questions() -> Iterator[tuple[str, Callable[..., Any]]]:
    for module in (views, equity_views, queries, stat_views, scores):
        for name in module.__all__:
            function = getattr(module, name)
            if inspect.isfunction(function) and name not in SKIPPED and "con" in (
                    inspect.signature(function).parameters):
                yield f"{module.__name__.rsplit('.', 1)[1]}.{name}", function


def calls(function: Callable[..., Any], hand_id: int,
           sessions: dict[str, dict[Any, Any]]) -> Iterator[tuple[Any, ...]]:
    """The arguments to ask ``function`` with: every filter, every game where it needs one;
    a player, or his session, from ``sessions`` (a session of each game) where it needs
    one."""
    parameters = inspect.signature(function).parameters
    games = ("seveneight", "bigtwo", "rummoli") if "game" in parameters and (
        parameters["game"].default is inspect.Parameter.empty) else (None,)
    for game in games:
        keywords: dict[str, Any] = {} if game is None else {"game": game}
        session = sessions.get(str(game), {})
        for key in ("player", "place", "unit", "start", "end"):
            if key in parameters and parameters[key].default is inspect.Parameter.empty and (
                    function.__name__ not in BARS):
                keywords[key] = session[key]
        if "sample" in parameters:
            keywords["sample"] = EVERYTHING
        if "game_id" in parameters and parameters["game_id"].default is inspect.Parameter.empty:
            keywords["game_id"] = None
        if function.__name__ in BARS:  # the hands behind a bar: some bars of each
            for bar in BARS[function.__name__]:
                bar = {k: sessions["bigtwo"]["player"] if v is PLAYER else v
                       for k, v in bar.items()}
                for hand_filter in FILTERS:
                    yield (hand_filter,), {**keywords, **bar}
        elif "hand_id" in parameters:
            yield (hand_id,), keywords
        elif "f" in parameters:
            for hand_filter in FILTERS:
                yield (hand_filter,), keywords
        else:
            yield (), keywords


PLAYER: Final = object()
"""In :data:`BARS`: a Big Two player (of the first Big Two session)."""

BARS: Final[dict[str, tuple[dict[str, Any], ...]]] = {
    "bar_hands": ({"source": "seat_facts", "bar": (("players", 4), ("position", 1))},
                  {"source": "pot_facts", "bar": (("pot", "AS"),)},
                  {"source": "hand_facts", "bar": (("game", "seveneight"),)}),
    "pot_streak_hands": ({"pot": "AS", "since": 1}, {"pot": "rummoli", "since": 2}),
    "bigtwo_feature_hands": ({"feature": "twos", "player": PLAYER, "bin": "1"},),
}
"""The questions that list the hands behind one bar, and bars to ask them about."""


def canonical(answer: Any) -> Any:
    """An answer with the times of writing left out, rows in a fixed order, floats rounded."""
    if isinstance(answer, dict):
        return {key: canonical(value) for key, value in answer.items()}
    if isinstance(answer, tuple):  # data_version: files, last finish, rejects
        return (answer[0], answer[2]) if len(answer) == 3 else answer
    if not isinstance(answer, pd.DataFrame):
        return answer
    frame = answer.drop(columns=[c for c in answer.columns
                                 if c in WRITE_TIMES or pd.api.types.is_datetime64_any_dtype(
                                     answer[c])]).reset_index(drop=True)
    for column in frame.columns:
        if pd.api.types.is_float_dtype(frame[column]):
            frame[column] = frame[column].round(9)
    keys = frame.map(repr)
    order = np.lexsort([keys[c].to_numpy() for c in reversed(keys.columns)]) if len(
        keys.columns) else np.arange(len(frame))
    return frame.iloc[order].reset_index(drop=True)


def assert_equal(got: Any, expected: Any, what: str) -> None:
    if isinstance(expected, dict):
        assert got.keys() == expected.keys(), what
        for key in expected:
            assert_equal(got[key], expected[key], f"{what} [{key}]")
    elif isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-9, obj=what)
    elif isinstance(expected, float) and math.isnan(expected):  # no rows: no mean
        assert isinstance(got, float) and math.isnan(got), what
    else:
        assert got == expected, what


def compare_questions(ours: duckdb.DuckDBPyConnection, theirs: duckdb.DuckDBPyConnection
                      ) -> tuple[int, list[str]]:
    """Ask every question of ``ours`` (a lake, say) and ``theirs`` (the database): the
    number of calls and what differed (empty when every answer is the same)."""
    hand_id = int(theirs.execute("SELECT min(hand_id) FROM allin_results").fetchall()[0][0])
    sessions = {game: stat_views.player_sessions(theirs, HandFilter(), game=game, limit=1)
                .iloc[0].to_dict() for game in ("seveneight", "bigtwo", "rummoli")}
    asked, different = 0, []
    for name, function in questions():
        for arguments, keywords in calls(function, hand_id, sessions):
            what = f"{name}{arguments}{keywords}"
            try:
                assert_equal(canonical(function(ours, *arguments, **keywords)),
                             canonical(function(theirs, *arguments, **keywords)), what)
            except AssertionError as error:
                different.append(str(error))
            asked += 1
    return asked, different
