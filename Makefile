# handlab: the two commands of the README are `make run` and `make test`.
# Both set up a virtual environment on first use (idempotent, quick afterwards).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

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
	HANDLAB_HYPOTHESIS=check $(BIN)/python -m pytest -n auto -q -m "not slow and not browser"

# Every test on every core, and the 25 slowest named at the end.
unit: setup
	$(BIN)/python -m pytest -n auto -q --durations=25

# While you work: lint, types, import contracts and the fast tests.
check: lint typecheck contracts quick

test: lint typecheck contracts unit

fuzz: setup
	$(BIN)/python benchmarks/fuzz.py --cases 100000 --seed 1 2 3

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
