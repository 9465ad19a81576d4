"""analytics/dashboard/assets.py: Streamlit's text files sent gzip-compressed from memory with
their cache headers, everything else left to Streamlit, and the plotly prefetch added to
HTML pages only."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from analytics.dashboard.assets import (
    STATIC,
    BrowserFiles,
    CompressedFiles,
    chart_chunk,
    prefetch_script,
)

_CHART = "PlotlyChart.Ab12_x.js"
_HTML = b"<html><head><title>x</title></head><body></body></html>"


@pytest.fixture
def static(tmp_path: Path) -> Path:
    """A small Streamlit-like static folder: index.html and static/{js,css,media}."""
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "css").mkdir()
    (tmp_path / "static" / "media").mkdir()
    (tmp_path / "index.html").write_bytes(_HTML)
    (tmp_path / "static" / "js" / "index.Q1.js").write_bytes(b"export const a = 1;\n" * 500)
    (tmp_path / "static" / "js" / _CHART).write_bytes(b"export const plot = 2;\n")
    (tmp_path / "static" / "js" / "PlotlyChart.Zz.js.map").write_bytes(b"{}")
    (tmp_path / "static" / "css" / "index.C1.css").write_bytes(b"body { margin: 0 }\n" * 50)
    (tmp_path / "static" / "media" / "font.W.woff2").write_bytes(b"\x00\x01binary")
    (tmp_path / "secret.js").write_bytes(b"not under static/")
    return tmp_path


class _Streamlit:
    """The inner app: records what reached it and answers ``body`` as ``kind``."""

    def __init__(self, body: bytes = b"from streamlit", kind: bytes = b"text/plain") -> None:
        self.paths: list[str] = []
        self.body, self.kind = body, kind

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", self.kind), (b"content-length", str(len(self.body)).encode())]})
        # In two parts: the middleware must wait for the whole page before adding to it.
        half = len(self.body) // 2
        await send({"type": "http.response.body", "body": self.body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": self.body[half:]})


def _get(app: Any, path: str, *, gzip_ok: bool = True, method: str = "GET",
         root_path: str = "") -> tuple[int, dict[bytes, bytes], bytes]:
    """One request through ``app``: status, headers, the whole body."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"accept-encoding", b"gzip, deflate, br")] if gzip_ok else []
    scope = {"type": "http", "method": method, "path": path, "headers": headers,
             "root_path": root_path}
    # In a thread of its own: a sync Playwright test earlier in this worker may have left
    # an event loop running in the main thread, where asyncio.run refuses to start.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, app(scope, receive, send)).result()
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body


def test_text_files_are_sent_compressed_with_streamlits_cache_headers(static: Path) -> None:
    inner = _Streamlit()
    app = BrowserFiles(inner, CompressedFiles(static), static)
    for path, kind in (("/static/js/index.Q1.js", b"text/javascript; charset=utf-8"),
                       ("/static/css/index.C1.css", b"text/css; charset=utf-8")):
        status, headers, body = _get(app, path)
        assert status == 200 and inner.paths == []
        assert gzip.decompress(body) == (static / path.lstrip("/")).read_bytes()
        assert len(body) < len(gzip.decompress(body))
        assert headers[b"content-encoding"] == b"gzip"
        assert headers[b"content-type"] == kind
        assert headers[b"content-length"] == str(len(body)).encode()
        assert headers[b"cache-control"] == b"public, immutable, max-age=31536000"
        assert headers[b"vary"] == b"Accept-Encoding"
    # HEAD: the same headers, no body.
    status, headers, body = _get(app, "/static/js/index.Q1.js", method="HEAD")
    assert status == 200 and body == b"" and headers[b"content-encoding"] == b"gzip"
    # Under a mount or a proxy's prefix, the path below it.
    status, headers, body = _get(app, "/app/static/js/index.Q1.js", root_path="/app")
    assert headers[b"content-encoding"] == b"gzip" and inner.paths == []


