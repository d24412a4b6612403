# One command index: CI and the README call these targets verbatim.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck unit bench install clean system-deps

$(BIN)/evidex: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/evidex

# Programs from the system's packages that OCR and the browser tests need. Installed when
# missing and we may (root, or passwordless sudo); otherwise the tests that need them say so.
SYSTEM_DEPS := tesseract:tesseract-ocr chromium:chromium
system-deps:
	@missing=""; for pair in $(SYSTEM_DEPS); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "note: install$$missing for OCR and browser tests"; exit 0; fi; \
	  echo "installing$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null \
	    || echo "note: could not install$$missing"; \
	fi

install: $(BIN)/evidex system-deps

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

bench: install  ## benchmark scripts; each prints its figures beside what it is compared with
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m bench.parse_speed
	$(BIN)/python -m bench.kleister_f1
	$(BIN)/python -m bench.verifier_compare
	$(BIN)/python -m bench.plain_schema
	$(BIN)/python -m bench.cuad_align

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
