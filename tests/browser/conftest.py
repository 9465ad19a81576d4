"""A ``streamlit run app.py`` server on a free port over a small simulated warehouse, and a
headless Chromium (Debian's, driven by Playwright) to look at it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_dashboard_data import build_dashboard_db

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "tests" / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


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
    folder = tmp_path_factory.mktemp("browser")
    db = browser_db
    port = free_port()
    log = (folder / "streamlit.log").open("wb")
    environment = dict(os.environ, HANDLAB_DB=str(db), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
                       HANDLAB_RECORDED=str(browser_recorded), HANDLAB_BOT_PAUSE="0.05")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
         "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
        yield url
    finally:
        stop_server(process)
        log.close()


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


@pytest.fixture(scope="session")
def browser_page(server: str, chromium: Any) -> Iterator[object]:
    """A Playwright page in headless Chromium, downloads allowed."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000},
                                   accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        yield page
    finally:
        context.close()


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
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state') === 'notRunning'")
