"""Issue #27: every number the dashboard shows is right, in its unit, under a human label.

One test per defect the issue lists (1-5, 7-9), on the pages as Streamlit draws them
(AppTest over the shared test warehouse) or on the logic they call; each failed before the
fix.  tests/test_audit.py checks every table and chart against hand-worked values.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any, cast

import duckdb
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.dashboard import charts, logic
from analytics.dashboard.logic import WIN_RATE_VIEWS
from analytics.warehouse import ENV_VAR
from analytics.warehouse.identity import hand_id_hex
from parsers.rule_options import GAME_NAMES
from tests.test_dashboard_app import open_app, show_view
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = "analytics/dashboard/pages"
GAME_OF_NAME = {name: game for game, name in GAME_NAMES.items()}
"""A tab's label (the game's name) -> the game."""


@pytest.fixture
def db(dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    return dashboard_db


def _tab(at: AppTest, label: str) -> AppTest:
    at.query_params["tab"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _one(db: Path, sql: str) -> Any:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


def _figures(at: AppTest) -> list[dict[str, Any]]:
    """The plotly figures drawn, as the JSON the browser gets."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _figure(at: AppTest, title: str) -> dict[str, Any]:
    for figure in _figures(at):
        if str(figure["layout"]["title"]["text"]).startswith(title):
            return figure
    raise AssertionError(f"no chart {title!r}")


def _values(trace: dict[str, Any], axis: str) -> list[Any]:
    """A trace's x or y values (plotly may ship numbers as a typed array)."""
    values = trace.get(axis, [])
    if isinstance(values, dict) and "bdata" in values:
        import base64

        import numpy as np

        return list(np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]))
    return list(values)


def test_1_pot_growth_expected_never_below_zero(db: Path) -> None:
    # The finales that take pots off the board are stored as won by the finale's winner
    # (migration 17): no antes below zero, which once dragged the expected growth below 0.
    assert _one(db, "SELECT count(*) FROM pot_facts WHERE amount > 0 AND hand_id IN "
                    "(SELECT hand_id FROM hands WHERE finale_pot IS NOT NULL)") > 0
    assert _one(db, "SELECT count(*) FROM pot_facts WHERE antes < 0") == 0
    at = open_app("pots", pots_view=logic.POT_VIEWS[2])
    figure = _figure(at, "Pot growth: observed against expected")
    expected = [trace for trace in figure["data"] if trace["name"].endswith("expected")]
    assert expected
    assert min(min(_values(trace, "y")) for trace in expected) >= 0
    rate = _one(db, "SELECT avg(antes) FROM pot_facts WHERE pot = 'TS' AND antes > 0")
    ts = next(t for t in expected if t["name"] == "10♠ expected")
    for since, value in zip(_values(ts, "x"), _values(ts, "y"), strict=True):
        assert value == pytest.approx(since * rate)


def test_2_every_rank_turned_up_is_on_the_axis(db: Path) -> None:
    at = show_view(open_app("win_rates"), "By the card turned up")
    figure = _figure(at, "By the card turned up")
    axis = figure["layout"]["xaxis"]
    assert axis["type"] == "category"
    assert axis["categoryarray"] == list("23456789TJQKA")
    shown = set(_values(figure["data"][0], "x"))
    turned = {row for row in "23456789TJQKA"
              if _one(db, f"SELECT count(*) FROM seat_facts WHERE up_rank = '{row}'")}
    assert {"T", "J", "Q", "K", "A"} & turned
    assert turned <= shown


def test_3_big_two_places_count_every_game(db: Path) -> None:
    at = show_view(_tab(open_app("win_rates"), "Big Two"), "Places and cards left", "bigtwo")
    figure = _figure(at, "Games by finishing place")
    total = sum(sum(_values(trace, "y")) for trace in figure["data"])
    assert total == _one(db, "SELECT count(*) FROM seats WHERE game = 'bigtwo'")
    names = [trace["name"] for trace in figure["data"]]
    assert names[-1] == logic.NOT_OUT and names[0] == "1st"
    assert logic.NOT_OUT in " ".join(c.value for c in at.caption)


