"""The browser's files as ``serve.py`` serves them: compressed, cached, the charts fetched early.

A new browser's first page used to take 3 s, nearly all of it in the browser
(docs/performance.md, "Pages in Chromium"): Streamlit's ASGI server sends its 23 MB of
JavaScript and CSS uncompressed (its gzip middleware skips ``/static/``: it would compress
every file again on every request), and the plotly chunk alone (4.7 MB) took more of the
browser's main thread than the rest of the page.  :class:`BrowserFiles`, an ASGI middleware
``serve.py`` puts in front of Streamlit's own:

* answers ``/static/...`` text files (JavaScript, CSS, JSON, SVG) gzip-compressed from
  memory, each compressed once (:meth:`BrowserFiles.compress_all` at start, or at its first
  request), with the cache headers Streamlit gives them (content-hashed names: immutable
  for a year); other files, and browsers that do not accept gzip, get Streamlit's answer;
* adds to each HTML page a small script that fetches and runs the plotly chunk once the
  first page has settled and the browser is idle, or as soon as a sidebar link to a page
  with charts is pressed: the Overview's first view has no chart (its chart opens on
  demand), and the first page with a chart then finds plotly loaded or loading.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import mimetypes
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from streamlit import file_util

__all__ = ["COMPRESSED_SUFFIXES", "PREFETCH_DELAY_MS", "STATIC", "BrowserFiles",
           "CompressedFiles", "chart_chunk", "prefetch_script", "static_files"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

STATIC: Final = Path(file_util.get_static_dir())
"""Streamlit's frontend: ``index.html`` and the hashed files under ``static/``."""

COMPRESSED_SUFFIXES: Final = frozenset({".js", ".css", ".json", ".svg", ".map", ".txt"})
"""Text files worth compressing (fonts and images are compressed already)."""

_CACHE_CONTROL: Final = b"public, immutable, max-age=31536000"  # Streamlit's, for hashed files
_LEVEL: Final = 6  # zlib's default: 23 MB in 0.5 s of CPU, to 7 MB (level 9 gains ~1 %)
_PAGE_PREFIXES: Final = ("/_stcore", "/static", "/media", "/component", "/app/static")


def chart_chunk(static: Path = STATIC) -> str | None:
    """The file name of Streamlit's plotly chunk (``PlotlyChart.<hash>.js``), None if absent
    (another Streamlit build: nothing is prefetched then)."""
    found = sorted(path.name for path in (static / "static" / "js").glob("PlotlyChart.*.js")
                   if path.name.count(".") == 2)
    return found[0] if found else None


PREFETCH_DELAY_MS: Final = 1000
"""How long the first page stays settled before the plotly chunk is run (a user reads it):
its start is one long task on the browser's main thread (4.5-5 s at load 27), which a click
in that time waits for, so it does not start at once."""


def prefetch_script(chunk: str, chart_pages: Sequence[str] = ()) -> bytes:
    """The script added to each HTML page: import ``chunk`` (a module runs once per page:
    the chart that asks for it later gets it at once; a chart that asked before shares the
    same import) at the first of

    * the first script run over (seen running, or its elements drawn, and not running now),
      nothing waiting for its code or stale, :data:`PREFETCH_DELAY_MS` passed and the
      browser idle: never during the first page's own run, whose state reads "not running"
      before it starts;
    * a press on a sidebar link to one of ``chart_pages`` (URL paths: pages that draw plotly
      charts): plotly starts while the server runs that page's script instead of after its
      first chart arrives."""
    pages = json.dumps(sorted(chart_pages))
    return (
        "<script type=\"module\">"
        "let started = false, ran = false;"
        "const run = () => { if (!started) { started = true;"
        " import(\"./static/js/" + chunk + "\"); } };"
        "const state = () => document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state');"
        "const watch = new MutationObserver(() => { if (state() === 'running') {"
        " ran = true; watch.disconnect(); } });"
        "watch.observe(document, {subtree: true, childList: true, attributes: true});"
        "const drawn = () => ran || document.querySelector("
        "'[data-testid=\"stMain\"] [data-testid=\"stElementContainer\"]') !== null;"
        "const ready = () => state() === 'notRunning' && drawn()"
        " && document.querySelector('[data-testid=\"stSkeleton\"]') === null"
        " && document.querySelector('[data-stale=\"true\"]') === null;"
        "const later = () => (window.requestIdleCallback"
        " ? requestIdleCallback(run, {timeout: 3000}) : run());"
        "const wait = () => started ? null : ready() ? setTimeout(later, "
        + str(PREFETCH_DELAY_MS) + ") : setTimeout(wait, 250);"
        "addEventListener('load', () => setTimeout(wait, 250));"
        "const charts = " + pages + ";"
        "addEventListener('pointerdown', (event) => { const link = event.target.closest"
        " && event.target.closest('[data-testid=\"stSidebarNav\"] a');"
        " if (link && charts.includes(link.pathname.split('/').pop())) { run(); } }, true);"
        "</script>").encode("utf-8")


