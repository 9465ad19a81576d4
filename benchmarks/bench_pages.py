"""Page speed as a user feels it: each dashboard page in real Chromium, navigation to idle.

Starts ``streamlit run serve.py`` (what ``handlab serve`` starts: app.py with the warm-up
at start, analytics/dashboard/startup.py) on a free port (as the browser tests do:
tests/browser/server.py) over a database, drives Debian's Chromium through Playwright and
times, for each page, from the navigation (or the filter change) until the page is idle:
the script run is over (the app's ``data-test-script-state`` is ``notRunning``), no element
is stale (``data-stale="true"``: drawn by an earlier run and not yet redrawn) or waiting for
its code (``stSkeleton``), every Plotly chart is drawn and the browser is free to draw the
next frame.  Per round, on a freshly started server (its caches empty), the median of
``--repeats`` rounds:

* **server start**: from starting the process until it answers, and until its warm-up is
  over (the line ``handlab: warm-up done`` in its output);
* **first load**: the app opened by its address in a new browser (no cached files), the
  server's first browser session (``--no-wait``: as soon as the server answers, during its
  warm-up; by default once the warm-up is over);
* **cold**: each page's first visit through the sidebar's link (the Overview's is the
  first load);
* **warm**: the page visited again through the sidebar (``st.cache_data`` hits);
* **filter**: on the warm page, the sidebar's game filter changed, until the page is idle
  again (the new filter's questions are not cached yet);
* **a new browser session**: the app opened again by its address at the end, in the same
  browser (its files cached: a returning user's new tab) and in a new browser (nothing
  cached: a new user).

    .venv/bin/python benchmarks/bench_pages.py                       # the samples
    .venv/bin/python benchmarks/bench_pages.py --db /tmp/big.duckdb  # any database
    .venv/bin/python benchmarks/bench_pages.py --build 1000000 --db /tmp/big.duckdb
    .venv/bin/python benchmarks/bench_pages.py --db out/single.duckdb --lake out/lake-dask

``--lake DIR`` serves a Parquet lake as ``handlab serve --lake DIR`` does (``$HANDLAB_LAKE``:
each script run opens the catalogue of the lake's newest manifest, docs/scale-out.md); with
``--db`` too, each round serves the database and then the lake, each on a fresh server, and
both are reported with the lake's median over the database's.

Without ``--db`` (or ``--lake``) the database is built from data/samples/ in a temporary
folder (as ``handlab serve`` builds its first one).  ``--build N`` first writes a database
of about N hands at ``--db`` (benchmarks/bench_dashboard.py's replicated simulated hands).
The server gets a copy of the database (it may write to it: migrations).  Targets (issue #27): every
page idle within 1 s on the samples and 2 s on a million hands.  Results:
docs/performance.md, section "Pages in Chromium".
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_ROOT))

from analytics.dashboard.startup import WARM_MARK  # noqa: E402
from analytics.warehouse.connection import LAKE_ENV_VAR  # noqa: E402
from analytics.warehouse.pipeline.run import SAMPLES, ensure_database  # noqa: E402
from parsers.knobs import GAME_NAMES  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.server import streamlit_server  # noqa: E402


@dataclass(frozen=True, slots=True)
class Page:
    """A dashboard page: its URL path, sidebar link, title and the game its filter change
    picks."""

    path: str
    link: str
    title: str
    game: str


PAGES = (
    Page("", "Overview", "Overview", "seveneight"),
    Page("upload", "Upload", "Upload hand histories", "seveneight"),
    Page("win_rates", "Win rates", "Win rates", "seveneight"),
    Page("pots", "Pot accumulation", "Pot accumulation (Rummoli)", "rummoli"),
    Page("hand_types", "Hand types", "Hand types", "seveneight"),
    Page("replayer", "Hand replayer", "Hand replayer", "seveneight"),
)

# Idle: the run is over, nothing stale, no element still waiting for its code (a lazy
# chunk: Streamlit's "stSkeleton" placeholder) and every Plotly chart drawn.
_IDLE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (app === null || app.getAttribute('data-test-script-state') !== 'notRunning'
        || document.querySelector('[data-stale="true"]') !== null
        || document.querySelector('[data-testid="stStatusWidgetRunningIcon"]') !== null
        || document.querySelector('[data-testid="stSkeleton"]') !== null) {
        return false;
    }
    const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    return Array.from(charts).every(chart => chart.querySelector('.main-svg') !== null);
}"""

# Resolves once the browser's main thread is free to draw a frame (drawing charts blocks it).
_FRAME = "() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))"


def _idle(page: Any, title: str) -> None:
    page.get_by_role("heading", name=title).first.wait_for()
    page.wait_for_function(_IDLE, polling=10)
    page.evaluate(_FRAME)


