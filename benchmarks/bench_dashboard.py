"""Dashboard questions over a large warehouse: how long each page's uncached queries take.

Simulating a million hands would take hours here, so the benchmark simulates a
few hundred hands of each game, loads them with the real ingest, and then
replicates the rows in SQL (new hand ids, game ids and days per copy) until
the warehouse holds ``--hands`` hands, and fills the derived tables
(``seat_facts``, ``pot_facts``) for the copies with the warehouse's own
:func:`analytics.warehouse.sql.facts.fill_missing`, the code migration 4 backfills
existing databases with.  Each page's questions are then timed uncached, with
fresh read-only connections, as the dashboard asks them on a cache miss (a
repeated view is a ``st.cache_data`` hit: microseconds): median wall and CPU
seconds (CPU time of all DuckDB's threads, less moved by other jobs).

    .venv/bin/python benchmarks/bench_dashboard.py --hands 1000000 --keep /tmp/big.duckdb
    # before/after in one run, on the kept database, against a checkout of the old code:
    git archive HEAD | tar -x -C /tmp/base
    .venv/bin/python benchmarks/bench_dashboard.py --db /tmp/big.duckdb --baseline /tmp/base

Then each page is rendered whole, cold, as a browser's first visit would draw it: the app
run through ``streamlit.testing``'s AppTest with every ``st.cache_data`` cleared, timing
``at.run()`` (wall and CPU: the SQL, the pandas and Plotly work and Streamlit's own), since
"every page under a second" is about the page, not only its questions
(``--only pages`` or ``--only questions`` for one of the two tables).  The renders share
one scan of the installed packages for Streamlit components, which the server does once at
start-up but a new AppTest does inside its first ``run()`` (0.2 s CPU; up to seconds of
wall on a busy disk); ``--with-component-scan`` times it in every render, as sessions 1-3 did.

Results: docs/performance.md, section "Dashboard".
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import inspect
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import ENV_VAR, ingest, open_writer, reader
from analytics.warehouse.sql import facts, views
from parsers import write_hands

_COPIED = ("hands", "seats", "actions", "showdowns", "awards", "board")
_ROOT = Path(__file__).resolve().parent.parent
_APP = _ROOT / "app.py"
_PAGE_FILES = "analytics/dashboard/pages"


def _base(folder: Path) -> Path:
    histories = folder / "histories"
    histories.mkdir()
    write_hands(simulate_seveneight(400, 6, 1), histories / "seveneight.phhs")
    write_hands(simulate_bigtwo(150, 4, 2), histories / "bigtwo.phhs")
    write_hands(simulate_rummoli(150, 5, 3), histories / "rummoli.phhs")
    db = folder / "base.duckdb"
    ingest([histories], db, workers=0)
    return db


def _replicate(base: Path, big: Path, hands: int) -> int:
    """Fill ``big`` with copies of ``base``'s hands until it holds about ``hands``, and their
    facts; print how long the facts took (the backfill of a database that size)."""
    con = open_writer(big)
    try:
        con.execute("ATTACH $path AS base (READ_ONLY)", {"path": str(base)})
        per_copy = int(con.execute("SELECT count(*) FROM base.hands").fetchall()[0][0])
        copies = max(1, -(-hands // per_copy))
        shift = "hand_id + k * 1000003"
        changes = {
            "hands": f"{shift} AS hand_id, game_id || '-' || k AS game_id, "
                     "played_on + CAST(k % 700 AS INTEGER) AS played_on",
            "seats": f"{shift} AS hand_id", "actions": f"{shift} AS hand_id",
            "showdowns": f"{shift} AS hand_id", "awards": f"{shift} AS hand_id",
            "board": f"{shift} AS hand_id",
        }
        for table in _COPIED:
            con.execute(f"INSERT INTO {table} SELECT b.* REPLACE ({changes[table]}) "
                        f"FROM base.{table} AS b, range({copies}) AS copy(k)")
        con.execute("INSERT INTO files SELECT * FROM base.files")
        con.execute("DETACH base")
        wall, cpu = time.perf_counter(), time.process_time()
        facts.fill_missing(con)
        print(f"seat_facts filled in {time.perf_counter() - wall:.1f} s "
              f"({time.process_time() - cpu:.1f} s CPU)")
        return int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
    finally:
        con.close()


def build_large(path: Path, hands: int) -> int:
    """A warehouse of about ``hands`` hands at ``path`` (a few hundred simulated hands per
    game, ingested, then replicated in SQL as :func:`main` builds it); its hand count.
    bench_pages.py times the dashboard in Chromium on it."""
    with tempfile.TemporaryDirectory(prefix="handlab-bench-") as folder:
        path.unlink(missing_ok=True)
        return _replicate(_base(Path(folder)), path, hands)


Question = tuple[str, Callable[[duckdb.DuckDBPyConnection], Any]]


def _pages(con: duckdb.DuckDBPyConnection, v: ModuleType = views
           ) -> dict[str, list[Question]]:
    """The questions each page asks on a cache miss (the filter: all hands), answered by
    the views module ``v`` (this checkout's, or a baseline's)."""
    f = v.HandFilter()
    game_id = str(con.execute("SELECT game_id FROM hands WHERE game = 'rummoli' "
                              "LIMIT 1").fetchall()[0][0])
    hand_id = int(con.execute("SELECT hand_id FROM hands WHERE game = 'seveneight' "
                              "LIMIT 1").fetchall()[0][0])
    # The page counts the stored categories (dealt_types) since schema 6; a baseline
    # checkout from before asks for the dealt cards and categorises them itself.
    dealt = getattr(v, "dealt_types", v.dealt_hands)
    ann = v.HandFilter(players=("Ann",))
    return {
        "start (every page)": [("data_version", v.data_version),
                               ("filter_options", v.filter_options)],
        "Overview": [("overview_page", lambda c: _overview_page(v, c, f)),
                     _results_question(v, f),
                     ("rejects", lambda c: v.rejects(c))],
        "Win rates": [_results_question(v, f),
                      ("by_position", lambda c: _by_level(v.by_position, c, f)),
                      *[(f"cumulative_net {g}", lambda c, g=g: _cumulative(v, c, f, g))
                        for g in ("seveneight", "bigtwo", "rummoli")],
                      ("by_up_card", lambda c: _by_level(v.by_up_card, c, f)),
                      ("allin_totals", lambda c: _by_level(v.allin_totals, c, f)),
                      ("bigtwo_places", lambda c: v.bigtwo_places(c, f)),
                      ("bigtwo_cards_left", lambda c: v.bigtwo_cards_left(c, f)),
                      ("rummoli_split", lambda c: v.rummoli_split(c, f))],
        "Pot accumulation": [("pot_winners", lambda c: v.pot_winners(c, f)),
                             ("sessions", lambda c: v.sessions(c, f, limit=5000)),
                             ("rummoli_board", lambda c: v.rummoli_board(
                                 c, f, game_id=game_id)),
                             ("pot_streaks", lambda c: v.pot_streaks(c, f))],
        # One tab at a time since session 4 (the Big Two tab's deals are equity_views'):
        # a baseline from before drew every game's, after an overview.
        "Hand types, 7 & 8 tab": [
            (f"{dealt.__name__} seveneight", lambda c: dealt(c, f, game="seveneight")),
            ("showdown_types seveneight", lambda c: _showdown_types(v, c, f, "seveneight"))],
        "Hand types, Rummoli tab": [
            (f"{dealt.__name__} rummoli", lambda c: dealt(c, f, game="rummoli"))],
        # Asked only when the Big Two tab's "Plays by kind" expander is opened (exact
        # counts since session 4; a baseline from before sampled the plays): the stored
        # counts by kind since session 8 (play_kinds), before them every play counted by
        # its text (play_counts, which the page then classified).
        "Hand types, Big Two plays": [_plays_question(v, f)],
        "Hand replayer": [("hand_list", lambda c: v.hand_list(c, f)),
                          ("hand_detail", lambda c: v.hand_detail(c, hand_id))],
        "Overview, one player": [("overview_page", lambda c: _overview_page(v, c, ann)),
                                 _results_question(v, ann)],
    }


def _results_question(v: ModuleType, f: Any) -> Question:
    """The players' results the Overview and Win rates ask for: per game, unit level and
    player since session 17 (results_by_level), per game and player before."""
    if hasattr(v, "results_by_level"):
        return ("results_by_level", lambda c: v.results_by_level(c, f))
    return ("player_results", lambda c: v.player_results(c, f))


def _by_level(question: Callable[..., Any], con: duckdb.DuckDBPyConnection, f: Any) -> Any:
    """A question per unit level where the views module has that argument (session 17)."""
    if "by_level" in inspect.signature(question).parameters:
        return question(con, f, by_level=True)
    return question(con, f)


def _cumulative(v: ModuleType, con: duckdb.DuckDBPyConnection, f: Any, game: str) -> Any:
    """A game's running totals as Win rates asks: 7 & 8 in big blinds since session 17;
    ``stat_views.results_over_time`` since session 18 (``views.cumulative_net`` before)."""
    if not hasattr(v, "cumulative_net"):
        from analytics.warehouse.sql.stat_views import results_over_time

        return results_over_time(con, f, game=game, whole_round=True)
    if game == "seveneight" and "big_blinds" in inspect.signature(
            v.cumulative_net).parameters:
        return v.cumulative_net(con, f, game=game, big_blinds=True)
    return v.cumulative_net(con, f, game=game)


def _plays_question(v: ModuleType, f: Any) -> Question:
    """The Big Two plays the page asks for, as the views module ``v`` answers them."""
    if hasattr(v, "play_kinds"):
        return ("play_kinds", lambda c: v.play_kinds(c, f))
    if hasattr(v, "play_counts"):
        return ("play_counts", lambda c: v.play_counts(c, f))
    return ("plays", lambda c: v.plays(c, f))


def _showdown_types(v: ModuleType, con: duckdb.DuckDBPyConnection, f: Any, game: str
                    ) -> Any:
    """Hands shown down in one game (the Hand types tab's question); a baseline checkout
    whose ``showdown_types`` takes no game answers for every game."""
    if "game" in inspect.signature(v.showdown_types).parameters:
        return v.showdown_types(con, f, game=game)
    return v.showdown_types(con, f)


def _overview_page(v: ModuleType, con: duckdb.DuckDBPyConnection, f: Any) -> Any:
    """The Overview page's hands by game, over time and by session: one question since
    ``overview_page``; a baseline checkout from before asks its three."""
    if hasattr(v, "overview_page"):
        return v.overview_page(con, f, limit=500)
    return (v.overview(con, f), v.hands_over_time(con, f), v.sessions(con, f, limit=500))


def _time(db: Path, question: Callable[[duckdb.DuckDBPyConnection], Any], repeats: int
          ) -> tuple[float, float]:
    """Median wall and CPU seconds (CPU: all of DuckDB's threads; less moved by the load)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        with reader(db) as con:  # a fresh connection per question, as the dashboard does
            question(con)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _baseline(tree: Path) -> ModuleType:
    """``analytics/warehouse/sql/views.py`` of another checkout (e.g. ``git archive HEAD``
    extracted), to time the questions before a change in the same process."""
    path = tree / "analytics" / "warehouse" / "views.py"
    spec = importlib.util.spec_from_file_location("baseline_views", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"no views module at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_views"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _report(db: Path, repeats: int, baseline: ModuleType | None) -> None:
    """Time every page's questions (interleaved with the baseline's, if any); print a table."""
    with reader(db) as con:
        pages = _pages(con)
        before = _pages(con, baseline) if baseline is not None else None
    runs = ("baseline", "this checkout") if before is not None else ("this checkout",)
    head = " | ".join(f"{run} median s | {run} CPU s" for run in runs)
    print(f"\n| page | question | {head} |\n|---|---|" + "---:|---:|" * len(runs))
    for page, questions in pages.items():
        totals = [0.0] * (2 * len(runs))
        for number, (name, question) in enumerate(questions):
            asked = [before[page][number][1], question] if before is not None else [question]
            figures = [x for q in asked for x in _time(db, q, repeats)]
            totals = [t + x for t, x in zip(totals, figures, strict=True)]
            print(f"| {page} | {name} | " + " | ".join(f"{x:.3f}" for x in figures) + " |")
        print(f"| **{page}** | **all, uncached** | "
              + " | ".join(f"**{x:.3f}**" for x in totals) + " |")


# Each page as a first visit draws it: (label, page script, query parameters of the link,
# widget state: an expander opened by a click).
_PAGE_VISITS: tuple[tuple[str, str, dict[str, str], dict[str, bool]], ...] = (
    ("Overview", "overview", {}, {}),
    ("Overview, one player", "overview", {"player": "Ann"}, {}),
    ("Win rates (7 & 8 tab)", "win_rates", {}, {}),
    ("Win rates, Big Two tab", "win_rates", {"tab": "Big Two"}, {}),
    ("Win rates, Rummoli tab", "win_rates", {"tab": "Rummoli"}, {}),
    ("Pot accumulation", "pots", {}, {}),
    ("Hand types", "hand_types", {}, {}),
    ("Hand types, Big Two tab", "hand_types", {"tab": "Big Two"}, {}),
    ("Hand types, Big Two tab, plays opened", "hand_types", {"tab": "Big Two"},
     {"bigtwo_plays": True}),
    ("Hand replayer", "replayer", {}, {}),
    ("Statistics (7 & 8 tab)", "statistics", {}, {}),
    ("Statistics, Big Two tab", "statistics", {"tab": "Big Two"}, {}),
    ("Statistics, Rummoli tab", "statistics", {"tab": "Rummoli"}, {}),
    ("Hand search", "search", {}, {}),
    ("Record a game", "record", {}, {}),
    ("Play the bots", "play", {}, {}),
)


@functools.cache
def _component_scan() -> Any:
    """Streamlit's registry of custom components, scanned once per process (as the server
    does at start-up)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)
    return manager


def _render_cold(page: str, params: dict[str, str], state: dict[str, bool], *,
                 shared_scan: bool = True) -> tuple[float, float]:
    """Wall and CPU seconds of one cold render of ``page`` (every cached answer cleared;
    with ``shared_scan``, not AppTest's scan for components: see the module docstring)
    with the widgets of ``state`` set as a click would set them."""
    # Imported here: the question table needs no Streamlit.
    import streamlit as st
    from streamlit.logger import set_log_level
    from streamlit.testing.v1 import AppTest

    set_log_level("error")  # not the "no runtime" and "bare mode" notes of every AppTest
    at = AppTest.from_file(str(_APP), default_timeout=600)
    if shared_scan and hasattr(at, "_bidi_component_manager"):
        # A new AppTest scans every installed package for custom components on its first
        # run (0.2 s CPU, up to seconds of wall on a busy disk), inside ``at.run()``; the
        # server scans once at start-up, so every render here shares one scan (a private
        # attribute of Streamlit's AppTest: without it, the scan is timed as before).
        at._bidi_component_manager = _component_scan()
    for key, value in params.items():
        at.query_params[key] = value
    for key, opened in state.items():
        at.session_state[key] = opened
    at.switch_page(f"{_PAGE_FILES}/{page}.py")
    st.cache_data.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if at.exception:
        raise SystemExit(f"{page} {params}: {[e.value for e in at.exception]}")
    return wall, cpu


def _page_report(db: Path, repeats: int, shared_scan: bool) -> None:
    """Render every page cold ``repeats`` times (after one untimed warm-up pass that
    imports Plotly and friends); print the median wall and CPU seconds per page."""
    os.environ[ENV_VAR] = str(db)
    for _, page, params, state in _PAGE_VISITS:
        _render_cold(page, params, state, shared_scan=shared_scan)
    print("\n| page, rendered cold (AppTest) | median s | CPU s |\n|---|---:|---:|")
    for label, page, params, state in _PAGE_VISITS:
        runs = [_render_cold(page, params, state, shared_scan=shared_scan)
                for _ in range(repeats)]
        print(f"| {label} | {statistics.median(w for w, _ in runs):.3f} | "
              f"{statistics.median(c for _, c in runs):.3f} |")


def main() -> None:
    """Build the large warehouse (or take ``--db``), time every page's questions and every
    page rendered cold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Keep the large database at this path.")
    parser.add_argument("--db", type=Path,
                        help="Time this database (kept by an earlier --keep) instead of building.")
    parser.add_argument("--baseline", type=Path,
                        help="A checkout whose views.py is timed too, on the same database.")
    parser.add_argument("--only", choices=("questions", "pages"),
                        help="Only the per-question table, or only the cold page renders.")
    parser.add_argument("--with-component-scan", action="store_true",
                        help="Time each cold render with AppTest's own scan of the installed "
                             "packages for components (as sessions 1-3 did).")
    options = parser.parse_args()
    shared_scan = not options.with_component_scan
    baseline = _baseline(options.baseline) if options.baseline else None
    if options.db:
        _tables(options.db, options.repeats, baseline, options.only, shared_scan)
        return
    with tempfile.TemporaryDirectory(prefix="handlab-bench-") as folder:
        root = Path(folder)
        started = time.perf_counter()
        base = _base(root)
        big = options.keep or root / "big.duckdb"
        big.unlink(missing_ok=True)
        total = _replicate(base, big, options.hands)
        print(f"warehouse: {total:,} hands, built in {time.perf_counter() - started:.0f} s")
        _tables(big, options.repeats, baseline, options.only, shared_scan)


def _tables(db: Path, repeats: int, baseline: ModuleType | None, only: str | None,
            shared_scan: bool) -> None:
    if only != "pages":
        _report(db, repeats, baseline)
    if only != "questions":
        _page_report(db, repeats, shared_scan)


if __name__ == "__main__":
    main()