def test_everything_else_is_streamlits_answer(static: Path) -> None:
    inner = _Streamlit()
    app = BrowserFiles(inner, CompressedFiles(static), static)
    for path in ("/static/media/font.W.woff2",       # compressed already
                 "/static/js/missing.Q9.js",           # not a file: Streamlit's 404 or page
                 "/static/../secret.js", "/secret.js",  # outside static/: never read here
                 "/_stcore/health", "/media/abc.csv"):
        status, headers, body = _get(app, path)
        assert (status, body) == (200, b"from streamlit"), path
        assert b"content-encoding" not in headers and inner.paths[-1] == path
    # A browser that does not take gzip gets the file as Streamlit sends it.
    _, headers, body = _get(app, "/static/js/index.Q1.js", gzip_ok=False)
    assert body == b"from streamlit" and inner.paths[-1] == "/static/js/index.Q1.js"


def test_html_pages_get_the_prefetch_and_nothing_else_does(static: Path) -> None:
    page = _Streamlit(_HTML, b"text/html; charset=utf-8")
    app = BrowserFiles(page, CompressedFiles(static), static)
    script = prefetch_script(_CHART)
    for path in ("/", "/win_rates"):
        status, headers, body = _get(app, path)
        assert (status, body) == (200, _HTML.replace(b"</head>", script + b"</head>"))
        assert headers[b"content-length"] == str(len(body)).encode()
    assert f'import("./static/js/{_CHART}")'.encode() in script
    # A press on a link to a chart page starts the import; with no chart page, no link does.
    assert b'const charts = [];' in script
    with_pages = prefetch_script(_CHART, ("win_rates", "pots")).decode()
    assert 'const charts = ["pots", "win_rates"];' in with_pages
    app = BrowserFiles(page, CompressedFiles(static), static, chart_pages=("win_rates",))
    assert b'const charts = ["win_rates"];' in _get(app, "/")[2]
    # HEAD keeps Streamlit's length; a JSON answer and the server's own paths pass as sent.
    assert _get(app, "/", method="HEAD")[1][b"content-length"] == str(len(_HTML)).encode()
    json_answer = _Streamlit(b'{"a": "</head>"}', b"application/json")
    app = BrowserFiles(json_answer, CompressedFiles(static), static)
    assert _get(app, "/_stcore/host-config")[2] == b'{"a": "</head>"}'
    assert _get(app, "/anything")[2] == b'{"a": "</head>"}'


def test_without_a_plotly_chunk_pages_pass_unchanged(static: Path) -> None:
    (static / "static" / "js" / _CHART).unlink()
    assert chart_chunk(static) is None
    page = _Streamlit(_HTML, b"text/html")
    assert _get(BrowserFiles(page, CompressedFiles(static), static), "/")[2] == _HTML


def test_compress_all_holds_every_text_file_compressed(static: Path) -> None:
    files = CompressedFiles(static)
    paths = ["/static/js/index.Q1.js", f"/static/js/{_CHART}", "/static/js/PlotlyChart.Zz.js.map",
             "/static/css/index.C1.css"]
    assert [path in files for path in paths] == [True] * 4
    assert "/static/media/font.W.woff2" not in files and "/index.html" not in files
    held = files.compress_all()
    bodies = [files.ready(path) for path in paths]
    assert held == sum(len(body or b"") for body in bodies)
    assert [gzip.decompress(body or b"") for body in bodies] == [
        (static / path.lstrip("/")).read_bytes() for path in paths]


def test_the_installed_streamlit_has_the_plotly_chunk() -> None:
    """The prefetch names Streamlit's own chunk: a Streamlit that renames it would silently
    lose the prefetch, so this fails instead."""
    chunk = chart_chunk(STATIC)
    assert chunk is not None and (STATIC / "static" / "js" / chunk).is_file()
    assert chart_chunk(STATIC) == chunk  # one, chosen the same way each time
