# One command index: CI and the README call these targets verbatim.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck unit bench install clean

$(BIN)/evidex: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/evidex

install: $(BIN)/evidex

demo: install  ## extract the three samples with the embedded rules backend
	$(BIN)/python -m samples.demo

lint: install
	$(BIN)/ruff check evidex tests samples bench
	$(BIN)/ruff format --check evidex tests samples bench
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest -q

test: lint typecheck unit  ## the whole suite: lint, import rule, types, tests

bench: install
	$(BIN)/python -m bench.parse_speed
	$(BIN)/python -m bench.kleister_f1

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