def _timed(work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _on(target: Page) -> Callable[[str], bool]:
    """Whether a URL is the target page's (its path, whatever the query)."""
    def matches(url: str) -> bool:
        path = url.split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
        return path == target.path
    return matches


def _open(page: Any, url: str, target: Page) -> float:
    """A page loaded by its address (the browser's first visit: the app starts too)."""
    def go() -> None:
        page.goto(f"{url}/{target.path}")
        _idle(page, target.title)
    return _timed(go)


def _navigate(page: Any, target: Page) -> float:
    """A page reached through the sidebar's link, as a user moves between pages."""
    link = page.locator('[data-testid="stSidebarNav"] a', has_text=target.link).first

    def go() -> None:
        link.click()
        page.wait_for_url(_on(target))
        _idle(page, target.title)
    return _timed(go)


def _pick_game(page: Any, target: Page, game: str) -> float:
    """Pick ``game`` in the sidebar's Game filter; seconds until the page is idle again."""
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]',
                       has_text="Game").first
    box.click()
    # The filter shows each game by its name.
    option = page.get_by_role("option", name=GAME_NAMES.get(game, game), exact=True)

    def change() -> None:
        option.click()
        # The run writes the filter into the URL: from then on "idle" means that run ended.
        page.wait_for_url(lambda url: (f"game={game}" in url) == (game != "all games"))
        _idle(page, target.title)
    return _timed(change)


def _warm(server: Any, timeout: float = 600.0) -> None:
    """Wait until the server printed that its warm-up is over."""
    deadline = time.monotonic() + timeout
    while WARM_MARK not in server.output():
        if time.monotonic() > deadline or not server.alive():
            raise RuntimeError(f"no warm-up line from the server:\n{server.output()}")
        time.sleep(0.05)


def _round(db: Path, log: Path, *, wait: bool, env: dict[str, str] | None = None
           ) -> dict[tuple[str, str], float]:
    """One round on a fresh server over ``db`` (``env``: more of the server's environment,
    the lake's variable): its start, first load, then cold, warm and filter-change seconds
    per page, then a new browser session's first page."""
    from playwright.sync_api import sync_playwright

    seconds: dict[tuple[str, str], float] = {}
    started = time.perf_counter()
    with streamlit_server(db, log, script="serve.py", env=env) as server, \
            sync_playwright() as playwright:
        seconds[("server", "answers")] = time.perf_counter() - started
        if wait:
            _warm(server)
            seconds[("server", "warm")] = time.perf_counter() - started
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(120_000)
            seconds[("Overview", "first load")] = _open(page, server.url, PAGES[0])
            if not wait:
                _warm(server)
                seconds[("server", "warm")] = time.perf_counter() - started
            for target in PAGES[1:]:
                seconds[(target.title, "cold")] = _navigate(page, target)
            seconds[("Overview", "cold")] = seconds[("Overview", "first load")]
            for target in PAGES:
                seconds[(target.title, "warm")] = _navigate(page, target)
                seconds[(target.title, "filter")] = _pick_game(page, target, target.game)
                _pick_game(page, target, "all games")
            seconds[("Overview", "new session")] = _open(page, server.url, PAGES[0])
            fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            fresh.set_default_timeout(120_000)
            seconds[("Overview", "new browser")] = _open(fresh, server.url, PAGES[0])
        finally:
            browser.close()
    return seconds


Rounds = list[dict[tuple[str, str], float]]


def _median(rounds: Rounds, title: str, kind: str) -> float:
    return statistics.median(r[(title, kind)] for r in rounds)


def _report(rounds: Rounds, target: float) -> None:
    def median(title: str, kind: str) -> float:
        return _median(rounds, title, kind)

    print(f"\nmedian of {len(rounds)} rounds, seconds to idle; target {target:g} s")
    print("| page | cold | warm | filter change |")
    print("|---|---:|---:|---:|")
    for page in PAGES:
        cells = [f"{median(page.title, kind):.2f}" for kind in ("cold", "warm", "filter")]
        print(f"| {page.title} | {' | '.join(cells)} |")
    print(f"\nserver start: answers after {median('server', 'answers'):.2f} s, warm-up over "
          f"after {median('server', 'warm'):.2f} s")
    print(f"the app opened by its address: the server's first load "
          f"{median('Overview', 'first load'):.2f} s; a new browser session at the end "
          f"{median('Overview', 'new session'):.2f} s in the same browser, "
          f"{median('Overview', 'new browser'):.2f} s in a new one (nothing cached)")
    medians = [median(page.title, kind) for page in PAGES for kind in ("cold", "warm", "filter")
               if (page.title, kind) != ("Overview", "cold")]
    over = sum(value > target for value in medians)
    print(f"{over} of {len(medians)} medians of the pages (the first load aside) over the "
          f"{target:g} s target")
    sessions = [median("Overview", kind) for kind in ("first load", "new session", "new browser")]
    print(f"{sum(value > target for value in sessions)} of 3 first pages of a browser session "
          f"over the {target:g} s target")


