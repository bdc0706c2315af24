# Everyday commands. `make run` on a fresh checkout creates .venv, installs what running needs, and
# serves; `make test`, `make test-fast` and `make lint` add the test and lint tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
# Touched after a successful install from a lock file: reinstall only when it (or pyproject.toml,
# which names the `bridgecrew` command) changes.
RUN_INSTALLED := $(VENV)/.installed-run
DEV_INSTALLED := $(VENV)/.installed-dev

.PHONY: run test test-fast lint format lock clean i18n

run: $(RUN_INSTALLED)
	$(BIN)/bridgecrew serve

# Every test; what CI runs.
test: $(DEV_INSTALLED)
	$(BIN)/pytest -q

# While working: every test but those that drive a browser, kill things, start a server process or
# take long (the markers in pyproject.toml); pytest says how many it deselected.
FAST := not browser and not faults and not processes and not slow
test-fast: $(DEV_INSTALLED)
	$(BIN)/pytest -q -m "$(FAST)"

lint: $(DEV_INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(DEV_INSTALLED)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Exactly the locked versions, each file checked against its hash. This checkout is then installed
# editable, built by the locked hatchling: nothing unpinned is downloaded to build it.
define install-locked
	$(PIP) install --require-hashes --requirement $<
	$(PIP) install --no-deps --no-build-isolation --editable .
	touch $@
endef

$(RUN_INSTALLED): requirements.txt pyproject.toml | $(BIN)/python
	$(install-locked)

$(DEV_INSTALLED): requirements-dev.txt pyproject.toml | $(BIN)/python
	$(install-locked)

# --- Translations ---------------------------------------------------------------------------------
# Extracts every translatable string into translations/<domain>.pot and merges it into each
# language's .po (new strings come in untranslated; tests/i18n fails until they are translated).
# The .po files are compiled in memory when the server first needs a language (app/i18n.py).
# The API's messages are extracted from the calls that carry them (error, refusal, ServiceError).
PYBABEL := $(BIN)/pybabel
I18N_KEYWORDS := -k N_ -k error:3 -k refusal:4 -k ServiceError:2
# The engine's sentences (app/web/words.py): plain, plural (by `count`) and in a context.
ENGINE_KEYWORDS := --no-default-keywords -k N_ -k Nn_:1,2 -k Np_:1c,2
i18n: $(DEV_INSTALLED)
	$(PYBABEL) extract -F babel.cfg $(I18N_KEYWORDS) -w 100 --no-location --sort-output \
		--omit-header -o translations/messages.pot .
	$(PYBABEL) update -w 100 --no-fuzzy-matching --ignore-obsolete -D messages -i translations/messages.pot \
		-d translations
	if [ -f babel-engine.cfg ]; then \
		$(PYBABEL) extract -F babel-engine.cfg $(ENGINE_KEYWORDS) -w 100 --no-location --sort-output \
			--omit-header -o translations/engine.pot . && \
		$(PYBABEL) update -w 100 --no-fuzzy-matching --ignore-obsolete -D engine -i translations/engine.pot \
			-d translations; \
	fi

# --- The lock files -------------------------------------------------------------------------------
# requirements.txt: what running needs; requirements-dev.txt: that plus the test and lint tools,
# at the same versions. Both come from pyproject.toml with pip-compile (pip-tools), which keeps the
# versions already locked unless told otherwise: `make lock LOCK_FLAGS=--upgrade` moves everything
# to the newest releases, `LOCK_FLAGS="--upgrade-package fastapi"` one package. Run it with the
# oldest Python supported (3.11): environment markers are resolved for the Python that locks.
LOCK_VENV := .venv-lock
# PyPI itself, whatever this machine's pip configuration says (mirrors, find-links, constraints),
# so that every hash is PyPI's and every machine can check it.
PYPI := env -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_FIND_LINKS -u PIP_CONSTRAINT \
	PIP_CONFIG_FILE=/dev/null
COMPILE := $(PYPI) $(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe \
	--strip-extras --index-url=https://pypi.org/simple --no-emit-index-url $(LOCK_FLAGS)

lock: $(LOCK_VENV)/.installed
	$(COMPILE) --build-deps-for=editable --output-file=requirements.txt pyproject.toml
	$(COMPILE) --build-deps-for=editable --extra=dev --constraint=requirements.txt \
		--output-file=requirements-dev.txt pyproject.toml
	$(COMPILE) --output-file=requirements-lock-tools.txt requirements-lock-tools.in

# pip-tools itself comes locked too (requirements-lock-tools.txt, from requirements-lock-tools.in).
$(LOCK_VENV)/.installed: requirements-lock-tools.txt
	$(PYTHON) -m venv $(LOCK_VENV)
	$(PYPI) $(LOCK_VENV)/bin/python -m pip --disable-pip-version-check install \
		--index-url=https://pypi.org/simple --require-hashes --requirement $<
	touch $@

# Keeps .venv and data/ (the embedded database: the games live there).
clean:
	rm -rf build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache test-results $(LOCK_VENV)
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
