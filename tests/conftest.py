"""Hypothesis profiles and the order the tests start in.

Every property runs its own number of examples under ``make test``, a tenth of it (at least
20) under ``make check``: ``HANDLAB_HYPOTHESIS=check`` (set by ``make check``) selects the
short profile; anything else, or nothing, runs the full counts, as CI does.  A test's
``@settings(max_examples=n)`` wins over any profile in hypothesis, so the short profile
lowers each test's own count here.

The long tests start first (the slow modules that share an expensive setup, browser, the
other slow tests, then the other modules that share a setup, each group in its files'
order), so that pytest-xdist (``--dist loadgroup --no-loadscope-reorder`` in the Makefile:
tests go to whichever worker is free, in this order) spreads the short ones around them
instead of leaving one worker alone with a long test at the end.  The tests of a module in
:data:`SHARED_SETUP` are one unit of work (:class:`SharedSetupScheduling`): they run on
one worker, which builds the module's fixtures once (spread over two workers, each built
them).  No test depends on the order: each group is a different start, not a different
result.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Final

import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling

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


PACKAGE: Final = Path(__file__).resolve().parent.parent / "analytics"
"""The package whose numba kernels :func:`pytest_configure` compiles on a fresh checkout."""


def pytest_configure(config: pytest.Config) -> None:
    """On a checkout without numba's on-disk cache (a fresh clone, as on CI), compile the
    ingest's kernels once, in pytest-xdist's controller before it starts the workers:
    otherwise every worker, and every streamlit server, pool or Dask worker started before
    one of them has written the cache, compiles them again (~50 s of CPU each)."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # a worker (the controller did it), or no workers at all
    if any(PACKAGE.glob("**/__pycache__/*.nbi")):
        return
    from analytics.warehouse.pipeline.run import warm_up

    warm_up()


COMPONENT_SCANNER: Final = "streamlit.components.v2.manifest_scanner"
"""Streamlit's scan of every installed distribution's metadata for components: each
``AppTest`` runs it again on its first run (~0.1 s of CPU, ~50 AppTests in the fast tests)."""


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Once an ``AppTest`` has scanned the installed distributions for Streamlit components,
    later ones in the process reuse its answer: the packages installed do not change during
    a test run (the scan, and what the dashboard does with its answer, stay real)."""
    scanner = sys.modules.get(COMPONENT_SCANNER)
    scan = getattr(scanner, "scan_component_manifests", None)
    if scan is not None and not hasattr(scan, "cache_info"):
        scanner.scan_component_manifests = functools.cache(scan)  # type: ignore[union-attr]


def check_examples(full: int) -> int:
    """The examples a property asking for ``full`` runs under ``make check``."""
    return min(full, max(CHECK_FLOOR, full // CHECK_SHARE))


SHARED_SETUP: Final = frozenset({
    "test_audit.py", "test_dashboard_bundles.py", "test_evaluator_poker.py",
    "test_evaluator_tables.py", "test_facts.py", "test_fuzz_parser_rules.py",
    "test_identity_migration.py", "test_lake.py",
    "test_lake_kill.py", "test_reports.py", "test_sql_injection.py", "test_stats.py",
    "test_stats_cases.py",
    "test_stats_export.py", "test_warehouse_equity.py", "test_warehouse_schema.py"})
"""Test modules (in tests/) whose module-scoped fixtures ingest, enumerate or start a Dask
cluster: each runs on one worker (:class:`SharedSetupScheduling`)."""


class SharedSetupScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist: no types
    """pytest-xdist's ``loadgroup`` with the groups named here: a test of a
    :data:`SHARED_SETUP` module is in its module's unit of work, any other test in a unit of
    its own.  (``xdist_group`` marks do not group under pytest 9.2: pytest-xdist 3.8 writes
    the group into ``item._nodeid``, which pytest no longer reads.)"""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if module.startswith("tests/") and (
            module.removeprefix("tests/") in SHARED_SETUP) else nodeid


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer
                                ) -> LoadScopeScheduling | None:
    """``--dist loadgroup`` schedules with :class:`SharedSetupScheduling`; other modes as
    pytest-xdist does."""
    return SharedSetupScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


def start_rank(item: pytest.Item) -> int:
    """The order tests start in: 0 for a slow test of a :data:`SHARED_SETUP` module (its
    module is one long unit of work: test_lake.py is minutes of one worker, so it starts
    at once, beside the browser tests), 1 for a browser test, 2 for another slow one, 3 for
    another test of a :data:`SHARED_SETUP` module, 4 for the rest."""
    shared = item.path.parent.name == "tests" and item.path.name in SHARED_SETUP
    if item.get_closest_marker("browser") is not None:
        return 1
    if item.get_closest_marker("slow") is not None:
        return 0 if shared else 2
    return 3 if shared else 4


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
