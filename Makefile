# Everyday commands. `make run` on a fresh checkout creates .venv, installs, and serves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Touched after a successful install: reinstall only when pyproject.toml is newer.
INSTALLED := $(VENV)/.installed

.PHONY: run test lint format clean

run: $(INSTALLED)
	$(BIN)/bridgecrew serve

test: $(INSTALLED)
	$(BIN)/pytest -q

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(INSTALLED)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

# Keeps .venv and data/ (the embedded database: the games live there).
clean:
	rm -rf build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache test-results
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
