"""Hypothesis profiles: every property's own number of examples under ``make test``, a tenth
of it (at least 20) under ``make check``.

``HANDLAB_HYPOTHESIS=check`` (set by ``make check``) selects the short profile; anything
else, or nothing, runs the full counts, as CI does.  A test's ``@settings(max_examples=n)``
wins over any profile in hypothesis, so the short profile lowers each test's own count here.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import is_hypothesis_test, settings

CHECK_SHARE = 10
"""Under ``make check`` a property runs a tenth of its examples ..."""
CHECK_FLOOR = 20
"""... and at least this many (or all it asks for, if fewer)."""

SETTINGS_ATTRIBUTE = "_hypothesis_internal_use_settings"
"""Where ``@given`` and ``@settings`` keep a test's settings (read when the test runs)."""

settings.register_profile("full")
settings.register_profile("check", max_examples=CHECK_FLOOR)
PROFILE = "check" if os.environ.get("HANDLAB_HYPOTHESIS") == "check" else "full"
settings.load_profile(PROFILE)


def check_examples(full: int) -> int:
    """The examples a property asking for ``full`` runs under ``make check``."""
    return min(full, max(CHECK_FLOOR, full // CHECK_SHARE))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under the short profile, give each hypothesis test its ``check_examples``."""
    if PROFILE != "check":
        return
    for item in items:
        test = getattr(item, "obj", None)
        chosen = getattr(test, SETTINGS_ATTRIBUTE, None)
        if is_hypothesis_test(test) and isinstance(chosen, settings):
            fewer = check_examples(chosen.max_examples)
            if fewer < chosen.max_examples:
                setattr(test, SETTINGS_ATTRIBUTE, settings(chosen, max_examples=fewer))
