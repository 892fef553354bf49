"""Django settings for Pirates by Mail.

Everything comes from environment variables (see the table in README.md). With none set the
project runs for development: SQLite, a filesystem Celery broker and a local email outbox
under ``var/``. Production (``DJANGO_DEBUG=0``) refuses to start without an explicit
``SECRET_KEY`` and ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import re
import warnings
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONE, SELF

from pirates_site.config import (
    DEV_SECRET_KEY,
    FALSE_WORDS,
    ConfigError,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    require,
)
from pirates_site.lanes import check_queue_name

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR") or BASE_DIR / "var")

DEBUG = env_bool("DJANGO_DEBUG", True)
# Production settings (DJANGO_DEBUG off), as the environment decided: unlike DEBUG, which the
# test runner switches off, this stays what the process was started with.
PRODUCTION = not DEBUG

if DEBUG:
    SECRET_KEY = env_str("SECRET_KEY") or DEV_SECRET_KEY
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
else:
    SECRET_KEY = require("SECRET_KEY", "when DJANGO_DEBUG is off (a long random string)")
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
    if not ALLOWED_HOSTS:
        raise ConfigError("ALLOWED_HOSTS must be set when DJANGO_DEBUG is off (comma-separated host names)")

# The base of every link in an email. Without an explicit SITE_URL it follows the port the
# development server runs on (scripts/dev and Procfile.dev pass PIRATES_PORT), so a site run
# on another port never mails links to port 8000.
SITE_URL = (env_str("SITE_URL") or f"http://localhost:{env_int('PIRATES_PORT', 8000)}").rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",
    "anymail",
    "games",
]

MIDDLEWARE = [
    # First: a request that met a lost database connection answers 503 (a GET runs once more).
    "games.unavailable.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads the session, a token or a form: a NUL is refused with a 400.
    "games.middleware.RefuseNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The player's own time zone for every date a page shows.
    "games.timezones.PlayerTimezoneMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out log-in into the 429 response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "pirates_site.urls"
WSGI_APPLICATION = "pirates_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.site",
            ],
        },
    },
]

# Database: SQLite by default; DATABASE_URL (postgres://user:pass@host:5432/name) for PostgreSQL.
# DATABASE_DEFAULTED: no DATABASE_URL was given (mail_ingest refuses that in production).
DATABASE_DEFAULTED = not env_str("DATABASE_URL")
_database_url = env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
try:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))}
except ValueError as exc:
    raise ConfigError(f"DATABASE_URL is not a database URL ({exc})") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # A busy SQLite file waits instead of failing when the worker and the web write at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
else:
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int("DB_CONNECT_TIMEOUT", 5)
    # psycopg prepares a statement run this many times on a connection, for the cursors that
    # bind parameters on the server: those of games/rows.py (prepared_cursor), for the
    # statements of every move and game GET. Django's own cursors never prepare.
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME")}
# A persistent connection broken by a database restart is found (a cheap check when a request
# first uses it) and replaced, instead of failing that request.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# Database roles (PostgreSQL; games/db_roles.py). The service connects as DATABASE_URL's role,
# which should own no table; `manage.py migrate` connects as MIGRATE_DATABASE_URL's role (the
# owner, same database) and then grants DATABASE_SERVICE_ROLE what the service needs: on the
# event table SELECT and INSERT only. DATABASE_SERVICE_ROLE defaults to DATABASE_URL's role
# when MIGRATE_DATABASE_URL names another one. SQLite has no roles: there both stay unset.
_postgres = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
MIGRATE_DATABASE: dict[str, Any] | None = None
_migrate_url = (env_str("MIGRATE_DATABASE_URL") or "").strip()
if _migrate_url:
    try:
        MIGRATE_DATABASE = dict(dj_database_url.parse(_migrate_url))
    except ValueError as exc:
        raise ConfigError(f"MIGRATE_DATABASE_URL is not a database URL ({exc})") from None
    if not _postgres or MIGRATE_DATABASE["ENGINE"] != "django.db.backends.postgresql":
        raise ConfigError("MIGRATE_DATABASE_URL and DATABASE_URL must be PostgreSQL (SQLite has no roles)")
    if MIGRATE_DATABASE["NAME"] != DATABASES["default"]["NAME"]:
        raise ConfigError("MIGRATE_DATABASE_URL must name DATABASE_URL's database (as its owner)")
_service_role = (env_str("DATABASE_SERVICE_ROLE") or "").strip()
if not _service_role and MIGRATE_DATABASE and MIGRATE_DATABASE["USER"] != DATABASES["default"]["USER"]:
    _service_role = str(DATABASES["default"]["USER"] or "")
if _service_role and not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", _service_role):
    raise ConfigError(
        f"DATABASE_SERVICE_ROLE={_service_role!r} is not a role name: use lowercase letters, digits and _"
    )
DATABASE_SERVICE_ROLE = _service_role if _postgres else ""

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes sees every password check (web log-in and the API token) and refuses one once
# the username and address have failed too often (games/throttling.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# In development static files come from the finders; no collected folder is needed.
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "home"

# Security: on in production, behind a TLS-terminating proxy that sets X-Forwarded-Proto.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): everything from this site only, no inline script or
# style, no eval (htmx runs with allowEval off), no framing by others. Views that need another
# policy say so with django-csp's decorators (the dev outbox's email frame).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "frame-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Email: SMTP when EMAIL_HOST is set, otherwise one .eml file per message in var/outbox,
# which the development outbox page (/dev/outbox/) lists.
EMAIL_HOST = env_str("EMAIL_HOST") or ""
EMAIL_OUTBOX_DIR = Path(env_str("EMAIL_OUTBOX_DIR") or VAR_DIR / "outbox")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 25)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER") or ""
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD") or ""
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
else:
    EMAIL_BACKEND = env_str("EMAIL_BACKEND") or "games.mail.OutboxEmailBackend"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL") or "Pirates by Mail <captain@pirates.localhost>"
SERVER_EMAIL = DEFAULT_FROM_EMAIL
DEV_OUTBOX_PAGE = env_bool("DEV_OUTBOX_PAGE", DEBUG)

# Playing by mail (games/inbound/): turn emails carry a signed Reply-To at REPLY_DOMAIN (by
# default the domain of DEFAULT_FROM_EMAIL; "off" turns replies off). Replies come in through
# `manage.py mail_ingest` (an MTA pipe) or a provider's webhook at /mail/inbound/<provider>/,
# which answers only when ANYMAIL_WEBHOOK_SECRET (basic auth "user:password") is set.
_from_domain = parseaddr(DEFAULT_FROM_EMAIL)[1].rpartition("@")[2]
_reply_domain = (env_str("REPLY_DOMAIN") or _from_domain).strip().lower()
REPLY_DOMAIN = "" if _reply_domain in FALSE_WORDS else _reply_domain
# Larger incoming messages are ignored unread (a reply with a number is a few kilobytes).
INBOUND_MAX_BYTES = env_int("INBOUND_MAX_BYTES", 256 * 1024)
# The authserv-id of the Authentication-Results headers our own receiving mail server adds
# (games/inbound/authentication.py): set, a reply moves only when that server says DMARC (or
# an aligned DKIM or SPF) passed for its From address. Unset, the From header is trusted as
# it stands: for development only.
INBOUND_TRUSTED_AUTHSERV_ID = (env_str("INBOUND_TRUSTED_AUTHSERV_ID") or "").strip()
if not re.fullmatch(r"[A-Za-z0-9._-]*", INBOUND_TRUSTED_AUTHSERV_ID):
    raise ConfigError(
        f"INBOUND_TRUSTED_AUTHSERV_ID: {INBOUND_TRUSTED_AUTHSERV_ID!r} should be the authserv-id "
        "your mail server writes first in its Authentication-Results headers, e.g. mx.example.org"
    )
# Only what is set: an empty signing key would make a signature anyone can compute.
ANYMAIL = {
    name: value
    for name in ("WEBHOOK_SECRET", "MAILGUN_WEBHOOK_SIGNING_KEY", "MAILERSEND_INBOUND_SECRET")
    if (value := (env_str(f"ANYMAIL_{name}") or "").strip())
}

# Celery: Redis in production (REDIS_URL or CELERY_BROKER_URL); a folder broker by default.
REDIS_URL = env_str("REDIS_URL") or ""
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_BROKER_FOLDER = Path(env_str("CELERY_BROKER_FOLDER") or VAR_DIR / "broker")
# Redis only, explained below; checked against EMAIL_RETRY_MAX_SECONDS further down.
CELERY_VISIBILITY_TIMEOUT = env_int(
    "CELERY_VISIBILITY_TIMEOUT", env_int("EMAIL_RETRY_MAX_SECONDS", 600) + 300
)
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(CELERY_BROKER_FOLDER / "queue"),
        "data_folder_out": str(CELERY_BROKER_FOLDER / "queue"),
        "control_folder": str(CELERY_BROKER_FOLDER / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or f"file://{CELERY_BROKER_FOLDER / 'results'}"
else:
    # Redis (redis-py under kombu), chosen for a broker that restarts or hangs:
    # - visibility_timeout: a message a worker has taken (acks late) stays invisible this long;
    #   then Redis hands it out again, also while a worker still holds it waiting for its
    #   countdown. So it must outlast the longest countdown (an email retry, at most
    #   EMAIL_RETRY_MAX_SECONDS) plus a task's run, or a waiting retry runs twice (harmless,
    #   the tasks are idempotent, but wasteful). A killed worker's tasks do not wait for it:
    #   the outbox publishes their rows again after OUTBOX_LEASE_SECONDS.
    # - socket_connect_timeout / socket_timeout: a broker that stops answering fails a publish
    #   within seconds instead of hanging it (the after-commit nudge runs in web requests).
    #   Every synchronous command of the worker's main thread (an ack, restoring unacked
    #   messages, a publish) uses these pooled connections, so none waits longer. BRPOP is
    #   unaffected: kombu sends it with a 1 s server-side timeout (Transport.brpop_timeout)
    #   and reads the reply only when the event loop sees the socket readable, so the 5 s
    #   socket timeout never cuts a healthy BRPOP short (it must stay above those 1 s).
    # - socket_keepalive and health_check_interval: idle connections are checked before use
    #   (redis-py PINGs one idle this long), and kombu's event loop drops a BRPOP connection
    #   whose reply is overdue by brpop_timeout + health_check_interval (11 s; kombu 5.7
    #   MultiChannelPoller.maybe_check_brpop_health) and reconnects.
    # - retry_on_timeout: one more try of a command that timed out on a connection that
    #   turned out to be dead (a Redis restart), on a fresh connection.
    # What socket_timeout cannot bound is the pub/sub connection: redis-py 8.1 reads it with
    # sock.settimeout(None) (PubSub.parse_response(block=True), which kombu's
    # Channel._receive calls), so a worker whose broker went away could block there for
    # ever, alive but consuming nothing. The worker's only pub/sub consumer is the remote
    # control (pidbox) queue, hence CELERY_WORKER_ENABLE_REMOTE_CONTROL = False below.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        "socket_connect_timeout": 3,
        "socket_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 10,
        "retry_on_timeout": True,
        # Opening a connection to publish is tried once, not for the 4 s of
        # broker_connection_timeout: a request's after-commit nudge fails at once when the
        # broker is down. Publishes with a retry policy (workers, beat) still retry by it,
        # and the worker's consumer reconnects by broker_connection_max_retries.
        "max_retries": 0,
    }
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or CELERY_BROKER_URL
# The Redis result backend (tasks that keep their result: ping, the sweep) gets the same
# bounds; Celery's defaults are a 120 s socket timeout, no connect timeout and 20 retries of a
# failed store, which would hold a worker slot for minutes while Redis hangs
# (celery/app/defaults.py "redis" namespace, celery/backends/redis.py RedisBackend.__init__
# and retry_policy). Ignored by the file results of the embedded defaults.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 3
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_REDIS_SOCKET_KEEPALIVE = True
CELERY_REDIS_RETRY_ON_TIMEOUT = True
CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL = 10
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 3, "interval_start": 0, "interval_step": 1, "interval_max": 1},
}
# Lanes (pirates_site/lanes.py): the main queue runs bot moves, the relay and the sweep; every
# task that sends an email is routed by name to the mail queue, which docker/commands/mailer
# consumes, so a slow mail server slows only mail. By name, so app.send_task(name) (the
# outbox relay, beat) is routed the same as task.delay().
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE") or "pirates"
CELERY_MAIL_QUEUE = env_str("CELERY_MAIL_QUEUE") or f"{CELERY_TASK_DEFAULT_QUEUE}-mail"
for _setting, _queue in (("CELERY_QUEUE", CELERY_TASK_DEFAULT_QUEUE),
                         ("CELERY_MAIL_QUEUE", CELERY_MAIL_QUEUE)):
    try:
        check_queue_name(_setting, _queue)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
if CELERY_MAIL_QUEUE == CELERY_TASK_DEFAULT_QUEUE:
    raise ConfigError("CELERY_MAIL_QUEUE must differ from CELERY_QUEUE (mail has a lane of its own)")
MAIL_TASKS = (
    "games.notify_turn",
    "games.notify_reminder",
    "games.notify_timeout",
    "games.notify_seat_to_bot",
    "games.notify_game_over",
    "games.send_invitation",
    "games.answer_reply",
    "games.send_digest",
    "games.seats_filled",
    "games.send_rematch",
    "games.send_crew_invitation",
    "games.webhook_disabled",
)
CELERY_TASK_ROUTES = {name: {"queue": CELERY_MAIL_QUEUE} for name in MAIL_TASKS}
# The remote control is off: its pidbox is a pub/sub consumer whose read no timeout bounds
# (see the broker options above). So `celery inspect ping` gets no answer; a worker's
# liveness is its heartbeat file instead. (The worker commands also pass --without-heartbeat:
# nothing listens to worker events here, and each is a publish from the event loop.)
CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
# Beat sends games.heartbeat to each lane this often; the worker consuming the lane touches
# $VAR_DIR/worker-heartbeat-<queue> for it (and whenever it starts any task of that lane).
# A worker whose file is older than WORKER_LIVENESS_MAX_AGE is restarted by its supervisor
# and reported unhealthy. The age allows for a task running that long while every slot is
# taken (a slow mail server), and must leave room for several missed heartbeats.
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 15)
WORKER_LIVENESS_MAX_AGE = env_int("WORKER_LIVENESS_MAX_AGE", 120)
if WORKER_HEARTBEAT_SECONDS < 1:
    raise ConfigError("WORKER_HEARTBEAT_SECONDS must be at least 1")
if WORKER_LIVENESS_MAX_AGE < 3 * WORKER_HEARTBEAT_SECONDS:
    raise ConfigError("WORKER_LIVENESS_MAX_AGE must be at least three times WORKER_HEARTBEAT_SECONDS")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
# Our tasks are fire-and-forget (their effects are in the database); storing results would
# cost a result-backend round trip per task. Tasks that are waited on say ignore_result=False.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker keeps its database connection from one task to the next, as a web process keeps it
# from one request to the next (CONN_MAX_AGE; pirates_site/celery.py closes it only when it
# is too old or broken, as Django does around a request). Celery's Django fixup would close
# every connection before and after every task unless this many tasks have run: a new
# PostgreSQL backend for each task, the costliest part of a turn email.
CELERY_DB_REUSE_MAX = 2**31
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker or beat whose broker went away keeps reconnecting (with backoff) for as long as it
# takes, instead of exiting after 100 tries; the supervisor (docker/commands/worker) restarts
# it when it dies anyway.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# On a lost broker connection a running task is left to finish rather than cancelled: its
# late ack is lost, so the message comes back after the visibility timeout and runs again,
# which our idempotent tasks shrug off. Cancelling could stop an email between the mail
# server taking it and its Notification row saying so, which would send it twice.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Publishing from a worker (the relay, retries) rides out a broker restart of a few seconds;
# the relay then leaves what it could not publish due again, and requests do not retry at all.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 4, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2,
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = "UTC"

# Throttling (games/throttling.py). Counts live in the "limits" cache, which every process
# shares: Redis when REDIS_URL is set, otherwise a table in the database (created by migration
# games 0010, as `createcachetable` would), never process memory: each `mail_ingest` is a
# process of its own, and so is each gunicorn worker. "default" is for what may be per process.
LIMITS_CACHE = "limits"
LIMITS_CACHE_TABLE = "pbm_cache"  # the name migration games 0010 creates
if REDIS_URL:
    _redis_cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "pbm",
        # A stalled Redis costs a log-in half a second, then the throttles let it through.
        "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
    }
    CACHES = {"default": _redis_cache, LIMITS_CACHE: dict(_redis_cache)}
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "KEY_PREFIX": "pbm"},
        LIMITS_CACHE: {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": LIMITS_CACHE_TABLE,
            "KEY_PREFIX": "pbm",
            # Django's default of 300 entries would cull live counts under a flood.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        },
    }
# Behind this many reverse proxies the client's address is taken from X-Forwarded-For
# (production sits behind a TLS-terminating proxy; see the security settings).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0 if DEBUG else 1)
# Requests per address, account or email address. THROTTLE_RATES="login=100/hour,invitation=off"
# overrides some (N/second, N/minute, N/hour or N/day; off lifts the limit).
THROTTLE_RATES: dict[str, str | None] = {
    "login": "60/hour",  # log-in form and API token, per address
    "account_email": "10/hour",  # log-in link and password reset requests, per address
    "account_email_address": "3/hour",  # the same, per email address asked for
    "signup": "5/hour",  # sign-ups, per address
    "signup_address": "3/hour",  # sign-ups per email address given (each emails a verification link)
    "verify_email": "5/hour",  # verification links sent again or address changes, per account
    "game_create": "20/hour",  # per account
    "invitation": "30/hour",  # invitation requests per account (each may name several people)
    "inbound_mail": "60/hour",  # emails read per sender address (replies that are moves)
    # "Your reply could not be authenticated" answers per account (games/inbound/handle.py)
    "inbound_unauthenticated": "3/hour",
}
_RATE = re.compile(r"off|\d+/(s|sec|second|m|min|minute|h|hour|d|day)")
for _item in env_list("THROTTLE_RATES", []):
    _scope, _, _rate = (part.strip() for part in _item.partition("="))
    if _scope not in THROTTLE_RATES or not _RATE.fullmatch(_rate):
        raise ConfigError(
            f"THROTTLE_RATES: {_item!r} should be SCOPE=N/second|minute|hour|day or SCOPE=off, "
            f"with SCOPE one of {', '.join(THROTTLE_RATES)}"
        )
    THROTTLE_RATES[_scope] = None if _rate == "off" else _rate
# How long an emailed link that verifies an address works, in seconds (3 days).
EMAIL_VERIFICATION_MAX_AGE = env_int("EMAIL_VERIFICATION_MAX_AGE", 3 * 24 * 3600)
# Invitations one account may send in 24 hours (each address once per game in any case).
INVITATIONS_PER_DAY = env_int("INVITATIONS_PER_DAY", 20)
# django-axes: after this many wrong passwords for one username from one address, that pair
# is locked out for the cool-off, counted from the last failure (failures while locked out are
# neither counted nor recorded, so hammering neither extends the lock nor grows its row).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "games.throttling.client_ip"
AXES_USERNAME_CALLABLE = "games.throttling.axes_username"
AXES_LOCKOUT_CALLABLE = "games.throttling.lockout_response"
# Successful log-ins are not logged: no history of who came from where is kept.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON with a depth and size limit that refuses text no database can store (games/safejson.py).
    "DEFAULT_PARSER_CLASSES": [
        "games.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "EXCEPTION_HANDLER": "games.api.exceptions.exception_handler",
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pirates by Mail API",
    "DESCRIPTION": "Play pirate board games by mail: games, seats, actions, the event log and replays.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# The latest engine state of each running game, shared by every web and worker process so a
# move or GET that lands on another process than the last move need not replay from the last
# snapshot (games/read/state.py). In Redis when REDIS_URL is set; without it each process
# keeps only its own recent states. An entry expires this many seconds after the last move.
STATE_CACHE_SECONDS = env_int("STATE_CACHE_SECONDS", 6 * 3600)

# Game play
BOT_MOVE_DELAY_SECONDS = env_int("BOT_MOVE_DELAY_SECONDS", 2)
# How long the strong bot thinks per move, in CPU seconds of the worker (it stops early after
# its iteration budget). The worker holds no lock meanwhile (games.services.play.bot_play).
BOT_THINK_SECONDS = env_float("BOT_THINK_SECONDS", 1.0)
# The next player's turn email waits this long, so a move taken back at once never
# sends a stale one; a player seen at the table this recently counts as present (no email
# for those who chose "only when away").
TURN_EMAIL_GRACE_SECONDS = env_int("TURN_EMAIL_GRACE_SECONDS", 60)
PRESENCE_SECONDS = env_int("PRESENCE_SECONDS", 180)
# The creator's "every seat is taken" email goes out this long after the last seat was taken,
# if they have not started the game by then (beat looks every SWEEP_INTERVAL_SECONDS).
SEATS_FILLED_EMAIL_DELAY_SECONDS = env_int("SEATS_FILLED_EMAIL_DELAY_SECONDS", 120)
# The game the new-game form offers first (the site's flagship).
DEFAULT_RULES = env_str("DEFAULT_RULES", "pirates")
SNAPSHOT_EVERY = env_int("SNAPSHOT_EVERY", 25)
DEFAULT_MOVE_TIME = timedelta(hours=env_int("DEFAULT_MOVE_HOURS", 48))

# Notifications, deadlines and timeouts (games/tasks.py, games/services/timeouts.py, games/emails/)
# A seat whose deadline passes this many times in a row is handed to a bot for the rest of the game.
TIMEOUTS_BEFORE_BOT = env_int("TIMEOUTS_BEFORE_BOT", 3)
# The sweep looks for due reminders and deadlines this often, at most this many games of each per run.
SWEEP_INTERVAL_SECONDS = env_int("SWEEP_INTERVAL_SECONDS", 60)
SWEEP_BATCH_SIZE = env_int("SWEEP_BATCH_SIZE", 200)
# A failed send is retried after base, 2 x base, 4 x base ... up to a cap seconds (capped), this many times.
EMAIL_RETRY_BASE_SECONDS = env_int("EMAIL_RETRY_BASE_SECONDS", 30)
# The cap stays below the broker's visibility timeout (see CELERY_BROKER_TRANSPORT_OPTIONS).
EMAIL_RETRY_MAX_SECONDS = env_int("EMAIL_RETRY_MAX_SECONDS", 600)
EMAIL_MAX_RETRIES = env_int("EMAIL_MAX_RETRIES", 12)
# A sender claims an email's Notification row, commits, and talks to the mail server with no
# lock or transaction open (games/emails/sending.py). Other senders leave a claim alone this
# long; an older one is a sender that died mid-send, and the email goes again (same
# Message-ID). An SMTP conversation is several commands, each allowed EMAIL_TIMEOUT: ten of
# them by default, so a slow but working server is not sent to twice.
_SMTP_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
EMAIL_CLAIM_SECONDS = env_int("EMAIL_CLAIM_SECONDS", 10 * _SMTP_TIMEOUT if EMAIL_HOST else 30)
if EMAIL_CLAIM_SECONDS < 1 or (EMAIL_HOST and EMAIL_CLAIM_SECONDS < 3 * _SMTP_TIMEOUT):
    raise ConfigError("EMAIL_CLAIM_SECONDS must be at least 1, and three times EMAIL_TIMEOUT with SMTP")
# Other tasks retry what is transient (the database or broker restarting) after 1, 2, 4 ...
# seconds (jittered), at most this long apart, this many times; the outbox covers the rest.
if CELERY_VISIBILITY_TIMEOUT <= EMAIL_RETRY_MAX_SECONDS:
    raise ConfigError("CELERY_VISIBILITY_TIMEOUT must be longer than EMAIL_RETRY_MAX_SECONDS")
TASK_RETRY_MAX_SECONDS = env_int("TASK_RETRY_MAX_SECONDS", 60)
TASK_MAX_RETRIES = env_int("TASK_MAX_RETRIES", 10)
# The transactional outbox (games/outbox.py). Beat runs the relay this often (besides the
# nudge after each commit); a published row whose task has not finished within the lease is
# published again (the lease doubles with each publish, up to an hour), and given up after
# this many publishes. The sweep re-queues missing side effects of positions this old.
OUTBOX_RELAY_SECONDS = env_int("OUTBOX_RELAY_SECONDS", 5)
OUTBOX_LEASE_SECONDS = env_int("OUTBOX_LEASE_SECONDS", 60)
OUTBOX_MAX_ATTEMPTS = env_int("OUTBOX_MAX_ATTEMPTS", 10)
OUTBOX_RELAY_BATCH = env_int("OUTBOX_RELAY_BATCH", 500)
OUTBOX_REPAIR_AFTER_SECONDS = env_int("OUTBOX_REPAIR_AFTER_SECONDS", 60)
# Done rows are deleted by the sweep this many days after they were done.
OUTBOX_KEEP_DAYS = env_int("OUTBOX_KEEP_DAYS", 14)
# The daily digest goes out at this hour (UTC).
DIGEST_HOUR_UTC = env_int("DIGEST_HOUR_UTC", 7)


def _every(task: str, seconds: int) -> dict[str, Any]:
    # Periodic messages expire after one interval (10 s at least): a backlog built while no
    # worker ran is not worked through one by one when it comes back (the next one does the
    # same work).
    return {"task": task, "schedule": timedelta(seconds=seconds), "options": {"expires": max(seconds, 10)}}


CELERY_BEAT_SCHEDULE = {
    "sweep": _every("games.sweep", SWEEP_INTERVAL_SECONDS),
    "outbox-relay": _every("games.relay", OUTBOX_RELAY_SECONDS),
    # Turn emails for players who were at the table when their turn came and left.
    "turn-emails-for-leavers": _every("games.turn_emails_for_leavers", SWEEP_INTERVAL_SECONDS),
    "daily-digest": {"task": "games.daily_digest", "schedule": crontab(minute=0, hour=DIGEST_HOUR_UTC)},
}
# One heartbeat per lane, sent to that lane's queue (an explicit queue wins over the routes).
for _queue in (CELERY_TASK_DEFAULT_QUEUE, CELERY_MAIL_QUEUE):
    _entry = _every("games.heartbeat", WORKER_HEARTBEAT_SECONDS)
    _entry["args"] = (_queue,)
    _entry["options"]["queue"] = _queue
    CELERY_BEAT_SCHEDULE[f"worker-heartbeat-{_queue}"] = _entry

# Webhooks (games/webhooks.py, games/services/webhooks.py). Development may send to loopback
# addresses over http; production only to public addresses over https (checked when a hook is
# saved and again, on the resolved address, at every delivery).
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", DEBUG)
WEBHOOK_MAX_PER_GAME = env_int("WEBHOOK_MAX_PER_GAME", 5)
WEBHOOK_MAX_PER_CREW = env_int("WEBHOOK_MAX_PER_CREW", 5)
# Connecting and each read of one delivery; a slow receiver is a failed attempt.
WEBHOOK_TIMEOUT_SECONDS = float(env_str("WEBHOOK_TIMEOUT_SECONDS") or 5)
# A failed delivery is retried after base, 2 x base ... up to the cap, this many times.
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 15)
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 600)
WEBHOOK_MAX_RETRIES = env_int("WEBHOOK_MAX_RETRIES", 6)
# This many failed attempts in a row disable a hook and email whoever set it up.
WEBHOOK_DISABLE_AFTER = env_int("WEBHOOK_DISABLE_AFTER", 10)
