# A small Django REST Framework project serving the catalogue's four lists, for the tests of
# `npm run import` and `npm run verify` (test/unit/drf-service.test.ts) and for rehearsing them
# (`npm run drf-service`), under gunicorn. Environment: DATA_DIR, a folder of its own for the
# SQLite file; CATALOGUE, the JSON file of records loaded at start (wsgi.py); PAGE_SIZE, the
# texture list's page size; NOT_FOUND=json, a handler404 answering JSON (urls.py).
#
# DRF's defaults are kept wherever they show in an answer (the renderers, content negotiation and
# so the browsable API on ?format=api, the metadata of OPTIONS), so that verify meets what a real
# service sends.

import os

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
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(DATA_DIR, "catalogue.sqlite3")}
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True

REST_FRAMEWORK = {"PAGE_SIZE": int(os.environ.get("PAGE_SIZE", "10"))}

# An error of the service goes to gunicorn's stderr, which the tests show when a start fails.
LOGGING = {
    "version": 1,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}},
}
