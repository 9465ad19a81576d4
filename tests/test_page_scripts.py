"""The dashboard's page scripts draw only what they mean to.

Streamlit's "magic" draws the value of every bare expression in a script it runs (the
pages and ``app.py``): a string left after a type alias as its docstring appeared at
the top of the Hand types page as developer prose.  Only the script's own docstring and
each function's or class's docstring are left alone by it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "analytics" / "dashboard" / "pages").glob("*.py")) + [
    ROOT / "app.py", ROOT / "serve.py"]


def drawn_by_magic(source: str) -> list[tuple[int, str]]:
    """The bare expressions magic would draw (line, text): any expression statement that
    is not a call and not the first statement (the docstring) of its body."""
    found = []
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            if not isinstance(statement, ast.Expr):
                continue
            value = statement.value
            docstring = index == 0 and isinstance(value, ast.Constant) and isinstance(
                value.value, str) and isinstance(
                    node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if not docstring and not isinstance(value, ast.Call | ast.Await):
                found.append((statement.lineno, ast.unparse(value)[:60]))
    return found


def test_the_check_finds_a_string_after_an_alias() -> None:
    source = '"""The page."""\nAlias = int\n"""What the alias is."""\nx = 1\nx\nrender()\n'
    assert drawn_by_magic(source) == [(3, "'What the alias is.'"), (5, "x")]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_page_script_has_a_bare_expression(script: Path) -> None:
    assert drawn_by_magic(script.read_text(encoding="utf-8")) == []


def test_every_chart_is_drawn_through_ui_plotly_chart() -> None:
    """Plotly reads HTML in names and labels: a page draws its charts through
    ``ui.plotly_chart``, which draws them as text (``charts.as_drawn``), never through
    ``st.plotly_chart`` itself."""
    dashboard = ROOT / "analytics" / "dashboard"
    direct = [str(path.relative_to(ROOT)) for path in [*dashboard.rglob("*.py"), *SCRIPTS]
              if path.name != "ui.py" and "st.plotly_chart(" in path.read_text(encoding="utf-8")]
    assert not direct, direct