def main() -> None:
    """Time every page cold, warm and after a filter change; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="The database (default: built from "
                        "data/samples/ in a temporary folder).")
    parser.add_argument("--build", type=int, metavar="HANDS",
                        help="First write a database of about HANDS simulated hands at --db.")
    parser.add_argument("--lake", metavar="DIR", help="Serve this Parquet lake as "
                        "`handlab serve --lake` does (with --db: that database too, each "
                        "round; without: the lake alone).")
    parser.add_argument("--repeats", type=int, default=5, help="Rounds (a fresh server each).")
    parser.add_argument("--no-wait", action="store_true", help="Open the first page as soon "
                        "as the server answers, during its warm-up (default: after it).")
    parser.add_argument("--target", type=float, help="Seconds a page may take (default: 1 "
                        "on the samples, 2 on another database or a lake).")
    options = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="handlab-pages-") as folder:
        root = Path(folder)
        if options.build:
            if options.db is None:
                sys.exit("--build needs --db (where to write the database)")
            sys.path.insert(0, str(_ROOT / "benchmarks"))
            from bench_dashboard import build_large

            started = time.perf_counter()
            hands = build_large(options.db, options.build)
            print(f"built {options.db}: {hands:,} hands in {time.perf_counter() - started:.0f} s")
        # The database: --db, else the samples' unless a lake alone is served.
        source: Path | None = options.db or (
            None if options.lake else ensure_database(root / "samples.duckdb", SAMPLES))
        target = options.target or (2.0 if options.db or options.lake else 1.0)
        rounds: Rounds = []
        lake_rounds: Rounds = []
        for number in range(options.repeats):
            if source is not None:
                rounds.append(_database_round(source, root, number, wait=not options.no_wait))
                _print_round("database", number, rounds[-1])
            if options.lake is not None:
                lake_rounds.append(_lake_round(options.lake, root, number,
                                               wait=not options.no_wait))
                _print_round("lake", number, lake_rounds[-1])
        if source is not None:
            print(f"\ndatabase: {source}")
            _report(rounds, target)
        if options.lake is not None:
            print(f"\nlake: {options.lake}")
            _report(lake_rounds, target)
        if source is not None and options.lake is not None:
            _compare(rounds, lake_rounds)


def _database_round(source: Path, root: Path, number: int, *, wait: bool
                    ) -> dict[tuple[str, str], float]:
    """A round on a copy of the database ``source`` (the server may write to it:
    migrations)."""
    served = root / "served.duckdb"
    shutil.copy(source, served)
    Path(f"{served}.wal").unlink(missing_ok=True)
    try:
        return _round(served, root / f"streamlit-{number}.log", wait=wait)
    finally:
        served.unlink()


def _lake_round(lake: str, root: Path, number: int, *, wait: bool
                ) -> dict[tuple[str, str], float]:
    """A round on the lake, served as ``handlab serve --lake`` serves it: ``$HANDLAB_LAKE``
    naming it and ``$HANDLAB_DB`` its catalogue (a reader never writes to either)."""
    from analytics.warehouse.lake.catalogue import catalogue
    from analytics.warehouse.lake.store import open_store

    return _round(catalogue(lake), root / f"streamlit-lake-{number}.log", wait=wait,
                  env={LAKE_ENV_VAR: open_store(lake).location("")})


def _print_round(what: str, number: int, seconds: dict[tuple[str, str], float]) -> None:
    print(f"round {number + 1} ({what}): " + ", ".join(
        f"{title} {kind} {value:.2f}" for (title, kind), value in seconds.items()), flush=True)


def _compare(rounds: Rounds, lake_rounds: Rounds) -> None:
    """Each page's median on the lake over the database's, rounds of the same run."""
    print("\nthe lake's median over the database's")
    print("| page | cold | warm | filter change |")
    print("|---|---:|---:|---:|")
    for page in PAGES:
        cells = [f"{_median(lake_rounds, page.title, kind):.2f} / "
                 f"{_median(rounds, page.title, kind):.2f}"
                 for kind in ("cold", "warm", "filter")]
        print(f"| {page.title} | {' | '.join(cells)} |")
    print(f"first load: {_median(lake_rounds, 'Overview', 'first load'):.2f} / "
          f"{_median(rounds, 'Overview', 'first load'):.2f} s; warm-up over after "
          f"{_median(lake_rounds, 'server', 'warm'):.2f} / "
          f"{_median(rounds, 'server', 'warm'):.2f} s")


if __name__ == "__main__":
    main()