def test_4_replayer_shows_what_each_game_has(db: Path) -> None:
    bigtwo = _one(db, "SELECT min(hand_id) FROM hands WHERE game = 'bigtwo'")
    at = open_app("replayer", hand=hand_id_hex(bigtwo))
    html = str(at.get("html")[0].proto.body)
    assert "stack" not in html and "put in" not in html and "result (points)" in html
    captions = " ".join(c.value for c in at.caption)
    assert "Deal features" in captions and "Stored equities" not in captions
    # A Rummoli round's winner: his chips put in are never negative.
    rummoli = _one(db, "SELECT hand_id FROM seats WHERE game = 'rummoli' "
                       "ORDER BY net DESC, hand_id LIMIT 1")
    at = open_app("replayer", hand=hand_id_hex(rummoli))
    html = str(at.get("html")[0].proto.body)
    assert "put in (chips)" in html and "result (chips)" in html
    steps = next(f.value for f in at.dataframe if "step" in f.value.columns)
    put_in = steps[[c for c in steps.columns if c.endswith("put in (chips)")]]
    assert (put_in.fillna(0) >= 0).all().all()


@pytest.mark.slow
def test_4_seveneight_put_in_leaves_out_the_returned_bet(db: Path) -> None:
    from analytics.dashboard.replayer import hand_from_detail, replay_steps
    from analytics.rules import replay
    from analytics.warehouse import reader
    from analytics.warehouse.sql import views

    with reader(db) as con:
        ids = [r[0] for r in con.execute("SELECT hand_id FROM hands WHERE game = "
                                         "'seveneight' ORDER BY hand_id").fetchall()]
        checked = 0
        for hand_id in ids:
            hand = hand_from_detail(views.hand_detail(con, hand_id))
            outcome = replay(hand)
            returned = cast("tuple[int, ...]", outcome.extra["refunds"])
            if not any(returned):
                continue
            paid = cast("tuple[int, ...]", outcome.extra["contributions"])
            settled = replay_steps(hand)[-1]
            assert settled.committed == tuple(
                p - r for p, r in zip(paid, returned, strict=True))
            checked += 1
    assert checked > 0


def test_5_hand_ids_are_short_copyable_and_open_from_the_url(db: Path) -> None:
    hand_id = _one(db, "SELECT min(hand_id) FROM hands WHERE game = 'seveneight'")
    short = hand_id_hex(hand_id)
    assert re.fullmatch(r"[0-9a-f]{16}", short)
    at = open_app("replayer", hand=short)
    assert at.selectbox(key="replayer_hand").value == hand_id
    assert at.query_params["hand"] == short
    assert short in " ".join(c.value for c in at.caption)
    labels = " ".join(at.selectbox(key="replayer_hand").options)
    assert "#-" not in labels and re.search(r"· [0-9a-f]{16}\b", labels)
    old_link = open_app("replayer", hand=str(hand_id))  # links made before keep working
    assert old_link.selectbox(key="replayer_hand").value == hand_id
    assert old_link.query_params["hand"] == short


def _headers(at: AppTest) -> list[str]:
    return [str(c) for frame in at.dataframe for c in frame.value.columns]


