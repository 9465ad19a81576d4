"""A ``streamlit run app.py`` server on a free port over a small simulated warehouse, and a
headless Chromium (Debian's, driven by Playwright) to look at it."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from tests.test_dashboard_data import build_dashboard_db

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "tests" / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SETTLED = ("() => document.querySelector('[data-testid=\"stApp\"]')"
           "?.getAttribute('data-test-script-state') === 'notRunning'")
"""True when the page's script has finished running (Streamlit's app state)."""
RUN_COUNTER = """
(() => {
  const STATE = "data-test-script-state";
  let finished = 0;
  Object.defineProperty(window, "handlabRunsFinished", {get: () => finished});
  new MutationObserver((records) => {
    records.forEach((record, at) => {
      const next = records.slice(at + 1).find((later) => later.target === record.target);
      const value = next ? next.oldValue : record.target.getAttribute(STATE);
      if (record.oldValue !== "notRunning" && value === "notRunning") finished += 1;
    });
  }).observe(document, {attributes: true, attributeOldValue: true, subtree: true,
                        attributeFilter: [STATE]});
})();
"""
"""Runs in every document of a context made by :func:`new_page`: counts the script runs
that have finished (the app's state turned back to ``notRunning``), so that
:func:`rerun` waits for the run a click starts, not a fixed time."""
RERUN_WAIT_MS = 10_000
"""How long :func:`rerun` waits for the run its action starts to finish before it falls
back to :func:`settle` (a run too quick for the browser to draw its ``running`` state)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Stop a server: politely, then by force if it has not gone within 15 s."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy within {timeout:.0f} s")


@pytest.fixture(scope="session")
def browser_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's private copy of the test warehouse (tests may read it, read-only)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium "
                    "(apt-get install -y chromium)")
    db = tmp_path_factory.mktemp("browser-db") / "browser.duckdb"
    shutil.copy(build_dashboard_db(tmp_path_factory.mktemp("browser-source")), db)
    return db


@pytest.fixture(scope="session")
def browser_recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder where the server keeps the tables recorded or played (tests read it)."""
    return tmp_path_factory.mktemp("recorded")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, browser_db: Path,
           browser_recorded: Path) -> Iterator[str]:
    """The base URL of a dashboard over a private copy of the test warehouse."""
    from tests.browser.server import streamlit_server  # it imports this module

    env = {"HANDLAB_RECORDED": str(browser_recorded), "HANDLAB_BOT_PAUSE": "0.05"}
    log = tmp_path_factory.mktemp("browser") / "streamlit.log"
    with streamlit_server(browser_db, log, env=env) as running:
        yield running.url


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium (Debian's, driven by Playwright's sync API) for every browser
    test of the session: the sync API runs one Playwright per thread, so tests that need a
    server of their own open a context of this browser rather than a Playwright."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


REDUCED_MOTION: Final = "reduce"
"""The contexts of the tests ask for reduced motion: Streamlit then skips its transitions,
a quarter of Chromium's work per script run (the picker's click, a page opened)."""


def new_page(chromium: Any, **options: Any) -> Any:
    """A page in a new context of ``chromium`` (``options``: the context's), with reduced
    motion, counting its script runs for :func:`rerun`, waiting up to a minute a step;
    close its ``context``."""
    context = chromium.new_context(reduced_motion=REDUCED_MOTION, **options)
    context.add_init_script(RUN_COUNTER)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return page


@pytest.fixture(scope="session")
def browser_page(server: str, chromium: Any) -> Iterator[object]:
    """A Playwright page in headless Chromium, downloads allowed."""
    page = new_page(chromium, viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    try:
        yield page
    finally:
        page.context.close()


@pytest.fixture
def patient_page(browser_page: Any) -> Iterator[Any]:
    """The shared page, waiting up to 3 minutes a step (a plotly page on the shared
    machine's busiest minutes took over one), as before afterwards."""
    browser_page.set_default_timeout(180_000)
    try:
        yield browser_page
    finally:
        browser_page.set_default_timeout(60_000)


def settle(page: Any) -> None:
    """Wait until the page's script has finished running (Streamlit's app state)."""
    page.wait_for_function(SETTLED)


def rerun(page: Any, action: Callable[[], object]) -> None:
    """Do ``action`` (a click, a key pressed in a widget: something that reruns the script)
    and wait until the run it starts has finished.  Just after a click the app's state still
    reads ``notRunning`` (the server has not answered yet), so :func:`settle` alone may
    return before the run; a page of :func:`new_page` counts the runs finished instead of
    sleeping a fixed time."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = page.evaluate("() => window.handlabRunsFinished ?? null")
    action()
    if before is None:  # not a page of new_page: no count to wait on
        settle(page)
        return
    try:
        page.wait_for_function(
            f"before => window.handlabRunsFinished > before && ({SETTLED})()", arg=before,
            timeout=RERUN_WAIT_MS)
    except PlaywrightTimeout:
        settle(page)