def _accepts_gzip(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"accept-encoding":
            codings = {part.split(";", 1)[0].strip() for part in value.decode("latin-1").split(",")}
            if "gzip" in codings or "*" in codings:
                return True
    return False


def _route_path(scope: Scope) -> str:
    """The request's path below the app's root (a mount's or a proxy's prefix removed)."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and (path == root or path.startswith(f"{root}/")):
        return path[len(root):] or "/"
    return path


class CompressedFiles:
    """Streamlit's text files under ``static/`` by URL path, each gzip-compressed once and
    kept in memory (about 7 MB for 23 MB)."""

    def __init__(self, static: Path = STATIC) -> None:
        root = static.resolve()
        # Every file that may be sent, by URL path: nothing outside this map is read here.
        self._files: dict[str, Path] = {
            "/" + path.relative_to(root).as_posix(): path
            for path in (root / "static").rglob("*")
            if path.is_file() and path.suffix in COMPRESSED_SUFFIXES}
        self._gzipped: dict[str, bytes] = {}

    def __contains__(self, path: object) -> bool:
        return path in self._files

    def ready(self, path: str) -> bytes | None:
        """The compressed body of ``path`` if it is compressed already."""
        return self._gzipped.get(path)

    def compressed(self, path: str) -> bytes:
        """The compressed body of ``path`` (one of these files), compressing it if needed."""
        body = self._gzipped.get(path)
        if body is None:
            body = gzip.compress(self._files[path].read_bytes(), _LEVEL, mtime=0)
            self._gzipped[path] = body
        return body

    def compress_all(self) -> int:
        """Compress every file not compressed yet (at start, off the event loop: 0.5 s of
        CPU); the number of bytes held compressed."""
        for path in self._files:
            self.compressed(path)
        return sum(len(body) for body in self._gzipped.values())


@cache
def static_files() -> CompressedFiles:
    """The process's one :class:`CompressedFiles` (the middleware's and the warm-up's)."""
    return CompressedFiles()


class BrowserFiles:
    """ASGI middleware: Streamlit's text files gzip-compressed from memory, and the plotly
    chunk prefetched by every HTML page (module docstring)."""

    def __init__(self, app: App, files: CompressedFiles | None = None,
                 static: Path = STATIC, chart_pages: Sequence[str] = ()) -> None:
        self.app = app
        self._files = static_files() if files is None else files
        chunk = chart_chunk(static)
        self._script = prefetch_script(chunk, chart_pages) if chunk else b""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = _route_path(scope)
        if path in self._files and _accepts_gzip(scope):
            await self._send_gzipped(scope, path, send)
        elif self._script and scope["method"] == "GET" and not path.startswith(_PAGE_PREFIXES):
            await self.app(scope, receive, self._with_script(send))
        else:
            await self.app(scope, receive, send)

    async def _send_gzipped(self, scope: Scope, path: str, send: Send) -> None:
        body = self._files.ready(path)
        if body is None:
            body = await asyncio.to_thread(self._files.compressed, path)
        kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith(("javascript", "json", "+xml")):
            kind += "; charset=utf-8"
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", kind.encode("latin-1")), (b"content-encoding", b"gzip"),
            (b"content-length", str(len(body)).encode("latin-1")),
            (b"cache-control", _CACHE_CONTROL), (b"vary", b"Accept-Encoding")]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})

    def _with_script(self, send: Send) -> Send:
        """``send`` adding the prefetch script to an HTML answer (any other passes as is)."""
        start: Message = {}
        parts: list[bytes] = []

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                named = dict(message.get("headers", ()))
                if not named.get(b"content-type", b"").startswith(b"text/html") or \
                        named.get(b"content-encoding"):
                    start["pass"] = True
                    await send(message)
                    return
                start.update(message)
                return
            if start.get("pass") or message["type"] != "http.response.body":
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(parts).replace(b"</head>", self._script + b"</head>", 1)
            headers = [(name, value) for name, value in start.get("headers", ())
                       if name != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode("latin-1")))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        return sending
