# make run  : set everything up and serve the product on http://127.0.0.1:8000
# make test : set everything up and run every test (pytest, Node/supabase-js, vitest, browser)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.runtime-installed
TEST_STAMP := $(VENV)/.test-installed
JS_TEST_STAMP := tests/js/node_modules/.installed
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

.PHONY: run test setup setup-test bench clean-data help

help:
	@echo "make run    serve the product on http://127.0.0.1:8000"
	@echo "make test   run every test"
	@echo "make bench  run the benchmarks in bench/"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(TEST_STAMP): pyproject.toml $(RUNTIME_STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

$(JS_TEST_STAMP): tests/js/package.json tests/js/package-lock.json
	cd tests/js && $(NPM_CI)
	touch $@

setup: $(RUNTIME_STAMP)

setup-test: $(TEST_STAMP) $(JS_TEST_STAMP)

# App settings (SUPALITE_APP_<NAME> -> database setting app.<name>): the owner account and the
# administrator learners message; the demo seed creates both with these e-mails.
run: export SUPALITE_APP_OWNER_EMAIL ?= admin@example.com
run: export SUPALITE_APP_CONTACT_ADMIN_EMAIL ?= prof@example.com

run: setup
	$(BIN)/supalite serve --seed

test: setup-test
	$(BIN)/pytest

bench: setup-test
	$(BIN)/python bench/startup.py

clean-data:
	rm -rf .data
