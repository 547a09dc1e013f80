# Two entry points for a fresh machine: `make serve` (the web hall, the main job) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
FAST := build/fast
# Engine modules compiled by mypyc for `make bench` (same source, C extension).
FAST_MODULES := cards order gunzi_tricks classic_tricks state variant machine draw tribute kitty jokers play hand_end match legal actions events event_log scoring errors rules
# The play core (src/gunzi/core), compiled the same way (batch.py stays Python: its
# outcomes cross process boundaries by pickle, which mypyc classes do not support).
CORE_MODULES := trick_state gunzi_play gunzi_rule classic_play
YARDSTICK := build/yardstick
# The play core compiled with mypyc into build/core, used by every `gunzi` command when it
# matches the sources (src/gunzi/core/__init__.py); rebuilt when a core or engine source
# changes. Without gcc the core runs from source.
CORE_BUILD := build/core/digest
CORE_SOURCES := $(wildcard src/gunzi/core/*.py src/gunzi/engine/*.py)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(CORE_BUILD): $(STAMP) $(CORE_SOURCES) scripts/build_core.py
	$(PY) scripts/build_core.py

.PHONY: setup serve demo test lint bench fast screenshots
setup: $(STAMP) $(CORE_BUILD)

# The web hall on SQLite (./data), at http://127.0.0.1:8000
serve: setup
	$(VENV)/bin/gunzi serve

demo: $(STAMP)
	$(VENV)/bin/gunzi demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The suite runs on the compiled core when it is built (as the hall does); the core's
# differential tests run once more on its source, the pure-Python fallback.
test: lint $(CORE_BUILD)
	GUNZI_CORE=pure $(VENV)/bin/pytest tests/core
	$(VENV)/bin/pytest

# The review set of screenshots (desktop and phone) into test-artifacts/screenshots/.
screenshots: $(STAMP)
	GUNZI_SCREENSHOTS=1 $(VENV)/bin/pytest tests/web/test_screenshots.py -q -p no:cacheprovider

# The engine compiled with mypyc into build/fast (the source tree stays pure Python).
fast: $(STAMP)
	rm -rf $(FAST) && mkdir -p $(FAST) && cp -r src/gunzi $(FAST)/
	cd $(FAST) && $(CURDIR)/$(VENV)/bin/mypyc $(foreach m,$(FAST_MODULES),gunzi/engine/$(m).py) \
		$(foreach m,$(CORE_MODULES),gunzi/core/$(m).py) > mypyc.log 2>&1

# The C yardstick every Python figure is quoted against (docs/performance.md).
$(YARDSTICK): scripts/yardstick.c
	mkdir -p build && gcc -O2 -o $@ $<

# Figures for every build: pure, build/core (the default) and build/fast, each against
# the C yardstick (docs/performance.md); gunzi bench runs the other builds in children.
bench: setup fast $(YARDSTICK)
	$(PY) scripts/check_compiled.py
	$(VENV)/bin/gunzi bench --json
