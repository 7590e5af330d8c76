# Parsnip: `make run` sets up and serves the site on SQLite; `make test` sets up and runs the tests.
SHELL := /bin/bash
.DEFAULT_GOAL := run
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Made once, kept, and used by `make run` and its set-up steps (see RUN_ENV).
SECRET_KEY_FILE := .secret-key

# The first Python >= 3.12 on this machine (pyenv users get it from .python-version).
PYTHON_312 := $(shell for p in python3.13 python3.12 $$(ls -d $$HOME/.pyenv/versions/3.1[2-9]*/bin/python 2>/dev/null) python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v $$p; break; }; done)

.PHONY: run dev test setup system-deps python-deps frontend messages db content demo serve serve-dev static lint bench clean

run: setup db content demo static serve

# The same with Django's autoreloading development server and DEBUG on (DEBUG is off
# unless set: the set-up steps below then run as `make run` serves, with its secret key).
dev: export DEBUG = 1
dev: setup db content demo serve-dev

# The whole suite on the embedded default (SQLite), then again on PostgreSQL, the
# scale-out database (browser and sandbox tests need no second database run).
PG_TEST_URL ?= postgres:///parsnip
# Each pass ends with its slowest tests, so a suite that creeps up is seen.
DURATIONS := --durations=25
# The PostgreSQL pass runs in two processes (pytest-xdist), each on a test database of its own;
# a file's tests stay together (--dist loadfile), so a module's fixtures start once.
PG_WORKERS ?= 2

test: setup
	$(VENV)/bin/lint-imports
	$(PY) -m pytest $(DURATIONS)
	@echo "== the suite again on PostgreSQL ($(PG_TEST_URL))"
	DATABASE_URL=$(PG_TEST_URL) $(PY) -m pytest -q -m "not browser" --ignore=tests/sandbox -n $(PG_WORKERS) --dist loadfile $(DURATIONS)

setup: system-deps python-deps frontend messages

# bubblewrap (with setpriv, and Debian's /usr/bin/python3 as the learners' interpreter)
# runs learner code; Chromium drives the browser tests. Debian/Ubuntu only; elsewhere
# install them by hand (see README).
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	test -x /usr/bin/python3 || missing="$$missing python3"; \
	command -v setpriv >/dev/null 2>&1 || missing="$$missing util-linux"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	command -v systemd-analyze >/dev/null 2>&1 || missing="$$missing systemd"; \
	command -v pg_dump >/dev/null 2>&1 || missing="$$missing postgresql-client"; \
	command -v msgfmt >/dev/null 2>&1 || missing="$$missing gettext"; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(PY):
	@test -n "$(PYTHON_312)" || { echo "Parsnip needs Python 3.12 or newer (Django 6). Install it (e.g. pyenv install 3.12) and retry."; exit 1; }
	$(PYTHON_312) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

python-deps: $(PY) .make-python-deps
.make-python-deps: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install -q -r requirements-dev.txt
	@touch $@

frontend: .make-frontend
.make-frontend: package.json package-lock.json frontend/build.mjs $(wildcard frontend/*.js)
	npm ci --no-audit --no-fund --loglevel=error
	npm run --silent build
	@touch $@

# The translations (locale/<code>/LC_MESSAGES/): each language's catalog gains the strings the
# code and templates now mark (a translator fills them in: docs/translating.md), then the
# catalogs are compiled to the .mo files Django reads (not committed: made here, from the .po).
LANGUAGES := es de
MESSAGES_IGNORE := --ignore=.venv --ignore=node_modules --ignore=staticfiles --ignore=static/vendor \
	--ignore=frontend --ignore=bench --ignore=tests --ignore=content --ignore=artifacts
messages: system-deps python-deps $(SECRET_KEY_FILE)
	@$(MANAGE) makemessages -v 0 $(addprefix -l ,$(LANGUAGES)) --add-location file --no-obsolete $(MESSAGES_IGNORE)
	@$(MANAGE) makemessages -v 0 -d djangojs $(addprefix -l ,$(LANGUAGES)) --add-location file --no-obsolete $(MESSAGES_IGNORE)
	@$(MANAGE) compilemessages -v 0 --ignore=.venv --ignore=node_modules

db: python-deps $(SECRET_KEY_FILE)
	$(MANAGE) migrate --no-input -v 0

content: db
	$(MANAGE) import_content content

demo: db
	$(MANAGE) seed_demo

# `make run` serves as a deployment does: DEBUG off, gunicorn (config/gunicorn.py) with
# static files by WhiteNoise, and the worker. A secret key is made once and kept in
# .secret-key; HTTPS=0 because it serves plain HTTP on this machine.
RUN_ENV = DEBUG=0 HTTPS=0 SECRET_KEY="$$(cat $(SECRET_KEY_FILE))"
# Set-up commands run as `make run` serves, or with DEBUG on under `make dev`.
MANAGE = $(if $(filter 1,$(DEBUG)),,$(RUN_ENV)) $(PY) manage.py

$(SECRET_KEY_FILE): | $(PY)
	@umask 077; $(PY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@

static: python-deps frontend $(SECRET_KEY_FILE)
	@$(RUN_ENV) $(PY) manage.py collectstatic --no-input -v 0

# The web server and the worker together; one Ctrl-C (or TERM) stops both, and either one
# ending stops the other. Each is asked once, through its main process, which stops its own
# children (a second TERM can hang django-q2's cluster for good, django-q2 issue #346); after
# STOP_SECONDS what is left of either is killed.
STOP_SECONDS ?= 15
serve: $(SECRET_KEY_FILE)
	@echo "Parsnip on http://$(HOST):$(PORT)/  (Ctrl-C stops the server and the worker)"
	@export $(RUN_ENV); \
	setsid $(PY) manage.py qcluster & worker=$$!; \
	BIND=$(HOST):$(PORT) setsid $(VENV)/bin/gunicorn -c config/gunicorn.py config.wsgi & web=$$!; \
	stop() { \
		trap '' INT TERM; kill -TERM $$worker $$web 2>/dev/null; \
		for i in $$(seq $$(( $(STOP_SECONDS) * 10 ))); do \
			kill -0 $$worker 2>/dev/null || kill -0 $$web 2>/dev/null || break; sleep 0.1; \
		done; \
		kill -KILL -- -$$worker -$$web 2>/dev/null; wait; \
	}; \
	trap 'stop; exit 0' INT TERM; \
	wait -n; stop

serve-dev:
	@echo "Parsnip (development) on http://$(HOST):$(PORT)/  (Ctrl-C stops the server and the worker)"
	@trap 'kill 0' INT TERM EXIT; \
	export DEBUG=1; \
	$(PY) manage.py qcluster & \
	$(PY) manage.py runserver $(HOST):$(PORT)

lint: python-deps
	$(VENV)/bin/ruff check .

BENCHMARKS := sandbox queue practice pages teacher writes

bench: setup
	for b in $(BENCHMARKS); do echo "== bench/$$b.py"; $(PY) bench/$$b.py || exit 1; done

clean:
	rm -rf $(VENV) node_modules static/vendor staticfiles .make-* $(SECRET_KEY_FILE)
