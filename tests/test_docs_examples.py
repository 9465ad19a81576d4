"""The examples of docs/format.md and docs/examples/ are legal hands: the rules engines agree;
docs/RULES.md is the team's spec."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from analytics.rules import replay
from parsers import loads_hands, read_hands

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCKS = re.findall(r"```toml\n(.*?)```", (DOCS / "format.md").read_text(encoding="utf-8"), re.S)
COMPLETE = [block for block in BLOCKS if '"...",' not in block]


@pytest.mark.parametrize("block", COMPLETE, ids=lambda b: b.split('variant = "')[1][:3])
def test_format_examples_replay_to_their_stated_results(block: str) -> None:
    (hand,) = loads_hands(block)
    outcome = replay(hand)  # raises RuleError if the example is illegal or its results are wrong
    board_change = 0
    if outcome.board_after is not None:  # Rummoli: chips may stay on the board
        board_change = sum(outcome.board_after) - sum(hand.board_before or ())
    assert sum(outcome.nets) + board_change == 0
    if hand.finishing_stacks is not None:
        assert outcome.finishing_stacks == hand.finishing_stacks


@pytest.mark.parametrize("path", sorted((DOCS / "examples").glob("*.phh*")), ids=lambda p: p.name)
def test_example_files_replay(path: Path) -> None:
    for hand in read_hands(path):
        assert hand.ok, hand.errors
        replay(hand)


def test_there_is_a_complete_example_per_game() -> None:
    games = {hand.game for block in COMPLETE for hand in loads_hands(block)}
    games |= {hand.game for path in (DOCS / "examples").glob("*.phh*") for hand in read_hands(path)}
    assert {game.value for game in games if game} == {"rummoli", "bigtwo", "seveneight"}


TEAM_RULES = DOCS.parent.parent / "shared" / "RULES.md"
"""The team's rules spec, beside the repository where the team works (not in a clone)."""


@pytest.mark.skipif(not TEAM_RULES.exists(), reason="no team spec beside this clone")
def test_docs_rules_is_the_team_spec() -> None:
    """docs/RULES.md, the spec every "RULES.md N" in the code and docs names, is the team's
    current one: a changed spec fails here until the copy (and the engines) follow it."""
    assert (DOCS / "RULES.md").read_text(encoding="utf-8") == TEAM_RULES.read_text(
        encoding="utf-8")


ROOT = DOCS.parent
CODE_PACKAGES = ("analytics", "parsers")
NOT_MODULES = frozenset({"hand", "state", "rules", "actions", "hands", "seats"})
"""Words before a dot in the docs that are a variable, a JSON object or a table (``hand.errors``,
``rules.lead_card``, ``actions.street``), though a module has the same name."""
DELETED_NAMES = frozenset({"facts.PotHold", "parsers.fastpath", "parsers.fastinit",
                           "views.cumulative_net"})
"""Names the docs mention as deleted (the history of a choice), which no module holds."""
FILE_SUFFIXES = frozenset({"py", "md", "phh", "phhs", "duckdb", "json", "txt", "csv", "html"})


@functools.cache
def _top_level_names(path: Path) -> frozenset[str]:
    """What a module (a file) or a package (a folder: its ``__init__`` and its modules)
    defines or imports at its top level, read with ``ast`` (no import: a page script would
    run); read once per file, however often the docs name it."""
    if path.is_dir():
        children = {child.stem for child in path.iterdir()
                    if child.suffix == ".py" or (child / "__init__.py").exists()}
        return frozenset(children | _top_level_names(path / "__init__.py"))
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return frozenset(names)


def _modules_by_name() -> dict[str, list[Path]]:
    """Every module and package of the code by its last name (``views``: its file)."""
    found: dict[str, list[Path]] = {}
    for package in CODE_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            target = path.parent if path.name == "__init__.py" else path
            name = target.name if target.is_dir() else target.stem
            found.setdefault(name, []).append(target)
    return found


def test_code_names_in_the_docs_exist() -> None:
    """Every ``module.name`` the docs and README write in backticks (``views.stakes_words``,
    ``lake.core.commit``) is defined or imported by a module of that name: a renamed or
    deleted function fails here until the docs follow it."""
    modules = _modules_by_name()
    wrong = []
    for doc in [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for code in re.findall(r"`([^`]+)`", line):
                for found in re.finditer(r"(?<![\w./])([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)", code):
                    module, name = found.groups()
                    if (module not in modules or module in NOT_MODULES
                            or name in FILE_SUFFIXES or f"{module}.{name}" in DELETED_NAMES):
                        continue
                    if not any(name in _top_level_names(path) for path in modules[module]):
                        wrong.append(f"{doc.name}:{number}: {module}.{name}")
    assert not wrong, wrong
