"""Parsnip settings: one module, driven by environment variables.

Defaults give the embedded set-up (SQLite + django-q2's ORM broker), with DEBUG off: a
developer sets DEBUG=1 (`make dev` does), production sets SECRET_KEY and ALLOWED_HOSTS, and
optionally DATABASE_URL and REDIS_URL for the scale-out path.
"""

import json
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# Off unless asked for: a deployment that forgets DEBUG gets no debug pages and no public key.
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-parsnip-development-only-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "nested_admin",
    "django_q",
    "axes",
    "course",
    "tutor",
    # LMS integration (LTI 1.3): django-lti's records, and Parsnip's links on top (docs/lti.md).
    "lti_tool",
    "lti",
    # Running Parsnip for years: backups, health, a learner's data on request (docs/operations.md).
    "operations",
    "health_check",
]

MIDDLEWARE = [
    # First: a request id for every log line of the request and its tasks, and one JSON line
    # per request with its status and time (operations/request_log.py).
    "operations.request_log.request_log_middleware",
    "django.middleware.security.SecurityMiddleware",
    "config.static.StaticFilesMiddleware",
    # Every statement of a request, the session's and the user's included, outlasts a lost
    # connection where that cannot do anything twice (tutor/outages.py).
    "tutor.outages.StatementsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language (Django's place for LocaleMiddleware: after the session, before
    # CommonMiddleware): the learner's choice, kept in the session from their account, their
    # class or their LMS; else the language switch's cookie; else the browser's (tutor/languages.py).
    "tutor.languages.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Times in the viewer's browser's zone (tutor/time_zones.py); UTC in the database.
    "tutor.time_zones.BrowserTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # After a launch, the launching LMS (only) may frame that browser's pages (lti/framing.py).
    "lti.framing.LmsFramingMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Closed-book assignments: only the assignment's items while it runs (tutor/assignments/).
    "tutor.assignments.closed_book.ClosedBookMiddleware",
    # A view that lost its database connection before writing runs once more; any request
    # failing on an outage is answered "busy, try again" (tutor/outages.py, handler500).
    "tutor.outages.OutageMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # LANGUAGE_CODE: the page's language, which every cached fragment varies on.
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "tutor.assignments.closed_book.header",
                "operations.context_processors.version",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# SQLite by default, in WAL mode: IMMEDIATE transactions and a busy timeout keep the
# web server and the worker from failing each other with "database is locked".
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": (
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=NORMAL;"
        "PRAGMA foreign_keys=ON;"
        "PRAGMA busy_timeout=20000;"
    ),
}
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Persistent connections: the worker's broker loop would otherwise reconnect (and
        # re-run the SQLite PRAGMAs) on every poll, which costs most of the queue latency.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
# PostgreSQL: each process keeps a bounded pool of connections (psycopg_pool), so a class
# never needs one connection per server thread. With a pool Django wants CONN_MAX_AGE 0.
DB_POOL_MAX = int(os.environ.get("DB_POOL_MAX", "8"))
if DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql") and DB_POOL_MAX > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # The pool checks each connection as it hands it out (psycopg_pool's check_connection,
    # one empty round trip): after PostgreSQL restarts, its dead connections are replaced
    # instead of failing a request each.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_MAX,
        # A request waits for a free connection rather than failing: a hundred logins at once
        # hash passwords for seconds of CPU while holding theirs.
        "timeout": int(os.environ.get("DB_POOL_TIMEOUT", "60")),
    }
    # Parameters sent apart from the statement (PostgreSQL's extended protocol), not
    # merged into its text in Python for every query; psycopg then prepares a statement
    # a connection has run five times, and PostgreSQL plans it once, not on every click.
    DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
    # Tests use a file, not shared-cache memory: concurrency tests then see real SQLite
    # locking (busy timeout, WAL), and live-server and worker processes share it. One file per test run.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("SQLITE_TEST_NAME") or str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")
    }
