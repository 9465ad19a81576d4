"""``handlab serve`` stops its Streamlit server when it is stopped: by SIGTERM (a service
manager, ``kill``) and by SIGKILL (the kernel's parent-death signal, on Linux).  A reviewer
found the server left running with init as its parent and the port taken."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.warehouse import ENV_VAR, ingest
from parsers import write_hands
from tests.browser.conftest import free_port, wait_healthy

HANDLAB = Path(sys.executable).with_name("handlab")


def _servers(port: int) -> list[int]:
    """The pids of the processes serving ``port`` (their command line names it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--server.port" in words and str(port).encode() in words:
            found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PDEATHSIG")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_the_server_ends_with_handlab(tmp_path: Path, stop: signal.Signals) -> None:
    history = tmp_path / "b2.phhs"
    write_hands(list(simulate_bigtwo(5, 4, 1)), history)
    db = tmp_path / "w.duckdb"
    ingest([history], db, workers=0)
    port = free_port()
    process = subprocess.Popen([str(HANDLAB), "serve", "--port", str(port), "--headless"],
                               env=dict(os.environ, **{ENV_VAR: str(db)}),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process)
        assert _servers(port)
        process.send_signal(stop)
        process.wait(timeout=15)
        deadline = time.monotonic() + 15
        while _servers(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _servers(port), f"the server outlived handlab ({stop.name})"
    finally:
        for pid in _servers(port):
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
