# Two commands do all set-up: `make demo` and `make test`. Both create .venv if needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make demo` installs what planner needs to run, `make test` the test tools too.
RUNTIME := $(VENV)/.installed-runtime
TOOLS := $(VENV)/.installed-test

.PHONY: demo test check test-clock bench compile clean
# The compiled Chinese catalog: every install builds it from po/zh/*.po (setup.py); a changed
# .po file rebuilds it the same way.
MO := planner/locale/zh/LC_MESSAGES/planner.mo

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $(RUNTIME)

# The test tools' install includes the runtime one, so it stamps both.
$(TOOLS): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(TOOLS) $(RUNTIME)

$(MO): $(wildcard po/zh/*.po) po/build.py setup.py | $(RUNTIME)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .

# Byte-compile planner like a regular install does (the editable install leaves it to first use,
# which PYTHONDONTWRITEBYTECODE=1 turns into compiling on every start). For working on planner,
# so with the test tools.
compile: $(TOOLS) $(MO)
	$(BIN)/python -m compileall -q planner

demo: $(RUNTIME) $(MO)
	$(BIN)/python -m compileall -q planner
	$(BIN)/planner --demo

# Two processes; the Anki tests share one group (--dist loadgroup), so Anki is built once. The
# pseudo-terminal tests run on both: each waits on what its terminal shows, never on time. The
# 15 slowest are printed.
PYTEST_PARALLEL := -n 2 --dist loadgroup

# Compiled first, as make check is: where PYTHONDONTWRITEBYTECODE=1 is set, a fresh clone would
# otherwise compile planner again in each of the thousands of processes the tests start.
# pytest keeps its rewritten test modules (tests/**/__pycache__) only where bytecode may be
# written: without that, each worker rewrites all of them at every run (~9 s of a core each).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

test: compile
	$(BIN)/python -m ruff check --quiet .
	$(BIN)/python -m mypy
	$(PYTEST) $(PYTEST_PARALLEL) --durations=15

# The quick loop while working: lint, then every test not marked slow, on two processes, under
# a minute on two cores (compiled first: the tests start planner hundreds of times).
# `make test` still runs everything.
check: compile
	$(BIN)/python -m ruff check --quiet .
	$(BIN)/python -m mypy
	$(PYTEST) -q -m "not slow" $(PYTEST_PARALLEL)

# The whole suite at 23:30 and at 00:30 UTC, in a zone at UTC-11 and one at UTC+14 (README
# "What the tests prove"). The clock moves by an offset (an absolute date would be read in each
# process's own zone): the test processes move their own clock (time-machine, tests/conftest.py)
# and every process they start gets libfaketime (installed from Debian where it is missing).
# Each zone's run is bounded: a hang fails the target in minutes instead of holding it.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

test-clock: compile
	command -v faketime >/dev/null || { $(SUDO) apt-get update -q && \
		$(SUDO) apt-get install -y -q faketime; }
	@for zone in Pacific/Pago_Pago Pacific/Kiritimati; do for at in 23:30 00:30; do \
		offset=$$($(BIN)/python tests/faketime_offset.py $$at); \
		library=$$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 | head -1); \
		echo "== $$at UTC in $$zone (clock $$offset)"; \
		TZ=$$zone PLANNER_TEST_CLOCK=$$offset PLANNER_FAKETIME_LIBRARY=$$library PYTHONDONTWRITEBYTECODE= \
			timeout -k 30 1200 $(BIN)/python -m pytest -q $(PYTEST_PARALLEL) \
			--max-worker-restart 0 || exit 1; done; done

# Every benchmark runs even when one misses its target; the exit status says whether all met.
bench: compile
	@failed=0; for bench in startup costs_bench plans_bench notes_bench due_bench memory_bench vdir_bench week_bench anki_week_bench responses_bench study_bench goals_bench best_plan_bench mcp_bench; do \
		$(BIN)/python benchmarks/$$bench.py || failed=1; done; exit $$failed

clean:
	rm -rf $(VENV)