elif DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"):
    # One test database per test run, so two checkouts can run their suites at once.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("PG_TEST_NAME")
        or f"test_{DATABASES['default']['NAME']}_{os.getpid()}"
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's hashers, the first two giving their pooled database connection back while they
# hash: a class logging in at once must not queue for the pool. Argon2 (Django's parameters)
# stores new passwords, and those stored with PBKDF2 when their owner next logs in: it checks
# one in two thirds of PBKDF2's CPU time (tutor/passwords.py, bench/login.py).
PASSWORD_HASHERS = [
    "tutor.passwords.Argon2ReleasingPasswordHasher",
    "tutor.passwords.PBKDF2ReleasingPasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Log-in throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username
# from one address, that pair is locked out for AXES_COOLOFF_TIME. Keyed on both, so a
# classmate cannot lock a teacher out from elsewhere and a class behind one address is not
# locked out by one learner's typos. Admins unlock in the admin ("Access attempts") or with
# `manage.py axes_reset_username NAME`; see docs/security.md.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tutor.views.accounts.locked_out"

# The lesson's admin page sends every block with every kind's inline forms (about 90 fields a
# block): Django's 1,000 refused a lesson of a dozen blocks. Still a bound on what a POST holds.
DATA_UPLOAD_MAX_NUMBER_FIELDS = int(os.environ.get("DATA_UPLOAD_MAX_NUMBER_FIELDS", "10000"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "tutor:catalogue"
LOGOUT_REDIRECT_URL = "tutor:catalogue"

LANGUAGE_CODE = "en"
# The languages Parsnip's pages are written in (locale/<code>/LC_MESSAGES/django.po). Adding one
# is the steps in docs/translating.md: a line here, then `make messages` and a translator's .po.
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("de", "Deutsch"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Python in the learner's browser: the npm package `pyodide` (package.json pins it), copied by
# `make frontend` into static/vendor/pyodide-<version>/. Its loader asks for its files by
# their own names, so they are not hashed: the version in the folder's name is what changes
# when they do, and the browser may keep them for good (a second lesson loads nothing):
# config/static.py.
PYODIDE_VERSION = json.loads((BASE_DIR / "package.json").read_text())["dependencies"]["pyodide"]
PYODIDE_STATIC = f"vendor/pyodide-{PYODIDE_VERSION}/"
# Off: every Run goes to the server, as without JavaScript (the tests' default: only the
# browser tests that run Python load it).
RUN_IN_BROWSER = env_bool("RUN_IN_BROWSER", True)


# Password-reset e-mail goes to the console in development, and over SMTP in production.
MAILERS = {
    "default": {
        "BACKEND": os.environ.get(
            "EMAIL_BACKEND",
            "django.core.mail.backends.console.EmailBackend"
            if DEBUG
            else "django.core.mail.backends.smtp.EmailBackend",
        ),
    }
}
if MAILERS["default"]["BACKEND"].endswith("smtp.EmailBackend"):
    MAILERS["default"]["OPTIONS"] = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": int(os.environ.get("EMAIL_PORT", "25")),
        "username": os.environ.get("EMAIL_HOST_USER", ""),
        "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
        "use_tls": env_bool("EMAIL_USE_TLS", False),
    }
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Parsnip <parsnip@localhost>")

# No inline scripts or styles anywhere: every script and stylesheet is a static file.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    # 'report-sample': a refusal's report carries the first characters refused (config/csp.py).
    # 'wasm-unsafe-eval': compiling WebAssembly, for Python in the learner's browser
    # (static/js/python-worker.js); it allows no eval() of JavaScript.
    "script-src": [CSP.SELF, CSP.WASM_UNSAFE_EVAL, CSP.REPORT_SAMPLE],
    "worker-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.REPORT_SAMPLE],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "report-uri": ["/csp-report/"],
}

# HTTPS=0 serves plain HTTP with DEBUG off (`make run` on 127.0.0.1); a deployment keeps it
# on and sits behind a proxy that terminates TLS.
if not DEBUG and env_bool("HTTPS", True):
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # Inside an LMS's iframe the browser sends Parsnip's cookies only if they are SameSite=None
    # (docs/lti.md). Off by default: a site not framed by an LMS keeps Lax cookies.
    if env_bool("LTI_IFRAME_COOKIES", False):
        SESSION_COOKIE_SAMESITE = "None"
        CSRF_COOKIE_SAMESITE = "None"

# Learner code runs through django-q2. A failed run is never retried (it is learner
# code, not a flaky job); the task timeout sits above the sandbox's wall limit and
# `retry` above the timeout, so a slow run is never picked up twice.
REDIS_URL = os.environ.get("REDIS_URL", "")
Q_CLUSTER = {
    "name": os.environ.get("Q_CLUSTER_NAME", "parsnip"),
    "workers": int(os.environ.get("Q_WORKERS", "2")),
    "timeout": 30,
    "retry": 60,
    "max_attempts": 1,
    "ack_failures": True,
    "catch_up": False,
    "save_limit": -1,  # results live on Run rows, not in django-q2 tables
    "poll": 0.01,  # ORM broker: how often the pusher looks for new tasks (seconds)
    "bulk": 1,
    "queue_limit": 20,
    "label": "Task queue",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
    # django-q2's Redis broker, outlasting a Redis restart (tutor/queueing.py).
    Q_CLUSTER["broker_class"] = "tutor.queueing.RedisBroker"
else:
    Q_CLUSTER["orm"] = "default"
    # django-q2's ORM broker, outlasting SQLite locked by a backup (tutor/queueing.py).
    Q_CLUSTER["broker_class"] = "tutor.queueing.OrmBroker"

# Rendered lesson content is cached per content version: in each process's memory on the
# embedded default, in Redis (shared by every server) on the scale-out path.
CACHES = {
    "default": (
        # A Redis that is down or restarting is a cache miss, not a server error.
        {"BACKEND": "tutor.connections.ForgivingRedisCache", "LOCATION": REDIS_URL,
         "KEY_PREFIX": Q_CLUSTER["name"]}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "parsnip",
              "OPTIONS": {"MAX_ENTRIES": 2000}}
    )
}

# The sandbox backend: bubblewrap on Linux. Anything weaker must be asked for by name
# and is refused when DEBUG is off.
SANDBOX_BACKEND = os.environ.get("SANDBOX_BACKEND", "bwrap")
if SANDBOX_BACKEND != "bwrap" and not DEBUG:
    raise ImproperlyConfigured(
        f"SANDBOX_BACKEND={SANDBOX_BACKEND!r} is weaker than bubblewrap and is refused "
        "when DEBUG is off. Install bubblewrap and unset SANDBOX_BACKEND."
    )

# /metrics/ for Prometheus (queue depth, run latency): off unless a scraper's token is set.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

# One JSON line per log record (LOG_FORMAT=json, the default with DEBUG off): every request
# and every background task logs one, with the request id that joins a click to its run
# (operations/request_log.py). LOG_FORMAT=text for people reading a terminal.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "operations.request_log.RequestIdFilter"}},
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": ["asctime", "levelname", "name", "message", "request_id"],
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# The most a course or snippet may give its runs (its `limits:`); anything not named keeps
# the sandbox's default. The wall limit stays under django-q2's task timeout (30 s).
SANDBOX_MAX_LIMITS = {
    "cpu_seconds": int(os.environ.get("SANDBOX_MAX_CPU_SECONDS", "20")),
    "wall_seconds": float(os.environ.get("SANDBOX_MAX_WALL_SECONDS", "25")),
    "memory_mb": int(os.environ.get("SANDBOX_MAX_MEMORY_MB", "1024")),
    "processes": int(os.environ.get("SANDBOX_MAX_PROCESSES", "128")),
    "output_kb": int(os.environ.get("SANDBOX_MAX_OUTPUT_KB", "1024")),
}

# Password hashes at once in each web process (tutor/passwords.py): an Argon2 hash takes
# 100 MiB while it runs, and a class logging in together would otherwise hash in every thread.
PASSWORD_HASHES_AT_ONCE = int(os.environ.get("PASSWORD_HASHES_AT_ONCE", str(os.cpu_count() or 2)))

# How long a click (POST) waits for its run before answering with a panel that waits on
# (a long poll: each GET waits up to RUN_LONG_POLL_SECONDS for the worker's notice).
RUN_WAIT_SECONDS = float(os.environ.get("RUN_WAIT_SECONDS", "2"))
RUN_LONG_POLL_SECONDS = float(os.environ.get("RUN_LONG_POLL_SECONDS", "10"))

# Per learner: runs a minute, and runs waiting for a worker at once.
RUNS_PER_MINUTE = int(os.environ.get("RUNS_PER_MINUTE", "20"))
# Editing trails (tutor/trail/) nobody added to for this many days are deleted, every night.
TRAIL_RETENTION_DAYS = int(os.environ.get("TRAIL_RETENTION_DAYS", "180"))
# Records of where and when a person was, kept as long as a teacher needs them and deleted
# (or, for closed-book seats, their addresses blanked) every night after (operations/retention.py).
RETENTION_DAYS = {
    "presence": int(os.environ.get("PRESENCE_RETENTION_DAYS", "60")),  # live view, raised hands
    "addresses": int(os.environ.get("ADDRESS_RETENTION_DAYS", "30")),  # closed-book seats
    "logins": int(os.environ.get("LOGIN_RECORD_RETENTION_DAYS", "90")),  # log-in records
}
RUNS_PENDING_MAX = int(os.environ.get("RUNS_PENDING_MAX", "3"))
# Per learner: runs in their own browser recorded a minute (each costs the server a write).
BROWSER_RUNS_PER_MINUTE = int(os.environ.get("BROWSER_RUNS_PER_MINUTE", "60"))
# Per learner: predictions a minute (one per snippet is what counts; this stops floods).
PREDICTIONS_PER_MINUTE = int(os.environ.get("PREDICTIONS_PER_MINUTE", "20"))

# LTI 1.3 (docs/lti.md): how long a call to an LMS may take, and the first retry's delay
# after a grade the LMS refused (doubling each time, at most an hour apart).
LTI_HTTP_TIMEOUT_SECONDS = float(os.environ.get("LTI_HTTP_TIMEOUT_SECONDS", "10"))
LTI_RETRY_SECONDS = int(os.environ.get("LTI_RETRY_SECONDS", "30"))
# How long an LMS's public keys are kept between launches (a key id they lack refetches them).
LTI_KEYSET_CACHE_SECONDS = int(os.environ.get("LTI_KEYSET_CACHE_SECONDS", "3600"))
