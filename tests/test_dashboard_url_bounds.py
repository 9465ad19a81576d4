"""Links stay short enough for the server (issue #26.3): a URL over about 16 KB is answered
with "Invalid HTTP request", so the dashboard never writes one, and ignores (with a
notice) a value it could not have written."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from urllib.parse import urlencode

import pytest
from streamlit.testing.v1 import AppTest

from analytics.dashboard import filters
from analytics.warehouse import ENV_VAR
from analytics.warehouse.sql.views import HandFilter
from tests.test_dashboard_app import APP, TIMEOUT
from tests.test_dashboard_data import dashboard_db

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest


def _run(**params: str) -> AppTest:
    """The app's first page run with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _url_chars(params: dict[str, filters.ParamValue]) -> int:
    return len(urlencode(params, doseq=True))


def test_a_thousand_players_make_a_link_of_a_few_kb_with_a_notice() -> None:
    players = tuple(f"Player number {n:04d} of the club" for n in range(1000))
    chosen = HandFilter(game="seveneight", players=players, date_from=dt.date(2026, 1, 2))
    full = filters.to_params(chosen)
    assert _url_chars(full) > 16 * 1024  # what the dashboard used to write
    kept, notices = filters.bounded_params(full)
    assert _url_chars(kept) <= filters.MAX_QUERY_CHARS < 16 * 1024
    assert kept["game"] == "seveneight" and kept["from"] == "2026-01-02"
    held = kept["player"]
    assert isinstance(held, list) and 0 < len(held) < 1000
    assert held == list(players[:len(held)])  # the first ones, in order
    (notice,) = notices
    assert f"holds {len(held):,} of the 1,000 players" in notice


def test_an_oversize_single_value_is_left_out_with_a_notice() -> None:
    long_session = "x" * 20_000
    kept, notices = filters.bounded_params(
        filters.to_params(HandFilter(game="rummoli", session=long_session)))
    assert kept == {"game": "rummoli"}
    assert notices == ("The session is too long for the link: the link leaves it out "
                       "(this page still uses it).",)


def test_short_links_are_kept_whole_without_notice() -> None:
    params = filters.to_params(HandFilter(game="bigtwo", players=("Ann", "Bo"),
                                          knobs=(("scoring", "cards"),), stakes="N78 min 2"))
    assert filters.bounded_params(params) == (params, ())


def test_oversize_values_in_a_link_are_ignored_and_named() -> None:
    params: dict[str, filters.ParamValue] = {
        "game": "bigtwo", "player": ["Ann", "B" * 5000], "session": "s" * 300}
    assert filters.from_params(params) == HandFilter(game="bigtwo", players=("Ann",))
    assert filters.oversize_keys(params) == ("player", "session")
    assert filters.oversize_keys({"game": "bigtwo", "player": "Ann"}) == ()


def test_non_ascii_values_are_measured_as_the_url_carries_them() -> None:
    # A character of a name takes up to 9 characters in the URL (%XX per UTF-8 byte).
    name = "Zoë" * 30  # 90 characters, 120 bytes, 150 encoded
    assert filters.fits_url(name)
    assert not filters.fits_url("ë" * 50)  # 50 characters, 300 encoded


def test_the_app_ignores_an_oversize_value_and_says_so(
        dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    at = _run(session="s" * 20_000, game="bigtwo")
    warnings = [w.value for w in at.sidebar.warning]
    assert any("'session'" in text and "ignored" in text for text in warnings), warnings
    assert at.selectbox(key="f_session").value == ""  # all sessions: the value was dropped
    assert at.selectbox(key="f_game").value == "bigtwo"


def test_the_app_writes_a_bounded_link_with_a_notice(
        dashboard_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    monkeypatch.setattr(filters, "MAX_QUERY_CHARS", 40)  # a few names fill this link
    at = _run()
    players = at.multiselect(key="f_players").options[:4]
    at.multiselect(key="f_players").set_value(players).run()
    assert not at.exception
    value = at.query_params["player"]
    linked = [value] if isinstance(value, str) else list(value)
    assert 0 < len(linked) < 4 and linked == players[:len(linked)]
    notices = [c.value for c in at.sidebar.caption]
    assert any(f"holds {len(linked)} of the 4 players" in text for text in notices), notices
