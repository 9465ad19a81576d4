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
* **tabs**: the other tabs of Win rates, Hand types and Statistics, each clicked on its
  page (cold: its questions not cached yet) and again after the first tab (warm);
* **a new browser session**: the app opened again by its address at the end, in the same
  browser (its files cached: a returning user's new tab) and in a new browser (nothing
  cached: a new user);
* **the peers** (``--peers``): the floor, a minimal Streamlit page (benchmarks/peer_page.py:
  a title and a small table; with one small plotly chart; with Streamlit's own Vega-Lite bar
  chart) served by the same Streamlit the same way (benchmarks/peer_serve.py), on a fresh
  server each round: its first load, a returning tab and a new browser, timed to idle as
  above; the report divides handlab's first pages by the peer's.  ``--peer KIND`` (repeatable)
  times other peers instead: the table peer plus one of the Overview's parts (``table+nav``,
  ``table+filters``, ... ``table+overview``: peer_page.py), alternated in order each round;
  ``--only-peers`` times them alone, each over the first named.

``--first`` times only a session's first pages (the first load, Upload and Win rates cold
right after it, a returning tab and a new browser at the end); ``--dwell S`` stays S seconds
on the first load and each cold page before the next click (a user reading it; by default
the clicks come back to back).  ``--base PATH`` runs every
round on this checkout and on another one (a worktree of main, say), alternating which goes
first, served by this checkout's Python, and prints both medians with their ratio.

    .venv/bin/python benchmarks/bench_pages.py                       # the samples
    .venv/bin/python benchmarks/bench_pages.py --db /tmp/big.duckdb  # any database
    .venv/bin/python benchmarks/bench_pages.py --build 1000000 --db /tmp/big.duckdb
    .venv/bin/python benchmarks/bench_pages.py --first --peers --base /work/wt-base
    .venv/bin/python benchmarks/bench_pages.py --db out/single.duckdb --lake out/lake-dask

