"""Hypothesis profiles and the order the tests start in.

Every property runs its own number of examples under ``make test``, a tenth of it (at least
20) under ``make check``: ``HANDLAB_HYPOTHESIS=check`` (set by ``make check``) selects the
short profile; anything else, or nothing, runs the full counts, as CI does.  A test's
``@settings(max_examples=n)`` wins over any profile in hypothesis, so the short profile
lowers each test's own count here.

The long tests start first (browser, then slow, each group in its files' order), so that
pytest-xdist's work stealing (``--dist worksteal`` in the Makefile) spreads the short ones
around them instead of leaving one worker alone with a long test at the end.  No test
depends on the order: each group is a different start, not a different result.
"""

from __future__ import annotations

import os
from typing import Final

import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings

CHECK_SHARE = 10
"""Under ``make check`` a property runs a tenth of its examples ..."""
CHECK_FLOOR = 20
"""... and at least this many (or all it asks for, if fewer)."""

SETTINGS_ATTRIBUTE = "_hypothesis_internal_use_settings"
"""Where ``@given`` and ``@settings`` keep a test's settings (read when the test runs)."""

# No timing in tests: hypothesis's per-example deadline (200 ms) and its "too slow" health
# check fail a correct test on a busy machine (a fresh-clone CI run failed a round trip whose
# first example took 333 ms and its replay 0.7 ms).
UNTIMED: Final = settings(deadline=None, suppress_health_check=(HealthCheck.too_slow,))
settings.register_profile("full", UNTIMED)
settings.register_profile("check", UNTIMED, max_examples=CHECK_FLOOR)
PROFILE = "check" if os.environ.get("HANDLAB_HYPOTHESIS") == "check" else "full"
settings.load_profile(PROFILE)


def check_examples(full: int) -> int:
    """The examples a property asking for ``full`` runs under ``make check``."""
    return min(full, max(CHECK_FLOOR, full // CHECK_SHARE))


def start_rank(item: pytest.Item) -> int:
    """0 for a browser test, 1 for a slow one, 2 for the rest: the order they start in."""
    if item.get_closest_marker("browser") is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the long tests first; under the short profile, give each hypothesis test its
    ``check_examples``."""
    items.sort(key=start_rank)  # stable: each group keeps its files' order
    if PROFILE != "check":
        return
    for item in items:
        test = getattr(item, "obj", None)
        chosen = getattr(test, SETTINGS_ATTRIBUTE, None)
        if is_hypothesis_test(test) and isinstance(chosen, settings):
            fewer = check_examples(chosen.max_examples)
            if fewer < chosen.max_examples:
                setattr(test, SETTINGS_ATTRIBUTE, settings(chosen, max_examples=fewer))
