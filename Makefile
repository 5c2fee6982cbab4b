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
# The web lock lists other platforms' optional binaries (rollup, tailwind oxide) that some
# registry mirrors leave out, which `npm ci` rejects; this installs exactly the locked tree.
NPM_LOCKED := npm install --no-save --no-audit --no-fund --loglevel=error
# The app served here is the learning site in learning/ (learning/README.md); supalite itself is server/.
WEB_STAMP := learning/web/node_modules/.installed
WEB_BUILD := learning/web/dist/index.html
WEB_SOURCES := $(shell find learning/web/src learning/web/public learning/web/scripts -type f 2>/dev/null) learning/web/index.html learning/web/vite.config.ts learning/web/tsconfig.json

.PHONY: run test setup setup-test bench clean-data help web test-web screenshots

help:
	@echo "make run    serve the product on http://127.0.0.1:8000"
	@echo "make test   run every test"
	@echo "make bench  run the benchmarks in bench/"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The cairo library, from Debian: cairosvg draws the SVG sources of /render/image with it.
LIBCAIRO := /usr/share/doc/libcairo2/copyright
$(LIBCAIRO):
	apt-get install -y libcairo2 || (apt-get update && apt-get install -y libcairo2)

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python $(LIBCAIRO)
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(TEST_STAMP): pyproject.toml $(RUNTIME_STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

$(JS_TEST_STAMP): tests/js/package.json tests/js/package-lock.json
	cd tests/js && $(NPM_CI)
	touch $@

# The web app: npm ci when the lock file changes, a build when a web source changes.
$(WEB_STAMP): learning/web/package.json learning/web/package-lock.json
	cd learning/web && $(NPM_LOCKED)
	touch $@

$(WEB_BUILD): $(WEB_STAMP) $(WEB_SOURCES)
	cd learning/web && npm run build

web: $(WEB_BUILD)

# The web app's types and lint (eslint: hooks rules, feature boundaries), then vitest: its pure
# logic (validation, formatting, statuses, embed URLs).
test-web: $(WEB_STAMP)
	cd learning/web && npm run lint && npm test

# Headless Chromium from Debian, never a downloaded browser.
/usr/bin/chromium:
	apt-get install -y chromium || (apt-get update && apt-get install -y chromium)

# Screenshots of every screen at 375 px and 1280 px, against a seeded server.
screenshots: setup-test $(WEB_BUILD) /usr/bin/chromium
	node learning/scripts/screenshots.mjs

# PostGIS for the REST tests of geometry columns (application/geo+json), from Debian.
POSTGIS := /usr/share/postgresql/15/extension/postgis.control
$(POSTGIS):
	apt-get install -y postgresql-15-postgis-3 || (apt-get update && apt-get install -y postgresql-15-postgis-3)

# Debian's PostgreSQL 15 and its contrib (pgcrypto, uuid-ossp, citext...): a Supabase project
# creating those extensions runs on it (the embedded build lacks some); its tests need it.
PG15 := /usr/lib/postgresql/15/bin/postgres
$(PG15):
	apt-get install -y postgresql-15 || (apt-get update && apt-get install -y postgresql-15)

# Debian's nginx: tests/deploy checks deploy/nginx.conf with it (the proxy compose runs).
NGINX := /usr/sbin/nginx
$(NGINX):
	apt-get install -y nginx || (apt-get update && apt-get install -y nginx)

setup: $(RUNTIME_STAMP)

setup-test: $(TEST_STAMP) $(JS_TEST_STAMP)

# App settings (SUPALITE_APP_<NAME> -> database setting app.<name>): the owner account and the
# administrator learners message; the demo seed creates both with these e-mails.
run: export SUPALITE_APP_OWNER_EMAIL ?= admin@example.com
run: export SUPALITE_APP_CONTACT_ADMIN_EMAIL ?= prof@example.com
run: export SUPALITE_APP_CONTACT_WHATSAPP ?= +33612345678
run: export SUPALITE_APP_CONTACT_EMAIL ?= contact@example.com
# Each account may have at most 2 connected devices at once.
run: export SUPALITE_AUTH_MAX_SESSIONS ?= 2
# A device's session ends 30 days after sign-in, or after 7 days without use.
run: export SUPALITE_AUTH_SESSIONS_TIMEBOX ?= 720h
run: export SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT ?= 168h

# --workdir: the app's folder (supalite serves any; this one is the learning site).
run: setup $(WEB_BUILD)
	$(BIN)/supalite serve --workdir learning --seed

# Debian's PgBouncer: tests/topology runs the replicas through it in transaction mode.
PGBOUNCER := /usr/sbin/pgbouncer
$(PGBOUNCER):
	apt-get install -y pgbouncer || (apt-get update && apt-get install -y pgbouncer)

test: setup-test $(WEB_BUILD) /usr/bin/chromium $(PG15) $(POSTGIS) $(NGINX) $(PGBOUNCER)
	$(BIN)/ruff check server tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports  # the layers of server/ and no import circles (pyproject.toml [tool.importlinter])
	cd learning/web && npm run lint && npm test
	$(BIN)/pytest

# wrk, the REST bench's load generator (a Python one takes the CPU the server needs).
WRK := /usr/bin/wrk
$(WRK):
	apt-get install -y wrk || (apt-get update && apt-get install -y wrk)

# Every benchmark, then one table of their figures (bench/all.py); on a quiet machine.
bench: setup-test $(WEB_BUILD) $(WRK)
	$(BIN)/python bench/all.py

clean-data:
	rm -rf .data