``--lake DIR`` serves a Parquet lake as ``handlab serve --lake DIR`` does (``$HANDLAB_LAKE``:
each script run opens the catalogue of the lake's newest manifest, docs/scale-out.md); with
``--db`` too, each round serves the database and then the lake, each on a fresh server, and
both are reported with the lake's median over the database's.

Without ``--db`` the database is built from data/samples/ in a temporary folder (as
``handlab serve`` builds its first one).  ``--build N`` first writes a database of about N
hands at ``--db`` (benchmarks/bench_dashboard.py's replicated simulated hands).  The server
gets a copy of the database (it may write to it: migrations).  Targets (issue #27): every
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
from parsers.rule_options import GAME_NAMES  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT  # noqa: E402
from tests.browser.server import streamlit_server  # noqa: E402


@dataclass(frozen=True, slots=True)
class Page:
    """A dashboard page: its URL path, sidebar link, title, the game its filter change
    picks, and its tabs (the first shown on arrival; each other one timed when clicked: a
    tab draws only when shown)."""

    path: str
    link: str
    title: str
    game: str
    tabs: tuple[str, ...] = ()


PAGES = (
    Page("", "Overview", "Overview", "seveneight"),
    Page("upload", "Upload", "Upload hand histories", "seveneight"),
    Page("win_rates", "Win rates", "Win rates", "seveneight", ("7 & 8", "Big Two", "Rummoli")),
    Page("pots", "Pot accumulation", "Pot accumulation (Rummoli)", "rummoli"),
    Page("hand_types", "Hand types", "Hand types", "seveneight", ("7 & 8", "Big Two", "Rummoli")),
    Page("replayer", "Hand replayer", "Hand replayer", "seveneight"),
    Page("statistics", "Statistics", "Statistics", "seveneight", ("7 & 8", "Big Two", "Rummoli")),
    Page("search", "Hand search", "Hand search", "seveneight"),
    Page("record", "Record a game", "Record a game", "seveneight"),
    Page("play", "Play the bots", "Play the bots", "seveneight"),
)

PEER_KINDS = ("table", "chart", "bar")
"""The peer pages timed by default (benchmarks/peer_page.py's ``HANDLAB_PEER``)."""


def peer(kind: str) -> Page:
    """The peer page of ``kind`` (``HANDLAB_PEER``: ``table``, ``table+nav``, ...; its title
    is ``Peer <kind>``)."""
    return Page("", "", f"Peer {kind}", "")

SESSION_KINDS = ("first load", "new session", "new browser")
"""A browser session's first page: the server's first, a returning tab, a new browser."""

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


def wait_idle(page: Any, title: str) -> None:
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
        wait_idle(page, target.title)
    return _timed(go)


def _navigate(page: Any, target: Page) -> float:
    """A page reached through the sidebar's link, as a user moves between pages."""
    link = page.locator('[data-testid="stSidebarNav"] a', has_text=target.link).first

    def go() -> None:
        link.click()
        page.wait_for_url(_on(target))
        wait_idle(page, target.title)
    return _timed(go)


def _click_tab(page: Any, target: Page, tab: str) -> float:
    """Open the page's tab ``tab``; seconds until the page is idle again (the tab is bound
    to the URL: its run starts with the URL's change)."""
    button = page.get_by_role("tab", name=tab, exact=True).first

    def click() -> None:
        button.click()
        page.wait_for_url(lambda url: ("tab=" in url) == (tab != target.tabs[0]))
        wait_idle(page, target.title)
    return _timed(click)


def _tabs(page: Any, seconds: dict[tuple[str, str], float]) -> None:
    """Each page's tabs but the first, clicked on the page once (cold: the tab's questions
    not cached yet) and again after going back to the first tab (warm)."""
    for target in PAGES:
        if not target.tabs:
            continue
        _navigate(page, target)
        for kind in ("cold", "warm"):
            for tab in target.tabs[1:]:
                seconds[(f"{target.title}: {tab}", kind)] = _click_tab(page, target, tab)
            _click_tab(page, target, target.tabs[0])


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
        wait_idle(page, target.title)
    return _timed(change)


def _warm(server: Any, timeout: float = 600.0) -> None:
    """Wait until the server printed that its warm-up is over."""
    deadline = time.monotonic() + timeout
    while WARM_MARK not in server.output():
        if time.monotonic() > deadline or not server.alive():
            raise RuntimeError(f"no warm-up line from the server:\n{server.output()}")
        time.sleep(0.05)


def _round(db: Path, log: Path, *, wait: bool, first: bool = False, dwell: float = 0.0,
           root: Path = ROOT, env: dict[str, str] | None = None
           ) -> dict[tuple[str, str], float]:
    """One round on a fresh server of the checkout ``root``: its start, first load, then
    cold, warm and filter-change seconds per page (``first``: only the cold pages up to Win
    rates; ``dwell``: seconds spent on the first load and each cold page before the next
    click, as a user reading it; ``env``: more of the server's environment, the lake's
    variable), then a new browser session's first page."""
    from playwright.sync_api import sync_playwright

    seconds: dict[tuple[str, str], float] = {}
    started = time.perf_counter()
    with streamlit_server(db, log, script="serve.py", root=root, env=env) as server, \
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
            time.sleep(dwell)
            for target in PAGES[1:3] if first else PAGES[1:]:
                seconds[(target.title, "cold")] = _navigate(page, target)
                time.sleep(dwell)
            seconds[("Overview", "cold")] = seconds[("Overview", "first load")]
            for target in () if first else PAGES:
                seconds[(target.title, "warm")] = _navigate(page, target)
                seconds[(target.title, "filter")] = _pick_game(page, target, target.game)
                _pick_game(page, target, "all games")
            if not first:
                _tabs(page, seconds)
            _sessions(browser, page, server.url, PAGES[0], seconds)
        finally:
            browser.close()
    return seconds


def _sessions(browser: Any, page: Any, url: str, target: Page,
              seconds: dict[tuple[str, str], float]) -> None:
    """A new browser session's first page: a returning user's new tab (the same browser,
    its files cached) and a new user's (a new browser context: nothing cached)."""
    seconds[(target.title, "new session")] = _open(page, url, target)
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    fresh.set_default_timeout(120_000)
    seconds[(target.title, "new browser")] = _open(fresh, url, target)


def _peer_round(target: Page, log: Path) -> dict[tuple[str, str], float]:
    """The peer page on a fresh server: its first load, a returning tab, a new browser."""
    from playwright.sync_api import sync_playwright

    seconds: dict[tuple[str, str], float] = {}
    kind = target.title.split(" ", 1)[1]
    with streamlit_server(log.with_suffix(".unused"), log, script="benchmarks/peer_serve.py",
                          env={"HANDLAB_PEER": kind}) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(120_000)
            seconds[(target.title, "first load")] = _open(page, server.url, target)
            _sessions(browser, page, server.url, target, seconds)
        finally:
            browser.close()
    return seconds


def _median(rounds: list[dict[tuple[str, str], float]], title: str, kind: str) -> float:
    return statistics.median(r[(title, kind)] for r in rounds)


def _report(rounds: list[dict[tuple[str, str], float]], target: float, *,
            first: bool = False) -> None:
    def median(title: str, kind: str) -> float:
        return _median(rounds, title, kind)

    print(f"\nmedian of {len(rounds)} rounds, seconds to idle; target {target:g} s")
    print("| page | cold | warm | filter change |")
    print("|---|---:|---:|---:|")
    for page in PAGES[:3] if first else PAGES:
        cells = [f"{median(page.title, kind):.2f}" if (page.title, kind) in rounds[0] else "-"
                 for kind in ("cold", "warm", "filter")]
        print(f"| {page.title} | {' | '.join(cells)} |")
        for tab in page.tabs[1:]:
            label = f"{page.title}: {tab}"
            if (label, "cold") in rounds[0]:
                print(f"| {label} | {median(label, 'cold'):.2f} | {median(label, 'warm'):.2f} "
                      "| - |")
    print(f"\nserver start: answers after {median('server', 'answers'):.2f} s, warm-up over "
          f"after {median('server', 'warm'):.2f} s")
    print(f"the app opened by its address: the server's first load "
          f"{median('Overview', 'first load'):.2f} s; a new browser session at the end "
          f"{median('Overview', 'new session'):.2f} s in the same browser, "
          f"{median('Overview', 'new browser'):.2f} s in a new one (nothing cached)")
    medians = [median(title, kind) for title, kind in rounds[0]
               if title not in ("server", "Overview")]
    over = sum(value > target for value in medians)
    print(f"{over} of {len(medians)} medians of the pages (the first load aside) over the "
          f"{target:g} s target")
    sessions = [median("Overview", kind) for kind in SESSION_KINDS]
    print(f"{sum(value > target for value in sessions)} of 3 first pages of a browser session "
          f"over the {target:g} s target")


def _report_peers(rounds: list[dict[tuple[str, str], float]],
                  peers: list[dict[tuple[str, str], float]], kinds: tuple[str, ...]) -> None:
    """The peers' first pages and handlab's divided by them."""
    print(f"\npeers (median of {len(peers)} rounds; handlab's Overview / the peer's)")
    print("| page | " + " | ".join(SESSION_KINDS) + " |")
    print("|---|" + "---:|" * len(SESSION_KINDS))
    ours = [_median(rounds, "Overview", kind) for kind in SESSION_KINDS]
    for shown in map(peer, kinds):
        theirs = [_median(peers, shown.title, kind) for kind in SESSION_KINDS]
        print(f"| {shown.title} | " + " | ".join(
            f"{value:.2f} s (handlab {mine / value:.2f}x)"
            for mine, value in zip(ours, theirs, strict=True)) + " |")


def _report_floor(peers: list[dict[tuple[str, str], float]], kinds: tuple[str, ...]) -> None:
    """The peers alone (``--only-peers``), each divided by the first one named."""
    print(f"\npeers (median of {len(peers)} rounds; each over {peer(kinds[0]).title})")
    print("| page | " + " | ".join(SESSION_KINDS) + " |")
    print("|---|" + "---:|" * len(SESSION_KINDS))
    first = [_median(peers, peer(kinds[0]).title, kind) for kind in SESSION_KINDS]
    for shown in map(peer, kinds):
        theirs = [_median(peers, shown.title, kind) for kind in SESSION_KINDS]
        print(f"| {shown.title} | " + " | ".join(
            f"{value:.2f} s ({value / floor:.2f}x)"
            for value, floor in zip(theirs, first, strict=True)) + " |")


def _report_base(rounds: list[dict[tuple[str, str], float]],
                 base: list[dict[tuple[str, str], float]]) -> None:
    """This checkout's medians against the base checkout's, key by key."""
    print(f"\nthis checkout against --base (median of {len(rounds)} alternated rounds each)")
    print("| page | what | this | base | this/base |")
    print("|---|---|---:|---:|---:|")
    for title, kind in rounds[0]:
        if (title, kind) in base[0] and (title, kind) != ("Overview", "cold"):
            mine, theirs = _median(rounds, title, kind), _median(base, title, kind)
            print(f"| {title} | {kind} | {mine:.2f} | {theirs:.2f} | {mine / theirs:.2f}x |")


def _lake_round(lake: str, root_folder: Path, number: int, *, wait: bool, first: bool
                ) -> dict[tuple[str, str], float]:
    """A round on the lake, served as ``handlab serve --lake`` serves it: ``$HANDLAB_LAKE``
    naming it and ``$HANDLAB_DB`` its catalogue (a reader never writes to either)."""
    from analytics.warehouse.lake.catalogue import catalogue
    from analytics.warehouse.lake.store import open_store

    return _round(catalogue(lake), root_folder / f"streamlit-lake-{number}.log", wait=wait,
                  first=first, env={LAKE_ENV_VAR: open_store(lake).location("")})


def _compare(rounds: list[dict[tuple[str, str], float]],
             lake_rounds: list[dict[tuple[str, str], float]], *, first: bool) -> None:
    """Each page's median on the lake over the database's, rounds of the same run."""
    print("\nthe lake's median over the database's")
    print("| page | cold | warm | filter change |")
    print("|---|---:|---:|---:|")
    for page in PAGES[:3] if first else PAGES:
        cells = [f"{_median(lake_rounds, page.title, kind):.2f} / "
                 f"{_median(rounds, page.title, kind):.2f}"
                 if (page.title, kind) in rounds[0] else "-"
                 for kind in ("cold", "warm", "filter")]
        print(f"| {page.title} | {' | '.join(cells)} |")
    print(f"first load: {_median(lake_rounds, 'Overview', 'first load'):.2f} / "
          f"{_median(rounds, 'Overview', 'first load'):.2f} s; warm-up over after "
          f"{_median(lake_rounds, 'server', 'warm'):.2f} / "
          f"{_median(rounds, 'server', 'warm'):.2f} s")


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
    parser.add_argument("--first", action="store_true", help="Only a session's first pages: "
                        "the first load, Upload and Win rates cold after it, a returning tab "
                        "and a new browser.")
    parser.add_argument("--peers", action="store_true", help="Also time the peer pages "
                        "(benchmarks/peer_page.py: a minimal Streamlit page with a table, a plotly "
                        "chart or a Vega-Lite chart).")
    parser.add_argument("--peer", action="append", metavar="KIND", help="With --peers: "
                        "this peer page instead of the default table, chart and bar "
                        "(benchmarks/peer_page.py's HANDLAB_PEER: table+nav, table+filters, "
                        "table+overview, ...); repeatable.")
    parser.add_argument("--only-peers", action="store_true", help="Time the peers alone "
                        "(no handlab rounds): their first pages side by side.")
    parser.add_argument("--dwell", type=float, default=0.0, metavar="SECONDS",
                        help="Stay on the first load and each cold page this long before the "
                        "next click, as a user reading it (default 0: back to back).")
    parser.add_argument("--base", type=Path, metavar="PATH", help="Another checkout to run "
                        "alternated with this one each round (a worktree of main).")
    options = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="handlab-pages-") as folder:
        root_folder = Path(folder)
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
            None if options.lake or options.only_peers
            else ensure_database(root_folder / "samples.duckdb", SAMPLES))
        target = options.target or (2.0 if options.db or options.lake else 1.0)
        rounds: list[dict[tuple[str, str], float]] = []
        lake_rounds: list[dict[tuple[str, str], float]] = []
        base: list[dict[tuple[str, str], float]] = []
        peers: list[dict[tuple[str, str], float]] = []
        for number in range(options.repeats):
            # Alternated: odd rounds start with the base, so neither side always goes first.
            order = [(ROOT, rounds), (options.base, base)] if options.base else [(ROOT, rounds)]
            if source is None or options.only_peers:  # a lake alone, or the peers alone
                order = []
            for root, results in order[::-1] if number % 2 else order:
                assert source is not None
                served = root_folder / "served.duckdb"
                shutil.copy(source, served)
                Path(f"{served}.wal").unlink(missing_ok=True)
                results.append(_round(served, root_folder / f"streamlit-{number}.log",
                                      wait=not options.no_wait, first=options.first,
                                      dwell=options.dwell, root=root))
                served.unlink()
                side = "" if root == ROOT else " (base)"
                print(f"round {number + 1}{side}: " + ", ".join(
                    f"{title} {kind} {value:.2f}" for (title, kind), value in results[-1].items()),
                    flush=True)
            if options.lake is not None:
                lake_rounds.append(_lake_round(options.lake, root_folder, number,
                                               wait=not options.no_wait, first=options.first))
                print(f"round {number + 1} (lake): " + ", ".join(
                    f"{title} {kind} {value:.2f}"
                    for (title, kind), value in lake_rounds[-1].items()), flush=True)
            if options.peers or options.only_peers:
                timed: dict[tuple[str, str], float] = {}
                # Alternated too: odd rounds take the peers in the reverse order.
                kinds = options.peer or PEER_KINDS
                for kind in kinds[::-1] if number % 2 else kinds:
                    timed.update(_peer_round(peer(kind), root_folder / f"peer-{number}.log"))
                peers.append(timed)
                print(f"round {number + 1} (peers): " + ", ".join(
                    f"{title} {kind} {value:.2f}" for (title, kind), value in timed.items()),
                    flush=True)
        if source is not None:
            print(f"\ndatabase: {source}")
            _report(rounds, target, first=options.first)
        if options.lake is not None:
            print(f"\nlake: {options.lake}")
            _report(lake_rounds, target, first=options.first)
        if rounds and lake_rounds:
            _compare(rounds, lake_rounds, first=options.first)
        if base:
            _report_base(rounds, base)
        if peers and rounds:
            _report_peers(rounds, peers, tuple(options.peer or PEER_KINDS))
        elif peers:
            _report_floor(peers, tuple(options.peer or PEER_KINDS))


if __name__ == "__main__":
    main()
