# creval: two commands to know.
#   make demo  -> creates .venv, installs creval, evaluates the bundled demo corpus, writes creval-demo/report.html
#   make test  -> installs test dependencies and system packages, starts PostgreSQL on loopback, runs the suite
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PG_PORT ?= 55432
export CREVAL_PG_PORT := $(PG_PORT)

.PHONY: demo test install install-test system-deps lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(PY)
	$(PIP) install --quiet -e .

demo: install
	$(VENV)/bin/creval demo --out creval-demo

install-test: $(PY)
	$(PIP) install --quiet -e '.[bert,test]'

system-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium postgresql fonts-dejavu-core; \
	fi

test: install-test system-deps
	scripts/postgres.sh start
	CREVAL_TEST_POSTGRES_URL=postgresql+psycopg://creval@127.0.0.1:$(PG_PORT)/creval_test \
	CREVAL_CHROMIUM=$$(command -v chromium) \
	  $(VENV)/bin/python -m pytest -q -n 2 --dist loadgroup; rc=$$?; scripts/postgres.sh stop; exit $$rc

lint: $(PY)
	$(VENV)/bin/ruff check src tests bench

bench: install-test
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) creval-demo .pgdata .pytest_cache