def test_7_units_never_mix(db: Path) -> None:
    at = open_app()
    players = []
    for label in ("7 & 8", "Big Two", "Rummoli"):  # a tab per game, each in its own unit
        at.session_state["overview_players"] = label
        at.run()
        shown = [f.value for f in at.dataframe if "player" in f.value.columns]
        assert len(shown) == 1, label
        players.append(shown[0])
        assert not any(c in ("mean", "mean per hand") for c in _headers(at))
    assert "big blinds per 100 hands" in players[0].columns
    assert "points per game" in players[1].columns and "scoring rule" in players[1].columns
    assert "chips per round" in players[2].columns and "stakes and ante" in players[2].columns
    assert not any(c in ("mean", "mean per hand") for c in _headers(at))
    at = open_app("win_rates")
    first = at.dataframe[0].value
    assert list(first.columns)[:4] == ["player", "hands", "net (big blinds)",
                                       "big blinds per 100 hands"]
    levels = next(f.value for f in at.dataframe if "stakes" in f.value.columns)
    assert "chips per hand" in levels.columns
    assert levels.groupby(["stakes", "player"]).size().max() == 1


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an ``#rrggbb`` sRGB colour."""
    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_8_palette_colours_read_apart() -> None:
    """No two colours of the palette read as one in a legend: at least 20 apart (CIE76;
    about 2.3 is the smallest difference seen)."""
    closest = min(math.dist(_lab(a), _lab(b))
                  for a, b in itertools.combinations(charts.PALETTE, 2))
    assert closest >= 20
    assert len(set(charts.PALETTE)) == len(charts.PALETTE) >= 16


def test_8_player_colours_are_distinct_and_stable() -> None:
    names = [f"Player {n}" for n in range(16)]
    colours = charts.player_colours(names)
    assert len(set(colours.values())) == 16
    assert charts.player_colours(reversed(names)) == colours
    # A player keeps his colour on a chart of fewer players unless two of them collide.
    alone = charts.player_colours(["Player 3"])
    assert alone["Player 3"] == charts.PALETTE[
        __import__("zlib").crc32(b"Player 3") % len(charts.PALETTE)]
    totals = pd.DataFrame({"player": names, "hands": range(100, 116),
                           "net": [-500] + [5] * 15})
    chosen = logic.default_players(totals, most=8)
    assert "Player 0" in chosen  # the biggest loser, with the fewest hands
    assert len(chosen) == 9


def test_8_a_players_colour_is_his_on_every_chart_of_the_database() -> None:
    """Over the database's players (17 here, the samples'), a player has one colour on
    every chart whoever else it draws, as the dashboard and the report draw them
    (charts.as_drawn); without the roster, two charts of different players gave
    Gus, Dee, Ned and Quin different colours."""
    roster = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim",
              "Lu", "Max", "Ned", "Ora", "Pia", "Quin"]
    bars = pd.DataFrame({"player": roster[3:], "mean": 1.0, "ci_low": 0.0, "ci_high": 2.0,
                         "hands": 10})
    curves = pd.DataFrame({"player": ["Gus", "Dee", "Ned", "Quin", "Ann"], "hand_no": 1,
                           "actual": 1.0, "adjusted": 1.0})
    per_player = charts.as_drawn(
        charts.bar_with_ci(bars, x="player", title="per player"), roster)
    running = charts.as_drawn(charts.cumulative(curves), roster)
    bar_colours = dict(zip(per_player.data[0].x, per_player.data[0].marker.color,
                           strict=True))
    line_colours = {trace.name: trace.line.color for trace in running.data}
    assert len(set(bar_colours.values())) == len(bar_colours)  # distinct within a chart
    assert len(set(line_colours.values())) == len(line_colours)
    assert all(line_colours[name] == bar_colours[name] for name in line_colours if
               name in bar_colours)
    everyone = charts.player_colours(roster, roster)
    assert bar_colours == {name: everyone[name] for name in roster[3:]}
    assert len(set(everyone.values())) == len(roster)


