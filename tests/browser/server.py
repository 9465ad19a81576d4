"""A private ``streamlit run app.py`` server for one test: its own free port, database and log.

The session-wide ``server`` fixture of conftest.py serves one shared warehouse; a test that
must stop the server to inspect what it wrote (tests/browser/test_concurrency.py) starts its
own with :func:`streamlit_server`, the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.browser.conftest import ROOT, free_port, stop_server, wait_healthy

__all__ = ["Server", "streamlit_server"]


@dataclass(frozen=True, slots=True)
class Server:
    """A running dashboard: its base URL, its process and the file its output goes to."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        """True while the server process has not exited."""
        return self.process.poll() is None

    def output(self) -> str:
        """What the server printed so far (stdout and stderr)."""
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def streamlit_server(db: Path, log: Path, *, timeout: float = 90.0,
                     env: dict[str, str] | None = None, script: str = "app.py",
                     root: Path = ROOT) -> Iterator[Server]:
    """``streamlit run app.py`` over ``db`` (``$HANDLAB_DB``) on a free port, healthy on entry,
    stopped on exit (so the database file is free again afterwards).  ``env``: more
    environment variables for the server (a planted bug's, say); ``script``: ``serve.py`` for
    the server ``handlab serve`` starts (app.py with the warm-up at start); ``root``: the
    checkout it is run from (another worktree's, for a benchmark's side-by-side rounds)."""
    port = free_port()
    environment = dict(os.environ, HANDLAB_DB=str(db), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
                       **(env or {}))
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(root / script),
             "--server.headless", "true", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=root, env=environment, stdout=output, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, process, timeout=timeout)
            yield Server(url, process, log)
        finally:
            stop_server(process)
