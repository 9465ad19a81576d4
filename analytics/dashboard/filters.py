"""Filter state <-> URL query parameters, and the choices the filters offer.

A view is shared by its URL: ``?game=seveneight&player=Ann&player=Bo&from=2026-01-01``.
:func:`from_params` reads a query-parameter mapping (as ``st.query_params``
gives it) into a :class:`~analytics.warehouse.sql.views.HandFilter`, ignoring what
it cannot use (an unknown game, a malformed date) rather than failing, since
URLs are typed, pasted and truncated by people; :func:`to_params` writes one
back.  Plain functions: the Streamlit widgets live in :mod:`analytics.dashboard.ui`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

import pandas as pd

from analytics.warehouse.sql.views import KNOBS, HandFilter
from parsers.rule_options import Game

__all__ = ["FILTER_KEYS", "MAX_QUERY_CHARS", "MAX_VALUE_CHARS", "Options", "bounded_params",
           "fits_url", "from_params", "in_reading_order", "options_from_frame",
           "oversize_keys", "to_params"]

FILTER_KEYS: Final = ("game", "player", "from", "to", "session", "knob", "stakes")
"""The query parameters the filters own; pages may add others (``hand``, ``pot_game``)."""

ParamValue = str | list[str]

MAX_VALUE_CHARS: Final = 256
"""The longest query value (URL-encoded) the dashboard reads or writes.  Names, days,
session ids and knobs are far shorter; a longer value was not written by the dashboard."""

MAX_QUERY_CHARS: Final = 6000
"""What the filters may add to a URL (URL-encoded).  The server answers a request line over
about 16 KB with "Invalid HTTP request", so a link the dashboard writes stays well below."""

_LABELS: Final = {"game": "game", "player": "player", "from": "first day", "to": "last day",
                  "session": "session", "knob": "rule knob", "stakes": "stakes"}


def _encoded(key: str, value: str) -> int:
    """Characters ``&key=value`` takes in a URL."""
    return len(key) + len(quote(value, safe="")) + 2


def fits_url(value: str) -> bool:
    """True when a value is short enough to write into the URL (:data:`MAX_VALUE_CHARS`)."""
    return len(quote(value, safe="")) <= MAX_VALUE_CHARS


def oversize_keys(params: Mapping[str, ParamValue]) -> tuple[str, ...]:
    """The filter keys of ``params`` with a value over :data:`MAX_VALUE_CHARS` (which
    :func:`from_params` ignores): to tell the user their link was cut or tampered with."""
    return tuple(key for key in FILTER_KEYS
                 if any(not fits_url(value) for value in _all(params, key)))


def bounded_params(params: Mapping[str, ParamValue]
                   ) -> tuple[dict[str, ParamValue], tuple[str, ...]]:
    """``params`` (from :func:`to_params`) cut to fit a URL, and a notice for each cut.

    A value over :data:`MAX_VALUE_CHARS` is left out; list values (players, knobs) are kept
    in order while the whole stays within :data:`MAX_QUERY_CHARS`.  The page itself still
    uses the full filter: only the link (to share or reload) is shorter.
    """
    budget = MAX_QUERY_CHARS
    kept: dict[str, ParamValue] = {}
    notices: list[str] = []
    for key, value in params.items():
        values = [value] if isinstance(value, str) else list(value)
        fitting = []
        for item in values:
            size = _encoded(key, item)
            if fits_url(item) and size <= budget:
                fitting.append(item)
                budget -= size
        label = _LABELS.get(key, key)
        if len(fitting) < len(values):
            if isinstance(value, str):
                notices.append(f"The {label} is too long for the link: the link leaves it "
                               "out (this page still uses it).")
            else:
                notices.append(f"The link holds {len(fitting):,} of the {len(values):,} "
                               f"{label}s chosen (a link holds a few KB); this page uses "
                               "them all.")
        if fitting:
            kept[key] = fitting[0] if isinstance(value, str) else fitting
    return kept, tuple(notices)


def _all(params: Mapping[str, ParamValue], key: str) -> list[str]:
    value = params.get(key)
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _usable(params: Mapping[str, ParamValue], key: str) -> list[str]:
    """The key's values that the dashboard could have written (not over the size bound)."""
    return [v for v in _all(params, key) if fits_url(v)]


