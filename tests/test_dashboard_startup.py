"""The server's warm-up (analytics/dashboard/startup.py): what it imports and what it says."""

from __future__ import annotations

import ast
import asyncio
import sys
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from analytics.dashboard import startup

SERVE = Path(__file__).resolve().parents[1] / "serve.py"


def test_page_imports_read_every_absolute_import_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nfrom json import dumps, loads\n"
                                   "from . import sibling\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import os, csv\nfrom json import dumps\n",
                                   encoding="utf-8")
    assert startup.page_imports(tmp_path) == ("os", "json", "json.dumps", "json.loads", "csv")


def test_chart_pages_are_the_scripts_that_draw_a_plotly_chart(tmp_path: Path) -> None:
    (tmp_path / "win_rates.py").write_text("from analytics.dashboard import ui\n"
                                           "ui.plotly_chart(f)\n", encoding="utf-8")
    (tmp_path / "upload.py").write_text("import streamlit as st\nst.file_uploader('x')\n",
                                        encoding="utf-8")
    (tmp_path / "pots.py").write_text("ui.plotly_chart(a)\nui.plotly_chart(b)\n",
                                      encoding="utf-8")
    assert startup.chart_pages(tmp_path) == ("pots", "win_rates")
    # The dashboard's own: every page that draws plotly charts, none that does not.
    pages = startup.chart_pages()
    assert {"win_rates", "pots", "hand_types", "statistics"} <= set(pages)
    assert not {"upload", "record", "play"} & set(pages)


def test_the_pages_modules_are_imported(tmp_path: Path) -> None:
    startup.import_pages()
    names = startup.page_imports()
    assert "analytics.dashboard.ui" in names and "analytics.dashboard.charts" in names
    for name in names:
        module, _, attribute = name.rpartition(".")
        assert name in sys.modules or hasattr(sys.modules[module], attribute), name


def test_an_attribute_is_no_module_but_a_missing_module_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "page.py").write_text("from os import path, sep\nimport tests.mutate\n",
                                      encoding="utf-8")
    startup.import_pages(tmp_path)  # os.sep is an attribute: nothing to import
    assert "tests.mutate" in sys.modules
    (tmp_path / "broken.py").write_text("import handlab_no_such_module\n", encoding="utf-8")
    with pytest.raises(ModuleNotFoundError):
        startup.import_pages(tmp_path)


def _run(coroutine: Coroutine[Any, Any, tuple[bool, str]]) -> tuple[bool, str]:
    """``asyncio.run`` in a thread of its own: a test before this one on the same worker may
    leave an event loop running in this thread (Playwright's sync API does)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class _Runtime:
    """Stands in for Streamlit's runtime: its "does the script run" answer, or an error."""

    def __init__(self, answer: tuple[bool, str] | Exception) -> None:
        self.answer = answer
        self.runs = 0

    async def does_script_run_without_error(self) -> tuple[bool, str]:
        self.runs += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_warm_up_runs_the_page_once_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    runtime = _Runtime((True, "ok"))
    ok, line = _run(startup.warm_up(runtime))
    assert ok and runtime.runs == 1
    assert line.startswith(startup.WARM_MARK) and line.endswith("(ok)")
    assert capsys.readouterr().err.strip() == line


def test_a_failed_warm_up_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    ok, line = _run(startup.warm_up(_Runtime((False, "error"))))
    assert not ok and line.endswith("(error)")
    ok, line = _run(startup.warm_up(_Runtime(RuntimeError("database busy"))))
    assert not ok and line == "handlab: warm-up stopped: RuntimeError: database busy"
    assert "database busy" in capsys.readouterr().err


def test_serve_py_is_an_app_streamlit_finds_with_the_warm_up() -> None:
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(SERVE)
    assert found.is_asgi_app and found.app_name == "app"
    call = next(node for node in ast.walk(ast.parse(SERVE.read_text(encoding="utf-8")))
                if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "App")
    assert ast.literal_eval(call.args[0]) == "app.py"
    assert [k.arg for k in call.keywords] == ["lifespan", "middleware"]