def test_8_a_pot_has_one_colour_on_every_chart_of_the_pots() -> None:
    """The carry-over bars, the growth chart (observed and expected alike) and the board
    give each pot one colour, nine pots nine colours (the growth chart cycled plotly's ten
    colours over its 18 traces: poker and A♠ both blue)."""
    pots = ["poker", "TS", "AS", "AKD", "rummoli"]
    streaks = charts.streak_lengths(pd.DataFrame({"pot": pots, "since": 1, "rounds": 3}))
    growth = charts.pot_growth(pd.DataFrame({"pot": pots, "since": 1,
                                             "mean_before_paid": 2.0, "expected": 2.0}))
    board = charts.board_areas(pd.DataFrame({"pot": pots, "round": 1, "chips": 4}), "g1")
    bars = {trace.name: trace.marker.color for trace in streaks.data}
    assert len(set(bars.values())) == len(pots)
    for trace in growth.data:
        pot = trace.name.rsplit(" ", 1)[0]
        colour = trace.marker.color if trace.mode == "markers" else trace.line.color
        assert colour == bars[pot], trace.name
    assert {trace.name: trace.line.color for trace in board.data} == bars
    assert len(set(charts.POT_COLOURS.values())) == 9


def test_8_cumulative_chart_says_how_many_and_lets_the_user_choose(db: Path) -> None:
    at = show_view(open_app("win_rates"), "Running totals")
    figure = _figure(at, "Cumulative big blinds")
    players = _one(db, "SELECT count(DISTINCT player) FROM seats WHERE game = 'seveneight'")
    match = re.search(r"showing (\d+) of (\d+) players", figure["layout"]["title"]["text"])
    assert match is not None and int(match.group(2)) == players
    picker = at.multiselect(key="cum_players_seveneight")
    first = picker.value[0]
    picker.unselect(first).run()
    assert not at.exception
    figure = _figure(at, "Cumulative big blinds")
    assert first not in {trace["name"] for trace in figure["data"]}
    lines = [t for t in figure["data"] if "adjusted" not in t["name"]]
    assert len({t["line"]["color"] for t in lines}) == len(lines)


@pytest.mark.slow
def test_9_tables_show_no_internals(db: Path) -> None:
    for page, tabs in (("overview", ()), ("win_rates", ("7 & 8", "Big Two", "Rummoli")),
                       ("pots", ()), ("hand_types", ("7 & 8", "Big Two", "Rummoli"))):
        at = open_app(None if page == "overview" else page)
        # The first tab (7 & 8) as opened, then each other tab; on Win rates each part of
        # each tab.
        frames = [f.value for f in at.dataframe]
        for number, label in enumerate(tabs):
            if number:
                frames += [f.value for f in _tab(at, label).dataframe]
            if page == "win_rates":
                game = GAME_OF_NAME[label]
                frames += [f.value for view in WIN_RATE_VIEWS[game][1:]
                           for f in show_view(at, view, game).dataframe]
        if page == "pots":
            for view in logic.POT_VIEWS[1:]:
                at.segmented_control(key="pots_view").set_value(view).run()
                frames += [f.value for f in at.dataframe]
        for frame in frames:
            for column in frame.columns:
                assert not re.search(r"ci_low|ci_high|luck_std_error|sha256|_share\b|"
                                     r"^mean$|^sd$", str(column)), (page, column)
                values = frame[column]
                if pd.api.types.is_float_dtype(values.dtype):  # small ones: 2 digits
                    shown = values.dropna()
                    assert (logic.rounded(shown, 4) == shown).all(), column
            assert "00:00:00" not in frame.to_string(), page
    at = open_app()
    files = str(at.get("html")[0].proto.body)
    path = _one(db, "SELECT min(path) FROM files")
    assert f'title="{path}"' in files
    assert f">{Path(path).name}<" in files and f">{path}<" not in files
    assert "sha256" not in files


