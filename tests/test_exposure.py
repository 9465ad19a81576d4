"""Exposure: the dashboard is private unless someone means to share it.

The Streamlit config binds to localhost, keeps XSRF protection on, limits
uploads and sends no usage statistics; ``handlab serve`` binds to 127.0.0.1
unless told otherwise; the upload page passes limits tighter than the command
line's.  The last test starts the real server with the project's config and
checks the socket it listens on and that an upload without the XSRF token is
refused.
"""

from __future__ import annotations

import ast
import importlib
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Final

import pytest
from typer.testing import CliRunner

from analytics import cli
from analytics.warehouse import Limits
from tests.browser.conftest import stop_server

ROOT: Final = Path(__file__).resolve().parent.parent
CONFIG: Final = ROOT / ".streamlit" / "config.toml"
UPLOAD_PAGE: Final = ROOT / "analytics" / "dashboard" / "pages" / "upload.py"


def config() -> dict[str, Any]:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))


def test_config_is_private_by_default() -> None:
    settings = config()
    server = settings["server"]
    assert server["address"] in ("127.0.0.1", "localhost")
    assert server["enableXsrfProtection"] is True
    assert server.get("enableCORS", True) is True
    assert 1 <= server["maxUploadSize"] <= 200  # MB
    assert settings["browser"]["gatherUsageStats"] is False
    assert settings.get("client", {}).get("showErrorDetails") in (False, "none")


def test_serve_binds_to_localhost_by_default(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    calls: list[list[str]] = []
    module = importlib.import_module("analytics.warehouse.pipeline.run")
    monkeypatch.setattr(module, "ensure_database", lambda *args, **kwargs: tmp_path / "db")

    class Server:
        """Stands in for the streamlit process: records the command, exits at once."""

        def __init__(self, command: list[str], **kwargs: object) -> None:
            calls.append(command)

        def wait(self) -> int:
            return 0

        def poll(self) -> int:
            return 0

    monkeypatch.setattr(subprocess, "Popen", Server)
    handlers = [signal.getsignal(stop) for stop in (signal.SIGTERM, signal.SIGHUP)]
    result = CliRunner().invoke(cli.app, ["serve", "--headless"])
    assert result.exit_code == 0, result.output
    # Its stop handlers went with its server: left in place, the pools this process forked
    # later ignored their own SIGTERM, and the test run hung at pool.terminate().
    assert [signal.getsignal(stop) for stop in (signal.SIGTERM, signal.SIGHUP)] == handlers
    (command,) = calls
    assert Path(command[command.index("run") + 1]).name == "serve.py"  # with the warm-up
    assert command[command.index("--server.address") + 1] == "127.0.0.1"
    assert command[command.index("--browser.gatherUsageStats") + 1] == "false"
    assert "--server.enableXsrfProtection" not in command  # never turned off from the CLI
    calls.clear()
    CliRunner().invoke(cli.app, ["serve", "--host", "0.0.0.0", "--headless"])
    assert calls[0][calls[0].index("--server.address") + 1] == "0.0.0.0"  # only when asked


def _upload_constants() -> dict[str, Any]:
    """MAX_FILE_MB and UPLOAD_LIMITS as the upload page defines them (read, not imported:
    importing a page runs it)."""
    tree = ast.parse(UPLOAD_PAGE.read_text(encoding="utf-8"))
    found: dict[str, Any] = {}
    for node in tree.body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.value and node.target.id in ("MAX_FILE_MB", "UPLOAD_LIMITS")):
            code = compile(ast.Expression(node.value), str(UPLOAD_PAGE), "eval")
            found[node.target.id] = eval(code, {"Limits": Limits, **found})
    return found


def test_upload_page_limits_are_tighter_than_the_command_line() -> None:
    constants = _upload_constants()
    limits, cli_limits = constants["UPLOAD_LIMITS"], Limits()
    assert isinstance(limits, Limits)
    assert constants["MAX_FILE_MB"] <= config()["server"]["maxUploadSize"]
    assert limits.max_file_bytes <= constants["MAX_FILE_MB"] * 1024**2
    assert limits.max_uncompressed_bytes <= 1024**3 < cli_limits.max_uncompressed_bytes
    assert limits.max_members <= cli_limits.max_members
    assert limits.max_ratio <= cli_limits.max_ratio
    source = UPLOAD_PAGE.read_text(encoding="utf-8")
    assert "limits=UPLOAD_LIMITS" in source  # the page passes them to ingest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp*) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/net/tcp")
@pytest.mark.parametrize("script", ["app.py", "serve.py"])  # serve.py: what handlab serve runs
def test_real_server_listens_on_loopback_only_and_checks_xsrf(tmp_path: Path,
                                                              script: str) -> None:
    port = _free_port()
    environment = dict(os.environ, HANDLAB_DB=str(tmp_path / "none.duckdb"))
    log = (tmp_path / "streamlit.log").open("wb")
    # The project's config file only (no --server.address): what `streamlit run` does here.
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / script),
         "--server.port", str(port), "--server.headless", "true"],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, (tmp_path / "streamlit.log").read_text()
            assert time.monotonic() < deadline, "streamlit did not start"
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        addresses = _listening(port)
        assert addresses == {"0100007F"}, addresses  # 127.0.0.1 only: no 0.0.0.0, no ::
        # An upload without the XSRF cookie and header is refused.
        request = urllib.request.Request(f"{url}/_stcore/upload_file/session/file",
                                         data=b"x", method="PUT")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403, refused.value.code  # XSRF check, before anything
    finally:
        stop_server(process)
        log.close()
