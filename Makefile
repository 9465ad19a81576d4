# handlab: the two commands of the README are `make run` and `make test`.
# Both set up a virtual environment on first use (idempotent, quick afterwards).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Every process the tests start (xdist workers, streamlit servers, pools, dask workers)
# imports the project: let Python keep its compiled modules in __pycache__ (gitignored)
# even where the environment says not to, or each one compiles the sources again.
unexport PYTHONDONTWRITEBYTECODE
# The tests on every core, each to the first free worker in tests/conftest.py's order (the
# browser and slow tests first); the tests of a module that builds an expensive fixture
# once (conftest's SHARED_SETUP) stay on one worker.
PYTEST := $(BIN)/python -m pytest -n auto --dist loadgroup --no-loadscope-reorder -q

.PHONY: setup run test check lint typecheck contracts quick unit bench fuzz clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "handlab needs Python 3.11 or newer")'
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/handlab serve

lint: setup
	$(BIN)/ruff check .

typecheck: setup
	$(BIN)/mypy

contracts: setup
	$(BIN)/lint-imports

# The fast tests: everything but the slow and the browser tests, on every core, each
# hypothesis property with a tenth of its examples (tests/conftest.py).
quick: setup
	HANDLAB_HYPOTHESIS=check $(PYTEST) -m "not slow and not browser"

# Every test on every core, and the 25 slowest named at the end.
unit: setup
	$(PYTEST) --durations=25

# While you work: lint, types, import contracts and the fast tests, all at once (mypy, a
# minute of one core without its cache, runs beside the tests; their lines may interleave).
check: setup
	@$(MAKE) --no-print-directory -j4 lint typecheck contracts quick

test: setup
	@$(MAKE) --no-print-directory -j4 lint typecheck contracts unit

fuzz: setup
	$(BIN)/python benchmarks/fuzz.py --cases 100000 --seed 1 2 3

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
