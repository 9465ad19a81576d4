"""Golden files: valid histories read cleanly, invalid ones give exactly the recorded errors.

Regenerate the ``.errors`` and ``.canonical`` files with
``UPDATE_GOLDEN=1 pytest tests/test_parsers_golden.py`` after checking the differences by eye.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from parsers import dumps_hands, loads_hands, read_hands

DATA = Path(__file__).parent / "data"
def _histories(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".phh", ".phhs"))


VALID = _histories(DATA / "valid")
INVALID = _histories(DATA / "invalid")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _check_golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"golden file {path} is missing (run with UPDATE_GOLDEN=1)"
    assert actual == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_files_read_without_errors(path: Path) -> None:
    hands = list(read_hands(path))
    assert hands, "no hand read"
    for hand in hands:
        assert hand.errors == (), [str(e) for e in hand.errors]
        assert hand.source == str(path)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_files_write_canonically(path: Path) -> None:
    hands = list(read_hands(path))
    text = dumps_hands(hands)
    _check_golden(path.with_suffix(path.suffix + ".canonical"), text)
    assert loads_hands(text) == hands


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_files_give_the_recorded_errors(path: Path) -> None:
    hands = list(read_hands(path, name=path.name))
    lines: list[str] = []
    for hand in hands:
        lines.extend(str(error) for error in hand.errors)
    assert lines, "an invalid golden file produced no error"
    _check_golden(path.with_suffix(path.suffix + ".errors"), "\n".join(lines) + "\n")


def test_every_error_names_file_line_and_hand() -> None:
    for path in INVALID:
        for hand in read_hands(path):
            for error in hand.errors:
                assert error.source == str(path)
                assert error.line is not None and error.line >= 1
                assert error.hand_index == hand.index


def test_good_hands_of_a_bad_file_still_load() -> None:
    hands = list(read_hands(DATA / "invalid" / "bad_actions.phhs"))
    assert [hand.ok for hand in hands] == [True, False, False, True]
    assert hands[3].action_line(len(hands[3].actions) - 1) == hands[3].line + 2


def test_strict_mode_raises_the_first_error() -> None:
    from parsers import ParseError

    path_name = "bad_actions.phhs"
    expected = r"bad_actions.phhs:11: hand 2: actions\[1\]: card 3d is dealt twice"
    with pytest.raises(ParseError, match=expected):
        list(read_hands(DATA / "invalid" / "bad_actions.phhs", strict=True, name=path_name))