@pytest.mark.slow
def test_7_big_two_and_rummoli_show_one_level_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the audit histories (Big Two under three scoring rules, Rummoli at antes 1 and
    2) a picker chooses the level, and every table of the tab is of that level alone."""
    from analytics.warehouse import ingest

    audit = Path(__file__).resolve().parent / "data" / "audit"
    db = tmp_path / "audit.duckdb"
    ingest([audit / "bigtwo.phhs", audit / "rummoli.phhs"], db, workers=0)
    monkeypatch.setenv(ENV_VAR, str(db))
    at = _tab(open_app("win_rates"), "Big Two")
    picker = at.selectbox(key="level_bigtwo")
    assert picker.options == ["cards left", "cards left, 2s double", "finishing order"]
    picker.select("scoring rank").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["scoring rule"]) == {"finishing order"}
    assert int(table["games"].sum()) == _one(
        db, "SELECT count(*) FROM seat_facts WHERE game = 'bigtwo' "
            "AND json_extract_string(rules, '$.scoring') = 'rank'")
    # Rank scoring has no points: its results are games won, its mean the win fraction.
    assert "net (points)" not in table.columns
    assert int(table["games won"].sum()) == _one(
        db, "SELECT count(*) FROM seat_facts WHERE game = 'bigtwo' AND winner "
            "AND json_extract_string(rules, '$.scoring') = 'rank'")
    figure = next(f for f in _figures(at)
                  if f["layout"]["title"]["text"] == "Win rate per player (scoring: "
                                                     "finishing order)")
    assert figure["layout"]["yaxis"]["title"]["text"] == "win fraction"
    places = next(f.value for f in show_view(at, "Places and cards left", "bigtwo").dataframe
                  if "finishing place" in f.value.columns)
    assert int(places["games"].sum()) == int(table["games"].sum())
    # The score keeper's summary scores every rule's games that count cards left: no
    # scoring rule picker there (it would seem to narrow what it does not).
    show_view(at, "Score keeper", "bigtwo")
    assert "level_bigtwo" not in {box.key for box in at.selectbox}
    assert any("real losses" in " ".join(f.value.columns) for f in at.dataframe)
    at = _tab(at, "Rummoli")
    picker = at.selectbox(key="level_rummoli")
    two = "no limit, minimum bet 1, ante 2"
    assert picker.options == ["no limit, minimum bet 1, ante 1", two]
    picker.select("NRM min 1 ante 2").run()
    table = at.dataframe[0].value
    assert set(table["stakes and ante"]) == {two}
    split = next(f.value for f in show_view(at, "Where the chips came from", "rummoli").dataframe
                 if "net (chips per round)" in f.value.columns)
    assert int(split["rounds"].sum()) == int(table["rounds"].sum()) == _one(
        db, "SELECT count(*) FROM seat_facts WHERE game = 'rummoli' "
            "AND json_extract_string(rules, '$.ante') = '2'")
    # Pot accumulation: who wins the pots and their growth, one stakes and ante at a time
    # (it added the antes' rounds and chips together).
    pots = open_app("pots", pots_view=logic.POT_VIEWS[1])
    picker = pots.selectbox(key="pots_level")
    assert picker.options == ["no limit, minimum bet 1, ante 1", two]
    picker.select("NRM min 1 ante 2").run()
    assert not pots.exception, [e.value for e in pots.exception]
    won = pots.dataframe[0].value.set_index("pot")["rounds played for it"]
    assert int(won["10♠"]) == _one(
        db, "SELECT count(*) FROM hands WHERE game = 'rummoli' AND finale_pot IS NULL "
            "AND json_extract_string(rules, '$.ante') = '2'")
    growth = open_app("pots", pots_view=logic.POT_VIEWS[2])
    growth.selectbox(key="pots_level").select("NRM min 1 ante 2").run()
    rate = _one(db, "SELECT avg(p.antes) FROM pot_facts p JOIN hands h USING (hand_id) "
                    "WHERE p.pot = 'TS' AND p.antes > 0 "
                    "AND json_extract_string(h.rules, '$.ante') = '2'")
    ts = next(t for t in _figure(growth, "Pot growth: observed against expected")["data"]
              if t["name"] == "10♠ expected")
    for since, value in zip(_values(ts, "x"), _values(ts, "y"), strict=True):
        assert value == pytest.approx(since * rate)
