"""The Streamlit side shared by every page: database, cached questions, filters, downloads.

* :func:`start` runs at the top of every script run (from ``app.py``): makes sure
  the database exists (built from the bundled samples on first start), reads the
  data version, draws the sidebar filters and keeps them in the URL.
* :func:`ask` answers a question of :mod:`analytics.warehouse.sql.views` (or of
  :mod:`analytics.warehouse.sql.equity_views`, over the stored equities) through
  ``st.cache_data`` keyed by the question, the filter, its arguments and the data
  version, so a repeated view is instant and an upload shows everywhere at once.
* :func:`run_connection` (around each script run, in ``app.py``) gives the run's
  uncached questions one read-only connection, opened at the first and closed when
  the run ends: opening a DuckDB database costs tens of milliseconds of CPU and a
  cold page asks 5-8 questions.  It is never held between runs, so a writer (the
  command line's ingest, another session's upload) gets the file between them;
  :func:`release_connection` lets go of it before this run writes (an upload).
* :func:`guarded` turns "an ingest holds the database" into a friendly
  retrying notice instead of a traceback.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import duckdb
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics import reports
from analytics.dashboard import charts, filters, logic
from analytics.record.journal import JournalError
from analytics.record.lock import TableBusy
from analytics.warehouse import (
    WarehouseBusy,
    WarehouseError,
    ensure_database,
    open_reader,
    reader,
    resolve_db,
    writer,
)
from analytics.warehouse.connection import LAKE_ENV_VAR, current_version
from analytics.warehouse.sql import equity_views, scores, stat_views, views
from analytics.warehouse.sql.schema import LATEST_VERSION
from analytics.warehouse.sql.views import HandFilter, knob_choice, stakes_choice
from analytics.words import counted
from parsers.caching import BoundedCache
from parsers.rule_options import GAME_NAMES

__all__ = ["Context", "ask", "context", "data_version", "dataframe", "download_buttons", "guarded",
           "literal", "plotly_chart", "reading", "release_connection", "report_button",
           "run_connection", "shown_part", "shown_tab", "start"]

_SCORE_QUESTIONS: Final = frozenset({"bigtwo_score_summary", "outcome_only_games",
                                     "seats_per_game"})
"""The questions of :mod:`analytics.warehouse.sql.scores` (Big Two as a score keeper counts it)."""
# The question modules, first match wins (a question is a public function of one of them).
_MODULES: Final = (views, equity_views, stat_views, scores)
_QUESTIONS: Final = frozenset(name for module in _MODULES[:-1] for name in module.__all__
                              ) | _SCORE_QUESTIONS
# Questions about the whole database or one hand: no filter argument.
_UNFILTERED: Final = frozenset({"current_hand_id", "hand_detail", "filter_options",
                                "data_version", "rejects", "rejects_by_file",
                                "hand_equities"})
_RETRY_SECONDS: Final = 2.0
_MAX_RETRIES: Final = 30
_CTX_KEY: Final = "_handlab_context"


MARKDOWN_ACTIVE: Final = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&])")
"""The characters Markdown (and Streamlit's ``:color[...]``, ``$math$``; ``&`` starts an
entity) acts on."""


def plotly_chart(figure: go.Figure, **options: Any) -> Any:
    """``st.plotly_chart`` of ``figure`` as :func:`~analytics.dashboard.charts.as_drawn`
    draws it over the filters' players (each in his colour, words as written): every page
    draws its charts here.  Its answer (a click's selection) is ``st.plotly_chart``'s,
    read with ``hand_list``'s pickers against ``figure``."""
    ctx = st.session_state.get(_CTX_KEY)
    roster = ctx.options.players if isinstance(ctx, Context) else ()
    return st.plotly_chart(charts.as_drawn(figure, roster), **options)


WORD_JOINER: Final = "\u2060"
"""An invisible character that joins what is around it (Unicode's WORD JOINER)."""
AUTOLINK_STARTS: Final = re.compile(r"(?=\\://)|(?<=www)(?=\\\.)|(?=@)")
"""Where GitHub-flavoured Markdown (Streamlit's) starts a link in plain text: a scheme's
``://``, ``www.``, an e-mail's ``@`` (placed after the escapes)."""


def literal(text: object) -> str:
    """``text`` to be read as written inside ``st.markdown`` or ``st.caption``: every
    character Markdown acts on backslash-escaped.  For what people and files name (players,
    tables, tags, file names): a player named ``[Bo](https://...)`` is his name, not a
    link, and ``**Bo**`` is not bold.  An invisible word joiner goes where plain text would
    become a link (``https://``, ``www.``, ``@``): Streamlit's Markdown links a bare URL
    even when every character of it is escaped."""
    escaped = MARKDOWN_ACTIVE.sub(r"\\\1", str(text))
    return AUTOLINK_STARTS.sub(WORD_JOINER, escaped)


@dataclass(frozen=True, slots=True)
class Context:
    """What a page needs: the database, its data version and the current filter."""

    db: str
    version: tuple[int, str, int]
    filter: HandFilter
    options: filters.Options


@st.cache_resource(show_spinner="Preparing the database (a fresh checkout's first start "
                   "compiles the kernels and loads data/samples/: about a minute)…")
def _ensure(db: str) -> str:
    """Build the database from data/samples once per server process (if it does not exist),
    and migrate one an older handlab wrote: its readers refuse an older schema, so without
    this the dashboard stopped at a schema error until the next ``handlab ingest``
    (migration 8, on a million hands: seconds)."""
    path = ensure_database(db)
    if current_version(path) < LATEST_VERSION:
        with writer(path):
            pass  # the writer migrates on open
    return str(path)


class _RunReader:
    """The read connection a script run's questions share, opened at the first of them."""

    def __init__(self) -> None:
        self._db: str | None = None
        self._con: duckdb.DuckDBPyConnection | None = None

    def connection(self, db: str) -> duckdb.DuckDBPyConnection:
        """The open connection to ``db`` (opening it, and closing one to another file)."""
        if self._con is None or self._db != db:
            self.close()
            self._con = open_reader(db)
            self._db = db
        return self._con

    def close(self) -> None:
        """Close the connection if open; the next :meth:`connection` opens a new one."""
        con, self._con, self._db = self._con, None, None
        if con is not None:
            con.close()


# Per thread: Streamlit runs each session's script in a thread of its own.
_RUN = threading.local()


@contextmanager
def run_connection() -> Iterator[None]:
    """Share one read connection among the questions asked inside (one script run)."""
    previous: _RunReader | None = getattr(_RUN, "reader", None)
    shared = _RunReader()
    _RUN.reader = shared
    try:
        yield
    finally:
        _RUN.reader = previous
        shared.close()


def release_connection() -> None:
    """Close the run's shared read connection now, before this process writes to the file.

    DuckDB refuses to open a file read-write in a process that has it open read-only;
    a question asked afterwards opens a fresh connection.
    """
    shared: _RunReader | None = getattr(_RUN, "reader", None)
    if shared is not None:
        shared.close()


@contextmanager
def reading(db: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read connection for one question: a cursor of the run's shared connection inside
    :func:`run_connection`, else a connection of its own, closed on exit."""
    shared: _RunReader | None = getattr(_RUN, "reader", None)
    if shared is None:
        with reader(db) as con:
            yield con
        return
    # A cursor per question: its own transaction and prepared statements, no leftovers.
    cursor = shared.connection(db).cursor()
    try:
        yield cursor
    finally:
        cursor.close()


@st.cache_data(max_entries=1024, show_spinner=False)
def _cached(question: str, db: str, version: tuple[int, str, int], hand_filter: HandFilter,
            arguments: tuple[tuple[str, Any], ...]) -> Any:
    """One question's answer; ``version`` is only part of the cache key."""
    del version  # the key alone: a new version misses the cache and reads fresh data
    module = next(m for m in _MODULES if question in m.__all__)
    function = getattr(module, question)
    with reading(db) as con:
        if question in _UNFILTERED:
            return function(con, **dict(arguments))
        return function(con, hand_filter, **dict(arguments))


@st.cache_data(max_entries=16, show_spinner=False)
def _options(db: str, version: tuple[int, str, int]) -> filters.Options:
    """The filters' choices, kept as such: every script run draws the sidebar from them."""
    del version  # the key alone, as in _cached
    with reading(db) as con:
        return filters.options_from_frame(views.filter_options(con))


def ask(question: str, hand_filter: HandFilter | None = None, **arguments: Any) -> Any:
    """The answer to ``views.<question>(con, filter, **arguments)`` (or the same question
    of ``equity_views`` or ``stat_views``), cached by filter and data."""
    if question not in _QUESTIONS:
        raise ValueError(f"unknown question {question!r}")
    ctx = context()
    chosen = ctx.filter if hand_filter is None else hand_filter
    return _cached(question, ctx.db, ctx.version, chosen, tuple(sorted(arguments.items())))


def context() -> Context:
    """The current run's :class:`Context` (set by :func:`start`)."""
    ctx = st.session_state.get(_CTX_KEY)
    if not isinstance(ctx, Context):
        raise RuntimeError("ui.start() must run before a page (app.py calls it)")
    return ctx


@contextmanager
def guarded() -> Iterator[None]:
    """Show "database busy, retrying" and rerun shortly when a writer holds the database;
    say in words what is wrong with a database or lake that cannot be read at all (a
    folder, a file that is no DuckDB database, a newer schema, no lake there), with a
    recorded table's journal (its file and line) or why a table stayed busy, instead of
    Streamlit's redacted exception."""
    try:
        yield
    except WarehouseBusy as error:
        tries = int(st.session_state.get("_handlab_busy", 0)) + 1
        st.session_state["_handlab_busy"] = tries
        st.warning("The database is busy: an ingest is writing to it. "
                   f"Retrying in {_RETRY_SECONDS:.0f} s…", icon=":material/hourglass_top:")
        st.caption(f"Details: {literal(error)}")  # DuckDB's words and the file: small print
        if tries <= _MAX_RETRIES:
            time.sleep(_RETRY_SECONDS)
            st.rerun()
        st.button("Retry now")
    except WarehouseError as error:
        st.error(f"The dashboard cannot read its data: {literal(error)}",
                 icon=":material/error:")
        st.caption("Set HANDLAB_DB to a handlab database (or HANDLAB_LAKE to a lake), or "
                   "unset it: handlab serve builds data/handlab.duckdb from the samples.")
    except TableBusy as error:
        st.warning(f"The table is busy: {literal(error)}", icon=":material/hourglass_top:")
        st.button("Retry now")
    except JournalError as error:
        st.error(f"This table cannot be read back from its journal: {literal(error)}",
                 icon=":material/error:")
        st.caption("Nothing was changed: the journal stays as it is, and the other tables "
                   "are not affected.")
    else:
        st.session_state["_handlab_busy"] = 0


def _init_widgets(params: HandFilter, options: filters.Options) -> None:
    """Seed the filter widgets from the URL once per session (a shared link opens as sent).

    Later, when loaded data widens the span of days, a date left at the old edge
    moves to the new one, so the new hands are not filtered out.
    """
    state = st.session_state
    span = (options.first_day, options.last_day)
    if state.get("_handlab_filters_seeded"):
        old_first, old_last = state.get("_handlab_span", span)
        if span != (old_first, old_last):
            state["f_from"] = _moved(state.get("f_from"), old_first, span, options.first_day)
            state["f_to"] = _moved(state.get("f_to"), old_last, span, options.last_day)
        state["_handlab_span"] = span
        return
    state["_handlab_span"] = span
    state["f_game"] = params.game if params.game in options.games else "all games"
    state["f_players"] = [p for p in params.players if p in options.players]
    state["f_from"] = params.date_from or options.first_day
    state["f_to"] = params.date_to or options.last_day
    state["f_session"] = params.session or ""
    state["f_knobs"] = [f"{n}={v}" for n, v in params.knobs
                        if f"{n}={v}" in options.knobs]
    state["f_stakes"] = params.stakes if params.stakes in options.stakes else "all stakes"
    state["_handlab_filters_seeded"] = True


def _moved(value: object, old_edge: object, span: tuple[object, object], edge: object
           ) -> object:
    """A date widget's value after the data's span changed: an edge follows the edge, and a
    value outside the new span (which the widget would refuse) moves to it."""
    low, high = span
    if low is None or high is None or value is None or value == old_edge:
        return edge
    if not low <= value <= high:  # type: ignore[operator]
        return edge
    return value


def _sidebar(options: filters.Options) -> HandFilter:
    """The filter widgets; their values, as a filter (dates equal to the data's span do not
    filter, so new data outside the span still shows)."""
    state = st.session_state
    sidebar = st.sidebar
    sidebar.header("Filters")
    sidebar.selectbox("Game", ["all games", *options.games], key="f_game",
                      format_func=lambda g: GAME_NAMES.get(g, g))
    sidebar.multiselect("Players", list(options.players), key="f_players",
                        placeholder="all players")
    # One above the other: side by side in the sidebar's width the dates were cut off.
    sidebar.date_input("From", key="f_from", min_value=options.first_day,
                       max_value=options.last_day, format="YYYY-MM-DD")
    sidebar.date_input("To", key="f_to", min_value=options.first_day,
                       max_value=options.last_day, format="YYYY-MM-DD")
    sessions = ["", *options.sessions]
    if state.get("f_session") not in sessions:
        sessions.append(str(state.get("f_session")))
    sidebar.selectbox("Session or game id", sessions, key="f_session",
                      format_func=lambda s: s or "all sessions")
    sidebar.multiselect("House rules", filters.in_reading_order(options.knobs, knob_choice),
                        key="f_knobs", placeholder="any rules", format_func=knob_choice,
                        help="Only the hands played under every rule picked: a rule line of "
                             "the histories' headers and its value, after its game (Big "
                             "Two: scoring = cards is Big Two scored by the cards left; "
                             "docs/format.md).")
    sidebar.selectbox("Stakes", ["all stakes", *filters.in_reading_order(options.stakes,
                                                                          stakes_choice)],
                      key="f_stakes", format_func=lambda label: (
                          label if label == "all stakes" else stakes_choice(label)))
    picked = state.get("f_stakes")
    if picked not in (None, "all stakes"):  # the narrow box cuts "... 1" and "... 1 USD" alike
        sidebar.caption(stakes_choice(str(picked)))
    game = state.get("f_game")
    start, end = state.get("f_from"), state.get("f_to")
    knobs = tuple(tuple(k.split("=", 1)) for k in state.get("f_knobs", []))
    stakes = state.get("f_stakes")
    return HandFilter(
        game=None if game in (None, "all games") else str(game),
        players=tuple(state.get("f_players", [])),
        date_from=start if start and start != options.first_day else None,
        date_to=end if end and end != options.last_day else None,
        session=state.get("f_session") or None,
        knobs=tuple((n, v) for n, v in knobs),
        stakes=None if stakes in (None, "all stakes") else str(stakes))


def _sync_url(hand_filter: HandFilter) -> None:
    """Write the filter into the URL, keeping the page's own parameters (``hand``, ...);
    the link is kept short enough for the server (:func:`filters.bounded_params`), with a
    notice in the sidebar when it leaves something out."""
    wanted, notices = filters.bounded_params(filters.to_params(hand_filter))
    for notice in notices:
        st.sidebar.caption(f":material/link_off: {notice}")
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    for key in filters.FILTER_KEYS:
        value = wanted.get(key)
        have = current.get(key, [])
        target = [value] if isinstance(value, str) else list(value or [])
        if have != target:
            if target:
                st.query_params[key] = target if len(target) > 1 else target[0]
            elif key in st.query_params:
                del st.query_params[key]


_VERSIONS: Final = BoundedCache[str, tuple[tuple[int, ...], tuple[int, str, int]]](
    "analytics.dashboard.ui.data_versions", 64)
"""The data version last read per database, with the files' state it was read at."""


def _file_state(db: str) -> tuple[int, ...]:
    """The database file's and its write-ahead log's inode, size and change times: any
    commit, checkpoint or replaced file changes one of them."""
    state: list[int] = []
    for path in (db, f"{db}.wal"):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            state.extend((0, 0, 0, 0))
        else:
            state.extend((info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(state)


def data_version(db: str) -> tuple[int, str, int]:
    """``views.data_version`` of ``db``, read again only when the database's files changed
    since this process last read it: opening the database to ask was a third of a warm
    page's script run (docs/dashboard.md).  The state is taken before the question, so a
    write in between is seen at the next run."""
    state = _file_state(db)
    known = _VERSIONS.get(db)
    if known is not None and known[0] == state:
        return known[1]
    with reading(db) as con:
        version = views.data_version(con)
    _VERSIONS[db] = (state, version)
    return version


def start() -> Context:
    """Prepare the run: database, data version, filters (sidebar + URL); return the context."""
    db = _ensure(str(resolve_db()))
    version = data_version(db)
    options = _options(db, version)
    url = {key: st.query_params.get_all(key) for key in st.query_params}
    _init_widgets(filters.from_params(url), options)
    for key in filters.oversize_keys(url):
        st.sidebar.warning(f"The link's {key!r} value is too long to be one the dashboard "
                           "wrote: it is ignored.", icon=":material/link_off:")
    hand_filter = _sidebar(options)
    _sync_url(hand_filter)
    lake = os.environ.get(LAKE_ENV_VAR)
    where = f"Lake: `{Path(lake).name}`" if lake else f"Database: `{Path(db).name}`"
    st.sidebar.caption(f"{where} · {counted(version[0], 'file')} loaded")
    ctx = Context(db, version, hand_filter, options)
    st.session_state[_CTX_KEY] = ctx
    return ctx


Shown = TypeVar("Shown")


def shown_tab(items: Sequence[Shown], labels: Sequence[str], draw: Callable[[Shown], None], *,
              key: str, in_url: bool = True) -> None:
    """A tab per item, and ``draw`` of the shown tab's item only: tabs that track which one is
    open (bound to the URL, or rerunning on a change) skip the others' questions and
    drawing, a third of the work with three games."""
    tabs = (st.tabs(list(labels), key=key, bind="query-params") if in_url
            else st.tabs(list(labels), key=key, on_change="rerun"))
    for tab, item in zip(tabs, items, strict=True):
        if tab.open is False:
            continue
        with tab:
            draw(item)


def shown_part(parts: Sequence[str], *, key: str) -> str:
    """The part of a page (or of a tab) to draw, picked in a "Show" row above it and kept in
    the URL as ``key`` (the first part by default): one part at a time kept the Win rates
    tabs and Pot accumulation within their 1 s, where all their charts at once took up to
    2 s in the browser (docs/dashboard.md).  A link naming a part by its old name
    (``logic.RENAMED_PARTS``) opens it under the new one."""
    renamed = logic.RENAMED_PARTS.get(st.query_params.get(key, ""))
    if renamed in parts:  # the control shows the session's value (the link stays as it is)
        st.session_state[key] = renamed
    chosen: str | None = st.segmented_control("Show", parts, default=parts[0], required=True,
                                              key=key, bind="query-params")
    return chosen or parts[0]


def dataframe(frame: pd.DataFrame, *, column_config: dict[str, Any] | None = None,
              **arguments: Any) -> Any:
    """``st.dataframe`` with its numbers grouped by thousands (``1,000,300`` hands,
    ``5,321.3`` expected), as the metrics above the tables write them, unless
    ``column_config`` says otherwise: the counts (``logic.grouped_columns``) and the
    fractions of at most three decimals (``logic.short_fraction_columns``: the browser's
    grouping would cut a fourth)."""
    grouped: dict[str, Any] = {
        name: st.column_config.NumberColumn(format="localized")
        for name in (*logic.grouped_columns(frame), *logic.short_fraction_columns(frame))}
    return st.dataframe(frame, column_config={**grouped, **(column_config or {})},
                        **arguments)


def download_buttons(frame: pd.DataFrame, name: str, *, key: str) -> None:
    """CSV, XLSX and Parquet downloads of one table (built only when clicked), side by side in
    one row: a row of three columns was seven elements to send and draw, the row four (a
    session's first page has five of them: docs/dashboard.md)."""
    row = st.container(horizontal=True)
    for fmt in ("csv", "xlsx", "parquet"):
        row.download_button(
            f"{fmt.upper()}", data=_deferred(frame, fmt), file_name=f"{name}.{fmt}",
            mime=reports.FORMATS[fmt], key=f"dl_{key}_{fmt}", on_click="ignore",
            help=f"Download this table as {fmt.upper()}")


def _deferred(frame: pd.DataFrame, fmt: str) -> Callable[[], bytes]:
    return lambda: reports.table_bytes(frame, fmt)


def report_button(ctx: Context, *, key: str = "report") -> None:
    """A download of the self-contained HTML report of the current filters."""
    def build() -> bytes:
        with reader(ctx.db) as con:
            return reports.render_html(reports.build_report(con, ctx.filter)).encode("utf-8")

    st.download_button("HTML report of these filters", data=build,
                       file_name="handlab-report.html", mime="text/html", key=key,
                       on_click="ignore", icon=":material/description:",
                       help="Charts and tables of the current filters in one file that opens "
                            "offline")
