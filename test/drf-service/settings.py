# A small Django REST Framework project serving the lists it is told of, for the tests of
# `npm run import` and `npm run verify` (test/process/drf-service.test.ts) and for rehearsing them
# (`npm run drf-service`), and for the filters' differential test (test/process/filters-differential.test.ts),
# under gunicorn. Environment:
# - DATA_DIR, a folder of its own (the SQLite file);
# - DATABASE_URL, PostgreSQL instead of SQLite: postgresql://USER@/NAME?host=SOCKET_FOLDER (or
#   postgresql://USER:PASSWORD@HOST:PORT/NAME), an empty database the service fills at start;
# - LISTS, the JSON file describing the lists (test/drf-service/lists.ts, from the declarations):
#   each list's path, fields, order, ordering fields, pagination, and the filters, search and
#   orderings the settings file's `resources` section gives it; catalogue/models.py and api.py
#   build the models and views from it;
# - CATALOGUE, the JSON file of records loaded at start, by list name (wsgi.py);
# - PAGE_SIZE, the paginated lists' page size;
# - NOT_FOUND=json, a handler404 answering JSON (urls.py).
#
# DRF's defaults are kept wherever they show in an answer (the renderers, content negotiation and
# so the browsable API on ?format=api, the metadata of OPTIONS), so that verify meets what a real
# service sends.

import json
import os
from urllib.parse import parse_qs, unquote, urlsplit

DATA_DIR = os.environ["DATA_DIR"]

SECRET_KEY = "test-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "urls"
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "rest_framework",
    "catalogue",
]

with open(os.environ["LISTS"], encoding="utf-8") as _file:
    STATIC_API_LISTS = json.load(_file)
# django-filter's templates (the browsable API's filter form), when a list has filters.
if any(description["settings"] is not None for description in STATIC_API_LISTS):
    INSTALLED_APPS.append("django_filters")
# A new project's middleware, less sessions, CSRF and messages, which a read-only API without
# logins never uses: the contract's security headers, and the redirect of a path without its slash.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# The browsable API's page.
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
STATIC_URL = "/static/"


def postgres(url):
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        # A Unix socket's folder is given as ?host=, as libpq's own URLs do.
        "HOST": query.get("host", [parts.hostname or ""])[0],
        "PORT": str(parts.port or ""),
    }


DATABASES = {
    "default": postgres(os.environ["DATABASE_URL"])
    if os.environ.get("DATABASE_URL")
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(DATA_DIR, "catalogue.sqlite3")}
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True

REST_FRAMEWORK = {"PAGE_SIZE": int(os.environ.get("PAGE_SIZE", "10"))}

# An error of the service goes to gunicorn's stderr, which the tests show when a start fails.
LOGGING = {
    "version": 1,
    # gunicorn's own log stays: its "Listening at" line tells the tests the port is the service's.
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}},
}