def _first(params: Mapping[str, ParamValue], key: str) -> str | None:
    values = [v for v in _usable(params, key) if v != ""]
    return values[-1] if values else None


def _day(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def from_params(params: Mapping[str, ParamValue]) -> HandFilter:
    """The filter a URL's query parameters describe (unusable values are dropped)."""
    game = _first(params, "game")
    if game not in {g.value for g in Game}:
        game = None
    players = tuple(dict.fromkeys(p for p in _usable(params, "player") if p))
    knobs = []
    for text in _usable(params, "knob"):
        name, sep, value = text.partition("=")
        if sep and name in KNOBS and value:
            knobs.append((name, value))
    start, end = _day(_first(params, "from")), _day(_first(params, "to"))
    if start is not None and end is not None and start > end:
        start, end = end, start
    return HandFilter(game=game, players=players, date_from=start, date_to=end,
                      session=_first(params, "session"), knobs=tuple(knobs),
                      stakes=_first(params, "stakes"))


def to_params(f: HandFilter) -> dict[str, ParamValue]:
    """The query parameters for a filter (only the fields that filter)."""
    params: dict[str, ParamValue] = {}
    if f.game:
        params["game"] = f.game
    if f.players:
        params["player"] = list(f.players)
    if f.date_from:
        params["from"] = f.date_from.isoformat()
    if f.date_to:
        params["to"] = f.date_to.isoformat()
    if f.session:
        params["session"] = f.session
    if f.knobs:
        params["knob"] = [f"{name}={value}" for name, value in f.knobs]
    if f.stakes:
        params["stakes"] = f.stakes
    return params


@dataclass(frozen=True, slots=True)
class Options:
    """What each filter can choose from (from
    :func:`analytics.warehouse.sql.views.filter_options`)."""

    games: tuple[str, ...]
    players: tuple[str, ...]
    sessions: tuple[str, ...]
    stakes: tuple[str, ...]
    knobs: tuple[str, ...]  # "name=value"
    first_day: dt.date | None
    last_day: dt.date | None


def options_from_frame(frame: pd.DataFrame) -> Options:
    """Turn the ``kind``/``value`` rows of ``filter_options`` into :class:`Options`.

    Knob choices come from every distinct rule set: each knob with each value seen.
    """
    # One pass over plain lists: masking the frame once per kind cost tens of milliseconds
    # at 1,000,000 hands (2,000 sessions), on every script run.
    by_kind: dict[str, list[str]] = {}
    for kind, value in zip(frame["kind"].tolist(), frame["value"].tolist(), strict=True):
        if value is not None and not pd.isna(value):
            by_kind.setdefault(str(kind), []).append(str(value))

    def values(kind: str) -> tuple[str, ...]:
        return tuple(sorted(by_kind.get(kind, ())))

    knobs: set[str] = {f"variant={v}" for v in values("variant")}
    for text in values("rules"):
        for name, value in json.loads(text).items():
            if name in KNOBS:
                shown = json.dumps(value) if isinstance(value, bool) else str(value)
                knobs.add(f"{name}={shown}")
    first, last = values("first_day"), values("last_day")
    return Options(values("game"), values("player"), values("session"), values("stakes"),
                   tuple(sorted(knobs)), _day(first[0]) if first else None,
                   _day(last[0]) if last else None)


def in_reading_order(texts: Iterable[str], words: Callable[[str], str]) -> list[str]:
    """``texts`` sorted by how ``views.knob_choice`` or ``views.stakes_choice`` (``words``)
    shows them, numbers by value: ``ante = 2`` before ``ante = 10``, ``big blind 2``
    before ``big blind 10`` (a sort by text put them the other way)."""
    def key(text: str) -> list[tuple[int, int | str]]:
        return [(0, int(part)) if part.isdigit() else (1, part)
                for part in re.split(r"(\d+)", words(text))]

    return sorted(texts, key=key)
