"""The dashboard server's warm-up: what one process does once, before the first browser comes.

A server's first script run used to pay for everything a process does once: importing
pandas, scipy, plotly and the dashboard's modules (about 3 s of CPU), DuckDB's first
connection, plotly's first figure of each kind and the first page's questions: the first
page after a start took 4.2-4.6 s against 0.5 s for the same page later
(docs/performance.md).  ``serve.py`` runs ``app.py`` as Streamlit's ASGI app with
:func:`lifespan`, which starts :func:`warm_up` when the server starts, in the background
(the server answers at once; a browser that comes during the warm-up shares what is done):

1. every module the page scripts import (read from their source, so a new page's imports
   are warmed without a list to keep);
2. one headless run of the app's default page with the default filters (Streamlit's own
   "does the script run" session), which fills the ``st.cache_data`` answers a new browser
   session's first page asks: the filter choices, the data version, the Overview's
   questions.

It prints one line when done (``handlab: warm-up done ...``; benchmarks/bench_pages.py
waits for it), then compresses the browser's files (analytics/dashboard/assets.py).
``streamlit run app.py`` still works, without the warm-up.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

from analytics.dashboard.assets import static_files

__all__ = ["PAGES", "WARM_MARK", "chart_pages", "import_pages", "lifespan", "page_imports",
           "warm_up"]

PAGES: Final = Path(__file__).resolve().parent / "pages"
"""The page scripts (``st.navigation`` runs them: app.py)."""

WARM_MARK: Final = "handlab: warm-up done"
"""The start of the line :func:`warm_up` prints when it is over."""


def page_imports(folder: Path = PAGES) -> tuple[str, ...]:
    """The absolute imports of the page scripts in ``folder``, in order, each once: a module,
    or ``module.name`` for ``from module import name`` (a submodule or an attribute)."""
    found: dict[str, None] = {}
    for script in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update((alias.name, None) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found[node.module] = None
                found.update((f"{node.module}.{alias.name}", None) for alias in node.names)
    return tuple(found)


def chart_pages(folder: Path = PAGES) -> tuple[str, ...]:
    """The URL paths of the pages whose script draws a plotly chart (``ui.plotly_chart``),
    read from their source: the page's path is its script's name (``st.Page``'s default)."""
    return tuple(sorted(script.stem for script in folder.glob("*.py")
                        if "ui.plotly_chart(" in script.read_text(encoding="utf-8")))


def import_pages(folder: Path = PAGES) -> int:
    """Import what the page scripts import; the number of modules imported.

    ``module.name`` is imported as a module when ``name`` is a submodule; an attribute
    (a function, a class) is there once its module is.
    """
    before = len(sys.modules)
    for name in page_imports(folder):
        module, _, attribute = name.rpartition(".")
        if module and attribute and hasattr(sys.modules.get(module), attribute):
            continue
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            if not module or error.name != name:  # a module missing: the page fails too
                raise
    return len(sys.modules) - before


async def warm_up(runtime: Any) -> tuple[bool, str]:
    """Import the pages' modules, then run the default page once headless on ``runtime``
    (a started ``streamlit.runtime.Runtime``); whether that run ended without an error, and
    the line printed."""
    started = time.perf_counter()
    try:
        modules = await asyncio.to_thread(import_pages)
        imported = time.perf_counter()
        ok, message = await runtime.does_script_run_without_error()
    except Exception as error:  # the pages show the same error to the user: never stop here
        line = f"handlab: warm-up stopped: {type(error).__name__}: {error}"
        print(line, file=sys.stderr, flush=True)
        return False, line
    done = time.perf_counter()
    line = (f"{WARM_MARK} in {done - started:.1f} s: {modules} modules imported in "
            f"{imported - started:.1f} s, the first page run in {done - imported:.1f} s "
            f"({message})")
    print(line, file=sys.stderr, flush=True)
    return ok, line


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """``st.App``'s lifespan: start :func:`warm_up` in the background when the server starts
    (the runtime is started by then), cancel it if the server stops first."""
    from streamlit.runtime import Runtime

    del app  # the runtime is the process's one Runtime
    async def start() -> None:
        await warm_up(Runtime.instance())
        await asyncio.to_thread(static_files().compress_all)

    task = asyncio.create_task(start(), name="handlab warm-up")
    try:
        yield
    finally:
        task.cancel()
